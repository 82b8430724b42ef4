import type { ServerConfig } from '../config/types';
import type { ServerCapabilities, TaskSupport, Tool } from '../protocol/schemas';
import { COMPLETED, declared, FAILED } from '../protocol/schemas';
import type { ServerManager } from '../servers/serverManager';
import { isTerminal, LOST } from './status';
import type { TaskSnapshot } from './types';
import { DIRECT, TASK } from './types';
import { STDIO } from '../config/types';

/** How the user wants a tool run: `auto` runs it as a task wherever that is allowed. */
export type ExecutionPreference = 'auto' | 'task' | 'direct';

export type ExecutionDecision = { mode: 'task' } | { mode: 'direct' } | { mode: 'refuse'; reason: string };

/** T-CAP-2, T-TOOL-1: the server declared task-augmented `tools/call`. */
export const serverAcceptsToolTasks = (capabilities: ServerCapabilities | undefined, protocolVersion: string | undefined): boolean => {
  return protocolVersion === '2025-11-25' && declared(capabilities?.tasks?.requests?.tools?.call);
};

/** A tool's `execution.taskSupport`, if it has one (absent means `forbidden`). */
export const taskSupportOf = (tool: Tool | undefined): TaskSupport | undefined => tool?.execution?.taskSupport;

/**
 * Whether to call a tool as a task (T-TOOL-1..4): only when the server declared task-augmented
 * `tools/call` and the tool's `taskSupport` allows it; `required` tools always as tasks; absent or
 * `forbidden` never. A `required` tool on a server without task support cannot be called at all.
 */
export const decideExecution = (serverAcceptsTasks: boolean, taskSupport: TaskSupport | undefined, preference: ExecutionPreference = 'auto'): ExecutionDecision => {
  const support = taskSupport ?? 'forbidden';
  const noTasks = 'the server does not declare task support for tools/call';
  if (support === 'required') {
    if (!serverAcceptsTasks) return { mode: 'refuse', reason: `the tool must run as a task, but ${noTasks}` };
    if (preference === DIRECT) return { mode: 'refuse', reason: 'the tool must run as a task; it cannot be called directly' };
    return { mode: TASK };
  }
  if (support === 'optional' && serverAcceptsTasks) return preference === DIRECT ? { mode: DIRECT } : { mode: TASK };
  if (preference === TASK) {
    return {
      mode: 'refuse',
      reason: serverAcceptsTasks ? 'the tool does not support running as a task' : noTasks,
    };
  }
  return { mode: DIRECT };
};

/** A retry as a task after -32600 on a plain call is allowed only where a task call would be. */
export const mayRetryAsTask = (serverAcceptsTasks: boolean, taskSupport: TaskSupport | undefined): boolean => serverAcceptsTasks && (taskSupport === 'optional' || taskSupport === 'required');

/**
 * Whether the user can cancel `t` (the view's Cancel, the Cancel Task pick): live, and a direct
 * call (stopped here) or a task on a configured server that takes `tasks/cancel` (or is not
 * connected yet, so not known not to). A task of a server removed from the configuration cannot
 * be reached to cancel it.
 */
export const isCancelable = (t: TaskSnapshot, servers: Pick<ServerManager, 'peekSession' | 'isConfigured'>): boolean => {
  if (isTerminal(t.status)) return false;
  if (t.kind === DIRECT) return true;
  if (servers.isConfigured(t.serverId) === false) return false;
  const caps = servers.peekSession(t.serverId)?.serverCapabilities;
  return !caps || declared(caps.tasks?.cancel);
};

/** What Disconnect or Restart would cost a server's live tasks (they ask first when anything). */
export interface DisconnectCost {
  /** Live work that ends with the connection: direct calls, and a stdio server's tasks (its process ends). */
  ended: number;
  /** Of those, the direct calls (named as calls when they are all that ends). */
  calls: number;
  /**
   * Live tasks a new connection may not find: a legacy SSE or WebSocket connection cannot be
   * resumed, and a server may keep its tasks per connection (the SDK's examples do). A Streamable
   * HTTP session is kept and resumed instead.
   */
  atRisk: number;
}

/**
 * `type` undefined: a server not configured (yet), whose calls are all that is known to end.
 * `moved`: removed, or its new configuration waits; its connection is the last to its tasks'
 * endpoint, so they end with it whatever the transport. `pending`: its task-augmented calls not
 * answered yet (no task to count): they end as calls do.
 */
export const disconnectCost = (tasks: readonly TaskSnapshot[], serverId: string, type: ServerConfig['type'] | undefined, moved = false, pending = 0): DisconnectCost => {
  const cost = { ended: pending, calls: pending, atRisk: 0 };
  for (const t of tasks) {
    if (t.serverId !== serverId || isTerminal(t.status)) continue;
    if (t.kind === DIRECT) cost.calls++;
    if (t.kind === DIRECT || type === STDIO || moved) cost.ended++;
    else if (type === 'sse' || type === 'ws') cost.atRisk++;
  }
  return cost;
};

/** Whether a result (or error) is kept here for `t`: Remove from List and Clear Finished Tasks delete it with the task, so they ask first. */
export const hasKeptResult = (t: TaskSnapshot): boolean => t.outcome !== undefined || t.outcomeFetchedAt !== undefined;

/**
 * Whether a task has a result to open (the view's Open Result): a kept result, or an ended task
 * whose server gives one (`completed`, or `failed` with its error). A cancelled task's
 * `tasks/result` mostly gives an error saying it has none, which the engine does not keep: one
 * is offered only with a result kept (its work finished before the cancel took, T-LIFE-4).
 */
export const hasResult = (t: TaskSnapshot): boolean => hasKeptResult(t) || (t.kind === TASK && (t.status === COMPLETED || t.status === FAILED));

/** Whether `t` ended with a result (or error) that only its server has: removing `t` loses the one handle here to fetch it, so Remove from List and Clear Finished Tasks ask first. */
export const hasUnfetchedResult = (t: TaskSnapshot): boolean => hasResult(t) && !hasKeptResult(t);

/** Why a task restored from a closed window, of a server whose tasks die with its process, is lost (see `lostWithWindow`). */
export const WINDOW_CLOSED = "The window closed, and with it the server's process that ran it; a new process does not know its tasks";

/** A task lost because the window that followed it closed, and its stdio server's process with it. */
export const lostWithWindow = (t: TaskSnapshot): boolean => t.status === LOST && t.note === `${WINDOW_CLOSED}.`;

/** Whether Fetch Task Result offers `t`: what the view opens, and a live task, whose result it waits for. */
export const hasResultToFetch = (t: TaskSnapshot): boolean => hasResult(t) || (t.kind === TASK && !isTerminal(t.status));
