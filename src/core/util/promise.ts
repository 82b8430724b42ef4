/**
 * The settled promise a transport's `send` returns when the write went through at once. The
 * connection recognises it and attaches no failure handler (a promise and a job saved per
 * message, thousands of times a second); any other promise is waited on as usual.
 */
export const SENT: Promise<void> = Promise.resolve();
