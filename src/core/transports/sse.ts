import { abortReason, errorMessage, newController, sleep } from '../util/abort';
import type { Logger } from '../util/log';
import { CHECK_URL, checkHttpConfig, closedError, deliver, discardBody, EVENT_STREAM, httpStatusError, JSON_TYPE, LOST_EVENT_HINT, mediaType, networkError, parseEventData, readBodySnippet, readSseStream, webPageAnswer } from './sseStream';
import { STREAM_HEADERS_TIMEOUT_MS, transportFetch } from './nodeFetch';
import type { Transport, TransportCloseInfo } from './transport';
import { CLOSED_BY_CLIENT, TransportHttpError, TransportParseError } from './transport';
import { stringify } from '../util/json';
import { isArray } from '../util/builtins';
import { noop } from '../util/promise';
import { serverNamed } from '../util/text';

export interface LegacySseOptions {
  /** The SSE endpoint, e.g. `https://host/sse`. */
  url: string;
  /** Sent with every request (e.g. `Authorization`); never logged in clear. */
  headers?: Record<string, string>;
  logger: Logger;
  /** Named in error messages shown to the user. */
  serverName: string;
  /** Configured in settings (`mcpTasks.servers`), which allow no `${input:…}`: the advice on a refusal or a web page says `${env:…}`. */
  settings?: boolean;
  /** How long `start()` waits for the `endpoint` event, from the moment it sends its GET (ms). */
  endpointTimeoutMs?: number;
  /** How long a POST waits for the server to accept its message (ms; 30 s): a hung server holds no socket longer. */
  acceptTimeoutMs?: number;
}

const DEFAULT_ENDPOINT_TIMEOUT_MS = 10_000;

/**
 * Client side of the deprecated HTTP+SSE transport (MCP 2024-11-05, `"type": "sse"`): one GET
 * stream carries every server message; the server names, in an `endpoint` event, the URL the
 * client POSTs its messages to. The session lives as long as that stream, so when the server
 * ends it the transport closes (there is nothing to resume).
 */
export class LegacySseTransport implements Transport {
  // `declare`: typed, not emitted as fields (undefined until the connection sets them), which costs the bundle nothing.
  declare onmessage?: (message: unknown) => void;
  declare onerror?: (error: Error) => void;
  declare onclose?: (info: TransportCloseInfo) => void;

  declare readonly description: string;

  readonly #url: string;
  readonly #serverName: string;
  readonly #log: Logger;
  readonly #customHeaders: Record<string, string>;
  readonly #endpointTimeoutMs: number;
  readonly #acceptTimeoutMs: number;
  readonly #settings?: boolean;
  readonly #lifetime = newController();
  #endpoint: URL | undefined;
  /** The url the event stream came from (after redirects): a relative endpoint is resolved against it. */
  #streamUrl: URL | undefined;
  #waitingForEndpoint: { resolve: (u: URL) => void; reject: (e: Error) => void } | undefined;
  #protocolVersion: string | undefined;
  #started = false;
  #closeFired = false;
  /** When the event stream last carried an event (performance.now()). */
  #heardAt = 0;

  constructor(options: LegacySseOptions) {
    this.#url = options.url;
    this.#serverName = options.serverName;
    this.#log = options.logger;
    this.#customHeaders = { ...options.headers };
    this.#endpointTimeoutMs = options.endpointTimeoutMs ?? DEFAULT_ENDPOINT_TIMEOUT_MS;
    this.#acceptTimeoutMs = options.acceptTimeoutMs ?? 30_000;
    this.#settings = options.settings;
    this.description = `sse: ${options.url}`;
  }

  /** Opens the event stream and resolves once the server named its message endpoint. */
  async start(): Promise<void> {
    if (this.#started) throw new Error(`${this.description} was already started`);
    this.#started = true;
    if (this.#lifetime.signal.aborted) throw closedError(this.#serverName);
    const url = checkHttpConfig(this.#serverName, this.#url, this.#customHeaders);

    // One deadline from the GET to the endpoint: a server that never answers is bounded too.
    const within = `within ${this.#endpointTimeoutMs / 1000} s`;
    let opened = false;
    const endpoint = new Promise<URL>((resolve, reject) => (this.#waitingForEndpoint = { resolve, reject }));
    endpoint.catch(noop); // rejected before it is awaited when the GET fails
    const timer = setTimeout(() => {
      const err = new TransportHttpError(
        `${serverNamed(this.#serverName)} ${
          opened
            ? `opened an event stream at ${this.#url} but named no "endpoint" ${within}; is it a legacy HTTP+SSE server? For Streamable HTTP, use "type": "http".`
            : `did not answer GET ${this.#url} ${within}`
        }`,
      );
      this.#waitingForEndpoint?.reject(err);
      this.#lifetime.abort(err);
    }, this.#endpointTimeoutMs);
    try {
      const { response, url: streamUrl } = await this.#http('GET', url, { Accept: EVENT_STREAM });
      const type = mediaType(response);
      // What a Streamable HTTP server answers a GET without a session: 405, or a JSON-RPC error.
      const http = response.status === 405 || type === JSON_TYPE ? '; if it speaks Streamable HTTP, use "type": "http"' : '';
      if (!response.ok) {
        const err = await httpStatusError(this.#serverName, this.#url, response, this.#customHeaders, true, this.#settings);
        // 401, 403 and redirects have hints of their own.
        if (!http || response.status < 400 || response.status === 401 || response.status === 403) throw err;
        throw new TransportHttpError(`${err.message}${http}.`, err.status);
      }
      if (type !== EVENT_STREAM || !response.body) {
        // A web page (a proxy's sign-in page) says what it is.
        const page = type === 'text/html' ? await readBodySnippet(response, 100) : undefined;
        await discardBody(response);
        const what = page === undefined ? `content type "${type}" instead of an event stream${http || `; ${CHECK_URL}`}` : webPageAnswer(page, 'an event stream', this.#settings);
        throw new TransportHttpError(`${serverNamed(this.#serverName)} answered GET ${this.#url} with ${what}.`);
      }
      opened = true;
      this.#streamUrl = streamUrl;
      void this.#read(response.body);
      this.#endpoint = await endpoint;
    } catch (err) {
      this.#lifetime.abort(err);
      throw err;
    } finally {
      clearTimeout(timer);
      this.#waitingForEndpoint = undefined;
    }
    this.#log.info(`Connected to ${this.description}; posting to ${this.#endpoint.href}`);
  }

  setProtocolVersion(version: string): void {
    this.#protocolVersion = version;
  }

  async send(message: object): Promise<void> {
    if (this.#lifetime.signal.aborted) throw closedError(this.#serverName);
    if (!this.#endpoint) throw new TransportHttpError(`${this.description} is not started`);
    const { response } = await this.#http('POST', this.#endpoint, { 'Content-Type': JSON_TYPE, 'MCP-Protocol-Version': this.#protocolVersion }, stringify(message));
    // The answer arrives on the event stream; the POST's own body (e.g. "Accepted") means nothing.
    if (!response.ok) throw await httpStatusError(this.#serverName, this.#endpoint.href, response, this.#customHeaders, false, this.#settings);
    await discardBody(response);
  }

  async close(): Promise<void> {
    this.#lifetime.abort(closedError(this.#serverName));
    this.#waitingForEndpoint?.reject(closedError(this.#serverName));
    this.#fireClose({ reason: CLOSED_BY_CLIENT });
  }

  async #read(body: NonNullable<Response['body']>): Promise<void> {
    let why = `server "${this.#serverName}" ended the event stream`;
    let hint = '';
    try {
      await readSseStream(body, {
        onEvent: (e) => {
          this.#heardAt = performance.now();
          if (e.event === 'endpoint') this.#onEndpoint(e.data);
          else if (e.event === undefined || e.event === 'message') this.#onMessageEvent(e.data);
          else this.#log.trace(`Ignored an SSE event of type "${e.event}"`);
        },
      });
    } catch (err) {
      // An event over the limit was not cut: we stopped reading it.
      const over = err instanceof TransportParseError;
      why = `${over ? '' : 'the event stream of '}server "${this.#serverName}" ${over ? 'sent' : 'was cut:'} ${errorMessage(err)}`;
      // What to do, as the Streamable HTTP transport says of an event it drops.
      if (over) hint = `; ${LOST_EVENT_HINT}`;
    }
    if (this.#lifetime.signal.aborted) return;
    if (this.#waitingForEndpoint) {
      this.#waitingForEndpoint.reject(new TransportHttpError(`${why} before naming its "endpoint"`));
      return;
    }
    this.#end(why + hint);
  }

  #end(why: string): void {
    this.#lifetime.abort(new TransportHttpError(why));
    this.#fireClose({ reason: why });
  }

  /**
   * A request timed out while the event stream carried nothing for a while (a cancel by the user says nothing about the stream). A
   * stream a proxy dropped without a word ends with no error, and every answer is lost with it;
   * a hung server, though, would lose its tasks (kept per connection) if closed. So a ping: one
   * the server takes (202) and does not answer on the stream says the stream is dead.
   */
  async forget(_id: unknown, timedOut?: boolean): Promise<void> {
    const now = performance.now();
    if (!timedOut || now - this.#heardAt < this.#acceptTimeoutMs) return;
    // Counts as heard, so that the requests timing out with this one send no ping of their own.
    this.#heardAt = now;
    try {
      // Id -1: the connection's count up from 1.
      await this.send({ jsonrpc: '2.0', id: -1, method: 'ping' });
      await sleep(this.#acceptTimeoutMs, this.#lifetime.signal);
    } catch {
      return; // not taken (hung: its session stays), or closed
    }
    if (this.#heardAt === now) this.#end(`the event stream of server "${this.#serverName}" went silent: a ping it took got no answer there within ${this.#acceptTimeoutMs / 1000} s (a proxy may have dropped the stream)`);
  }

  #onEndpoint(data: string): void {
    let url: URL;
    try {
      url = new URL(data.trim(), this.#streamUrl);
    } catch {
      this.#log.warn(`Ignored an invalid "endpoint" event: ${data.slice(0, 200)}`);
      return;
    }
    // Our headers (tokens) go to the endpoint: it must not lead to another origin.
    if (url.origin !== new URL(this.#url).origin) {
      this.#waitingForEndpoint?.reject(
        new TransportHttpError(`${serverNamed(this.#serverName)} named an endpoint on another origin (${url.origin}); refusing to send messages there.`),
      );
      return;
    }
    if (this.#waitingForEndpoint) this.#waitingForEndpoint.resolve(url);
    else if (url.href !== this.#endpoint?.href) this.#log.warn('Ignored a second "endpoint" event');
  }

  #onMessageEvent(data: string): void {
    if (!data) return;
    const values = parseEventData(data, this.#serverName);
    if (!isArray(values)) {
      this.onerror?.(values);
      return;
    }
    // The answer to our ping (see forget) is no one's: a request of the server's with its id is delivered.
    for (const v of values) if ((v as { id?: unknown; method?: unknown } | null)?.id !== -1 || (v as { method?: unknown }).method !== undefined) deliver(this, v, this.#log);
  }

  async #http(method: 'GET' | 'POST', url: URL, extra: Record<string, string | undefined>, body?: string): ReturnType<typeof transportFetch> {
    try {
      // The answer of a POST comes on the GET stream: the POST waits only to be accepted (202), which a
      // server that runs does at once; a hung one, sent a round of polls a minute, held a socket per
      // message for 5 minutes. Not Node's fetch, whose body timeout would cut a quiet stream: see `nodeFetch`.
      const headersTimeoutMs = method === 'GET' ? STREAM_HEADERS_TIMEOUT_MS : this.#acceptTimeoutMs;
      return await transportFetch(this.#log, method, url, this.#customHeaders, extra, { body, signal: this.#lifetime.signal, headersTimeoutMs });
    } catch (err) {
      // Closed, or start() gave up waiting: say why.
      if (this.#lifetime.signal.aborted) throw abortReason(this.#lifetime.signal);
      throw networkError(this.#serverName, url.href, err);
    }
  }

  #fireClose(info: TransportCloseInfo): void {
    if (this.#closeFired) return;
    this.#closeFired = true;
    this.onclose?.(info);
  }
}
