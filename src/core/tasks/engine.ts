import type { Progress, UndeliveredAnswer } from '../jsonrpc/connection';
import { InvalidResultError } from '../jsonrpc/connection';
import { ConnectionClosedError, ErrorCode, RequestTimeoutError, detailOf, isPeerError, reasonOf } from '../jsonrpc/errors';
import { describeIssues } from '../jsonrpc/messages';
import type { CreateTaskResult, Task, TaskStatus, Tool } from '../protocol/schemas';
import { CallToolResultSchema, CANCELLED, COMPLETED, CreateTaskResultSchema, declared, ELICITATION_CREATE, FAILED, INPUT_REQUIRED, ListTasksResultSchema, MODEL_IMMEDIATE_RESPONSE_META, RELATED_TASK_META, SAMPLING_CREATE, TASKS_CANCEL, TASKS_GET, TASKS_LIST, TASKS_RESULT, TASKS_STATUS, TaskSchema, TOOLS_CALL, WORKING } from '../protocol/schemas';
import type { McpSession } from '../protocol/session';
import { pageThrough } from '../protocol/paging';
import type { TransportCloseInfo } from '../transports/transport';
import { TransportHttpError } from '../transports/transport';
import { abortAfter, abortReason, abortWith, anySignal, errorMessage, newController, onAbort, raceAbort } from '../util/abort';
import { randomUUID, sha256 } from '../util/crypto';
import type { Disposable, Event } from '../util/event';
import { DisposableBase, DisposableStore, Emitter } from '../util/event';
import type { Logger } from '../util/log';
import { prefixed, sentence, truncate, warnRepeated } from '../util/log';
import type { ExecutionPreference } from './policy';
import { decideExecution, mayRetryAsTask, serverAcceptsToolTasks, taskSupportOf, WINDOW_CLOSED } from './policy';
import { PollScheduler } from './scheduler';
import type { LocalTaskStatus } from './status';
import { canTransition, EXPIRED, isServerTerminal, isTerminal, LOST, needsSession, resultToFetch, retired, serverForgetsAt } from './status';
import type { LiveWork, RemovedTask, TaskOrigin, TaskOutcome, TaskSnapshot } from './types';
import { CANCELLED_BY_USER, DELETED, DIRECT, SERVER_LIST, SHUTTING_DOWN, TASK, taskKey, UNREADABLE } from './types';
import { charsOf, isString } from '../util/json';
import { isFiniteNumber, keysOf, maxOf, minOf, parseDate, round } from '../util/builtins';
import { noop } from '../util/promise';
import { formatDuration } from './presentation';
import type { ClientRequestHandlers, Tracker } from './incoming';
import { relatedTaskIdOf, serveRequests } from './incoming';
import { serverNamed } from '../util/text';

/**
 * A background connection refused because of what the user did (a Disconnect, an input prompt
 * dismissed): it waits for the user, so it is neither a failure nor retried aloud.
 */
export class HeldByUserError extends Error {}

/** A tool the server does not have; each front end adds where the tools are listed. Its name is API (mcp-tasks.d.ts). */
export class UnknownToolError extends Error {
  override name = 'UnknownToolError';
}

/**
 * How `toolName` of server `label` is called (T-TOOL), given the tool as the server listed it and
 * whether it accepts task calls: `task`, `direct`, or the error that refuses the call.
 */
export const callMode = (label: string, toolName: string, tool: Tool | undefined, accepts: boolean, preference?: ExecutionPreference): Error | 'task' | 'direct' => {
  if (!tool) return new UnknownToolError(`${serverNamed(label)} has no tool named "${toolName}".`);
  const decision = decideExecution(accepts, taskSupportOf(tool), preference);
  return decision.mode === 'refuse' ? new Error(`Cannot call "${toolName}" on "${label}": ${decision.reason}.`) : decision.mode;
};

/** How the engine reaches servers; the server manager implements it. */
export interface SessionSource {
  /**
   * The live session, connecting first if needed. `background`: for following tasks, not for
   * something the user asked; an input the user dismissed is then not asked again, nor a server
   * the user disconnected connected again (both reject with a HeldByUserError). `signal`: the
   * caller stops waiting (the connection goes on).
   */
  getSession(serverId: string, options?: { background?: boolean; signal?: AbortSignal }): Promise<McpSession>;
  /** The name users know the server by, for the log. */
  label(serverId: string): string;
  /**
   * False for stdio: a new process does not know the tasks of the one that died. Undefined while
   * the server is not known (its configuration has not loaded yet).
   */
  tasksOutliveConnection(serverId: string): boolean | undefined;
  /** Where a remote server is reached (its url), to tell a task lost there from one lost at the endpoint it outlived. */
  endpoint?(serverId: string): string | undefined;
  /**
   * False once the configuration has loaded and does not name the server (it was removed);
   * undefined while it has not loaded (its tasks are polled once it has: see serversChanged).
   * Without it, a server is taken as configured.
   */
  isConfigured?(serverId: string): boolean | undefined;
  /** A task-augmented call of the server was answered or failed: what waits for its live work (see liveCount) looks again. */
  liveTasksChanged?(serverId: string): void;
}

/** An answer to a server's question or sampling request that could not be sent (`onDidNotSend`). */
export interface UnsentAnswer {
  serverId: string;
  method: string;
  /** The task it was about, if tracked (marked `unsent` while it waits for input). */
  task?: TaskSnapshot;
  /** Why, in a sentence. */
  reason: string;
  /** Sends the kept answer again, while the connection that brought the request is open (see `UndeliveredAnswer`). */
  resend?: () => Promise<void>;
}

export type { ClientRequestHandlers, ServerRequestContext, ServerRequestHandler } from './incoming';

export interface TaskEngineOptions {
  logger: Logger;
  sessions: SessionSource;
  handlers?: ClientRequestHandlers;
  /** `task.ttl` sent with new tasks (ms); undefined lets the server choose. */
  defaultTtlMs?: () => number | undefined;
  /** Fetch the outcome as soon as a task completes or fails. */
  autoFetchResults?: () => boolean;
  /** Bounds for a server's `pollInterval`, and the interval when it sends none (ms). */
  minPollMs?: number;
  maxPollMs?: number;
  defaultPollMs?: number;
  /** Timeout of `tasks/get`, `tasks/cancel` and `tasks/list` requests (ms); a function is read at each request. */
  requestTimeoutMs?: number | (() => number);
  /** The most pages `tasks/list` follows. */
  maxListPages?: number;
  /** Reads an outcome kept from an earlier window (restored snapshots carry no outcome). */
  loadOutcome?: (key: string) => Promise<TaskOutcome | undefined>;
  /**
   * With `loadOutcome`: how many characters of outcomes stay in memory (default OUTCOME_MEMORY_CHARS);
   * beyond, the least recently used leave it, their files kept, and are read back when asked for.
   */
  outcomeMemoryChars?: number;
  now?: () => number;
  random?: () => number;
}

export interface CallToolOptions {
  arguments?: Record<string, unknown>;
  /** Overrides the default ttl for this task (ms). */
  ttlMs?: number;
  preference?: ExecutionPreference;
  origin?: TaskOrigin;
  signal?: AbortSignal;
}

/**
 * What the engine keeps beside a task's snapshot. A class, so every record has one shape and its
 * fields live inside the object: at 10,000 tasks every word here is 80 KB.
 */
class Rec {
  /** A `tasks/get` in flight. */
  polling = false;
  /** Left to its server's `tasks/list` cycle instead of a `tasks/get` of its own. */
  listed = false;
  /** The list cycle that last saw it. */
  seenIn = 0;
  /** A `tasks/result` in flight, shared by everyone who waits for the outcome. */
  resultCall: Promise<TaskOutcome | undefined> | undefined;
  /** Gives up that call (see `expectAnswer`). */
  resultAbort: AbortController | undefined;
  /** Aborts a direct call. */
  direct: AbortController | undefined;
  /** The snapshot's lastUpdatedAt is the local time, as the server's did not parse: answers are not judged stale against it. */
  localUpdatedAt = false;
  /** Restored from a closed window, and no server has answered about it since (see `processGone`). */
  restored = false;
  /** Its progress was heard by an earlier window: what the server sent since went unheard (see `applyReport`). */
  unheard = false;
  /** Dialogs open that a direct call may wait on (see `Tracked` in incoming.ts). */
  asks = 0;
  /** Language models answering requests it may be about (see `Tracked` in incoming.ts). */
  models = 0;

  declare snap: TaskSnapshot;
  declare progressToken: string | undefined;
  /** The hash of its whole status message when the snapshot's is clipped (see `saidOf`), else false; unknown for a task restored from an earlier session. */
  declare said?: string | false;

  constructor(snap: TaskSnapshot, progressToken: string | undefined) {
    this.snap = snap;
    this.progressToken = progressToken;
  }
}

/** How the engine follows the live tasks of one server. */
interface ServerFollow {
  /** Tasks and direct calls of this server that have not ended. */
  readonly live: Set<Rec>;
  /** Following its tasks through `tasks/list` cycles (see `listCycle`). */
  byList: boolean;
  /** A list cycle is running. */
  cycling: boolean;
  /** Cycles run so far (stamps `Rec.seenIn`). */
  cycle: number;
  /** Cycles that failed in a row. */
  failures: number;
  /** Try following by list once this many tasks are live. */
  probeAt: number;
  /** Or once this time has come: after a cycle that did not win, what failed may have passed. */
  probeAfter: number;
}

/** A server that could not be reached: its polls wait `delay` ms, doubling up to a minute. */
interface Backoff {
  delay: number;
  /** Until then, a failure is of the round that set the delay: it does not grow it again. */
  until: number;
  /** The reason last warned about: the same one again (a server the user disconnected) goes to debug. */
  said?: string;
  /** Since when, and why, the server cannot be reached (a server the user disconnected is not said to be). */
  down?: Unreachable;
}

/** Why polls cannot reach a server (a closed port, a proxy's 5xx, no session), since when (ms). */
export interface Unreachable {
  since: number;
  why: string;
}

const MAX_BACKOFF_MS = 60_000;
/** The longest wait between polls of a task, whatever its server suggests: a nonsense pollInterval (1e12) still sees the task end. */
const MAX_POLL_MS = 60 * 60_000;
/** How often a task whose server suggests more than MAX_POLL_MS is checked. */
const NONSENSE_POLL_MS = 60_000;
/** A task is checked once more this long (or a tenth of its ttl, if less) before its ttl ends, when its next poll would come too late. */
const LAST_CALL_MS = 5_000;
/** A result that could not be fetched (server unreachable, connection lost) is tried again after 5 s, doubling up to this. */
const MAX_REFETCH_MS = 5 * 60_000;
/** Failed tries of an ended task's result after which its server's connection is no longer kept for it (see `unfetched`). */
const HELD_TRIES = 3;
/** After a list cycle that did not win, listing is tried again this much later, whatever the count. */
const LIST_RETRY_MS = 5 * 60_000;
/** Characters of outcomes held in memory where they are stored (one result as large as a message may be). */
const OUTCOME_MEMORY_CHARS = 16 * 1024 * 1024;
/** Why a task of a server whose tasks die with its process is lost when a new process (or none) is there. */
const PROCESS_GONE = "the server's process that ran it is gone; a new process does not know its tasks";
/** Why a live task of a server that left the configuration is lost. */
const REMOVED = 'its server is no longer in the configuration';
/**
 * How long a server may be missing from the configuration before its live tasks are lost: an
 * mcp.json being edited, or a workspace folder that opens late, brings it back (same id) unharmed.
 */
const REMOVED_GRACE_MS = 5 * 60_000;
/** The note of an ended task whose id its server gave to a newer one (see `retire`). */
const RETIRED = 'The server has given its id to a newer task: its result can no longer be fetched.';
/** Where a task's reported state came from (named in the log). */
type Source = 'poll' | 'notification' | 'held notification' | 'cancel' | 'create' | 'list';
/** Status notifications held per server for tasks not tracked yet (see `early`); the oldest go first. */
const MAX_HELD_NOTIFICATIONS = 100;
/**
 * A server's status, progress or immediate message (or an error message in a note) as a task keeps it: at most 10,000 characters (a message
 * may have 16 million). Forty of 15 MB made an index longer than a string can be: no save of it
 * succeeded, and the tasks were lost at the next start.
 */
const clip = <T extends string | undefined>(s: T): T => (s && truncate(s, 10_000)) as T;
/** The hash of a status message `clip` shortens, else false: two clipped alike differ if the whole ones do (see Rec's `said`). */
const saidOf = (s?: string): string | false => clip(s) !== s && sha256(s!);
/** How the note of an ended task whose result could not be fetched begins (the row says it; see `notFetched`). */
const NOT_FETCHED = 'Result not fetched yet: ';
/** How the note of a live task whose tasks/get answers are invalid begins (see `poll`). */
const INVALID = "The server's answers are invalid (";
/** Why a call failed, as its row and notification say it: the first line of its `isError` result's text, cut. */
const errorLine = (o: TaskOutcome | undefined): string | undefined => {
  const text = o?.kind === 'result' && o.result.isError === true ? o.result.content.find((c) => c.type === 'text')?.text : undefined;
  return isString(text) ? truncate(text.trim().split(/\r?\n/)[0], 200) || undefined : undefined;
};

/** The note of a task shown failed because it completed with an `isError` result (T-REQ-10). */
const ERROR_RESULT = 'The server reported the task completed, but its result is an error (isError).';

/**
 * Runs tools as tasks and follows every task to its end, as the 2025-11-25 spec says: polling
 * `tasks/get` at each task's `pollInterval` from one scheduler (or, for many tasks on a server that
 * lists them, one `tasks/list` cycle per interval: see `listCycle`), applying status notifications,
 * checking every transition, answering `input_required` through `tasks/result`, fetching
 * outcomes, cancelling, listing, and telling expired and lost tasks apart. Every task is a plain
 * snapshot; changes come as events.
 */
export class TaskEngine extends DisposableBase {
  readonly #recs = new Map<string, Rec>();
  /** The key of a plain call the server required as a task → the task's key, for whoever holds the first (see `startDirect`). */
  readonly #moved = new Map<string, string>();
  readonly #scheduler: PollScheduler;
  /** One entry per server followed by `tasks/list` cycles, keyed by server id. */
  readonly #cycles: PollScheduler;
  /** Tasks whose `tasks/result` call failed (ended, or waiting for input): the next try of each, and its delay. */
  readonly #refetch: PollScheduler;
  readonly #refetchDelay = new Map<string, number>();
  /** Cancels on their way, by key (see `cancel`). */
  readonly #cancelling = new Map<string, { sent: Promise<TaskSnapshot>; stop: AbortController; waiting: number }>();
  readonly #servers = new Map<string, ServerFollow>();
  readonly #backoff = new Map<string, Backoff>();
  /** Live tasks whose tasks/get answers are invalid, by key: how many in a row (see `poll`). */
  readonly #invalid = new Map<string, number>();
  /** Live tasks that outlived a closed connection, until their server next reports them (see `applyServerTask`), and the endpoint it was to. */
  readonly #outlived = new Map<Rec, string | undefined>();
  /**
   * Ended tasks whose result is to be fetched, and the tries that failed: their server's
   * connection (a stdio server's process, which knows the result) counts them as live, so a new
   * configuration or a removal waits until the result is kept, or HELD_TRIES tries failed.
   */
  readonly #unfetched = new Map<Rec, number>();
  /** Outcomes in memory, least recently kept first, with their sizes in characters (see outcomeMemoryChars). */
  readonly #held = new Map<Rec, number>();
  #heldChars = 0;
  /** The close errors already told: every poll a close fails shares one (see `poll`). */
  readonly #toldClosed = new WeakSet<Error>();
  /** Servers found missing from the configuration → when first found so (see `unconfigured`). */
  readonly #missing = new Map<string, number>();
  /** Servers of tasks restored before the configuration loaded: polled once it has (see `unconfigured`). */
  readonly #unloaded = new Set<string>();
  readonly #attached = new Map<string, { session: McpSession; store: DisposableStore }>();
  /**
   * Per server, while task-augmented calls of it await their CreateTaskResult: how many, and the
   * status notifications that came meanwhile about tasks not tracked yet, newest per task. Over
   * Streamable HTTP a notification may come on another stream before the answer that creates its
   * task (and one read after the answer is handled before the call resumes): dropped, the task
   * would show `working` until its first poll, which a server's pollInterval may put an hour
   * away, and a question it waits for would not be asked (T-REQ-3) until then.
   */
  readonly #early = new Map<string, { creating: number; held: Map<string, Task> }>();
  /** Tasks the user took out of the list, by key (this window's, and those of earlier windows the store kept): tasks/list does not bring them back. */
  readonly #removed = new Map<string, RemovedTask>();
  readonly #onDidChange = this._register(new Emitter<TaskSnapshot>());
  readonly #onDidRemove = this._register(new Emitter<string>());
  readonly #onDidNotSend = this._register(new Emitter<UnsentAnswer>());
  readonly #onDidChangeReach = this._register(new Emitter<string>());
  readonly #lifetime = newController();
  readonly #log: Logger;
  readonly #sessions: SessionSource;
  readonly #now: () => number;
  readonly #random: () => number;
  readonly #minPoll: number;
  readonly #maxPoll: number;
  readonly #defaultPoll: number;

  /** A task was added or changed (its new snapshot), or found alive after its connection closed (the same one). */
  readonly onDidChange: Event<TaskSnapshot> = this.#onDidChange.event;
  /** A task was removed from tracking (its key). */
  readonly onDidRemove: Event<string> = this.#onDidRemove.event;
  /** The answer to a server's question or sampling request could not be sent (see `UnsentAnswer`). */
  readonly onDidNotSend: Event<UnsentAnswer> = this.#onDidNotSend.event;
  /** A server became unreachable, for another reason, or was reached again (its id): see `unreachable`. */
  readonly onDidChangeReach: Event<string> = this.#onDidChangeReach.event;
  readonly #options: TaskEngineOptions;
  /** What the handlers of servers' requests reach of the engine (see incoming.ts). */
  readonly #tracker: Tracker<Rec> = {
    rec: (key) => this.#rec(key),
    liveCalls: (serverId) => [...this.#recs.values()].filter((r) => r.snap.serverId === serverId && r.direct?.signal.aborted === false),
    update: (rec, changes) => this.#update(rec, changes),
    onDidChange: this.onDidChange,
  };

  constructor(options: TaskEngineOptions) {
    super();
    this.#options = options;
    this.#log = options.logger;
    this.#sessions = options.sessions;
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#minPoll = options.minPollMs ?? 250;
    this.#maxPoll = options.maxPollMs ?? MAX_POLL_MS;
    this.#defaultPoll = options.defaultPollMs ?? 2_000;
    this.#scheduler = new PollScheduler((key) => void this.poll(key), this.#now);
    this.#cycles = new PollScheduler((serverId) => void this.#listCycle(serverId), this.#now);
    this.#refetch = new PollScheduler((key) => {
      const rec = this.#recs.get(key);
      if (rec && this.#needsResultCall(rec)) void this.#resultCall(rec);
      else this.#refetchDelay.delete(key);
    }, this.#now);
    // What only tests read is left out of the bundle (esbuild.js's dropLabels).
    // eslint-disable-next-line no-unused-labels
    TESTS: Object.defineProperty(this, 'followedCount', {
      get: () => [...this.#servers.values()].flatMap((f) => [...f.live]).filter((rec) => rec.listed || rec.polling || this.#scheduler.has(rec.snap.key)).length,
    });
  }

  // ── Queries ────────────────────────────────────────────────────────────────────────────────

  /**
   * A task by key; the key of a plain call that became a task gives the task. With `createdAt`,
   * the task created then: where its server gave the id to a newer task since, the earlier one,
   * kept under another key (see `retire`).
   */
  get(key: string, createdAt?: string): TaskSnapshot | undefined {
    const t = this.#rec(key)?.snap;
    if (!t || createdAt === undefined || t.key !== key || t.createdAt === createdAt) return t;
    for (const r of this.#recs.values()) if (r.snap.serverId === t.serverId && r.snap.taskId === t.taskId && r.snap.createdAt === createdAt) return r.snap;
    return undefined;
  }

  /** `key`, then the keys of the direct calls that became this task (their server answered them with it): a question of such a call is this task's now. */
  keysOf(key: string): string[] {
    return [key, ...[...this.#moved].flatMap(([from, to]) => (to === key ? [from] : []))];
  }

  #rec(key: string): Rec | undefined {
    const moved = this.#moved.get(key);
    return this.#recs.get(key) ?? (moved === undefined ? undefined : this.#recs.get(moved));
  }

  /** `#rec`, for what the user asked of a task: one no longer tracked is an error. */
  #tracked(key: string): Rec {
    const rec = this.#rec(key);
    if (!rec) throw new Error('This task is no longer tracked.');
    return rec;
  }

  list(): TaskSnapshot[] {
    return [...this.#recs.values()].map((r) => r.snap);
  }

  /** A server's task-augmented `tools/call` requests still waiting for their CreateTaskResult: a disconnect loses their tasks. */
  pendingCalls(serverId: string): number {
    return this.#early.get(serverId)?.creating ?? 0;
  }

  /** Tasks being followed now, by their own polls or their server's list: for tests alone (see the constructor). */
  declare readonly followedCount: number;

  /**
   * How many live tasks and direct calls a server has, and ended tasks whose result is still to be
   * fetched (its connection is kept for them too). A task-augmented call still waiting for its
   * CreateTaskResult is a call: the task the server makes is lost with the connection.
   */
  liveCount(serverId: string): LiveWork {
    const live = [...(this.#servers.get(serverId)?.live ?? [])];
    const calls = live.filter((r) => r.snap.kind === DIRECT).length;
    let results = 0;
    for (const r of this.#unfetched.keys()) if (r.snap.serverId === serverId && this.#wantsOutcome(r)) results++;
    return { tasks: live.length - calls, calls: calls + this.pendingCalls(serverId), results, asking: live.filter((r) => r.snap.status === INPUT_REQUIRED).length };
  }

  /**
   * Whether a server's session must outlive this window (kept at shutdown, not ended): a task of
   * it is live, or ended with its result still to fetch, which the next window fetches there
   * (by itself, or when the user asks with autoFetchResults off). See needsSession.
   */
  holdsSession(serverId: string): boolean {
    return this.list().some((t) => t.serverId === serverId && needsSession(t, this.#now()));
  }

  /** Whether the live tasks of a server are followed through `tasks/list` (diagnostics, tests). */
  followsByList(serverId: string): boolean {
    return this.#servers.get(serverId)?.byList ?? false;
  }

  /** The capabilities the client declares for what its handlers implement. */
  clientCapabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = {};
    const h = this.#options.handlers;
    if (h?.elicitation) caps.elicitation = h.elicitation.url ? { form: {}, url: {} } : { form: {} };
    if (h?.sampling) caps.sampling = {};
    return caps;
  }

  // ── Sessions ───────────────────────────────────────────────────────────────────────────────

  /**
   * Registers the engine's handlers on a new session of `serverId` (before it initializes, so
   * nothing the server sends early is missed), and re-attaches live tasks once it is up.
   */
  attachSession(serverId: string, session: McpSession): void {
    const previous = this.#attached.get(serverId);
    previous?.store.dispose();
    const store = new DisposableStore();
    this.#attached.set(serverId, { session, store });
    store.add(
      session.connection.onNotification(TASKS_STATUS, (params) => {
        const parsed = TaskSchema.safeParse(params);
        if (!parsed.success) {
          this.#serverLog(serverId).warn(`Ignored an invalid ${TASKS_STATUS}: ${describeIssues(parsed.error)}`);
          return;
        }
        const rec = this.#recs.get(taskKey(serverId, parsed.data.taskId));
        if (rec) this.#applyServerTask(rec, parsed.data, 'notification');
        else if (this.#holdEarly(serverId, parsed.data)) this.#serverLog(serverId).debug(`Status notification for task ${parsed.data.taskId}, not tracked yet: held until the pending tools/call answers`);
        else this.#serverLog(serverId).debug(`Status notification for a task not tracked here: ${parsed.data.taskId}`);
      }),
    );
    // Not in the store: an answer lost as the connection closes is reported after the close.
    if (previous?.session !== session) session.connection.onUndelivered((u) => this.#notSent(serverId, u));
    // Questions and sampling requests: what each is about, and how the calls it is about wait on it.
    serveRequests({ tracker: this.#tracker, serverId, session }, this.#options.handlers, store);
    store.add(session.onClose((info) => this.#sessionClosed(serverId, session, info)));
    // Results that could not be fetched before, and questions that could not be asked for: now that the server is back.
    for (const key of this.#refetchDelay.keys()) if (this.#recs.get(key)?.snap.serverId === serverId) this.#refetch.schedule(key, this.#now());
    const f = this.#servers.get(serverId);
    if (!f) return;
    // A new process of a server whose tasks die with it: every live task was the old process's
    // (restored before the server was known, or its close not seen yet).
    if (previous?.session !== session && this.#sessions.tasksOutliveConnection(serverId) === false) {
      for (const rec of [...f.live]) if (rec.snap.kind === TASK) this.#processGone(rec);
    }
    // A new session: its server may list differently; probing starts over.
    f.byList = false;
    f.failures = 0;
    f.probeAt = 2;
    f.probeAfter = Infinity;
    this.#cycles.cancel(serverId);
    for (const rec of f.live) {
      if (rec.snap.kind !== TASK) continue;
      this.#routeProgress(rec, session);
      // Re-attach by id as soon as the session is up.
      rec.listed = false;
      this.#scheduler.schedule(rec.snap.key, this.#now());
    }
  }

  /**
   * The configuration changed. A server that was missing from it and is back (same id) has its
   * live tasks polled now, not when their grace period ends, and its unfetched results fetched.
   */
  serversChanged(): void {
    // Not while a configuration error may hide it (undefined).
    const back = (serverId: string) => (this.#sessions.isConfigured?.(serverId) ?? !this.#sessions.isConfigured) !== false;
    const pollNow = (serverId: string) => {
      for (const rec of this.#servers.get(serverId)?.live ?? []) if (rec.snap.kind === TASK && !rec.polling) this.#scheduler.schedule(rec.snap.key, this.#now());
    };
    for (const serverId of [...this.#missing.keys()]) {
      if (!back(serverId)) continue;
      this.#missing.delete(serverId);
      this.#serverLog(serverId).info(`The server is configured again: its live tasks are followed again`);
      pollNow(serverId);
    }
    for (const serverId of this.#unloaded) pollNow(serverId);
    this.#unloaded.clear();
    // Results given up while their server was missing (see refetchLater).
    for (const key of this.#refetchDelay.keys()) {
      const rec = this.#recs.get(key);
      if (rec && !this.#refetch.has(key) && back(rec.snap.serverId)) this.#refetch.schedule(key, this.#now());
    }
  }

  /**
   * The answer to a server's question or sampling request (not one run as a task here: that
   * answer is the task's creation, and its result is fetched later) could not be sent. Told;
   * its task, still waiting at the server, is marked: nothing waits for the user here any more.
   */
  #notSent(serverId: string, u: UndeliveredAnswer): void {
    const { method, params, reason, resend } = u;
    if ((method !== ELICITATION_CREATE && method !== SAMPLING_CREATE) || params?.task !== undefined) return;
    const related = relatedTaskIdOf(params?._meta);
    const rec = related === undefined ? undefined : this.#recs.get(taskKey(serverId, related));
    if (rec?.snap.status === INPUT_REQUIRED) this.#update(rec, { unsent: reason });
    this.#onDidNotSend.fire({
      serverId,
      method,
      task: rec?.snap,
      reason,
      resend: resend && (async () => void ((await resend()) && rec?.snap.unsent && this.#update(rec, { unsent: undefined }))),
    });
  }

  #sessionClosed(serverId: string, session: McpSession, info: TransportCloseInfo): void {
    const a = this.#attached.get(serverId);
    if (a?.session !== session) return;
    a.store.dispose();
    this.#attached.delete(serverId);
    const outlive = this.#sessions.tasksOutliveConnection(serverId);
    const f = this.#servers.get(serverId);
    if (!f) return;
    // The connection forgot its progress routes; the next session's list cycle starts afresh.
    f.byList = false;
    this.#cycles.cancel(serverId);
    // Its server forgot the session (it restarted, say), so it answered: an outage is over, and its
    // tasks are looked for in a new session in 2 s (the manager waits 1 s after a session forgotten
    // at once), not when the outage's backoff ends (up to a minute), still "unreachable" meanwhile.
    const expired = session.expired;
    if (expired) {
      this.#reached(serverId);
      this.#backoff.set(serverId, { delay: 2000, until: 0 });
    }
    for (const rec of [...f.live]) {
      abortWith(rec.direct, `the connection closed: ${info.reason}`);
      if (rec.snap.kind !== TASK) continue;
      if (!outlive) {
        this.#gone(rec, `the server's process ended (${info.reason})`);
        continue;
      }
      this.#outlived.set(rec, this.#sessions.endpoint?.(serverId));
      if (rec.listed || expired) {
        // Polled by id again, which reconnects.
        rec.listed = false;
        this.#scheduleNext(rec);
      }
    }
  }

  /**
   * The user disconnected a server whose connection was the last to its tasks' endpoint (removed,
   * or `moved`: its new configuration waited for them; they were asked): its live tasks are lost
   * now, `why`, not after the grace period that waits for a server to come back, nor at the new
   * endpoint. Not told unchanged first, as a loss after a closed connection is (see `gone`): this
   * is the Disconnect's. (`markGone` takes each out of `live`, which a Set's iteration allows.)
   */
  drop(serverId: string, why: string, moved?: boolean): void {
    for (const rec of this.#servers.get(serverId)?.live ?? []) if (rec.snap.kind === TASK) this.#markGone(rec, `${moved ? "its server's configuration changed" : REMOVED} and it was ${why}`);
  }

  // ── Running tools ──────────────────────────────────────────────────────────────────────────

  /**
   * Calls a tool: as a task where the server and the tool allow it (T-TOOL), else as a plain
   * call that is still tracked. Resolves with the first snapshot as soon as the server answers
   * (a task) or the call is sent (a direct call, whose outcome arrives as a change).
   */
  async callTool(serverId: string, toolName: string, options: CallToolOptions = {}): Promise<TaskSnapshot> {
    const session = await this.#sessions.getSession(serverId, { signal: options.signal });
    const tools = await session.listTools({ signal: options.signal });
    const tool = tools.find((t) => t.name === toolName);
    const accepts = serverAcceptsToolTasks(session.serverCapabilities, session.protocolVersion);
    const mode = callMode(this.#label(serverId), toolName, tool, accepts, options.preference);
    if (mode instanceof Error) throw mode;
    if (mode === TASK) return this.#startTask(serverId, session, toolName, options);
    return this.#startDirect(serverId, session, toolName, options, mayRetryAsTask(accepts, taskSupportOf(tool)));
  }

  /**
   * Starts a task. Neither the caller's signal nor the timeout aborts the request:
   * notifications/cancelled must not be used for task-augmented requests (schema.ts), and the
   * server may have created the task already. The caller is rejected at once; the task, once its
   * CreateTaskResult arrives, is tracked and cancelled with tasks/cancel (T-REQ-7), or left in the
   * view where the server cannot cancel tasks, never left running unseen.
   */
  async #startTask(serverId: string, session: McpSession, toolName: string, options: CallToolOptions): Promise<TaskSnapshot> {
    const { signal } = options;
    if (signal?.aborted) throw abortReason(signal);
    const started = this.#createTask(serverId, session, toolName, options);
    const ms = this.#timeout();
    const timeout = newController();
    const stopTimer = abortAfter(timeout, ms, () => new RequestTimeoutError(TOOLS_CALL, ms, this.#label(serverId)));
    const stop = signal ? anySignal([signal, timeout.signal]) : timeout.signal;
    try {
      return await raceAbort(started, stop);
    } catch (err) {
      if (!stop.aborted) throw err;
      started.then(
        (snap) => this.#cancelAbandoned(snap, session),
        (e: unknown) => this.#serverLog(serverId).debug(`${toolName}: the task-augmented call its caller stopped waiting for failed: ${detailOf(e)}`),
      );
      throw err;
    } finally {
      stopTimer();
    }
  }

  /** Cancels a task created after its caller stopped waiting (see `startTask`). */
  #cancelAbandoned(snap: TaskSnapshot, session: McpSession): void {
    const rec = this.#recs.get(snap.key);
    if (!rec || isTerminal(rec.snap.status)) return;
    const log = this.#serverLog(snap.serverId);
    const late = `Task ${snap.taskId} (${snap.toolName}) was created after its caller stopped waiting`;
    if (!declared(session.serverCapabilities.tasks?.cancel)) {
      log.warn(`${late}; the server does not support cancelling tasks, so it runs on and stays in the view`);
      return;
    }
    log.info(`${late}: cancelling it`);
    // Its failure is logged by #cancel (a server's refusal or failure; a server that cannot be reached logs its own).
    this.cancel(snap.key, undefined, 'as its caller stopped waiting').catch(noop);
  }

  /** Holds a status notification about a task not tracked yet while a tools/call of its server is pending; false when none is. */
  #holdEarly(serverId: string, task: Task): boolean {
    const early = this.#early.get(serverId);
    if (!early) return false;
    // Nothing follows an end (T-LIFE-3): what comes after one is older news from another stream.
    const held = early.held.get(task.taskId);
    if (held && isServerTerminal(held.status)) return true;
    early.held.delete(task.taskId);
    if (early.held.size >= MAX_HELD_NOTIFICATIONS) early.held.delete(early.held.keys().next().value!);
    early.held.set(task.taskId, task);
    return true;
  }

  async #createTask(serverId: string, session: McpSession, toolName: string, options: CallToolOptions): Promise<TaskSnapshot> {
    const early = this.#early.get(serverId) ?? { creating: 0, held: new Map<string, Task>() };
    this.#early.set(serverId, early);
    early.creating++;
    try {
      return await this.#create(serverId, session, toolName, options, early.held);
    } finally {
      // Held notifications no pending call claimed were about tasks not ours (or not known here).
      if (--early.creating === 0 && this.#early.get(serverId) === early) this.#early.delete(serverId);
      // A call that failed changes no task, and one that made a task (or a direct result) told so
      // while it still counted: nothing else tells what waits for it that it ended.
      this.#sessions.liveTasksChanged?.(serverId);
    }
  }

  async #create(serverId: string, session: McpSession, toolName: string, options: CallToolOptions, held: Map<string, Task>): Promise<TaskSnapshot> {
    const token = `mcp-tasks-${randomUUID()}`;
    // T-REQ-8: the token stays ours for the whole task, so progress sent after the
    // CreateTaskResult still arrives. Subscribed before sending: progress may come first, and is
    // kept until the task is tracked and its lasting route (routeProgress) replaces this one.
    const early: Progress[] = [];
    const sub = session.onProgress(token, (p) => early.push(p));
    const ttl = options.ttlMs ?? this.#options.defaultTtlMs?.();
    const params: Record<string, unknown> = {
      name: toolName,
      arguments: options.arguments ?? {},
      task: ttl !== undefined ? { ttl } : {},
      _meta: { progressToken: token },
    };
    let raw: Record<string, unknown>;
    try {
      // No timeout of its own (see startTask): the answer is awaited as long as the connection lives.
      raw = await session.connection.requestRaw(TOOLS_CALL, params, { timeoutMs: Infinity });
    } catch (err) {
      sub.dispose();
      throw err;
    }
    const created = CreateTaskResultSchema.safeParse(raw);
    if (!created.success) {
      sub.dispose();
      // A server that ignored `task` and answered the tool's result: keep it, as a direct call.
      const direct = CallToolResultSchema.safeParse(raw);
      if (direct.success) {
        this.#serverLog(serverId).warn(`${toolName}: the server answered a task-augmented call with the tool's result instead of a task`);
        const r = this.#addRec(this.#directSnapshot(serverId, toolName, options));
        this.#finishDirect(r, { kind: 'result', result: direct.data });
        return r.snap;
      }
      // Not a JSON-RPC error of the server's: a plain Error, so no one keeps it as the call's outcome.
      throw new Error(`${serverNamed(this.#label(serverId))} answered ${TOOLS_CALL} with neither a task nor a tool result: ${describeIssues(created.error)}`);
    }
    return this.#track(serverId, session, toolName, options, created.data, { token, sub, early }, held);
  }

  /** Tracks the task a CreateTaskResult created for a call of `toolName`, from its progress so far (T-REQ-8) and the notifications held for it. */
  async #track(
    serverId: string,
    session: McpSession,
    toolName: string,
    options: CallToolOptions,
    { task, _meta }: CreateTaskResult,
    progress: { token?: string; sub?: Disposable; early: Progress[] },
    held?: Map<string, Task>,
  ): Promise<TaskSnapshot> {
    const { token, sub, early } = progress;
    const immediate = _meta?.[MODEL_IMMEDIATE_RESPONSE_META];
    const key = taskKey(serverId, task.taskId);
    const call = { toolName, arguments: options.arguments, requestedTtl: options.ttlMs ?? null, origin: options.origin ?? 'user', immediateResponse: clip(isString(immediate) ? immediate : undefined) };
    const earlier = this.#recs.get(key);
    // A tasks/list (Refresh) may find the task before this answer arrives: the same task (created
    // then), which its call claims, not a reused id.
    if (earlier?.snap.origin === SERVER_LIST && earlier.snap.createdAt === validDate(task.createdAt, this.#now())) return this.#claim(earlier, session, progress, call);
    if (earlier && !isTerminal(earlier.snap.status)) {
      sub?.dispose();
      throw new Error(`${serverNamed(this.#label(serverId))} reused the id of a task it already created: ${task.taskId}`);
    }
    if (earlier) await this.#retire(earlier);
    const rec = this.#addTask(serverId, task, { ...call, status: WORKING }, token);
    this.#routeProgress(rec, session);
    this.#serverLog(serverId).info(`Task ${task.taskId} created for ${toolName} (${task.ttl === null ? 'no ttl' : `ttl ${task.ttl} ms`}${task.pollInterval === undefined ? '' : `, poll ${task.pollInterval} ms`})`);
    for (const p of early) this.#applyProgress(rec, p);
    // T-LIFE-1: a task starts working; a server that says otherwise is applied through the table.
    if (task.status !== WORKING) this.#applyServerTask(rec, task, 'create');
    // A notification that came before this answer: applied after it, through the table, unless older.
    const notified = held?.get(task.taskId);
    if (notified) {
      held!.delete(task.taskId);
      this.#applyServerTask(rec, notified, 'held notification');
    }
    if (!isTerminal(rec.snap.status) && !this.#scheduler.has(key)) this.#scheduleNext(rec);
    return rec.snap;
  }

  /** A task adopted from tasks/list becomes the call's that created it (see `create`): its tool, arguments, origin and progress token. */
  #claim(rec: Rec, session: McpSession, progress: { token?: string; sub?: Disposable; early: Progress[] }, changes: Partial<TaskSnapshot>): TaskSnapshot {
    rec.progressToken = progress.token;
    this.#update(rec, changes);
    this.#serverLog(rec.snap.serverId).info(`Task ${rec.snap.taskId} created for ${rec.snap.toolName}; ${TASKS_LIST} had found it first (${rec.snap.status})`);
    if (isTerminal(rec.snap.status)) {
      progress.sub?.dispose();
      if (this.#wantsOutcome(rec)) void this.#resultCall(rec);
    } else {
      this.#routeProgress(rec, session);
      for (const p of progress.early) this.#applyProgress(rec, p);
    }
    return rec.snap;
  }

  /**
   * Moves an ended task out of the way of a new task that its server gave the same id: a server
   * that counts its ids and was restarted (T-RCV-3 asks for unique random ids; not every server
   * keeps to it). The old task stays, with its outcome, under a key of its own; the id now names
   * the new task.
   */
  async #retire(rec: Rec): Promise<void> {
    const { key, serverId, taskId } = rec.snap;
    // Read before the old key goes: removing it deletes the outcome kept under it.
    const outcome = rec.snap.outcome ?? (rec.snap.outcomeFetchedAt !== undefined ? await this.#options.loadOutcome?.(key) : undefined);
    if (this.#recs.get(key) !== rec) return;
    this.#refetch.cancel(key);
    this.#refetchDelay.delete(key);
    this.#recs.delete(key);
    this.#onDidRemove.fire(key);
    // Its key no longer matches its id: what marks it (after a reload too) as one never to ask the server about.
    rec.snap = { ...rec.snap, key: `${key}\u0000earlier-${randomUUID()}`, outcome, note: outcome ? rec.snap.note : (rec.snap.note ?? RETIRED) };
    this.#recs.set(rec.snap.key, rec);
    // A plain call that became this task still leads to it, not to the new task that took its id.
    for (const [from, to] of this.#moved) if (to === key) this.#moved.set(from, rec.snap.key);
    this.#onDidChange.fire(rec.snap);
    this.#serverLog(serverId).warn(`The server gave a new task the id of an earlier one that ended (${taskId}); the earlier one is kept apart`);
  }

  #directSnapshot(serverId: string, toolName: string, options: CallToolOptions): TaskSnapshot {
    const now = this.#nowIso();
    const taskId = `direct-${randomUUID()}`;
    return {
      key: taskKey(serverId, taskId),
      serverId,
      taskId,
      kind: DIRECT,
      toolName,
      arguments: options.arguments,
      status: WORKING,
      createdAt: now,
      lastUpdatedAt: now,
      ttl: null,
      origin: options.origin ?? 'user',
    };
  }

  async #startDirect(serverId: string, session: McpSession, toolName: string, options: CallToolOptions, retryAsTask: boolean): Promise<TaskSnapshot> {
    const rec = this.#addRec(this.#directSnapshot(serverId, toolName, options));
    const abort = (rec.direct = newController());
    const signals = [abort.signal, this.#lifetime.signal, ...(options.signal ? [options.signal] : [])];
    this.#serverLog(serverId).info(`Direct call of ${toolName} (not a task)`);
    const run = async () => {
      try {
        const result = await session.request(TOOLS_CALL, { name: toolName, arguments: options.arguments ?? {} }, CallToolResultSchema, {
          signal: anySignal(signals),
          timeoutMs: this.#timeout(),
          onprogress: (p) => this.#applyProgress(rec, p),
          resetTimeoutOnProgress: true,
          tag: rec,
        });
        this.#finishDirect(rec, { kind: 'result', result });
      } catch (err) {
        // A server that answers a plain call with a task (CreateTaskResult, which the spec gives only
        // to a task-augmented request) runs the tool as a task anyway: it is followed, not left unseen.
        const created = err instanceof InvalidResultError ? CreateTaskResultSchema.safeParse(err.data) : undefined;
        if (created?.success || (retryAsTask && isPeerError(err) && err.code === ErrorCode.InvalidRequest)) {
          const log = this.#serverLog(serverId);
          try {
            let task: TaskSnapshot;
            if (created?.success) {
              log.warn(`${toolName}: the server answered a plain call with a task; it is followed as one`);
              task = await this.#track(serverId, session, toolName, options, created.data, { early: [] });
            } else {
              log.info(`${toolName}: the server requires task augmentation (-32600: ${errorMessage(err)}); calling it again as a task`);
              task = await this.#startTask(serverId, session, toolName, options);
            }
            // The call's caller (a chat tool, another extension) may hold its key: it now leads to the task.
            this.#moved.set(rec.snap.key, task.key);
            this.remove(rec.snap.key);
            // The call's questions are the task's now (see `ask`): they learn it with the task's next change, this one.
            const moved = this.#recs.get(task.key);
            if (moved) this.#onDidChange.fire(moved.snap);
          } catch (e) {
            // The call stays in the view, failed with the reason, instead of vanishing into the log.
            log.error(`${toolName}: the retry as a task failed: ${detailOf(e)}`);
            this.#finishDirect(rec, isPeerError(e) ? { kind: 'error', error: e.toJSON() } : undefined, `The server requires a task for this call, and calling it as a task failed: ${errorMessage(e)}`);
          }
          return;
        }
        // A closed connection aborts the call too (sessionClosed): that is a failure, not the user's cancel.
        if (abort.signal.aborted && !session.isClosed) {
          this.#serverLog(serverId).info(`Direct call of ${toolName} cancelled by the user`);
          return this.#update(rec, { status: CANCELLED, statusMessage: CANCELLED_BY_USER, note: undefined });
        }
        const outcome: TaskOutcome | undefined = isPeerError(err) ? { kind: 'error', error: err.toJSON() } : undefined;
        this.#finishDirect(rec, outcome, reasonOf(err));
      }
    };
    void run();
    return rec.snap;
  }

  #finishDirect(rec: Rec, outcome: TaskOutcome | undefined, note = errorLine(outcome)): void {
    rec.direct = undefined;
    const failed = !outcome || outcome.kind === 'error' || outcome.result.isError === true;
    this.#update(rec, {
      status: failed ? FAILED : COMPLETED,
      outcome,
      outcomeFetchedAt: outcome ? this.#nowIso() : undefined,
      note,
    });
    this.#serverLog(rec.snap.serverId).info(`Direct call of ${rec.snap.toolName} ${failed ? 'failed' : 'completed'}${note ? `: ${note}` : ''}`);
  }

  // ── Following tasks ────────────────────────────────────────────────────────────────────────

  /** Polls one task now (also what the scheduler calls). */
  async poll(key: string): Promise<void> {
    const rec = this.#recs.get(key);
    if (!rec || rec.snap.kind !== TASK || isTerminal(rec.snap.status) || rec.polling) return;
    const { serverId, taskId } = rec.snap;
    // A task restored before its server was known, of a server whose tasks die with its process:
    // with no process of this window attached, it ran on one that is gone.
    if (this.#sessions.tasksOutliveConnection(serverId) === false && !this.#attached.has(serverId)) return this.#processGone(rec);
    if (this.#unconfigured(rec)) return;
    rec.polling = true;
    try {
      const session = await this.#reach(serverId);
      if (!session) return;
      // No abort signal: thousands of polls each listening on one shared signal cost more than
      // the polls themselves (see bench/). A poll ends by its timeout or by the session closing.
      const task = await this.#getTask(session, taskId);
      if (this.#disposed) return;
      this.#reached(serverId);
      rec.restored = false;
      this.#applyServerTask(rec, task, 'poll');
    } catch (err) {
      const denied = denial(err);
      if (denied) this.#gone(rec, ...denied);
      else if (this.#disposed) return;
      // An answer that is not a valid task (a status the spec does not have, a date that is no
      // string): its polls back off (see scheduleNext), as the server is not fixed in a second;
      // its row says so with the first of its problems ("status: invalid input"), and
      // the log says it once, then counts. A valid report of it ends that (applyServerTask).
      else if (err instanceof InvalidResultError) {
        if (warnRepeated(this.#serverLog(serverId), this.#invalid, key, `${TASKS_GET} ${taskId} failed: ${err.message}`) < 2) {
          this.#update(rec, { note: `${INVALID}${err.problem.split('; ')[0]}); asked less often.` });
        }
      }
      else this.#failed(serverId, `${TASKS_GET} ${taskId}`, err);
    } finally {
      rec.polling = false;
      if (this.#recs.get(key) === rec && !isTerminal(rec.snap.status) && !this.#scheduler.has(key)) this.#scheduleNext(rec);
    }
  }

  /**
   * Whether the task's server is missing from the loaded configuration; then it is not polled. A
   * server missing for REMOVED_GRACE_MS has its live task lost (checked again then, not every
   * minute with a warning); one back before that (same id) finds its tasks as they were. Before
   * the configuration has loaded, no server is known: its tasks wait for it (serversChanged).
   */
  #unconfigured(rec: Rec): boolean {
    const { serverId, key } = rec.snap;
    const configured = this.#sessions.isConfigured?.(serverId);
    if (configured === undefined && this.#sessions.isConfigured) {
      this.#unloaded.add(serverId);
      return true;
    }
    if (configured !== false) {
      if (configured) this.#missing.delete(serverId);
      return false;
    }
    const now = this.#now();
    let since = this.#missing.get(serverId);
    if (since === undefined) {
      this.#missing.set(serverId, (since = now));
      this.#serverLog(serverId).warn(`The server is no longer configured: its live tasks are lost unless it is back within ${REMOVED_GRACE_MS / 60_000} minutes`);
    }
    if (now - since >= REMOVED_GRACE_MS) this.#gone(rec, REMOVED);
    else this.#scheduler.schedule(key, since + REMOVED_GRACE_MS);
    return true;
  }

  /**
   * The session of a server for polling, or undefined while it is backing off after failures.
   * `user`: the user asked (Fetch Task Result, Respond): an input they dismissed is asked again.
   */
  async #reach(serverId: string, user = false): Promise<McpSession | undefined> {
    try {
      return await this.#sessions.getSession(serverId, { background: !user });
    } catch (err) {
      this.#unreachable(serverId, err);
      return undefined;
    }
  }

  /**
   * The server could not be reached (no session, or a session whose requests meet a closed port,
   * a proxy's 5xx or no answer in time): its polls back off, and the reason is told once, not once per task per
   * poll. The backoff ends with the server's next answer.
   */
  #unreachable(serverId: string, err: unknown): void {
    const now = this.#now();
    const b = this.#backoff.get(serverId) ?? { delay: 500, until: 0 };
    // The failures of one round (every task polled at once) count once.
    if (now >= b.until) b.until = now + (b.delay = minOf(b.delay * 2, MAX_BACKOFF_MS));
    this.#backoff.set(serverId, b);
    const timedOut = err instanceof RequestTimeoutError;
    const why = sentence(timedOut ? `The server ${err.unanswered}` : detailOf(err));
    // Timeouts are one reason, whichever request met them (tasks/get, tasks/list, tasks/result).
    const said = timedOut ? '' : why;
    const held = err instanceof HeldByUserError;
    const line = `[${this.#label(serverId)}] ${held ? `Not following its tasks: ${why}` : `Cannot reach the server to follow its tasks: ${why} Retrying in ${round(b.delay / 1000)} s.`}`;
    this.#log[b.said === said ? 'debug' : held ? 'info' : 'warn'](line);
    if (!held && b.said !== said) {
      b.down = { since: b.down?.since ?? now, why };
      this.#onDidChangeReach.fire(serverId);
    }
    b.said = said;
  }

  /** The server answered: its polls stop backing off, and it is no longer unreachable. */
  #reached(serverId: string): void {
    const down = this.#backoff.get(serverId)?.down;
    this.#backoff.delete(serverId);
    if (down) this.#onDidChangeReach.fire(serverId);
  }

  /** Since when, and why, the server's polls cannot reach it; undefined once one does. */
  unreachable(serverId: string): Unreachable | undefined {
    return this.#backoff.get(serverId)?.down;
  }

  /**
   * Warns that a request about a task (`what`: method and task id) failed; one that met a closed
   * port (no status), a proxy's 5xx (unless `not5xx`: a proxy may cut a long tasks/result so) or no
   * answer in time (a hung server) fails the server, not the task: it is unreachable. A close fails every
   * poll and result fetch in flight with one error: told once per server, with how many of each
   * it failed ("tasks/get of 3 tasks and tasks/result of 2 tasks failed: Connection closed: …").
   */
  #failed(serverId: string, what: string, err: unknown, not5xx?: boolean): void {
    if (err instanceof RequestTimeoutError || (err instanceof TransportHttpError && (err.status === undefined || (!not5xx && err.status >= 500)))) return this.#unreachable(serverId, err);
    if (this.#toldClosed.has(err as Error)) return;
    let polls = 0;
    let fetches = 0;
    if (err instanceof ConnectionClosedError) {
      this.#toldClosed.add(err);
      for (const r of this.#recs.values()) {
        if (r.snap.serverId !== serverId) continue;
        if (r.polling) polls++;
        if (r.resultCall) fetches++;
      }
    }
    const of = (method: string, n: number) => (n ? [`${method} of ${n} task${n > 1 ? 's' : ''}`] : []);
    if (polls + fetches > 1) what = [...of(TASKS_GET, polls), ...of(TASKS_RESULT, fetches)].join(' and ');
    // A closed connection and its reason are warned by the server manager: this says what it failed.
    this.#serverLog(serverId)[err instanceof ConnectionClosedError ? 'info' : 'warn'](`${what} failed: ${detailOf(err)}`);
  }

  /**
   * The next check of a live task. Where its server is followed by list, the next list cycle;
   * else its own poll: at the task's pollInterval, clamped to sane bounds, plus up to 25% jitter
   * so tasks created together do not poll in lockstep. Never sooner than the interval, never
   * later than twice it (T-REQ-2), except for one last check just before the task's ttl ends,
   * when the server may delete it and its result (T-RCV-7). A server that is backing off pushes
   * it later.
   */
  #scheduleNext(rec: Rec): void {
    const { key, serverId } = rec.snap;
    const f = this.#servers.get(serverId);
    if (f?.byList) return this.#list(rec);
    let delay = this.#interval(rec) * (1 + 0.25 * this.#random());
    const lastCall = this.#lastCall(rec);
    if (lastCall !== undefined) delay = minOf(delay, lastCall - this.#now());
    const b = this.#backoff.get(serverId);
    if (b) delay = maxOf(delay, b.delay);
    // 1 s, 2 s, 4 s… after its answers were invalid 1, 2, 3… times in a row, up to a minute (none: 0).
    delay = maxOf(delay, minOf(500 * 2 ** (this.#invalid.get(key) ?? -Infinity), MAX_BACKOFF_MS));
    this.#scheduler.schedule(key, this.#now() + delay);
    const due = f && (f.live.size >= f.probeAt || (f.live.size >= 2 && this.#now() >= f.probeAfter));
    if (due && !f.cycling && !this.#cycles.has(serverId) && lists(this.#attached.get(serverId)?.session)) {
      this.#cycles.schedule(serverId, this.#now());
    }
  }

  /**
   * When to check a task once more before its ttl ends (the server may then delete it and its
   * result, T-RCV-7): LAST_CALL_MS (or a tenth of the ttl) before; undefined when it has no ttl
   * or that time is too close.
   */
  #lastCall(rec: Rec): number | undefined {
    const { ttl, createdAt } = rec.snap;
    if (ttl === null) return undefined;
    const at = parseDate(createdAt) + ttl - minOf(ttl / 10, LAST_CALL_MS);
    return at >= this.#now() + this.#minPoll ? at : undefined;
  }

  /**
   * Leaves a task to its server's list cycles: no poll of its own, except the last check before
   * its ttl ends, which a cycle at the pace of the server's tasks may come too late for.
   */
  #list(rec: Rec): void {
    rec.listed = true;
    const lastCall = this.#lastCall(rec);
    if (lastCall === undefined) this.#scheduler.cancel(rec.snap.key);
    else this.#scheduler.schedule(rec.snap.key, lastCall);
  }

  /**
   * The poll interval of a task: the server's (T-REQ-2), within bounds. One beyond the longest
   * (an hour) is no real suggestion (a hostile 2^53 ms is 285,000 years): such a task is checked
   * every minute instead, as a task with no suggestion would be at worst.
   */
  #interval(rec: Rec): number {
    const asked = rec.snap.pollInterval ?? this.#defaultPoll;
    return clamp(asked > this.#maxPoll ? NONSENSE_POLL_MS : asked, this.#minPoll, this.#maxPoll);
  }

  /** The poll interval actually used for a task (for the view's tooltip). */
  effectivePollInterval(key: string): number | undefined {
    const rec = this.#recs.get(key);
    return rec && this.#interval(rec);
  }

  /**
   * Follows the live tasks of a server through one `tasks/list` cycle instead of one `tasks/get`
   * each, when that sends fewer requests (issue 7: 10,000 tasks polled every second cost more
   * CPU than two cores have; listed 10 or 100 to a page they cost 1,000 or 100 requests).
   *
   * Within the spec: T-REQ-2 asks for polling that honours `pollInterval`, a hint about how often
   * to check a task's status, which the spec ties to `tasks/get`; a page of `tasks/list` (T-REQ-6)
   * carries the same `Task` objects (T-LIFE-5), and any task `tasks/get` can reach `tasks/list`
   * must list ("Task Listing" 4). A cycle runs at the smallest clamped interval of the server's
   * live tasks, so no task is checked later than its interval asks, and it is kept only while it
   * sends fewer requests than the polls it replaces: the receiver sees less traffic, never more.
   * What does not change: a task the list does not show (a scoped or lagging list) is polled by
   * id at once; `input_required` still calls `tasks/result` at once (T-REQ-3); status
   * notifications still apply when they come (T-REQ-5); terminal tasks fetch their results.
   *
   * A probe is a cycle too: it starts once the server has `probeAt` live tasks, stops paging as
   * soon as it has sent as many pages as per-task polls would send in the same time (it cannot
   * win any more), and `probeAt` doubles after a probe that did not win, so probing costs at most
   * about as much as polling would have. A cycle that did not win (the list failed, or cost more)
   * is also tried again after LIST_RETRY_MS: a passing failure does not cost a server polls by id
   * for the rest of its tasks' lives, and a retry costs at most one round of polls in five minutes.
   */
  async #listCycle(serverId: string): Promise<void> {
    const f = this.#servers.get(serverId);
    if (!f || f.cycling || this.#disposed) return;
    if (f.live.size === 0) {
      f.byList = false;
      return;
    }
    f.cycling = true;
    const started = this.#now();
    const cycle = ++f.cycle;
    // The pace is the most eager task's; the budget, the tasks/get per-task polls send meanwhile.
    let pace = this.#maxPoll;
    for (const rec of f.live) if (rec.snap.kind === TASK) pace = minOf(pace, this.#interval(rec));
    let budget = 0;
    for (const rec of f.live) if (rec.snap.kind === TASK) budget += pace / this.#interval(rec);
    let pages = 0;
    let saved = 0;
    let failed = false;
    try {
      const session = await this.#reach(serverId);
      if (!session || !lists(session)) failed = true;
      else {
        pages = await this.#pageList(
          session,
          serverId,
          (task) => {
            const rec = this.#recs.get(taskKey(serverId, task.taskId));
            if (!rec || rec.snap.kind !== TASK || isTerminal(rec.snap.status) || rec.seenIn === cycle) return;
            rec.seenIn = cycle;
            saved += pace / this.#interval(rec);
            if (f.byList && !rec.listed) this.#list(rec);
            this.#applyServerTask(rec, task, 'list');
          },
          (sent) => sent >= budget,
        );
        this.#reached(serverId);
      }
    } catch (err) {
      failed = true;
      // One that timed out or met a closed port makes the server unreachable, as a poll does (said once, backing off).
      if (!this.#disposed) this.#failed(serverId, `${TASKS_LIST} (following ${tasks(f.live.size)})`, err);
    } finally {
      f.cycling = false;
    }
    if (this.#disposed || this.#servers.get(serverId) !== f) return;
    f.failures = failed ? f.failures + 1 : 0;
    // A failed cycle keeps the mode (the tasks it missed are polled below) unless failures repeat.
    const wins = failed ? f.byList && f.failures < 3 : pages < saved;
    if (wins !== f.byList) this.#serverLog(serverId).info(`Following ${tasks(f.live.size)} ${wins ? `through ${TASKS_LIST} (${pages} page${pages === 1 ? '' : 's'} per ${pace} ms)` : `by ${TASKS_GET}, one per task`}`);
    f.byList = wins;
    const now = this.#now();
    if (!wins) {
      f.probeAt = 2 * maxOf(f.live.size, pages, 1);
      f.probeAfter = now + LIST_RETRY_MS;
    }
    for (const rec of f.live) {
      if (rec.snap.kind !== TASK) continue;
      const seen = rec.seenIn === cycle;
      if (wins && seen) {
        if (!rec.listed) this.#list(rec);
      } else if (rec.listed) {
        // Seen and back to its own polls: next one at its interval. Not seen: poll it now.
        rec.listed = false;
        if (seen) this.#scheduleNext(rec);
        else if (!rec.polling) this.#scheduler.schedule(rec.snap.key, now);
      }
    }
    if (wins) this.#cycles.schedule(serverId, maxOf(started + pace, now));
  }

  /**
   * Applies a task as the server reported it (a poll, a notification, a cancel answer), through
   * the transition table: illegal changes and mismatched ids are logged and ignored.
   */
  #applyServerTask(rec: Rec, task: Task, source: Source): void {
    this.#invalid.delete(rec.snap.key);
    // Also the note of answers found invalid before a reload.
    if (rec.snap.note?.startsWith(INVALID)) this.#update(rec, { note: undefined });
    const before = rec.snap;
    this.#applyReport(rec, task, source);
    rec.unheard = false;
    // Alive after its connection closed, even if unchanged: whoever waits to see how that close
    // ends it (a Disconnect's notification rule) learns that it did not.
    if (this.#outlived.delete(rec) && rec.snap === before && !isTerminal(before.status)) this.#onDidChange.fire(before);
    // T-REQ-3: whatever shows a task waiting for input gets its tasks/result call going, not only
    // a change of status: after a reload or a new session, or when an earlier call failed, the
    // status stays input_required and the server can only ask its questions through that call.
    if (task.status === INPUT_REQUIRED && rec.snap.status === INPUT_REQUIRED && task.taskId === rec.snap.taskId) this.#answerInput(rec);
  }

  /** The status and fields of a report, checked and applied; what the new status asks for follows in `onStatus`. */
  #applyReport(rec: Rec, task: Task, source: Source): void {
    const snap = rec.snap;
    // The common case at scale: nothing changed. Checked first, without allocating.
    if (
      task.status === snap.status &&
      task.lastUpdatedAt === snap.lastUpdatedAt &&
      task.statusMessage === snap.statusMessage &&
      task.pollInterval === snap.pollInterval &&
      task.ttl === snap.ttl &&
      task.taskId === snap.taskId
    ) {
      return;
    }
    const label = this.#label(snap.serverId);
    if (task.taskId !== snap.taskId) {
      this.#log.warn(`[${label}] Ignored a ${source} answer about task ${task.taskId} for task ${snap.taskId}: the ids do not match`);
      return;
    }
    const from = snap.status;
    if (isTerminal(from)) {
      // A poll answered before a status notification arrived is old news (no newer than what we
      // have), not a server breaking the rules.
      const stale = source !== 'notification' && !isServerTerminal(task.status) && parseDate(task.lastUpdatedAt) <= parseDate(snap.lastUpdatedAt);
      // T-REQ-10: a task shown failed for its isError result is completed on the server: no news.
      const agrees = from === FAILED && task.status === COMPLETED && snap.note === ERROR_RESULT;
      if (task.status !== from && !agrees) this.#log[stale ? 'debug' : 'warn'](`[${label}] Ignored ${source} status ${task.status} for task ${task.taskId}: it already ended as ${from} (T-LIFE-3)`);
      return;
    }
    // An answer or notification sent before the last change applied (a poll overtaken by a status
    // notification, a notification replayed by a resumed stream or overtaken on another one) is
    // old news: applying it would undo that change. A server whose lastUpdatedAt does not parse
    // (in this answer or the one before) cannot be judged: its answers apply as they come.
    // An end is never old news: nothing follows it (T-LIFE-3), whatever its lastUpdatedAt says.
    if (source !== 'create' && !rec.localUpdatedAt && !isServerTerminal(task.status) && parseDate(task.lastUpdatedAt) < parseDate(snap.lastUpdatedAt)) {
      this.#log.debug(`[${label}] Ignored a ${source} answer about task ${task.taskId} older than what is known (${task.status} at ${task.lastUpdatedAt}; ${from} since ${snap.lastUpdatedAt})`);
      return;
    }
    if (!canTransition(from as TaskStatus, task.status)) {
      this.#log.warn(`[${label}] Ignored illegal transition ${from} → ${task.status} for task ${task.taskId} (${source})`);
      return;
    }
    const changes: Partial<TaskSnapshot> = {};
    if (task.status !== from) changes.status = task.status;
    const message = clip(task.statusMessage);
    const said = saidOf(task.statusMessage);
    if (message !== snap.statusMessage || said !== (rec.said ?? said)) changes.statusMessage = message;
    // T-LIFE-5: it says how the task is now. The one it worked with, kept at the end (the SDK's task
    // store does: "Completed · Generating report…"), does not; one new with the end does, as does
    // that of a task created ended (its snapshot took the message before it took the status). One
    // clipped alike whose hash is unknown (a restored task's: not stored) may be new: it is kept.
    else if (message && isTerminal(task.status) && source !== 'create' && (rec.said !== undefined || !said)) changes.statusMessage = undefined;
    rec.said = said;
    const updated = validDate(task.lastUpdatedAt, this.#now());
    if (updated !== snap.lastUpdatedAt) changes.lastUpdatedAt = updated;
    rec.localUpdatedAt = Number.isNaN(parseDate(task.lastUpdatedAt));
    const ttl = sanitizeTtl(task.ttl);
    if (ttl !== snap.ttl) changes.ttl = ttl;
    if (task.pollInterval !== snap.pollInterval) changes.pollInterval = task.pollInterval;
    if (keysOf(changes).length === 0) return;
    // A server that moved on while no window heard it: the progress of an older stage is not shown.
    if (rec.unheard && 'statusMessage' in changes) changes.progress = undefined;
    if (changes.status) this.#log.info(`[${label}] Task ${task.taskId} (${snap.toolName}): ${from} → ${task.status}${task.statusMessage ? ` (${truncate(task.statusMessage, 300)})` : ''}`);
    this.#reportErrorResult(rec, changes);
    this.#update(rec, changes);
    if (changes.status) this.#onStatus(rec, task.status);
    // The server asked for another pace (with a new status too: a poll due at the old pace is not kept).
    if ('pollInterval' in changes && this.#scheduler.has(rec.snap.key)) this.#scheduleNext(rec);
  }

  #onStatus(rec: Rec, status: TaskStatus): void {
    if (isServerTerminal(status)) {
      this.#scheduler.cancel(rec.snap.key);
      this.#unrouteProgress(rec);
      this.#expectAnswer(rec);
      if (this.#wantsOutcome(rec)) void this.#resultCall(rec);
    }
  }

  /**
   * T-REQ-4: the tasks/result in flight for a task that has ended (asked for its input before the
   * end, or after it) has its answer at once. One still unanswered after the request timeout never
   * will be: it is given up (the server is told), and the result fetched again later, instead of
   * waiting for ever.
   */
  #expectAnswer(rec: Rec): void {
    const abort = rec.resultAbort;
    if (!abort) return;
    const ms = this.#timeout();
    const stop = abortAfter(abort, ms, () => new RequestTimeoutError(TASKS_RESULT, ms, this.#label(rec.snap.serverId)));
    rec.resultCall?.then(stop, stop);
  }

  /**
   * T-REQ-10: a completed tool task whose result is an error is reported as failed, whichever
   * came first: the result (tasks/result answers as soon as the task ends, often before a poll
   * sees it completed) or the completed status.
   */
  #reportErrorResult(rec: Rec, changes: Partial<TaskSnapshot>): void {
    const status = changes.status ?? rec.snap.status;
    const outcome = changes.outcome ?? rec.snap.outcome;
    if (status !== COMPLETED || outcome?.kind !== 'result' || outcome.result.isError !== true) return;
    changes.status = FAILED;
    changes.note = ERROR_RESULT;
    this.#serverLog(rec.snap.serverId).info(`Task ${rec.snap.taskId} (${rec.snap.toolName}): completed → failed (its result has isError: true)`);
  }

  /**
   * T-REQ-3: calls tasks/result for a task waiting for input, unless a call is in flight, the
   * outcome is in hand, or a failed call waits for its next try (so a server that keeps refusing
   * is not asked again at every poll).
   */
  #answerInput(rec: Rec): void {
    if (!rec.resultCall && !rec.snap.outcome && !this.#refetch.has(rec.snap.key)) void this.#resultCall(rec);
  }

  /** A task whose tasks/result call is tried again when it fails: one waiting for input, or an ended one whose outcome is wanted. */
  #needsResultCall(rec: Rec): boolean {
    return this.#wantsOutcome(rec) || (rec.snap.kind === TASK && rec.snap.status === INPUT_REQUIRED && !rec.snap.outcome);
  }

  /** An ended task whose result is fetched without being asked (the autoFetchResults setting) and is not in hand yet. */
  #wantsOutcome(rec: Rec): boolean {
    return resultToFetch(rec.snap) && (this.#options.autoFetchResults?.() ?? true);
  }

  /**
   * Tries tasks/result again later, when it failed for want of the server (not an answer from
   * it) or was refused for a task still waiting for input: never losing a result or a question
   * matters more than one request. Stops once the task's ttl has run out, as the server may then
   * have deleted it.
   */
  #refetchLater(rec: Rec): void {
    const { key, serverId, taskId, createdAt, ttl } = rec.snap;
    if (!this.#needsResultCall(rec) || this.#disposed) return;
    const delay = minOf(2 * (this.#refetchDelay.get(key) ?? 2_500), MAX_REFETCH_MS);
    if (this.#sessions.isConfigured?.(serverId) === false) {
      // Not tried every few minutes for ever; a session of a server back under the same id tries (see attachSession).
      this.#refetchDelay.set(key, delay);
      this.#serverLog(serverId).warn(`The result of task ${taskId} cannot be fetched: ${REMOVED} (tried again if it comes back)`);
      return;
    }
    const at = this.#now() + delay;
    if (ttl !== null && at > parseDate(createdAt) + ttl) {
      this.#refetchDelay.delete(key);
      this.#serverLog(serverId).warn(`The result of task ${taskId} could not be fetched before its ttl ran out: no more automatic tries (Fetch Task Result tries once more).`);
      return;
    }
    this.#refetchDelay.set(key, delay);
    this.#refetch.schedule(key, at);
  }

  #applyProgress(rec: Rec, p: Progress): void {
    if (isTerminal(rec.snap.status)) return;
    rec.unheard = false;
    this.#update(rec, { progress: { progress: p.progress, total: p.total, message: clip(p.message) } });
  }

  /**
   * T-REQ-8: routes the progress of a task on `session`. The route is one small closure held by
   * the connection (which drops every route when it closes); nothing per task is kept here.
   */
  #routeProgress(rec: Rec, session: McpSession): void {
    const token = rec.progressToken;
    if (token === undefined) return;
    const key = rec.snap.key;
    session.onProgress(token, (p) => {
      const r = this.#recs.get(key);
      if (r) this.#applyProgress(r, p);
    });
  }

  /** Removes a task's progress route: a route set in its place, then disposed, leaves none. */
  #unrouteProgress(rec: Rec): void {
    const token = rec.progressToken;
    const session = this.#attached.get(rec.snap.serverId)?.session;
    if (token !== undefined && session) session.onProgress(token, noop).dispose();
  }

  /**
   * `tasks/result`: blocks until the task ends and returns exactly what the tool call would have
   * (T-REQ-4), a result or a JSON-RPC error; either is kept as the outcome once the task is known
   * to have ended (a completed task's error is a fetch that failed). One call per task at a time,
   * shared by all who wait.
   */
  #resultCall(rec: Rec, user = false): Promise<TaskOutcome | undefined> {
    if (rec.resultCall) return rec.resultCall;
    const { serverId, taskId } = rec.snap;
    const log = this.#serverLog(serverId);
    const p = (async (): Promise<TaskOutcome | undefined> => {
      const session = await this.#reach(serverId, user);
      if (!session) {
        this.#refetchLater(rec);
        return undefined;
      }
      let outcome: TaskOutcome;
      /** The server's error, said for the user. */
      let why: string | undefined;
      try {
        // Blocks for as long as the task runs; the session closing ends it, or `expectAnswer`.
        rec.resultAbort = newController();
        if (isTerminal(rec.snap.status)) this.#expectAnswer(rec);
        const result = await session.request(TASKS_RESULT, { taskId }, CallToolResultSchema, { timeoutMs: Infinity, signal: rec.resultAbort.signal });
        this.#reached(serverId);
        if (this.#disposed) return undefined;
        // T-REQ-4: the result names its task; one that names another is not this task's outcome.
        const named = (result._meta?.[RELATED_TASK_META] as { taskId?: unknown } | undefined)?.taskId;
        if (named !== undefined && named !== taskId) {
          log.warn(`Ignored the answer to ${TASKS_RESULT} ${taskId}: it is the result of task ${truncate(String(named), 100)}`);
          return undefined;
        }
        outcome = { kind: 'result', result };
      } catch (err) {
        if (!isPeerError(err)) {
          if (!this.#disposed) this.#failed(serverId, `${TASKS_RESULT} ${taskId}`, err, true);
          this.#notFetched(rec, detailOf(err));
          return undefined;
        }
        this.#reached(serverId);
        if (err.code === ErrorCode.InvalidParams && !isServerTerminal(rec.snap.status as TaskStatus)) {
          // Not an outcome: the server may have dropped the task. A poll tells (a lost task is
          // warned so, once); if it still waits for input, the call is tried again later, and
          // refused again, warned.
          log[this.#refetchDelay.has(rec.snap.key) ? 'warn' : 'debug'](`${TASKS_RESULT} ${taskId} was refused: ${reasonOf(err)}`);
          this.#refetchLater(rec);
          void this.poll(rec.snap.key);
          return undefined;
        }
        outcome = { kind: 'error', error: err.toJSON() };
        why = reasonOf(err);
      }
      // tasks/result answers once the task has ended (T-REQ-4), usually before a poll sees it end.
      // A sloppy server answers sooner (a placeholder while it waits for input): tasks/get tells
      // which, and an answer about a task still running is not its outcome.
      if (!isTerminal(rec.snap.status) && !(await this.#confirmEnded(rec, session))) return undefined;
      if (outcome.kind === 'error') {
        const ended = rec.snap.status;
        const { code, message } = outcome.error;
        if (code === ErrorCode.InvalidParams && (ended === COMPLETED || ended === FAILED)) {
          // Not an outcome either (unless tasks/get says otherwise): a completed task has a result,
          // never an error, and "task not found" is no failed tool's error. The server has most
          // likely dropped the task (its ttl passed, its process restarted, its session's store
          // went); tasks/get tells. A failed task it still knows did fail with -32602.
          log.warn(`${TASKS_RESULT} ${taskId} was refused: ${message}`);
          if (!(await this.#confirmResultGone(rec, session)) || ended === COMPLETED) return undefined;
        } else if (ended === COMPLETED) {
          // A completed task has a result: an error (busy, internal) is a fetch that failed, not
          // its outcome. Tried again later, as a fetch that could not reach the server is.
          const said = `error ${code}: ${truncate(message, 300)}`;
          log.warn(`${TASKS_RESULT} ${taskId} failed though the task completed (${said}); trying again later`);
          this.#notFetched(rec, `the server answered ${TASKS_RESULT} with ${said}`);
          return undefined;
        }
      }
      this.#refetchDelay.delete(rec.snap.key);
      if (this.#recs.get(rec.snap.key) !== rec) return outcome;
      if (why && rec.snap.status === CANCELLED) {
        // T-REQ-4: the final answer of a cancelled task, an error, says it has no result: none is
        // kept, so none is offered (Open Result, Fetch Task Result) and shown as an error. A
        // result (its work finished before the cancel took, T-LIFE-4) is kept as any.
        log.info(`Task ${taskId} was cancelled; the server has no result for it (${why})`);
        return outcome;
      }
      const changes: Partial<TaskSnapshot> = { outcome, outcomeFetchedAt: this.#nowIso(), resultDeleted: undefined };
      if (rec.snap.note?.startsWith(NOT_FETCHED)) changes.note = undefined;
      // A task that failed without a status message says why from its error, as a failed direct call does.
      if (why && rec.snap.status === FAILED && !rec.snap.statusMessage) changes.note = why;
      this.#reportErrorResult(rec, changes);
      this.#update(rec, changes);
      log.info(`Task ${taskId}: result retrieved (${outcome.kind === 'error' ? `error ${outcome.error.code}: ${outcome.error.message}` : outcome.result.isError ? 'isError result' : 'result'})`);
      return outcome;
    })().finally(() => {
      rec.resultCall = undefined;
      rec.resultAbort = undefined;
      // Fetched, no longer wanted, or failed: tried again soon, its server's connection is still
      // kept for it; not for ever (nor when no try comes): a new configuration or a removal that
      // waits for it goes ahead, told by a change (the why is logged where the try is given up).
      const n = this.#unfetched.get(rec);
      if (n === undefined) return;
      const again = this.#refetch.has(rec.snap.key);
      if (again && n + 1 < HELD_TRIES && this.#wantsOutcome(rec)) {
        this.#unfetched.set(rec, n + 1);
        return;
      }
      this.#unfetched.delete(rec);
      if (!this.#wantsOutcome(rec)) return;
      if (again) log.warn(`Task ${taskId}: no result after ${HELD_TRIES} tries; a restart or removal of its server no longer waits for it`);
      this.#onDidChange.fire(rec.snap);
    });
    rec.resultCall = p;
    return p;
  }

  /**
   * A fetch of an ended task's result failed: its row says why (the note), as Fetch Task Result
   * does, instead of only the log; tried again later.
   */
  #notFetched(rec: Rec, why: string): void {
    if (resultToFetch(rec.snap)) this.#update(rec, { note: NOT_FETCHED + sentence(why) });
    this.#refetchLater(rec);
  }

  /**
   * After tasks/result answered for a task not seen ended: asks tasks/get and applies its answer.
   * True when the task has now ended, or the server denies it (lost or expired: the answer is
   * the last word on it); false when the answer came too early (logged, and a task waiting for
   * input is asked again later) or the server could not be asked (tried again later).
   */
  async #confirmEnded(rec: Rec, session: McpSession): Promise<boolean> {
    const { serverId, taskId, key } = rec.snap;
    const log = this.#serverLog(serverId);
    try {
      const task = await this.#getTask(session, taskId);
      if (this.#disposed || this.#recs.get(key) !== rec) return false;
      this.#applyServerTask(rec, task, 'poll');
    } catch (err) {
      if (this.#disposed || this.#recs.get(key) !== rec) return false;
      const denied = denial(err);
      if (denied) {
        // Gone (lost or expired): nothing better will come, so the answer is kept with it.
        this.#gone(rec, ...denied);
        return true;
      }
      this.#failed(serverId, `${TASKS_GET} ${taskId}`, err);
      this.#refetchLater(rec);
      return false;
    }
    if (isTerminal(rec.snap.status)) return true;
    log.warn(`The server answered ${TASKS_RESULT} ${taskId} while the task is still ${rec.snap.status}: not its outcome; asking again`);
    this.#refetchLater(rec);
    return false;
  }

  /**
   * After the server refused the result of a task that ended (completed or failed): if it denies
   * the task too, the task is expired or lost as a poll would find it, keeping its last status and
   * what else is known (one whose result was fetched before, then deleted by the user or kept in a
   * file now missing or damaged, stays as it ended: its note says so); if the server cannot be
   * asked, the fetch is tried again later. True when the server still knows the task: a completed
   * one stays completed without a result (Fetch Task Result may try again); a failed one's refusal
   * is its tool's error.
   */
  async #confirmResultGone(rec: Rec, session: McpSession): Promise<boolean> {
    const { serverId, taskId, status } = rec.snap;
    try {
      await this.#getTask(session, taskId);
      if (status === COMPLETED) this.#serverLog(serverId).warn(`Task ${taskId} is still known to the server, which refused its result: no result kept`);
      return true;
    } catch (err) {
      if (this.#disposed || this.#recs.get(rec.snap.key) !== rec || rec.snap.status !== status) return false;
      const denied = denial(err);
      // It ended: a result the user deleted, or kept in a file now missing or damaged, and its server forgot leaves it ended, without one.
      if (denied && (rec.snap.resultDeleted || rec.snap.outcomeFetchedAt)) this.#update(rec, { note: `${rec.snap.resultDeleted ? DELETED : `The result kept for it is ${UNREADABLE}`}, and its server no longer has it.` });
      else if (denied) this.#markGone(rec, ...denied);
      else {
        this.#failed(serverId, `${TASKS_GET} ${taskId}`, err);
        this.#refetchLater(rec);
      }
      return false;
    }
  }

  /**
   * Makes sure the server can deliver its questions for a task waiting for input: a
   * `tasks/result` call is in flight (T-REQ-3), started again if an earlier one failed.
   */
  respond(key: string): void {
    const rec = this.#rec(key);
    if (rec && rec.snap.status === INPUT_REQUIRED) void this.#resultCall(rec, true);
  }

  /**
   * Settles when the `tasks/result` call in flight for the task ends, whether it brought the
   * outcome or not; undefined when none is in flight. Asks the server nothing.
   */
  resultInFlight(key: string): Promise<void> | undefined {
    return this.#rec(key)?.resultCall?.then(
      noop,
      noop,
    );
  }

  /**
   * The task's outcome: the kept one, or fetched (waiting for the task to end if it is live).
   * `background` (an agent, another extension, not the user): a server the user disconnected, or
   * whose input they dismissed, is left so; the HeldByUserError says why.
   */
  async fetchResult(key: string, background = false): Promise<TaskOutcome> {
    const rec = this.#tracked(key);
    if (rec.snap.outcome) return rec.snap.outcome;
    if (rec.snap.outcomeFetchedAt && this.#options.loadOutcome) {
      const stored = await this.#options.loadOutcome(rec.snap.key);
      if (stored) {
        this.#update(rec, { outcome: stored });
        return stored;
      }
    }
    if (rec.snap.kind === DIRECT) {
      // Its result lived only in our file: a call cannot be asked for it again.
      if (rec.snap.outcomeFetchedAt) throw new Error(`The result of this call was kept, but its file is ${UNREADABLE}, and a direct call cannot be asked for it again.`);
      throw new Error(rec.snap.note ?? 'The call has not finished yet.');
    }
    const gone = () => rec.snap.status === EXPIRED || rec.snap.status === LOST;
    if (retired(rec.snap) && !gone()) throw new Error(RETIRED);
    // Asked only with no session (none attached, no call in flight): a connected server answers as it did.
    if (background && !gone() && !rec.resultCall && !this.#attached.has(rec.snap.serverId)) await this.#sessions.getSession(rec.snap.serverId, { background });
    const outcome = gone() ? undefined : await this.#resultCall(rec, !background);
    if (outcome) return outcome;
    if (gone()) throw new Error(`The task is ${rec.snap.status} and ${rec.snap.resultDeleted ? 'its stored result was deleted' : rec.snap.outcomeFetchedAt ? `the result kept for it is ${UNREADABLE}` : 'no result was fetched before'}: ${rec.snap.note ?? ''}`.trim());
    // What the caller puts after "Could not fetch the result of …:": the server's error, when it answered one.
    // (Refetch delays are whole multiples of 5 s.)
    const { note, key: k } = rec.snap;
    const delay = this.#refetch.has(k) && this.#refetchDelay.get(k);
    throw new Error(`${note?.startsWith(NOT_FETCHED) ? note.slice(NOT_FETCHED.length) : note?.startsWith(DELETED) || note?.includes(UNREADABLE) ? note : 'no result came; see the log for why.'}${delay ? ` It is tried again in ${delay / 1000} s.` : ''}`);
  }

  /**
   * Cancels a task (`tasks/cancel`, T-REQ-7) or a direct call (`notifications/cancelled`). A
   * task that had already ended (-32602) is refreshed and the error says so. `signal`: stops
   * this caller's wait; the server's connection is waited for until every caller has stopped (not
   * the request once sent). `by`: who asked, for the log.
   */
  cancel(key: string, signal?: AbortSignal, by = 'by the user'): Promise<TaskSnapshot> {
    // One tasks/cancel at a time per task: a second click while the first is on its way gets its
    // answer, not the server's refusal of a task it has just cancelled; nor the first caller's
    // abort (a chat request stopped).
    let c = this.#cancelling.get(key);
    if (!c) {
      const stop = newController();
      this.#cancelling.set(key, (c = { stop, waiting: 0, sent: this.#cancel(key, stop.signal, by).finally(() => this.#cancelling.delete(key)) }));
    }
    const shared = c;
    if (!signal) {
      // A caller that cannot stop waiting (a click): the connection is waited for until it comes.
      shared.waiting = Infinity;
      return shared.sent;
    }
    shared.waiting++;
    const leave = () => {
      if (--shared.waiting === 0) shared.stop.abort(abortReason(signal));
    };
    if (signal.aborted) leave();
    else shared.sent.finally(onAbort(signal, leave)).catch(noop);
    return raceAbort(shared.sent, signal);
  }

  async #cancel(key: string, signal: AbortSignal, by: string): Promise<TaskSnapshot> {
    const rec = this.#tracked(key);
    if (isTerminal(rec.snap.status)) throw new Error(`The task already ended (${rec.snap.status}).`);
    if (rec.snap.kind === DIRECT) {
      abortWith(rec.direct, 'cancelled by the user');
      return rec.snap;
    }
    const { serverId, taskId } = rec.snap;
    const asked = `Task ${taskId}: cancel requested ${by}`;
    const session = await this.#sessions.getSession(serverId, { signal });
    if (!declared(session.serverCapabilities.tasks?.cancel)) {
      throw new Error(`${serverNamed(this.#label(serverId))} does not support cancelling tasks.`);
    }
    this.#update(rec, { cancelRequested: true });
    try {
      const task = await session.request(TASKS_CANCEL, { taskId }, TaskSchema, { timeoutMs: this.#timeout() });
      this.#serverLog(serverId).info(`${asked}; the server answered ${task.status}`);
      this.#applyServerTask(rec, task, 'cancel');
      return rec.snap;
    } catch (err) {
      // Refused or failed: no cancel is pending (one not answered in time, or whose answer a closed connection lost, may yet land).
      if (!(err instanceof RequestTimeoutError || err instanceof ConnectionClosedError)) this.#update(rec, { cancelRequested: undefined });
      if (isPeerError(err) && err.code === ErrorCode.InvalidParams) {
        this.#serverLog(serverId).info(`${asked}; the server refused it: ${reasonOf(err)}`);
        // Refresh now, even if a scheduled poll is in flight, so the message tells the truth: a
        // task the server no longer knows (its ttl ended) is expired or lost, as a poll finds it.
        const fresh = await this.#getTask(session, taskId).catch((e: unknown) => {
          const denied = denial(e);
          if (denied) this.#gone(rec, ...denied);
        });
        if (fresh) this.#applyServerTask(rec, fresh, 'poll');
        throw new Error(`The server refused to cancel task ${taskId}: ${reasonOf(err)} (it is now ${rec.snap.status}).`);
      }
      this.#serverLog(serverId).warn(`${asked}; it failed: ${reasonOf(err)}`);
      throw err;
    }
  }

  /**
   * `tasks/list` (T-REQ-6): every page, following opaque cursors; a repeated cursor or a list
   * that never ends is cut off and logged. Tasks not tracked here (created in another window,
   * or before a reload) join the list, 1,000 at most. Returns how many joined.
   */
  async refreshList(serverId: string): Promise<number> {
    const session = await this.#sessions.getSession(serverId);
    if (!lists(session)) return 0;
    let joined = 0;
    // At most 1,000 new tasks at a Refresh: a server listing endless new ones (1,000 pages of 150,000) would fill the extension host's memory.
    await this.#pageList(session, serverId, (task) => {
      const key = taskKey(serverId, task.taskId);
      const rec = this.#recs.get(key);
      if (rec) return this.#applyServerTask(rec, task, 'list');
      // Not one the user removed: a new task that reuses its id has another createdAt (one of no date, read as when it was first listed, cannot tell).
      const gone = this.#removed.get(key);
      if (gone && gone.createdAt === validDate(task.createdAt, parseDate(gone.createdAt))) return;
      // Ended, and past what a removal's memory covers (its ttl and an hour): nothing its server still promises.
      if (isTerminal(task.status) && (serverForgetsAt(task) ?? Infinity) < this.#now()) return;
      this.#adoptListed(serverId, task, joined++);
      return true;
    }, undefined, [1e3, '1,000 new tasks', 'Refresh again to add the next ones']);
    return joined;
  }

  /**
   * Fetches the result of an ended task soon (the `i`th of a batch, a few ms apart, so a reload
   * or a list with many does not burst) when autoFetchResults wants it and it is not in hand. A
   * new configuration waits for it meanwhile (see liveCount), as for a task that ended here.
   */
  #fetchSoon(rec: Rec, i: number): boolean {
    if (!this.#wantsOutcome(rec)) return false;
    this.#unfetched.set(rec, 0);
    this.#refetch.schedule(rec.snap.key, this.#now() + 50 + i * 5);
    return true;
  }

  /**
   * Pages through `tasks/list` (T-REQ-6), handing each valid task to `onTask`: cursors go back
   * verbatim; a repeated cursor or more than `maxListPages` pages stop it with an error in the
   * log, and `enough(pagesSent)` stops it before a further page. Returns the pages sent.
   */
  #pageList(session: McpSession, serverId: string, onTask: (task: Task) => unknown, enough?: (pages: number) => boolean, limit?: [number, string, string]): Promise<number> {
    const log = this.#serverLog(serverId);
    const page = (cursor?: string) =>
      session.request(TASKS_LIST, cursor === undefined ? {} : { cursor }, ListTasksResultSchema, { timeoutMs: this.#timeout() }).then((r) => ({ items: r.tasks, nextCursor: r.nextCursor }));
    return pageThrough(TASKS_LIST, log, this.#options.maxListPages ?? 1000, page, (raw) => {
      const t = TaskSchema.safeParse(raw);
      return t.success ? onTask(t.data) : log.warn(`${TASKS_LIST}: skipped an invalid task: ${describeIssues(t.error)}`);
    }, enough, limit);
  }

  /** A task found through tasks/list, the `i`th of its list: followed while live; ended (in another window, before a reload), its result is fetched as if it had ended here. */
  #adoptListed(serverId: string, task: Task, i: number): void {
    const rec = this.#addTask(serverId, task, { toolName: '', status: task.status, origin: SERVER_LIST });
    this.#serverLog(serverId).info(`Task ${task.taskId} found through ${TASKS_LIST} (${task.status})`);
    if (isTerminal(task.status)) this.#fetchSoon(rec, i);
    else {
      this.#scheduleNext(rec);
      if (task.status === INPUT_REQUIRED) void this.#resultCall(rec);
    }
  }

  /**
   * The server denies the task (`said`: its words, see `denial`), or its server is gone: `expired`
   * if its ttl had ended, else `lost`. The last status and any outcome already fetched are kept.
   */
  #gone(rec: Rec, why: string, said?: string): void {
    const serverDenied = said !== undefined;
    // A denial is an answer: its server is reached (one restarted that forgot its tasks may have no task left to poll it).
    if (serverDenied) this.#reached(rec.snap.serverId);
    if (isTerminal(rec.snap.status)) return;
    // Outlived its closed connection, and lost before its server's next word for another reason
    // (removed from the configuration, no process that knows it), or denied at another endpoint
    // (its url changed since): told unchanged first, as a task found alive is (see
    // applyServerTask), so a Disconnect's notification rule does not take the loss for the
    // Disconnect's doing.
    if ((!serverDenied || this.#outlived.get(rec) !== this.#sessions.endpoint?.(rec.snap.serverId)) && this.#outlived.delete(rec)) this.#onDidChange.fire(rec.snap);
    this.#markGone(rec, why, said);
  }

  /** Lost with the process that ran it: one of a closed window's, if restored from it and not seen since (the notifications say so once for all). */
  #processGone(rec: Rec): void {
    this.#gone(rec, rec.restored ? WINDOW_CLOSED : PROCESS_GONE);
  }

  /** What `gone` does, also for a task that ended on the server but whose result it no longer has. */
  #markGone(rec: Rec, why: string, said?: string): void {
    const expiresAt = rec.snap.ttl === null ? Infinity : parseDate(rec.snap.createdAt) + rec.snap.ttl;
    const status: LocalTaskStatus = said !== undefined && this.#now() >= expiresAt ? EXPIRED : LOST;
    // The engine's words, then the server's in brackets; the log keeps them all.
    const full = said === undefined ? why : `${why} (${said})`;
    this.#scheduler.cancel(rec.snap.key);
    this.#unrouteProgress(rec);
    // Expired (so denied: `said` is there), its note leaves out server words that only say it is gone (SAYS_GONE).
    this.#update(rec, { status, lastServerStatus: rec.snap.status as TaskStatus, note: status === EXPIRED ? `Its ttl of ${formatDuration(rec.snap.ttl!)} ended; ${SAYS_GONE.test(said!) ? why : full}.` : `${capitalize(full)}.` });
    this.#serverLog(rec.snap.serverId).warn(`Task ${rec.snap.taskId} (${rec.snap.toolName}) is ${status}: ${full}`);
  }

  // ── Tracking ───────────────────────────────────────────────────────────────────────────────

  /**
   * Adds tasks kept from an earlier window. Live ones are re-attached by id on their next poll,
   * which connects their server lazily; what the server denies becomes lost or expired. `removed`:
   * the tasks the user took out of the list in earlier windows, which Refresh does not bring back.
   */
  restore(snapshots: readonly TaskSnapshot[], progressTokens?: ReadonlyMap<string, string>, removed: readonly RemovedTask[] = []): void {
    for (const r of removed) this.#removed.set(r.key, r);
    let i = 0;
    for (const snap of snapshots) {
      if (this.#recs.has(snap.key)) continue;
      const rec = this.#addRec(snap, progressTokens?.get(snap.key), false);
      if (isTerminal(snap.status)) {
        // Ended, but its result could not be fetched before the reload.
        if (this.#fetchSoon(rec, i)) i++;
        continue;
      }
      if (snap.kind === DIRECT) {
        // A plain call cannot outlive the window that made it.
        this.#update(rec, { status: LOST, lastServerStatus: WORKING, note: 'The window closed before the call returned.' });
        continue;
      }
      // The process of a stdio server ended with the previous window. Where the server is not known
      // yet (restore comes before the configuration loads), the first poll decides once it is, or
      // the first session attached (see `poll` and `attachSession`), before anything is sent.
      rec.restored = rec.unheard = true;
      if (this.#sessions.tasksOutliveConnection(snap.serverId) === false) {
        this.#processGone(rec);
        continue;
      }
      // T-REQ-8: a session attached before the restore gets no other chance to route its progress.
      const attached = this.#attached.get(snap.serverId);
      if (attached) this.#routeProgress(rec, attached.session);
      // Staggered, so a reload with many tasks does not burst.
      this.#scheduler.schedule(snap.key, this.#now() + 50 + i++ * 5);
    }
  }

  /** The tasks the user took out of the list (persisted, so Refresh does not bring them back after a reload). */
  removedTasks(): RemovedTask[] {
    return [...this.#removed.values()];
  }

  /** The progress token of a task (persisted so progress still arrives after a resume). */
  progressToken(key: string): string | undefined {
    return this.#recs.get(key)?.progressToken;
  }

  /** Stops tracking a task (its outcome goes with it). Live tasks keep running on the server. */
  remove(key: string): void {
    const rec = this.#recs.get(key);
    if (!rec) return;
    this.#scheduler.cancel(key);
    this.#refetch.cancel(key);
    this.#refetchDelay.delete(key);
    this.#invalid.delete(key);
    if (!isTerminal(rec.snap.status)) this.#unrouteProgress(rec);
    this.#recs.delete(key);
    // Remembered while its server may list it again: until its ttl ends (or the retention period does).
    this.#removed.set(key, { key, createdAt: rec.snap.createdAt, removedAt: this.#now(), until: serverForgetsAt(rec.snap) });
    this.#outlived.delete(rec);
    this.#unfetched.delete(rec);
    this.#unhold(rec);
    for (const [from, to] of this.#moved) if (to === key) this.#moved.delete(from);
    this.#servers.get(rec.snap.serverId)?.live.delete(rec);
    this.#onDidRemove.fire(key);
  }

  /**
   * Drops every outcome in hand, once their stored files are deleted (Clear Stored Results):
   * nothing then claims a result it no longer has. A task's result can be fetched again while
   * its server keeps it; a plain call's cannot, and its note says so.
   */
  forgetOutcomes(): void {
    for (const rec of this.#recs.values()) {
      if (rec.snap.outcome === undefined && rec.snap.outcomeFetchedAt === undefined) continue;
      this.#update(rec, { outcome: undefined, outcomeFetchedAt: undefined, resultDeleted: true, ...(rec.snap.kind === DIRECT && { note: `${DELETED}.` }) });
    }
  }

  /** Removes every ended task. Returns how many. */
  clearFinished(): number {
    let n = 0;
    for (const rec of [...this.#recs.values()]) {
      if (isTerminal(rec.snap.status)) {
        this.remove(rec.snap.key);
        n++;
      }
    }
    return n;
  }

  /** Tracks a task as its server reported it (dates and ttl made sane), with what is known here (`mine`: its tool, status, origin...). */
  #addTask(serverId: string, task: Task, mine: Pick<TaskSnapshot, 'toolName' | 'status' | 'origin'> & Partial<TaskSnapshot>, progressToken?: string): Rec {
    const createdAt = validDate(task.createdAt, this.#now());
    const rec = this.#addRec(
      {
        key: taskKey(serverId, task.taskId),
        serverId,
        taskId: task.taskId,
        kind: TASK,
        statusMessage: clip(task.statusMessage),
        createdAt,
        // One string for both when they are equal, as they are for a new task.
        lastUpdatedAt: task.lastUpdatedAt === task.createdAt ? createdAt : validDate(task.lastUpdatedAt, this.#now()),
        ttl: sanitizeTtl(task.ttl),
        pollInterval: task.pollInterval,
        ...mine,
      },
      progressToken,
    );
    rec.localUpdatedAt = Number.isNaN(parseDate(task.lastUpdatedAt));
    // Its message as the server sent it: an end's clipped alike is then told apart (T-LIFE-5).
    rec.said = saidOf(task.statusMessage);
    return rec;
  }

  #addRec(snap: TaskSnapshot, progressToken?: string, log = true): Rec {
    const rec = new Rec(snap, progressToken);
    this.#recs.set(snap.key, rec);
    if (!isTerminal(snap.status)) {
      let f = this.#servers.get(snap.serverId);
      if (!f) this.#servers.set(snap.serverId, (f = { live: new Set(), byList: false, cycling: false, cycle: 0, failures: 0, probeAt: 2, probeAfter: Infinity }));
      f.live.add(rec);
    }
    if (log) this.#serverLog(snap.serverId).debug(`Tracking ${snap.kind} ${snap.taskId}`);
    this.#onDidChange.fire(snap);
    return rec;
  }

  #update(rec: Rec, changes: Partial<TaskSnapshot>): void {
    // A note may be made of a server's error message.
    changes.note &&= clip(changes.note);
    rec.snap = { ...rec.snap, ...changes };
    // The server has moved on: no answer of the user's is missing any more.
    if (changes.status && changes.status !== INPUT_REQUIRED) delete rec.snap.unsent;
    if (changes.status !== undefined && isTerminal(changes.status)) {
      rec.listed = false;
      this.#outlived.delete(rec);
      this.#servers.get(rec.snap.serverId)?.live.delete(rec);
      // Not one removed meanwhile (a poll in flight): nothing would take it out again.
      if (this.#wantsOutcome(rec) && this.#recs.get(rec.snap.key) === rec) this.#unfetched.set(rec, 0);
    }
    if (this.#recs.get(rec.snap.key) !== rec) return;
    this.#onDidChange.fire(rec.snap);
    // After the change is told: the store has the outcome to write by then.
    if ('outcome' in changes) this.#hold(rec, changes.outcome);
  }

  /**
   * Keeps `outcome` in memory as the newest; outcomes beyond outcomeMemoryChars leave it, the
   * least recently kept first, where they are stored (a result fetched or read back is in a
   * file): a long session of large results held every one. They are read back when asked for.
   */
  #hold(rec: Rec, outcome: TaskOutcome | undefined): void {
    this.#unhold(rec);
    const max = this.#options.loadOutcome && (this.#options.outcomeMemoryChars ?? OUTCOME_MEMORY_CHARS);
    if (!outcome || !max) return;
    this.#held.set(rec, charsOf(outcome));
    this.#heldChars += this.#held.get(rec)!;
    for (const [old] of this.#held) {
      if (this.#heldChars <= max || old === rec) break;
      this.#unhold(old);
      if (old.snap.outcomeFetchedAt) old.snap = { ...old.snap, outcome: undefined };
    }
  }

  #unhold(rec: Rec): void {
    this.#heldChars -= this.#held.get(rec) ?? 0;
    this.#held.delete(rec);
  }

  /** The engine is shutting down: answers that come now are dropped, and nothing is tried again. */
  get #disposed(): boolean {
    return this.#lifetime.signal.aborted;
  }

  #label(serverId: string): string {
    return this.#sessions.label(serverId);
  }

  /** The log, each line headed with the server's name (`[name] `). */
  #serverLog(serverId: string): Logger {
    return prefixed(this.#log, () => this.#label(serverId));
  }

  /** `tasks/get` of one task (T-REQ-9: the taskId param is the truth; no related-task _meta). */
  #getTask(session: McpSession, taskId: string): Promise<Task> {
    return session.request(TASKS_GET, { taskId }, TaskSchema, { timeoutMs: this.#timeout() });
  }

  /** Now, as the ISO 8601 string snapshots hold. */
  #nowIso(): string {
    return new Date(this.#now()).toISOString();
  }

  #timeout(): number {
    const t = this.#options.requestTimeoutMs;
    return (typeof t === 'function' ? t() : t) ?? 30_000;
  }

  override dispose(): void {
    abortWith(this.#lifetime, SHUTTING_DOWN);
    this.#scheduler.dispose();
    this.#cycles.dispose();
    this.#refetch.dispose();
    for (const f of this.#servers.values()) for (const rec of f.live) this.#unrouteProgress(rec);
    for (const a of this.#attached.values()) a.store.dispose();
    this.#attached.clear();
    super.dispose();
  }
}

/** Whether a session's server declared `tasks/list`. */
const lists = (session: McpSession | undefined): session is McpSession => session !== undefined && session.supportsTasks && declared(session.serverCapabilities.tasks?.list);

/**
 * Why a task is lost or expired when `err` is its server's answer to a tasks/get: -32602, it no
 * longer knows the task; -32601, it no longer has tasks at all (another server now answers there).
 * In the engine's words, then the server's, apart: an expired task's note may leave them out (SAYS_GONE).
 */
const denial = (err: unknown): [why: string, said: string] | undefined => {
  if (!isPeerError(err)) return undefined;
  if (err.code === ErrorCode.InvalidParams) return ['the server no longer knows the task', reasonOf(err)];
  if (err.code === ErrorCode.MethodNotFound) return [`the server no longer answers ${TASKS_GET}`, reasonOf(err)];
  return undefined;
};

/**
 * Server words that say no more than "the server no longer knows the task" (for -32601, "no longer
 * answers tasks/get": `Method not found`), which an expired task's note says already: `Task not
 * found`, `Task has expired`, `task not found 't-9'`, after a `Failed to …: ` lead or not, with at
 * most a word (the task's id) after, a colon before it or not (the SDKs' `Task not found: <id>`),
 * and a bracketed word on its ttl, which the note gives in plain time. Any other words are the
 * server's to say, kept whole ("access token expired; sign in again", "Task not found (database
 * offline)"). No words at all (reasonOf's "the server gave no reason (error N)") say no more either.
 */
const SAYS_GONE = /^((failed to [^:]*: )?(method|task( \S+)?) (is |has )?(not found|expired)(:? \S+)?( \(its ttl[^)]*\))?\.?|the server gave no reason .*)$/i;

const clamp = (n: number, min: number, max: number): number => (isFiniteNumber(n) ? minOf(maxOf(n, min), max) : max);

/** A ttl the server reported: a non-negative finite number, or null (unlimited). Nonsense is null. */
const sanitizeTtl = (ttl: number | null): number | null => (ttl !== null && isFiniteNumber(ttl) && ttl >= 0 ? ttl : null);

/** An ISO 8601 date from a server, or now when it sent something unreadable. */
const validDate = (s: string, now: number): string => {
  const t = parseDate(s);
  return new Date(Number.isNaN(t) ? now : t).toISOString();
};

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** `1 task`, `3 tasks`. */
const tasks = (n: number): string => `${n} task${n === 1 ? '' : 's'}`;
