// How the TaskEngine copes with what real servers do: misbehaving answers, silent or chatty
// servers, endless lists, retries, forgotten tasks, dead processes and window reloads.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import FakeTimers from '@sinonjs/fake-timers';
import { ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import { TaskStore } from '../../../src/core/state/taskStore';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import type { ServerRequestContext, ServerRequestHandler } from '../../../src/core/tasks/engine';
import { TaskHost } from '../../../src/core/host/taskHost';
import type { HostedMethod } from '../../../src/core/host/taskHost';
import { describeTask } from '../../../src/core/tasks/presentation';
import { nullLogger } from '../../../src/core/util/log';
import { abortReason, onAbort } from '../../../src/core/util/abort';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { hostedKey, requestAbout, rerunTtl, taskKey } from '../../../src/core/tasks/types';
import type { Harness, WireTask } from '../helpers/fakeTaskServer';
import { FakeTaskServer, NO_POLL, harnessesForEachTest, settle, waitStatus } from '../helpers/fakeTaskServer';
import { MemoryLogger, waitFor } from '../helpers/logger';


describe('TaskEngine: behaviour against a scripted server', () => {
  const harness = harnessesForEachTest();

  it('ignores and logs an illegal transition out of a terminal status, from a poll answer or the list', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    h.server.setStatus(snap.taskId, 'working', 'restarted?');
    await h.engine.refreshList('fake');
    assert.equal(h.snap(snap.taskId).status, 'completed');
    assert.equal(h.snap(snap.taskId).statusMessage, undefined);
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Ignored list status working for task ${snap.taskId}: it already ended as completed \\(T-LIFE-3\\)$`)), h.log.text());
  });

  it('resultInFlight: the tasks/result call of a task that ended, settling once the outcome is kept; none when no call is in flight', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(h.engine.resultInFlight(snap.key), undefined, 'a working task: no call');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    h.server.override('tasks/result', async (_p, _ctx, builtin) => (await held, builtin()));
    h.server.fail(snap.taskId, { code: -32042, message: 'This request requires more information.' });
    await waitStatus(h, snap.taskId, 'failed');
    await h.server.waitForRequest('tasks/result');
    const inFlight = h.engine.resultInFlight(snap.key);
    assert.ok(inFlight, 'the engine fetches the result of a failed task');
    assert.equal(h.snap(snap.taskId).outcome, undefined);
    release();
    await inFlight;
    assert.deepEqual(h.snap(snap.taskId).outcome, { kind: 'error', error: { code: -32042, message: 'This request requires more information.' } });
    assert.equal(h.engine.resultInFlight(snap.key), undefined);
  });

  it('liveCount counts an ended task until its result is kept (its server waits for it); not one removed while its poll was in flight', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: NO_POLL } });
    h.server.override('tasks/result', () => new Promise(() => undefined)); // answered by hand below
    const task = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(task.taskId);
    await h.engine.poll(task.key);
    assert.deepEqual([h.snap(task.taskId).status, h.engine.liveCount('fake')], ['completed', { tasks: 0, calls: 0, results: 1, asking: 0 }], 'its result is still to come, counted as a result, not as a live task');
    const req = await h.server.waitForRequest('tasks/result');
    h.server.sendRaw({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: 'kept' }] } });
    await waitFor(() => h.snap(task.taskId).outcome !== undefined, 'the outcome');
    assert.deepEqual(h.engine.liveCount('fake'), { tasks: 0, calls: 0, results: 0, asking: 0 });

    // Removed while its poll is in flight, which then finds it completed (its tasks/result never answers).
    const removed = await h.engine.callTool('fake', 'required-tool');
    let answer = () => undefined as unknown;
    h.server.override('tasks/get', (_p, _ctx, builtin) => new Promise((r) => (answer = () => r(builtin()))));
    const polled = h.engine.poll(removed.key);
    await h.server.waitForRequest('tasks/get', h.server.requestsOf('tasks/get').length + 1);
    h.engine.remove(removed.key);
    h.server.complete(removed.taskId);
    answer();
    await polled;
    await settle(h);
    assert.deepEqual(h.engine.liveCount('fake'), { tasks: 0, calls: 0, results: 0, asking: 0 }, 'no longer tracked, nothing waits for it');
  });

  it('ignores a tasks/get answer about another task id, and carries on polling', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tasks/get', (p) => ({ ...h.server.task(String(p?.taskId))!, taskId: 'someone-else', status: 'completed' }));
    const n = h.server.requestsOf('tasks/get').length;
    await h.server.waitForRequest('tasks/get', n + 2);
    await settle(h);
    assert.equal(h.snap(snap.taskId).status, 'working');
    assert.equal(h.engine.get(taskKey('fake', 'someone-else')), undefined);
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Ignored a poll answer about task someone-else for task ${snap.taskId}: the ids do not match$`)), h.log.text());
    h.server.override('tasks/get', undefined);
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
  });

  it('a tasks/get answer older than a status notification already applied does not undo it', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    await new Promise((r) => setTimeout(r, 5)); // so the notification's lastUpdatedAt is later than the task's creation
    // The server reads the task when the poll arrives and answers late, after it has moved on.
    let release!: () => void;
    const late = new Promise<void>((r) => (release = r));
    h.server.override('tasks/get', async (_p, _ctx, builtin) => {
      const answer = builtin();
      await late;
      return answer;
    });
    const poll = h.engine.poll(snap.key);
    await h.server.waitForRequest('tasks/get');
    h.server.setStatus(snap.taskId, 'input_required', 'Which file?');
    await waitStatus(h, snap.taskId, 'input_required');
    const seen: string[] = [];
    h.engine.onDidChange((t) => t.key === snap.key && seen.push(t.status));
    release();
    await poll;
    assert.deepEqual(seen, [], 'the working answer was not applied');
    assert.equal(h.snap(snap.taskId).status, 'input_required');
    assert.equal(h.snap(snap.taskId).statusMessage, 'Which file?');
    assert.ok(h.log.has('debug', new RegExp(`^\\[fake\\] Ignored a poll answer about task ${snap.taskId} older than what is known \\(working at `)), h.log.text());
  });

  it('T-REQ-5: a status notification older than what is known (replayed by a resumed stream, or overtaken on another stream) does not undo it', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    await new Promise((r) => setTimeout(r, 5));
    h.server.setStatus(snap.taskId, 'input_required', 'Which file?');
    const earlier = { ...h.server.task(snap.taskId)! };
    await new Promise((r) => setTimeout(r, 5));
    h.server.setStatus(snap.taskId, 'working', 'Writing');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Writing', 'the newer notification');
    const seen: string[] = [];
    h.engine.onDidChange((t) => t.key === snap.key && seen.push(`${t.status}: ${t.statusMessage}`));
    h.server.sendRaw({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: earlier });
    await settle(h);
    assert.deepEqual(seen, [], 'the older input_required was not applied');
    assert.deepEqual([h.snap(snap.taskId).status, h.snap(snap.taskId).statusMessage], ['working', 'Writing']);
    assert.ok(h.log.has('debug', new RegExp(`^\\[fake\\] Ignored a notification answer about task ${snap.taskId} older than what is known \\(input_required at `)), h.log.text());
    // A newer one still applies.
    h.server.setStatus(snap.taskId, 'input_required', 'Which folder?');
    await waitStatus(h, snap.taskId, 'input_required');
  });

  it('T-LIFE-3: a tasks/get answer that the task ended applies even when its lastUpdatedAt is older than what is known: an end is never old news', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'working', 'Stage 2');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Stage 2', 'the notification');
    // A server whose clock went back (or that gave a reused id's task an earlier time).
    h.server.override('tasks/get', (_p, _ctx, builtin) => ({ ...(builtin() as object), lastUpdatedAt: '2000-01-01T00:00:00.000Z' }));
    h.server.options.notify = 'none';
    h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'done' }] });
    await h.engine.poll(snap.key);
    assert.equal(h.snap(snap.taskId).status, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
  });

  it('a lastUpdatedAt that does not parse is replaced by the local time, which never makes a later answer look stale', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    let lastUpdatedAt = 'not a date';
    h.server.override('tasks/get', (_p, _ctx, builtin) => ({ ...(builtin() as object), lastUpdatedAt }));
    h.server.setStatus(snap.taskId, 'input_required');
    await h.engine.poll(snap.key);
    assert.equal(h.snap(snap.taskId).status, 'input_required');
    // Now a readable time, from a server whose clock is a minute behind ours.
    lastUpdatedAt = new Date(Date.now() - 60_000).toISOString();
    h.server.setStatus(snap.taskId, 'working', 'Resumed');
    await h.engine.poll(snap.key);
    assert.equal(h.snap(snap.taskId).status, 'working');
    assert.equal(h.snap(snap.taskId).statusMessage, 'Resumed');
  });

  it('duplicated status notifications are harmless: one change, one log line, one tasks/result', async () => {
    const h = await harness({ server: { notify: 'twice', pollInterval: NO_POLL } });
    const changes: string[] = [];
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.engine.onDidChange((s) => s.key === snap.key && changes.push(`${s.status}:${s.outcome ? 'outcome' : '-'}`));
    h.server.setStatus(snap.taskId, 'input_required');
    h.server.setStatus(snap.taskId, 'working');
    h.server.complete(snap.taskId);
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined && h.snap(snap.taskId).status === 'completed', 'the end');
    await settle(h);
    assert.deepEqual(changes, ['input_required:-', 'working:-', 'completed:-', 'completed:outcome']);
    assert.equal(h.server.requestsOf('tasks/result').length, 1);
    for (const step of ['working → input_required', 'input_required → working', 'working → completed']) {
      assert.equal(h.log.lines.filter((l) => l.level === 'info' && l.message.includes(step)).length, 1, step);
    }
  });

  it('a server that sends neither notifications nor pollInterval: the default interval ends the task', async () => {
    const h = await harness({ server: { notify: 'none' }, engine: { defaultPollMs: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.pollInterval, undefined);
    assert.equal(h.engine.effectivePollInterval(snap.key), 10);
    await h.server.waitForRequest('tasks/get', 2);
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
  });

  it('logs and ignores malformed status notifications and those about tasks not tracked here', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.sendRaw({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: snap.taskId, status: 'exploded' } });
    h.server.sendRaw({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { ...h.server.task(snap.taskId), taskId: 'not-mine', status: 'completed' } });
    await settle(h);
    assert.equal(h.snap(snap.taskId).status, 'working');
    assert.equal(h.engine.get(taskKey('fake', 'not-mine')), undefined);
    assert.ok(h.log.has('warn', /^\[fake\] Ignored an invalid notifications\/tasks\/status: status: /), h.log.text());
    assert.ok(h.log.has('debug', /^\[fake\] Status notification for a task not tracked here: not-mine$/));
  });

  it('refuses a CreateTaskResult that reuses the id of a live task already tracked', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const first = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tools/call', () => ({ task: h.server.task(first.taskId) }));
    await assert.rejects(h.engine.callTool('fake', 'required-tool'), new RegExp(`reused the id of a task it already created: ${first.taskId}`));
    assert.equal(h.engine.list().length, 1);
  });

  /** The server forgets every task and gives the next one `taskId` (a restarted server that counts its ids; T-RCV-3 forbids it). */
  const reuseNext = (h: Harness, taskId: string) => {
    h.server.forget();
    // A second later, so the two tasks' creation times differ as they would.
    const later = new Date(Date.now() + 1000).toISOString();
    h.server.override('tools/call', (p) => ({ task: h.server.createTask(String(p?.name), { taskId, createdAt: later, lastUpdatedAt: later }) }));
  };

  it('an ended task whose id a new task reuses is kept apart: the id names the new task, and the old result is never asked for in its name (T-RCV-3)', async () => {
    const h = await harness({ server: { pollInterval: 10 }, engine: { autoFetchResults: () => false } });
    const first = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(first.taskId);
    await waitStatus(h, first.taskId, 'completed');
    const removed: string[] = [];
    h.engine.onDidRemove((k) => removed.push(k));
    reuseNext(h, first.taskId);
    const second = await h.engine.callTool('fake', 'required-tool');
    assert.equal(second.key, first.key);
    assert.deepEqual(removed, [first.key], 'the old key left the view');
    const earlier = h.engine.list().find((t) => t.key !== first.key)!;
    assert.deepEqual([earlier.taskId, earlier.status, earlier.note], [first.taskId, 'completed', 'The server has given its id to a newer task: its result can no longer be fetched.']);
    assert.equal(h.snap(first.taskId).status, 'working', 'find() gives the new task');
    assert.equal(h.engine.get(first.key, first.createdAt)?.key, earlier.key, 'the key and the creation time give the earlier one (an open result document)');
    assert.equal(h.engine.get(first.key, second.createdAt)?.key, second.key);
    await assert.rejects(h.engine.fetchResult(earlier.key), /^Error: The server has given its id to a newer task/);

    // Restored in another window with results fetched on their own: still never asked for, while
    // an ended task restored beside it has its result fetched.
    const other = await harness({ server: { pollInterval: 10 } });
    const control = other.server.createTask('required-tool');
    other.server.complete(control.taskId);
    other.engine.restore([{ ...earlier, serverId: 'fake' }, { ...earlier, key: taskKey('fake', control.taskId), taskId: control.taskId, createdAt: control.createdAt, note: undefined }]);
    await other.server.waitForRequest('tasks/result');
    await settle(other);
    assert.deepEqual(other.server.requestsOf('tasks/result').map((r) => r.params), [{ taskId: control.taskId }]);
    assert.equal(h.server.requestsOf('tasks/result').length, 0);
    h.server.complete(second.taskId, { content: [{ type: 'text', text: 'the new one' }] });
    const fresh = await h.engine.fetchResult(second.key);
    assert.deepEqual(fresh.kind === 'result' && fresh.result.content, [{ type: 'text', text: 'the new one' }]);
  });

  it('a plain call that became a task still leads to that task after its server gives the id to a new one', async () => {
    const h = await harness({ server: { plainCall: 'require-task', pollInterval: 10 } });
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct', arguments: { mine: true } });
    await waitFor(() => h.engine.get(direct.key)?.kind === 'task', 'the retry as a task');
    const task = h.engine.get(direct.key)!;
    h.server.complete(task.taskId);
    await waitFor(() => h.engine.get(direct.key)?.outcome !== undefined, 'its outcome');
    reuseNext(h, task.taskId);
    const other = await h.engine.callTool('fake', 'required-tool', { arguments: { someone: 'else' } });
    assert.equal(other.key, task.key, 'the id and its key now name the other task');
    const led = h.engine.get(direct.key)!;
    assert.deepEqual([led.arguments, led.status], [{ mine: true }, 'completed'], 'the call still leads to its own task');
    await assert.rejects(h.engine.cancel(direct.key), /already ended/);
    assert.equal(h.server.requestsOf('tasks/cancel').length, 0, 'nothing was cancelled in its name');
  });

  it('an ended task whose id a new task reuses keeps the result stored for it, moved to its new key', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-reuse-'));
    try {
      const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
      const h = await harness({ server: { pollInterval: 10 } });
      store.attach(h.engine);
      const first = await h.engine.callTool('fake', 'required-tool');
      h.server.complete(first.taskId, { content: [{ type: 'text', text: 'kept' }] });
      await waitFor(() => h.snap(first.taskId).outcome !== undefined, 'the first outcome');
      await waitFor(async () => (await store.loadOutcome(first.key)) !== undefined, 'the outcome file');
      store.dispose();

      // The next window: the snapshot comes back without its outcome, which stays on disk.
      const reopened = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
      const state = await reopened.load();
      const h2 = await harness({ server: { pollInterval: 10 }, engine: { loadOutcome: (key) => reopened.loadOutcome(key) } });
      h2.engine.restore(state.tasks, state.progressTokens);
      reopened.attach(h2.engine);
      assert.equal(h2.snap(first.taskId).outcome, undefined);
      reuseNext(h2, first.taskId);
      const second = await h2.engine.callTool('fake', 'required-tool');
      const earlier = h2.engine.list().find((t) => t.key !== second.key)!;
      const expected = h.snap(first.taskId).outcome;
      assert.deepEqual(earlier.outcome, expected);
      assert.equal(earlier.note, undefined);
      await waitFor(async () => (await reopened.loadOutcome(earlier.key)) !== undefined && (await reopened.loadOutcome(first.key)) === undefined, 'the file moved to the new key');
      assert.deepEqual(await reopened.loadOutcome(earlier.key), expected);
      reopened.dispose();
    } finally {
      // Asynchronously: a store write still in flight may add a file meanwhile (see test/unit/state).
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('Run Again asks for the ttl the first run asked for, not the one a capping server granted; with none asked, none (the default setting applies then), across a reload; a task stored by an older version asks for the granted one', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-rerun-'));
    try {
      // The server grants 10 s whatever is asked.
      const h = await harness({ server: { pollInterval: NO_POLL, ttl: 10_000 }, engine: { defaultTtlMs: () => 5_000 } });
      const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
      store.attach(h.engine);
      const asked = await h.engine.callTool('fake', 'required-tool', { ttlMs: 60_000 });
      const unasked = await h.engine.callTool('fake', 'required-tool');
      assert.deepEqual([asked.ttl, unasked.ttl], [10_000, 10_000], 'granted');
      assert.deepEqual([rerunTtl(asked), rerunTtl(unasked)], [60_000, undefined]);
      store.flushSync();
      store.dispose();
      const { tasks } = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load();
      const byKey = new Map(tasks.map((t) => [t.key, t]));
      assert.deepEqual([rerunTtl(byKey.get(asked.key)!), rerunTtl(byKey.get(unasked.key)!)], [60_000, undefined], 'after a reload');
      // Stored before the requested ttl was: its granted ttl, as Run Again always asked.
      const older = JSON.parse(JSON.stringify({ ...asked, requestedTtl: undefined })) as TaskSnapshot;
      assert.equal(rerunTtl(older), 10_000);
      assert.equal(rerunTtl({ ...older, ttl: null }), undefined);
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('tasks/list: a repeated cursor stops paging, with an error in the log', async () => {
    const h = await harness({ server: { listMode: 'repeat-cursor', pollInterval: NO_POLL } });
    const t = h.server.createTask('seen');
    assert.equal(await h.engine.refreshList('fake'), 1);
    const lists = h.server.requestsOf('tasks/list');
    assert.deepEqual(lists.map((r) => r.params), [{}, { cursor: 'the-same-cursor' }]);
    assert.ok(h.log.has('error', /^\[fake\] tasks\/list: the server repeated the cursor "the-same-cursor"; stopped paging$/), h.log.text());
    assert.equal(h.snap(t.taskId).origin, 'server-list');
  });

  it('tasks/list: an endless list is cut off after maxListPages, with an error in the log', async () => {
    const h = await harness({ server: { listMode: 'endless' }, engine: { maxListPages: 5 } });
    assert.equal(await h.engine.refreshList('fake'), 0);
    const lists = h.server.requestsOf('tasks/list');
    assert.equal(lists.length, 5);
    for (let i = 1; i < 5; i++) assert.deepEqual(lists[i].params, { cursor: h.server.issuedCursors[i - 1] });
    assert.ok(h.log.has('error', /^\[fake\] tasks\/list: stopped after 5 pages, the limit; later ones are left out$/), h.log.text());
  });

  it('tasks/list (T-REQ-6): a page with nextCursor null ends the list, as no nextCursor does; its tasks are adopted', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const t = h.server.createTask('seen');
    h.server.override('tasks/list', () => ({ tasks: [h.server.task(t.taskId)], nextCursor: null }));
    assert.equal(await h.engine.refreshList('fake'), 1);
    assert.equal(h.server.requestsOf('tasks/list').length, 1);
    assert.equal(h.snap(t.taskId).origin, 'server-list');
    assert.equal(h.log.has('error', /tasks\/list/), false, h.log.text());
  });

  it('tasks/list (T-REQ-6, Refresh) does not bring back the tasks the user removed or cleared; a task the server made since under a removed id joins', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const removed = await h.engine.callTool('fake', 'required-tool');
    const cleared = await h.engine.callTool('fake', 'required-tool');
    for (const t of [removed, cleared]) {
      h.server.complete(t.taskId);
      await h.engine.poll(t.key);
      await waitFor(() => h.snap(t.taskId).outcome !== undefined, 'the outcome');
    }
    h.engine.remove(removed.key);
    assert.equal(h.engine.clearFinished(), 1);
    // The server still keeps both (their ttl has not run out): they were back as "Task <id>", without their tool, arguments or result.
    assert.equal(await h.engine.refreshList('fake'), 0);
    assert.deepEqual(h.engine.list(), []);
    // A server restarted with its ids counted again may give one to a new task: that one is not the task removed.
    const reused = h.server.createTask('other', { taskId: removed.taskId, createdAt: new Date(Date.parse(removed.createdAt) + 60_000).toISOString() });
    assert.equal(await h.engine.refreshList('fake'), 1);
    assert.deepEqual(h.engine.list().map((t) => [t.taskId, t.createdAt, t.origin]), [[removed.taskId, reused.createdAt, 'server-list']]);
  });

  it('tasks/list (T-REQ-6, Refresh) in the next window does not bring back the tasks removed in an earlier one: the store keeps them, and the engine is restored with them', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-removed-'));
    try {
      const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
      const h = await harness({ server: { pollInterval: NO_POLL } });
      store.attach(h.engine);
      const removed = await h.engine.callTool('fake', 'required-tool');
      const kept = await h.engine.callTool('fake', 'required-tool');
      h.engine.remove(removed.key);
      store.dispose();

      // The next window, whose server still keeps both tasks (their ttl has not run out).
      const state = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load();
      const h2 = await harness({ server: { pollInterval: NO_POLL } });
      for (const t of [removed, kept]) h2.server.createTask('required-tool', { taskId: t.taskId, createdAt: t.createdAt });
      h2.engine.restore(state.tasks, state.progressTokens, state.removed);
      assert.equal(await h2.engine.refreshList('fake'), 0);
      assert.deepEqual(h2.engine.list().map((t) => t.taskId), [kept.taskId]);
      assert.equal(h2.server.requestsOf('tasks/result').length, 0, 'nor is the result of the removed task fetched');
    } finally {
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('tasks/list (T-REQ-6, Refresh): a task found already ended has its result fetched and kept (T-REQ-4), as one that ends here; with autoFetchResults off, not', async () => {
    for (const auto of [true, false]) {
      const h = await harness({ server: { pollInterval: NO_POLL }, engine: { autoFetchResults: () => auto } });
      const [done, failed, cancelled] = ['done', 'failed', 'cancelled'].map((tool) => h.server.createTask(tool));
      h.server.complete(done.taskId);
      h.server.fail(failed.taskId, { code: -32603, message: 'the build broke' });
      h.server.setStatus(cancelled.taskId, 'cancelled');
      assert.equal(await h.engine.refreshList('fake'), 3);
      if (!auto) {
        await new Promise((r) => setTimeout(r, 300)); // the fetches would have gone out within 60 ms
        assert.deepEqual(h.server.requestsOf('tasks/result'), [], 'nothing fetched unasked');
        assert.equal(h.snap(done.taskId).outcome, undefined);
        continue;
      }
      await waitFor(() => h.snap(done.taskId).outcome !== undefined && h.snap(failed.taskId).outcome !== undefined, 'both results in hand');
      const kept = h.snap(done.taskId).outcome;
      assert.deepEqual(kept?.kind === 'result' && kept.result.content, [{ type: 'text', text: `done: ${done.taskId}` }]);
      assert.deepEqual(h.snap(failed.taskId).outcome, { kind: 'error', error: { code: -32603, message: 'the build broke' } });
      assert.deepEqual(h.server.requestsOf('tasks/result').map((r) => r.params?.taskId).sort(), [done.taskId, failed.taskId].sort(), 'a cancelled task has no result to fetch');
    }
  });

  it('tasks/list: an invalid task in a page is skipped and logged; the rest are adopted', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const good = h.server.createTask('good');
    h.server.override('tasks/list', () => ({ tasks: [{ taskId: 'bad', status: 'working' }, h.server.task(good.taskId)] }));
    assert.equal(await h.engine.refreshList('fake'), 1);
    assert.equal(h.engine.get(taskKey('fake', 'bad')), undefined);
    assert.equal(h.snap(good.taskId).status, 'working');
    assert.ok(h.log.has('warn', /^\[fake\] tasks\/list: skipped an invalid task: createdAt: expected string/), h.log.text());
  });

  it('a task id longer than 1,000 characters is refused (forty of 15 MB made the index longer than a string can be, and the tasks were lost): the call fails naming the server and why; tasks/list skips it', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const long = 'x'.repeat(1001);
    h.server.override('tools/call', () => ({ task: { ...h.server.createTask(), taskId: long } }));
    await assert.rejects(h.engine.callTool('fake', 'required-tool'), /^Error: Server "fake" answered tools\/call with neither a task nor a tool result: task\.taskId: longer than 1,000 characters$/);
    h.server.override('tools/call', () => ({ task: { ...h.server.createTask(), taskId: long.slice(1) } }));
    assert.equal((await h.engine.callTool('fake', 'required-tool')).taskId, long.slice(1), '1,000 is allowed');
    h.server.override('tasks/list', () => ({ tasks: [{ ...h.server.createTask(), taskId: long }] }));
    assert.equal(await h.engine.refreshList('fake'), 0);
    assert.equal(h.engine.get(taskKey('fake', long)), undefined);
    assert.ok(h.log.has('warn', /^\[fake\] tasks\/list: skipped an invalid task: taskId: longer than 1,000 characters/), h.log.text());
  });

  it('a flood of 100,000 status and 100,000 progress notifications for one task: one change each, which the store coalesces into a few writes of its index', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-flood-'));
    const writeFile = fs.promises.writeFile;
    let writes = 0;
    fs.promises.writeFile = ((...args: Parameters<typeof writeFile>) => (String(args[0]).includes('tasks.json') && writes++, writeFile(...args))) as typeof writeFile;
    try {
      const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
      const h = await harness({ server: { pollInterval: NO_POLL } });
      store.attach(h.engine);
      const t = await h.engine.callTool('fake', 'required-tool');
      await waitFor(() => writes > 0, 'the new task written');
      let changes = 0;
      h.engine.onDidChange(() => changes++);
      const before = writes;
      const token = h.server.progressTokenOf(t.taskId)!;
      const task = h.server.task(t.taskId)!;
      for (let i = 1; i <= 100_000; i++) {
        void h.server.connection.notify('notifications/tasks/status', { ...task, statusMessage: `step ${i}` });
        void h.server.sendProgress(token, i, 100_000);
      }
      await waitFor(() => h.snap(t.taskId).statusMessage === 'step 100000' && h.snap(t.taskId).progress?.progress === 100_000, 'the last of each', 100_000);
      await new Promise((r) => setTimeout(r, 100));
      console.log(`      flood: ${changes} changes, ${writes - before} index writes`);
      assert.equal(changes, 200_000, 'one change each: the engine does not coalesce them; its listeners do (the store, the counts)');
      assert.ok(writes - before < 100, `${writes - before} index writes for 200,000 notifications`);
      store.dispose();
    } finally {
      fs.promises.writeFile = writeFile;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('tasks/list (Refresh): a server that lists endless new tasks (a page of 150,000 took 450 MB and 1.6 s; 1,000 such pages, which paging allows, would fill the memory of the extension host) adds 1,000 at most, stops paging and says so (as tools/list stops at 10,000 tools); the tasks tracked already still get their news', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const mine = await h.engine.callTool('fake', 'required-tool');
    const at = new Date().toISOString();
    const listed = (page: number) => Array.from({ length: 600 }, (_, i) => ({ taskId: `p${page}-${i}`, status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null }));
    h.server.override('tasks/list', (p) => {
      const page = Number(p?.cursor ?? 0);
      return { tasks: [...listed(page), ...(page === 2 ? [{ ...h.server.task(mine.taskId), statusMessage: 'news' }] : [])], nextCursor: String(page + 1) };
    });
    assert.equal(await h.engine.refreshList('fake'), 1000);
    assert.equal(h.engine.list().length, 1001);
    assert.equal(h.server.requestsOf('tasks/list').length, 2, 'no page after the limit is reached');
    // It says what to do: the next Refresh adds the next ones (below).
    assert.ok(h.log.has('error', /^\[fake\] tasks\/list: stopped after 1,000 new tasks, the limit; Refresh again to add the next ones$/), h.log.text());
    // Known tasks are not new: the next Refresh adds the next ones, and a tracked task on a later page hears its news.
    assert.equal(await h.engine.refreshList('fake'), 1000);
    assert.equal(h.snap(mine.taskId).statusMessage, 'news');
  });

  it('keeps a server\'s status, progress and immediate messages to 10,000 characters: 40 tasks with messages of 15 MB (a message may have 16) made an index longer than a string can be, so no write of it succeeded and the tasks were lost at the next start', async () => {
    const big = `${'Scanning '.repeat(200_000)}done`;
    const h = await harness({ server: { pollInterval: NO_POLL, immediateResponse: big } });
    const t = await h.engine.callTool('fake', 'required-tool');
    const kept = `${big.slice(0, 10_000)}… (${big.length - 10_000} more chars)`;
    assert.equal(t.immediateResponse?.length, kept.length, 'the immediate response');
    assert.equal(t.immediateResponse, kept);
    h.server.setStatus(t.taskId, 'working', big);
    await h.engine.poll(t.key);
    const said = h.snap(t.taskId).statusMessage ?? '';
    assert.equal(said.length, kept.length, 'the status message');
    assert.equal(said, kept);
    await h.engine.poll(t.key);
    assert.equal(h.snap(t.taskId).statusMessage, said, 'the same message again is no change');
    await h.server.sendProgress(h.server.progressTokenOf(t.taskId)!, 1, 2, big);
    await waitFor(() => h.snap(t.taskId).progress?.progress === 1, 'the progress');
    assert.equal(h.snap(t.taskId).progress?.message?.length, kept.length, 'the progress message');
    assert.equal(h.snap(t.taskId).progress?.message, kept);
  });

  it('an end message over 10,000 characters that differs from the working one only past them (same start, same length) is the end\'s, not taken for the old one and dropped (T-LIFE-5)', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const t = await h.engine.callTool('fake', 'required-tool');
    const working = `${'Scanning '.repeat(2_000)}step 1 of 2`;
    const done = `${'Scanning '.repeat(2_000)}all 2 done!`;
    assert.equal(done.length, working.length);
    h.server.setStatus(t.taskId, 'working', working);
    await h.engine.poll(t.key);
    const said = h.snap(t.taskId).statusMessage;
    assert.equal(said, `${working.slice(0, 10_000)}… (${working.length - 10_000} more chars)`);
    h.server.setStatus(t.taskId, 'completed', done);
    await h.engine.poll(t.key);
    assert.equal(h.snap(t.taskId).status, 'completed');
    assert.equal(h.snap(t.taskId).statusMessage, said, 'the end\'s message, clipped as the working one was');
  });

  it('so too when the working message over 10,000 characters came with the task\'s creation, not from a poll (T-LIFE-5)', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const working = `${'Scanning '.repeat(2_000)}step 1 of 2`;
    const done = `${'Scanning '.repeat(2_000)}all 2 done!`;
    h.server.override('tools/call', (p) => ({ task: h.server.createTask(String(p?.name), { statusMessage: working }) }));
    const t = await h.engine.callTool('fake', 'required-tool');
    const said = h.snap(t.taskId).statusMessage;
    assert.equal(said, `${working.slice(0, 10_000)}… (${working.length - 10_000} more chars)`);
    h.server.setStatus(t.taskId, 'completed', done);
    await h.engine.poll(t.key);
    assert.equal(h.snap(t.taskId).status, 'completed');
    const ended = h.snap(t.taskId).statusMessage;
    assert.ok(ended === said, `the end's message, clipped as the working one was; got ${ended && `…${ended.slice(9_990)}`}`);
  });

  it('and for a task restored after a reload, whose working message over 10,000 characters was stored clipped (its whole one unknown): the end\'s clipped alike is kept, as maybe new, not dropped; one under 10,000 the same as the stored one is still dropped (T-LIFE-5)', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const working = `${'Scanning '.repeat(2_000)}step 1 of 2`;
    const done = `${'Scanning '.repeat(2_000)}all 2 done!`;
    const said = `${working.slice(0, 10_000)}… (${working.length - 10_000} more chars)`;
    const big = h.server.createTask('long-tool', { statusMessage: working });
    const small = h.server.createTask('long-tool', { statusMessage: 'Step 2 of 3' });
    const saved = (t: WireTask, statusMessage: string): TaskSnapshot => ({ key: taskKey('fake', t.taskId), serverId: 'fake', taskId: t.taskId, kind: 'task', toolName: 'long-tool', status: 'working', statusMessage, createdAt: t.createdAt, lastUpdatedAt: t.createdAt, ttl: null, origin: 'user' });
    h.engine.restore([saved(big, said), saved(small, 'Step 2 of 3')]);
    h.server.setStatus(big.taskId, 'completed', done);
    h.server.setStatus(small.taskId, 'completed', 'Step 2 of 3');
    await Promise.all([big, small].map((t) => h.engine.poll(taskKey('fake', t.taskId))));
    assert.equal(h.snap(big.taskId).status, 'completed');
    const ended = h.snap(big.taskId).statusMessage;
    assert.ok(ended === said, `the end's message, clipped as the stored working one was; got ${ended && `…${ended.slice(9_990)}`}`);
    assert.equal(h.snap(small.taskId).status, 'completed');
    assert.equal(h.snap(small.taskId).statusMessage, undefined, 'the working message, kept at the end');
  });

  it('keeps a note made of a server\'s error message to 10,000 characters too (a failed task without a status message says why from its error)', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const big = `${'broken '.repeat(200_000)}end`;
    const t = await h.engine.callTool('fake', 'required-tool');
    h.server.fail(t.taskId, { code: -32603, message: big });
    await h.engine.poll(t.key);
    await waitFor(() => h.snap(t.taskId).outcome !== undefined, 'the outcome');
    const note = h.snap(t.taskId).note ?? '';
    assert.equal(note.length, 10_000 + `… (${big.length - 10_000} more chars)`.length, 'the note');
    assert.ok(note.startsWith('broken broken'));
  });

  it('-32600 on a plain call of an optional tool: retried once as a task, with a log line', async () => {
    const h = await harness({ server: { plainCall: 'require-task', pollInterval: NO_POLL } });
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct', arguments: { n: 1 } });
    assert.equal(direct.kind, 'direct');
    await waitFor(() => h.engine.list().some((s) => s.kind === 'task'), 'the retry as a task');
    const calls = h.server.requestsOf('tools/call');
    assert.equal(calls.length, 2);
    assert.equal('task' in calls[0].params!, false);
    assert.deepEqual(calls[1].params?.task, {});
    assert.deepEqual(calls[1].params?.arguments, { n: 1 });
    const task = h.engine.list()[0];
    assert.equal(h.engine.list().length, 1, 'the failed plain call is replaced by the task');
    assert.equal(task.toolName, 'optional-tool');
    assert.equal(task.status, 'working');
    // Whoever holds the call's key (a chat tool, another extension) is led to the task.
    assert.equal(h.engine.get(direct.key)?.key, task.key);
    h.server.complete(task.taskId, { content: [{ type: 'text', text: 'as a task' }] });
    const outcome = await h.engine.fetchResult(direct.key);
    assert.deepEqual(outcome.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'as a task' }]);
    h.engine.remove(task.key);
    assert.equal(h.engine.get(direct.key), undefined, 'the way to it goes with the task');
    assert.ok(
      h.log.has('info', /^\[fake\] optional-tool: the server requires task augmentation \(-32600: Task augmentation required for tools\/call requests\); calling it again as a task$/),
      h.log.text(),
    );
  });

  it('forgetOutcomes (Clear Stored Results): no task claims a result any more; a task fetches its own again, a plain call says it was deleted', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const task = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(task.taskId, { content: [{ type: 'text', text: 'kept by the server' }] });
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct' });
    await waitFor(() => h.snap(task.taskId).outcome !== undefined && h.snap(direct.taskId).outcome !== undefined, 'both outcomes');
    h.engine.forgetOutcomes();
    for (const t of [h.snap(task.taskId), h.snap(direct.taskId)]) assert.deepEqual([t.outcome, t.outcomeFetchedAt], [undefined, undefined]);
    await assert.rejects(h.engine.fetchResult(direct.key), /^Error: Its stored result was deleted\.$/);
    // A later window does not fetch it again on its own...
    const saved = h.snap(task.taskId);
    assert.equal(saved.resultDeleted, true);
    const next = await harness({ server: { pollInterval: 10 } });
    // Beside it, an ended task whose result was never fetched: that one is fetched on its own.
    const control = next.server.createTask('required-tool');
    next.server.complete(control.taskId);
    next.engine.restore([saved, { ...saved, key: taskKey('fake', control.taskId), taskId: control.taskId, createdAt: control.createdAt, resultDeleted: undefined }]);
    await next.server.waitForRequest('tasks/result');
    await settle(next);
    assert.deepEqual(next.server.requestsOf('tasks/result').map((r) => r.params), [{ taskId: control.taskId }], 'a deleted result is not fetched back after a reload');
    // ...but the user may ask for it, and then it is kept again.
    const again = await h.engine.fetchResult(task.key);
    assert.deepEqual(again.kind === 'result' && again.result.content, [{ type: 'text', text: 'kept by the server' }]);
    assert.equal(h.snap(task.taskId).resultDeleted, undefined);
  });

  it('-32600 again on the retry: no third call, the failure is logged, and the call stays in the view, failed with the reason', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    h.server.override('tools/call', () => {
      throw new RpcError(-32600, 'Task augmentation required for tools/call requests');
    });
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct' });
    await waitFor(() => h.log.has('error', /the retry as a task failed/), 'the logged failure');
    assert.equal(h.server.requestsOf('tools/call').length, 2);
    assert.ok(h.log.has('error', /^\[fake\] optional-tool: the retry as a task failed: Task augmentation required for tools\/call requests$/), h.log.text());
    const kept = h.engine.get(direct.key);
    assert.equal(kept?.status, 'failed', 'the call is not lost');
    assert.deepEqual(kept?.outcome, { kind: 'error', error: { code: -32600, message: 'Task augmentation required for tools/call requests' } });
    assert.match(kept?.note ?? '', /^The server requires a task for this call, and calling it as a task failed: Task augmentation required/);
    assert.deepEqual(h.engine.list().map((t) => t.key), [direct.key], 'no task record was left behind');
  });

  it('-32600, then a retry as a task answered with neither a task nor a tool result: the call failed with the reason, and no error the server never sent is kept as its outcome', async () => {
    const h = await harness({ server: { plainCall: 'require-task', pollInterval: NO_POLL } });
    h.server.override('tools/call', (p, _ctx, builtin) => (p?.task === undefined ? builtin() : { queued: true }));
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct' });
    await waitStatus(h, direct.taskId, 'failed');
    const kept = h.snap(direct.taskId);
    assert.equal(kept.outcome, undefined, 'the server sent no JSON-RPC error: none is kept as its answer');
    assert.equal(kept.outcomeFetchedAt, undefined);
    assert.match(kept.note ?? '', /^The server requires a task for this call, and calling it as a task failed: Server "fake" answered tools\/call with neither a task nor a tool result: task: expected object$/);
  });

  it('a plain call the server answers with a task (a CreateTaskResult, which the spec gives only to a task-augmented call) is followed as that task to its result, not failed as an invalid result', async () => {
    const h = await harness({ server: { pollInterval: 10, plainCall: (params) => ({ task: h.server.createTask(String(params.name), {}, params) }) } });
    const direct = await h.engine.callTool('fake', 'plain-tool', { arguments: { n: 1 } });
    assert.equal(direct.kind, 'direct');
    await waitFor(() => h.engine.get(direct.key)?.kind === 'task', 'the call to become its task');
    const task = h.engine.get(direct.key)!;
    assert.deepEqual([task.toolName, task.arguments, task.status, task.origin], ['plain-tool', { n: 1 }, 'working', 'user']);
    assert.deepEqual(h.engine.list().map((t) => t.key), [task.key], 'the call itself gave way to the task');
    assert.ok(h.log.has('warn', /^\[fake\] plain-tool: the server answered a plain call with a task; it is followed as one$/), h.log.text());
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${task.taskId} created for plain-tool `)), h.log.text());
    h.server.complete(task.taskId, { content: [{ type: 'text', text: 'the work it ran' }] });
    await waitFor(() => h.engine.get(direct.key)?.outcome !== undefined, 'its result');
    const done = h.engine.get(direct.key)!;
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.outcome?.kind === 'result' && done.outcome.result.content, [{ type: 'text', text: 'the work it ran' }]);
    assert.equal(h.server.requestsOf('tools/call').length, 1, 'the tool ran once');
  });

  it('a direct call whose result is an error (isError) says why, as its row (and notification) show: the first line of its text, cut at 200 characters', async () => {
    const why = 'MCP error -32602: Input validation error: Invalid arguments for tool get-sum';
    const h = await harness({ server: { plainResult: { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: `  ${why}\nat line 2` }], isError: true } } });
    const snap = await h.engine.callTool('fake', 'forbidden-tool');
    await waitStatus(h, snap.taskId, 'failed');
    assert.equal(describeTask(h.snap(snap.taskId), Date.parse(snap.createdAt)), `Failed · ${why} · now`);
    h.server.options.plainResult = { content: [{ type: 'text', text: 'x'.repeat(300) }], isError: true };
    const long = await h.engine.callTool('fake', 'forbidden-tool');
    await waitStatus(h, long.taskId, 'failed');
    assert.equal(h.snap(long.taskId).note, `${'x'.repeat(200)}… (100 more chars)`);
    h.server.options.plainResult = { content: [], isError: true };
    const bare = await h.engine.callTool('fake', 'forbidden-tool');
    await waitStatus(h, bare.taskId, 'failed');
    assert.equal(describeTask(h.snap(bare.taskId), Date.parse(bare.createdAt)), 'Failed · now', 'no text, nothing to say');
  });

  it('-32600 on a plain call of a forbidden tool is never retried as a task: the call failed', async () => {
    const h = await harness({ server: { plainCall: 'require-task' } });
    const snap = await h.engine.callTool('fake', 'forbidden-tool');
    await waitStatus(h, snap.taskId, 'failed');
    assert.deepEqual(h.snap(snap.taskId).outcome, { kind: 'error', error: { code: -32600, message: 'Task augmentation required for tools/call requests' } });
    const calls = h.server.requestsOf('tools/call');
    assert.equal(calls.length, 1);
    assert.equal('task' in calls[0].params!, false);
    assert.equal(h.log.has('info', /calling it again as a task/), false);
  });

  it('-32601 on a plain call is the call\'s outcome, not a reason to retry as a task', async () => {
    const h = await harness({ server: { plainCall: 'method-not-found' } });
    const snap = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct' });
    await waitStatus(h, snap.taskId, 'failed');
    assert.deepEqual(h.snap(snap.taskId).outcome, { kind: 'error', error: { code: -32601, message: 'Method not found: tools/call of optional-tool' } });
    assert.equal(h.server.requestsOf('tools/call').length, 1);
  });

  it('a task forgotten while tasks/result is blocked on it: the refusal is logged at debug level, a poll finds it lost and warns so, once', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    h.server.forget(snap.taskId);
    await waitStatus(h, snap.taskId, 'lost');
    assert.equal(h.snap(snap.taskId).lastServerStatus, 'input_required');
    assert.equal(h.snap(snap.taskId).outcome, undefined, 'a refusal is not an outcome');
    assert.ok(h.log.has('debug', new RegExp(`^\\[fake\\] tasks/result ${snap.taskId} was refused: Failed to retrieve task result: Task not found$`)), h.log.text());
    assert.deepEqual(
      h.log.lines.filter((l) => l.level === 'warn').map((l) => l.message.replace(snap.taskId, 'T')),
      ['[fake] Task T (required-tool) is lost: the server no longer knows the task (Failed to retrieve task: Task not found)'],
    );
    assert.deepEqual(h.server.requestsOf('tasks/get').map((r) => r.params), [{ taskId: snap.taskId }]);
  });

  it('a task the server forgets: lost before its ttl ended, expired after', async () => {
    const h = await harness({ server: { pollInterval: 10, ttl: 1_000 } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    h.server.forget(a.taskId);
    await waitStatus(h, a.taskId, 'lost');
    const sa = h.snap(a.taskId);
    assert.equal(sa.lastServerStatus, 'working');
    assert.equal(sa.note, 'The server no longer knows the task (Failed to retrieve task: Task not found).');
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Task ${a.taskId} \\(required-tool\\) is lost: the server no longer knows the task`)), h.log.text());

    h.advanceEngineClock(1_000); // b's ttl is over
    h.server.forget(b.taskId);
    await waitStatus(h, b.taskId, 'expired');
    const sb = h.snap(b.taskId);
    assert.equal(sb.lastServerStatus, 'working');
    // Said once: "Task not found" is what "no longer knows" says.
    assert.equal(sb.note, 'Its ttl of 1 s ended; the server no longer knows the task.');
    assert.equal(h.engine.followedCount, 0);
    await assert.rejects(h.engine.fetchResult(b.key), /The task is expired and no result was fetched before/);
  });

  it('an expired task\'s note says its ttl once, in plain time; the server\'s own words only when they add something', async () => {
    const h = await harness({ server: { pollInterval: 10, ttl: 30_000 } });
    const notes: string[] = [];
    for (const words of ['Failed to retrieve task: Task has expired (its ttl of 30000 ms ran out)', 'Deleted by an administrator']) {
      const t = await h.engine.callTool('fake', 'required-tool');
      h.advanceEngineClock(30_000);
      h.server.override('tasks/get', () => Promise.reject(new RpcError(ErrorCode.InvalidParams, words)));
      await waitStatus(h, t.taskId, 'expired');
      notes.push(h.snap(t.taskId).note!);
    }
    assert.deepEqual(notes, ['Its ttl of 30 s ended; the server no longer knows the task.', 'Its ttl of 30 s ended; the server no longer knows the task (Deleted by an administrator).']);
  });

  it('an expired task\'s note leaves out the server\'s words only when they say no more than that the task is not found or expired, however they word it (its id after a colon too), or say nothing; other words stay whole, even with "expired" in them, and the log has them all', async () => {
    const h = await harness({ server: { pollInterval: 10, ttl: 30_000 } });
    const told: Array<[string, string]> = [];
    const said = [
      'Task not found',
      'Failed to retrieve task: task not found \'t-9\'',
      'Task has expired',
      // As the SDKs write it (Python's and TypeScript's "Task not found: ${taskId}"): the id after a colon.
      'Task not found: 3f2a0c1e-9b7d-4e55-a1c2-64d0e8f1b2a3',
      'access token expired; sign in again',
      'Task not found (database offline)',
      'Failed to retrieve task: Task expired because its owner left',
      // No words at all (or only blanks): its -32602 says it, as the note does ("the server gave no reason" adds nothing).
      '',
      ' ',
    ];
    for (const words of said) {
      const t = await h.engine.callTool('fake', 'required-tool');
      h.advanceEngineClock(30_000);
      h.server.override('tasks/get', () => Promise.reject(new RpcError(ErrorCode.InvalidParams, words)));
      await waitStatus(h, t.taskId, 'expired');
      const logged = h.log.lines.find((l) => l.level === 'warn' && l.message.includes(`Task ${t.taskId} (required-tool) is expired: `))?.message ?? '';
      told.push([h.snap(t.taskId).note!, logged.slice(logged.indexOf(' is expired: ') + 13)]);
    }
    const gone = 'Its ttl of 30 s ended; the server no longer knows the task.';
    assert.deepEqual(told.map(([note]) => note), [
      gone,
      gone,
      gone,
      gone,
      'Its ttl of 30 s ended; the server no longer knows the task (access token expired; sign in again).',
      'Its ttl of 30 s ended; the server no longer knows the task (Task not found (database offline)).',
      'Its ttl of 30 s ended; the server no longer knows the task (Failed to retrieve task: Task expired because its owner left).',
      gone,
      gone,
    ]);
    assert.deepEqual(told.map(([, log]) => log), said.map((words) => `the server no longer knows the task (${words.trim() || 'the server gave no reason (error -32602)'})`), 'the log keeps the server\'s words');
  });

  it('an expired task whose server no longer has tasks/get (-32601) leaves out its "Method not found", which says no more than the note does; the log keeps it', async () => {
    const h = await harness({ server: { pollInterval: 10, ttl: 30_000 } });
    const t = await h.engine.callTool('fake', 'required-tool');
    h.advanceEngineClock(30_000);
    h.server.override('tasks/get', () => Promise.reject(new RpcError(ErrorCode.MethodNotFound, 'Method not found: tasks/get')));
    await waitStatus(h, t.taskId, 'expired');
    assert.equal(h.snap(t.taskId).note, 'Its ttl of 30 s ended; the server no longer answers tasks/get.');
    assert.ok(h.log.lines.some((l) => l.level === 'warn' && l.message.endsWith(`is expired: the server no longer answers tasks/get (Method not found: tasks/get)`)), 'the log has the server\'s words');
  });

  it('an expired task\'s note says its ttl exactly, where an age is rounded: 90 s, not "1 min"; 100 ms, not "0 s"', async () => {
    const notes: string[] = [];
    for (const ttl of [90_000, 100, 5_400_000, 1_500, 86_400_000]) {
      const h = await harness({ server: { pollInterval: 10, ttl } });
      const t = await h.engine.callTool('fake', 'required-tool');
      h.advanceEngineClock(ttl);
      h.server.forget(t.taskId);
      await waitStatus(h, t.taskId, 'expired');
      notes.push(h.snap(t.taskId).note!.replace('; the server no longer knows the task.', ''));
    }
    assert.deepEqual(notes, ['Its ttl of 90 s ended', 'Its ttl of 100 ms ended', 'Its ttl of 90 min ended', 'Its ttl of 1.5 s ended', 'Its ttl of 24 h ended']);
  });

  it('a server that denies a task with an empty error message: the lost task and the refused cancel say it gave no reason, not "()" or nothing after a colon', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(b.taskId); // silently: no notification, no poll yet
    const silent = () => {
      throw new RpcError(-32602, '');
    };
    h.server.override('tasks/cancel', silent);
    await assert.rejects(h.engine.cancel(b.key), new RegExp(`^Error: The server refused to cancel task ${b.taskId}: the server gave no reason \\(error -32602\\) \\(it is now completed\\)\\.$`));
    h.server.override('tasks/get', silent);
    await h.engine.poll(a.key);
    assert.equal(h.snap(a.taskId).status, 'lost');
    assert.equal(h.snap(a.taskId).note, 'The server no longer knows the task (the server gave no reason (error -32602)).');
  });

  it('a server that no longer has tasks/get (-32601: another server answers there now): its live task is lost with why, not polled for ever with a warning each time', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const a = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tasks/get', () => {
      throw new RpcError(-32601, 'Method not found');
    });
    await h.engine.poll(a.key);
    assert.equal(h.snap(a.taskId).status, 'lost');
    assert.equal(h.snap(a.taskId).note, 'The server no longer answers tasks/get (Method not found).');
    assert.equal(h.engine.followedCount, 0, 'it is no longer polled');
  });

  it('a completed task whose kept result file is missing or damaged (loadOutcome finds none): fetched again from its server while it has it; once it forgot the task, it stays completed (or failed), not lost, and its note and the error say the kept result is missing', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL }, engine: { loadOutcome: async () => undefined } });
    const at = new Date().toISOString();
    const kept = (taskId: string, status: 'completed' | 'failed' = 'completed'): TaskSnapshot => ({ key: taskKey('fake', taskId), serverId: 'fake', taskId, kind: 'task', toolName: 'required-tool', status, createdAt: at, lastUpdatedAt: at, ttl: 3_600_000, origin: 'user', outcomeFetchedAt: at });
    const [a, b, c] = [h.server.createTask('required-tool'), h.server.createTask('required-tool'), h.server.createTask('required-tool')];
    h.server.complete(a.taskId);
    h.server.complete(b.taskId);
    h.server.forget(b.taskId);
    h.server.forget(c.taskId);
    h.engine.restore([kept(a.taskId), kept(b.taskId), kept(c.taskId, 'failed')], new Map(), []);
    const fetched = await h.engine.fetchResult(taskKey('fake', a.taskId));
    assert.deepEqual(fetched.kind === 'result' && fetched.result.content, [{ type: 'text', text: `done: ${a.taskId}` }]);
    const missing = 'The result kept for it is missing or damaged (see the log), and its server no longer has it.';
    for (const [t, status] of [[b, 'completed'], [c, 'failed']] as const) {
      await assert.rejects(h.engine.fetchResult(taskKey('fake', t.taskId)), (err: Error) => (assert.equal(err.message, missing), true));
      assert.deepEqual([h.snap(t.taskId).status, h.snap(t.taskId).note], [status, missing]);
    }
  });

  it('a completed task whose result the server no longer has (-32602 on tasks/result): lost or expired after a tasks/get, not an error outcome', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL, ttl: 1_000 }, engine: { autoFetchResults: () => false } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(a.taskId, undefined, 'Done');
    h.server.complete(b.taskId);
    await waitStatus(h, a.taskId, 'completed');
    await waitStatus(h, b.taskId, 'completed');
    // The server drops it (its store restarted, or the session that held it closed) before the result is fetched.
    h.server.forget(a.taskId);
    await assert.rejects(h.engine.fetchResult(a.key), /^Error: The task is lost and no result was fetched before: The server no longer knows the task \(Failed to retrieve task: Task not found\)\.$/);
    const sa = h.snap(a.taskId);
    assert.equal(sa.status, 'lost');
    assert.equal(sa.lastServerStatus, 'completed');
    assert.equal(sa.statusMessage, 'Done');
    assert.equal(sa.outcome, undefined, 'a refusal is not the tool\'s outcome');
    assert.equal(sa.outcomeFetchedAt, undefined);
    assert.deepEqual(h.server.requestsOf('tasks/get').map((r) => r.params), [{ taskId: a.taskId }], 'confirmed by tasks/get');

    h.advanceEngineClock(1_000); // b's ttl is over
    h.server.forget(b.taskId);
    await assert.rejects(h.engine.fetchResult(b.key), /^Error: The task is expired and no result was fetched before: Its ttl of 1 s ended; the server no longer knows the task\.$/);
    assert.equal(h.snap(b.taskId).status, 'expired');
    assert.equal(h.snap(b.taskId).lastServerStatus, 'completed');
    assert.equal(h.snap(b.taskId).outcome, undefined);
  });

  it('a task whose fetched result the user deleted (Clear Stored Results), then gone from its server, stays completed (not lost): its note and the error say the result is gone', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL }, engine: { autoFetchResults: () => false } });
    const a = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(a.taskId);
    await waitStatus(h, a.taskId, 'completed');
    await h.engine.fetchResult(a.key);
    h.engine.forgetOutcomes();
    h.server.forget(a.taskId);
    await assert.rejects(h.engine.fetchResult(a.key), /^Error: Its stored result was deleted, and its server no longer has it\.$/);
    assert.equal(h.snap(a.taskId).status, 'completed');
    assert.equal(h.snap(a.taskId).note, 'Its stored result was deleted, and its server no longer has it.');
  });

  it('lost and expired tasks keep an outcome fetched earlier', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL, ttl: 1_000 } });
    const result = { content: [{ type: 'text', text: 'kept' }] };
    const run = async (skewMs: number): Promise<TaskSnapshot> => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      h.server.options.notify = 'once';
      h.server.setStatus(snap.taskId, 'input_required'); // the engine blocks on tasks/result
      await waitFor(() => h.server.requestsOf('tasks/result').some((r) => r.params?.taskId === snap.taskId), 'tasks/result');
      h.advanceEngineClock(skewMs);
      // The outcome arrives, then the server drops the task before the engine polls for the final status.
      h.server.options.notify = 'none';
      h.server.complete(snap.taskId, result);
      h.server.forget(snap.taskId);
      await waitFor(() => ['lost', 'expired'].includes(h.snap(snap.taskId).status), 'the end');
      return h.snap(snap.taskId);
    };
    const lost = await run(0);
    assert.equal(lost.status, 'lost');
    assert.equal(lost.lastServerStatus, 'input_required');
    const expected = { kind: 'result', result: { ...result, _meta: { 'io.modelcontextprotocol/related-task': { taskId: lost.taskId } } } };
    assert.deepEqual(lost.outcome, expected);
    assert.deepEqual(await h.engine.fetchResult(lost.key), expected);
    const expired = await run(5_000);
    assert.equal(expired.status, 'expired');
    assert.deepEqual(expired.outcome, { ...expected, result: { ...result, _meta: { 'io.modelcontextprotocol/related-task': { taskId: expired.taskId } } } });
  });

  it('the server process ended (tasks do not outlive it): live tasks are lost, with their last status', async () => {
    const h = await harness({ tasksOutliveConnection: false, server: { notify: 'once', pollInterval: NO_POLL } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    const c = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(b.taskId, 'input_required', 'Waiting for you');
    h.server.complete(c.taskId);
    await waitStatus(h, b.taskId, 'input_required');
    await waitFor(() => h.snap(c.taskId).outcome !== undefined, 'c outcome');
    await h.server.close();
    await waitStatus(h, a.taskId, 'lost');
    await waitStatus(h, b.taskId, 'lost');
    assert.equal(h.snap(a.taskId).lastServerStatus, 'working');
    assert.equal(h.snap(b.taskId).lastServerStatus, 'input_required');
    assert.equal(h.snap(b.taskId).statusMessage, 'Waiting for you');
    assert.equal(h.snap(a.taskId).note, "The server's process ended (the other side closed).");
    assert.equal(h.snap(c.taskId).status, 'completed', 'an ended task is untouched');
    assert.equal(h.engine.followedCount, 0);
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Task ${a.taskId} \\(required-tool\\) is lost: the server's process ended \\(the other side closed\\)$`)), h.log.text());
  });

  it('a plain call cut off by the server process ending is not reported as cancelled by the user', async () => {
    const h = await harness({ tasksOutliveConnection: false, server: { plainCall: () => new Promise(() => undefined) } });
    const snap = await h.engine.callTool('fake', 'forbidden-tool');
    await h.server.waitForRequest('tools/call');
    await h.server.close();
    await waitFor(() => h.snap(snap.taskId).status !== 'working', 'the call to end');
    const s = h.snap(snap.taskId);
    assert.equal(s.status, 'failed');
    assert.notEqual(s.statusMessage, 'Cancelled by the user');
    assert.match(s.note!, /closed/);
  });

  /** A tools/call whose task the server creates at once but whose answer waits for `answer()`. */
  function slowCreate(h: Harness): { answer: () => void; taskId: () => string } {
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    let created: { task: WireTask } | undefined;
    h.server.override('tools/call', async (_p, _ctx, builtin) => {
      created = builtin() as { task: WireTask };
      await held;
      return created;
    });
    return { answer, taskId: () => created!.task.taskId };
  }

  /** A task-augmented call whose caller stops waiting before its CreateTaskResult, which then comes. */
  async function abandoned(h: Harness): Promise<ReturnType<typeof slowCreate>> {
    const slow = slowCreate(h);
    const ac = new AbortController();
    const start = h.engine.callTool('fake', 'required-tool', { signal: ac.signal });
    await h.server.waitForRequest('tools/call');
    ac.abort();
    await assert.rejects(start, (e: Error) => e.name === 'AbortError');
    slow.answer();
    return slow;
  }

  /** The task that came after its caller stopped waiting is tracked and cancelled with tasks/cancel, never notifications/cancelled (schema.ts). */
  async function cancelledLate(h: Harness, id: string): Promise<void> {
    await waitStatus(h, id, 'cancelled');
    assert.equal(h.server.task(id)!.status, 'cancelled');
    assert.deepEqual(h.server.requestsOf('tasks/cancel').map((r) => r.params), [{ taskId: id }]);
    assert.deepEqual(h.server.notifications.map((n) => n.method).filter((m) => m === 'notifications/cancelled'), [], 'schema.ts: not for task-augmented requests');
    assert.equal(h.snap(id).origin, 'chat');
    // Ended on its caller's behalf (the user stopped it, or the call ran out of time), not by its server: not notified "cancelled", as the user's Cancel Task is not.
    assert.equal(h.snap(id).cancelRequested, true, 'the cancel is kept with the task');
  }

  it('T-REQ-7: a task-augmented call whose caller stops waiting (chat Stop) before the CreateTaskResult arrives: rejected at once, no notifications/cancelled; the task is tracked and cancelled with tasks/cancel', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const slow = slowCreate(h);
    const ac = new AbortController();
    const start = h.engine.callTool('fake', 'required-tool', { signal: ac.signal, origin: 'chat' });
    await h.server.waitForRequest('tools/call');
    ac.abort(new Error('the user pressed Stop in chat'));
    await assert.rejects(start, /^Error: the user pressed Stop in chat$/);
    slow.answer();
    const id = slow.taskId();
    await cancelledLate(h, id);
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${id} \\(required-tool\\) was created after its caller stopped waiting: cancelling it$`)), h.log.text());
  });

  it('T-REQ-7: a task-augmented call that times out before the CreateTaskResult arrives: rejected with the timeout, no notifications/cancelled (schema.ts); the task that comes late is tracked and cancelled with tasks/cancel', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL }, engine: { requestTimeoutMs: 100 } });
    const slow = slowCreate(h);
    await assert.rejects(h.engine.callTool('fake', 'required-tool', { origin: 'chat' }), /^TimeoutError: Server "fake" did not answer tools\/call within 0\.1 s$/);
    slow.answer();
    await waitFor(() => h.engine.list().length === 1, 'the task that came late, tracked');
    const id = slow.taskId();
    await cancelledLate(h, id);
  });

  it('pendingCalls counts the task-augmented calls of a server still waiting for their CreateTaskResult (a disconnect would lose their task): not listed as tasks yet', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const slow = slowCreate(h);
    const start = h.engine.callTool('fake', 'required-tool');
    await h.server.waitForRequest('tools/call');
    assert.deepEqual([h.engine.pendingCalls('fake'), h.engine.pendingCalls('other'), h.engine.list().length], [1, 0, 0]);
    slow.answer();
    await start;
    assert.deepEqual([h.engine.pendingCalls('fake'), h.engine.list().length], [0, 1]);
  });

  it('T-REQ-6: a tasks/list (Refresh) that finds a task before the CreateTaskResult that creates it arrives: the call still gets its task, with its tool, arguments, origin and progress', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const slow = slowCreate(h);
    const start = h.engine.callTool('fake', 'required-tool', { arguments: { city: 'Oslo' }, origin: 'chat' });
    await h.server.waitForRequest('tools/call');
    assert.equal(await h.engine.refreshList('fake'), 1, 'the list named the task first');
    const id = slow.taskId();
    assert.equal(h.snap(id).origin, 'server-list');
    slow.answer();
    const snap = await start;
    assert.equal(snap.taskId, id);
    assert.deepEqual(h.engine.list().map((t) => t.key), [snap.key], 'one task, not two');
    const t = h.snap(id);
    assert.deepEqual([t.toolName, t.arguments, t.origin, t.status], ['required-tool', { city: 'Oslo' }, 'chat', 'working']);
    await h.server.sendProgress(h.server.progressTokenOf(id)!, 3, 10, 'three of ten');
    await waitFor(() => h.snap(id).progress?.progress === 3, 'the progress of the call\'s token');
    h.server.complete(id);
    await h.engine.poll(snap.key);
    await waitFor(() => h.snap(id).outcome !== undefined, 'the outcome');
    assert.equal(h.log.has('error', /reused the id/), false);
  });

  it('T-REQ-6: a task that tasks/list found ended before the CreateTaskResult arrives: the call gets it, ended, with its result; no copy is kept apart', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const slow = slowCreate(h);
    const start = h.engine.callTool('fake', 'required-tool', { arguments: { n: 1 } });
    await h.server.waitForRequest('tools/call');
    h.server.complete(slow.taskId());
    await h.engine.refreshList('fake');
    slow.answer();
    const snap = await start;
    assert.deepEqual(h.engine.list().map((t) => t.key), [snap.key], 'one task, not two');
    assert.deepEqual([snap.toolName, snap.arguments, snap.origin, snap.status], ['required-tool', { n: 1 }, 'user', 'completed']);
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    assert.deepEqual(h.snap(snap.taskId).outcome, { kind: 'result', result: { content: [{ type: 'text', text: `done: ${snap.taskId}` }], _meta: { [RELATED_TASK_META]: { taskId: snap.taskId } } } });
  });

  it('a task-augmented call whose caller stops waiting, on a server that cannot cancel tasks: the task stays tracked and visible, with a warning', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL, tasks: { cancel: false } } });
    const slow = await abandoned(h);
    await waitFor(() => h.engine.list().length === 1, 'the task tracked');
    const id = slow.taskId();
    await settle(h);
    assert.equal(h.snap(id).status, 'working');
    assert.deepEqual(h.server.requestsOf('tasks/cancel'), []);
    assert.deepEqual(h.server.notifications.map((n) => n.method).filter((m) => m === 'notifications/cancelled'), []);
    assert.ok(h.log.has('warn', /was created after its caller stopped waiting; the server does not support cancelling tasks, so it runs on and stays in the view$/), h.log.text());
  });

  it('a task-augmented call whose caller stops waiting, whose tasks/cancel then fails: one warning line says so, not two, and that its caller stopping asked for the cancel, not the user', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    h.server.override('tasks/cancel', () => Promise.reject(new RpcError(ErrorCode.InternalError, 'the database is down')));
    const slow = await abandoned(h);
    await waitFor(() => h.log.has('warn', /it failed/), 'the failure logged');
    await settle(h); // what follows the failure has run by now
    assert.deepEqual(h.log.lines.filter((l) => l.level === 'warn').map((l) => l.message), [`[fake] Task ${slow.taskId()}: cancel requested as its caller stopped waiting; it failed: the database is down`]);
  });

  it('a chat Stop while the server is still connecting, or while its tools are listed: no tools/call is sent (nothing to cancel later), and the caller is rejected at once', async () => {
    let connected!: () => void;
    const connecting = new Promise<void>((r) => (connected = r));
    let waiting: Promise<void> | undefined = connecting;
    const h = await harness({ server: { pollInterval: NO_POLL }, connecting: () => waiting });
    const ac = new AbortController();
    const start = h.engine.callTool('fake', 'required-tool', { signal: ac.signal, origin: 'chat' });
    ac.abort(new Error('stopped while connecting'));
    await assert.rejects(start, /stopped while connecting/);
    connected();
    waiting = undefined;
    // tools/list held by the server: the Stop comes while it is pending.
    let list!: () => void;
    const listed = new Promise<void>((r) => (list = r));
    h.server.override('tools/list', async (_p, _ctx, builtin) => (await listed, builtin()));
    const ac2 = new AbortController();
    const start2 = h.engine.callTool('fake', 'required-tool', { signal: ac2.signal, origin: 'chat' });
    await h.server.waitForRequest('tools/list');
    ac2.abort(new Error('stopped while listing'));
    await assert.rejects(start2, /stopped while listing/);
    list();
    await settle(h);
    assert.deepEqual(h.server.requestsOf('tools/call'), []);
    assert.deepEqual(h.engine.list(), []);
  });

  it('a task-augmented call whose signal is already aborted sends nothing', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    await h.engine.callTool('fake', 'plain-tool'); // tools/list cached
    const ac = new AbortController();
    ac.abort(new Error('stopped'));
    await assert.rejects(h.engine.callTool('fake', 'required-tool', { signal: ac.signal }), /stopped/);
    assert.deepEqual(h.server.requestsOf('tools/call').map((r) => r.params?.name), ['plain-tool']);
  });

  it('a plain call the user cancels is cancelled, the server is told, and the log says so at info', async () => {
    const h = await harness({ server: { plainCall: () => new Promise(() => undefined) } });
    const snap = await h.engine.callTool('fake', 'forbidden-tool');
    const call = await h.server.waitForRequest('tools/call');
    await h.engine.cancel(snap.key);
    await waitStatus(h, snap.taskId, 'cancelled');
    assert.equal(h.snap(snap.taskId).statusMessage, 'Cancelled by the user');
    assert.ok(h.log.has('info', /^\[fake\] Direct call of forbidden-tool cancelled by the user$/), h.log.text());
    await waitFor(() => h.server.notifications.some((n) => n.method === 'notifications/cancelled'), 'notifications/cancelled');
    assert.equal(h.server.notifications.find((n) => n.method === 'notifications/cancelled')!.params?.requestId, call.id);
  });

  for (const method of ['elicitation/create', 'sampling/createMessage'] as const) {
    it(`T-REQ-3, T-REQ-4: a ${method} about a task stops no request's clock while its dialog is open or a model answers it (tasks/result has no timeout; polls and other calls still time out)`, async () => {
      const asked: ServerRequestContext[] = [];
      // As the dialogs do: the sampling handler holds for its prompt, then for its model.
      const handle: ServerRequestHandler = (_p, ctx) => new Promise(() => asked.push(ctx) && [ctx.hold?.(), ctx.hold?.('model'), ctx.hold?.('quiet')]);
      const h = await harness({
        server: { pollInterval: NO_POLL },
        engine: { handlers: { [method === 'elicitation/create' ? 'elicitation' : 'sampling']: { handle } } },
      });
      let holds = 0;
      const { connection } = h.session;
      const hold = connection.hold.bind(connection);
      connection.hold = (tag) => (holds++, ((release) => () => (holds--, release()))(hold(tag)));
      const snap = await h.engine.callTool('fake', 'required-tool');
      const params = method === 'elicitation/create' ? { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } } : { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 10 };
      void h.server.connection.requestRaw(method, { ...params, _meta: { [RELATED_TASK_META]: { taskId: snap.taskId } } }, { timeoutMs: Infinity }).catch(() => undefined);
      await waitFor(() => asked.length === 1, 'the request to reach its handler');
      assert.equal(asked[0].task?.key, snap.key, 'it is about the task');
      assert.equal(holds, 0, 'no clock of the connection stopped');
    });
  }

  it('T-REQ-3: a question run as a task here about a task not tracked here stops no request\'s clock either', async () => {
    const asked: ServerRequestContext[] = [];
    const host = new TaskHost({ logger: nullLogger });
    const handle: ServerRequestHandler = (_p, ctx) => new Promise(() => asked.push(ctx));
    const h = await harness({ server: { pollInterval: NO_POLL }, engine: { handlers: { elicitation: { handle: host.wrap('elicitation/create', handle) } } } });
    try {
      host.attachSession('fake', h.session);
      let holds = 0;
      const { connection } = h.session;
      const hold = connection.hold.bind(connection);
      connection.hold = (tag) => (holds++, ((release) => () => (holds--, release()))(hold(tag)));
      const form = { mode: 'form', message: 'Confirm?', requestedSchema: { type: 'object', properties: {} } };
      await h.server.connection.requestRaw('elicitation/create', { ...form, task: {}, _meta: { [RELATED_TASK_META]: { taskId: 'not-tracked' } } }, { timeoutMs: Infinity });
      await waitFor(() => asked.length === 1, 'the question to reach its handler');
      assert.equal(asked[0].relatedTaskId, 'not-tracked');
      assert.equal(holds, 0, 'no clock of the connection stopped');
    } finally {
      host.dispose();
    }
  });

  describe('a direct call whose server asks the user a question (elicitation/create of no task)', () => {
    const form = { mode: 'form', message: 'Fill in the form', requestedSchema: { type: 'object', properties: {} } };
    let clock: ReturnType<typeof FakeTimers.install> | undefined;
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });
    /** A harness whose server asks a question (or, with `method`, a sampling request) in each plain call and answers as `then` says; the questions wait in `asked`. */
    const asking = async (then: (answer: Promise<unknown>) => unknown, host?: TaskHost, method: HostedMethod = 'elicitation/create', holdAs?: 'model') => {
      const asked: Array<{ ctx: ServerRequestContext; answer: (r: Record<string, unknown>) => void }> = [];
      const ref: { h?: Harness } = {};
      // As the dialogs do, one closes (unanswered) when its signal aborts. A sampling handler holds
      // the calls itself, as its consent prompt does (see createSamplingHandler), unless `asks` says how.
      const handle: ServerRequestHandler = (_p, ctx) => {
        const release = method === 'sampling/createMessage' ? ctx.hold?.(holdAs) : undefined;
        return new Promise<Record<string, unknown>>((answer, reject) => {
          asked.push({ ctx, answer });
          onAbort(ctx.signal, () => reject(abortReason(ctx.signal)));
        }).finally(release);
      };
      // Hosted: asked as a task (task-augmented), answered at once with the task; its dialog stays open.
      const asks = method === 'elicitation/create' ? form : { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 10 };
      const params = host ? { ...asks, task: {} } : asks;
      const h = (ref.h = await harness({
        server: { plainCall: () => then(ref.h!.server.connection.requestRaw(method, params, { timeoutMs: Infinity })) },
        engine: { requestTimeoutMs: 1000, handlers: { [method === 'elicitation/create' ? 'elicitation' : 'sampling']: { handle: host ? host.wrap(method, handle) : handle } } },
      }));
      host?.attachSession('fake', h.session);
      host?.followRelatedTasks(h.engine);
      clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
      const snap = await h.engine.callTool('fake', 'forbidden-tool');
      for (let i = 0; i < 100 && !asked.length; i++) await clock.tickAsync(0);
      assert.equal(asked.length, 1, 'the question reached the handler');
      return { h, c: clock, snap, asked };
    };

    for (const hosted of [false, true]) {
      it(`waits for the user and does not time out while the question${hosted ? ' (run as a task here)' : ''} is open (its row says input_required, Respond reaches the question); works again, its clock starting over, once the user answers`, async () => {
        const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
        const { h, c, snap, asked } = await asking(async (answer) => {
          await answer;
          return new Promise(() => undefined); // then no answer: the call's own timeout
        }, host);
        try {
          await c.tickAsync(30_000); // the user takes a while over the form
          assert.equal(h.snap(snap.taskId).status, 'input_required', h.snap(snap.taskId).note);
          // The dialog is about the call (so Respond to Task and the row's button find it), and about its hosted task.
          const { ctx } = asked[0];
          assert.deepEqual(requestAbout(ctx), hosted ? [snap.key, hostedKey('fake', ctx.hostedTaskId!)] : [snap.key]);
          asked[0].answer({ action: 'accept', content: {} });
          await c.tickAsync(0);
          assert.equal(h.snap(snap.taskId).status, 'working', 'no longer waiting for the user');
          await c.tickAsync(999);
          assert.equal(h.snap(snap.taskId).status, 'working', 'a fresh request timeout from the answer');
          await c.tickAsync(1);
          assert.equal(h.snap(snap.taskId).status, 'failed');
          assert.equal(h.snap(snap.taskId).note, 'Request tools/call timed out after 1000 ms without an answer');
        } finally {
          host?.dispose();
        }
      });
    }

    for (const [method, says, again, then] of [
      // A question's message on one line, cut at 200 characters, as a hosted question's summary is.
      ['elicitation/create', 'The server asks: Fill in the form', { ...form, message: `Line one\n\n${'x'.repeat(191)} and more` }, `The server asks: Line one ${'x'.repeat(191)}… (9 more chars)`],
      ['sampling/createMessage', 'The server asks to use a language model', { messages: [], maxTokens: 10 }, 'The server asks to use a language model'],
    ] as const) {
      for (const hosted of [false, true]) {
        it(`its row says what the server asks while the call waits on it${hosted ? ' (run as a task here)' : ''}: ${method === 'elicitation/create' ? 'the question' : 'to use a language model (its consent prompt is open)'}; not once answered, nor once the call is cancelled`, async () => {
          const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
          try {
            const { h, c, snap, asked } = await asking(() => new Promise(() => undefined), host, method);
            c.uninstall(); // real time from here: no timeout is at stake
            clock = undefined;
            const row = () => describeTask(h.snap(snap.taskId), Date.parse(snap.createdAt));
            assert.equal(row(), `${says} · now`);
            asked[0].answer(method === 'elicitation/create' ? { action: 'accept', content: {} } : { role: 'assistant', content: { type: 'text', text: 'Done.' }, model: 'm', stopReason: 'endTurn' });
            await waitFor(() => row() === 'Working · now', `the row to read working, not ${row()}`);
            // Asked again, then the call cancelled while it is open: the cancelled call's tooltip does not say it still asks.
            void h.server.connection.requestRaw(method, host ? { ...again, task: {} } : again, { timeoutMs: Infinity }).catch(() => undefined);
            await waitFor(() => asked.length === 2 && h.snap(snap.taskId).note !== undefined, 'the second request to reach the client');
            assert.equal(row(), `${then} · now`);
            await h.engine.cancel(snap.key);
            await waitStatus(h, snap.taskId, 'cancelled');
            await settle(h);
            assert.deepEqual([h.snap(snap.taskId).note, row()], [undefined, 'Cancelled by the user · now']);
          } finally {
            host?.dispose();
          }
        });
      }
    }

    for (const hosted of [false, true]) {
      it(`works while a language model answers its sampling request${hosted ? ' (run as a task here)' : ''}, no consent asked (its server always allowed): never input_required, its row saying a model answers; its clock held until the answer`, async () => {
        const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
        try {
          const { h, c, snap, asked } = await asking(async (answer) => (await answer, new Promise(() => undefined)), host, 'sampling/createMessage', 'model');
          const seen = new Set([h.snap(snap.taskId).status]);
          const sub = h.engine.onDidChange((t) => t.key === snap.key && seen.add(t.status));
          await c.tickAsync(30_000); // a slow model: the call's 1000 ms timeout is held meanwhile
          const row = () => describeTask(h.snap(snap.taskId), Date.now()).split(' · ')[0];
          assert.equal(row(), 'A language model is answering');
          asked[0].answer({ role: 'assistant', content: { type: 'text', text: 'Done.' }, model: 'm', stopReason: 'endTurn' });
          await c.tickAsync(0);
          assert.equal(row(), 'Working', 'the note goes with the answer');
          sub.dispose();
          assert.deepEqual([...seen], ['working'], 'not waiting for the user at any moment');
          await c.tickAsync(1000);
          assert.equal(h.snap(snap.taskId).status, 'failed', 'its clock started over at the answer');
        } finally {
          host?.dispose();
        }
      });
    }

    for (const hosted of [false, true]) {
      it(`a sampling request${hosted ? ' run as a task here' : ''} changes its call's row only as a model starts and stops answering: holding the connection quietly (while its handler runs${hosted ? ', and while its task does' : ''}) touches no row`, async () => {
        const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
        const answers: Array<(r: Record<string, unknown>) => void> = [];
        // As the sampling handler does for a server always allowed: no consent prompt, a model answers.
        const handle: ServerRequestHandler = (_p, ctx) => {
          const release = ctx.hold?.('model');
          return new Promise<Record<string, unknown>>((answer) => answers.push(answer)).finally(release);
        };
        let go!: () => void;
        const gate = new Promise<void>((r) => (go = r));
        let answered = false;
        const params = { messages: [{ role: 'user', content: { type: 'text', text: 'Summarize' } }], maxTokens: 10, ...(host && { task: {} }) };
        const h: Harness = await harness({
          server: { plainCall: async () => (await gate, await h.server.connection.requestRaw('sampling/createMessage', params, { timeoutMs: Infinity }), (answered = true), new Promise(() => undefined)) },
          engine: { handlers: { sampling: { handle: host ? host.wrap('sampling/createMessage', handle) : handle } } },
        });
        try {
          host?.attachSession('fake', h.session);
          host?.followRelatedTasks(h.engine);
          const snap = await h.engine.callTool('fake', 'forbidden-tool');
          const notes: Array<string | undefined> = [];
          const sub = h.engine.onDidChange((t) => t.key === snap.key && notes.push(t.note));
          go();
          await waitFor(() => answers.length === 1, 'the sampling request to reach its handler');
          answers[0]({ role: 'assistant', content: { type: 'text', text: 'Done.' }, model: 'm', stopReason: 'endTurn' });
          // Answered: run as a task, once its task completes (after its hold is released); else once the server has the answer.
          await waitFor(() => (host ? host.list()[0]?.status === 'completed' : answered), 'the answer');
          await settle(h);
          sub.dispose();
          assert.deepEqual(notes, ['A language model is answering', undefined], 'one change as the model starts, one as it stops');
          assert.equal(h.snap(snap.taskId).status, 'working');
        } finally {
          host?.dispose();
        }
      });
    }

    for (const [how, status, then] of [
      ['the server fails the call', 'failed', () => Promise.reject(new RpcError(-32000, 'gave up'))],
      ['the user cancels the call', 'cancelled', () => new Promise(() => undefined)],
    ] as const) {
      it(`is withdrawn when the call ends: ${how}`, async () => {
        const { h, c, snap, asked } = await asking(then);
        c.uninstall(); // real time from here: no timeout is at stake
        clock = undefined;
        if (status === 'cancelled') await h.engine.cancel(snap.key);
        await waitStatus(h, snap.taskId, status);
        const { signal } = asked[0].ctx;
        assert.equal(signal.aborted, true, 'the dialog closes');
        assert.equal((signal.reason as Error).message, `the task ended (${status})`);
      });

      it(`T-LIFE-2, T-LIFE-4: run as a task here, it is cancelled, saying why, when the call ends: ${how}`, async () => {
        const host = new TaskHost({ logger: nullLogger });
        try {
          const { h, c, snap, asked } = await asking(then, host);
          c.uninstall(); // real time from here: no timeout is at stake
          clock = undefined;
          if (status === 'cancelled') await h.engine.cancel(snap.key);
          await waitStatus(h, snap.taskId, status);
          assert.equal(asked[0].ctx.signal.aborted, true, 'the dialog closes');
          const withdrawn = [{ status: 'cancelled', statusMessage: `The call it belongs to ended (${status})` }];
          assert.deepEqual(host.list().map(({ status, statusMessage }) => ({ status, statusMessage })), withdrawn);
          // An answer that comes anyway changes nothing: cancelled stays cancelled.
          asked[0].answer({ action: 'accept', content: {} });
          await settle(h);
          assert.deepEqual(host.list().map(({ status, statusMessage }) => ({ status, statusMessage })), withdrawn);
        } finally {
          host.dispose();
        }
      });
    }

    it('run as a task here, and cancelled by the user (Cancel Task on its row): its dialog closes and the call works on, no longer waiting for input', async () => {
      const host = new TaskHost({ logger: nullLogger });
      try {
        const { h, c, snap, asked } = await asking(() => new Promise(() => undefined), host);
        c.uninstall(); // real time from here: no timeout is at stake
        clock = undefined;
        assert.equal(h.snap(snap.taskId).status, 'input_required');
        host.cancel('fake', asked[0].ctx.hostedTaskId!);
        assert.equal(asked[0].ctx.signal.aborted, true, 'the dialog closes');
        await waitStatus(h, snap.taskId, 'working');
        await settle(h);
        assert.equal(h.snap(snap.taskId).status, 'working', 'not left waiting for a dialog that is gone');
      } finally {
        host.dispose();
      }
    });

    it('run as a task here, one whose call completes stays open: its server may still read the answer later, as a task lets it (T-RCV-4)', async () => {
      const host = new TaskHost({ logger: nullLogger });
      try {
        const { h, c, snap, asked } = await asking(() => ({ content: [] }), host);
        c.uninstall();
        clock = undefined;
        await waitStatus(h, snap.taskId, 'completed');
        await settle(h);
        assert.equal(asked[0].ctx.signal.aborted, false, 'the dialog stays');
        assert.deepEqual(host.list().map((q) => q.status), ['working']);
      } finally {
        host.dispose();
      }
    });

    for (const hosted of [false, true]) {
      it(`T-LIFE-2: one${hosted ? ' run as a task here' : ''} whose call the server answers with a task stays open, tied to that task (Respond on its row finds it), no longer stops the connection's request timeouts, and is withdrawn when that task ends`, async () => {
        const asked: Array<{ ctx: ServerRequestContext }> = [];
        const handle: ServerRequestHandler = (_p, ctx) => new Promise(() => asked.push({ ctx }));
        const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
        const h: Harness = await harness({
          server: {
            pollInterval: 10,
            plainCall: async (params) => {
              void h.server.connection.requestRaw('elicitation/create', host ? { ...form, task: {} } : form, { timeoutMs: Infinity }).catch(() => undefined);
              await waitFor(() => asked.length === 1, 'the question to reach the client');
              return { task: h.server.createTask(String(params.name), {}, params) };
            },
          },
          engine: { handlers: { elicitation: { handle: host ? host.wrap('elicitation/create', handle) : handle } } },
        });
        try {
          host?.attachSession('fake', h.session);
          host?.followRelatedTasks(h.engine);
          // The holds on the connection's request clocks (see McpConnection.hold) not released yet.
          let holds = 0;
          const { connection } = h.session;
          const hold = connection.hold.bind(connection);
          connection.hold = (tag) => (holds++, ((release) => () => (holds--, release()))(hold(tag)));
          const call = await h.engine.callTool('fake', 'plain-tool');
          await waitFor(() => h.engine.get(call.key)?.kind === 'task', 'the call to become its task');
          const task = h.engine.get(call.key)!;
          await settle(h);
          const { ctx } = asked[0];
          assert.equal(ctx.signal.aborted, false, 'the server may still read the answer');
          assert.deepEqual(h.engine.keysOf(task.key), [task.key, call.key], 'the question is about the call, which is the task now');
          assert.ok(requestAbout(ctx).includes(call.key), 'its dialog is about the call: Respond on the task finds it');
          assert.equal(holds, 0, 'no call waits on the connection now: its requests time out again');
          await h.engine.cancel(task.key);
          await waitFor(() => ctx.signal.aborted, 'the question to close with the task');
          if (host) assert.deepEqual(host.list().map((q) => [q.status, q.statusMessage]), [['cancelled', 'The task it belongs to ended (cancelled)']]);
          else assert.equal((ctx.signal.reason as Error).message, 'the task ended (cancelled)');
        } finally {
          host?.dispose();
        }
      });
    }

    for (const hosted of [false, true]) {
      it(`${hosted ? 'T-LIFE-2: run as a task here, ' : ''}one that came during two calls is withdrawn once both have ended, not at the first end`, async () => {
        const host = hosted ? new TaskHost({ logger: nullLogger }) : undefined;
        try {
          const { h, c, snap: first, asked } = await asking(() => new Promise(() => undefined), host);
          c.uninstall(); // real time from here: no timeout is at stake
          clock = undefined;
          const second = await h.engine.callTool('fake', 'forbidden-tool');
          await waitFor(() => asked.length === 2, 'the question of the second call');
          await h.engine.cancel(first.key);
          await waitStatus(h, first.taskId, 'cancelled');
          await settle(h);
          assert.deepEqual(asked.map((a) => a.ctx.signal.aborted), [true, false], 'the first came during the first call alone; the second during both');
          assert.equal(h.snap(second.taskId).status, 'input_required');
          await h.engine.cancel(second.key);
          await waitStatus(h, second.taskId, 'cancelled');
          assert.equal(asked[1].ctx.signal.aborted, true);
          if (host) assert.deepEqual(host.list().map((q) => q.status), ['cancelled', 'cancelled']);
        } finally {
          host?.dispose();
        }
      });
    }
  });

  it('a connection that closes while tasks outlive it leaves them live (a reconnect re-attaches them); the polls it fails are told in one line, not one per task, at info level: the server manager warns the close and its reason', async () => {
    const h = await harness({ tasksOutliveConnection: true, server: { pollInterval: NO_POLL } });
    const tasks = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    h.server.override('tasks/get', () => new Promise(() => undefined)); // in flight when the connection closes
    const polls = tasks.map((t) => h.engine.poll(t.key));
    await h.server.waitForRequest('tasks/get', 3);
    await h.server.close();
    await Promise.all(polls);
    assert.deepEqual(
      h.log.lines.filter((l) => l.level === 'warn' || l.level === 'info').filter((l) => l.message.includes('failed')).map((l) => `${l.level}: ${l.message}`),
      ['info: [fake] tasks/get of 3 tasks failed: Connection closed: the other side closed'],
    );
    assert.deepEqual(tasks.map((t) => h.snap(t.taskId).status), ['working', 'working', 'working']);
    // A later poll (on the closed session, here) tells its own failure, naming its task.
    await h.engine.poll(tasks[0].key);
    assert.equal(h.snap(tasks[0].taskId).status, 'working');
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] tasks/get ${tasks[0].taskId} failed: Connection closed`)), h.log.text());
  });

  it('a connection that closes while result fetches (Fetch Task Result, getResult) and polls are in flight tells them in one line for the server, with how many of each, not one per task', async () => {
    const h = await harness({ tasksOutliveConnection: true, server: { pollInterval: NO_POLL } });
    const tasks = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    const fetches = tasks.slice(1).map((t) => h.engine.fetchResult(t.key).then(() => 'fetched', (e: Error) => e.message));
    await h.server.waitForRequest('tasks/result', 2); // they block until the task ends (T-REQ-4)
    h.server.override('tasks/get', () => new Promise(() => undefined));
    const polls = tasks.map((t) => h.engine.poll(t.key));
    await h.server.waitForRequest('tasks/get', 3);
    await h.server.close();
    await Promise.all(polls);
    assert.deepEqual(await Promise.all(fetches), tasks.slice(1).map(() => 'no result came; see the log for why.'));
    assert.deepEqual(
      h.log.lines.filter((l) => l.level === 'warn' || l.level === 'info').filter((l) => l.message.includes('failed')).map((l) => `${l.level}: ${l.message}`),
      ['info: [fake] tasks/get of 3 tasks and tasks/result of 2 tasks failed: Connection closed: the other side closed'],
    );
  });

  it('a connection that closes while only result fetches are in flight: one line, "tasks/result of 2 tasks"', async () => {
    const h = await harness({ tasksOutliveConnection: true, server: { pollInterval: NO_POLL } });
    const tasks = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    const fetches = tasks.map((t) => h.engine.fetchResult(t.key).catch(() => undefined));
    await h.server.waitForRequest('tasks/result', 2);
    await h.server.close();
    await Promise.all(fetches);
    assert.deepEqual(
      h.log.lines.filter((l) => l.level === 'warn' || l.level === 'info').filter((l) => l.message.includes('failed')).map((l) => `${l.level}: ${l.message}`),
      ['info: [fake] tasks/result of 2 tasks failed: Connection closed: the other side closed'],
    );
  });

  it('a task that outlived a closed connection, found unchanged by the next one, is told as a change once (a Disconnect learns the task outlived it, so a later loss is not taken for its doing)', async () => {
    const { engine, connect, close } = reconnectingEngine('none');
    try {
      const a = await connect();
      const snap = await engine.callTool('fake', 'required-tool');
      await a.server.waitForRequest('tasks/get', 2);
      const kept = a.server.task(snap.taskId)!;
      const changes: TaskSnapshot[] = [];
      engine.onDidChange((t) => t.key === snap.key && changes.push(t));
      await a.session.close();
      const b = await connect();
      b.server.createTask('required-tool', kept);
      await b.server.waitForRequest('tasks/get', 3);
      assert.deepEqual(changes.map((t) => t.status), ['working'], 'found alive by the new connection: one change, nothing after it for answers that change nothing');
      b.server.forget(snap.taskId);
      await waitFor(() => engine.get(snap.key)?.status === 'lost', 'the task lost once its server forgets it');
      assert.deepEqual(changes.map((t) => t.status), ['working', 'lost']);
    } finally {
      await close();
    }
  });

  it('T-REQ-3: a reconnect while a task waits for input: the new session gets a tasks/result call', async () => {
    const { engine, connect, close } = reconnectingEngine('once');
    try {
      const a = await connect();
      const snap = await engine.callTool('fake', 'required-tool');
      a.server.setStatus(snap.taskId, 'input_required', 'Which file?');
      await a.server.waitForRequest('tasks/result');
      const kept = a.server.task(snap.taskId)!;
      await a.session.close();
      const b = await connect();
      b.server.createTask('required-tool', kept);
      await b.server.waitForRequest('tasks/result');
      // Polls after it find the task still waiting: no second call.
      await b.server.waitForRequest('tasks/get', b.server.requestsOf('tasks/get').length + 2);
      assert.equal(engine.get(snap.key)?.status, 'input_required');
      assert.deepEqual(b.server.requestsOf('tasks/result').map((r) => r.params), [{ taskId: snap.taskId }]);
    } finally {
      await close();
    }
  });

  it('restore(): live tasks are re-attached by tasks/get; ended ones are not polled; unknown ones are lost', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const live = h.server.createTask('long-tool');
    const asking = h.server.createTask('asking-tool', { status: 'input_required' });
    const saved = (t: Pick<WireTask, 'taskId' | 'createdAt'>, changes: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
      key: taskKey('fake', t.taskId),
      serverId: 'fake',
      taskId: t.taskId,
      kind: 'task',
      toolName: 'tool',
      status: 'working',
      createdAt: t.createdAt,
      lastUpdatedAt: t.createdAt,
      ttl: null,
      origin: 'user',
      ...changes,
    });
    const now = new Date().toISOString();
    const outcome = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'old' }] } };
    const snapshots = [
      saved(live, { toolName: 'long-tool' }),
      saved(asking, { toolName: 'asking-tool' }),
      saved({ taskId: 'gone-task', createdAt: now }),
      saved({ taskId: 'done-task', createdAt: now }, { status: 'completed', outcome }),
      saved({ taskId: 'direct-1', createdAt: now }, { kind: 'direct' }),
    ];
    h.engine.restore(snapshots, new Map([[taskKey('fake', live.taskId), 'tok-live']]));
    assert.equal(h.engine.list().length, 5);
    assert.equal(h.snap('direct-1').status, 'lost', 'a plain call cannot outlive its window');
    assert.equal(h.snap('direct-1').note, 'The window closed before the call returned.');

    await waitFor(() => h.server.requestsOf('tasks/get').some((r) => r.params?.taskId === live.taskId), 'the live task re-attached');
    const r = await h.server.waitForRequest('tasks/result');
    assert.deepEqual(r.params, { taskId: asking.taskId }, 'input_required seen on re-attach: tasks/result at once');
    await waitStatus(h, 'gone-task', 'lost');
    assert.equal(h.snap(asking.taskId).status, 'input_required');
    assert.equal(h.server.requestsOf('tasks/get').some((q) => q.params?.taskId === 'done-task'), false);
    assert.deepEqual(h.snap('done-task').outcome, outcome);
    assert.equal(h.engine.progressToken(taskKey('fake', live.taskId)), 'tok-live');

    h.server.complete(live.taskId);
    await waitStatus(h, live.taskId, 'completed');
    await waitFor(() => h.snap(live.taskId).outcome !== undefined, 'the outcome of the re-attached task');
  });

  it('results beyond outcomeMemoryChars leave memory once stored, the oldest first: read back from their files when asked, not from the server; in a session of many large results the extension host kept every one (23 results of 5 MB: heap 59 MB to 269 MB)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-memory-'));
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    try {
      // Room for two results of 1,000 characters, not three.
      const h = await harness({ server: { pollInterval: 10 }, engine: { loadOutcome: (key) => store.readOutcome(key), outcomeMemoryChars: 2_500 } });
      store.attach(h.engine);
      const text = (c: string) => ({ content: [{ type: 'text' as const, text: c.repeat(1_000) }] });
      const tasks = [];
      for (const c of ['a', 'b', 'c']) {
        const t = await h.engine.callTool('fake', 'required-tool');
        h.server.complete(t.taskId, text(c));
        await waitFor(() => h.snap(t.taskId).outcomeFetchedAt !== undefined, `the result ${c}`);
        tasks.push(t);
      }
      const [a, b, c] = tasks.map((t) => h.snap(t.taskId));
      assert.equal(a.outcome, undefined, 'the oldest result is no longer held');
      const content = (o: TaskSnapshot['outcome']) => (o?.kind === 'result' ? o.result.content : o);
      assert.deepEqual([content(b.outcome), content(c.outcome)], [text('b').content, text('c').content], 'the two newest are');
      assert.ok(a.outcomeFetchedAt, 'its row still offers its result');
      const asked = h.server.requestsOf('tasks/result').length;
      assert.deepEqual(content(await h.engine.fetchResult(a.key)), text('a').content, 'read back from its file');
      assert.equal(h.server.requestsOf('tasks/result').length, asked, 'its server was not asked again');
      assert.equal(h.snap(tasks[1].taskId).outcome, undefined, 'read back, it is the newest held: the oldest other goes');
    } finally {
      store.dispose();
      await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('remove() remembers until when its server keeps the task (its ttl, and an hour for the server\'s clock), for a task with a ttl; none without', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const createdAt = '2026-01-01T00:00:00.000Z';
    h.engine.restore([
      { key: taskKey('fake', 'kept'), serverId: 'fake', taskId: 'kept', kind: 'task', toolName: 't', status: 'completed', createdAt, lastUpdatedAt: createdAt, ttl: 60_000, origin: 'user' },
      { key: taskKey('fake', 'forever'), serverId: 'fake', taskId: 'forever', kind: 'task', toolName: 't', status: 'completed', createdAt, lastUpdatedAt: createdAt, ttl: null, origin: 'user' },
    ]);
    h.engine.clearFinished();
    assert.deepEqual(h.engine.removedTasks().map((r) => r.until), [Date.parse(createdAt) + 60_000 + 3600_000, undefined]);
  });

  it('T-REQ-6: a task the user removed stays removed when its server lists it again with a createdAt that is no date (read as the time it was listed, which a later list changes)', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const task = h.server.createTask('seeded', { status: 'completed', createdAt: 'yesterday' });
    assert.equal(await h.engine.refreshList('fake'), 1);
    h.engine.remove(h.snap(task.taskId).key);
    h.advanceEngineClock(1000);
    assert.equal(await h.engine.refreshList('fake'), 0, 'Refresh does not bring it back');
  });

  it('T-REQ-6: Refresh does not bring in an ended task past its ttl and an hour (what a removal\'s memory covers); a live one, one without a ttl and a newer one still join', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const old = new Date(Date.now() - 3 * 3600_000).toISOString();
    const seed = (status: 'completed' | 'working', createdAt: string, ttl: number | null) => h.server.createTask('seeded', { status, createdAt, lastUpdatedAt: createdAt, ttl }).taskId;
    const stale = seed('completed', old, 60_000);
    const joined = [seed('working', old, 60_000), seed('completed', old, null), seed('completed', new Date().toISOString(), 60_000)];
    assert.equal(await h.engine.refreshList('fake'), 3);
    assert.deepEqual(h.engine.list().map((s) => s.taskId).sort(), joined.sort(), `not ${stale}`);
  });

  it('fetchResult() when the kept result cannot be read back: a task asks its server again; a direct call says its result file is missing or damaged', async () => {
    const h = await harness({ server: { pollInterval: 10 }, engine: { loadOutcome: async () => undefined } });
    const task = h.server.createTask('tool');
    h.server.complete(task.taskId, { content: [{ type: 'text', text: 'from the server again' }] });
    const at = new Date().toISOString();
    const kept = { serverId: 'fake', toolName: 'tool', status: 'completed' as const, createdAt: at, lastUpdatedAt: at, outcomeFetchedAt: at, ttl: null, origin: 'user' as const };
    h.engine.restore([
      { ...kept, key: taskKey('fake', task.taskId), taskId: task.taskId, kind: 'task' },
      { ...kept, key: taskKey('fake', 'direct-1'), taskId: 'direct-1', kind: 'direct' },
    ]);
    const again = await h.engine.fetchResult(taskKey('fake', task.taskId));
    assert.deepEqual(again.kind === 'result' && again.result.content, [{ type: 'text', text: 'from the server again' }]);
    await assert.rejects(h.engine.fetchResult(taskKey('fake', 'direct-1')), /^Error: The result of this call was kept, but its file is missing or damaged \(see the log\), and a direct call cannot be asked for it again\.$/);
  });

  /** A live task as the previous window saved it. */
  const restored = (taskId: string, status: TaskSnapshot['status'] = 'working'): TaskSnapshot => ({
    key: taskKey('fake', taskId),
    serverId: 'fake',
    taskId,
    kind: 'task',
    toolName: 'old-tool',
    status,
    statusMessage: 'Step 2 of 3',
    createdAt: '2025-01-01T00:00:00.000Z',
    lastUpdatedAt: '2025-01-01T00:00:00.000Z',
    ttl: null,
    origin: 'user',
  });

  it('restore(): live tasks of a server whose tasks die with its process (stdio) are lost at once, never polled on the new process', async () => {
    const h = await harness({ tasksOutliveConnection: false, server: { pollInterval: 10 } });
    // The new process numbers its tasks anew: it already runs an unrelated task with the same id.
    const other = h.server.createTask('other-tool', { status: 'input_required' });
    h.engine.restore([restored(other.taskId, 'input_required')]);
    const s = h.snap(other.taskId);
    assert.equal(s.status, 'lost');
    assert.equal(s.lastServerStatus, 'input_required');
    assert.equal(s.statusMessage, 'Step 2 of 3');
    assert.equal(s.note, "The window closed, and with it the server's process that ran it; a new process does not know its tasks.");
    // A task of the new process is polled meanwhile; the lost one is not.
    const fresh = await h.engine.callTool('fake', 'required-tool');
    await h.server.waitForRequest('tasks/get', 2);
    await settle(h);
    const named = h.server.received.filter((r) => r.method.startsWith('tasks/')).map((r) => r.params?.taskId);
    assert.deepEqual(new Set(named), new Set([fresh.taskId]), `asked about ${named.join(', ')}`);
  });

  it('restore(): a task of a server not known yet is lost once it turns out to be stdio, at its next poll or when a new process is attached, before anything is sent', async () => {
    const log = new MemoryLogger();
    let outlive: boolean | undefined;
    let asked = 0;
    const engine = new TaskEngine({
      logger: log,
      minPollMs: 1,
      sessions: {
        getSession: async () => {
          asked++;
          throw new Error('No server with id fake is configured');
        },
        label: () => 'fake',
        tasksOutliveConnection: () => outlive,
      },
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new FakeTaskServer(serverSide);
    const session = new McpSession(clientSide, { logger: log, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' } });
    try {
      const [a, b] = [restored('task-a'), restored('task-b')];
      engine.restore([a, b]);
      await waitFor(() => asked >= 2, 'both polled while the server is unknown');
      assert.equal(engine.get(a.key)?.status, 'working', 'kept while unknown: it may be a remote server');
      outlive = false; // the configuration has loaded: a stdio server
      await engine.poll(a.key);
      assert.equal(engine.get(a.key)?.status, 'lost');
      assert.equal(engine.get(a.key)?.note, "The window closed, and with it the server's process that ran it; a new process does not know its tasks.");
      assert.equal(asked, 2, 'no process started to learn it');
      await server.start();
      engine.attachSession('fake', session); // someone else started a new process first
      assert.equal(engine.get(b.key)?.status, 'lost');
      assert.equal(engine.get(b.key)?.note, engine.get(a.key)?.note, 'lost with the window too');
      await session.connect();
      await session.ping();
      assert.deepEqual(server.received.filter((r) => r.method.startsWith('tasks/')), []);
    } finally {
      engine.dispose();
      await session.close();
      await server.close();
    }
  });

  it('restore(): progress on a restored token reaches the task', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const live = h.server.createTask('long-tool');
    h.engine.restore(
      [
        {
          key: taskKey('fake', live.taskId),
          serverId: 'fake',
          taskId: live.taskId,
          kind: 'task',
          toolName: 'long-tool',
          status: 'working',
          createdAt: live.createdAt,
          lastUpdatedAt: live.createdAt,
          ttl: null,
          origin: 'user',
        },
      ],
      new Map([[taskKey('fake', live.taskId), 'tok-live']]),
    );
    await h.server.waitForRequest('tasks/get');
    await h.server.sendProgress('tok-live', 7, 10);
    await settle(h);
    assert.deepEqual(h.snap(live.taskId).progress, { progress: 7, total: 10, message: undefined });
  });

  it('restore(): progress saved by the window that followed the task is dropped when the server turns out to have moved on (its notifications since went unheard), kept otherwise', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const moved = h.server.createTask('build', { statusMessage: 'Testing…' });
    const same = h.server.createTask('build', { statusMessage: 'Compiling…' });
    const saved = (t: WireTask): TaskSnapshot => ({
      ...restored(t.taskId),
      statusMessage: 'Compiling…',
      createdAt: t.createdAt,
      lastUpdatedAt: t.createdAt,
      progress: { progress: 2, total: 6, message: 'Compiling' },
    });
    h.engine.restore([saved(moved), saved(same)], new Map([[taskKey('fake', moved.taskId), 'tok-moved']]));
    await Promise.all([moved, same].map((t) => h.engine.poll(taskKey('fake', t.taskId))));
    assert.equal(h.snap(moved.taskId).statusMessage, 'Testing…');
    assert.equal(h.snap(moved.taskId).progress, undefined, 'a stage old: not shown');
    assert.deepEqual(h.snap(same.taskId).progress, { progress: 2, total: 6, message: 'Compiling' }, 'still the latest known');
    // Followed since: a later stage's message does not drop the progress heard with it.
    await h.server.sendProgress('tok-moved', 5, 6);
    await settle(h);
    h.server.setStatus(moved.taskId, 'working', 'Packaging…');
    await h.engine.poll(taskKey('fake', moved.taskId));
    await waitFor(() => h.snap(moved.taskId).statusMessage === 'Packaging…', 'the next stage');
    assert.deepEqual(h.snap(moved.taskId).progress, { progress: 5, total: 6, message: undefined });
  });
});

/**
 * An engine following one remote server (Streamable HTTP, say) that keeps its tasks across
 * connections: each `connect()` opens a new one, to a FakeTaskServer of its own, and makes it
 * the server's session; `close()` ends the engine and every connection.
 */
function reconnectingEngine(notify: 'none' | 'once') {
  const log = new MemoryLogger();
  let current: Promise<McpSession> | undefined;
  const engine = new TaskEngine({ logger: log, minPollMs: 1, sessions: { getSession: () => current!, label: () => 'fake', tasksOutliveConnection: () => true } });
  const open: Array<{ server: FakeTaskServer; session: McpSession }> = [];
  const connect = async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new FakeTaskServer(serverSide, { notify, pollInterval: 20 });
    await server.start();
    const session = new McpSession(clientSide, { logger: log, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' }, capabilities: engine.clientCapabilities() });
    engine.attachSession('fake', session);
    open.push({ server, session });
    current = session.connect().then(() => session);
    await current;
    return { server, session };
  };
  const close = async () => {
    engine.dispose();
    for (const c of open) {
      await c.session.close();
      await c.server.close();
    }
  };
  return { engine, connect, close };
}
