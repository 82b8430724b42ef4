import type { EventSourceMessage } from 'eventsource-parser';
import { ErrorCode } from '../jsonrpc/errors';
import { abortReason, abortWith, anySignal, errorMessage, newController, sleep } from '../util/abort';
import type { Logger } from '../util/log';
import { checkHttpConfig, closedError, deliver, discardBody, EVENT_STREAM, httpStatusError, JSON_TYPE, LOST_EVENT_HINT, MAX_MESSAGE_CHARS, mediaType, networkError, parseEventData, readBodySnippet, readBodyText, readSseStream, webPageAnswer } from './sseStream';
import { STREAM_HEADERS_TIMEOUT_MS, transportFetch } from './nodeFetch';
import type { Transport, TransportCloseInfo } from './transport';
import { CLOSED_BY_CLIENT, LOCAL_FAILURE, messagesIn, SessionExpiredError, TransportHttpError, TransportParseError } from './transport';
import { isNumber, isObjectLike, isString, stringify } from '../util/json';
import { maxOf, minOf } from '../util/builtins';
import { serverNamed } from '../util/text';

/** How a dropped SSE stream is resumed. */
export interface ReconnectOptions {
  /** Delay before the first retry when the server sent no `retry` field (ms); grows 1.5× per failed attempt. */
  initialDelayMs?: number;
  /** Cap of the grown delay (a server's own `retry` is always honoured). */
  maxDelayMs?: number;
  /**
   * GETs in a row that fail or are refused before an answer stream is given up, or the user is
   * warned that the standalone GET stream is down (it is retried while the transport is open).
   * A stream the server opens starts the count over, even one it closes at once (the spec's polling).
   */
  maxRetries?: number;
}

export interface StreamableHttpOptions {
  /** The MCP endpoint, e.g. `https://host/mcp`. */
  url: string;
  /** Sent with every request (e.g. `Authorization`); never logged in clear. */
  headers?: Record<string, string>;
  logger: Logger;
  /** Named in error messages shown to the user. */
  serverName: string;
  /** A saved session to resume instead of starting a new one. */
  sessionId?: string;
  /** The protocol revision negotiated by the resumed session. */
  protocolVersion?: string;
  reconnect?: ReconnectOptions;
  /** Configured in settings (`mcpTasks.servers`), which allow no `${input:…}`: the advice on a refusal or a web page says `${env:…}`. */
  settings?: boolean;
  /** How long a notification or answer waits for the server to accept it (ms). */
  oneWayTimeoutMs?: number;
}

type RequestId = string | number;

/** One SSE stream followed across reconnects: the answer stream of a POST, or the standalone GET stream. */
interface StreamState {
  kind: 'post' | 'get';
  label: string;
  lastEventId?: string;
  /** The server's `retry` field, which overrides our backoff. */
  retryMs?: number;
  /** POST streams: requests whose response has not arrived yet; the stream is done when empty. */
  pending?: Set<RequestId>;
  /** POST streams: the request the POST carried (none for a batch), which what the stream brings relates to (spec: "SHOULD relate to the originating client request"). */
  related?: RequestId;
}

/** One POST carrying requests: open while any of them is awaited (by us or the connection). */
interface Exchange {
  controller: AbortController;
  /** Its requests not yet answered, timed out or cancelled. */
  ids: Set<RequestId>;
}

/** Outcome of a GET that did not open a stream. */
/** `told`: the loss was told already (the session expired): an answer stream fails its requests without a warning of its own. */
type Refused = { stop: string; quiet?: boolean; told?: boolean } | { retry: string };

const DELETE_TIMEOUT_MS = 5_000;
/** Longest wait before resuming a stream, whatever the server's `retry` (setTimeout fires at once past 2^31-1 ms). */
const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** Shortest wait for a server's `retry`: one that closes every poll at once with `retry: 0` gets no busy loop. */
const MIN_RETRY_DELAY_MS = 100;
/** One-way POSTs (answers, notifications) in flight at once. */
const MAX_ONE_WAY_LANES = 16;
const DEFAULT_ONE_WAY_TIMEOUT_MS = 30_000;

/**
 * Client side of the Streamable HTTP transport (MCP 2025-11-25): every message is a POST to the
 * endpoint, answered by 202, one JSON body, or an SSE stream; server-initiated messages come on
 * a standalone GET stream.
 *
 * The GET stream is opened automatically once the server accepts `notifications/initialized`;
 * a session resumed from a saved `sessionId` calls {@link openServerStream} itself. Streams that
 * drop are resumed with GET + `Last-Event-ID`, honouring the server's `retry`; an answer stream
 * with a bounded number of failed attempts in a row, the GET stream for as long as the transport
 * is open (a server back after an outage is heard again). A server that closes its streams to be
 * polled is polled.
 * A POST stream that cannot be resumed, or a JSON answer without the response, fails its pending
 * requests at once (as a JSON-RPC error handed to `onmessage`) instead of leaving them to time out.
 *
 * A 404 on a request that carried a session id means the session is gone (so does a 400 whose
 * body speaks of the session, as servers made from the SDK's older examples answer): `sessionId`
 * becomes undefined and the error says so; the caller starts a new session with `initialize`.
 */
export class StreamableHttpTransport implements Transport {
  // `declare`: typed, not emitted as fields (undefined until the connection sets them), which costs the bundle nothing.
  declare onmessage?: (message: unknown, related?: RequestId) => void;
  declare onerror?: (error: Error) => void;
  declare onclose?: (info: TransportCloseInfo) => void;

  /**
   * When true, `close()` only drops the connections: the session is not deleted on the server
   * and `sessionId` stays readable, so it can be resumed (after a window reload).
   */
  keepSessionOnClose = false;
  declare readonly description: string;

  readonly #url: string;
  readonly #serverName: string;
  /** What its errors start with: `Server "name"`. */
  readonly #server: string;
  readonly #log: Logger;
  readonly #customHeaders: Record<string, string>;
  readonly #settings?: boolean;
  readonly #reconnect: Required<ReconnectOptions>;
  readonly #oneWayTimeoutMs: number;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;
  /** Aborts every fetch, stream and retry sleep when the transport closes. */
  readonly #lifetime = newController();
  /** The standalone GET stream while it is connecting, open, or waiting to reconnect. */
  #serverStream: AbortController | undefined;
  #closing: Promise<void> | undefined;
  /** One-way messages (answers, notifications) in flight, and those waiting for a lane. */
  #lanes = 0;
  readonly #laneQueue: Array<() => void> = [];
  /** The open POST exchange of each request still awaited. */
  readonly #exchanges = new Map<RequestId, Exchange>();

  constructor(options: StreamableHttpOptions) {
    this.#url = options.url;
    this.#serverName = options.serverName;
    this.#server = serverNamed(options.serverName);
    this.#log = options.logger;
    this.#customHeaders = { ...options.headers };
    this.#reconnect = { initialDelayMs: 1000, maxDelayMs: 30_000, maxRetries: 5, ...options.reconnect };
    this.#oneWayTimeoutMs = options.oneWayTimeoutMs ?? DEFAULT_ONE_WAY_TIMEOUT_MS;
    this.#settings = options.settings;
    this.#sessionId = options.sessionId;
    this.#protocolVersion = options.protocolVersion;
    this.description = `http: ${options.url}`;
  }

  /** The session the server assigned (`Mcp-Session-Id`), if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** True while the standalone GET stream is connecting, open, or about to reconnect. */
  get listening(): boolean {
    return this.#serverStream !== undefined;
  }

  /** Throws once the transport is closing: nothing more is sent. */
  #ensureOpen(): void {
    if (this.#closing) throw closedError(this.#serverName);
  }

  /** Checks the configuration; no request is made until the first `send`. */
  async start(): Promise<void> {
    this.#ensureOpen();
    checkHttpConfig(this.#serverName, this.#url, this.#customHeaders);
    this.#log.debug(`Using ${this.description}${this.#sessionId ? ` (resuming session ${this.#sessionId})` : ''}`);
  }

  /** The negotiated protocol revision, sent as `MCP-Protocol-Version`. */
  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async send(message: object): Promise<void> {
    this.#ensureOpen();
    const requestIds = requestIdsOf(message);
    // Answers and notifications take turns on a few lanes: a server that floods us with requests
    // must not make us open a socket per answer.
    if (requestIds.length === 0) return this.#oneWay(() => this.#postOneWay(message));
    return this.#post(message, requestIds);
  }

  async #oneWay(fn: () => Promise<void>): Promise<void> {
    if (this.#lanes < MAX_ONE_WAY_LANES) this.#lanes++;
    else await new Promise<void>((resolve) => this.#laneQueue.push(resolve));
    try {
      await fn();
    } finally {
      const next = this.#laneQueue.shift();
      if (next) next();
      else this.#lanes--;
    }
  }

  /** No one awaits the answer to `id` any more: the POST carrying it ends once none of its requests is awaited. */
  forget(id: RequestId): void {
    this.#settle(id);
  }

  #settle(id: RequestId): void {
    const exchange = this.#exchanges.get(id);
    if (!exchange) return;
    this.#exchanges.delete(id);
    exchange.ids.delete(id);
    // A server may keep an answer stream or a JSON body open (or endless): it is not read for nobody.
    if (exchange.ids.size === 0) abortWith(exchange.controller, 'no request awaits this answer any more');
  }

  /**
   * POSTs an answer or a notification. The server accepts it with 202 and no body (spec), so no
   * body is read: a server that answers with an endless one cannot hold the message, or a lane.
   */
  async #postOneWay(message: object): Promise<void> {
    this.#ensureOpen();
    const sentSession = this.#sessionId;
    const timeout = newController();
    const timer = setTimeout(
      () => timeout.abort(new TransportHttpError(`${this.#server} did not accept ${describe(message)} within ${this.#oneWayTimeoutMs / 1000} s`)),
      this.#oneWayTimeoutMs,
    );
    try {
      const signal = anySignal([this.#lifetime.signal, timeout.signal]);
      const response = await this.#postMessage(message, signal);
      if (!response.ok) throw await this.#statusError(response, sentSession);
      await discardBody(response);
      this.#adoptSessionId(response);
      if ((message as { method?: unknown }).method === 'notifications/initialized') this.openServerStream();
    } finally {
      clearTimeout(timer);
    }
  }

  async #post(message: object, requestIds: RequestId[]): Promise<void> {
    this.#ensureOpen();
    const exchange: Exchange = { controller: newController(), ids: new Set(requestIds) };
    for (const id of requestIds) this.#exchanges.set(id, exchange);
    const signal = anySignal([this.#lifetime.signal, exchange.controller.signal]);
    let following = false;
    try {
      following = await this.#exchange(message, exchange, signal);
    } finally {
      // An SSE answer is followed in the background, which ends the exchange itself.
      if (!following) this.#endExchange(exchange);
    }
  }

  #endExchange(exchange: Exchange): void {
    for (const id of exchange.ids) this.#exchanges.delete(id);
    exchange.ids.clear();
  }

  /** POSTs a message as the spec asks: JSON, accepting a JSON or an event-stream answer. */
  #postMessage(message: object, signal: AbortSignal): Promise<Response> {
    return this.#http('POST', { 'Content-Type': JSON_TYPE, Accept: `${JSON_TYPE}, ${EVENT_STREAM}` }, signal, stringify(message));
  }

  /** Sends one POST and handles its answer; true when an SSE answer is being followed. */
  async #exchange(message: object, exchange: Exchange, signal: AbortSignal): Promise<boolean> {
    const sentSession = this.#sessionId;
    const response = await this.#postMessage(message, signal);
    if (!response.ok) throw await this.#statusError(response, sentSession);
    this.#adoptSessionId(response);

    const type = mediaType(response);
    const unusable = (what: string) => new TransportHttpError(`${this.#server} answered ${describe(message)} with ${what}; expected JSON or an event stream`, response.status);
    if (type === EVENT_STREAM && response.body) {
      // The answer may take long (progress, server requests first): follow it in the background,
      // the connection matches the response to its request.
      const state: StreamState = { kind: 'post', label: `answer stream of ${describe(message)}`, pending: exchange.ids, related: (message as { id?: RequestId }).id };
      void this.#follow(state, response, signal).finally(() => this.#endExchange(exchange));
      return true;
    }
    if (type === JSON_TYPE) {
      const body = response.body ? await readBodyText(response.body) : { text: '', over: false };
      if ('cut' in body) {
        if (signal.aborted) throw abortReason(signal);
        throw new TransportHttpError(`${this.#server} cut its answer to ${describe(message)}: ${errorMessage(body.cut)}`);
      }
      if (body.over) {
        throw new TransportHttpError(`${this.#server} sent an answer to ${describe(message)} longer than ${MAX_MESSAGE_CHARS} characters; it was not read further`);
      }
      // Nothing at all (a 202 that names a type): said as such, not as JSON that does not parse.
      if (!body.text.trim()) throw unusable(`HTTP ${response.status} without a body`);
      const values = parseEventData(body.text, this.#serverName, `answered ${describe(message)} with a body`);
      // The answer to this very request is lost: failing the send fails the request now.
      if (values instanceof TransportParseError) throw values;
      for (const v of values) this.#deliver(v);
      // The exchange is over: a request it carried that the body does not answer gets no answer at all.
      const answered = new Set(values.map(responseIdOf));
      // An error with `id: null` (JSON-RPC's answer to a request the server could not read, such
      // as "Bad Request: Server not initialized") is the only answer that will come: its words say why.
      const said = (values as { id?: unknown; error?: { message?: unknown } }[]).find((v) => v?.id === null && isString(v.error?.message))?.error?.message;
      for (const id of exchange.ids) {
        if (!answered.has(id)) this.#fail(id, `${this.#server} answered ${said ? `${describe(message)} with an error that names no request: ${said}` : `with JSON that holds no response to request id ${stringify(id)}; no other answer can come`}`);
      }
      return false;
    }
    // A web page (a proxy's sign-in page) says what it is, and what to do.
    const page = type === 'text/html' ? await readBodySnippet(response, 100) : undefined;
    await discardBody(response);
    if (page !== undefined) {
      throw new TransportHttpError(`${this.#server} answered ${describe(message)} with ${webPageAnswer(page, 'JSON or an event stream', this.#settings)}.`, response.status);
    }
    // No body (a 202, a 204, a Content-Length of 0: see nodeFetch) is said as such, before a missing type.
    throw unusable(response.status === 202 || !response.body ? `HTTP ${response.status} without a body` : type ? `content type "${type}"` : `HTTP ${response.status} without a content type`);
  }

  /**
   * Opens the standalone GET stream on which the server sends requests and notifications of its
   * own. Called automatically once `notifications/initialized` is accepted; call it after
   * resuming a saved session. A server that answers 405 offers none: nothing more is tried.
   * Idempotent; a no-op once closed.
   */
  openServerStream(): void {
    if (this.#closing || this.#serverStream) return;
    const controller = newController();
    this.#serverStream = controller;
    const state: StreamState = { kind: 'get', label: 'server stream' };
    void this.#follow(state, undefined, controller.signal).finally(() => {
      if (this.#serverStream === controller) this.#serverStream = undefined;
    });
  }

  close(): Promise<void> {
    this.#closing ??= this.#shutdown();
    return this.#closing;
  }

  async #shutdown(): Promise<void> {
    const reason = closedError(this.#serverName);
    this.#lifetime.abort(reason);
    this.#serverStream?.abort(reason);
    this.#serverStream = undefined;
    const session = this.#sessionId;
    if (session !== undefined && !this.keepSessionOnClose) await this.#deleteSession(session);
    this.#log.info(`Closed ${this.description}${session && this.keepSessionOnClose ? ` (session ${session} kept for resuming)` : ''}`);
    this.onclose?.({ reason: CLOSED_BY_CLIENT });
  }

  /** Ends the session on the server (spec: clients SHOULD); 405 means the server does not allow it. */
  async #deleteSession(session: string): Promise<void> {
    try {
      const response = await this.#http('DELETE', {}, AbortSignal.timeout(DELETE_TIMEOUT_MS));
      await discardBody(response);
      if (response.ok || response.status === 405 || response.status === 404) this.#log.debug(`Session ${session} ended (HTTP ${response.status})`);
      else this.#log.warn(`The server refused to end session ${session} (HTTP ${response.status})`);
    } catch (err) {
      this.#log.debug(`Could not end session ${session}: ${errorMessage(err)}`);
    }
    this.#sessionId = undefined;
  }

  /** One HTTP request with our headers; network failures become a `TransportHttpError` naming the URL. */
  async #http(method: 'POST' | 'GET' | 'DELETE', extra: Record<string, string>, signal: AbortSignal, body?: string): Promise<Response> {
    try {
      // Only a GET stream that never starts has a time limit of its own (it is then retried); a
      // request's answer takes as long as the request's timeout or signal allows.
      const headersTimeoutMs = method === 'GET' ? STREAM_HEADERS_TIMEOUT_MS : undefined;
      // Not Node's fetch: its 300 s headers and body timeouts would cut a slow answer or a quiet
      // stream whatever the request timeout; see `nodeFetch`.
      const session = { 'Mcp-Session-Id': this.#sessionId, 'MCP-Protocol-Version': this.#protocolVersion };
      return (await transportFetch(this.#log, method, this.#url, this.#customHeaders, { ...extra, ...session }, { body, signal, headersTimeoutMs })).response;
    } catch (err) {
      if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : closedError(this.#serverName);
      throw networkError(this.#serverName, this.#url, err);
    }
  }

  async #statusError(response: Response, sentSession: string | undefined): Promise<TransportHttpError> {
    const status = response.status;
    const plain = await httpStatusError(this.#serverName, this.#url, response, this.#customHeaders, true, this.#settings);
    // 404 is the spec's answer for a session the server no longer has; servers made from the
    // SDK's older examples (server-everything among them) answer 400 "No valid session ID provided",
    // or "Server not initialized" when they hand an id they do not know to a new SDK transport
    // (which says so to anything but initialize).
    // Only the body after the URL is read: the server's name or URL may say "session" too.
    const body = plain.message.slice(plain.message.indexOf(this.#url) + this.#url.length);
    if (sentSession === undefined || !(status === 404 || (status === 400 && /session|not initialized/i.test(body)))) return plain;
    const err = new SessionExpiredError(
      `${this.#server} no longer knows session ${sentSession} (HTTP ${status}): it expired or the server restarted. The next request starts a new session.`,
      status,
    );
    this.#expireSession(sentSession, err);
    return err;
  }

  #expireSession(session: string, err: SessionExpiredError): void {
    if (this.#sessionId !== session) return;
    // Said once, by whoever owns the session (the reason it closes), not here too.
    this.#log.debug(`Session ${session} expired`);
    this.#sessionId = undefined;
    abortWith(this.#serverStream, 'session expired');
    // Whoever owns the MCP session learns it is over, whichever request or stream found out.
    this.onerror?.(err);
  }

  #adoptSessionId(response: Response): void {
    const id = response.headers.get('mcp-session-id');
    if (id === null || id === this.#sessionId) return;
    // Spec: visible ASCII only. Anything else could smuggle text into our headers or logs.
    if (!/^[\x21-\x7e]{1,1024}$/.test(id)) {
      this.#log.warn('Ignored an invalid Mcp-Session-Id');
      return;
    }
    this.#log.info(`The server assigned session ${id}`);
    this.#sessionId = id;
  }

  /** Follows a stream in the background (see `#resume`); never rejects. */
  async #follow(state: StreamState, first: Response | undefined, signal: AbortSignal): Promise<void> {
    try {
      await this.#resume(state, first, signal);
    } catch (err) {
      // Nothing that goes wrong while following a stream may escape as an unhandled rejection:
      // the stream is given up in words, so its requests fail and the user is told.
      if (!signal.aborted) this.#giveUp(state, errorMessage(err));
    }
  }

  /**
   * Reads an SSE stream and resumes it with GET + `Last-Event-ID` until it is done: a POST
   * stream once every request it carries is answered, the GET stream when the transport closes.
   * `first` is the response to read first; without it (the GET stream) a GET opens it.
   */
  async #resume(state: StreamState, first: Response | undefined, signal: AbortSignal): Promise<void> {
    let response = first;
    // GETs in a row that failed or were refused.
    let failures = 0;
    let warned = false;
    // Connections in a row that ended on an event over the limit.
    let overs = 0;
    let immediate = first === undefined;
    while (!signal.aborted) {
      if (response) {
        const over = await this.#consume(response, state, signal);
        response = undefined;
        if (signal.aborted) return;
        if (over) {
          // Resumed after the last id read, a stream sends the same event again: a POST stream's
          // requests fail now, not when they time out. The GET stream is opened afresh, without
          // Last-Event-ID (what the server sends until then is lost too), unless fresh ones send such events too.
          if (state.kind === 'post') return this.#giveUp(state, over, false, `${this.#server} sent ${over} on the ${state.label}`);
          if (++overs >= this.#reconnect.maxRetries) return this.#giveUp(state, `${over}, ${overs} times in a row`);
          state.lastEventId = undefined;
          this.#log.warn(`Dropped a message from the server (${over}); ${LOST_EVENT_HINT}`);
        } else overs = 0;
        if (state.pending && state.pending.size === 0) return;
        if (state.kind === 'post' && state.lastEventId === undefined) {
          return this.#giveUp(state, 'it ended before the answer and gave no event id to resume from');
        }
      }
      if (!immediate) {
        if (failures >= this.#reconnect.maxRetries && state.kind === 'post') return this.#giveUp(state, `it could not be resumed after ${failures} attempts`);
        const delay = this.#delay(state, failures);
        this.#log.debug(`Resuming the ${state.label} in ${delay} ms`);
        try {
          await sleep(delay, signal);
        } catch {
          return;
        }
      }
      immediate = false;
      const opened = await this.#openGet(state, signal);
      if (opened instanceof Response) {
        // The server took the GET: a stream it ends soon after is a poll, not a failure.
        response = opened;
        failures = 0;
        if (warned) this.#log.info('Listening for messages from the server again');
        warned = false;
      } else if ('stop' in opened) {
        return opened.quiet ? this.#log.debug(`No ${state.label}: ${opened.stop}`) : this.#giveUp(state, opened.stop, opened.told);
      } else {
        failures++;
        this.#log.debug(`Could not resume the ${state.label}: ${opened.retry}`);
        // The GET stream is how the server reaches us: never given up, but the user hears once.
        if (state.kind === 'get' && failures >= this.#reconnect.maxRetries && !warned) {
          warned = true;
          this.#log.warn(`Not hearing from the server: its stream for its own messages could not be reopened after ${failures} attempts (${opened.retry}); still trying`);
        }
      }
    }
  }

  /** Reads one connection of a stream to its end; returns why, when an event was over the limit (see #resume). */
  async #consume(response: Response, state: StreamState, signal: AbortSignal): Promise<string | void> {
    if (!response.body) return;
    let events = 0;
    try {
      await readSseStream(response.body, {
        onEvent: (e) => {
          events++;
          this.#onEvent(e, state);
        },
        onRetry: (ms) => (state.retryMs = ms),
        // An empty id resets it: the stream cannot be resumed from there.
        onId: (id) => (state.lastEventId = id || undefined),
      });
      this.#log.trace(`The ${state.label} ended after ${events} event(s)`);
    } catch (err) {
      if (err instanceof TransportParseError) return err.message;
      if (!signal.aborted) this.#log.debug(`The ${state.label} was cut after ${events} event(s): ${errorMessage(err)}`);
    }
  }

  #onEvent(e: EventSourceMessage, state: StreamState): void {
    if (e.event !== undefined && e.event !== 'message') {
      this.#log.trace(`Ignored an SSE event of type "${e.event}" on the ${state.label}`);
      return;
    }
    if (!e.data) return; // a priming event (id only) or keep-alive
    const values = parseEventData(e.data, this.#serverName);
    if (values instanceof TransportParseError) {
      this.onerror?.(values);
      return;
    }
    for (const v of values) {
      const id = responseIdOf(v);
      if (id !== undefined) this.#settle(id);
      this.#deliver(v, state.related);
    }
  }

  /** GET with `Last-Event-ID` (when there is one) to open or resume a stream. */
  async #openGet(state: StreamState, signal: AbortSignal): Promise<Response | Refused> {
    const sentSession = this.#sessionId;
    const extra: Record<string, string> = { Accept: EVENT_STREAM };
    if (state.lastEventId !== undefined) extra['Last-Event-ID'] = state.lastEventId;
    let response: Response;
    try {
      response = await this.#http('GET', extra, signal);
    } catch (err) {
      return signal.aborted ? { stop: 'closed', quiet: true } : { retry: errorMessage(err) };
    }
    if (response.ok) {
      const type = mediaType(response);
      if (type === EVENT_STREAM) {
        this.#log.debug(`${state.lastEventId === undefined ? 'Opened' : `Resumed after event ${state.lastEventId}`} the ${state.label}`);
        return response;
      }
      await discardBody(response);
      return { stop: `GET was answered with content type "${type}" instead of an event stream` };
    }
    const status = response.status;
    if (status === 405) {
      await discardBody(response);
      return { stop: 'the server offers no GET stream (HTTP 405)', quiet: state.kind === 'get' };
    }
    const err = await this.#statusError(response, sentSession);
    // The session is over and its owner told (see #expireSession): the GET stream stops without a
    // word of its own. An answer stream still gives up, without a word either: its requests must fail now.
    if (err instanceof SessionExpiredError) return { stop: err.message, quiet: state.kind === 'get', told: true };
    // Server trouble and conflicts (a previous stream not yet noticed as gone) may pass; the rest will not.
    return status >= 500 || status === 408 || status === 409 || status === 429 ? { retry: err.message } : { stop: err.message };
  }

  #delay(state: StreamState, failures: number): number {
    // Spec: the client MUST wait the server's `retry`; growth only applies on top of it.
    const base = state.retryMs === undefined ? this.#reconnect.initialDelayMs : maxOf(state.retryMs, MIN_RETRY_DELAY_MS);
    return minOf(maxOf(base, minOf(base * 1.5 ** failures, this.#reconnect.maxDelayMs)), MAX_RETRY_DELAY_MS);
  }

  /**
   * A stream that cannot go on. The GET stream only costs server-initiated messages (the user
   * is told through `onerror`); requests still waiting on a POST stream are failed now, with a
   * warning unless `told` (the session expired, which its owner tells as the connection's end).
   */
  #giveUp(state: StreamState, why: string, told = false, failed = `${this.#server} dropped the stream carrying the answer: ${why}`): void {
    if (state.kind === 'get') {
      // One warning (the connection logs it), saying what to do.
      return this.onerror?.(new TransportHttpError(`Stopped listening for messages from the server until Restart Server is run: ${why}`));
    }
    const ids = [...(state.pending ?? [])];
    if (ids.length === 0) return;
    if (!told) this.#log.warn(`The ${state.label} was lost: ${why}`);
    for (const id of ids) this.#fail(id, failed);
  }

  /** Fails a request whose answer cannot come, at once, with an error of ours (not the server's). */
  #fail(id: RequestId, message: string): void {
    this.#deliver({ jsonrpc: '2.0', id, error: { code: ErrorCode.ConnectionClosed, message }, [LOCAL_FAILURE]: true });
  }

  #deliver(value: unknown, related?: RequestId): void {
    deliver(this, value, this.#log, related);
  }
}

/** Ids of the JSON-RPC requests in a message or batch. */
const requestIdsOf = (message: object): RequestId[] => {
  const ids: RequestId[] = [];
  for (const m of messagesIn(message)) {
    if (!isObjectLike(m)) continue;
    const { id, method } = m as { id?: unknown; method?: unknown };
    if (isString(method) && (isString(id) || isNumber(id))) ids.push(id);
  }
  return ids;
};

/** The id of a JSON-RPC response (result or error), if the value is one. */
const responseIdOf = (v: unknown): RequestId | undefined => {
  if (!isObjectLike(v) || 'method' in v) return undefined;
  const { id } = v as { id?: unknown };
  if (!('result' in v) && !('error' in v)) return undefined;
  return isString(id) || isNumber(id) ? id : undefined;
};

const describe = (message: object): string => {
  const { method, id } = message as { method?: unknown; id?: unknown };
  if (isString(method)) return id === undefined ? method : `${method} (id ${stringify(id)})`;
  return id === undefined ? 'a message' : `the response to id ${stringify(id)}`;
};
