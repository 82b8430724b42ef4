import { isArray } from '../util/builtins';
/** The messages of a value read off the wire: a JSON-RPC batch's elements, or the value itself. */
export const messagesIn = (value: unknown): unknown[] => (isArray(value) ? value : [value]);

/** The reason of a close the client asked for (`close()`). */
export const CLOSED_BY_CLIENT = 'closed by the client';

/** Why a transport closed: shown to the user as the server's error state. */
export interface TransportCloseInfo {
  /** A sentence that says what happened, e.g. "process exited with code 1". */
  reason: string;
  /** Process exit code, HTTP status, or WebSocket close code, when there is one. */
  code?: number;
  /** The last lines the server wrote to stderr (stdio only). */
  stderr?: string[];
}

/**
 * One contract for every way of reaching a server (after the SDK's `Transport`).
 *
 * A transport moves whole JSON-RPC messages. It parses JSON but never validates shapes: every
 * value it hands to `onmessage` is untrusted and validated by the connection. Text that is not
 * JSON goes to `onerror` as a `TransportParseError`; the transport carries on. A batch (an
 * array) is handed over message by message (`messagesIn`).
 */
export interface Transport {
  /** Opens the channel (spawns the process, connects the socket...). Rejects when it cannot. */
  start(): Promise<void>;
  /**
   * Sends one message. Rejects when the message could not be delivered (for HTTP: a status
   * that is not 2xx); the connection then fails the matching request with that error.
   */
  send(message: object): Promise<void>;
  /** Ends the channel and everything it started. Idempotent; `onclose` fires once. */
  close(): Promise<void>;

  /**
   * `related`: the id of our request the message came in answer to, where the transport can say
   * (Streamable HTTP: it came on the answer stream of the POST that carried that request).
   */
  onmessage?: (message: unknown, related?: string | number) => void;
  onerror?: (error: Error) => void;
  onclose?: (info: TransportCloseInfo) => void;

  /** Told the negotiated protocol revision after `initialize` (HTTP sends it as a header). */
  setProtocolVersion?(version: string): void;
  /** The session id a server assigned (Streamable HTTP `Mcp-Session-Id`). */
  readonly sessionId?: string;
  /** Streamable HTTP: when true, `close()` keeps the server's session (no DELETE) for a resume. */
  keepSessionOnClose?: boolean;
  /**
   * Told that no one awaits the answer to request `id` any more (it timed out, `timedOut`, or was
   * cancelled), so that nothing stays open for it (Streamable HTTP ends the POST once none of its requests is awaited).
   */
  forget?(id: string | number, timedOut?: boolean): void;
  /** Streamable HTTP: opens the stream of server-initiated messages (after a resume). */
  openServerStream?(): void;
  /** A short description for logs, e.g. `stdio: node server.js` or `http: https://host/mcp`. */
  readonly description: string;
}

/**
 * Marks a JSON-RPC error response that a transport made up itself, for a request whose answer it
 * lost (a cut stream): the request failed here; it is not what the peer answered.
 */
export const LOCAL_FAILURE = Symbol('mcp-tasks.localFailure');

/** A line or event that was not valid JSON. */
export class TransportParseError extends Error {
  override name = 'TransportParseError';
  declare readonly text: string;
  constructor(message: string, text: string) {
    super(message);
    this.text = text;
  }
}

/** An HTTP answer that was not 2xx, or a refused connection. */
export class TransportHttpError extends Error {
  override name = 'TransportHttpError';
  declare readonly status?: number;
  constructor(message: string, status?: number) {
    super(message);
    this.status = status;
  }
}

/**
 * A transport's reason for a failed connection, for words that already name the server (`Could
 * not connect to MCP server "x"`), so that it is named once: the url the reason gives with the
 * server (`at`), and the rest, the server its subject ("it answered HTTP 404 …"). A reason that
 * does not start with the server is left as it is.
 */
export const unnamedReason = (reason: string, server: string): { at?: string; why: string } => {
  // "Could not reach server "x" at URL: D" (HTTP), "Could not connect to server "x" at URL: D" and
  // "server "x" at URL refused …" (WebSocket), "Server "x" answered …" (all).
  const m = /^(Could not \w+(?: to)? )?[Ss]erver "(.*?)" (?:at (\S+?):? )?/.exec(reason);
  if (m?.[2] !== server || (m[1] && !m[3])) return { why: reason };
  const rest = reason.slice(m[0].length);
  return { at: m[3], why: m[1] ? rest : `it ${rest}` };
};

/** A failed connection's reason as it reads after the server's name (`Server "x" failed`): " at URL: why", or ": why" (see unnamedReason). */
export const afterServerName = (reason: string, server: string): string => {
  const { at, why } = unnamedReason(reason, server);
  return `${at ? ` at ${at}` : ''}: ${why}`;
};

/**
 * Streamable HTTP: the server no longer knows our session (HTTP 404 on a request that carried
 * it, or a 400 that says so: the server restarted or expired it). Also reported through
 * `onerror`: the session is over.
 */
export class SessionExpiredError extends TransportHttpError {
  override name = 'SessionExpiredError';
}
