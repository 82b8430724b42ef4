import type { ClientRequest, IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import WebSocket from 'ws';
import type { RawData } from 'ws';
import { asError, errorMessage } from '../util/abort';
import type { Logger } from '../util/log';
import { redactHeaders } from '../util/log';
import type { Transport, TransportCloseInfo } from './transport';
import { answeredOrigins, authRefusal, originOf, CHECK_URL, PROXY_AUTH, readBodySnippet, unreachableHint, webPageAnswer } from './sseStream';
import { CLOSED_BY_CLIENT, messagesIn, TransportHttpError, TransportParseError } from './transport';
import { fromJson, isString, stringify } from '../util/json';
import { noop, rejected } from '../util/promise';

export interface WebSocketTransportOptions {
  /** `ws://` or `wss://` endpoint of the server. */
  url: string;
  /** Sent with the upgrade request (e.g. `Authorization`); never logged in clear. */
  headers?: Record<string, string>;
  logger: Logger;
  /** The server's configured name, used in error messages the user sees. */
  serverName: string;
  /** Largest frame accepted, in bytes; a larger one closes the connection (1009). Default 64 MiB. */
  maxPayload?: number;
  /** How long the opening handshake may take, in ms. Default 30 s. */
  connectTimeoutMs?: number;
  /** How long `close()` waits for the server's close frame before dropping the socket. Default 2 s. */
  closeTimeoutMs?: number;
  /** How often the server is pinged; a server silent for a whole interval since is taken as gone. Default 30 s. */
  pingIntervalMs?: number;
}

/** The subprotocol MCP over WebSocket negotiates (as the SDK's `WebSocketClientTransport`). */
export const MCP_SUBPROTOCOL = 'mcp';
const DEFAULT_MAX_PAYLOAD = 64 * 1024 * 1024;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
/** How long the start of a web page answered instead of the upgrade is waited for. */
const PAGE_WAIT_MS = 1000;
const DEFAULT_CLOSE_TIMEOUT_MS = 2_000;
const DEFAULT_PING_INTERVAL_MS = 30_000;

/**
 * MCP over a WebSocket: one JSON-RPC message (or a batch array) per text frame.
 *
 * `onclose` fires once, and only for a connection that opened: a `start()` that fails reports
 * through its rejection alone, so callers do not get the same failure twice.
 */
export class WebSocketTransport implements Transport {
  // `declare`: typed, not emitted as fields (undefined until the connection sets them), which costs the bundle nothing.
  declare onmessage?: (message: unknown) => void;
  declare onerror?: (error: Error) => void;
  declare onclose?: (info: TransportCloseInfo) => void;

  declare readonly description: string;
  readonly #log: Logger;
  readonly #displayUrl: string;
  #ws: WebSocket | undefined;
  #opened = false;
  #closeReported = false;
  #closing: Promise<void> | undefined;
  /** Set when we asked for the close, so the reason says who ended it. */
  #closedByClient = false;
  /** The last socket error, folded into the close reason (e.g. "Max payload size exceeded"). */
  #lastError: Error | undefined;
  /**
   * The code we closed with after a protocol error of the server's (an oversized or malformed
   * frame). ws stops reading at that point, so its 'close' event only says 1006.
   */
  #protocolErrorCode: number | undefined;
  /** Something (a pong, a message) came from the server since the last ping. */
  #alive = true;
  readonly #options: WebSocketTransportOptions;

  constructor(options: WebSocketTransportOptions) {
    this.#options = options;
    this.#log = options.logger;
    this.#displayUrl = withoutCredentials(options.url);
    this.description = `ws: ${this.#displayUrl}`;
  }

  start(): Promise<void> {
    if (this.#ws) return rejected(new Error(`WebSocket transport for ${this.#who()} was already started`));
    if (this.#closing) return rejected(new Error(`WebSocket transport for ${this.#who()} was closed`));
    const { headers = {} } = this.#options;
    if (this.#log.traceEnabled !== false) {
      this.#trace(`connecting to ${this.#displayUrl} (headers: ${stringify(redactHeaders(headers))})`);
    }

    return new Promise<void>((resolve, reject) => {
      let ws: WebSocket;
      try {
        ws = new WebSocket(this.#options.url, MCP_SUBPROTOCOL, {
          headers,
          maxPayload: this.#options.maxPayload ?? DEFAULT_MAX_PAYLOAD,
          handshakeTimeout: this.#options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
          // A redirect would carry the Authorization header to wherever the server points.
          followRedirects: false,
          perMessageDeflate: false,
        });
      } catch (err) {
        // Invalid URL or scheme: ws throws synchronously.
        reject(this.#cannotConnect(errorMessage(err)));
        return;
      }
      this.#ws = ws;
      let refusal: TransportHttpError | undefined;

      const url = this.#options.url;
      ws.on('unexpected-response', (req: ClientRequest, res: IncomingMessage) => {
        // An answer, though a refusal (a 503 while it starts): a reset later is a server gone.
        answeredOrigins.add(originOf(url));
        // A web page's title is read first (see #describeRefusal).
        void this.#describeRefusal(res)
          .then((e) => (refusal = e), noop)
          .then(() => {
            req.destroy();
            // Aborts the handshake; ws then emits 'error' and 'close', where start() rejects.
            ws.terminate();
          });
      });

      ws.on('open', () => {
        this.#opened = true;
        answeredOrigins.add(originOf(url));
        // A server gone without closing (a dropped network, a machine asleep) leaves the socket
        // open for many minutes, and every request times out: a ping unanswered ends it.
        const every = this.#options.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS;
        const pinger = setInterval(() => {
          if (this.#alive) {
            this.#alive = false;
            ws.ping();
            return;
          }
          this.#lastError = new Error(`the server did not answer a ping within ${every / 1000} s`);
          ws.terminate();
        }, every);
        pinger.unref();
        ws.once('close', () => clearInterval(pinger));
        ws.on('pong', () => (this.#alive = true));
        this.#trace(`connected to ${this.#displayUrl} (subprotocol ${ws.protocol || 'none'})`);
        resolve();
      });

      ws.on('error', (err: Error) => {
        if (!this.#opened) {
          const e = refusal ?? this.#cannotConnect(connectHint(err, this.#displayUrl));
          this.#trace(`connection failed: ${e.message}`);
          reject(e);
          return;
        }
        this.#lastError = err;
        this.#protocolErrorCode ??= protocolErrorCode(err);
        this.#trace(`error: ${err.message}`);
        this.#fail(err);
      });

      ws.on('message', (data: RawData, isBinary: boolean) => this.#receive(data, isBinary));

      ws.on('close', (code: number, reasonBuf: Buffer) => {
        const reason = reasonBuf.toString('utf8');
        this.#trace(`closed (code ${code}${reason ? `, reason "${reason}"` : ''})`);
        // A close during the handshake ('error' already rejected, or close() was called first).
        if (!this.#opened) {
          reject(refusal ?? this.#cannotConnect('the connection closed during the handshake'));
          return;
        }
        const effective = this.#protocolErrorCode ?? code;
        this.#reportClose({ reason: this.#describeClose(effective, reason), code: effective });
      });
    });
  }

  send(message: object): Promise<void> {
    const ws = this.#ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return rejected(new Error(`Cannot send to ${this.#who()}: the WebSocket is not open`));
    }
    let text: string;
    try {
      text = stringify(message);
    } catch (err) {
      return rejected(new Error(`Cannot send to ${this.#who()}: ${errorMessage(err)}`));
    }
    return new Promise<void>((resolve, reject) => {
      ws.send(text, (err) => (err ? reject(new Error(`Could not send to ${this.#who()}: ${err.message}`)) : resolve()));
    });
  }

  /** A line of the log at trace level, about the socket. */
  #trace(what: string): void {
    this.#log.trace(`WebSocket ${what}`);
  }

  close(): Promise<void> {
    this.#closing ??= this.#doClose();
    return this.#closing;
  }

  async #doClose(): Promise<void> {
    this.#closedByClient = true;
    const ws = this.#ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    this.#trace(`closing ${this.#displayUrl}`);
    const closeTimeoutMs = this.#options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS;
    await new Promise<void>((resolve) => {
      // A server that never answers the close frame must not keep the socket (ws waits 30 s).
      const timer = setTimeout(() => {
        this.#trace(`${this.#displayUrl} did not close within ${closeTimeoutMs} ms; terminating it`);
        ws.terminate();
      }, closeTimeoutMs);
      ws.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
      ws.close(1000, 'client closing');
    });
  }

  #receive(data: RawData, isBinary: boolean): void {
    this.#alive = true;
    // A Buffer, with ws's binaryType left as it is ('nodebuffer'; the bundle drops the others: esbuild.js's wsDomStyle).
    const buf = data as Buffer;
    if (isBinary) {
      this.#fail(new TransportParseError(`Ignored a binary frame of ${buf.length} bytes (MCP sends JSON in text frames)`, `<${buf.length} bytes>`));
      return;
    }
    const text = buf.toString('utf8');
    let value: unknown;
    try {
      value = fromJson(text);
    } catch (err) {
      this.#fail(new TransportParseError(`Frame is not JSON: ${errorMessage(err)}`, text));
      return;
    }
    // A batch: each element is a message of its own; the connection validates each.
    for (const m of messagesIn(value)) {
      try {
        this.onmessage?.(m);
      } catch (err) {
        // A throw here would unwind into ws's frame parser and take the socket down.
        this.#fail(asError(err));
      }
    }
  }

  #fail(err: Error): void {
    try {
      this.onerror?.(err);
    } catch {
      // The handler's own failure must not reach ws's event loop either.
    }
  }

  #reportClose(info: TransportCloseInfo): void {
    if (this.#closeReported) return;
    this.#closeReported = true;
    this.onclose?.(info);
  }

  #describeClose(code: number, reason: string): string {
    if (this.#closedByClient) return CLOSED_BY_CLIENT;
    const why = reason ? `: ${reason}` : '';
    if (code === 1009) {
      const limit = this.#options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
      return `the connection was closed because the server sent a message over the size limit of ${limit} bytes (code 1009)`;
    }
    if (this.#protocolErrorCode !== undefined) {
      return `the connection was closed because the server broke the WebSocket protocol: ${this.#lastError?.message ?? 'unknown error'} (code ${code})`;
    }
    if (code === 1006) {
      const detail = this.#lastError ? `: ${this.#lastError.message}` : '';
      return `the connection to ${this.#displayUrl} was lost (code ${code}${detail})`;
    }
    return `the server closed the WebSocket (code ${code}${why})`;
  }

  async #describeRefusal(res: IncomingMessage): Promise<TransportHttpError> {
    const status = res.statusCode ?? 0;
    const line = `HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
    const type = res.headers['content-type'] ?? '';
    // The start of the body, by what of it arrives within a moment: one that stalls is told at
    // once, not as a handshake timeout.
    const body = async (max: number): Promise<string> => {
      const stalled = setTimeout(() => res.destroy(), PAGE_WAIT_MS);
      const text = await readBodySnippet(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { headers: { 'content-type': type } }), max);
      clearTimeout(stalled);
      return text;
    };
    let hint = '';
    if (status === 407) {
      res.resume();
      return new TransportHttpError(`Could not connect to ${this.#who()}: ${PROXY_AUTH}`, status);
    }
    if (status === 401 || status === 403) {
      // A WebSocket server is configured in settings: no input of its is saved.
      hint = authRefusal(status, res.headers['www-authenticate'], this.#options.headers ?? {}, await body(200), true);
    } else if (status >= 300 && status < 400) {
      const location = res.headers.location;
      hint = `. Redirects are not followed${location ? `: it points to ${withoutCredentials(location)}; update the url in its configuration` : ''}`;
    } else if (/^\s*text\/html\b/i.test(type)) {
      // A web page (a proxy's sign-in page) says what it is.
      return new TransportHttpError(`${this.#who()} answered ${line} with ${webPageAnswer(await body(100), 'a WebSocket', true)}.`, status);
    } else if (status === 404) {
      hint = `: ${CHECK_URL}`;
    }
    res.resume();
    return new TransportHttpError(`${this.#who()} refused the WebSocket connection with ${line}${hint}`, status);
  }

  #who(): string {
    return `server "${this.#options.serverName}" at ${this.#displayUrl}`;
  }

  #cannotConnect(why: string): TransportHttpError {
    return new TransportHttpError(`Could not connect to ${this.#who()}: ${why}`);
  }
}

/** The close code ws sends when it rejects a frame of the server's; undefined for other errors. */
const protocolErrorCode = (err: Error): number | undefined => {
  const code = (err as { code?: unknown }).code;
  if (!isString(code) || !code.startsWith('WS_ERR_')) return undefined;
  switch (code) {
    case 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH':
    case 'WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH':
      return 1009;
    case 'WS_ERR_TOO_MANY_BUFFERED_PARTS':
      return 1008;
    case 'WS_ERR_INVALID_UTF8':
      return 1007;
    default:
      return 1002;
  }
};

/** Adds what the user can do about the handshake errors ws reports tersely. */
const connectHint = (err: Error, url: string): string => {
  if (/subprotocol/i.test(err.message)) return `${err.message} (MCP over WebSocket needs the "${MCP_SUBPROTOCOL}" subprotocol)`;
  return unreachableHint((err as { code?: unknown }).code, err.message, url) ?? err.message;
};

/** The URL without `user:password@`, for logs and messages. */
const withoutCredentials = (url: string): string => {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url;
  }
};
