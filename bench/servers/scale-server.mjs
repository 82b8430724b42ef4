#!/usr/bin/env node
/**
 * The peer of the scale benchmark: many live tasks, answered cheaply, in a process of its own so
 * the client's CPU is measured alone and the two share the machine's two cores. Built on our own
 * JsonRpcConnection (bench/results/.build/core.cjs) over stdin/stdout rather than the SDK's
 * server, whose per-request cost would make the server, not the client, the bottleneck at
 * 10,000 tasks polled every second.
 *
 * Tools: `work` (taskSupport required): creates a task that stays `working` until the benchmark
 * changes it. Tasks: get, list (pages of --page-size, default 10 as the SDK's InMemoryTaskStore),
 * result (held until the task ends), cancel. Benchmark-only requests:
 *   bench/schedule {changes: [{taskId, inMs}]}   complete these tasks at these times
 *   bench/config {pageSize}                      page size of tasks/list
 *   bench/report                                 when each change happened, requests by method,
 *                                                and "listed live tasks" (live tasks in list pages)
 *   bench/forget {taskIds}                       drop tasks (the client's warm-up)
 *
 *   --notify     also send notifications/tasks/status on a change (off by default: the
 *                benchmark measures polling)
 *   BENCH_SCALE_MESSAGES=1 (environment): a live task's statusMessage (and lastUpdatedAt) changes
 *                every second, so each poll of it sees a new message
 */
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const core = require(join(dirname(fileURLToPath(import.meta.url)), '..', 'results', '.build', 'core.cjs'));
const { JsonRpcConnection, LineBuffer, serializeLine, RpcError } = core;

const NOTIFY = process.argv.includes('--notify');
let pageSize = Number(process.argv[process.argv.indexOf('--page-size') + 1]) || 10;
const POLL_INTERVAL = 1000;
const MESSAGES = process.env.BENCH_SCALE_MESSAGES === '1';
/** A live task as a poll sees it: with BENCH_SCALE_MESSAGES, its message changes each second. */
function seen(t) {
  if (!MESSAGES || isTerminal(t.status)) return t;
  const step = `step ${Math.floor(Date.now() / 1000)}`;
  if (t.statusMessage !== step) {
    t.statusMessage = step;
    t.lastUpdatedAt = new Date().toISOString();
  }
  return t;
}

/** Our Transport contract over this process's stdin/stdout. */
class ServerStdio {
  description = 'stdio (server)';
  buffer = new LineBuffer();
  async start() {
    process.stdin.on('data', (chunk) => this.buffer.push(chunk, (line) => this.onmessage?.(JSON.parse(line))));
    process.stdin.on('end', () => this.onclose?.({ reason: 'stdin ended' }));
  }
  async send(message) {
    process.stdout.write(serializeLine(message));
  }
  async close() {
    this.onclose?.({ reason: 'closed' });
  }
}

const logger = { trace() {}, debug() {}, info() {}, warn: (m) => process.stderr.write(`scale-server: ${m}\n`), error: (m) => process.stderr.write(`scale-server: ${m}\n`), traceEnabled: false };
const conn = new JsonRpcConnection(new ServerStdio(), { logger, maxConcurrentIncoming: 1_000_000 });
const tasks = new Map();
const order = []; // the tasks in creation order: tasks/list pages are slices of it, O(page size)
const waiting = new Map(); // taskId -> resolvers of held tasks/result
const counts = {};
const changes = [];
/** Not a method: live tasks returned by tasks/list pages, reported beside the request counts. */
const LISTED = 'listed live tasks';
const count = (m) => (counts[m] = (counts[m] ?? 0) + 1);
const isTerminal = (s) => s === 'completed' || s === 'failed' || s === 'cancelled';
const invalid = (msg) => new RpcError(-32602, msg);
const find = (params) => {
  const t = tasks.get(params?.taskId);
  if (!t) throw invalid(`Task not found: ${params?.taskId}`);
  return t;
};

conn.onRequest('initialize', () => {
  count('initialize');
  return {
    protocolVersion: '2025-11-25',
    capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
    serverInfo: { name: 'bench-scale', version: '1.0.0' },
  };
});
conn.onNotification('notifications/initialized', () => {});
conn.onRequest('ping', () => ({}));
conn.onRequest('tools/list', () => {
  count('tools/list');
  return { tools: [{ name: 'work', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }] };
});
conn.onRequest('tools/call', (params) => {
  count('tools/call');
  if (!params?.task) throw new RpcError(-32601, 'work must be called as a task');
  const now = new Date().toISOString();
  const task = { taskId: randomUUID(), status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, pollInterval: POLL_INTERVAL };
  tasks.set(task.taskId, task);
  order.push(task);
  return { task };
});
conn.onRequest('tasks/get', (params) => {
  count('tasks/get');
  return seen(find(params));
});
conn.onRequest('tasks/list', (params) => {
  count('tasks/list');
  const start = params?.cursor ? Number(params.cursor) : 0;
  const page = order.slice(start, start + pageSize).map(seen);
  // Status checks a list page makes: its live tasks (what a tasks/get of each would have checked).
  counts[LISTED] = (counts[LISTED] ?? 0) + page.filter((t) => !isTerminal(t.status)).length;
  return start + pageSize < order.length ? { tasks: page, nextCursor: String(start + pageSize) } : { tasks: page };
});
conn.onRequest('tasks/result', (params) => {
  count('tasks/result');
  const t = find(params);
  const result = () => ({ content: [{ type: 'text', text: `task ${t.taskId} done` }] });
  if (isTerminal(t.status)) return result();
  return new Promise((resolve) => {
    const list = waiting.get(t.taskId) ?? [];
    list.push(() => resolve(result()));
    waiting.set(t.taskId, list);
  });
});
conn.onRequest('tasks/cancel', (params) => {
  count('tasks/cancel');
  const t = find(params);
  if (isTerminal(t.status)) throw invalid(`Task ${t.taskId} already ended`);
  change(t, 'cancelled');
  return t;
});

function change(t, status) {
  t.status = status;
  t.lastUpdatedAt = new Date().toISOString();
  changes.push({ taskId: t.taskId, status, at: performance.timeOrigin + performance.now() });
  if (NOTIFY) void conn.notify('notifications/tasks/status', t);
  for (const resolve of waiting.get(t.taskId) ?? []) resolve();
  waiting.delete(t.taskId);
}

conn.onRequest('bench/schedule', (params) => {
  for (const { taskId, inMs } of params.changes) {
    setTimeout(() => {
      const t = tasks.get(taskId);
      if (t && !isTerminal(t.status)) change(t, 'completed');
    }, inMs);
  }
  return {};
});
conn.onRequest('bench/config', (params) => {
  if (params?.pageSize) pageSize = params.pageSize;
  return { pageSize };
});
let cpuMark = process.cpuUsage();
conn.onRequest('bench/report', () => {
  const cpu = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  const report = { changes: changes.slice(), counts: { ...counts }, cpuUs: cpu.user + cpu.system };
  for (const k of Object.keys(counts)) delete counts[k];
  return report;
});
conn.onRequest('bench/forget', (params) => {
  for (const id of params.taskIds) tasks.delete(id);
  const kept = order.filter((t) => tasks.has(t.taskId));
  order.length = 0;
  for (const t of kept) order.push(t);
  return {};
});
conn.onClose(() => process.exit(0));
await conn.start();
