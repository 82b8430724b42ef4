import type { LiveWork } from '../tasks/types';
import { isString } from './json';
import { entriesOf } from './builtins';
import { noop } from './promise';
import { formatCount, head } from './text';

/** The logger the core writes to; the editor side backs it with a `LogOutputChannel`. */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
  /** When false, callers skip building trace messages (serialising traffic is not free). */
  readonly traceEnabled?: boolean;
}

export const nullLogger: Logger = {
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
};

/** A logger that writes every line to `log` as `line` makes it (an Error's line is its message). */
const mapped = (log: Logger, line: (message: string) => string): Logger => {
  return {
    trace: (m, ...a) => log.trace(line(m), ...a),
    debug: (m, ...a) => log.debug(line(m), ...a),
    info: (m, ...a) => log.info(line(m), ...a),
    warn: (m, ...a) => log.warn(line(m), ...a),
    error: (m, ...a) => log.error(line(isString(m) ? m : m.message), ...a),
    get traceEnabled() {
      return log.traceEnabled ?? true;
    },
  };
};

/**
 * A logger that heads every line with `[prefix] `, e.g. the server's label. A getter is read at
 * each line: a server's label changes while it runs when a same-named server appears elsewhere
 * (`demo` becomes `demo (a)`), and its lines follow.
 */
export const prefixed = (log: Logger, prefix: string | (() => string)): Logger => mapped(log, (m) => `[${isString(prefix) ? prefix : prefix()}] ${m}`);

/**
 * Warns of `message` the first time something of its `kind` happens, and at debug level after,
 * with how many times it has (counted in `seen`): a server that errs every second (the same
 * invalid answer, lines that are not JSON) is told once instead of flooding the log. Returns the
 * count.
 */
export const warnRepeated = (log: Logger, seen: Map<string, number>, kind: string, message: string): number => {
  const n = (seen.get(kind) ?? 0) + 1;
  seen.set(kind, n);
  if (n > 1) log.debug(`${message} (${n} times so far)`);
  else log.warn(message);
  return n;
};

/** Headers the transports set themselves: their values are never credentials. */
const PROTOCOL_HEADER = /^(accept|content-type|mcp-session-id|mcp-protocol-version|last-event-id)$/i;

/**
 * Headers as they may appear in a log: only the protocol's own values are shown. Configured
 * headers are credentials more often than not, whatever their name (`X-Workspace-Key`...).
 */
export const redactHeaders = (headers: Record<string, string>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of entriesOf(headers)) out[k] = PROTOCOL_HEADER.test(k) ? v : '<redacted>';
  return out;
};

/**
 * A logger that replaces each of `secrets` with `<redacted>` in every line (values of password
 * inputs, configured headers), whatever path they took: a command line, an error, a trace.
 * Secrets under 4 characters are left alone: replacing them would garble every line.
 */
export const redacting = (log: Logger, secrets: readonly string[]): Logger => {
  const hidden = hideable(secrets);
  return hidden.length === 0 ? log : mapped(log, (m) => redactSecrets(m, hidden));
};

/** `text` with each of `secrets` (4 characters or more) replaced by `<redacted>`. */
export const redactSecrets = (text: string, secrets: readonly string[]): string => hideable(secrets).reduce((t, s) => t.split(s).join('<redacted>'), text);

const hideable = (secrets: readonly string[]): string[] => {
  // Longest first, so a secret that contains another is hidden whole.
  return [...new Set(secrets.filter((s) => s.length >= 4))].sort((a, b) => b.length - a.length);
};

/**
 * The longest line the log keeps. Traffic is cut at 2,000 characters where it is logged; what
 * else could be longer comes from a server (a task id, a status message) and is cut here, so a
 * hostile server cannot write megabytes per line.
 */
export const MAX_LOG_LINE = 8_000;

/**
 * A line as the log keeps it: at most MAX_LOG_LINE characters, then how many more there were; the
 * lines after its first indented, so a server's text cannot write a line that reads as the log's own
 * (`\n2026-12-06 10:39:05.637 [info] [other] Connected`).
 */
export const logLine = (message: string): string => truncate(message, MAX_LOG_LINE).replace(/\r?\n|\r/g, '\n  ');

/** Shortens a string for a log line. */
export const truncate = (s: string, max = 2000, h = head(s, max)): string => (s.length <= max ? s : `${h}… (${s.length - h.length} more chars)`);

/**
 * `text` ending as a sentence, so that another may follow it: a full stop is added unless it
 * ends in one already (an error that says what to do does), or in `!`, `?` or `…`.
 */
export const sentence = (text: string): string => {
  const t = text.trimEnd();
  return /[.!?…]$/.test(t) ? t : `${t}.`;
};

/**
 * What a server waits for, in number: `2 tasks and 1 call`, `1 task's result` (of an ended task,
 * still to fetch), `2 tasks, 1 call and 1 task's result`; `live`: `2 live tasks and 1 running call`; `its`: `its task ends`, `its 2 tasks
 * and 1 call end`, `its task's result is fetched`, `its 1 task ends, and 1 task's result is fetched`.
 */
export const liveWork = ({ tasks, calls, results }: LiveWork, live?: boolean, its?: boolean): string => {
  const one = its && tasks + calls + results === 1;
  const say = (n: number, what: string) => (n ? [`${one ? '' : `${formatCount(n)} `}${live ? what : what.replace(/^\S+ /, '')}${n > 1 ? 's' : ''}`] : []);
  // Not by the last ", ": a count may have one ("1,000").
  const and = (xs: string[]) => xs.slice(0, -1).join(', ') + (xs[1] ? ' and ' : '') + (xs.at(-1) ?? '');
  const parts = [...say(tasks, 'live task'), ...say(calls, 'running call')];
  const held = results ? `${one ? '' : `${formatCount(results)} `}task${results > 1 ? "s' results" : "'s result"}` : '';
  if (!its) return and(held ? [...parts, held] : parts);
  const work = and(parts);
  return `its ${work && `${work} end${tasks + calls > 1 ? '' : 's'}`}${work && held && ', and '}${held && `${held} ${results > 1 ? 'are' : 'is'} fetched`}`;
};

/** `its live task ends`, `its 2 live tasks and 1 running call end` (`live` false: `its task ends`). */
export const itsTasksEnd = (w: LiveWork, live = true): string => liveWork(w, live, true);
