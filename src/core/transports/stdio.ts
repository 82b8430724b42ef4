import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import type { Logger } from '../util/log';
import { rejected, SENT } from '../util/promise';
import { LineBuffer, serializeLine } from './lineBuffer';
import type { Transport, TransportCloseInfo } from './transport';
import { CLOSED_BY_CLIENT, messagesIn, TransportParseError } from './transport';
import { windowsSpawn } from './windowsSpawn';
import { fromJson } from '../util/json';
import { entriesOf, isWindows, keysOf } from '../util/builtins';

export interface StdioOptions {
  command: string;
  args?: string[];
  /** Added to the editor's environment (a server needs PATH, HOME...). */
  env?: Record<string, string>;
  /** Variables removed from the inherited environment (`null` in the configuration). */
  unsetEnv?: string[];
  cwd?: string;
  logger: Logger;
}

/**
 * The server's environment: `base` (the editor's), with `env` over it and `unset` taken out. On
 * Windows names are case-insensitive: the server's `PATH` replaces the editor's `Path` instead of
 * sitting beside it (the child would get whichever sorts first), and unsetting `path` removes it.
 */
export const childEnvironment = (
  base: Record<string, string | undefined>,
  env: Record<string, string> = {},
  unset: readonly string[] = [],
  windows = isWindows(),
): Record<string, string | undefined> => {
  const out = { ...base };
  const drop = (name: string) => {
    if (!windows) return void delete out[name];
    for (const k of keysOf(out)) if (k.toUpperCase() === name.toUpperCase()) delete out[k];
  };
  for (const [k, v] of entriesOf(env)) {
    if (windows) drop(k);
    out[k] = v;
  }
  for (const name of unset) drop(name);
  return out;
};

const STDERR_KEEP = 20;
/** A line of stderr that reads like an error message: "Error: …", "ModuleNotFoundError: …", "java.io.IOException: …", "error: …", "fatal: …", "panic: …", Node's "Error [ERR_X]: …" and "FATAL ERROR: …" (out of memory). */
const ERROR_LINE = /^[\w$.]*(?:fatal )?(?:error|exception|fatal|panic)(?: ?\[\w+\])?:/i;
/** How long the process group may take to end on SIGTERM once its leader exited, before SIGKILL. */
const GROUP_GRACE_MS = 2000;

/**
 * A server run as a child process speaking newline-delimited JSON on stdin/stdout. Its stderr
 * goes to the log. It is started as a process-group leader so that closing ends the whole tree
 * (servers started through `npx` or a shell leave grandchildren otherwise).
 */
export class StdioTransport implements Transport {
  #child?: ChildProcess;
  readonly #buffer = new LineBuffer();
  readonly #stderrTail: string[] = [];
  #stderrPartial = '';
  #closeInfo?: TransportCloseInfo;
  #exited?: Promise<void>;
  /** While stdin's buffer is full: resolves when it drains or closes. */
  #drained?: Promise<void>;
  // `declare`: typed, not emitted as fields (undefined until the connection sets them), which costs the bundle nothing.
  declare onmessage?: (message: unknown) => void;
  declare onerror?: (error: Error) => void;
  declare onclose?: (info: TransportCloseInfo) => void;
  readonly #options: StdioOptions;

  constructor(options: StdioOptions) {
    this.#options = options;
  }

  get description(): string {
    return `stdio: ${[this.#options.command, ...(this.#options.args ?? [])].join(' ')}`;
  }

  start(): Promise<void> {
    const { command, args = [], env, cwd, logger, unsetEnv = [] } = this.#options;
    const childEnv = childEnvironment(process.env, env, unsetEnv);
    return new Promise((resolve, reject) => {
      let child: ChildProcess;
      try {
        // Not `shell: true` on Windows: it hands cmd.exe the arguments unquoted. The probe is false
        // for anything in the way (a PATH entry that is a file, a name Windows refuses).
        const win =
          isWindows()
            ? windowsSpawn(command, args, childEnv, cwd ?? '.', (f) => {
                try {
                  return statSync(f).isFile();
                } catch {
                  return false;
                }
              })
            : undefined;
        child = spawn(win?.file ?? command, win?.args ?? args, {
          cwd,
          env: childEnv,
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: !win,
          windowsVerbatimArguments: win?.windowsVerbatimArguments,
          windowsHide: true,
        });
      } catch (err) {
        reject(new Error(`Could not start "${command}": ${(err as Error).message}`));
        return;
      }
      this.#child = child;
      this.#exited = new Promise((r) => child.once('exit', () => r()));
      let started = false;
      child.once('spawn', () => {
        started = true;
        logger.info(`Started process ${child.pid}: ${this.description}`);
        resolve();
      });
      child.once('error', (err: NodeJS.ErrnoException) => {
        // spawn says ENOENT for a missing working directory too: tell which one is missing.
        const why =
          err.code === 'ENOENT' && cwd && !existsSync(cwd)
            ? `its working directory ${cwd} does not exist. Check "cwd" in the server's configuration.`
            : err.code === 'ENOENT'
              ? `command not found. Check "command" in the server's configuration, and that it is on the PATH${cwd ? ` or relative to ${cwd}` : ''}.`
              : err.code === 'EACCES'
                ? `it is not an executable file. Make it one (chmod +x), or run it through its interpreter, e.g. "command": "node", "args": ["${command}"].`
                : err.message;
        const message = `Could not start "${command}": ${why}`;
        if (!started) reject(new Error(message));
        else this.onerror?.(new Error(message));
        this.#finish({ reason: message });
      });
      // Bound once, not per chunk: this runs for every message.
      const online = (line: string) => this.#handleLine(line);
      const onoverflow = (bytes: number) => this.onerror?.(new TransportParseError(`dropped a line of ${bytes} bytes (over the limit)`, ''));
      child.stdout!.on('data', (chunk: Buffer) => this.#buffer.push(chunk, online, onoverflow));
      // Decoded as a stream: a character split across two writes stays one character.
      child.stderr!.setEncoding('utf8');
      child.stderr!.on('data', (text: string) => this.#handleStderr(text));
      child.stdin!.on('error', (err) => logger.debug(`stdin: ${err.message}`));
      const onEnd = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.#stderrPartial) this.#keepStderr(this.#stderrPartial);
        this.#stderrPartial = '';
        const how = code !== null ? `exited with code ${code}` : `was killed by ${signal ?? 'a signal'}`;
        // A line that reads like an error says what went wrong: Node's stack trace follows it, Python's traceback precedes it.
        const error = this.#stderrTail.filter((l) => ERROR_LINE.test(l)).pop();
        const tail = error ? [error] : this.#stderrTail.slice(-5);
        this.#finish({
          // Labelled: what it wrote last may be anything ("started"), not the cause of its end.
          reason: `Server process ${how}${tail.length ? ` (its last ${error ? 'error' : 'output'}: "${tail.join(' | ')}")` : ''}`,
          code: code ?? undefined,
          stderr: [...this.#stderrTail],
        });
      };
      child.once('close', onEnd);
      // A grandchild that keeps stdout open would hold 'close' back forever: after the leader
      // exits, give the pipes a moment to drain, then end the tree and report.
      child.once('exit', (code, signal) => {
        this.#endGroup();
        setTimeout(() => {
          if (!this.#closeInfo) {
            this.#killTree('SIGKILL');
            onEnd(code, signal);
          }
        }, 500).unref();
      });
    });
  }

  send(message: object): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#closeInfo || stdin.destroyed) return rejected(new Error('The server process is not running'));
    // No callback per message (measurably costly at thousands of messages a second): wait only
    // when the pipe's buffer is full. A failed write surfaces as the process closing.
    if (stdin.write(serializeLine(message))) return SENT;
    // Every writer waiting on a full pipe shares one wait (a listener each would pile up, with a
    // MaxListenersExceededWarning), which also ends when the pipe closes, so none waits forever.
    this.#drained ??= new Promise<void>((resolve) => {
      const done = () => {
        stdin.off('drain', done);
        stdin.off('close', done);
        this.#drained = undefined;
        resolve();
      };
      stdin.on('drain', done);
      stdin.on('close', done);
    });
    return this.#drained;
  }

  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#closeInfo) {
      this.#finish({ reason: CLOSED_BY_CLIENT });
      return;
    }
    // The spec's order: close stdin, then SIGTERM, then SIGKILL, each after a grace period.
    child.stdin?.end();
    if (!(await this.#waitExit(1000))) {
      this.#killTree('SIGTERM');
      if (!(await this.#waitExit(2000))) {
        this.#killTree('SIGKILL');
        await this.#waitExit(2000);
      }
    } else if (isWindows()) {
      // The leader exited; make sure no grandchild outlives it (elsewhere, its exit ends the group).
      this.#killTree('SIGTERM');
    }
    this.#finish({ reason: CLOSED_BY_CLIENT });
  }

  #waitExit(ms: number): Promise<boolean> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(false), ms);
      void this.#exited!.then(() => {
        clearTimeout(t);
        resolve(true);
      });
    });
  }

  /**
   * The leader exited (crashed, or ended on its own or when asked): what it started lives on in
   * its process group unless ended too, with SIGTERM, then SIGKILL if it is still there after a
   * grace period. POSIX only: Windows has no process groups; close() ends its tree with `taskkill /T`.
   */
  #endGroup(): void {
    const pid = this.#child?.pid;
    if (!pid || isWindows() || !signalGroup(pid, 'SIGTERM')) return;
    setTimeout(() => signalGroup(pid, 0) && signalGroup(pid, 'SIGKILL'), GROUP_GRACE_MS).unref();
  }

  #killTree(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (!pid) return;
    try {
      if (isWindows()) spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { windowsHide: true });
      else process.kill(-pid, signal);
    } catch {
      // Already gone.
    }
  }

  #handleLine(line: string): void {
    let value: unknown;
    try {
      // A byte order mark (what .NET writes first when told to write UTF-8): RFC 8259 lets a parser ignore it.
      value = fromJson(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
    } catch (err) {
      this.onerror?.(new TransportParseError(`invalid JSON on stdout (${(err as Error).message})`, line));
      return;
    }
    for (const m of messagesIn(value)) this.onmessage?.(m);
  }

  #handleStderr(text: string): void {
    const lines = (this.#stderrPartial + text).split('\n');
    this.#stderrPartial = lines.pop() ?? '';
    if (this.#stderrPartial.length > 8192) {
      this.#keepStderr(this.#stderrPartial);
      this.#stderrPartial = '';
    }
    for (const l of lines) this.#keepStderr(l);
  }

  #keepStderr(line: string): void {
    // Plain words for the log and the reason: without a CRLF's CR, nor terminal escapes (colours
    // and cursor moves: CSI; a window title, a link: OSC, ended by BEL or ST; the rest: ESC, any
    // intermediates, a final, as `tput sgr0`'s ESC ( B or ESC 7), which its output channel would
    // show raw and which would hide "Error:" from ERROR_LINE.
    // eslint-disable-next-line no-control-regex -- the escapes are what it removes
    const l = line.replace(/\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|[ -/]*[0-~]?)|\r$/g, '');
    if (!l.trim()) return;
    this.#options.logger.info(`stderr: ${l.length > 2000 ? l.slice(0, 2000) + '…' : l}`);
    this.#stderrTail.push(l.length > 500 ? l.slice(0, 500) + '…' : l);
    if (this.#stderrTail.length > STDERR_KEEP) this.#stderrTail.shift();
  }

  #finish(info: TransportCloseInfo): void {
    if (this.#closeInfo) return;
    this.#closeInfo = info;
    this.#buffer.reset();
    this.onclose?.(info);
  }
}

/** Sends `signal` to process group `pgid` (0 only checks it exists); false when none is left. */
const signalGroup = (pgid: number, signal: NodeJS.Signals | 0): boolean => {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
};
