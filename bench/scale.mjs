// Benchmark 3: scale. Our TaskEngine follows 100, 1,000 and 10,000 live tasks (pollInterval
// 1,000 ms) on bench/servers/scale-server.mjs for BENCH_SCALE_SECONDS (default 60) each. One
// client process per count, with --expose-gc; the server is a separate process (see its header).
// The server declares tasks/list, so the engine follows by list pages wherever that sends fewer
// requests than one tasks/get per task: a status check is a tasks/get or a live task in a page.
import { join } from 'node:path';
import { benchDir, envNumber, fmt, max, median, verdict } from './lib/common.mjs';
import { startWorker } from './lib/worker.mjs';

/** What the scale server reports beside its request counts: live tasks it returned in list pages. */
const LISTED = 'listed live tasks';

export async function run(log = console.log) {
  const seconds = envNumber('BENCH_SCALE_SECONDS', 60);
  const counts = (process.env.BENCH_SCALE_COUNTS ?? '100,1000,10000').split(',').map(Number);
  const pageSizes = [10, 100];
  const results = [];
  for (const count of counts) {
    const w = await startWorker(join(benchDir, 'clients', 'scale-client.mjs'), [], { execArgv: ['--expose-gc'], name: `scale ${count}` });
    try {
      const r = await w.call('run', { count, seconds, pageSizes });
      const finite = r.delays.filter(Number.isFinite);
      r.delayMs = { p50: median(finite), max: r.unseen ? Infinity : max(finite) };
      r.getPerS = r.requestsPerS['tasks/get'] ?? 0;
      r.listPerS = r.requestsPerS['tasks/list'] ?? 0;
      r.checksPerS = r.getPerS + (r.requestsPerS[LISTED] ?? 0);
      delete r.requestsPerS[LISTED]; // not a request
      r.totalPerS = Object.values(r.requestsPerS).reduce((a, b) => a + b, 0);
      delete r.delays;
      results.push(r);
      log(`  scale: ${count} tasks done (${fmt(r.cpuMsPerS)} ms CPU/s, ${fmt(r.getPerS)} tasks/get/s, ${fmt(r.listPerS)} tasks/list/s, max delay ${fmt(r.delayMs.max)} ms)`);
    } finally {
      await w.close();
    }
  }
  // Growth with the count. Polled one by one, each live task is checked every 1,000 ms plus up to
  // 25% jitter (mean 1,125 ms) after the previous answer; the tasks completed during the window
  // (spread evenly) stop, so keeping up means about (count - changes / 2) / 1.125 checks per
  // second (list cycles run every 1,000 ms, without jitter: up to 112% of that). Linear growth:
  // CPU per task and heap per task stay flat from one count to the next while the checks keep up
  // (85% of that rate allows for round trips and timer granularity).
  for (const r of results) {
    r.pollRateKeptUp = r.checksPerS / ((r.count - r.changes / 2) / 1.125);
    r.cpuUsPerRequest = (r.cpuMsPerS * 1000) / r.totalPerS;
    r.cpuUsPerTask = (r.cpuMsPerS * 1000) / r.count;
  }
  const first = results[0];
  const last = results.at(-1);
  const exponent = (f) => Math.log(f(last) / f(first)) / Math.log(last.count / first.count);
  const growth = {
    cpu: exponent((r) => r.cpuMsPerS),
    requests: exponent((r) => r.totalPerS),
    heap: exponent((r) => r.heapBytesPerTask * r.count),
  };
  const steps = results.slice(1).map((r, i) => ({ from: results[i].count, to: r.count, cpuPerTask: r.cpuUsPerTask / results[i].cpuUsPerTask, heapPerTask: r.heapBytesPerTask / results[i].heapBytesPerTask }));
  // Heap per task is compared from 1,000 tasks up: below, unrelated heap movement of tens of KB
  // (the warm-up's garbage, compiled code) swings it by hundreds of bytes either way.
  const heapSteps = steps.filter((x) => x.from >= 1000);
  const flat = steps.every((x) => x.cpuPerTask <= 1.25) && heapSteps.every((x) => x.heapPerTask <= 1.25) && results.every((r) => r.pollRateKeptUp >= 0.85);
  const big = results.find((r) => r.count === 10000) ?? last;
  const targets = [
    verdict(
      flat,
      `linear growth (CPU per task and heap per task flat, checks keep up): CPU/task ${steps.map((x) => `x${fmt(x.cpuPerTask)}`).join(' then ')}, heap/task ${heapSteps.map((x) => `x${fmt(x.heapPerTask)} (${fmt(x.from)} → ${fmt(x.to)})`).join(', ') || 'not compared (no two counts ≥ 1,000)'}, checks kept up ${results.map((r) => `${fmt(100 * r.pollRateKeptUp)}%`).join(' / ')}`,
    ),
    // Judged at the largest count: at 100 tasks a few KB of unrelated heap movement is 20+ B/task.
    verdict(last.heapBytesPerTask < 1024, `heap < 1 KB per tracked task: ${fmt(last.heapBytesPerTask)} B at ${fmt(last.count)} (${results.slice(0, -1).map((r) => `${fmt(r.heapBytesPerTask)} B @${fmt(r.count)}`).join(', ')})`),
    verdict(big.delayMs.max <= 2000, `at ${fmt(big.count)} tasks no change seen more than 2 poll intervals late: max ${fmt(big.delayMs.max)} ms${big.unseen ? ` (${big.unseen} never seen)` : ''}`),
  ];
  const rows = results.map((r) => [
    fmt(r.count),
    fmt(r.cpuMsPerS),
    fmt(r.cpuUsPerTask),
    fmt(r.cpuUsPerRequest),
    fmt(r.getPerS),
    fmt(r.listPerS),
    `${fmt(100 * r.pollRateKeptUp)}%`,
    fmt(r.serverCpuMsPerS),
    fmt(r.heapBytesPerTask),
    fmt(r.heapBytesPerTaskAtEnd),
    `${fmt(r.delayMs.p50)} / ${fmt(r.delayMs.max)}`,
    `${r.changes}${r.unseen ? ` (${r.unseen} unseen)` : ''}`,
  ]);
  const listRows = results.flatMap((r) =>
    r.lists.map((l) => [fmt(r.count), fmt(r.count), String(l.pageSize), fmt(l.pagesNeeded), `${l.listRequests}${l.cutOff ? ' (cut off at maxListPages)' : ''}`, fmt(l.wallMs), fmt(l.cpuMs)]),
  );
  return {
    config: { seconds, counts, pollIntervalMs: 1000, server: 'bench/servers/scale-server.mjs: a separate process on our JsonRpcConnection over stdio (see README)' },
    results,
    growth,
    targets,
    table: {
      title: `3. Scale: TaskEngine following N live tasks (pollInterval 1,000 ms) for ${seconds} s; server in its own process`,
      header: ['tasks', 'client CPU ms/s', 'CPU µs/task/s', 'CPU µs/request', 'tasks/get/s', 'tasks/list/s', 'checks of due', 'server CPU ms/s', 'heap B/task', 'B/task at end', 'change seen after p50 / max ms', 'changes'],
      rows,
    },
    listTable: {
      title: '3b. Following N tasks per poll cycle: one tasks/get per task vs tasks/list pages (engine.refreshList, measured once)',
      header: ['tasks', 'tasks/get per cycle', 'page size', 'pages needed', 'tasks/list sent', 'refreshList ms', 'CPU ms'],
      rows: listRows,
    },
  };
}
