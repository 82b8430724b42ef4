import type { ServerCapabilities, TaskSupport } from '../protocol/schemas';
import type { ServerManager } from '../servers/serverManager';
import { isTerminal } from './status';
import type { TaskSnapshot } from './types';

/** How the user wants a tool run: `auto` runs it as a task wherever that is allowed. */
export type ExecutionPreference = 'auto' | 'task' | 'direct';

export type ExecutionDecision = { mode: 'task' } | { mode: 'direct' } | { mode: 'refuse'; reason: string };

/** T-CAP-2, T-TOOL-1: the server declared task-augmented `tools/call`. */
export function serverAcceptsToolTasks(capabilities: ServerCapabilities | undefined, protocolVersion: string | undefined): boolean {
  return protocolVersion === '2025-11-25' && capabilities?.tasks?.requests?.tools?.call !== undefined;
}

/**
 * Whether to call a tool as a task (T-TOOL-1..4): only when the server declared task-augmented
 * `tools/call` and the tool's `taskSupport` allows it; `required` tools always as tasks; absent or
 * `forbidden` never. A `required` tool on a server without task support cannot be called at all.
 */
export function decideExecution(serverAcceptsTasks: boolean, taskSupport: TaskSupport | undefined, preference: ExecutionPreference = 'auto'): ExecutionDecision {
  const support = taskSupport ?? 'forbidden';
  if (support === 'required') {
    if (!serverAcceptsTasks) {
      return { mode: 'refuse', reason: 'the tool must run as a task, but the server does not declare task support for tools/call' };
    }
    if (preference === 'direct') return { mode: 'refuse', reason: 'the tool must run as a task; it cannot be called directly' };
    return { mode: 'task' };
  }
  if (support === 'optional' && serverAcceptsTasks) return preference === 'direct' ? { mode: 'direct' } : { mode: 'task' };
  if (preference === 'task') {
    return {
      mode: 'refuse',
      reason: serverAcceptsTasks ? 'the tool does not support running as a task' : 'the server does not declare task support for tools/call',
    };
  }
  return { mode: 'direct' };
}

/** A retry as a task after -32600 on a plain call is allowed only where a task call would be. */
export function mayRetryAsTask(serverAcceptsTasks: boolean, taskSupport: TaskSupport | undefined): boolean {
  return serverAcceptsTasks && (taskSupport === 'optional' || taskSupport === 'required');
}

/**
 * Whether the user can cancel `t` (the view's Cancel, the Cancel Task pick): live, and a direct
 * call (stopped here) or a task on a configured server that takes `tasks/cancel` (or is not
 * connected yet, so not known not to). A task of a server removed from the configuration cannot
 * be reached to cancel it.
 */
export function isCancelable(t: TaskSnapshot, servers: Pick<ServerManager, 'peekSession' | 'isConfigured'>): boolean {
  if (isTerminal(t.status)) return false;
  if (t.kind === 'direct') return true;
  if (servers.isConfigured(t.serverId) === false) return false;
  const caps = servers.peekSession(t.serverId)?.serverCapabilities;
  return !caps || caps.tasks?.cancel !== undefined;
}

/**
 * How many live tasks of a server end with its connection: its direct calls, and all its tasks
 * when they die with the server's process (stdio: `tasksOutlive` false). Disconnect and Restart
 * ask first when there are any.
 */
export function endedByDisconnect(tasks: readonly TaskSnapshot[], serverId: string, tasksOutlive: boolean | undefined): number {
  return tasks.filter((t) => t.serverId === serverId && !isTerminal(t.status) && (t.kind === 'direct' || tasksOutlive === false)).length;
}

/**
 * Whether Fetch Task Result has something to give: a kept result, or a task whose server may
 * still have it or produce it (not one lost or expired without a result in hand).
 */
export function hasResultToFetch(t: TaskSnapshot): boolean {
  if (t.outcome !== undefined || t.outcomeFetchedAt !== undefined) return true;
  return t.kind === 'task' && t.status !== 'lost' && t.status !== 'expired';
}
