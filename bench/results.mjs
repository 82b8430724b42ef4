// Benchmark 6: kept results in a long session. How much heap the engine holds once many large
// results have each been opened (read back from their files); see bench/clients/results-client.mjs.
import { join } from 'node:path';
import { benchDir, envNumber, fmt, verdict } from './lib/common.mjs';
import { startWorker } from './lib/worker.mjs';

/** The engine's outcomeMemoryChars default (src/core/tasks/engine.ts), in bytes of one-byte strings. */
const BUDGET_BYTES = 16 * 2 ** 20;

export async function run() {
  const count = envNumber('BENCH_RESULTS_COUNT', 20);
  const mb = envNumber('BENCH_RESULTS_MB', 5);
  const w = await startWorker(join(benchDir, 'clients', 'results-client.mjs'), [], { execArgv: ['--expose-gc'], name: 'results' });
  try {
    const r = await w.call('run', { count, mb });
    return {
      config: { count, mb },
      results: r,
      // Twice the budget: a result's objects and the copies V8 keeps around them weigh more than its characters.
      targets: [verdict(r.heldBytes < 2 * BUDGET_BYTES, `${count} results of ${mb} MB, each opened once: ${fmt(r.heldBytes / 2 ** 20)} MB of heap held (${fmt(r.heldResults)} results' worth; the engine keeps 16 M characters: under ${fmt((2 * BUDGET_BYTES) / 2 ** 20)} MB)`)],
      table: {
        title: `6. Kept results: ${count} results of ${mb} MB in their files, each opened once (read back)`,
        header: ['results', 'MB each', 'heap held MB', "results' worth", 'open (read back) ms each'],
        rows: [[r.count, r.mb, fmt(r.heldBytes / 2 ** 20), fmt(r.heldResults), fmt(r.openMs)]],
      },
    };
  } finally {
    await w.close();
  }
}
