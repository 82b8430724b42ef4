#!/usr/bin/env node
// `npm run bench`: every benchmark, one after the other, each comparison alternating its sides
// round by round. Prints a table per benchmark and the targets, and writes every figure to
// bench/results/latest.json. See bench/README.md for what each figure means.
//
// Env: BENCH_ONLY=roundtrip,tasks,scale,size,activate,view,results (a subset), BENCH_ROUNDS,
// BENCH_RT_CALLS, BENCH_TASK_ROUNDS, BENCH_TASK_POLL_MS, BENCH_SCALE_SECONDS (default 60),
// BENCH_SCALE_COUNTS, BENCH_VIEW_TASKS, BENCH_ACTIVATE_ROUNDS, BENCH_EDITOR=0 (skip the editor),
// BENCH_PROFILE=1 (CPU profiles of every client process into bench/results/profiles/),
// BENCH_SKIP_BUILD=1 (use the core bundle already in bench/results/.build/), BENCH_RESULTS (the
// figures' file instead of bench/results/latest.json).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { buildCore } from './lib/build.mjs';
import { printTable, resultsDir } from './lib/common.mjs';

const BENCHES = {
  view: () => import('./view.mjs'),
  results: () => import('./results.mjs'),
  size: () => import('./size.mjs'),
  roundtrip: () => import('./roundtrip.mjs'),
  tasks: () => import('./tasks.mjs'),
  scale: () => import('./scale.mjs'),
  activate: () => import('./activate.mjs'), // after size, which builds the production bundle
};

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim()).filter(Boolean);
const names = Object.keys(BENCHES).filter((n) => !only || only.includes(n));
if (only?.includes('activate') && !only.includes('size')) names.unshift('size');
const load = () => loadavg().map((x) => Number(x.toFixed(2)));
const started = Date.now();
const report = {
  date: new Date().toISOString(),
  machine: { node: process.version, cpus: cpus().length, cpuModel: cpus()[0]?.model, loadavgAtStart: load() },
  benchmarks: {},
};
const log = (m) => console.log(m);
// The suite must end within 10 minutes even on a busy machine: the editor benchmark, last and
// the slowest to start, gets what is left of BENCH_BUDGET_SECONDS (fewer page loads, or none).
const budgetMs = Number(process.env.BENCH_BUDGET_SECONDS || 570) * 1000;
const remainingMs = () => budgetMs - (Date.now() - started);

console.log(`MCP Tasks benchmarks: ${names.join(', ')} (node ${process.version}, ${cpus().length} CPUs, load average ${load().join(' ')})`);
// BENCH_SKIP_BUILD=1 keeps bench/results/.build/core.cjs as it is (A/B runs of a patched core).
if (process.env.BENCH_SKIP_BUILD !== '1') await buildCore();
let failed = 0;
for (const name of [...new Set(names)]) {
  const t0 = Date.now();
  const before = load();
  console.log(`\n▶ ${name}`);
  try {
    const mod = await BENCHES[name]();
    const r = await mod.run(log, { remainingMs });
    const seconds = (Date.now() - t0) / 1000;
    report.benchmarks[name] = { seconds, loadavgBefore: before, loadavgAfter: load(), ...r };
    if (r.notRun) {
      console.log(`  not run: ${r.notRun}`);
      continue;
    }
    for (const t of [r.table, r.listTable].filter(Boolean)) printTable(t.title, t.header, t.rows);
    for (const n of r.notes ?? []) console.log(`  note: ${n}`);
    for (const t of r.targets ?? []) console.log(`  target ${t.text}`);
    console.log(`  (${seconds.toFixed(0)} s; load average before ${before.join(' ')}, after ${load().join(' ')})`);
  } catch (e) {
    failed++;
    report.benchmarks[name] = { error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    console.error(`  ${name} failed: ${e instanceof Error ? e.message : e}`);
  }
}

const targets = Object.entries(report.benchmarks).flatMap(([n, b]) => (b.targets ?? []).map((t) => ({ benchmark: n, ...t })));
report.targets = targets;
report.totalSeconds = (Date.now() - started) / 1000;
report.machine.loadavgAtEnd = load();
const resultsFile = process.env.BENCH_RESULTS || join(resultsDir, 'latest.json');
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, JSON.stringify(report, null, 2) + '\n');

console.log(`\nTargets (${targets.filter((t) => t.ok).length} met, ${targets.filter((t) => !t.ok).length} missed):`);
for (const t of targets) console.log(`  [${t.benchmark}] ${t.text}`);
console.log(`\nDone in ${report.totalSeconds.toFixed(0)} s; figures in ${resultsFile}. Load average at the end: ${load().join(' ')} (${cpus().length} CPUs): on a busy machine read the ratios, not the times.`);
process.exit(failed ? 1 : 0);
