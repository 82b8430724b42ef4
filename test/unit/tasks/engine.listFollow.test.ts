// Following many tasks through tasks/list pages instead of one tasks/get each (issue 7), against
// the scripted fake server, under fake timers so request counts are exact: only setTimeout,
// clearTimeout and Date are faked; the in-memory transport delivers on microtasks for real.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import type { Harness, HarnessOptions, WireTask } from '../helpers/fakeTaskServer';
import { createHarness } from '../helpers/fakeTaskServer';
import { MAX_TIMER_DELAY_MS, recordTimerDelays } from '../helpers/timers';

type Clock = ReturnType<typeof FakeTimers.install>;

describe('TaskEngine: following tasks through tasks/list', () => {
  let clock: Clock | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    clock?.uninstall();
    clock = undefined;
  });

  /** A harness on a fake clock; polls every 1,000 ms exactly (no jitter). */
  async function start(options: HarnessOptions = {}): Promise<Harness> {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    h = await createHarness({ ...options, server: { pollInterval: 1_000, ...options.server }, engine: { random: () => 0, ...options.engine } });
    return h;
  }

  async function create(n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await h!.engine.callTool('fake', 'required-tool')).taskId);
    return ids;
  }

  /** Requests of `method` sent while `ms` of fake time pass (of one task, if given). */
  async function sentDuring(ms: number, ...methods: string[]): Promise<number[]> {
    const before = methods.map((m) => h!.server.requestsOf(m).length);
    await clock!.tickAsync(ms);
    return methods.map((m, i) => h!.server.requestsOf(m).length - before[i]);
  }

  const getsOf = (taskId: string): number => h!.server.requestsOf('tasks/get').filter((r) => r.params?.taskId === taskId).length;

  it('T-REQ-2, T-REQ-6: 30 tasks, 10 to a page: one 3-page list cycle per second replaces 30 tasks/get', async () => {
    await start({ server: { listPageSize: 10 } });
    await create(30);
    await clock!.tickAsync(1_500); // the probe cycle runs as soon as two tasks are live, and wins
    assert.equal(h!.engine.followsByList('fake'), true);
    assert.equal(h!.engine.followedCount, 30);
    const [gets, lists] = await sentDuring(10_000, 'tasks/get', 'tasks/list');
    assert.equal(gets, 0, 'no task is polled by id');
    assert.ok(lists >= 27 && lists <= 33, `${lists} list pages in 10 s (3 per cycle, one cycle a second)`);
    assert.ok(h!.log.has('info', /^\[fake\] Following \d+ tasks through tasks\/list \(3 pages per 1000 ms\)$/), h!.log.text());
  });

  it('logs the switch in words that count right: "1 page", "1 task"', async () => {
    await start({ server: { listPageSize: 10 } });
    const [a] = await create(2);
    await clock!.tickAsync(1_500);
    assert.ok(h!.log.has('info', /^\[fake\] Following 2 tasks through tasks\/list \(1 page per 1000 ms\)$/), h!.log.text());
    // One task left: a page a cycle saves nothing over one tasks/get.
    h!.server.complete(a);
    await clock!.tickAsync(3_000);
    assert.equal(h!.engine.followsByList('fake'), false);
    assert.ok(h!.log.has('info', /^\[fake\] Following 1 task by tasks\/get, one per task$/), h!.log.text());
  });

  it('T-RCV-7: tasks followed by list whose ttl ends before the next cycle are each checked once just before it, and their results fetched in time', async () => {
    // Cycles every 60 s (the tasks' pollInterval); the ttl is 30 s.
    await start({ server: { listPageSize: 10, pollInterval: 60_000, ttl: 30_000 } });
    const ids = await create(30);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true);
    for (const id of ids) h!.server.complete(id); // no notification: only a check tells
    await clock!.tickAsync(26_000); // 27.5 s: after the last checks at 27 s (3 s, a tenth of the ttl, before it ends)
    for (const id of ids) assert.equal(getsOf(id), 1, `one last tasks/get for ${id}`);
    await clock!.tickAsync(10);
    assert.equal(h!.server.requestsOf('tasks/result').length, 30, 'every result fetched before the ttl ended');
    assert.ok(ids.every((id) => h!.snap(id).status === 'completed'));
  });

  it('T-RCV-7: tasks with a 30-day ttl followed by list: their last checks arm no timer beyond 2^31-1 ms, so the engine does not wake every millisecond', async () => {
    await start({ server: { listPageSize: 10, ttl: 30 * 24 * 3600_000 } });
    await create(3);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true);
    const timers = recordTimerDelays();
    try {
      const [lists] = await sentDuring(10_000, 'tasks/list');
      assert.ok(lists >= 9 && lists <= 11, `${lists} list pages in 10 s`);
      assert.deepEqual(timers.delays.filter((d) => d > MAX_TIMER_DELAY_MS), [], 'no delay Node would fire after 1 ms');
      // A cycle a second arms a few timers; a clamped one would arm one a millisecond.
      assert.ok(timers.delays.length < 200, `${timers.delays.length} timers armed in 10 s`);
    } finally {
      timers.restore();
    }
  });

  it('T-CAP-1: a server that does not declare tasks/list: every task is polled by tasks/get', async () => {
    await start({ server: { listPageSize: 10, tasks: { list: false } } });
    await create(30);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), false);
    const [gets, lists] = await sentDuring(10_000, 'tasks/get', 'tasks/list');
    assert.equal(lists, 0);
    assert.ok(gets >= 290 && gets <= 310, `${gets} tasks/get in 10 s`);
  });

  it('lists only while a cycle needs fewer requests than per-task polls: a probe costs at most a round of polls', async () => {
    // 40 old tasks the server still lists, 2 to a page: listing costs more than 3 tasks/get.
    await start({ server: { listPageSize: 2 } });
    for (let i = 0; i < 40; i++) h!.server.createTask('old', { status: 'completed' });
    const few = await create(3);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), false);
    assert.equal(h!.server.requestsOf('tasks/list').length, 3, 'the probe stopped after as many pages as there are tasks');
    const [gets, lists] = await sentDuring(10_000, 'tasks/get', 'tasks/list');
    assert.equal(lists, 0, 'no probe again until the live tasks double');
    assert.ok(gets >= 29 && gets <= 31, `${gets} tasks/get`);
    // 50 live tasks: the whole list is 45 pages, fewer than 50 polls.
    await create(47);
    await clock!.tickAsync(3_000);
    assert.equal(h!.engine.followsByList('fake'), true);
    const [gets2, lists2] = await sentDuring(5_000, 'tasks/get', 'tasks/list');
    assert.equal(gets2, 0);
    assert.ok(lists2 >= 4 * 45 && lists2 <= 6 * 45, `${lists2} pages`);
    for (const id of few) assert.equal(h!.snap(id).status, 'working');
  });

  it('a task missing from the list (scoped or lagging) is still followed by tasks/get; status changes are seen either way', async () => {
    await start({ server: { listPageSize: 50 } });
    const [hidden, a, b, c] = await create(4);
    h!.server.override('tasks/list', (_p, _ctx, builtin) => {
      const page = builtin() as { tasks: WireTask[] };
      return { ...page, tasks: page.tasks.filter((t) => t.taskId !== hidden) };
    });
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true);
    const before = [hidden, a, b].map(getsOf);
    const [lists] = await sentDuring(10_000, 'tasks/list');
    assert.ok(lists >= 9 && lists <= 11, `${lists} cycles`);
    const after = [hidden, a, b].map(getsOf);
    assert.ok(after[0] - before[0] >= 9, `the hidden task was polled ${after[0] - before[0]} times`);
    assert.deepEqual(after.slice(1), before.slice(1), 'the listed ones were not');
    // Changes arrive through the list (a, b, c) and through tasks/get (hidden).
    h!.server.setStatus(a, 'input_required');
    h!.server.complete(b);
    h!.server.fail(c, { code: -32603, message: 'boom' });
    h!.server.complete(hidden);
    await clock!.tickAsync(1_100);
    assert.equal(h!.snap(a).status, 'input_required');
    assert.ok(h!.server.requestsOf('tasks/result').some((r) => r.params?.taskId === a), 'T-REQ-3: tasks/result at once on input_required');
    assert.equal(h!.snap(b).status, 'completed');
    assert.equal(h!.snap(c).status, 'failed');
    assert.equal(h!.snap(hidden).status, 'completed');
    assert.equal(h!.snap(b).outcome?.kind, 'result', 'the outcome of a task seen completed in the list is fetched');
    assert.equal(h!.snap(c).outcome?.kind, 'error');
  });

  it('T-REQ-5: status notifications still apply at once while the list follows', async () => {
    await start({ server: { listPageSize: 50, notify: 'once' } });
    const [x] = await create(5);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true);
    await clock!.tickAsync(500); // halfway between two cycles
    const lists = h!.server.requestsOf('tasks/list').length;
    h!.server.complete(x);
    await clock!.tickAsync(0);
    assert.equal(h!.snap(x).status, 'completed');
    assert.equal(h!.server.requestsOf('tasks/list').length, lists, 'seen before the next cycle');
  });

  it('T-REQ-6: each cycle passes the opaque cursors back verbatim and starts again without one', async () => {
    await start({ server: { listPageSize: 10 } });
    await create(25);
    await clock!.tickAsync(5_500);
    const lists = h!.server.requestsOf('tasks/list');
    const starts = lists.filter((r) => r.params?.cursor === undefined).length;
    assert.ok(starts >= 5, `${starts} cycles`);
    assert.equal(lists.length, starts * 3);
    // Each page after the first sends the cursor the page before it was given, as it was given.
    assert.deepEqual(
      lists.filter((r) => r.params?.cursor !== undefined).map((r) => r.params!.cursor),
      h!.server.issuedCursors,
    );
    for (const r of lists) assert.deepEqual(Object.keys(r.params ?? {}), r.params?.cursor === undefined ? [] : ['cursor']);
  });

  it('a repeated cursor stops a cycle (logged); the tasks it did not reach are polled by tasks/get', async () => {
    await start({ server: { listPageSize: 10, listMode: 'repeat-cursor' } });
    const ids = await create(30);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true, '2 pages for 10 tasks still beat 10 polls');
    const before = ids.map(getsOf);
    const [lists, gets] = await sentDuring(10_000, 'tasks/list', 'tasks/get');
    assert.ok(lists >= 18 && lists <= 22, `${lists} pages: 2 per cycle`);
    assert.ok(gets >= 180 && gets <= 220, `${gets} tasks/get: the 20 tasks past the first page`);
    const polled = ids.filter((id, i) => getsOf(id) > before[i]);
    assert.equal(polled.length, 20);
    assert.ok(h!.log.has('error', /^\[fake\] tasks\/list: the server repeated the cursor "the-same-cursor"; stopped paging$/), h!.log.text());
  });

  it('maxListPages cuts an endless list off (logged); its tasks go back to tasks/get and it is not listed every second', async () => {
    await start({ server: { listMode: 'endless' }, engine: { maxListPages: 5 } });
    await create(30);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), false);
    assert.equal(h!.server.requestsOf('tasks/list').length, 5);
    const [lists, gets] = await sentDuring(10_000, 'tasks/list', 'tasks/get');
    assert.equal(lists, 0);
    assert.ok(gets >= 290 && gets <= 310, `${gets} tasks/get`);
    assert.ok(h!.log.has('error', /^\[fake\] tasks\/list: stopped after 5 pages, the limit; later ones are left out$/), h!.log.text());
  });

  it('a failing list falls back to tasks/get for what it missed, and gives up listing after three failures in a row', async () => {
    await start({ server: { listPageSize: 50 } });
    const ids = await create(10);
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), true);
    h!.server.override('tasks/list', () => {
      throw new Error('list is down');
    });
    const before = ids.map(getsOf);
    await clock!.tickAsync(1_000);
    assert.ok(ids.every((id, i) => getsOf(id) > before[i]), 'every task polled by id after the failed cycle');
    await clock!.tickAsync(5_000);
    assert.equal(h!.engine.followsByList('fake'), false);
    const [lists, gets] = await sentDuring(5_000, 'tasks/list', 'tasks/get');
    assert.equal(lists, 0);
    assert.ok(gets >= 45, `${gets} tasks/get`);
    assert.ok(h!.log.has('warn', /^\[fake\] tasks\/list \(following 10 tasks\) failed: .*list is down/), h!.log.text());
  });

  it('a list that failed (or cost more) is tried again five minutes later, though the live count did not double', async () => {
    await start({ server: { listPageSize: 50 } });
    await create(10);
    h!.server.override('tasks/list', () => {
      throw new Error('list is down');
    });
    await clock!.tickAsync(1_500);
    assert.equal(h!.engine.followsByList('fake'), false, 'the probe failed');
    const [lists] = await sentDuring(290_000, 'tasks/list');
    assert.equal(lists, 0, 'no retry within five minutes');
    h!.server.override('tasks/list', undefined);
    await clock!.tickAsync(15_000);
    assert.equal(h!.engine.followsByList('fake'), true, 'listing again once it works');
    const [gets] = await sentDuring(5_000, 'tasks/get');
    assert.equal(gets, 0);
  });
});
