import type * as z from 'zod/mini';
import type { Transport, TransportCloseInfo } from '../transports/transport';
import { LOCAL_FAILURE, TransportParseError } from '../transports/transport';
import type { Disposable, Event } from '../util/event';
import { Emitter } from '../util/event';
import type { Logger } from '../util/log';
import { truncate } from '../util/log';
import { errorMessage } from '../util/abort';
import { ConnectionClosedError, ErrorCode, RequestTimeoutError, RpcError, TransportFailureError } from './errors';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from './messages';
import { classify, describeIssues } from './messages';

/** Progress as carried by `notifications/progress`. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Milliseconds without an answer before the request fails and the peer is told. */
  timeoutMs?: number;
  /** Receives `notifications/progress` for this request; sets `_meta.progressToken`. */
  onprogress?: (p: Progress) => void;
  /** Progress restarts the timeout clock, for long requests that report as they go. */
  resetTimeoutOnProgress?: boolean;
}

export interface IncomingRequestContext {
  id: RequestId;
  /** Aborted when the peer cancels the request or the connection closes. */
  signal: AbortSignal;
  /** The request's `params._meta`, if any. */
  meta?: Record<string, unknown>;
}

export type RequestHandler = (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext) => Promise<unknown> | unknown;
export type NotificationHandler = (params: Record<string, unknown> | undefined) => void;

export interface ConnectionOptions {
  logger: Logger;
  /** Default per-request timeout in ms. */
  defaultTimeoutMs?: number;
  /** Most incoming requests handled at once; more are refused with -32603 (a flood guard). */
  maxConcurrentIncoming?: number;
}

/** The result of a request failed its schema: the peer answered, but not with what the protocol says. */
export class InvalidResultError extends RpcError {
  override name = 'InvalidResultError';
  constructor(method: string, problem: string, result: unknown) {
    super(ErrorCode.InvalidParams, `Invalid result for ${method} from server: ${problem}`, result);
  }
}

interface Pending {
  method: string;
  resolve: (value: Record<string, unknown>) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * JSON-RPC 2.0 over a `Transport`: outgoing requests with timeouts and cancellation, incoming
 * requests dispatched to handlers, notifications, and progress routed by token. Every incoming
 * value is validated; garbage is logged (and answered when it had an id), never thrown.
 */
export class JsonRpcConnection implements Disposable {
  private nextId = 1;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly progressHandlers = new Map<string | number, (p: Progress) => void>();
  private readonly incoming = new Map<RequestId, AbortController>();
  private readonly _onClose = new Emitter<TransportCloseInfo>();
  private readonly _onUnhandledNotification = new Emitter<JsonRpcNotification>();
  private closed: TransportCloseInfo | undefined;
  private readonly log: Logger;
  private readonly defaultTimeoutMs: number;
  private readonly maxIncoming: number;

  /** Fires once when the transport closes, with why. */
  readonly onClose: Event<TransportCloseInfo> = this._onClose.event;
  /** Notifications no handler claimed (logged at trace). */
  readonly onUnhandledNotification: Event<JsonRpcNotification> = this._onUnhandledNotification.event;

  constructor(
    readonly transport: Transport,
    options: ConnectionOptions,
  ) {
    this.log = options.logger;
    this.defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxIncoming = options.maxConcurrentIncoming ?? 64;
    transport.onmessage = (m) => {
      // Whatever a message does to us, it must not unwind into the transport (a throw in a stdio
      // 'data' handler would take the whole editor host down).
      try {
        this.receive(m);
      } catch (err) {
        this.log.error(`Failed to handle a message from the server: ${errorMessage(err)}`);
      }
    };
    transport.onerror = (e) => {
      if (e instanceof TransportParseError) this.log.warn(`Ignored a message that is not JSON: ${e.message}: ${truncate(e.text, 200)}`);
      else this.log.warn(`Transport error: ${e.message}`);
    };
    transport.onclose = (info) => this.handleClose(info);
  }

  get isClosed(): boolean {
    return this.closed !== undefined;
  }

  /** Why the connection closed, once it has. */
  get closeInfo(): TransportCloseInfo | undefined {
    return this.closed;
  }

  async start(): Promise<void> {
    await this.transport.start();
  }

  /** Sends a request and validates its result with `schema`. */
  request<S extends z.ZodMiniType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options: RequestOptions = {},
  ): Promise<z.infer<S>> {
    return this.requestRaw(method, params, options).then((result) => {
      const parsed = schema.safeParse(result);
      if (!parsed.success) throw new InvalidResultError(method, describeIssues(parsed.error.issues), result);
      return parsed.data as z.infer<S>;
    });
  }

  /** Sends a request and resolves with its unvalidated `result` object. */
  requestRaw(method: string, params: Record<string, unknown> | undefined, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    if (this.closed) return Promise.reject(new ConnectionClosedError(this.closed.reason));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortError(signal));
    const id = this.nextId++;
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;

    let message: Record<string, unknown> = { jsonrpc: '2.0', id, method };
    if (options.onprogress) {
      const meta = { ...((params?._meta as Record<string, unknown> | undefined) ?? {}), progressToken: id };
      message.params = { ...params, _meta: meta };
    } else if (params !== undefined) {
      message.params = params;
    }

    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const armTimer = () => {
        if (timer) clearTimeout(timer);
        if (Number.isFinite(timeoutMs) && timeoutMs > 0) {
          timer = setTimeout(() => {
            this.cancelOutgoing(id, `timed out after ${timeoutMs} ms`);
            cleanup();
            reject(new RequestTimeoutError(method, timeoutMs));
          }, timeoutMs);
        }
      };
      const onAbort = () => {
        this.cancelOutgoing(id, errorMessage(signal!.reason ?? 'aborted'));
        cleanup();
        reject(abortError(signal!));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.progressHandlers.delete(id);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        method,
        resolve: (v) => {
          cleanup();
          resolve(v);
        },
        reject: (e) => {
          cleanup();
          reject(e);
        },
        cleanup,
      });
      if (options.onprogress) {
        const onprogress = options.onprogress;
        this.progressHandlers.set(id, (p) => {
          if (options.resetTimeoutOnProgress) armTimer();
          onprogress(p);
        });
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      armTimer();
      this.traceOut(message);
      this.transport.send(message).catch((err: unknown) => {
        const p = this.pending.get(id);
        if (p) p.reject(err instanceof Error ? err : new Error(errorMessage(err)));
      });
      message = undefined as never;
    });
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.closed) return;
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    this.traceOut(message);
    try {
      await this.transport.send(message);
    } catch (err) {
      this.log.warn(`Could not send ${method}: ${errorMessage(err)}`);
    }
  }

  /** Handles requests of `method` from the peer. Replaces an earlier handler. */
  onRequest(method: string, handler: RequestHandler): Disposable {
    this.requestHandlers.set(method, handler);
    return { dispose: () => this.requestHandlers.get(method) === handler && this.requestHandlers.delete(method) };
  }

  /** Handles notifications of `method` from the peer. Replaces an earlier handler. */
  onNotification(method: string, handler: NotificationHandler): Disposable {
    this.notificationHandlers.set(method, handler);
    return { dispose: () => this.notificationHandlers.get(method) === handler && this.notificationHandlers.delete(method) };
  }

  /** Routes `notifications/progress` with `token` to `handler` until disposed (task progress outlives its request). */
  onProgress(token: string | number, handler: (p: Progress) => void): Disposable {
    this.progressHandlers.set(token, handler);
    return { dispose: () => this.progressHandlers.get(token) === handler && this.progressHandlers.delete(token) };
  }

  /**
   * Closes the transport; pending requests fail. With a `reason`, the connection counts as closed
   * for that reason at once (pending requests fail with it, `onClose` carries it).
   */
  async close(reason?: string): Promise<void> {
    if (reason !== undefined) this.handleClose({ reason });
    await this.transport.close().catch((err: unknown) => this.log.warn(`Error while closing: ${errorMessage(err)}`));
    this.handleClose({ reason: 'closed by the client' });
  }

  dispose(): void {
    void this.close();
  }

  private cancelOutgoing(id: RequestId, reason: string): void {
    if (!this.pending.has(id)) return;
    void this.notify('notifications/cancelled', { requestId: id, reason });
  }

  private receive(value: unknown): void {
    const c = classify(value);
    switch (c.kind) {
      case 'result':
      case 'error': {
        this.traceIn(value);
        if (c.id === null) {
          if (c.kind === 'error') this.log.warn(`Server reported an error without a request id: ${c.error.code} ${c.error.message}`);
          return;
        }
        const p = this.pending.get(c.id);
        if (!p) {
          this.log.warn(`Ignored a response to request id ${truncate(JSON.stringify(c.id), 100)}, which is not pending (never sent, already answered, or cancelled)`);
          return;
        }
        if (c.kind === 'result') p.resolve(c.result);
        // An answer the transport lost is a failure here, never an outcome the peer gave.
        else if ((value as Record<PropertyKey, unknown>)[LOCAL_FAILURE]) p.reject(new TransportFailureError(c.error.message));
        else p.reject(new RpcError(c.error.code, c.error.message, c.error.data));
        return;
      }
      case 'request':
        this.traceIn(value);
        void this.handleRequest(c.msg);
        return;
      case 'notification':
        this.traceIn(value);
        this.handleNotification(c.msg);
        return;
      case 'invalid':
        this.log.warn(`Ignored an invalid message from the server (${c.problem}): ${truncate(safeStringify(value), 300)}`);
        if (c.id !== null && isRequestLike(value)) {
          void this.sendError(c.id, new RpcError(ErrorCode.InvalidRequest, `Invalid request: ${c.problem}`));
        }
        return;
    }
  }

  private async handleRequest(req: JsonRpcRequest): Promise<void> {
    if (this.closed) return;
    const handler = this.requestHandlers.get(req.method);
    if (!handler) {
      await this.sendError(req.id, new RpcError(ErrorCode.MethodNotFound, `Method not found: ${truncate(req.method, 200)}`));
      return;
    }
    if (this.incoming.has(req.id)) {
      await this.sendError(req.id, new RpcError(ErrorCode.InvalidRequest, `Request id ${truncate(JSON.stringify(req.id), 100)} is already in use`));
      return;
    }
    if (this.incoming.size >= this.maxIncoming) {
      await this.sendError(req.id, new RpcError(ErrorCode.InternalError, `Too many concurrent requests (limit ${this.maxIncoming}); try again later`));
      return;
    }
    const controller = new AbortController();
    this.incoming.set(req.id, controller);
    const meta = req.params?._meta;
    try {
      const result = await handler(req.params, {
        id: req.id,
        signal: controller.signal,
        meta: typeof meta === 'object' && meta !== null && !Array.isArray(meta) ? (meta as Record<string, unknown>) : undefined,
      });
      if (controller.signal.aborted || this.closed) return; // the peer cancelled: no answer is expected
      const message = { jsonrpc: '2.0', id: req.id, result: result ?? {} };
      this.traceOut(message);
      await this.transport.send(message);
    } catch (err) {
      if (controller.signal.aborted || this.closed) return;
      const rpc = err instanceof RpcError ? err : new RpcError(ErrorCode.InternalError, errorMessage(err));
      if (!(err instanceof RpcError)) this.log.error(`Handler for ${req.method} failed: ${errorMessage(err)}`);
      await this.sendError(req.id, rpc);
    } finally {
      this.incoming.delete(req.id);
    }
  }

  private handleNotification(n: JsonRpcNotification): void {
    try {
      if (n.method === 'notifications/cancelled') {
        const id = n.params?.requestId;
        if (typeof id === 'string' || typeof id === 'number') {
          this.incoming.get(id)?.abort(new Error(typeof n.params?.reason === 'string' ? n.params.reason : 'cancelled by the server'));
        }
        return;
      }
      if (n.method === 'notifications/progress') {
        const p = n.params ?? {};
        const token = p.progressToken;
        if ((typeof token === 'string' || typeof token === 'number') && typeof p.progress === 'number') {
          this.progressHandlers.get(token)?.({
            progress: p.progress,
            total: typeof p.total === 'number' ? p.total : undefined,
            message: typeof p.message === 'string' ? p.message : undefined,
          });
        } else {
          this.log.warn('Ignored a progress notification without a valid progressToken and progress');
        }
        return;
      }
      const handler = this.notificationHandlers.get(n.method);
      if (handler) handler(n.params);
      else this._onUnhandledNotification.fire(n);
    } catch (err) {
      this.log.error(`Handler for ${n.method} failed: ${errorMessage(err)}`);
    }
  }

  private async sendError(id: RequestId, err: RpcError): Promise<void> {
    const message = { jsonrpc: '2.0', id, error: err.toJSON() };
    this.traceOut(message);
    try {
      await this.transport.send(message);
    } catch (e) {
      this.log.warn(`Could not send an error response: ${errorMessage(e)}`);
    }
  }

  private handleClose(info: TransportCloseInfo): void {
    if (this.closed) return;
    this.closed = info;
    const err = new ConnectionClosedError(info.reason);
    for (const p of [...this.pending.values()]) p.reject(err);
    for (const c of this.incoming.values()) c.abort(err);
    this.incoming.clear();
    this.progressHandlers.clear();
    this._onClose.fire(info);
    this._onClose.dispose();
  }

  private traceOut(m: object): void {
    if (this.log.traceEnabled !== false) this.log.trace(`→ ${truncate(safeStringify(m))}`);
  }

  private traceIn(m: unknown): void {
    if (this.log.traceEnabled !== false) this.log.trace(`← ${truncate(safeStringify(m))}`);
  }
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error(typeof r === 'string' ? r : 'The request was cancelled');
  e.name = 'AbortError';
  return e;
}

function isRequestLike(v: unknown): boolean {
  return typeof v === 'object' && v !== null && 'method' in v && 'id' in v;
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    // Too deep for the stack (parsed JSON is never cyclic); String() of a deep array throws too.
    return `<${Array.isArray(v) ? 'an array' : typeof v} nested too deeply to show>`;
  }
}
