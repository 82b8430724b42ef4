#!/usr/bin/env node
// The results benchmark's process (run with --expose-gc): a real TaskEngine over a real TaskStore
// holding `count` ended calls whose results of `mb` MB each are in their files, as a long session
// leaves them. Each result is opened once (fetchResult reads it back from its file, as Open Result
// does), then we measure the heap the engine still holds for them.
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDir, sleep } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
const { TaskEngine, TaskStore, Emitter } = require(join(buildDir, 'core.cjs'));
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, traceEnabled: false };
const heap = () => (globalThis.gc(), process.memoryUsage().heapUsed);

serveWorker({
  async run({ count, mb }) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-results-'));
    try {
      const line = 'The quick brown fox jumps over the lazy dog. 0123456789 ABCDEFGHIJ\n';
      const text = line.repeat(Math.ceil((mb * 2 ** 20) / line.length));
      const at = new Date().toISOString();
      const snaps = Array.from({ length: count }, (_, i) => ({ key: `srv\u0000call-${i}`, serverId: 'srv', taskId: `call-${i}`, kind: 'direct', toolName: 'big', status: 'completed', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user', outcomeFetchedAt: at }));
      // The files, written by a store as it writes each result that arrives.
      const writer = new TaskStore(dir, quiet, { retentionDays: () => 30, debounceMs: 1 });
      const changed = new Emitter();
      writer.attach({ list: () => [], progressToken: () => undefined, removedTasks: () => [], onDidChange: changed.event, onDidRemove: new Emitter().event });
      for (const s of snaps) changed.fire({ ...s, outcome: { kind: 'result', result: { content: [{ type: 'text', text: `${s.taskId}\n${text}` }] } } });
      for (const s of snaps) while (!(await writer.loadOutcome(s.key))) await sleep(10);
      writer.dispose();

      const store = new TaskStore(dir, quiet, { retentionDays: () => 30 });
      const engine = new TaskEngine({ logger: quiet, sessions: { getSession: () => new Promise(() => {}), label: () => 'srv', tasksOutliveConnection: () => true }, loadOutcome: (key) => store.readOutcome(key) });
      // Attached as the extension attaches it: what the store keeps of each change counts too.
      store.attach(engine);
      engine.restore(snaps);
      const before = heap();
      const t0 = performance.now();
      for (const s of snaps) await engine.fetchResult(s.key);
      const openMs = (performance.now() - t0) / count;
      const held = heap() - before;
      engine.dispose();
      store.dispose();
      return { count, mb, resultChars: text.length, heldBytes: held, heldResults: held / (text.length || 1), openMs };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
});
