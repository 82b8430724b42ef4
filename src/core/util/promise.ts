/**
 * The settled promise a transport's `send` returns when the write went through at once. The
 * connection recognises it and attaches no failure handler (a promise and a job saved per
 * message, thousands of times a second); any other promise is waited on as usual.
 */
export const SENT: Promise<void> = Promise.resolve();

/** Does nothing: what a promise's failure is left to when nothing is to be done about it (`.catch(noop)`), and a listener or a stop that has nothing to do. One function in the bundle for its 27 uses. */
export const noop = (): undefined => undefined;

/** Promise.reject (which needs its `this`, so is not bound): the bundle spells it once, not at each of its 14 uses. */
export const rejected = <T = never>(reason: unknown): Promise<T> => Promise.reject(reason);
