// What chat agents (language-model tools) and other extensions (the public API) may do with
// servers and tasks, as plain data. Both front ends go through this one class, so they behave
// alike and neither hands out the engine's own objects.
import type { CallToolResult } from '../protocol/schemas';
import { CANCELLED, declared } from '../protocol/schemas';
import type { ServerManager, ServerSnapshot, ServerStateKind } from '../servers/serverManager';
import type { TaskEngine } from '../tasks/engine';
import { callMode, HeldByUserError } from '../tasks/engine';
import type { ExecutionPreference } from '../tasks/policy';
import { hasKeptResult, isCancelable, serverAcceptsToolTasks, taskSupportOf } from '../tasks/policy';
import { newestFirstOf, runTitle } from '../tasks/presentation';
import type { LocalTaskStatus } from '../tasks/status';
import { isTerminal } from '../tasks/status';
import type { TaskOrigin, TaskSnapshot } from '../tasks/types';
import { DIRECT, SHUTTING_DOWN, TASK, taskKey } from '../tasks/types';
import { abortWith, anySignal, errorMessage, MAX_TIMER_MS, newController, onAbort, raceAbort } from '../util/abort';
import type { Disposable, Event } from '../util/event';
import type { Logger } from '../util/log';
import { fromJson, safeStringify, stringify } from '../util/json';
import { maxOf, minOf, now, round } from '../util/builtins';

export type TaskSupportValue = 'forbidden' | 'optional' | 'required';

/** One configured server. `tasks` is known only once it is connected. */
export interface ServerInfo {
  id: string;
  name: string;
  label: string;
  type: ServerSnapshot['type'];
  state: ServerStateKind;
  stateMessage?: string;
  /** The user disconnected it (`idle`): not connected again, nor its tasks followed, until something connects it. */
  disconnectedByUser?: boolean;
  tasks?: { toolCalls: boolean; list: boolean; cancel: boolean };
}

export interface ToolInfo {
  serverId: string;
  name: string;
  title?: string;
  description?: string;
  /** The tool's `execution.taskSupport`; absent means `forbidden`. */
  taskSupport: TaskSupportValue;
  /** The server accepts task-augmented calls and the tool allows them. */
  runsAsTask: boolean;
  inputSchema: Record<string, unknown>;
}

/** A tracked task, copied out of the engine (changing it changes nothing). */
export interface TaskInfo {
  /** Unique among tracked tasks; what the other methods take. */
  id: string;
  serverId: string;
  serverLabel: string;
  taskId: string;
  kind: 'task' | 'direct';
  toolName: string;
  arguments?: Record<string, unknown>;
  status: LocalTaskStatus;
  lastServerStatus?: string;
  statusMessage?: string;
  progress?: { progress: number; total?: number; message?: string };
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
  immediateResponse?: string;
  origin: TaskOrigin;
  hasResult: boolean;
  note?: string;
}

export type TaskOutcomeInfo =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** The answer to a result request: the outcome once the task ended, else its current state. */
export interface ResultInfo {
  task: TaskInfo;
  /** The task has ended (its status is terminal). */
  done: boolean;
  outcome?: TaskOutcomeInfo;
  /** Why a task that ended has no outcome (cancelled, expired, the fetch failed), or why one still live is not followed (its server was disconnected by the user). */
  fetchError?: string;
}

export interface StartOptions {
  arguments?: Record<string, unknown>;
  ttlSeconds?: number;
  origin: TaskOrigin;
  preference?: ExecutionPreference;
  signal?: AbortSignal;
}

export interface TasksServiceDeps {
  engine: Pick<TaskEngine, 'callTool' | 'get' | 'list' | 'fetchResult' | 'cancel' | 'onDidChange' | 'onDidRemove'>;
  servers: Pick<ServerManager, 'list' | 'get' | 'getSession' | 'peekSession' | 'label' | 'heldWhy' | 'isConfigured'>;
  logger: Logger;
  /** Runs a cancel asked for through the chat tool or the API, as the view's Cancel Task does: the user's, so its end is not notified. */
  endByUser?<T>(keys: readonly string[], end: () => Promise<T>, cancel: boolean): Promise<T>;
}

/** A task id that no tracked task has; each front end adds where the tracked tasks are listed. Its name is API (mcp-tasks.d.ts). */
export class UnknownTaskError extends Error {
  override name = 'UnknownTaskError';
}

/** The least time a result request gives the fetch of an ended task's result, whatever is left of its wait. */
const FETCH_GRACE_MS = 5_000;

export class TasksService implements Disposable {
  readonly #lifetime = newController();
  readonly #deps: TasksServiceDeps;

  constructor(deps: TasksServiceDeps) {
    this.#deps = deps;
  }

  servers(): ServerInfo[] {
    return this.#deps.servers.list().map((s) => this.#serverInfo(s));
  }

  /** A server by id, label or name (in that order); the error lists what is configured. */
  resolveServer(ref: string): ServerInfo {
    const all = this.#deps.servers.list();
    const named = all.filter((s) => s.name === ref);
    const hit = all.find((s) => s.id === ref) ?? all.find((s) => s.label === ref) ?? unique(named);
    if (hit) return this.#serverInfo(hit);
    const names = all.map((s) => `"${s.label}"`).join(', ');
    throw new Error(`${named.length ? `Several MCP servers are named "${ref}"` : `No MCP server "${ref}" is configured`}${names ? `; the servers are ${names}` : ' (there are no servers)'}.`);
  }

  /**
   * Every tool of a server (connecting it first), with what it allows about tasks. `quiet`: no
   * input is asked for the connection, and a server the user disconnected (or whose input they
   * dismissed) is left so, as background work leaves it (see ServerManager.getSession).
   */
  async tools(serverId: string, signal?: AbortSignal, options?: { quiet?: boolean }): Promise<ToolInfo[]> {
    const session = await this.#deps.servers.getSession(serverId, { quiet: options?.quiet, background: options?.quiet, signal });
    const tools = await session.listTools({ signal });
    const accepts = serverAcceptsToolTasks(session.serverCapabilities, session.protocolVersion);
    return tools.map((t) => {
      const taskSupport = taskSupportOf(t) ?? 'forbidden';
      return copy({
        serverId,
        name: t.name,
        title: t.title ?? t.annotations?.title,
        description: t.description,
        taskSupport,
        runsAsTask: accepts && taskSupport !== 'forbidden',
        inputSchema: t.inputSchema,
      });
    });
  }

  /**
   * Where the tools `serverId` listed already say `toolName` cannot start as a task (there is none,
   * or it forbids tasks): the error starting it would give. Undefined where they are not known.
   */
  cannotStart(serverId: string, toolName: string): Error | undefined {
    const session = this.#deps.servers.peekSession(serverId);
    const tools = session?.knownTools;
    const mode = tools && callMode(this.#deps.servers.label(serverId), toolName, tools.find((t) => t.name === toolName), serverAcceptsToolTasks(session.serverCapabilities, session.protocolVersion), TASK);
    return mode instanceof Error ? mode : undefined;
  }

  /** Starts a tool (as a task where allowed); resolves as soon as the server answers. */
  async start(serverId: string, toolName: string, options: StartOptions): Promise<TaskInfo> {
    const snap = await this.#deps.engine.callTool(serverId, toolName, {
      arguments: options.arguments,
      // Whole milliseconds, as servers expect: 0.0004 s was sent as 0.4 ms.
      ttlMs: options.ttlSeconds !== undefined ? maxOf(1, round(options.ttlSeconds * 1000)) : undefined,
      preference: options.preference,
      origin: options.origin,
      signal: options.signal,
    });
    return this.#taskInfo(snap);
  }

  task(id: string): TaskInfo | undefined {
    const t = this.#deps.engine.get(id);
    return t && this.#taskInfo(t);
  }

  /** Every tracked task, newest first. */
  tasks(): TaskInfo[] {
    return newestFirstOf(this.#deps.engine.list()).map((t) => this.#taskInfo(t));
  }

  /** A task's name as its row in the view shows it (see runTitle). */
  title(id: string): string {
    return runTitle(this.#deps.engine.list(), this.#mustGet(id));
  }

  /**
   * A task by the server's task id, for callers (a language model) that know only that; the
   * server (id, label or name) is needed only when two servers used the same id.
   */
  findTask(taskId: string, server?: string): TaskInfo {
    const serverId = server === undefined ? undefined : this.resolveServer(server).id;
    const { engine, servers } = this.#deps;
    let hits = engine.list().filter((t) => t.taskId === taskId && (serverId === undefined || t.serverId === serverId));
    // The id of a plain call that the server required as a task leads to the task.
    if (hits.length === 0) hits = servers.list().flatMap((s) => (serverId === undefined || s.id === serverId ? (engine.get(taskKey(s.id, taskId)) ?? []) : []));
    // A server that gave the id of an ended task to a new one: the id names the new one.
    const current = hits.filter((t) => t.key === taskKey(t.serverId, t.taskId));
    if (current.length > 0) hits = current;
    if (hits.length === 1) return this.#taskInfo(hits[0]);
    if (hits.length === 0) throw new UnknownTaskError(`No task "${taskId}" is tracked${server === undefined ? '' : ` for server "${server}"`}.`);
    const labels = hits.map((t) => `"${this.#deps.servers.label(t.serverId)}"`).join(', ');
    throw new Error(`Several servers have a task "${taskId}" (${labels}): name the server too.`);
  }

  /**
   * The outcome of a task: at once if it ended, else after waiting up to `waitMs` for it to end
   * (or `signal` to abort). A task that is still running is returned as it stands, `done: false`.
   * A server the user disconnected (or whose input the user dismissed) is not connected again: `fetchError` says so, at once.
   */
  async result(id: string, waitMs = 0, signal?: AbortSignal): Promise<ResultInfo> {
    const { engine } = this.#deps;
    const deadline = now() + waitMs;
    const held = newController();
    const stop = signal ? anySignal([signal, held.signal]) : held.signal;
    let t = this.#mustGet(id);
    // Without a wait too: a live task of a server the user disconnected (or whose input the user dismissed) is followed by nothing.
    const why = this.#deps.servers.heldWhy(t.serverId);
    if (why && t.kind === TASK && !isTerminal(t.status)) held.abort(why);
    // Once more when a plain call becomes a task (the server required one): its key leads there.
    for (let fetching = false; !isTerminal(t.status) && now() < deadline && !stop.aborted && !this.#lifetime.signal.aborted; t = this.#mustGet(id)) {
      // tasks/result blocks until the task ends, so the wait ends as soon as the task does,
      // not at the next poll. It is shared with the engine's own fetch; errors surface below.
      if (t.kind === TASK && !fetching) {
        fetching = true;
        void engine.fetchResult(id, true).catch((err: unknown) => err instanceof HeldByUserError && held.abort(err));
      }
      await this.#whenEnded(t.key, deadline - now(), stop);
    }
    if (!isTerminal(t.status)) return { task: this.#taskInfo(t), done: false, fetchError: held.signal.aborted ? errorMessage(held.signal.reason) : undefined };
    if (t.outcome) return { task: this.#taskInfo(t), done: true, outcome: copy(t.outcome) };
    if (t.status === CANCELLED) return { task: this.#taskInfo(t), done: true, fetchError: 'The task was cancelled; it has no result.' };
    // The fetch is bounded too: by what is left of the wait (at least FETCH_GRACE_MS), the
    // caller's signal and shutdown. It goes on in the engine; a later call finds its outcome.
    const bound = anySignal([this.#lifetime.signal, AbortSignal.timeout(minOf(maxOf(deadline - now(), FETCH_GRACE_MS), MAX_TIMER_MS)), ...(signal ? [signal] : [])]);
    try {
      const outcome = await raceAbort(engine.fetchResult(id, true), bound);
      return { task: this.#taskInfo(this.#mustGet(id)), done: true, outcome: copy(outcome) };
    } catch (err) {
      const why = bound.aborted && !signal?.aborted && !this.#lifetime.signal.aborted ? 'The server has not sent the result yet; ask again in a moment.' : errorMessage(err);
      return { task: this.#taskInfo(this.#mustGet(id)), done: true, fetchError: why };
    }
  }

  /** Whether the task can be cancelled, as the view offers Cancel: live, on a configured server that takes `tasks/cancel` (or may: not connected yet), or a direct call. */
  cancelable(id: string): boolean {
    return isCancelable(this.#mustGet(id), this.#deps.servers);
  }

  /** `signal`: stops waiting for the task's server to connect. `by`: who asked, for the log (the user, by default). */
  async cancel(id: string, signal?: AbortSignal, by?: string): Promise<TaskInfo> {
    this.#mustGet(id);
    const cancel = () => this.#deps.engine.cancel(id, signal, by);
    const t = await (this.#deps.endByUser?.([id], cancel, true) ?? cancel());
    // A direct call ends as its aborted request settles, a moment later: answer with that end.
    if (t.kind === DIRECT) await this.#whenEnded(t.key, 1000);
    return this.#taskInfo(this.#deps.engine.get(t.key) ?? t);
  }

  /** Each listener gets its own copy of each change; a listener that throws is logged. */
  readonly onDidChangeTask: Event<TaskInfo> = (listener) =>
    this.#deps.engine.onDidChange((t) => {
      try {
        listener(this.#taskInfo(t));
      } catch (err) {
        this.#deps.logger.error(`A listener of task changes failed: ${errorMessage(err)}`);
      }
    });

  dispose(): void {
    abortWith(this.#lifetime, SHUTTING_DOWN);
  }

  #mustGet(id: string): TaskSnapshot {
    const t = this.#deps.engine.get(id);
    if (!t) throw new UnknownTaskError(`No task with id ${stringify(id)} is tracked.`);
    return t;
  }

  /** Resolves when the task of key `id` ends or is removed, after `ms`, or when a signal aborts; never rejects. */
  #whenEnded(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    const { engine } = this.#deps;
    // A signal of this wait's own: a listener on the shared ones per wait would pile up (and
    // warn past ten) while many callers wait.
    const stop = anySignal([this.#lifetime.signal, ...(signal ? [signal] : [])]);
    return new Promise((resolve) => {
      const subs: Disposable[] = [];
      const timer = setTimeout(() => done(), minOf(ms, MAX_TIMER_MS));
      const done = () => {
        clearTimeout(timer);
        for (const s of subs) s.dispose();
        unstop();
        resolve();
      };
      const unstop = onAbort(stop, done);
      subs.push(
        engine.onDidChange((t) => t.key === id && isTerminal(t.status) && done()),
        engine.onDidRemove((key) => key === id && done()),
      );
      const now = engine.get(id);
      if (!now || isTerminal(now.status) || stop.aborted) done();
    });
  }

  #serverInfo(s: ServerSnapshot): ServerInfo {
    const session = this.#deps.servers.peekSession(s.id);
    const caps = session?.serverCapabilities;
    const tasks = session?.supportsTasks ? caps?.tasks : undefined;
    return copy({
      id: s.id,
      name: s.name,
      label: s.label,
      type: s.type,
      state: s.state.kind,
      stateMessage: s.state.message,
      disconnectedByUser: s.heldByUser,
      tasks: session
        ? {
            toolCalls: serverAcceptsToolTasks(caps, session.protocolVersion),
            list: declared(tasks?.list),
            cancel: declared(tasks?.cancel),
          }
        : undefined,
    });
  }

  #taskInfo(t: TaskSnapshot): TaskInfo {
    // What TaskInfo declares: not requestedTtl, which the engine keeps for Run Again, nor unsent, the view's Send Again, nor cancelRequested, its notifications'.
    const { key, outcome: _outcome, outcomeFetchedAt: _fetchedAt, resultDeleted: _deleted, requestedTtl: _asked, unsent: _unsent, cancelRequested: _cancel, ...rest } = t;
    return copy({ id: key, serverLabel: this.#deps.servers.label(t.serverId), ...rest, hasResult: hasKeptResult(t) });
  }
}

const unique = <T>(items: T[]): T | undefined => (items.length === 1 ? items[0] : undefined);

/**
 * A deep copy without undefined members: what leaves this module is plain data of its own. A
 * result nested too deeply to copy (or stringify again) has its deepest parts replaced (safeStringify).
 */
const copy = <T>(value: T): T => fromJson(safeStringify(value)) as T;
