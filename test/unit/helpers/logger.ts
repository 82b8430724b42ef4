import type { Logger } from '../../../src/core/util/log';

export interface LogLine {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  message: string;
}

/** A logger that keeps every line, so tests can assert what a user would read. */
export class MemoryLogger implements Logger {
  readonly lines: LogLine[] = [];
  readonly traceEnabled = true;
  trace(m: string): void {
    this.lines.push({ level: 'trace', message: m });
  }
  debug(m: string): void {
    this.lines.push({ level: 'debug', message: m });
  }
  info(m: string): void {
    this.lines.push({ level: 'info', message: m });
  }
  warn(m: string): void {
    this.lines.push({ level: 'warn', message: m });
  }
  error(m: string | Error): void {
    this.lines.push({ level: 'error', message: typeof m === 'string' ? m : m.message });
  }
  has(level: LogLine['level'], pattern: RegExp): boolean {
    return this.lines.some((l) => l.level === level && pattern.test(l.message));
  }
  text(): string {
    return this.lines.map((l) => `${l.level}: ${l.message}`).join('\n');
  }
}

/** Resolves when `predicate` holds (it may be async), polling every few ms; rejects after `timeoutMs` with `what`. */
export async function waitFor(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
