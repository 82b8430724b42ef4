import type * as z from 'zod/mini';
import type { Transport, TransportCloseInfo } from '../transports/transport';
import { CLOSED_BY_CLIENT, LOCAL_FAILURE, TransportParseError } from '../transports/transport';
import type { Disposable, Event } from '../util/event';
import { Emitter } from '../util/event';
import type { Logger } from '../util/log';
import { truncate, warnRepeated } from '../util/log';
import { abortReason, abortWith, asError, errorMessage, MAX_TIMER_MS, newController, sleep } from '../util/abort';
import { isNumber, isObject, isObjectLike, isString, safeStringify, stringify } from '../util/json';
import { isFiniteNumber, maxOf, minOf } from '../util/builtins';
import { noop, rejected, SENT } from '../util/promise';
import { ConnectionClosedError, ErrorCode, RequestTimeoutError, RpcError, TransportFailureError } from './errors';
import type { JsonRpcNotification, JsonRpcRequest, RequestId } from './messages';
import { classify, describeIssues } from './messages';
import { fastCheck } from './fastCheck';

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
  /** Handed to the handlers of the peer's requests that relate to this one, while it is pending (see `IncomingRequestContext.related`). */
  tag?: unknown;
}

export interface IncomingRequestContext {
  id: RequestId;
  /** Aborted when the peer cancels the request or the connection closes. */
  signal: AbortSignal;
  /** The request's `params._meta`, if any. */
  meta?: Record<string, unknown>;
  /** The `tag` of our pending request this one relates to, when the transport can say (see `Transport.onmessage`). */
  related?: unknown;
}

export type RequestHandler = (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext) => Promise<unknown> | unknown;
export type NotificationHandler = (params: Record<string, unknown> | undefined) => void;

export interface ConnectionOptions {
  logger: Logger;
  /** Default per-request timeout in ms (a function: read at each request, so a changed setting applies at once). */
  defaultTimeoutMs?: number | (() => number);
  /** Most incoming requests handled at once; more are refused with -32603 (a flood guard). */
  maxConcurrentIncoming?: number;
  /** The peer's name, for the errors that reach the user away from it (a request that timed out). */
  peer?: string;
}

/** The result of a request failed its schema: the peer answered, but not with what the protocol says. */
export class InvalidResultError extends RpcError {
  override name = 'InvalidResultError';
  /** What is wrong with the result (zod's issues, joined by "; "), without the method. */
  declare readonly problem: string;
  constructor(method: string, problem: string, result: unknown) {
    super(ErrorCode.InvalidParams, `Invalid result for ${method} from server: ${problem}`, result);
    this.problem = problem;
  }
}

/** Either side's notice that it no longer wants the answer to a request it sent. */
const CANCELLED_NOTIFICATION = 'notifications/cancelled';

/** One outgoing request awaiting its answer. Plain data: no closures unless a signal or progress asks. */
interface Pending {
  method: string;
  /** Validates the result; none for `requestRaw`. */
  schema: z.ZodMiniType | undefined;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timeoutMs: number;
  /** When the request times out, on the monotonic `performance.now()` clock; Infinity for never. */
  deadline: number;
  signal: AbortSignal | undefined;
  tag: unknown;
  /** Holds of this request alone not released yet (see `hold`). */
  holds: number;
}

/** An answer to a peer's request that could not be sent (see `onUndelivered`). */
export interface UndeliveredAnswer {
  /** The request's method and params. */
  method: string;
  params: Record<string, unknown> | undefined;
  /** Why, in a sentence. */
  reason: string;
  /**
   * Sends the same answer again (to the same request id: the peer may still wait for it), tried
   * again as the first was; true once sent. None once the connection has closed.
   */
  resend?: () => Promise<boolean>;
}

/** The pause before each try of an answer: a failed send is tried three more times, then reported. */
const ANSWER_RETRY_MS = [0, 1000, 2000, 4000];
const DEFAULT_TIMEOUT_MS = 60_000;
const RESOLVED = Promise.resolve();

/**
 * JSON-RPC 2.0 over a `Transport`: outgoing requests with timeouts and cancellation, incoming
 * requests dispatched to handlers, notifications, and progress routed by token. Every incoming
 * value is validated; garbage is logged (and answered when it had an id), never thrown.
 */
export class JsonRpcConnection implements Disposable {
  #nextId = 1;
  readonly #pending = new Map<RequestId, Pending>();
  readonly #requestHandlers = new Map<string, RequestHandler>();
  readonly #notificationHandlers = new Map<string, NotificationHandler>();
  readonly #progressHandlers = new Map<string | number, (p: Progress) => void>();
  readonly #incoming = new Map<RequestId, AbortController>();
  /** Ids of the last 1000 requests received (see `handleRequest`). */
  readonly #seen = new Set<RequestId>();
  /** The pending requests each caller's signal covers. */
  readonly #aborts = new Map<AbortSignal, Map<RequestId, Pending>>();
  readonly #onClose = new Emitter<TransportCloseInfo>();
  readonly #onUnhandledNotification = new Emitter<JsonRpcNotification>();
  readonly #onUndelivered = new Emitter<UndeliveredAnswer>();
  /** Aborted when the connection closes: ends the pauses between the tries of an answer. */
  readonly #alive = newController();
  #closed: TransportCloseInfo | undefined;
  readonly #log: Logger;
  /** Messages ignored so far, by kind: a server that sends bad lines all day warns once (see warnRepeated). */
  readonly #ignored = new Map<string, number>();
  readonly #defaultTimeoutMs: number | (() => number);
  readonly #maxIncoming: number;
  readonly #peer: string | undefined;
  /** The deadline timer (see `arm`) and the moment it is set for. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #idleQueued = false;
  /** Holds not released yet (see `hold`). */
  #holds = 0;
  /**
   * A timed-out request's notifications/cancelled the transport has not sent yet: while a peer takes
   * none (a hung server), the next timeouts send none either: one each, for every round of polls,
   * waited behind the transport's busy lanes and went all at once when the server was back.
   */
  #timeoutCancel: Promise<void> | undefined;

  /**
   * Fires once when the transport closes, with why. A listener added after the close is called
   * at once (on a microtask): a close during a handshake is never missed by whoever subscribes
   * when the handshake returns.
   */
  readonly onClose: Event<TransportCloseInfo> = (listener) => {
    const closed = this.#closed;
    if (!closed) return this.#onClose.event(listener);
    let live = true;
    queueMicrotask(() => live && listener(closed));
    return { dispose: () => void (live = false) };
  };
  /** Notifications no handler claimed (logged at trace). */
  readonly onUnhandledNotification: Event<JsonRpcNotification> = this.#onUnhandledNotification.event;
  /**
   * An answer (a result or an error) to a peer's request could not be sent: its send failed as many
   * times as it was tried while the connection was open, or the connection closed first. Such an
   * answer may carry the user's work (a form filled in) or choice (a refusal), so it is reported,
   * not only logged.
   */
  readonly onUndelivered: Event<UndeliveredAnswer> = this.#onUndelivered.event;

  declare readonly transport: Transport;

  constructor(transport: Transport, options: ConnectionOptions) {
    this.transport = transport;
    this.#log = options.logger;
    this.#defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxIncoming = options.maxConcurrentIncoming ?? 64;
    this.#peer = options.peer;
    transport.onmessage = (m, related) => {
      // Whatever a message does to us, it must not unwind into the transport (a throw in a stdio
      // 'data' handler would take the whole editor host down).
      try {
        this.#receive(m, related);
      } catch (err) {
        this.#log.error(`Failed to handle a message from the server: ${errorMessage(err)}`);
      }
    };
    transport.onerror = (e) => {
      if (e instanceof TransportParseError) warnRepeated(this.#log, this.#ignored, 'json', `Ignored a message that is not JSON: ${e.message}: ${truncate(e.text, 200)}`);
      else this.#log.warn(`Transport error: ${e.message}`);
    };
    transport.onclose = (info) => this.#handleClose(info);
  }

  get isClosed(): boolean {
    return this.#closed !== undefined;
  }

  /** Why the connection closed, once it has. */
  get closeInfo(): TransportCloseInfo | undefined {
    return this.#closed;
  }

  async start(): Promise<void> {
    await this.transport.start();
  }

  /** Sends a request and validates its result with `schema`. */
  request<S extends z.ZodMiniType>(
    method: string,
    params: Record<string, unknown> | undefined,
    schema: S,
    options?: RequestOptions,
  ): Promise<z.infer<S>> {
    return this.#send(method, params, schema, options) as Promise<z.infer<S>>;
  }

  /** Sends a request and resolves with its unvalidated `result` object. */
  requestRaw(method: string, params: Record<string, unknown> | undefined, options?: RequestOptions): Promise<Record<string, unknown>> {
    return this.#send(method, params, undefined, options) as Promise<Record<string, unknown>>;
  }

  /**
   * The one path of every outgoing request, kept cheap (it runs thousands of times a second): one
   * promise, a plain record, no timer of its own (see `arm`), closures only for a signal or progress.
   */
  #send(method: string, params: Record<string, unknown> | undefined, schema: z.ZodMiniType | undefined, options: RequestOptions | undefined): Promise<unknown> {
    if (this.#closed) return rejected(new ConnectionClosedError(this.#closed.reason));
    const signal = options?.signal;
    if (signal?.aborted) return rejected(cancelled(signal));
    const id = this.#nextId++;
    const timeoutMs = options?.timeoutMs ?? (typeof this.#defaultTimeoutMs === 'function' ? this.#defaultTimeoutMs() : this.#defaultTimeoutMs);
    const onprogress = options?.onprogress;

    if (onprogress) params = { ...params, _meta: { ...(params?._meta as Record<string, unknown> | undefined), progressToken: id } };
    // Whole literals: an object grown key by key costs a shape change per request.
    const message = params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };

    let resolve!: (value: unknown) => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<unknown>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    const timed = isFiniteNumber(timeoutMs) && timeoutMs > 0;
    const now = timed ? performance.now() : 0;
    const p: Pending = { method, schema, resolve, reject, timeoutMs, deadline: timed ? now + timeoutMs : Infinity, signal, tag: options?.tag, holds: 0 };
    this.#pending.set(id, p);
    if (timed) this.#arm(p.deadline, now);
    if (onprogress) {
      const reset = options.resetTimeoutOnProgress && timed;
      this.#progressHandlers.set(id, (pr) => {
        if (reset) p.deadline = performance.now() + timeoutMs; // the armed timer finds it later and re-arms
        onprogress(pr);
      });
    }
    if (signal) {
      // One listener per signal, for all the requests that share it (a listener each would pile
      // up on a signal shared by many calls, with a MaxListenersExceededWarning past ten).
      let group = this.#aborts.get(signal);
      if (!group) {
        this.#aborts.set(signal, (group = new Map()));
        signal.addEventListener('abort', this.#onSignalAbort);
      }
      group.set(id, p);
    }
    this.#trace('→', message);
    let sent: Promise<void>;
    try {
      sent = this.transport.send(message);
    } catch (err) {
      sent = rejected(err); // a transport that throws instead of rejecting fails the request alike
    }
    if (sent !== SENT) {
      sent.catch((err: unknown) => {
        if (this.#pending.get(id) === p) this.#fail(id, p, asError(err));
      });
    }
    return promise;
  }

  /** Forgets a pending request: its abort listener and progress route. Call `idle()` after settling its promise. */
  #settle(id: RequestId, p: Pending): void {
    this.#pending.delete(id);
    if (p.signal) {
      const group = this.#aborts.get(p.signal);
      if (group?.delete(id) && group.size === 0) {
        this.#aborts.delete(p.signal);
        p.signal.removeEventListener('abort', this.#onSignalAbort);
      }
    }
    this.#progressHandlers.delete(id);
  }

  /** A signal aborted: every request it covers fails, and the peer is told of each. */
  readonly #onSignalAbort = (event: { target: unknown }): void => {
    const signal = event.target as AbortSignal;
    const group = this.#aborts.get(signal);
    this.#aborts.delete(signal);
    signal.removeEventListener('abort', this.#onSignalAbort);
    for (const [id, p] of group ?? []) {
      this.#cancelOutgoing(id, p, errorMessage(signal.reason ?? 'aborted'));
      this.#fail(id, p, cancelled(signal));
    }
  };

  #fail(id: RequestId, p: Pending, err: Error): void {
    this.#settle(id, p);
    p.reject(err);
    this.#idle();
  }

  /**
   * No timer outlives the last pending request, but it is not cleared at once: the caller whose
   * request just settled often sends the next one from the microtask its answer set off (a
   * sequence of calls), which then finds the timer armed instead of clearing and setting one.
   */
  #idle(): void {
    if (this.#pending.size === 0 && this.#timer !== undefined && !this.#idleQueued) {
      this.#idleQueued = true;
      void RESOLVED.then(this.#idleCheck); // a microtask, without queueMicrotask's async-hooks wrapper
    }
  }

  readonly #idleCheck = (): void => {
    this.#idleQueued = false;
    if (this.#pending.size === 0) this.#stopTimer();
  };

  #stopTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  /**
   * One timer per connection, for the earliest deadline, instead of a timer set and cleared per
   * request: requests sent later with the same timeout never move it; settled requests leave it
   * armed (it finds nothing due, and re-arms for the next deadline) until none is pending.
   */
  #arm(deadline: number, now: number): void {
    if (this.#timer !== undefined) {
      if (deadline >= this.#timerAt) return;
      clearTimeout(this.#timer);
    }
    const delay = minOf(maxOf(deadline - now, 1), MAX_TIMER_MS);
    this.#timerAt = now + delay;
    this.#timer = setTimeout(this.#onDeadline, delay);
  }

  readonly #onDeadline = (): void => {
    this.#timer = undefined;
    // Held: no request times out, and the last release sets every clock again.
    if (this.#holds) return void (this.#timerAt = Infinity);
    // The timer fired for `timerAt`: that moment has come, even if the clock reads a hair less.
    const now = maxOf(performance.now(), this.#timerAt);
    this.#timerAt = Infinity;
    let next = Infinity;
    for (const [id, p] of this.#pending) {
      if (p.holds) continue;
      if (p.deadline <= now) {
        this.#cancelOutgoing(id, p, `timed out after ${p.timeoutMs} ms`, true);
        this.#fail(id, p, new RequestTimeoutError(p.method, p.timeoutMs, this.#peer));
      } else if (p.deadline < next) next = p.deadline;
    }
    if (next < Infinity && !this.#closed) this.#arm(next, now);
  };

  /**
   * Stops the clock of every pending request (with a `tag`: of the pending requests sent with it)
   * until the function returned is called: while the user answers the peer's question, the peer
   * cannot answer before the user does. Once no hold of a request is left, its clock starts over.
   */
  hold(tag?: unknown): () => void {
    const held = tag === undefined ? undefined : [...this.#pending.values()].filter((p) => p.tag === tag);
    const add = (n: number) => (held ? held.forEach((p) => (p.holds += n)) : (this.#holds += n));
    add(1);
    let live = true;
    return () => {
      if (!live) return;
      live = false;
      add(-1);
      if (this.#holds) return;
      const now = performance.now();
      for (const p of this.#pending.values()) if (!p.holds && p.deadline < Infinity && (!held || held.includes(p))) this.#arm((p.deadline = now + p.timeoutMs), now);
    };
  }

  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    if (this.#closed) return;
    const message: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) message.params = params;
    await this.#post(message, method);
  }

  /** Handles requests of `method` from the peer. Replaces an earlier handler. */
  onRequest(method: string, handler: RequestHandler): Disposable {
    return route(this.#requestHandlers, method, handler);
  }

  /** Handles notifications of `method` from the peer. Replaces an earlier handler. */
  onNotification(method: string, handler: NotificationHandler): Disposable {
    return route(this.#notificationHandlers, method, handler);
  }

  /** Routes `notifications/progress` with `token` to `handler` until disposed (task progress outlives its request). */
  onProgress(token: string | number, handler: (p: Progress) => void): Disposable {
    return route(this.#progressHandlers, token, handler);
  }

  /**
   * Closes the transport; pending requests fail. With a `reason`, the connection counts as closed
   * for that reason at once (pending requests fail with it, `onClose` carries it).
   */
  async close(reason?: string): Promise<void> {
    if (reason !== undefined) this.#handleClose({ reason });
    await this.transport.close().catch((err: unknown) => this.#log.warn(`Error while closing: ${errorMessage(err)}`));
    this.#handleClose({ reason: CLOSED_BY_CLIENT });
  }

  dispose(): void {
    void this.close();
  }

  /** Gives up a pending request: the transport may drop what it holds open for it, and the peer is told. */
  #cancelOutgoing(id: RequestId, p: Pending, reason: string, timedOut?: boolean): void {
    if (!this.#pending.has(id)) return;
    this.transport.forget?.(id, timedOut);
    // Spec: "A client MUST NOT attempt to cancel its initialize request."
    if (p.method === 'initialize' || (timedOut && this.#timeoutCancel)) return;
    const sent = this.notify(CANCELLED_NOTIFICATION, { requestId: id, reason });
    if (timedOut) this.#timeoutCancel = sent.finally(() => (this.#timeoutCancel = undefined));
  }

  #receive(value: unknown, related?: RequestId): void {
    const c = classify(value);
    switch (c.kind) {
      case 'result':
      case 'error': {
        this.#trace('←', value);
        if (c.id === null) {
          if (c.kind === 'error') this.#log.warn(`Server reported an error without a request id: ${c.error.code} ${c.error.message}`);
          return;
        }
        const p = this.#pending.get(c.id);
        if (!p) {
          warnRepeated(this.#log, this.#ignored, 'id', `Ignored a response to request id ${truncate(stringify(c.id), 100)}, which is not pending (never sent, already answered, or cancelled)`);
          return;
        }
        this.#settle(c.id, p);
        if (c.kind === 'error') {
          // An answer the transport lost is a failure here, never an outcome the peer gave.
          if ((value as Record<PropertyKey, unknown>)[LOCAL_FAILURE]) p.reject(new TransportFailureError(c.error.message));
          else p.reject(new RpcError(c.error.code, c.error.message, c.error.data));
        } else if (!p.schema || fastCheck(p.schema)?.(c.result)) {
          // Checked by hand exactly as the schema would, without zod's copy of the whole result.
          p.resolve(c.result);
        } else {
          const parsed = p.schema.safeParse(c.result);
          if (parsed.success) p.resolve(parsed.data);
          else p.reject(new InvalidResultError(p.method, describeIssues(parsed.error), c.result));
        }
        this.#idle();
        return;
      }
      case 'request':
        this.#trace('←', value);
        void this.#handleRequest(c.msg, related);
        return;
      case 'notification':
        this.#trace('←', value);
        this.#handleNotification(c.msg);
        return;
      case 'invalid': {
        warnRepeated(this.#log, this.#ignored, 'invalid', `Ignored an invalid message from the server (${c.problem}): ${truncate(safeStringify(value), 300)}`);
        if (c.id !== null && isRequestLike(value)) {
          void this.#post({ jsonrpc: '2.0', id: c.id, error: new RpcError(ErrorCode.InvalidRequest, `Invalid request: ${c.problem}`).toJSON() }, 'an error response');
          return;
        }
        // A broken answer to a request still waiting fails that request now, not at its timeout
        // (or never, for those that have none).
        const p = c.response && c.id !== null ? this.#pending.get(c.id) : undefined;
        if (p && c.id !== null) {
          this.#settle(c.id, p);
          p.reject(new InvalidResultError(p.method, c.problem, value));
          this.#idle();
        }
        return;
      }
    }
  }

  async #handleRequest(req: JsonRpcRequest, related?: RequestId): Promise<void> {
    if (this.#closed) return;
    // An id used before (MCP forbids reusing one within a session) is a repeat: a resumed stream
    // replays what it sent before. It has one answer, the first's; another (an error, a question
    // asked twice) would reach the peer as that answer or cost the user twice. Bounded: a replay
    // reaches back a few messages, not thousands.
    const seen = this.#seen;
    if (seen.has(req.id)) return this.#log.warn(`Ignored a repeat of request id ${truncate(stringify(req.id), 100)} (${truncate(req.method, 100)})`);
    seen.add(req.id);
    if (seen.size > 1000) seen.delete(seen.values().next().value!);
    const handler = this.#requestHandlers.get(req.method);
    if (!handler) {
      await this.#sendError(req, new RpcError(ErrorCode.MethodNotFound, `Method not found: ${truncate(req.method, 200)}`));
      return;
    }
    if (this.#incoming.size >= this.#maxIncoming) {
      await this.#sendError(req, new RpcError(ErrorCode.InternalError, `Too many concurrent requests (limit ${this.#maxIncoming}); try again later`));
      return;
    }
    const controller = newController();
    this.#incoming.set(req.id, controller);
    const meta = req.params?._meta;
    try {
      const result = await handler(req.params, {
        id: req.id,
        signal: controller.signal,
        meta: isObject(meta) ? meta : undefined,
        // No related id finds no request (Map#get(undefined) is undefined).
        related: this.#pending.get(related!)?.tag,
      });
      if (controller.signal.aborted && !this.#closed) return; // the peer cancelled: no answer is expected
      // An answer that cannot be sent is not the handler's failure: no second answer follows it.
      await this.#answer({ jsonrpc: '2.0', id: req.id, result: result ?? {} }, req);
    } catch (err) {
      // After the close, unlike a result (a form filled in anyway), not reported: the close aborted
      // the handler, so its error is the close's (a dialog closed unanswered, a model stopped), and
      // a refusal made first already went to #answer. Told, each disconnect would warn of them.
      if (controller.signal.aborted || this.#closed) return;
      const rpc = err instanceof RpcError ? err : new RpcError(ErrorCode.InternalError, errorMessage(err));
      if (!(err instanceof RpcError)) this.#log.error(`Handler for ${req.method} failed: ${errorMessage(err)}`);
      await this.#sendError(req, rpc);
    } finally {
      this.#incoming.delete(req.id);
    }
  }

  #handleNotification(n: JsonRpcNotification): void {
    try {
      if (n.method === CANCELLED_NOTIFICATION) {
        const id = n.params?.requestId;
        if (isString(id) || isNumber(id)) {
          abortWith(this.#incoming.get(id), isString(n.params?.reason) ? n.params.reason : 'cancelled by the server');
        }
        return;
      }
      if (n.method === 'notifications/progress') {
        const p = n.params ?? {};
        const token = p.progressToken;
        // Finite: JSON.parse reads 1e400 as Infinity, which the view would show as progress.
        if ((isString(token) || isNumber(token)) && isFiniteNumber(p.progress)) {
          this.#progressHandlers.get(token)?.({
            progress: p.progress as number,
            total: isFiniteNumber(p.total) ? (p.total as number) : undefined,
            message: isString(p.message) ? p.message : undefined,
          });
        } else {
          this.#log.warn('Ignored a progress notification without a valid progressToken and progress');
        }
        return;
      }
      const handler = this.#notificationHandlers.get(n.method);
      if (handler) handler(n.params);
      else this.#onUnhandledNotification.fire(n);
    } catch (err) {
      this.#log.error(`Handler for ${n.method} failed: ${errorMessage(err)}`);
    }
  }

  /** An error answer (a refusal the user chose, a request found invalid) matters to the peer as a result does: tried and reported alike. */
  #sendError(req: JsonRpcRequest, err: RpcError): Promise<boolean> {
    return this.#answer({ jsonrpc: '2.0', id: req.id, error: err.toJSON() }, req);
  }

  /** Sends a message that no answer follows (a notification, an answer); a failure is logged, never thrown. */
  async #post(message: object, what: string): Promise<void> {
    this.#trace('→', message);
    try {
      await this.transport.send(message);
    } catch (e) {
      this.#log.warn(`Could not send ${what}: ${errorMessage(e)}`);
    }
  }

  /**
   * Sends the answer to a peer's request: a failed send is logged and tried again (ANSWER_RETRY_MS)
   * while the connection is open; one that cannot be sent is reported (`onUndelivered`). A
   * transport's failure to send is no proof that the peer did not get it, but a response to the
   * same id twice is harmless: the peer drops the one it no longer awaits.
   */
  async #answer(message: object, req: JsonRpcRequest): Promise<boolean> {
    let reason = '';
    for (const ms of ANSWER_RETRY_MS) {
      if (ms) await sleep(ms, this.#alive.signal).catch(noop);
      if (this.#closed) {
        reason = `the connection closed (${this.#closed.reason})`;
        break;
      }
      this.#trace('→', message);
      try {
        await this.transport.send(message);
        return true;
      } catch (e) {
        this.#log.warn(`Could not send the answer to ${req.method}: ${(reason = errorMessage(e))}`);
      }
    }
    this.#onUndelivered.fire({ method: req.method, params: req.params, reason, resend: this.#closed ? undefined : () => this.#answer(message, req) });
    return false;
  }

  #handleClose(info: TransportCloseInfo): void {
    if (this.#closed) return;
    this.#closed = info;
    const err = new ConnectionClosedError(info.reason);
    for (const [id, p] of this.#pending) this.#fail(id, p, err);
    this.#stopTimer();
    for (const c of this.#incoming.values()) c.abort(err);
    this.#alive.abort(err);
    this.#incoming.clear();
    this.#progressHandlers.clear();
    this.#onClose.fire(info);
    this.#onClose.dispose();
  }

  /** Traces a message sent (→) or received (←). */
  #trace(way: '→' | '←', m: unknown): void {
    if (this.#log.traceEnabled !== false) this.#log.trace(`${way} ${truncate(safeStringify(m))}`);
  }
}

/** Routes `key` to `value` until disposed; a route set in its place meanwhile stays. */
const route = <K, V>(routes: Map<K, V>, key: K, value: V): Disposable => {
  routes.set(key, value);
  return { dispose: () => routes.get(key) === value && routes.delete(key) };
};

const cancelled = (signal: AbortSignal): Error => abortReason(signal, 'The request was cancelled');

const isRequestLike = (v: unknown): boolean => isObjectLike(v) && 'method' in v && 'id' in v;

