// The requests a server sends the client (elicitation/create, sampling/createMessage): which
// tracked task or direct calls each is about, how those calls are held while it is open, and when
// it is withdrawn because everything it is about has ended.
import type { IncomingRequestContext } from '../jsonrpc/connection';
import { ELICITATION_CREATE, INPUT_REQUIRED, RELATED_TASK_META, SAMPLING_CREATE, WORKING } from '../protocol/schemas';
import type { McpSession } from '../protocol/session';
import { RpcError } from '../jsonrpc/errors';
import { anySignal, newController } from '../util/abort';
import type { DisposableStore, Event } from '../util/event';
import { isObjectLike, isString } from '../util/json';
import { noop } from '../util/promise';
import { SAMPLING_ASKS, shortTitle, summarize } from './presentation';
import { isTerminal } from './status';
import type { TaskSnapshot } from './types';
import { TaskEndedError, taskKey } from './types';

/** How a request's calls are held (see `ServerRequestContext.hold`). */
export type HoldAs = 'model' | 'quiet';

/** What a handler of a server's request (elicitation, sampling) learns about it. */
export interface ServerRequestContext {
  serverId: string;
  /** The tracked task the request belongs to (related-task `_meta`), if any. */
  task?: TaskSnapshot;
  /** The related task id the server named, even when the task is not tracked here. */
  relatedTaskId?: string;
  /** The id of the task this request runs as here, when the server asked for one (see TaskHost). */
  hostedTaskId?: string;
  /** Of a request run as a task here: names the language model chosen to answer it, for its row. */
  usesModel?: (name: string) => void;
  /** Of a request run as a task here: what its row tells the user of its end, where the error its server gets is written for the server. */
  tells?: (note: string) => void;
  /**
   * The keys of what the request may be about: its task, or, of no task, the direct call whose
   * answer stream brought it (Streamable HTTP), else every direct call of its server running when
   * it came (other transports, and the server's own stream, cannot say which one).
   */
  calls?: string[];
  /**
   * Holds its connection (of a question tied to one call, that call's request) while its dialog is
   * open, those direct calls waiting for the user (see `hold`); `model`: while a language model
   * answers it, those calls working, their rows saying so; `quiet`: the connection only. One about
   * a task holds no clock.
   */
  hold?: (as?: HoldAs) => () => void;
  /** Whether the user's cancel of its task (tasks/cancel) is sent and not answered yet. */
  cancelling?: () => unknown;
  signal: AbortSignal;
}

export type ServerRequestHandler = (params: Record<string, unknown> | undefined, ctx: ServerRequestContext) => Promise<Record<string, unknown>>;

/**
 * Whether a request's handler, its signal aborted, stopped as its server withdrew it
 * (notifications/cancelled): not as its connection closed or its task or call ended (RpcErrors),
 * nor run as a task here (its host says who ended it), nor while the user's cancel of its task is
 * on its way (its server may withdraw it before answering tasks/cancel). `told` hears of it, with the request's
 * summary cut as a row's title and `server`, its server's label.
 */
export const serverWithdrew = (method: string, params: Record<string, unknown>, ctx: ServerRequestContext, server: string, told?: (title: string, server: string) => void): boolean => {
  const withdrawn = !(ctx.signal.reason instanceof RpcError || ctx.hostedTaskId || ctx.cancelling?.());
  if (withdrawn) told?.(shortTitle(summarize(method, params)), server);
  return withdrawn;
};

/** Handlers of the requests servers send to the client while their tasks run. */
export interface ClientRequestHandlers {
  elicitation?: { handle: ServerRequestHandler; url?: boolean };
  sampling?: { handle: ServerRequestHandler };
}

/**
 * How a request's calls are held while its handler runs (and, run as a task here, while that task
 * does: see TaskHost): a question's wait for the user; a sampling request's quietly, the
 * connection only, as its handler holds them itself for its consent prompt or its model.
 */
export const ownHold = (method: string): HoldAs | undefined => (method === SAMPLING_CREATE ? 'quiet' : undefined);

/** A tracked task or direct call, as far as the requests it may wait on touch it (the engine's record). */
export interface Tracked {
  snap: TaskSnapshot;
  /** Aborts a direct call; undefined for a task. */
  direct: AbortController | undefined;
  /** Dialogs open that a direct call may wait on: it is `input_required` while any is, its note saying what the latest asks. */
  asks: number;
  /** Language models answering requests it may be about, no dialog open: its note says so while any is. */
  models: number;
}

/** What routing a server's requests needs of the engine. */
export interface Tracker<R extends Tracked> {
  /** A tracked task or direct call by key; the key of a call that became a task gives the task. */
  rec(key: string): R | undefined;
  /** The direct calls of a server in flight (not aborted). */
  liveCalls(serverId: string): R[];
  /** Changes a record's snapshot and tells `onDidChange`. */
  update(rec: R, changes: Partial<TaskSnapshot>): void;
  readonly onDidChange: Event<TaskSnapshot>;
}

/** Where a request came from (its server, and the session it came on), and the engine it reaches. */
interface Origin<R extends Tracked> {
  tracker: Tracker<R>;
  serverId: string;
  session: McpSession;
}

/** The note of a direct call while a language model answers a request it may be about. */
const MODEL_ANSWERS = 'A language model is answering';

/** A question's message on one line, cut at 200 characters, as a hosted question's row has it (see summarize). */
const question = (p: Record<string, unknown>): string => {
  const s = summarize(ELICITATION_CREATE, p);
  return s && `The server asks: ${s}`;
};

const samplingAsks = (): string => SAMPLING_ASKS;

/** How requests of one method are served. */
interface Kind {
  handle: ServerRequestHandler;
  /** What a request asks, as the rows of the direct calls that wait on it say (the server's message leads a task's row). */
  asks: (params: Record<string, unknown>) => string;
  /** How its calls are held while the handler runs (see `ownHold`). */
  first: HoldAs | undefined;
}

/** Registers the handlers of a server's requests on its new session (see `TaskEngine.attachSession`). */
export const serveRequests = <R extends Tracked>(origin: Origin<R>, handlers: ClientRequestHandlers | undefined, store: DisposableStore): void => {
  const serve = (method: string, handle: ServerRequestHandler, asks: Kind['asks']) => store.add(origin.session.onRequest(method, route(origin, { handle, asks, first: ownHold(method) })));
  if (handlers?.elicitation) serve(ELICITATION_CREATE, handlers.elicitation.handle, question);
  if (handlers?.sampling) serve(SAMPLING_CREATE, handlers.sampling.handle, samplingAsks);
};

/** The task a request or answer names in its related-task `_meta`, if it names one. */
export const relatedTaskIdOf = (meta: unknown): string | undefined => {
  const id = (meta as Record<string, { taskId?: unknown } | undefined> | undefined)?.[RELATED_TASK_META]?.taskId;
  return isString(id) ? id : undefined;
};

/** The handler of one method on the connection: asks, and names the task the request named in the answer too. */
const route =
  <R extends Tracked>(origin: Origin<R>, kind: Kind) =>
  async (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext): Promise<Record<string, unknown>> => {
    const relatedTaskId = relatedTaskIdOf(ctx.meta);
    const result = await ask(origin, kind, params, ctx, relatedTaskId);
    if (relatedTaskId === undefined) return result;
    // Spec: "all requests, notifications, and responses related to a task MUST include" its related-task _meta.
    const meta = isObjectLike(result._meta) ? result._meta : {};
    return { ...result, _meta: { ...meta, [RELATED_TASK_META]: { taskId: relatedTaskId } } };
  };

/**
 * Runs the handler of a request about a tracked task or, of no task, about direct calls of its
 * server; one about a task not tracked here is only handed over. Those calls' requests do not
 * time out while it is open (see `hold`), and it is withdrawn once every call it may be about has
 * ended. `related`: the tag of the request whose answer stream brought it (a direct call's record).
 */
const ask = async <R extends Tracked>({ tracker, serverId, session }: Origin<R>, { handle, asks, first }: Kind, params: Record<string, unknown> | undefined, { signal, related }: IncomingRequestContext, relatedTaskId: string | undefined): Promise<Record<string, unknown>> => {
  const says = asks(params ?? {}) || undefined;
  const rec = relatedTaskId === undefined ? undefined : tracker.rec(taskKey(serverId, relatedTaskId));
  if (relatedTaskId !== undefined && !rec) return handle(params, { serverId, relatedTaskId, signal });
  // The snapshot as the request found it (the update below makes another).
  const task = rec?.snap;
  // A question again: the task waits for the user again.
  if (rec?.snap.unsent) tracker.update(rec, { unsent: undefined });
  // Of no task: the direct call whose answer stream brought it (Streamable HTTP), else every one of
  // its server in flight (other transports, and the server's own stream, cannot say which; see README).
  const live = tracker.liveCalls(serverId);
  const one = live.find((r) => r === related);
  const calls = rec ? [rec] : one ? [one] : live;
  // Aborts once all it is about has ended: a question about a task that ends (cancelled, failed...) is withdrawn, its dialog closing.
  const ended = newController();
  // Its holds not released yet: its own, and those of the task it runs as here (see TaskHost), which outlives this request.
  const holds = new Set<() => void>();
  let done = false;
  const end = (t: TaskSnapshot) => {
    const left = stillLive(tracker, calls, t);
    if (!left) return;
    // Once answered (with the task it runs as here), the request is over: TaskHost closes that task.
    if (!left.length && !done) ended.abort(new TaskEndedError(t.status));
    if (!task && !left.some((r) => r.direct)) holds.forEach((f) => f());
  };
  // One about a task that ended already (a server that works on once cancelled) is never shown.
  if (task) end(task);
  const sub = tracker.onDidChange(end);
  /** Stops following once the handler has returned and every hold is released. */
  const free = () => done && !holds.size && sub.dispose();
  // One about a task holds no clock: its task's tasks/result waits without one, and the polls and
  // other calls of the connection must still time out.
  const hold = (as?: HoldAs) => {
    const unhold = task ? noop : session.connection.hold(one);
    const n = as ? 0 : 1;
    const m = as === 'model' ? 1 : 0;
    // The rows it changes: none of a quiet hold (it counts nothing), nor of one about a task (the server's message leads its row).
    const rows = task || as === 'quiet' ? [] : calls;
    mark(tracker, rows, n, m, says);
    const release = () => void (holds.delete(release) && (unhold(), mark(tracker, rows, -n, -m, says), free()));
    holds.add(release);
    return release;
  };
  const release = task ? noop : hold(first);
  try {
    return await handle(params, { serverId, task, relatedTaskId, calls: calls.map((r) => r.snap.key), hold, cancelling: () => rec?.snap.cancelRequested, signal: anySignal([signal, ended.signal]) });
  } catch (err) {
    // An expected end, not the handler's failure: as an RpcError, it is answered without being logged as one.
    throw ended.signal.aborted ? ended.signal.reason : err;
  } finally {
    release();
    done = true;
    free();
  }
};

/**
 * After a change of `t`: the calls a request is about that have not ended, if `t` is one of them
 * (only a change of its own calls counts, not every task's), else undefined. A call the server
 * turned into a task (see `startDirect`) is that task now: the request is tied to it (its server
 * may still read the answer), and no call waits on the connection.
 */
const stillLive = <R extends Tracked>(tracker: Tracker<R>, calls: R[], t: TaskSnapshot): R[] | undefined => {
  const now = calls.map((r) => tracker.rec(r.snap.key) ?? r);
  return now.some((r) => r.snap.key === t.key) ? now.filter((r) => !isTerminal(r.snap.status)) : undefined;
};

/**
 * The direct calls of a request wait for the user while its dialog is open (here, or as a task it
 * runs as), `n` more, and work while a language model answers it, `m` more: their rows say so,
 * and what it asks (the latest one's, when several are open), and Respond to Task shows it.
 */
const mark = <R extends Tracked>(tracker: Tracker<R>, calls: R[], n: number, m: number, asks: string | undefined): void => {
  for (const r of calls) {
    if (isTerminal(r.snap.status)) continue;
    r.models += m;
    r.asks += n;
    tracker.update(r, r.asks > 0 ? { status: INPUT_REQUIRED, ...(n > 0 && { note: asks }) } : { status: WORKING, note: r.models ? MODEL_ANSWERS : undefined });
  }
};
