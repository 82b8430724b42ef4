import { errorMessage } from '../util/abort';
import { serverNamed } from '../util/text';

/** JSON-RPC 2.0 and MCP error codes. */
export enum ErrorCode {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  InternalError = -32603,
  /** MCP: the request was cancelled or timed out locally (never sent by a peer). */
  RequestTimeout = -32001,
  ConnectionClosed = -32000,
  /** MCP: URL elicitation required. */
  UrlElicitationRequired = -32042,
}

/** An error with a JSON-RPC code: received from a peer, or raised locally and sent as one. */
export class RpcError extends Error {
  override name = 'RpcError';
  declare readonly code: number;
  declare readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }

  /** The error object as it travels in a response. */
  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * The request ran out of time; the peer was told with `notifications/cancelled`. With `server`,
 * the message names it: it may reach the user far from the server's name (a chat tool, a note).
 */
export class RequestTimeoutError extends RpcError {
  override name = 'TimeoutError';
  /** What happened without the server's name, for a message that names it already. */
  declare readonly detail: string;
  /** "did not answer METHOD within N s", for a sentence that names the server its own way. */
  declare readonly unanswered: string;
  constructor(method: string, ms: number, server?: string) {
    const detail = `Request ${method} timed out after ${ms} ms without an answer`;
    const unanswered = `did not answer ${method} within ${ms / 1000} s`;
    super(ErrorCode.RequestTimeout, server === undefined ? detail : `${serverNamed(server)} ${unanswered}`);
    this.detail = detail;
    this.unanswered = unanswered;
  }
}

/** An error's message for a line that names its server already: for a timeout, its `detail`, which does not name it again. */
export const detailOf = (err: unknown): string => (err instanceof RequestTimeoutError ? err.detail : reasonOf(err));

/**
 * An error's message for the user. A server's error with an empty (or blank) message says so, with its code,
 * instead of nothing after a colon; the error itself (a result, an outcome) keeps it as sent.
 */
export const reasonOf = (err: unknown): string => (isPeerError(err) && !err.message.trim() ? `the server gave no reason (error ${err.code})` : errorMessage(err));

/** The transport lost the answer (a stream cut before it): not an error the peer sent. */
export class TransportFailureError extends RpcError {
  override name = 'TransportFailureError';
  constructor(message: string) {
    super(ErrorCode.ConnectionClosed, message);
  }
}

/** The connection ended before the answer came. */
export class ConnectionClosedError extends RpcError {
  override name = 'ConnectionClosedError';
  declare readonly reason: string;
  constructor(reason: string) {
    // A reason that is a sentence of its own ("Server process exited …") needs no label.
    super(ErrorCode.ConnectionClosed, /^[A-Z]/.test(reason) ? reason : `Connection closed: ${reason}`);
    this.reason = reason;
  }
}

/**
 * Whether an error is a JSON-RPC error the peer sent (as opposed to a local timeout, a closed
 * connection or a result that failed validation, which are subclasses).
 */
export const isPeerError = (err: unknown): err is RpcError => err instanceof RpcError && Object.getPrototypeOf(err) === RpcError.prototype;
