import type { Progress, RequestHandler, RequestOptions } from '../jsonrpc/connection';
import { InvalidResultError, JsonRpcConnection } from '../jsonrpc/connection';
import { describeIssues } from '../jsonrpc/messages';
import type { Transport, TransportCloseInfo } from '../transports/transport';
import { SessionExpiredError } from '../transports/transport';
import type { Disposable, Event } from '../util/event';
import { DisposableBase } from '../util/event';
import type { Logger } from '../util/log';
import { truncate } from '../util/log';
import { isString, safeStringify } from '../util/json';
import { errorMessage, raceAbort } from '../util/abort';
import type { Implementation, InitializeResult, ServerCapabilities, Tool } from './schemas';
import { declared, TOOLS_CALL, TOOLS_LIST } from './schemas';
import { pageThrough } from './paging';
import { hasOwn, maxOf } from '../util/builtins';
import {
  EmptyResultSchema,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  LoggingMessageParamsSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  ToolSchema,
} from './schemas';

/** A workspace folder as the `roots` capability reports it. */
export interface Root {
  uri: string;
  name?: string;
}

export interface SessionOptions {
  logger: Logger;
  clientInfo: Implementation;
  /**
   * Capabilities beyond `roots`, declared by whoever registers their handlers (elicitation,
   * sampling, tasks): only what is implemented is declared.
   */
  capabilities?: Record<string, unknown>;
  /** The workspace folders to report as roots. */
  roots?: () => Root[];
  /** Timeout for ordinary requests, in ms (a function: read at each request). */
  requestTimeoutMs?: number | (() => number);
  /** Timeout for `initialize`, in ms: by default the request timeout, never under 60 s (servers started through npx may take a while). */
  initializeTimeoutMs?: number;
  /** The server's name, which a request that timed out names. */
  serverName?: string;
}

/** Log levels of `notifications/message`, mapped to ours. */
const LOG_LEVEL: Record<string, keyof Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>> = {
  debug: 'debug',
  info: 'info',
  notice: 'info',
  warning: 'warn',
  error: 'error',
  critical: 'error',
  alert: 'error',
  emergency: 'error',
};

/**
 * One initialized MCP session with one server: the lifecycle handshake, ping both ways, roots,
 * tools (with `execution.taskSupport` kept), and the server's log messages.
 */
export class McpSession extends DisposableBase {
  declare readonly connection: JsonRpcConnection;
  #init?: InitializeResult;
  #expired = false;
  #toolsCache?: Tool[];
  #toolsPending?: Promise<Tool[]>;
  /** Bumped by `tools/list_changed`: a fetch begun before it is not cached. */
  #toolsGeneration = 0;
  readonly #log: Logger;

  /** The connection closed, with why. */
  declare readonly onClose: Event<TransportCloseInfo>;
  readonly #options: SessionOptions;
  declare readonly transport: Transport;

  constructor(transport: Transport, options: SessionOptions) {
    super();
    this.transport = transport;
    this.#options = options;
    this.#log = options.logger;
    const connection = new JsonRpcConnection(transport, { logger: options.logger, defaultTimeoutMs: options.requestTimeoutMs, peer: options.serverName });
    this.connection = connection;
    this.onClose = connection.onClose;
    // Streamable HTTP: the server forgot our session (it restarted, or expired it). This session
    // is over: closing it lets the server manager start a new one, which re-attaches tasks by id.
    const report = transport.onerror;
    transport.onerror = (e) => {
      if (e instanceof SessionExpiredError && this.#init) {
        // Told once, as the reason the connection closed, not also as a transport error.
        this.#expired = true;
        void connection.close(e.message);
        return;
      }
      report?.(e);
    };
    this._register(connection.onRequest('ping', () => ({})));
    this._register(
      connection.onRequest('roots/list', () => ({
        roots: (this.#options.roots?.() ?? []).map((r) => (r.name ? { uri: r.uri, name: r.name } : { uri: r.uri })),
      })),
    );
    this._register(
      connection.onNotification('notifications/message', (params) => {
        const p = LoggingMessageParamsSchema.safeParse(params);
        if (!p.success) return this.#log.debug(`Ignored an invalid log message: ${describeIssues(p.error)}`);
        const level = hasOwn(LOG_LEVEL, p.data.level) ? LOG_LEVEL[p.data.level] : 'info';
        // safeStringify: data nested deeper than the stack (JSON.parse reads any depth) is cut, not lost.
        const { data } = p.data;
        const text = isString(data) ? data : data === undefined ? '' : safeStringify(data);
        // Bounded: a server may send megabytes in one log message, or flood the log with them.
        this.#log[level](`server log${p.data.logger ? ` (${truncate(p.data.logger, 100)})` : ''}: ${truncate(text, 2000)}`);
      }),
    );
    this._register(
      connection.onNotification('notifications/tools/list_changed', () => {
        this.#toolsCache = undefined;
        this.#toolsPending = undefined;
        this.#toolsGeneration++;
      }),
    );
    this._register(connection.onUnhandledNotification((n) => this.#log.trace(`Unhandled notification ${n.method}`)));
  }

  /** Starts the transport and performs the `initialize` handshake. */
  async connect(): Promise<InitializeResult> {
    await this.connection.start();
    const capabilities = { roots: { listChanged: true }, ...this.#options.capabilities };
    const ordinary = this.#options.requestTimeoutMs;
    let result: InitializeResult;
    try {
      result = await this.connection.request(
        'initialize',
        { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo: this.#options.clientInfo },
        InitializeResultSchema,
        { timeoutMs: this.#options.initializeTimeoutMs ?? maxOf(60_000, typeof ordinary === 'function' ? ordinary() : (ordinary ?? 0)) },
      );
    } catch (err) {
      await this.connection.close();
      throw err instanceof InvalidResultError
        ? new Error(`The server's answer to initialize is not valid MCP: ${err.message}`)
        : err;
    }
    if (!(SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(result.protocolVersion)) {
      await this.connection.close();
      throw new Error(
        `The server speaks MCP revision ${result.protocolVersion}, which this extension does not support (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}).`,
      );
    }
    this.#init = result;
    this.transport.setProtocolVersion?.(result.protocolVersion);
    await this.connection.notify('notifications/initialized');
    // The connection may have closed meanwhile (an HTTP server that forgot the session it just
    // made): that is a failed handshake, not a connection.
    const closed = this.connection.closeInfo;
    if (closed) throw new Error(`The connection closed during the handshake: ${closed.reason}`);
    this.#log.info(
      `Connected to ${result.serverInfo.name} ${result.serverInfo.version} (MCP ${result.protocolVersion})${this.tasksSummary ? `; tasks: ${this.tasksSummary}` : ''}`,
    );
    return result;
  }

  /**
   * Re-adopts a session that is already initialized on the server side (a Streamable HTTP
   * session resumed after a window reload): no handshake, the saved state is trusted.
   */
  async resume(saved: InitializeResult): Promise<void> {
    await this.connection.start();
    this.#init = saved;
    this.transport.setProtocolVersion?.(saved.protocolVersion);
    this.transport.openServerStream?.();
  }

  get initializeResult(): InitializeResult | undefined {
    return this.#init;
  }

  get protocolVersion(): string | undefined {
    return this.#init?.protocolVersion;
  }

  get serverCapabilities(): ServerCapabilities {
    return this.#init?.capabilities ?? {};
  }

  get serverInfo(): Implementation | undefined {
    return this.#init?.serverInfo;
  }

  /** Tasks exist only from 2025-11-25 on, and only where the server declares them. */
  get supportsTasks(): boolean {
    return this.#init?.protocolVersion === '2025-11-25' && this.#init.capabilities.tasks !== undefined;
  }

  /** Short words for what the server declared about tasks, e.g. `tools/call, list, cancel`. */
  get tasksSummary(): string {
    const t = this.supportsTasks ? this.serverCapabilities.tasks : undefined;
    if (!t) return '';
    const parts: string[] = [];
    if (declared(t.requests?.tools?.call)) parts.push(TOOLS_CALL);
    if (declared(t.list)) parts.push('list');
    if (declared(t.cancel)) parts.push('cancel');
    return parts.join(', ');
  }

  /** Closed because the server no longer knew the session (HTTP 404): a new one may start at once. */
  get expired(): boolean {
    return this.#expired;
  }

  get isClosed(): boolean {
    return this.connection.isClosed;
  }

  request: JsonRpcConnection['request'] = (method, params, schema, options) => this.connection.request(method, params, schema, options);

  onRequest(method: string, handler: RequestHandler): Disposable {
    return this.connection.onRequest(method, handler);
  }

  onProgress(token: string | number, handler: (p: Progress) => void): Disposable {
    return this.connection.onProgress(token, handler);
  }

  async ping(options?: RequestOptions): Promise<void> {
    await this.connection.request('ping', undefined, EmptyResultSchema, options);
  }

  /** Tells the server the workspace folders changed. */
  async notifyRootsChanged(): Promise<void> {
    await this.connection.notify('notifications/roots/list_changed');
  }

  /**
   * All tools, following `nextCursor` pages; cached until the server says the list changed. One
   * fetch is shared by every caller; each caller's signal ends only that caller's wait.
   */
  listTools(options?: RequestOptions): Promise<Tool[]> {
    if (this.#toolsCache) return Promise.resolve(this.#toolsCache);
    if (!this.#toolsPending) {
      const p = this.#fetchTools({ timeoutMs: options?.timeoutMs }).finally(() => {
        if (this.#toolsPending === p) this.#toolsPending = undefined;
      });
      this.#toolsPending = p;
    }
    return options?.signal ? raceAbort(this.#toolsPending, options.signal) : this.#toolsPending;
  }

  /** The tools listed last, while current: what is known without asking the server. */
  get knownTools(): Tool[] | undefined {
    return this.#toolsCache;
  }

  async #fetchTools(options?: RequestOptions): Promise<Tool[]> {
    const generation = this.#toolsGeneration;
    if (this.#init && this.#init.capabilities.tools === undefined) return (this.#toolsCache = []);
    const tools: Tool[] = [];
    const page = (cursor?: string) =>
      this.connection.request(TOOLS_LIST, cursor === undefined ? undefined : { cursor }, ListToolsResultSchema, options).then((r) => ({ items: r.tools, nextCursor: r.nextCursor }));
    // A server whose cursor never ends: the most pages followed. At most 10,000 tools: a page of
    // 16 MB holds some 370,000 (40 MB once read), and a list may have 100 pages.
    await pageThrough(TOOLS_LIST, this.#log, 100, page, (raw) => {
      const t = ToolSchema.safeParse(raw);
      return t.success ? tools.push(t.data) : this.#log.warn(`Skipped an invalid tool in ${TOOLS_LIST}: ${describeIssues(t.error)}`);
    }, undefined, [1e4, '10,000 tools']);
    // A list_changed during the paging: this list may be the old one; the next call fetches anew.
    if (generation === this.#toolsGeneration) this.#toolsCache = tools;
    return tools;
  }

  /** Closes the connection. With a `reason`, those following the session learn at once that it is over, not once the transport has closed. */
  async close(reason?: string): Promise<void> {
    await this.connection.close(reason).catch((e: unknown) => this.#log.warn(errorMessage(e)));
    this.dispose();
  }
}
