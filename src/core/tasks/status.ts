import type { TaskStatus } from '../protocol/schemas';
import type { TaskSnapshot } from './types';
import { TASK, taskKey } from './types';
import { CANCELLED, COMPLETED, FAILED, INPUT_REQUIRED, WORKING } from '../protocol/schemas';
import { parseDate } from '../util/builtins';

/**
 * What the view shows for a task: the spec's five statuses, plus two local states.
 * `expired`: the server no longer knows the task and its ttl had ended.
 * `lost`: the server denies the task (or is gone) before its ttl ended.
 */
export type LocalTaskStatus = TaskStatus | 'expired' | 'lost';
/** The local statuses, one string each in the bundle as the spec's are (see schemas). */
export const EXPIRED = 'expired';
export const LOST = 'lost';

const TERMINAL: ReadonlySet<LocalTaskStatus> = new Set([COMPLETED, FAILED, CANCELLED, EXPIRED, LOST]);

/** T-LIFE-3: completed, failed and cancelled are terminal; so are the local expired and lost. */
export const isTerminal = (status: LocalTaskStatus): boolean => TERMINAL.has(status);

/** Whether a value read from outside (a stored task) is a status this product knows. */
export const isLocalTaskStatus = (value: unknown): value is LocalTaskStatus => value === WORKING || value === INPUT_REQUIRED || TERMINAL.has(value as LocalTaskStatus);

/** A task moved aside by the engine's `retire`: its id names another task now, never to be asked about. */
export const retired = (t: TaskSnapshot): boolean => t.kind === TASK && t.key !== taskKey(t.serverId, t.taskId);

/** An ended task whose result is not in hand (neither fetched nor deleted by the user) and can still be asked for. */
export const resultToFetch = (t: TaskSnapshot): boolean => {
  return t.kind === TASK && (t.status === COMPLETED || t.status === FAILED) && !t.outcome && !t.outcomeFetchedAt && !t.resultDeleted && !retired(t);
};

/** How long past its ttl a task still counts: the server's clock, which its ttl runs on, may differ. */
const TTL_GRACE_MS = 60 * 60 * 1000;

/**
 * Whether a task still needs its server's Streamable HTTP session (kept when the window closes,
 * resumed in the next): it is live, or ended with its result to fetch (automatically or by the
 * user), and its ttl, with an hour's grace, has not run out (a createdAt that cannot be read ends
 * nothing).
 */
export const needsSession = (t: TaskSnapshot, now: number): boolean => {
  return ((t.kind === TASK && !isTerminal(t.status)) || resultToFetch(t)) && !((serverForgetsAt(t) ?? Infinity) < now);
};

/** When a task's server no longer keeps it: its ttl's end, with an hour's grace (NaN for a createdAt that cannot be read); undefined without a ttl. */
export const serverForgetsAt = (t: Pick<TaskSnapshot, 'createdAt' | 'ttl'>): number | undefined => (t.ttl === null ? undefined : parseDate(t.createdAt) + t.ttl + TTL_GRACE_MS);

/** The spec's statuses that are terminal on the server. */
export const isServerTerminal = (status?: LocalTaskStatus): boolean => status === COMPLETED || status === FAILED || status === CANCELLED;

/**
 * T-LIFE-2: the transition table, read straight off the spec. A status may repeat (a poll that
 * sees no change); anything not listed is illegal and ignored.
 */
export const TRANSITIONS: Readonly<Record<TaskStatus, readonly TaskStatus[]>> = {
  working: [WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED],
  input_required: [INPUT_REQUIRED, WORKING, COMPLETED, FAILED, CANCELLED],
  completed: [],
  failed: [],
  cancelled: [],
};

export const canTransition = (from: TaskStatus, to: TaskStatus): boolean => TRANSITIONS[from].includes(to);
