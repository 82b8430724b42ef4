import * as z from 'zod/mini';
import type { IncomingRequestContext } from '../jsonrpc/connection';
import { ErrorCode, RpcError } from '../jsonrpc/errors';
import { describeIssues } from '../jsonrpc/messages';
import type { Task, TaskStatus } from '../protocol/schemas';
import { CANCELLED, COMPLETED, ELICITATION_CREATE, FAILED, RELATED_TASK_META, SAMPLING_CREATE, TASKS_CANCEL, TASKS_GET, TASKS_LIST, TASKS_RESULT, TASKS_STATUS, WORKING } from '../protocol/schemas';
import type { McpSession } from '../protocol/session';
import type { ServerRequestContext, ServerRequestHandler, TaskEngine } from '../tasks/engine';
import { canTransition, isServerTerminal, isTerminal } from '../tasks/status';
import type { LiveWork } from '../tasks/types';
import { CANCELLED_BY_USER, DIRECT, TASK } from '../tasks/types';
import { summarize } from '../tasks/presentation';
import type { HoldAs } from '../tasks/incoming';
import { ownHold } from '../tasks/incoming';
import { abortWith, errorMessage, MAX_TIMER_MS, newController, onAbort, raceAbort } from '../util/abort';
import { randomUUID } from '../util/crypto';
import type { Disposable, Event } from '../util/event';
import { DisposableStore, Emitter } from '../util/event';
import type { Logger } from '../util/log';
import { isObject, stringify } from '../util/json';
import { floor, maxOf, minOf, now } from '../util/builtins';
import { prefixed, truncate } from '../util/log';
import { noop } from '../util/promise';
import { TokenBucket } from './tokenBucket';
import { OptionalString, atLeast } from '../util/zod';

/** The server requests this client accepts as tasks. */
export type HostedMethod = 'elicitation/create' | 'sampling/createMessage';

/** One task a server asked this client to run, as a plain object for the view. */
export interface HostedTaskSnapshot {
  serverId: string;
  /** Generated here (`crypto.randomUUID()`); unique among all hosted tasks. */
  taskId: string;
  method: HostedMethod;
  status: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** The ttl granted (ms from `createdAt`), after capping. */
  ttl: number;
  pollInterval: number;
  /** What the server asks, in a line: the elicitation message or the last sampling prompt. */
  summary: string;
  /** When the server fetched the outcome through `tasks/result` (ISO 8601). */
  resultRetrievedAt?: string;
  /** Its handler waits for the user (a sampling consent prompt open or waiting its turn): see asSeen. */
  asks?: boolean;
  /** The language model chosen to answer it (sampling). */
  model?: string;
  /** How it ended in the user's words (see ServerRequestContext.tells), where its statusMessage is the server's. */
  note?: string;
}

/**
 * Limits of the task host (T-RCV-9). Every refusal is a JSON-RPC error -32603 whose message
 * names the limit: the spec reserves -32602 for bad task ids and cursors, and a limit is neither
 * an invalid request (-32600) nor invalid params; it is the receiver declining for now.
 */
export interface TaskHostOptions {
  logger: Logger;
  /** The name users know a server by, for the log. */
  label?: (serverId: string) => string;
  /** Longest ttl granted; longer requests are shortened (default 1 hour). */
  maxTtlMs?: number;
  /** ttl when the server asks for none (default 10 minutes). */
  defaultTtlMs?: number;
  /** Shortest ttl granted, so a task outlives its first poll (default 1 s). */
  minTtlMs?: number;
  /** Tasks of one server running at once; more are refused (default 10). */
  maxConcurrentPerServer?: number;
  /** Ended tasks kept per server until their ttl; beyond, those that ended first are deleted (default 100). */
  maxRetainedPerServer?: number;
  /** Operations (questions and sampling requests, as tasks or not, and tasks/*) per second per server (default 50)... */
  ratePerSecond?: number;
  /** ...with bursts of up to this many (default twice the rate). */
  rateBurst?: number;
  /** `pollInterval` suggested to servers (default 1000 ms). */
  pollIntervalMs?: number;
  /** Tasks per `tasks/list` page (default 50). */
  pageSize?: number;
  now?: () => number;
}

type Outcome = { result: Record<string, unknown> } | { error: RpcError };

interface Rec {
  snap: HostedTaskSnapshot;
  /** The connection the task belongs to (T-RCV-8). */
  session: McpSession;
  /** Creation order within its server, for list cursors. */
  seq: number;
  expiresAt: number;
  work: AbortController;
  /** The keys of what the request belongs to (see `ServerRequestContext.calls`) that have not ended. */
  related: Set<string>;
  outcome?: Outcome;
  /** Resolves once the task is terminal or deleted (what `tasks/result` waits for). */
  done: Promise<void>;
  settle: () => void;
  /** `tasks/result` requests waiting for it to end: it is not evicted before they have the answer. */
  waiters: number;
  /**
   * Status notifications wait until the CreateTaskResult is on its way: a request that fails at
   * once would otherwise have its `failed` sent before the server learns the task exists.
   * `held`: a change happened meanwhile; its latest state goes out when they may.
   */
  announced: boolean;
  held: boolean;
}

/** The limits `configure` sets. */
type Limits = Pick<TaskHostOptions, 'maxTtlMs' | 'defaultTtlMs' | 'minTtlMs' | 'maxConcurrentPerServer' | 'ratePerSecond' | 'rateBurst'>;

interface ServerState {
  session?: McpSession;
  store?: DisposableStore;
  tasks: Map<string, Rec>;
  /** Its ended tasks, in the order they ended (eviction order). */
  ended: Set<Rec>;
  seq: number;
  /** Random per server, in every cursor: another server's cursors are not valid here. */
  cursorKey: string;
  bucket: TokenBucket;
  /** Ids deleted here, with why, so a late poll learns "expired" rather than "not found". */
  gone: Map<string, string>;
  /** Refusals since the last warning (a flood is logged as counts, not line by line). */
  refused: number;
  warnedAt: number;
  /** Plain (not task-augmented) requests being handled: they count against the same limit. */
  plain: number;
}

const TaskParamSchema = z.looseObject({
  ttl: z.optional(z.nullable(z.number({ error: 'expected a number of milliseconds' }).check(atLeast(0, 'must not be negative')))),
});
const TaskIdParamsSchema = z.looseObject({ taskId: z.string() });
const ListParamsSchema = z.optional(z.looseObject({ cursor: OptionalString }));

const VERB: Record<string, string> = { [TASKS_GET]: 'retrieve task', [TASKS_RESULT]: 'retrieve task result', [TASKS_CANCEL]: 'cancel task' };
const MAX_TOMBSTONES = 256;
const WARN_EVERY_MS = 5_000;
/** How the log names a task run here (7 lines). */
const HOSTED_TASK = 'Hosted task ';

/**
 * The receiver side of MCP tasks (2025-11-25) for the requests servers send to this client:
 * task-augmented `elicitation/create` and `sampling/createMessage` are answered at once with a
 * `CreateTaskResult`, run in the background, and served to the server that asked through
 * `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel` (rules T-RCV-1..10).
 *
 * A hosted task belongs to the connection that created it: only that connection sees it, and
 * when the connection closes (or the server's session is replaced) its live work is aborted and
 * its tasks are deleted, since no one is left who could poll them. Tasks are also deleted when
 * their ttl ends (live work is aborted then too), by one unref'd timer for all tasks.
 */
export class TaskHost {
  readonly #servers = new Map<string, ServerState>();
  readonly #methods = new Set<HostedMethod>();
  readonly #onDidChange = new Emitter<HostedTaskSnapshot>();
  readonly #onDidRemove = new Emitter<string>();
  readonly #onDidExpire = new Emitter<HostedTaskSnapshot>();
  readonly #onDidServerCancel = new Emitter<HostedTaskSnapshot>();
  readonly #log: Logger;
  readonly #now: () => number;
  #limits: Limits = {};
  #maxTtl = 0;
  #defaultTtl = 0;
  #minTtl = 0;
  #maxConcurrent = 0;
  #rate = 0;
  #burst = 0;
  readonly #maxRetained: number;
  readonly #pollInterval: number;
  readonly #pageSize: number;
  #timer?: ReturnType<typeof setTimeout>;
  #timerAt = Infinity;
  #related?: Disposable;

  /** A hosted task was created or changed. */
  readonly onDidChange: Event<HostedTaskSnapshot> = this.#onDidChange.event;
  /** A hosted task was deleted (its task id). */
  readonly onDidRemove: Event<string> = this.#onDidRemove.event;
  /** A live hosted task's ttl ended: its dialog or model request was withdrawn unanswered (its row goes at once). */
  readonly onDidExpire: Event<HostedTaskSnapshot> = this.#onDidExpire.event;
  /** A live hosted task was cancelled by its server (tasks/cancel): its dialog or model request was withdrawn unanswered. */
  readonly onDidServerCancel: Event<HostedTaskSnapshot> = this.#onDidServerCancel.event;
  readonly #options: TaskHostOptions;

  constructor(options: TaskHostOptions) {
    this.#options = options;
    this.#log = options.logger;
    this.#now = options.now ?? now;
    this.configure(options);
    this.#maxRetained = options.maxRetainedPerServer ?? 100;
    this.#pollInterval = options.pollIntervalMs ?? 1_000;
    this.#pageSize = maxOf(1, options.pageSize ?? 50);
  }

  /**
   * Sets the limits (the user's settings, when they change): they apply to the requests that
   * come next, on every connection. What `limits` leaves out stays as it was.
   */
  configure(limits: Limits): void {
    const o = (this.#limits = { ...this.#limits, ...limits });
    this.#maxTtl = o.maxTtlMs ?? 3_600_000;
    this.#defaultTtl = minOf(o.defaultTtlMs ?? 600_000, this.#maxTtl);
    this.#minTtl = minOf(o.minTtlMs ?? 1_000, this.#maxTtl);
    this.#maxConcurrent = o.maxConcurrentPerServer ?? 10;
    const rate = o.ratePerSecond ?? 50;
    const burst = o.rateBurst ?? 2 * rate;
    if (rate !== this.#rate || burst !== this.#burst) {
      this.#rate = rate;
      this.#burst = burst;
      for (const state of this.#servers.values()) state.bucket = new TokenBucket(rate, burst, this.#now);
    }
  }

  /** T-RCV-1: the client's `tasks` capability, for the request types wrapped so far. */
  capabilities(): Record<string, unknown> {
    if (this.#methods.size === 0) return {};
    const requests: Record<string, unknown> = {};
    if (this.#methods.has(ELICITATION_CREATE)) requests.elicitation = { create: {} };
    if (this.#methods.has(SAMPLING_CREATE)) requests.sampling = { createMessage: {} };
    return { tasks: { list: {}, cancel: {}, requests } };
  }

  /** Every hosted task. */
  list(): HostedTaskSnapshot[] {
    return [...this.#servers.values()].flatMap((s) => [...s.tasks.values()].map((r) => r.snap));
  }

  /**
   * Wraps the handler of a server request: with `params.task` the request becomes a hosted task
   * (T-RCV-2); without it the handler runs as usual. Declares `method` in `capabilities()`.
   */
  wrap(method: HostedMethod, handler: ServerRequestHandler): ServerRequestHandler {
    this.#methods.add(method);
    return async (params, ctx) => {
      if (params?.task !== undefined) return this.#accept(method, handler, params, ctx);
      // T-RCV-9: a plain request opens a dialog too; the same limits hold, or a server would
      // get round them by not asking for a task.
      const state = this.#state(ctx.serverId);
      this.#admit(state, ctx.serverId, method);
      this.#checkConcurrency(state, ctx.serverId);
      state.plain++;
      try {
        return await handler(params, ctx);
      } finally {
        state.plain--;
      }
    };
  }

  /**
   * Follows the tasks that hosted tasks belong to (the engine's `onDidChange`): when one ends, its
   * hosted tasks are cancelled and their dialogs close; so does a question of no task once every
   * direct call it may be about has failed or been cancelled. (One of them completed, its server
   * may still read the answer later, as a task lets it.) The engine's own signal for a request
   * about a task lasts only until the handler returns, which for a hosted task is at once, with
   * the `CreateTaskResult`.
   */
  followRelatedTasks(engine: Pick<TaskEngine, 'onDidChange' | 'keysOf'>): void {
    this.#related?.dispose();
    this.#related = engine.onDidChange((t) => {
      if (!isTerminal(t.status)) return;
      // A task's keys include those of the direct calls that became it: their questions are its.
      const keys = engine.keysOf(t.key);
      for (const state of this.#servers.values()) {
        for (const rec of [...state.tasks.values()]) {
          if (!keys.filter((k) => rec.related.delete(k)).length || isServerTerminal(rec.snap.status)) continue;
          if (t.kind === DIRECT && t.status === COMPLETED) rec.related.clear();
          else if (!rec.related.size) this.#stop(rec, `The ${t.kind === DIRECT ? 'call' : TASK} it belongs to ended (${t.status})`);
        }
      }
    });
  }

  /**
   * Serves `tasks/*` on a new session of `serverId` (register before it initializes). A session
   * replacing another drops the old one's tasks.
   */
  attachSession(serverId: string, session: McpSession): void {
    const state = this.#state(serverId);
    if (state.session === session) return;
    this.#detach(state, 'the client opened a new connection to the server');
    const store = (state.store = new DisposableStore());
    state.session = session;
    const serve = (method: string, fn: (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext) => unknown) =>
      store.add(
        session.onRequest(method, async (params, ctx) => {
          this.#admit(state, serverId, method);
          try {
            return await fn(params, ctx);
          } catch (err) {
            if (err instanceof RpcError) throw err;
            if (ctx.signal.aborted) throw err; // no answer goes out anyway
            const message = `${method} failed inside the client: ${errorMessage(err)}`;
            this.#serverLog(serverId).error(message);
            throw new RpcError(ErrorCode.InternalError, message);
          }
        }),
      );
    serve(TASKS_GET, (params) => toTask(this.#lookup(state, serverId, session, TASKS_GET, params).snap));
    serve(TASKS_RESULT, (params, ctx) => this.#serveResult(state, serverId, session, params, ctx.signal));
    serve(TASKS_LIST, (params) => this.#serveList(state, session, params));
    serve(TASKS_CANCEL, (params) => {
      const rec = this.#lookup(state, serverId, session, TASKS_CANCEL, params);
      if (isServerTerminal(rec.snap.status)) fail(`Cannot cancel task: already in terminal status '${rec.snap.status}'`);
      // T-RCV-6: stop the work, and be cancelled before the answer leaves.
      this.#stop(rec, `Cancelled at the request of the server (${TASKS_CANCEL})`, 'Cancelled by the server');
      this.#onDidServerCancel.fire(rec.snap);
      return toTask(rec.snap);
    });
    store.add(session.onClose((info) => state.session === session && this.#detach(state, `the connection closed (${info.reason})`)));
  }

  /** Cancels a hosted task for the user (the view's cancel action): the dialog or model request stops. */
  cancel(serverId: string, taskId: string): HostedTaskSnapshot {
    const rec = this.#servers.get(serverId)?.tasks.get(taskId);
    if (!rec) throw new Error(`No task ${taskId} is hosted for this server (it may have expired).`);
    if (isServerTerminal(rec.snap.status)) throw new Error(`The task already ended (${rec.snap.status}).`);
    this.#stop(rec, CANCELLED_BY_USER);
    return rec.snap;
  }

  dispose(): void {
    this.#related?.dispose();
    for (const state of this.#servers.values()) this.#detach(state, 'the client is shutting down');
    this.#servers.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#onDidChange.dispose();
    this.#onDidRemove.dispose();
    this.#onDidExpire.dispose();
    this.#onDidServerCancel.dispose();
  }

  // ── Creating and running ───────────────────────────────────────────────────────────────────

  #accept(method: HostedMethod, handler: ServerRequestHandler, params: Record<string, unknown>, ctx: ServerRequestContext): Record<string, unknown> {
    const { serverId } = ctx;
    const log = this.#serverLog(serverId);
    const state = this.#state(serverId);
    const session = state.session;
    if (!session || session.isClosed) {
      log.error(`Cannot host a task for ${method}: the task host has no connection to this server`);
      throw new RpcError(ErrorCode.InternalError, `The client cannot host a task for ${method}: no connection to this server is attached to its task host`);
    }
    this.#admit(state, serverId, method);
    const parsed = TaskParamSchema.safeParse(params.task);
    if (!parsed.success) fail(`Invalid task parameter of ${method}: ${describeIssues(parsed.error)}`);
    this.#checkConcurrency(state, serverId);
    const requested = parsed.data.ttl ?? undefined;
    // T-RCV-7: the ttl granted, within bounds, is the one reported.
    const ttl = floor(minOf(maxOf(requested ?? this.#defaultTtl, this.#minTtl), this.#maxTtl));
    const now = this.#now();
    const at = new Date(now).toISOString();
    let settle!: () => void;
    const done = new Promise<void>((resolve) => (settle = resolve));
    const rec: Rec = {
      snap: {
        serverId,
        taskId: randomUUID(), // T-RCV-3: 122 random bits from the OS's CSPRNG
        method,
        status: WORKING, // T-LIFE-1
        createdAt: at,
        lastUpdatedAt: at,
        ttl,
        pollInterval: this.#pollInterval,
        summary: summarize(method, params),
      },
      session,
      seq: ++state.seq,
      expiresAt: now + ttl,
      work: newController(),
      related: new Set(ctx.task ? [ctx.task.key] : ctx.calls),
      done,
      settle,
      waiters: 0,
      announced: false,
      held: false,
    };
    state.tasks.set(rec.snap.taskId, rec);
    // The answer is sent within this turn of the event loop (and a server that names the task
    // has it): the notifications may follow.
    setImmediate(() => this.#announce(rec));
    this.#armExpiry(rec.expiresAt);
    log.info(`${HOSTED_TASK}${rec.snap.taskId} created for ${method} (ttl ${ttl} ms${requested !== undefined && requested !== ttl ? `, ${requested} asked` : ''})${rec.snap.summary ? `: "${rec.snap.summary}"` : ''}`);
    this.#onDidChange.fire(rec.snap);
    const created = { task: toTask(rec.snap) }; // T-LIFE-1: working
    // A question about a tool task that ended already is cancelled at once, never shown, as one
    // whose tool task ends later is (followRelatedTasks); its status goes out after this answer.
    if (ctx.task && isTerminal(ctx.task.status)) this.#stop(rec, `The task it belongs to ended (${ctx.task.status})`);
    else this.#run(rec, handler, params, ctx);
    // The server cancelled its request before the answer left (its signal aborts only while it is
    // answered): it never learns the task id, so no one could read what the dialog asks.
    onAbort(ctx.signal, () => rec.work.signal.aborted || isServerTerminal(rec.snap.status) || this.#stop(rec, `The server withdrew its request (${errorMessage(ctx.signal.reason)})`));
    return created;
  }

  /** Runs the handler in the background, with its own signal (the request was answered already). */
  #run(rec: Rec, handler: ServerRequestHandler, params: Record<string, unknown>, ctx: ServerRequestContext): void {
    const { task: _task, ...rest } = params;
    // Its dialog open, the server may wait for it to answer a call: the engine holds what it may be
    // about as it does while a handler runs (see `ownHold`; nothing, for a request about a task).
    const release = ctx.hold?.(ownHold(rec.snap.method)) ?? noop;
    // For the view only: what the server is told does not change (see asSeen).
    const show = (changes: Partial<HostedTaskSnapshot>) => isServerTerminal(rec.snap.status) || this.#onDidChange.fire((rec.snap = { ...rec.snap, ...changes }));
    // The handler's own hold with no `as` is a dialog waiting for the user (see ServerRequestContext.hold).
    const hold = (as?: HoldAs) => {
      const unhold = ctx.hold?.(as) ?? noop;
      if (as) return unhold;
      show({ asks: true });
      return () => (unhold(), show({ asks: false }));
    };
    void (async () => {
      let outcome: Outcome;
      try {
        outcome = { result: await handler(rest, { ...ctx, signal: rec.work.signal, hostedTaskId: rec.snap.taskId, hold, usesModel: (model) => show({ model }), tells: (note) => show({ note }) }) };
      } catch (err) {
        outcome = { error: err instanceof RpcError ? new RpcError(err.code, err.message, err.data) : new RpcError(ErrorCode.InternalError, errorMessage(err)) };
      }
      release();
      const state = this.#servers.get(rec.snap.serverId);
      if (state?.tasks.get(rec.snap.taskId) !== rec) return; // deleted meanwhile
      if (isServerTerminal(rec.snap.status)) {
        // T-LIFE-4: cancelled stays cancelled, whatever the work did after.
        this.#serverLog(rec.snap.serverId).debug(`${HOSTED_TASK}${rec.snap.taskId}: work ended after it was ${rec.snap.status}; outcome discarded`);
        return;
      }
      rec.outcome = outcome;
      // Its row: the handler's words for the user (see ServerRequestContext.tells), else the message without the code its server gets.
      if ('error' in outcome) this.#transition(rec, FAILED, `${outcome.error.message} (error ${outcome.error.code})`, outcome.error.message);
      else this.#transition(rec, COMPLETED);
    })();
  }

  /** Lets status notifications of a task go out, the one held back first (see `Rec.announced`). */
  #announce(rec: Rec): void {
    if (rec.announced) return;
    rec.announced = true;
    if (rec.held) this.#sendStatus(rec);
  }

  /** T-RCV-10: the whole task, and no related-task _meta (the id is in the params). */
  #sendStatus(rec: Rec): void {
    void rec.session.connection.notify(TASKS_STATUS, toTask(rec.snap));
  }

  /**
   * Moves the task to cancelled, then aborts the work: its status and its row's words are settled
   * first, so what the work tells as it stops (see `show`) cannot replace why it was stopped.
   */
  #stop(rec: Rec, why: string, note?: string): void {
    this.#transition(rec, CANCELLED, why, note);
    abortWith(rec.work, why);
  }

  /** Applies a status change through the transition table, tells the view (`note`, its row's words, unless its handler told its own) and the server. */
  #transition(rec: Rec, status: TaskStatus, statusMessage?: string, note?: string): void {
    const from = rec.snap.status;
    const log = this.#serverLog(rec.snap.serverId);
    if (!canTransition(from, status)) {
      log.warn(`${HOSTED_TASK}${rec.snap.taskId}: ignored illegal transition ${from} → ${status}`);
      return;
    }
    const { statusMessage: _old, ...rest } = rec.snap;
    rec.snap = { ...(note && { note }), ...rest, status, ...(statusMessage !== undefined && { statusMessage }), lastUpdatedAt: new Date(this.#now()).toISOString() };
    log.info(`${HOSTED_TASK}${rec.snap.taskId} (${rec.snap.method}): ${from} → ${status}${statusMessage ? ` (${statusMessage})` : ''}`);
    this.#onDidChange.fire(rec.snap);
    if (rec.announced) this.#sendStatus(rec);
    else rec.held = true;
    if (isServerTerminal(status)) {
      rec.settle();
      this.#evict(this.#state(rec.snap.serverId), rec);
    }
  }

  // ── Serving tasks/* ────────────────────────────────────────────────────────────────────────

  /** T-RCV-5, T-RCV-8: a task of this connection, else -32602 as if it never existed. */
  #lookup(state: ServerState, serverId: string, session: McpSession, method: string, params: Record<string, unknown> | undefined): Rec {
    const p = TaskIdParamsSchema.safeParse(params);
    if (!p.success) fail(`Invalid params of ${method}: ${describeIssues(p.error)}`);
    const rec = state.tasks.get(p.data.taskId);
    if (rec && rec.session === session) {
      this.#announce(rec);
      return rec;
    }
    const why = state.gone.get(p.data.taskId) ?? 'Task not found';
    // Monitoring for guessing (spec: audit); bounded by the rate limit.
    this.#serverLog(serverId).debug(`${method} for unknown task ${truncate(stringify(p.data.taskId), 80)}: ${why}`);
    return fail(`Failed to ${VERB[method]}: ${why}`);
  }

  /** T-RCV-4: blocks until terminal, then exactly the underlying result or error. */
  async #serveResult(state: ServerState, serverId: string, session: McpSession, params: Record<string, unknown> | undefined, signal: AbortSignal): Promise<Record<string, unknown>> {
    const rec = this.#lookup(state, serverId, session, TASKS_RESULT, params);
    const { taskId } = rec.snap;
    if (!isServerTerminal(rec.snap.status)) {
      rec.waiters++;
      try {
        await raceAbort(rec.done, signal);
      } finally {
        rec.waiters--;
      }
    }
    if (state.tasks.get(taskId) !== rec) return fail(`Failed to retrieve task result: ${state.gone.get(taskId) ?? 'Task not found'}`);
    rec.snap = { ...rec.snap, resultRetrievedAt: new Date(this.#now()).toISOString() };
    this.#onDidChange.fire(rec.snap);
    const o = rec.outcome;
    this.#serverLog(serverId).info(`${HOSTED_TASK}${taskId}: result retrieved by the server (${o === undefined ? 'cancelled, no result' : 'error' in o ? `error ${o.error.code}` : 'result'})`);
    if (o === undefined) {
      throw new RpcError(ErrorCode.InternalError, `Task ${taskId} was cancelled (${rec.snap.statusMessage ?? 'no reason given'}); it has no result`);
    }
    if ('error' in o) throw new RpcError(o.error.code, o.error.message, o.error.data);
    const meta = isObject(o.result._meta) ? o.result._meta : {};
    return { ...o.result, _meta: { ...meta, [RELATED_TASK_META]: { taskId } } };
  }

  /** T-RCV-4: pages in creation order; a cursor is an opaque token for the last task seen. */
  #serveList(state: ServerState, session: McpSession, params: Record<string, unknown> | undefined): Record<string, unknown> {
    const p = ListParamsSchema.safeParse(params);
    if (!p.success) fail(`Invalid params of ${TASKS_LIST}: ${describeIssues(p.error)}`);
    const cursor = p.data?.cursor;
    let after = 0;
    if (cursor !== undefined) {
      const [key, seq] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
      after = key === state.cursorKey && /^[0-9]{1,15}$/.test(seq ?? '') ? Number(seq) : NaN;
      if (!(after <= state.seq)) {
        return fail(`Invalid cursor for ${TASKS_LIST}: ${truncate(stringify(cursor), 80)} was not issued by this client`);
      }
    }
    const page: Rec[] = [];
    let more = false;
    // The map keeps insertion order, which is seq order.
    for (const r of state.tasks.values()) {
      if (r.session !== session || r.seq <= after) continue;
      if (page.length === this.#pageSize) {
        more = true;
        break;
      }
      page.push(r);
    }
    const result: Record<string, unknown> = { tasks: page.map((r) => toTask(r.snap)) };
    if (more) result.nextCursor = Buffer.from(`${state.cursorKey}.${page[page.length - 1].seq}`).toString('base64url');
    return result;
  }

  // ── Limits and cleanup ─────────────────────────────────────────────────────────────────────

  /** T-RCV-9: the server's rate limit on task operations. */
  #admit(state: ServerState, serverId: string, method: string): void {
    if (state.bucket.take()) return;
    throw this.#refuse(state, serverId, `Rate limit exceeded: more than ${this.#rate} task operations per second (burst ${this.#burst}) from this server; ${method} refused, try again later`);
  }

  /** T-RCV-9: the server's limit on requests running at once, tasks and plain requests together. */
  #checkConcurrency(state: ServerState, serverId: string): void {
    let live = state.plain;
    for (const r of state.tasks.values()) if (!isServerTerminal(r.snap.status)) live++;
    if (live < this.#maxConcurrent) return;
    throw this.#refuse(state, serverId, `Too many concurrent tasks: this server already has ${live} tasks and requests running on the client (limit ${this.#maxConcurrent}); try again when one ends`);
  }

  /** A refusal, logged at most every few seconds with a count, so a flood does not flood the log. */
  #refuse(state: ServerState, serverId: string, message: string): RpcError {
    const now = this.#now();
    state.refused++;
    if (now - state.warnedAt >= WARN_EVERY_MS) {
      this.#serverLog(serverId).warn(`${message}${state.refused > 1 ? ` (${state.refused} refusals since the last warning)` : ''}`);
      state.refused = 0;
      state.warnedAt = now;
    }
    return new RpcError(ErrorCode.InternalError, message);
  }

  /**
   * Keeps at most `maxRetained` ended tasks per server, deleting those that ended first; never
   * the one that just ended nor one a `tasks/result` waits for (T-RCV-4: the answer reaches it),
   * so a question the user answered last is not deleted as the oldest.
   */
  #evict(state: ServerState, justEnded: Rec): void {
    state.ended.add(justEnded);
    for (const r of state.ended) {
      if (state.ended.size <= this.#maxRetained) break;
      if (r !== justEnded && r.waiters === 0) this.#delete(state, r, `Task was deleted: the client keeps at most ${this.#maxRetained} ended tasks per server`);
    }
  }

  /** One timer for all tasks, armed for the earliest expiry. */
  #armExpiry(at: number): void {
    if (this.#timer && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => this.#sweep(), minOf(maxOf(0, at - this.#now()), MAX_TIMER_MS));
    this.#timer.unref?.(); // never keeps the process alive
  }

  /** T-RCV-7/9: deletes every task whose ttl ended (live work is aborted), re-arms for the next. */
  #sweep(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#now();
    let next = Infinity;
    for (const state of this.#servers.values()) {
      for (const rec of [...state.tasks.values()]) {
        if (rec.expiresAt > now) {
          next = minOf(next, rec.expiresAt);
          continue;
        }
        if (!isServerTerminal(rec.snap.status)) {
          this.#stop(rec, `Its ttl of ${rec.snap.ttl} ms ended before it finished`);
          this.#onDidExpire.fire(rec.snap);
        }
        this.#delete(state, rec, 'Task has expired');
      }
    }
    if (next < Infinity) this.#armExpiry(next);
  }

  #delete(state: ServerState, rec: Rec, why: string): void {
    const { taskId } = rec.snap;
    if (state.tasks.get(taskId) !== rec) return;
    state.tasks.delete(taskId);
    state.ended.delete(rec);
    state.gone.set(taskId, why);
    if (state.gone.size > MAX_TOMBSTONES) state.gone.delete(state.gone.keys().next().value!);
    rec.settle();
    this.#serverLog(rec.snap.serverId).info(`${HOSTED_TASK}${taskId} deleted (was ${rec.snap.status}): ${why}`);
    this.#onDidRemove.fire(taskId);
  }

  /** The connection is gone or replaced: abort its live work and delete its tasks. */
  #detach(state: ServerState, why: string): void {
    state.store?.dispose();
    state.store = undefined;
    state.session = undefined;
    for (const rec of [...state.tasks.values()]) {
      abortWith(rec.work, why);
      state.tasks.delete(rec.snap.taskId);
      rec.settle();
      this.#serverLog(rec.snap.serverId).info(`${HOSTED_TASK}${rec.snap.taskId} dropped (was ${rec.snap.status}): ${why}`);
      this.#onDidRemove.fire(rec.snap.taskId);
    }
    state.ended.clear();
    state.gone.clear();
  }

  #state(serverId: string): ServerState {
    let s = this.#servers.get(serverId);
    if (!s) {
      const bucket = new TokenBucket(this.#rate, this.#burst, this.#now);
      s = { tasks: new Map(), ended: new Set(), seq: 0, cursorKey: randomUUID().slice(0, 8), bucket, gone: new Map(), refused: 0, warnedAt: -Infinity, plain: 0 };
      this.#servers.set(serverId, s);
    }
    return s;
  }

  /** The log, each line headed with the server's name (`[name] `). */
  #serverLog(serverId: string): Logger {
    return prefixed(this.#log, () => this.#options.label?.(serverId) ?? serverId);
  }
}

/** The protocol's Task (T-LIFE-5: dates, ttl and pollInterval always there). */
const toTask = (s: HostedTaskSnapshot): Task => {
  const t: Task = { taskId: s.taskId, status: s.status, createdAt: s.createdAt, lastUpdatedAt: s.lastUpdatedAt, ttl: s.ttl, pollInterval: s.pollInterval };
  if (s.statusMessage !== undefined) t.statusMessage = s.statusMessage;
  return t;
};

/** -32602: T-RCV-5's answer for a task id or cursor not valid here, and for params that do not parse. */
// eslint-disable-next-line no-restricted-syntax -- never returns: TypeScript narrows after a call to a declaration
function fail(message: string): never {
  throw new RpcError(ErrorCode.InvalidParams, message);
}

/**
 * What a server's connection carries, which a change of its configuration waits for (see
 * ServerManagerOptions.liveTasks): the engine's live work, and its hosted tasks still open (a
 * question or sampling request), which end with the connection, counted as tasks waiting for input.
 */
export const serverWork = (engine: TaskEngine, host: TaskHost, serverId: string): LiveWork => {
  const w = engine.liveCount(serverId);
  for (const t of host.list()) {
    if (t.serverId === serverId && !isServerTerminal(t.status)) {
      w.tasks++;
      w.asking!++;
    }
  }
  return w;
};
