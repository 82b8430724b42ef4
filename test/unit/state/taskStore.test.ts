// The task store against the scripted server: what it writes for results a server may send.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TaskStore } from '../../../src/core/state/taskStore';
import { completeWithDeepResult, harnessesForEachTest } from '../helpers/fakeTaskServer';
import { MemoryLogger } from '../helpers/logger';

describe('TaskStore: results', () => {
  const harness = harnessesForEachTest();
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-store-'))));
  // A store write still in flight after dispose may add a temporary file while the folder goes:
  // removed asynchronously, so that write ends meanwhile and each retry lists the folder again
  // (rmSync's retries block it and try the emptied folder only: ENOTEMPTY for good).
  afterEach(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  it('a result nested 10,000 deep (JSON.stringify overflows the stack) is saved with its deepest parts replaced, and the log says so', async () => {
    const log = new MemoryLogger();
    const store = new TaskStore(dir, log, { retentionDays: () => 30, debounceMs: 1 });
    const h = await harness({ server: { pollInterval: 10 } });
    store.attach(h.engine);
    try {
      const t = await h.engine.callTool('fake', 'required-tool');
      await completeWithDeepResult(h, t.taskId);
      let saved: Awaited<ReturnType<TaskStore['loadOutcome']>>;
      for (const deadline = Date.now() + 5000; !(saved = await store.loadOutcome(t.key)); await new Promise((r) => setTimeout(r, 5))) {
        if (Date.now() > deadline) throw new Error(`no result file; log:\n${log.text()}`);
      }
      assert.deepEqual(saved.kind === 'result' && saved.result.content, [{ type: 'text', text: 'ok' }]);
      assert.match(JSON.stringify(saved), /"<nested too deeply to show>"/);
      assert.ok(log.has('warn', /^A task result is nested too deeply to save whole \(.*\): saved with its deepest parts replaced by "<nested too deeply to show>"$/), log.text());
      assert.ok(!log.has('error', /Could not save/), log.text());
    } finally {
      store.dispose();
    }
  });
});
