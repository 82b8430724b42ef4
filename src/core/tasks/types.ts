import type { CallToolResult, TaskStatus } from '../protocol/schemas';
import type { LocalTaskStatus } from './status';

/** The outcome of a task as the server sent it: a `CallToolResult`, or a JSON-RPC error verbatim. */
export type TaskOutcome =
  | { kind: 'result'; result: CallToolResult }
  | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

/** Who started a task. `server-list`: found through `tasks/list` (another window, before a reload). */
export type TaskOrigin = 'user' | 'chat' | 'api' | 'server-list';

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
}

export function taskKey(serverId: string, taskId: string): string {
  return `${serverId}\u0000${taskId}`;
}
