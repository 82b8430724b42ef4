#!/usr/bin/env node
// The scale benchmark's client, one process per task count (a fresh heap each time): our
// TaskEngine follows `count` live tasks on bench/servers/scale-server.mjs for `seconds` seconds.
// Run with --expose-gc. Reports CPU, requests, heap per tracked task, and how late the status
// changes the server makes at known times are seen.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchDir, buildDir, cpuSince, serversDir, sleep, wallNow } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
const { McpSession, StdioTransport, TaskEngine, TaskStore, Emitter } = require(join(buildDir, 'core.cjs'));
// BENCH_SCALE_EXTENSION=1: what the extension host adds to the engine: the store attached (in a
// temporary folder) and the Tasks view's provider, each changed row redrawn as the editor does.
const EXTENSION = process.env.BENCH_SCALE_EXTENSION === '1';
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

/** The store and the view over `engine`, as src/extension.ts composes them. */
function attachExtension(engine) {
  require(join(benchDir, 'lib', 'vscode-stub.cjs')).install();
  const { TasksTreeProvider } = require(join(buildDir, 'tree.cjs'));
  const dir = mkdtempSync(join(tmpdir(), 'bench-scale-store-'));
  const store = new TaskStore(dir, logger, { shared: false, retentionDays: () => 30 });
  store.attach(engine);
  const server = { id: 'scale', name: 'scale', label: 'scale', type: 'stdio', source: { kind: 'settings' }, state: { kind: 'connected' }, serverInfo: { name: 'bench', version: '1' }, protocolVersion: '2025-11-25', tasks: 'tools/call, list, cancel' };
  const servers = { onDidChange: new Emitter().event, errors: [], list: () => [server], get: (id) => (id === 'scale' ? server : undefined), peekSession: () => undefined, label: () => 'scale', isConfigured: (id) => id === 'scale', leavingWith: () => undefined, tasksOutliveConnection: () => true, heldWhy: () => undefined };
  const tree = new TasksTreeProvider(servers, engine);
  // The editor: a changed node gets getTreeItem again and its children re-resolved; undefined redraws all.
  const render = (node) => {
    tree.getTreeItem(node);
    for (const child of tree.getChildren(node)) render(child);
  };
  const sub = tree.onDidChangeTreeData((e) => {
    for (const n of e === undefined ? tree.getChildren() : Array.isArray(e) ? e : [e]) render(n);
  });
  for (const root of tree.getChildren()) render(root);
  return {
    dispose() {
      sub.dispose();
      tree.dispose?.();
      store.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
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
    const extras = EXTENSION ? attachExtension(engine) : undefined;
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
      extras?.dispose();
      await session.close();
    }
  },
  stop() {},
});
