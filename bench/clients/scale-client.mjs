#!/usr/bin/env node
// The scale benchmark's client, one process per task count (a fresh heap each time): our
// TaskEngine follows `count` live tasks on bench/servers/scale-server.mjs for `seconds` seconds.
// Run with --expose-gc. Reports CPU, requests, heap per tracked task, and how late the status
// changes the server makes at known times are seen.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildDir, cpuSince, serversDir, sleep, wallNow } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
const { McpSession, StdioTransport, TaskEngine } = require(join(buildDir, 'core.cjs'));
const errors = [];
const logger = {
  trace() {},
  debug() {},
  info() {},
  warn: (m) => errors.push(`warn: ${m}`),
  error: (m) => errors.push(`error: ${m}`),
  traceEnabled: false,
};

function heap() {
  for (let i = 0; i < 3; i++) globalThis.gc();
  return process.memoryUsage().heapUsed;
}

/** Creates `n` tasks, `inflight` at a time; returns their snapshots. */
async function create(engine, n, inflight = 64) {
  const out = [];
  let started = 0;
  const lane = async () => {
    while (started < n) {
      started++;
      out.push(await engine.callTool('scale', 'work', { arguments: {} }));
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, inflight) }, lane));
  return out;
}

serveWorker({
  async run({ count, seconds, pageSizes }) {
    if (typeof globalThis.gc !== 'function') throw new Error('run with --expose-gc');
    const transport = new StdioTransport({ command: process.execPath, args: [join(serversDir, 'scale-server.mjs')], logger });
    let session;
    const engine = new TaskEngine({
      logger,
      sessions: { getSession: async () => session, label: () => 'scale', tasksOutliveConnection: () => true },
      defaultTtlMs: () => undefined,
      maxPollMs: 60_000,
    });
    session = new McpSession(transport, { logger, clientInfo: { name: 'bench-scale', version: '1' }, capabilities: engine.clientCapabilities() });
    engine.attachSession('scale', session);
    await session.connect();
    const raw = (method, params) => session.connection.requestRaw(method, params, { timeoutMs: 60_000 });
    try {
      // Warm-up: every code path of creating and polling runs (and compiles) before the heap is read.
      const warm = await create(engine, 50);
      await sleep(1500);
      for (const s of warm) engine.remove(s.key);
      await raw('bench/forget', { taskIds: warm.map((s) => s.taskId) });

      const heapBefore = heap();
      const t0 = performance.now();
      const snaps = await create(engine, count);
      const createMs = performance.now() - t0;
      const heapAfter = heap();

      // Status changes at known times: some tasks complete, spread over the window.
      const nChanges = Math.max(10, Math.min(500, Math.round(count / 10)));
      const chosen = [...snaps].sort(() => Math.random() - 0.5).slice(0, nChanges);
      const span = Math.max(1000, (seconds - 6) * 1000);
      const seen = new Map();
      const sub = engine.onDidChange((s) => {
        if (s.status === 'completed' && !seen.has(s.taskId)) seen.set(s.taskId, wallNow());
      });
      await raw('bench/report'); // resets the server's counters: the window starts now
      const cpu0 = process.cpuUsage();
      const w0 = performance.now();
      await raw('bench/schedule', { changes: chosen.map((s, i) => ({ taskId: s.taskId, inMs: 2000 + (span * i) / chosen.length })) });
      await sleep(seconds * 1000);
      const cpuUs = cpuSince(cpu0);
      const windowS = (performance.now() - w0) / 1000;
      const report = await raw('bench/report');
      sub.dispose();
      const delays = report.changes.map((c) => (seen.has(c.taskId) ? seen.get(c.taskId) - c.at : Infinity));
      const heapEnd = heap();

      // tasks/list vs tasks/get: what following the same tasks by listing would take.
      const lists = [];
      for (const pageSize of pageSizes) {
        await raw('bench/config', { pageSize });
        await raw('bench/report');
        const before = errors.length;
        const c0 = process.cpuUsage();
        const l0 = performance.now();
        await engine.refreshList('scale');
        const ms = performance.now() - l0;
        const cpu = cpuSince(c0);
        const r = await raw('bench/report');
        lists.push({
          pageSize,
          pagesNeeded: Math.ceil(engine.list().length / pageSize),
          listRequests: r.counts['tasks/list'] ?? 0,
          cutOff: errors.slice(before).some((e) => /stopped after/.test(e)),
          wallMs: ms,
          cpuMs: cpu / 1000,
        });
      }
      return {
        count,
        tracked: engine.list().length,
        createMs,
        heapBytesPerTask: (heapAfter - heapBefore) / count,
        heapBytesPerTaskAtEnd: (heapEnd - heapBefore) / count,
        windowS,
        cpuMsPerS: cpuUs / 1000 / windowS,
        serverCpuMsPerS: report.cpuUs / 1000 / windowS,
        requestsPerS: Object.fromEntries(Object.entries(report.counts).map(([m, n]) => [m, n / windowS])),
        changes: report.changes.length,
        unseen: delays.filter((d) => d === Infinity).length,
        delays,
        lists,
        problems: errors.filter((e) => !/stopped after/.test(e)).slice(0, 5),
      };
    } finally {
      engine.dispose();
      await session.close();
    }
  },
  stop() {},
});
