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

export async function connectEngine(transport: Transport, handlers: ClientRequestHandlers = {}, options: { tasksOutlive?: boolean; capabilities?: Record<string, unknown> } = {}): Promise<EngineHarness> {
  const log = new MemoryLogger();
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    handlers,
    sessions: { getSession: async (): Promise<McpSession> => session, label: () => 'peer', tasksOutliveConnection: () => options.tasksOutlive ?? true },
    minPollMs: 50,
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

/** A peer started as a child process on a free port; resolves once it prints `pattern`. */
export async function startHttpPeer(args: string[], pattern: RegExp, env: Record<string, string> = {}): Promise<{ port: number; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, { env: { ...process.env, PORT: String(port), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => done(new Error(`peer printed no line matching ${pattern} in 15 s:\n${text}`)), 15000);
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
  return { port, child, stop: () => stopProcess(child) };
}
