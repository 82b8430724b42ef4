import type { CallToolResult, TaskStatus } from '../protocol/schemas';
import { ErrorCode, RpcError } from '../jsonrpc/errors';
import type { LocalTaskStatus } from './status';
import { isNumber } from '../util/json';

/** A plain tools/call, not a task: the snapshot kind, the execution mode and preference (one string in the bundle for its 20 uses). */
export const DIRECT = 'direct';
/** How the note of a result that Clear Stored Results deleted begins. */
export const DELETED = 'Its stored result was deleted';
/** What a result kept in a file that cannot be read is (see TaskStore.loadOutcome). */
export const UNREADABLE = 'missing or damaged (see the log)';
/** The status message of what the user cancelled here: a direct call, a hosted task. */
export const CANCELLED_BY_USER = 'Cancelled by the user';
/** Why what waits on the extension's lifetime stops: the engine's polls, the API's waits. */
export const SHUTTING_DOWN = 'The extension is shutting down';
/** A task, the other kind and mode (and the tree's node for one): one string in the bundle likewise. */
export const TASK = 'task';
/** The origin of a task found through tasks/list, not started here: one string in the bundle likewise. */
export const SERVER_LIST = 'server-list';

/** The outcome of a task as the server sent it: a `CallToolResult`, or a JSON-RPC error verbatim. */
export type TaskOutcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** A server's live tasks, its running calls (direct, or waiting for the task they create), and its ended tasks whose result is still to fetch (see `liveCount`). */
export interface LiveWork {
  tasks: number;
  calls: number;
  results: number;
  /** Of `tasks`, those waiting for input: their question comes on the connection's streams. */
  asking?: number;
}

/** Who started a task. `server-list`: found through `tasks/list` (another window, before a reload). */
export type TaskOrigin = 'user' | 'chat' | 'api' | 'server-list';

/**
 * A task the user took out of the list (Remove, Clear Finished), remembered so that tasks/list
 * does not bring it back: by key, with when it was created (a new task under the same id is not
 * it) and when it was removed (the memory lasts the retention period; see TaskStore).
 */
export interface RemovedTask {
  key: string;
  createdAt: string;
  removedAt: number;
  /** When its server no longer keeps it, by its ttl (see serverForgetsAt): none, not before the retention period ends. */
  until?: number;
}

/**
 * Everything known about one tracked task, as a plain serialisable object. The editor shows and
 * persists these without knowing the protocol.
 */
export interface TaskSnapshot {
  /** `serverId` and `taskId` joined: unique among all tracked tasks. */
  key: string;
  serverId: string;
  /** The server's task id; for a direct (non-task) call, a local id starting with `direct-`. */
  taskId: string;
  /** `task`: task-augmented; `direct`: a plain `tools/call` (the tool forbids tasks). */
  kind: 'task' | 'direct';
  toolName: string;
  arguments?: Record<string, unknown>;
  status: LocalTaskStatus;
  /** For `expired` and `lost`: the last status the server reported. */
  lastServerStatus?: TaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  /** Retention in ms from `createdAt`, as the server reported it; null: unlimited. */
  ttl: number | null;
  /**
   * The ttl its call asked for (ms), which a server may grant less of; null: none (the default
   * setting applied). Unknown (absent) for a task found through tasks/list or stored by an older version.
   */
  requestedTtl?: number | null;
  pollInterval?: number;
  progress?: { progress: number; total?: number; message?: string };
  /** `_meta["io.modelcontextprotocol/model-immediate-response"]` of the `CreateTaskResult`. */
  immediateResponse?: string;
  origin: TaskOrigin;
  outcome?: TaskOutcome;
  /** When the outcome was fetched (ISO 8601). */
  outcomeFetchedAt?: string;
  /** The user deleted the stored result (Clear Stored Results): it is not fetched again unless asked for. */
  resultDeleted?: true;
  /** Why the task ended locally (lost, expired) or a fetch failed, in a sentence. */
  note?: string;
  /** The user asked its server to cancel it (tasks/cancel sent, not failed): the end that brings is theirs, also after a window reload. */
  cancelRequested?: true;
  /**
   * Why the answer to the task's question (or sampling request) could not be sent, while the task
   * is `input_required`: it waits for that answer at the server, not for the user here.
   */
  unsent?: string;
}

/**
 * The ttl Run Again asks for (ms): what the first run asked for, not what a server that caps it
 * granted, or else (unknown) the granted one; undefined: none, so the mcpTasks.defaultTtlSeconds setting applies.
 */
export const rerunTtl = ({ requestedTtl: asked, ttl }: TaskSnapshot): number | undefined => (isNumber(asked) ? asked : asked === null ? undefined : (ttl ?? undefined));

export const taskKey = (serverId: string, taskId: string): string => `${serverId}\u0000${taskId}`;

/** The key of a task a server asked this client to run (TaskHost), apart from the keys of tracked tasks. */
export const hostedKey = (serverId: string, taskId: string): string => `hosted\u0000${taskKey(serverId, taskId)}`;

/** The tracked task a server's request is about, else the direct calls it may be about. */
const tracked = (ctx: { task?: { key: string }; calls?: string[] }): string[] => (ctx.task ? [ctx.task.key] : [...(ctx.calls ?? [])]);

/** What a dialog for a server's request is about: its tracked task (or the direct calls it may be about) and its hosted task, by key. */
export const requestAbout = (ctx: { serverId: string; task?: { key: string }; calls?: string[]; hostedTaskId?: string }): string[] => {
  const about = tracked(ctx);
  if (ctx.hostedTaskId !== undefined) about.push(hostedKey(ctx.serverId, ctx.hostedTaskId));
  return about;
};

/**
 * Notes in `refused` (`yes`) that the user refused a server's request (denied its sampling,
 * declined or cancelled its question), or takes the note back: a failure of its task or direct calls that
 * follows is the user's doing, so it is not notified (the row and the log say it).
 */
export const noteRefusal = (refused: Set<string>, ctx: { task?: { key: string }; calls?: string[] }, yes: boolean): void => {
  for (const key of tracked(ctx)) {
    if (yes) refused.add(key);
    else refused.delete(key);
  }
};

/** Why a server's request about a task is withdrawn from the user: the task ended. An expected end, not a failure. */
export class TaskEndedError extends RpcError {
  constructor(status: string) {
    super(ErrorCode.InternalError, `the task ended (${status})`);
  }
}
