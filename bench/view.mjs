// Benchmark 5: the Tasks view with 10,000 tasks. How many rows are recomputed when one task
// changes (see bench/clients/view-client.mjs for the model of the editor's tree).
import { join } from 'node:path';
import { benchDir, envNumber, fmt, verdict } from './lib/common.mjs';
import { startWorker } from './lib/worker.mjs';

export async function run() {
  const count = envNumber('BENCH_VIEW_TASKS', 10000);
  const w = await startWorker(join(benchDir, 'clients', 'view-client.mjs'), [], { name: 'view' });
  try {
    const r = await w.call('run', { count });
    const status = r.scenarios[0];
    return {
      config: { tasks: count },
      results: r,
      targets: [verdict(status.itemsRecomputed === 1 && status.events === 1, `one changed task recomputes one row: ${status.events} event(s) carrying ${status.nodes} node(s) (${status.nodeKinds.join(', ')}), ${status.itemsRecomputed} row(s) recomputed`)],
      table: {
        title: `5. The view: ${fmt(count)} tasks under one server (initial render: ${fmt(r.initialItems)} rows); the editor's reaction modelled`,
        header: ['change', 'events', 'nodes carried', 'node kind', 'rows recomputed', 'recompute ms', 'view ms', 'editor refreshes'],
        rows: r.scenarios.map((s) => [s.scenario, s.events, s.nodes, s.nodeKinds.join(', ') || '-', fmt(s.itemsRecomputed), fmt(s.ms), fmt(s.viewMs), s.editorRefreshes]),
      },
      // Each flood is 1,000 reports: its ms in all are its µs per report.
      notes: r.scenarios
        .filter((s) => s.scenario.includes('1,000'))
        .map((s) => `${s.scenario}: ${fmt(s.viewMs)} µs of the view's time per report; the editor redraws ${s.editorRefreshes} time(s), at most ${fmt(s.longestWithoutRefreshMs)} ms apart`),
    };
  } finally {
    await w.close();
  }
}
