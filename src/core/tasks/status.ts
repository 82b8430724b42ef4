import type { TaskStatus } from '../protocol/schemas';

/**
 * What the view shows for a task: the spec's five statuses, plus two local states.
 * `expired`: the server no longer knows the task and its ttl had ended.
 * `lost`: the server denies the task (or is gone) before its ttl ended.
 */
export type LocalTaskStatus = TaskStatus | 'expired' | 'lost';

const TERMINAL: ReadonlySet<LocalTaskStatus> = new Set(['completed', 'failed', 'cancelled', 'expired', 'lost']);

/** T-LIFE-3: completed, failed and cancelled are terminal; so are the local expired and lost. */
export function isTerminal(status: LocalTaskStatus): boolean {
  return TERMINAL.has(status);
}

/** Whether a value read from outside (a stored task) is a status this product knows. */
export function isLocalTaskStatus(value: unknown): value is LocalTaskStatus {
  return value === 'working' || value === 'input_required' || TERMINAL.has(value as LocalTaskStatus);
}

/** The spec's statuses that are terminal on the server. */
export function isServerTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}

/**
 * T-LIFE-2: the transition table, read straight off the spec. A status may repeat (a poll that
 * sees no change); anything not listed is illegal and ignored.
 */
export const TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  working: ['working', 'input_required', 'completed', 'failed', 'cancelled'],
  input_required: ['input_required', 'working', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export function canTransition(from: TaskStatus, to: TaskStatus): boolean {
  return TRANSITIONS[from].includes(to);
}
