import type { TaskSupport } from '../protocol/schemas';
import { decideExecution } from './policy';
import type { LocalTaskStatus } from './status';
import { EXPIRED, isTerminal, LOST, resultToFetch } from './status';
import type { TaskSnapshot } from './types';
import { COMPLETED, ELICITATION_CREATE, FAILED, INPUT_REQUIRED, WORKING } from '../protocol/schemas';
import { floor, isArray, isInteger, maxOf, parseDate, round } from '../util/builtins';
import { isObject, isString } from '../util/json';
import { truncate } from '../util/log';
import { formatCount, splitsPair } from '../util/text';
import { DIRECT, TASK } from './types';

/** The codicon of what was declined, refused or cancelled, and the color of a warning: one string each in the bundle. */
export const CIRCLE_SLASH = 'circle-slash';
export const WARNING_COLOR = 'problemsWarningIcon.foreground';

/**
 * One table: status to codicon (with a theme color) and words. The editor side turns an entry
 * into a ThemeIcon in one line; nothing else decides how a status looks.
 */
export const STATUS_PRESENTATION: Readonly<Record<LocalTaskStatus, { icon: string; color?: string; label: string }>> = {
  working: { icon: 'sync~spin', label: 'Working' },
  input_required: { icon: 'bell-dot', color: 'notificationsWarningIcon.foreground', label: 'Input required' },
  completed: { icon: 'pass', color: 'testing.iconPassed', label: 'Completed' },
  failed: { icon: 'error', color: 'testing.iconFailed', label: 'Failed' },
  cancelled: { icon: CIRCLE_SLASH, label: 'Cancelled' },
  expired: { icon: 'history', color: 'disabledForeground', label: 'Expired' },
  lost: { icon: 'debug-disconnect', color: WARNING_COLOR, label: 'Lost' },
};

/** A protocol time (ISO 8601, UTC) as the user reads times: in their locale and time zone. */
export const localTime = (iso: string): string => new Date(iso).toLocaleString();

/** `42 s`, `5 min`, `3 h`, `2 d`: how long ago, in the fewest words. */
export const formatAge = (ms: number): string => {
  const s = maxOf(0, round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = floor(m / 60);
  if (h < 48) return `${h} h`;
  return `${floor(h / 24)} d`;
};

/**
 * A duration exactly, where `formatAge` rounds (a ttl of 90 s is not "1 min", nor 100 ms "0 s"):
 * in the largest unit it is a whole number of (`90 s`, `90 min`, `24 h`, `30 d`), else in seconds (`1.5 s`),
 * under one in milliseconds (`100 ms`). One number keeps a row short.
 */
export const formatDuration = (ms: number): string => {
  ms = round(ms);
  // Days from two on, as formatAge says them: a day is "24 h".
  for (const [n, unit, from] of [[86_400_000, 'd', 2], [3_600_000, 'h', 1], [60_000, 'min', 1]] as const) if (ms >= n * from && ms % n === 0) return `${ms / n} ${unit}`;
  return ms < 1000 ? `${ms} ms` : `${ms / 1000} s`;
};

/**
 * A row's age: `now` under a minute, then as `formatAge` (`5 min`, `3 h`), as VS Code's own
 * timeline and source control views say it. Rows are redrawn every 30 s, not every second (10,000
 * rows may be tracked): an age in seconds would read "2 s" long after, one in minutes is never
 * off by more than the half minute between two redraws.
 */
export const formatRowAge = (ms: number): string => (ms < 60_000 ? 'now' : formatAge(ms));

/** `3/6`, `40%` or `1,200` from a progress notification, its numbers written by `n`: in the locale's digits, as every count. */
export const formatProgress = (p: TaskSnapshot['progress'], n: (x: number) => string = formatCount): string | undefined => {
  if (!p) return undefined;
  if (p.total !== undefined && p.total > 0) {
    return p.total <= 20 && isInteger(p.total) ? `${n(p.progress)}/${n(p.total)}` : `${n(round((100 * p.progress) / p.total))}%`;
  }
  return n(p.progress);
};

/** The row's description: status message (or status), progress while live, and age. */
export const describeTask = (t: TaskSnapshot, now: number): string => {
  const parts: string[] = [];
  const live = t.status === WORKING || t.status === INPUT_REQUIRED;
  const said = STATUS_PRESENTATION[t.status].label;
  // Lost and expired are decided here: the note says why, where the server's last message is stale.
  // So does the note of an ended task whose result could not be fetched: its message says nothing of that.
  // An answer that could not be sent: what the server last said ("waiting for your answer") is not so here.
  const message =
    t.status === LOST || t.status === EXPIRED || resultToFetch(t) ? t.note || t.statusMessage : t.unsent ? `Your answer was not sent: ${t.unsent}` : t.statusMessage || t.note;
  // A finished task leads with how it ended: its last message may still say "Generating report…".
  // One that says it already ("Cancelled by the user") leads alone, as a hosted task's row does.
  if (!live && !message?.startsWith(said)) parts.push(said);
  if (message) parts.push(message);
  else if (live) parts.push(said);
  const progress = live ? formatProgress(t.progress) : undefined;
  // Not said twice: a message such as "Scanning… 40% (12 files)" carries it already (in plain digits, "1500 files", too).
  if (progress && !message?.includes(progress) && !message?.includes(formatProgress(t.progress, String)!)) parts.push(progress);
  // Its last status is not its end: after Disconnect, until connected again, the row would not say it otherwise.
  if (live && t.cancelRequested) parts.push('cancel requested');
  parts.push(formatRowAge(now - parseDate(t.createdAt)));
  return parts.join(' · ');
};

/**
 * The row of a task a server asked the client to run: its status, then why it ended (its `note`,
 * in the user's words, over the message its server got; unless the message says it already:
 * "Cancelled by the user"), and its age. A failed or cancelled row reads
 * as such, not as a bare error message.
 */
export const describeHosted = (h: { status: LocalTaskStatus; statusMessage?: string; note?: string; createdAt: string; asks?: boolean; method?: string }, now: number): string => {
  const { status, statusMessage, note: m = statusMessage } = asSeen(h);
  const said = STATUS_PRESENTATION[status].label;
  return `${m?.startsWith(said) ? m : m ? `${said} · ${m}` : said} · ${formatRowAge(now - parseDate(h.createdAt))}`;
};

/** What a request that asks to use a language model says while it waits for the user's consent (a direct call's row, a hosted task's). */
export const SAMPLING_ASKS = 'The server asks to use a language model';

/**
 * A hosted task as the user sees it: while it waits for them (a question, its dialog open, hidden
 * or in turn; a sampling request, its consent prompt), input required, and of a sampling request
 * what it asks, as the row of a direct call says. Its server is still told `working` (T-REQ-3:
 * `input_required` would send it to tasks/result for requests of this client; there are none).
 */
export const asSeen = <H extends { status: LocalTaskStatus; statusMessage?: string; asks?: boolean; method?: string }>(h: H): H =>
  h.status !== WORKING ? h : h.asks ? { ...h, status: INPUT_REQUIRED, statusMessage: SAMPLING_ASKS } : h.method === ELICITATION_CREATE ? { ...h, status: INPUT_REQUIRED } : h;

/** When the server may forget the task (ms since epoch), or undefined for an unlimited ttl. */
export const expiresAt = (t: TaskSnapshot): number | undefined => (t.ttl === null ? undefined : parseDate(t.createdAt) + t.ttl);

/**
 * The tooltip's line on how long the server keeps the task, or none where that means nothing to
 * the user: how long a live task is kept (its ttl left, in plain words); for a completed or failed one, how long its result can still be
 * fetched. A cancelled task may be deleted at any time (the spec), a lost or expired one is gone,
 * and a direct call was never kept.
 */
export const ttlRow = (t: TaskSnapshot, now: number): [string, string] | undefined => {
  const live = !isTerminal(t.status);
  if (t.kind !== TASK || (!live && t.status !== COMPLETED && t.status !== FAILED)) return undefined;
  const exp = expiresAt(t);
  const left = exp === undefined ? 'unlimited' : exp > now ? formatAge(exp - now) + ' more' : 'no longer (its ttl ended)';
  return [live ? 'Kept by the server' : 'Result kept by the server', left];
};

/** Orders tasks newest first (see newestFirstOf). */
export const newestFirst = (a: { createdAt: string }, b: { createdAt: string }): number => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);

/**
 * `items`, in the order they started, newest first, those of one millisecond too (the last
 * started first: a stable sort alone keeps them oldest first), as the view, the API and the task
 * picks list them. Sorts `items` itself.
 */
export const newestFirstOf = <T extends { createdAt: string }>(items: T[]): T[] => items.reverse().sort(newestFirst);

/**
 * The name a task is shown by: its tool, or, found through tasks/list, its id. A long id (a UUID,
 * as server-everything gives) keeps its start and its end: ids made in sequence differ at the end.
 */
export const taskTitle = (t: Pick<TaskSnapshot, 'toolName' | 'taskId'>): string => {
  const id = t.taskId;
  return t.toolName || `Task ${id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id}`;
};

/** Made once each: toLocaleTimeString makes a formatter per call (~95 µs), and a server's rows format every run. */
const clocks: Intl.DateTimeFormat[] = [];
/** The time a run started, as a row names it: `4:47 PM`, or `4:47:03 PM` with `seconds`. */
const clock = (iso: string, seconds?: boolean, at = new Date(iso)): string =>
  // A start that cannot be read (a damaged tasks.json) reads "Invalid Date", as toLocaleTimeString gave: format() throws.
  isNaN(+at) ? String(at) : (clocks[+!!seconds] ??= new Intl.DateTimeFormat([], { hour: 'numeric', minute: '2-digit', second: seconds ? '2-digit' : undefined })).format(at);

/** `labels`, where each one that repeats is `more(i)` instead (called in order). */
const distinct = (labels: string[], more: (i: number) => string): string[] => {
  const n = new Map<string, number>();
  for (const l of labels) n.set(l, (n.get(l) ?? 0) + 1);
  return labels.map((l, i) => (n.get(l)! > 1 ? more(i) : l));
};

/**
 * By `key`, the titles of items a server's rows would call alike (`name`; the others keep it):
 * each says when it started, as VS Code's Test Results name each run by its time, so eight runs
 * are not eight identical rows. The minute where it tells them apart (a narrow side bar cuts a
 * long label), the second (for all of them) where two share a minute, and those started in the same second (a
 * model calls tools in parallel) are numbered in the order they started: `slow (4:47:03 PM #2)`.
 */
const timedTitles = <T extends { serverId: string; createdAt: string }>(items: readonly T[], name: (t: T) => string, key: (t: T) => string): Map<string, string> => {
  const runs = new Map<string, T[]>();
  for (const t of [...items].sort((a, b) => newestFirst(b, a))) {
    const id = `${t.serverId}\n${name(t)}`;
    const same = runs.get(id);
    if (same) same.push(t);
    else runs.set(id, [t]);
  }
  const titles = new Map<string, string>();
  for (const same of runs.values()) {
    if (same.length < 2) continue;
    const mins = same.map((t) => clock(t.createdAt));
    // Every one to the second if any two share a minute: rows read alike, not `5:59 AM` by `5:56:58 AM`.
    const at = new Set(mins).size < mins.length ? same.map((t) => clock(t.createdAt, true)) : mins;
    const seen = new Map<string, number>();
    const told = distinct(at, (i) => `${at[i]} #${seen.set(at[i], (seen.get(at[i]) ?? 0) + 1).get(at[i])}`);
    same.forEach((t, i) => titles.set(key(t), `${name(t)} (${told[i]})`));
  }
  return titles;
};

/** `t`'s title among `items` (see timedTitles), from those its server calls alike only. */
const timedTitle = <T extends { serverId: string; createdAt: string }>(items: readonly T[], t: T, name: (t: T) => string, key: (t: T) => string): string =>
  timedTitles(items.filter((x) => x.serverId === t.serverId && name(x) === name(t)), name, key).get(key(t)) ?? name(t);

/** The titles of the runs of one tool on one server, by task key (the others keep `taskTitle`): see timedTitles. */
export const runTitles = (tasks: readonly TaskSnapshot[]): Map<string, string> => timedTitles(tasks, taskTitle, (t) => t.key);

/** A task's name as its row shows it: with when it started, among runs of one tool (see runTitles), which alone are named. */
export const runTitle = (tasks: readonly TaskSnapshot[], t: TaskSnapshot): string => timedTitle(tasks, t, taskTitle, (x) => x.key);

/** A line for the view: the elicitation's message, or the text of the last sampling message (a hosted task's summary; what a direct call waiting on a question says it asks). */
export const summarize = (method: string, params: Record<string, unknown>): string => {
  let text: unknown;
  if (method === ELICITATION_CREATE) {
    text = params.message;
  } else if (isArray(params.messages) && params.messages.length > 0) {
    const last: unknown = params.messages[params.messages.length - 1];
    const content = isObject(last) ? last.content : undefined;
    const blocks: unknown[] = isArray(content) ? content : [content];
    text = blocks.map((b) => (isObject(b) && b.type === 'text' && isString(b.text) ? b.text : '')).join(' ');
  }
  return isString(text) ? truncate(text.replace(/\s+/g, ' ').trim(), 200) : '';
};

/** A server's request's summary cut at a word (never inside an emoji) to 40 characters, about what a side bar of 300 pixels shows beside an icon. */
export const shortTitle = (s: string): string => {
  const space = s.lastIndexOf(' ', 39);
  return s.length > 40 ? `${s.slice(0, space > 20 ? space : splitsPair(s, 39) ? 38 : 39)}…` : s;
};

/**
 * What a task a server asked the client to run is called: what it asks (a question's message,
 * see shortTitle), or `kind`, what it is, if it says nothing in words; with when it was
 * asked among those of its server in `hosted` called alike, as runs of one tool (runTitle).
 */
export const askedTitle = <H extends { taskId: string; serverId: string; summary: string; createdAt: string }>(hosted: readonly H[], h: H, kind: (h: H) => string): string =>
  timedTitle(
    hosted,
    h,
    (x) => shortTitle(x.summary) || kind(x),
    (x) => x.taskId,
  );

/**
 * How the tool pick of Run Tool as Task says a tool runs on its server, or that it cannot: a
 * codicon for the row's icon, and words. Not `$(icon)` in the text: a screen reader reads that
 * as the icon's name ("arrow-right direct call only").
 */
export const toolRunWords = (serverAcceptsTasks: boolean, taskSupport: TaskSupport | undefined): [icon: string, words: string] => {
  const decision = decideExecution(serverAcceptsTasks, taskSupport);
  if (decision.mode === 'refuse') return [CIRCLE_SLASH, 'cannot run here: the server does not run tasks'];
  if (decision.mode === DIRECT) return ['arrow-right', 'direct call only'];
  return ['tasklist', taskSupport === 'optional' ? 'task optional' : 'runs as a task'];
};
