// Shared by the reliability tests: fixture processes, and a client wired as src/extension.ts wires
// it (ServerManager + TaskEngine + TaskHost over the real transport factory), without the editor.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { InputDef } from '../../../src/core/config/types';
import { parseSettingServers } from '../../../src/core/config/parse';
import type { ParseResult } from '../../../src/core/config/types';
import type { TaskHostOptions } from '../../../src/core/host/taskHost';
import { serverWork, TaskHost } from '../../../src/core/host/taskHost';
import type { ServerManagerOptions } from '../../../src/core/servers/serverManager';
import { RESTARTED, ServerManager } from '../../../src/core/servers/serverManager';
import type { ServerRequestHandler, TaskEngineOptions } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { createTransport } from '../../../src/core/transports/factory';
import type { Logger } from '../../../src/core/util/log';
import { stopProcess } from '../helpers/httpServers';
import { waitForTask } from '../helpers/peers';
import { MemoryLogger } from '../helpers/logger';
import { repoRoot } from '../helpers/peers';

export const fixtures = path.join(repoRoot, 'test/fixtures/servers');
export const taskLab = path.join(fixtures, 'task-lab.mjs');
export const hostileServer = path.join(fixtures, 'hostile-server.mjs');

/** A fixture started as a child process that prints `listening <port>` once ready. */
export interface Peer {
  port: number;
  child: ChildProcess;
  /** Rejects if the process exits before `stop()` (a fixture that crashed), with its stderr. */
  crashed: Promise<never>;
  stop(): Promise<void>;
}

export async function startPeer(args: string[], timeoutMs = 15_000, env?: Record<string, string>): Promise<Peer> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: env && { ...process.env, ...env } });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => done(new Error(`${args.join(' ')} did not listen in ${timeoutMs} ms:\n${stderr}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString('utf8');
      const m = /listening (\d+)/.exec(out);
      if (m) done(undefined, Number(m[1]));
    };
    const onExit = (code: number | null) => done(new Error(`${args.join(' ')} exited with ${code}:\n${stderr}`));
    const done = (err?: Error, p?: number) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      child.stdout!.resume();
      if (err) reject(err);
      else resolve(p!);
    };
    child.stdout!.on('data', onData);
    child.on('exit', onExit);
  });
  let stopping = false;
  const crashed = new Promise<never>((_, reject) => child.once('exit', (code, signal) => stopping || reject(new Error(`${path.basename(args[0])} ${args[1] ?? ''} exited (${code ?? signal}):\n${stderr}`))));
  crashed.catch(() => undefined);
  return {
    port,
    child,
    crashed,
    stop: () => {
      stopping = true;
      return stopProcess(child);
    },
  };
}

/** A logger for storms: counts lines per level, keeps the last few and the ones that match `keep`. */
export class CountingLogger implements Logger {
  readonly traceEnabled = true;
  readonly counts = { trace: 0, debug: 0, info: 0, warn: 0, error: 0 };
  readonly tail: string[] = [];
  readonly kept: string[] = [];
  /** Characters logged in all, to show the log stays bounded. */
  chars = 0;
  longest = 0;
  constructor(private readonly keep: RegExp) {}
  private line(level: keyof CountingLogger['counts'], m: string | Error): void {
    const text = typeof m === 'string' ? m : m.message;
    this.counts[level]++;
    this.chars += text.length;
    this.longest = Math.max(this.longest, text.length);
    if (this.keep.test(text)) this.kept.push(`${Date.now()} ${text.slice(0, 300)}`);
    this.tail.push(`${level}: ${text.slice(0, 500)}`);
    if (this.tail.length > 200) this.tail.shift();
  }
  trace(m: string): void {
    this.line('trace', m);
  }
  debug(m: string): void {
    this.line('debug', m);
  }
  info(m: string): void {
    this.line('info', m);
  }
  warn(m: string): void {
    this.line('warn', m);
  }
  error(m: string | Error): void {
    this.line('error', m);
  }
}

export interface ClientOptions {
  /** `mcpTasks.servers`-shaped configuration... */
  servers?: Record<string, unknown>;
  /** ...or a parsed configuration (a `.vscode/mcp.json`, with its inputs and errors). */
  config?: ParseResult;
  logger?: Logger;
  engine?: Partial<Omit<TaskEngineOptions, 'logger' | 'sessions' | 'handlers'>>;
  host?: Partial<Omit<TaskHostOptions, 'logger'>>;
  /** The elicitation "dialog" (wrapped by the task host, as in the extension). */
  elicit?: ServerRequestHandler;
  promptInput?: (input: InputDef, signal?: AbortSignal) => Promise<string | undefined>;
  manager?: Partial<Pick<ServerManagerOptions, 'sessionOptions' | 'now' | 'forgetInput' | 'savedInput' | 'resolveContext' | 'keepSessionAtShutdown' | 'saveSessions'>>;
}

export type Client = ReturnType<typeof openClient>;

/** A client as the extension composes it. `close()` waits until every server process is gone. */
export function openClient(o: ClientOptions) {
  const log = o.logger ?? new MemoryLogger();
  const host = new TaskHost({ logger: log, label: (id) => servers.label(id), ...o.host });
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    handlers: o.elicit ? { elicitation: { handle: host.wrap('elicitation/create', o.elicit) } } : {},
    sessions: { getSession: (id, o) => servers.getSession(id, o), label: (id) => servers.label(id), tasksOutliveConnection: (id) => servers.tasksOutliveConnection(id), isConfigured: (id) => servers.isConfigured(id), endpoint: (id) => (servers.config(id) as { url?: string } | undefined)?.url, liveTasksChanged: (id) => servers.liveTasksChanged(id) },
    minPollMs: 50,
    ...o.engine,
  });
  const servers: ServerManager = new ServerManager({
    logger: log,
    clientInfo: { name: 'mcp-tasks-reliability', version: '0.0.0' },
    roots: () => [],
    resolveContext: () => ({ folders: {}, folderPaths: [], userHome: os.homedir(), env: process.env, readFile: (p) => fs.promises.readFile(p, 'utf8') }),
    promptInput: (input, _server, signal?: AbortSignal) => (o.promptInput ?? (async () => undefined))(input, signal),
    createTransport,
    capabilities: () => ({ ...engine.clientCapabilities(), ...host.capabilities() }),
    onSession: (session, config) => {
      engine.attachSession(config.id, session);
      host.attachSession(config.id, session);
    },
    liveTasks: (id) => serverWork(engine, host, id),
    drop: (id, why, moved) => engine.drop(id, why, moved),
    ...o.manager,
  });
  engine.onDidChange((t) => servers.liveTasksChanged(t.serverId));
  engine.onDidRemove(() => servers.liveTasksChanged());
  host.onDidChange((t) => servers.liveTasksChanged(t.serverId));
  host.onDidRemove(() => servers.liveTasksChanged());
  const parsed = o.config ?? parseSettingServers(o.servers ?? {});
  servers.setConfiguration(parsed.servers, parsed.errors);
  let closed: Promise<void> | undefined;
  return {
    log,
    host,
    engine,
    servers,
    /** The id of the server configured under `name`. */
    id: (name: string) => servers.list().find((s) => s.name === name)?.id ?? `settings:${name}`,
    /** What the Restart Server command does (src/vscode/commands.ts): disconnects, saying why, and connects at once. */
    async restart(id: string) {
      await servers.disconnect(id, RESTARTED);
      return servers.getSession(id, { now: true });
    },
    /** Resolves with the task's snapshot once `predicate` holds. */
    until: (key: string, predicate: (s: TaskSnapshot) => boolean, what: string, timeoutMs = 20_000): Promise<TaskSnapshot> =>
      waitForTask(engine, key, predicate, what, timeoutMs, () =>
        log instanceof MemoryLogger ? log.text().slice(-3000) : log instanceof CountingLogger ? log.tail.slice(-30).join('\n') : '',
      ),
    /** Closes it once; a second call waits for the first. */
    close: () =>
      (closed ??= (async () => {
        engine.dispose();
        host.dispose();
        await Promise.all(servers.list().map((s) => servers.disconnect(s.id)));
        servers.dispose();
      })()),
  };
}

/**
 * For a describe block: `open(o)` opens a client as openClient does, and `peers` takes the
 * fixtures a test starts; after each test its clients are closed, then its peers stopped.
 */
export function clientsAndPeersForEachTest(): { open(o: ClientOptions): Client; peers: Peer[] } {
  const clients: Client[] = [];
  const peers: Peer[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await Promise.all(peers.splice(0).map((p) => p.stop()));
  });
  return {
    open: (o) => {
      const c = openClient(o);
      clients.push(c);
      return c;
    },
    peers,
  };
}

/** A real `gc()`: --expose-gc switched on at run time when mocha was not started with it. */
export function collectGarbage(): () => void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (typeof g === 'function') return g;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc') as () => void;
}

export const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Counts uncaught exceptions, unhandled rejections and process warnings while installed. */
export function crashCounter() {
  const seen = { uncaught: [] as string[], unhandled: [] as string[], warnings: [] as string[] };
  const onUncaught = (err: Error) => seen.uncaught.push(String(err?.stack ?? err));
  const onUnhandled = (reason: unknown) => seen.unhandled.push(String((reason as Error)?.stack ?? reason));
  const onWarning = (w: Error) => seen.warnings.length < 5 && seen.warnings.push(`${w.name}: ${w.message}`);
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUnhandled);
  process.on('warning', onWarning);
  return {
    seen,
    dispose() {
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandled);
      process.off('warning', onWarning);
    },
  };
}

/** Samples the heap every `ms` until stopped; returns the peak. */
export function heapSampler(ms = 50) {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), ms);
  return {
    stop(): number {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}

/** mulberry32: a seeded generator in [0, 1), so runs repeat. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
