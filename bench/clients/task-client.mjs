#!/usr/bin/env node
// One task client in a process of its own: `ours` (TaskEngine.callTool, then the outcome the
// engine fetches) or `sdk` (client.experimental.tasks.callToolStream to its result), against
// bench/servers/echo-server.mjs with status notifications on or off. Measures, per task, the
// time from the server storing the result (`completedAt` in the result) to the result in hand.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildDir, cpuSince, serversDir, wallNow } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
const [kind, notify, pollMs] = process.argv.slice(2);
const serverArgs = [join(serversDir, 'echo-server.mjs'), '--notify', notify, '--poll-interval', pollMs];
const quiet = { trace() {}, debug() {}, info() {}, warn: (m) => process.stderr.write(`[${kind}] ${m}\n`), error: (m) => process.stderr.write(`[${kind}] ${m}\n`), traceEnabled: false };
const completedAt = (result) => JSON.parse(result.content[0].text).completedAt;

async function connect() {
  if (kind === 'ours') {
    const { McpSession, StdioTransport, TaskEngine } = require(join(buildDir, 'core.cjs'));
    const transport = new StdioTransport({ command: process.execPath, args: serverArgs, logger: quiet });
    const engine = new TaskEngine({
      logger: quiet,
      sessions: { getSession: async () => session, label: () => 'bench', tasksOutliveConnection: () => false },
      defaultTtlMs: () => 60_000,
    });
    const session = new McpSession(transport, { logger: quiet, clientInfo: { name: 'bench-ours', version: '1' }, capabilities: engine.clientCapabilities() });
    engine.attachSession('bench', session);
    await session.connect();
    const waiting = new Map();
    engine.onDidChange((s) => {
      if (!s.outcome) return;
      const w = waiting.get(s.key);
      if (w) {
        waiting.delete(s.key);
        w(s);
      }
    });
    return {
      async task(ms) {
        const first = await engine.callTool('bench', 'timed', { arguments: { ms } });
        const done = engine.get(first.key)?.outcome ? engine.get(first.key) : await new Promise((r) => waiting.set(first.key, r));
        const at = wallNow();
        engine.remove(first.key); // the engine stays the same size from round to round
        if (done.outcome.kind !== 'result') throw new Error(`task failed: ${JSON.stringify(done.outcome)}`);
        return at - completedAt(done.outcome.result);
      },
      async close() {
        engine.dispose();
        await session.close();
      },
    };
  }
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const client = new Client({ name: 'bench-sdk', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: 'inherit' }));
  return {
    async task(ms) {
      for await (const m of client.experimental.tasks.callToolStream({ name: 'timed', arguments: { ms } }, undefined, { task: { ttl: 60_000 } })) {
        if (m.type === 'result') return wallNow() - completedAt(m.result);
        if (m.type === 'error') throw m.error;
      }
      throw new Error('the stream ended without a result');
    },
    close: () => client.close(),
  };
}

let client;
serveWorker({
  async start() {
    client = await connect();
    return {};
  },
  /** `tasks` tasks at once, each completing after minMs + [0, spreadMs) ms. */
  async round({ tasks, minMs, spreadMs }) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const latencies = await Promise.all(Array.from({ length: tasks }, () => client.task(Math.round(minMs + Math.random() * spreadMs))));
    return { tasks, latencies, wallMs: performance.now() - t0, cpuUs: cpuSince(cpu0) };
  },
  async stop() {
    await client?.close();
    client = undefined;
  },
});
