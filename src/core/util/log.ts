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
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** A logger that prefixes every line, e.g. with the server's name. */
export function prefixed(log: Logger, prefix: string): Logger {
  const p = `[${prefix}] `;
  return {
    trace: (m, ...a) => log.trace(p + m, ...a),
    debug: (m, ...a) => log.debug(p + m, ...a),
    info: (m, ...a) => log.info(p + m, ...a),
    warn: (m, ...a) => log.warn(p + m, ...a),
    error: (m, ...a) => log.error(typeof m === 'string' ? p + m : `${p}${m.message}`, ...a),
    get traceEnabled() {
      return log.traceEnabled ?? true;
    },
  };
}

const SECRET_HEADER = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key|api-key|.*token.*|.*secret.*)$/i;

/** Headers as they may appear in a log: values of credentials replaced. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) out[k] = SECRET_HEADER.test(k) ? '<redacted>' : v;
  return out;
}

/** Shortens a string for a log line. */
export function truncate(s: string, max = 2000): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length - max} more chars)`;
}
