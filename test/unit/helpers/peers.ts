import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { Transport } from '../../../src/core/transports/transport';
import { McpSession } from '../../../src/core/protocol/session';
import type { ClientRequestHandlers } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { freePort, stopProcess } from './httpServers';
import { MemoryLogger } from './logger';

export const repoRoot = path.resolve(__dirname, '../../../..');
export const everythingEntry = path.join(repoRoot, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
export const sdkExamples = path.join(repoRoot, 'node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server');
export const demoServer = path.join(repoRoot, 'demo/server.mjs');

/** A session and a task engine over one transport, as the extension wires them. */
export interface EngineHarness {
  session: McpSession;
  engine: TaskEngine;
  log: MemoryLogger;
  close(): Promise<void>;
  /** Resolves with the task's snapshot once `predicate` holds for it. */
  until(key: string, predicate: (s: TaskSnapshot) => boolean, what: string, timeoutMs?: number): Promise<TaskSnapshot>;
}

export async function connectEngine(transport: Transport, handlers: ClientRequestHandlers = {}, options: { tasksOutlive?: boolean; capabilities?: Record<string, unknown>; requestTimeoutMs?: () => number } = {}): Promise<EngineHarness> {
  const log = new MemoryLogger();
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    handlers,
    sessions: { getSession: async (): Promise<McpSession> => session, label: () => 'peer', tasksOutliveConnection: () => options.tasksOutlive ?? true },
    minPollMs: 50,
    requestTimeoutMs: options.requestTimeoutMs,
  });
  const session: McpSession = new McpSession(transport, {
    logger: log,
    clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' },
    capabilities: { ...engine.clientCapabilities(), ...options.capabilities },
  });
  engine.attachSession('peer', session);
  await session.connect();
  return {
    session,
    engine,
    log,
    async close() {
      engine.dispose();
      await session.close();
    },
    until: (key, predicate, what, timeoutMs) => waitForTask(engine, key, predicate, what, timeoutMs, () => log.text().slice(-3000)),
  };
}

/**
 * Resolves with a task's snapshot once `predicate` holds for it; on timeout, rejects with the
 * task as it stands and the tail of the log (`logTail`).
 */
export function waitForTask(
  engine: TaskEngine,
  key: string,
  predicate: (s: TaskSnapshot) => boolean,
  what: string,
  timeoutMs = 20_000,
  logTail: () => string = () => '',
): Promise<TaskSnapshot> {
  return new Promise((resolve, reject) => {
    const check = (s: TaskSnapshot | undefined) => {
      if (s && s.key === key && predicate(s)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(s);
      }
    };
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`Timed out waiting for ${what}; task is ${JSON.stringify(engine.get(key))?.slice(0, 1000)}\nlog:\n${logTail()}`));
    }, timeoutMs);
    const sub = engine.onDidChange(check);
    check(engine.get(key));
  });
}

/** A server started as a child process, listening on 127.0.0.1 at `port`. */
export interface HttpPeer {
  port: number;
  child: ChildProcess;
  /** The URL of `p` on the server, e.g. `url('/mcp')`. */
  url(p: string): string;
  stop(): Promise<void>;
}

/**
 * A peer started as a child process on `fixedPort` or a free port (another if it was taken
 * meanwhile), told as PORT; resolves once it prints a line matching `pattern`.
 */
export async function startHttpPeer(args: string[], pattern: RegExp, fixedPort?: number): Promise<HttpPeer> {
  let lastError: unknown;
  for (let i = 0; i < (fixedPort === undefined ? 3 : 1); i++) {
    const port = fixedPort ?? (await freePort());
    const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await waitForLine(child, pattern, 15_000);
      return { port, child, url: (p) => `http://127.0.0.1:${port}${p}`, stop: () => stopProcess(child) };
    } catch (err) {
      lastError = err;
      await stopProcess(child);
    }
  }
  throw lastError;
}

/** `@modelcontextprotocol/server-everything` over HTTP in `mode`, on `port` or a free one. */
export const startEverything = (mode: 'streamableHttp' | 'sse', port?: number) => startHttpPeer([everythingEntry, mode], /listening on port|running on port/i, port);

/** For a describe block: the peer `start` starts before its tests, stopped after them (read it in the tests). */
export function peerForSuite(start: () => Promise<HttpPeer>): HttpPeer {
  const peer = {} as HttpPeer;
  before(async () => Object.assign(peer, await start()));
  after(() => peer.stop?.());
  return peer;
}

/** Resolves once `child` prints (on stdout or stderr) text matching `pattern`; both streams are drained after. */
function waitForLine(child: ChildProcess, pattern: RegExp, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => done(new Error(`peer printed no line matching ${pattern} in ${timeoutMs / 1000} s:\n${text}`)), timeoutMs);
    const onData = (d: Buffer) => {
      text += d.toString('utf8');
      if (pattern.test(text)) done();
    };
    const onExit = (code: number | null) => done(new Error(`peer exited with ${code}:\n${text}`));
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      child.stdout!.resume();
      child.stderr!.resume();
      if (err) reject(err);
      else resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  });
}
