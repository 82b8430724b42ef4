// The task store: what it writes for results a server may send (against the scripted server), and when it writes the index.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import FakeTimers from '@sinonjs/fake-timers';
import { TaskStore } from '../../../src/core/state/taskStore';
import type { TaskEngine } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { Emitter } from '../../../src/core/util/event';
import { noop } from '../../../src/core/util/promise';
import { completeWithDeepResult, harnessesForEachTest } from '../helpers/fakeTaskServer';
import { MemoryLogger } from '../helpers/logger';
import { collectGarbage } from '../reliability/support';

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

describe('TaskStore: index writes', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-store-'))));
  afterEach(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  it('a live task whose status message, progress or poll times change is written after ten debounces; a status change, an end and a removal after one (a new task at once)', () => {
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
    const changed = new Emitter<TaskSnapshot>();
    const removed = new Emitter<string>();
    let snaps: TaskSnapshot[] = [];
    let writes = 0;
    // The store writes the index from the engine's list: one list() per write.
    const engine = { onDidChange: changed.event, onDidRemove: removed.event, list: () => (writes++, snaps), progressToken: noop, removedTasks: () => [] };
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 500 });
    store.attach(engine as unknown as TaskEngine);
    const at = new Date(0).toISOString();
    let task: TaskSnapshot = { key: 's\0t', serverId: 's', taskId: 't', kind: 'task', toolName: 'build', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user' };
    const change = (changes: Partial<TaskSnapshot>, ms = 500) => {
      snaps = [(task = { ...task, ...changes })];
      changed.fire(task);
      clock.tick(ms);
    };
    try {
      change({});
      assert.equal(writes, 1, 'a new task is written (at once: see the next test)');
      for (let i = 1; i < 10; i++) change({ statusMessage: `step ${i}`, progress: { progress: i }, pollInterval: 1000 + i, lastUpdatedAt: new Date(i).toISOString() });
      assert.equal(writes, 1, 'nine changes of message, progress and poll times in 4.5 s: not written yet');
      clock.tick(500);
      assert.equal(writes, 2, 'written ten debounces after the first');
      change({ statusMessage: 'step 10' }, 100);
      change({ status: 'input_required' });
      assert.equal(writes, 3, 'a status change is written after one debounce, with the message before it');
      change({ statusMessage: 'done', status: 'completed' });
      assert.equal(writes, 4, 'an end is written after one debounce');
      removed.fire(task.key);
      clock.tick(500);
      assert.equal(writes, 5, 'a removal is written after one debounce');
    } finally {
      store.dispose();
      clock.uninstall();
    }
  });

  it('a new task (an id only this window knows) is written at once, not after the debounce: an extension host killed (kill -9) within it lost it; new tasks that come while that write is in flight are written together after it; other changes, and tasks found through tasks/list, keep the debounce', async () => {
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
    const changed = new Emitter<TaskSnapshot>();
    let snaps: TaskSnapshot[] = [];
    let writes = 0;
    // The store writes the index from the engine's list: one list() per write.
    const engine = { onDidChange: changed.event, onDidRemove: new Emitter<string>().event, list: () => (writes++, snaps), progressToken: noop, removedTasks: () => [] };
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 500 });
    store.attach(engine as unknown as TaskEngine);
    const at = new Date(0).toISOString();
    const task = (id: string, over: Partial<TaskSnapshot> = {}): TaskSnapshot => ({ key: `s\0${id}`, serverId: 's', taskId: id, kind: 'task', toolName: 'build', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user', ...over });
    const tell = (t: TaskSnapshot) => {
      snaps = snaps.some((x) => x.key === t.key) ? snaps.map((x) => (x.key === t.key ? t : x)) : [...snaps, t];
      changed.fire(t);
    };
    const stored = () => (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { tasks: { snap: TaskSnapshot }[] }).tasks.map((e) => e.snap.taskId);
    // Real file writes, faked timers: waits for them by turns of the event loop.
    const until = async (ok: () => boolean, what: string) => {
      for (const deadline = Date.now() + 5000; !ok(); await new Promise((r) => setImmediate(r))) if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    };
    const storedIs = (ids: string[]) => () => fs.existsSync(path.join(dir, 'tasks.json')) && stored().join() === ids.join();
    try {
      tell(task('a'));
      assert.equal(writes, 1, 'a new task is written at once');
      tell(task('b'));
      tell(task('c'));
      assert.equal(writes, 1, 'not a second write while the first is in flight');
      // Written once the first has ended and as long again has passed (timers are faked: ticked by hand).
      await until(() => (clock.tick(50), writes === 2), 'the write of b and c after the first');
      await until(storedIs(['a', 'b', 'c']), 'a, b and c on disk');
      assert.equal(writes, 2, 'b and c in one write');
      tell(task('a', { status: 'input_required' }));
      tell(task('b', { statusMessage: 'step 1', progress: { progress: 1 } }));
      tell(task('l', { origin: 'server-list' }));
      tell(task('d', { kind: 'direct' }));
      await new Promise((r) => setImmediate(r));
      assert.equal(writes, 2, 'a status change, a message, a task found through tasks/list and a direct call wait for the debounce');
      clock.tick(500);
      assert.equal(writes, 3, 'written after one debounce');
      await until(storedIs(['a', 'b', 'c', 'l', 'd']), 'all on disk');
    } finally {
      store.dispose();
      clock.uninstall();
    }
  });

  it("keeps no ended task's result in memory once its file is written (the engine lets results leave memory: the store must not hold them)", async () => {
    const gc = collectGarbage();
    const changed = new Emitter<TaskSnapshot>();
    const engine = { onDidChange: changed.event, onDidRemove: new Emitter<string>().event, list: () => [], progressToken: noop, removedTasks: () => [] };
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    store.attach(engine as unknown as TaskEngine);
    const at = new Date(0).toISOString();
    const key = 's\0t';
    let ref: WeakRef<object> | undefined;
    try {
      // In a function of its own: no reference to the result is left on this frame.
      (() => {
        const outcome = { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: 'x'.repeat(1000) }] } };
        ref = new WeakRef(outcome);
        const base = { key, serverId: 's', taskId: 't', kind: 'task' as const, toolName: 'build', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user' as const };
        changed.fire({ ...base, status: 'working' });
        changed.fire({ ...base, status: 'completed', outcome, outcomeFetchedAt: at });
      })();
      for (const deadline = Date.now() + 5000; !(await store.loadOutcome(key)); await new Promise((r) => setTimeout(r, 5))) {
        if (Date.now() > deadline) throw new Error('no result file');
      }
      await new Promise((r) => setTimeout(r, 20));
      gc();
      assert.equal(ref?.deref(), undefined, 'the result is still held in memory');
    } finally {
      store.dispose();
    }
  });
});
