// The poll scheduler and the engine's polling pace, under fake timers. Only setTimeout,
// clearTimeout and Date are faked: the in-memory transport delivers on queueMicrotask, which must
// keep running for real so the fake server answers between two timers.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { PollScheduler } from '../../../src/core/tasks/scheduler';
import type { Harness, HarnessOptions } from '../helpers/fakeTaskServer';
import { createHarness } from '../helpers/fakeTaskServer';
import { MAX_TIMER_DELAY_MS, recordTimerDelays } from '../helpers/timers';

type Clock = ReturnType<typeof FakeTimers.install>;
const T0 = Date.UTC(2025, 10, 25, 10, 0, 0);

function install(): Clock {
  return FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: T0 });
}

/** A small deterministic PRNG (mulberry32), so the 10,000-key test is the same every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('PollScheduler', () => {
  let clock: Clock;
  let scheduler: PollScheduler | undefined;
  beforeEach(() => (clock = install()));
  afterEach(() => {
    scheduler?.dispose();
    scheduler = undefined;
    clock.uninstall();
  });

  function make(): { fired: Array<[string, number]>; s: PollScheduler } {
    const fired: Array<[string, number]> = [];
    const s = (scheduler = new PollScheduler((key) => fired.push([key, Date.now() - T0])));
    return { fired, s };
  }

  it('fires keys in due order from a single timer', () => {
    const { fired, s } = make();
    s.schedule('a', T0 + 300);
    s.schedule('b', T0 + 100);
    s.schedule('c', T0 + 200);
    s.schedule('d', T0 + 200);
    assert.equal(clock.countTimers(), 1);
    assert.equal(s.size, 4);
    clock.tick(99);
    assert.deepEqual(fired, []);
    clock.tick(1000);
    // Keys due at the same time fire together, in no promised order.
    assert.deepEqual(fired[0], ['b', 100]);
    assert.deepEqual(fired.slice(1, 3).sort(), [
      ['c', 200],
      ['d', 200],
    ]);
    assert.deepEqual(fired[3], ['a', 300]);
    assert.equal(s.size, 0);
    assert.equal(clock.countTimers(), 0, 'no timer left once nothing is due');
  });

  it('a key due in the past fires on the next turn', () => {
    const { fired, s } = make();
    s.schedule('late', T0 - 5_000);
    clock.tick(0);
    assert.deepEqual(fired, [['late', 0]]);
  });

  it('reschedules a key later or earlier; it fires once, at its last due time', () => {
    const { fired, s } = make();
    s.schedule('a', T0 + 100);
    s.schedule('a', T0 + 500);
    s.schedule('b', T0 + 400);
    s.schedule('b', T0 + 50);
    assert.equal(s.size, 2);
    assert.equal(clock.countTimers(), 1);
    clock.tick(1_000);
    assert.deepEqual(fired, [
      ['b', 50],
      ['a', 500],
    ]);
  });

  it('cancel stops a key; cancelling the last one clears the timer', () => {
    const { fired, s } = make();
    s.schedule('a', T0 + 100);
    s.schedule('b', T0 + 200);
    s.cancel('a');
    assert.equal(s.has('a'), false);
    assert.equal(s.has('b'), true);
    clock.tick(150);
    assert.deepEqual(fired, []);
    s.cancel('b');
    assert.equal(clock.countTimers(), 0);
    clock.tick(1_000);
    assert.deepEqual(fired, []);
  });

  it('a key rescheduled from its own callback keeps its pace (as the engine does)', () => {
    const fired: number[] = [];
    const s = (scheduler = new PollScheduler(() => {
      fired.push(Date.now() - T0);
      if (fired.length < 5) s.schedule('k', Date.now() + 1_000);
    }));
    s.schedule('k', T0 + 1_000);
    clock.tick(10_000);
    assert.deepEqual(fired, [1_000, 2_000, 3_000, 4_000, 5_000]);
  });

  it('the system clock set back an hour while keys wait (a time sync, a time zone fixed by hand) does not hold them back an hour: each fires when it was due, and later schedules keep their pace', () => {
    const { fired, s } = make();
    const HOUR = 3600_000;
    s.schedule('a', T0 + 5_000);
    s.schedule('b', T0 + 8_000);
    clock.tick(1_000);
    clock.setSystemTime(T0 + 1_000 - HOUR);
    clock.tick(4_000);
    assert.deepEqual(fired.map(([k]) => k), ['a'], 'a fires 5 s after it was scheduled, as planned');
    clock.tick(3_000);
    assert.deepEqual(fired.map(([k]) => k), ['a', 'b']);
    s.schedule('c', Date.now() + 1_000);
    clock.tick(1_000);
    assert.deepEqual(fired.map(([k]) => k), ['a', 'b', 'c']);
  });

  it('dispose clears the timer and ignores later schedules', () => {
    const { fired, s } = make();
    s.schedule('a', T0 + 100);
    s.dispose();
    assert.equal(clock.countTimers(), 0);
    s.schedule('b', T0 + 100);
    assert.equal(clock.countTimers(), 0);
    clock.tick(1_000);
    assert.deepEqual(fired, []);
  });

  it('a key due beyond setTimeout\'s longest delay (30 days) arms no longer timer, does not wake every millisecond, and fires at its due time', () => {
    const { fired, s } = make();
    const timers = recordTimerDelays();
    try {
      const month = 30 * 24 * 3600_000;
      s.schedule('k', T0 + month);
      clock.tick(1_000);
      assert.ok(timers.delays.every((d) => d <= MAX_TIMER_DELAY_MS), `delays armed: ${timers.delays.slice(0, 5).join(', ')}`);
      assert.equal(timers.delays.length, 1, 'one timer armed in the first second, not one a millisecond');
      assert.deepEqual(fired, []);
      clock.tick(month);
      assert.deepEqual(fired, [['k', month]]);
      assert.equal(timers.delays.length, 2, 'woken once early (after 2^31-1 ms), then at the due time');
      assert.equal(clock.countTimers(), 0);
    } finally {
      timers.restore();
    }
  });

  it('10,000 keys, many rescheduled: one timer, each fires once, in due order, never early', () => {
    const { fired, s } = make();
    const rand = prng(42);
    const due = new Map<string, number>();
    for (let i = 0; i < 10_000; i++) {
      const at = T0 + 1 + Math.floor(rand() * 60_000);
      s.schedule(`k${i}`, at);
      due.set(`k${i}`, at);
    }
    // Reschedule half of them many times: 50,000 stale heap entries to skip or compact away.
    for (let round = 0; round < 10; round++) {
      for (let i = 0; i < 10_000; i += 2) {
        const at = T0 + 1 + Math.floor(rand() * 60_000);
        s.schedule(`k${i}`, at);
        due.set(`k${i}`, at);
      }
    }
    for (let i = 1; i < 10_000; i += 100) {
      s.cancel(`k${i}`);
      due.delete(`k${i}`);
    }
    assert.equal(clock.countTimers(), 1);
    assert.equal(s.size, due.size);
    // White box: stale entries are compacted away, so the heap stays in proportion to the keys.
    assert.ok(s.heapLength <= 4 * s.size + 64, `heap of ${s.heapLength} entries for ${s.size} keys`);
    clock.tick(61_000);
    assert.equal(fired.length, due.size, 'each key once');
    assert.equal(new Set(fired.map(([k]) => k)).size, due.size);
    for (let i = 1; i < fired.length; i++) assert.ok(fired[i][1] >= fired[i - 1][1], 'due order');
    for (const [k, at] of fired) assert.equal(at, due.get(k)! - T0, `${k} fired at its due time`);
    assert.equal(clock.countTimers(), 0);
  });
});

describe('TaskEngine polling pace (fake timers)', () => {
  let clock: Clock | undefined;
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    clock?.uninstall();
    clock = undefined;
  });

  /** A harness on a fake clock (installed first, so the engine's clock is the fake one). */
  async function start(options: HarnessOptions): Promise<Harness> {
    clock = install();
    h = await createHarness(options);
    return h;
  }

  /** Gaps between the task's creation and each tasks/get, then between consecutive ones. */
  function gaps(harness: Harness, taskId: string): number[] {
    const created = harness.server.requestsOf('tools/call')[0].at;
    const times = [created, ...harness.server.requestsOf('tasks/get').filter((r) => r.params?.taskId === taskId).map((r) => r.at)];
    return times.slice(1).map((t, i) => t - times[i]);
  }

  for (const r of [0, 0.999]) {
    it(`T-REQ-2: honours pollInterval 1000 over 60 s (random() = ${r}): every gap between tasks/get is within [1000, 2000]`, async () => {
      const hh = await start({ server: { pollInterval: 1_000 }, engine: { random: () => r } });
      const snap = await hh.engine.callTool('fake', 'required-tool');
      await clock!.tickAsync(60_000);
      const g = gaps(hh, snap.taskId);
      assert.ok(g.length >= 30, `polled ${g.length} times`);
      for (const gap of g) assert.ok(gap >= 1_000 && gap <= 2_000, `gap ${gap} in ${g.join(',')}`);
      // The engine's jitter is up to 25%: 1000 exactly with random() = 0, 1250 at the top.
      if (r === 0) {
        assert.deepEqual(new Set(g), new Set([1_000]));
        assert.equal(g.length, 60);
      } else {
        for (const gap of g) assert.ok(gap >= 1_249 && gap <= 1_250, `gap ${gap}`);
      }
      hh.server.complete(snap.taskId);
      await clock!.tickAsync(2_000);
      assert.equal(hh.snap(snap.taskId).status, 'completed');
      const polls = hh.server.requestsOf('tasks/get').length;
      await clock!.tickAsync(60_000);
      assert.equal(hh.server.requestsOf('tasks/get').length, polls, 'no poll after the end');
      assert.equal(clock!.countTimers(), 0, 'no timer left behind');
    });
  }

  it('a pollInterval changed mid-task (seen by a poll) changes the pace', async () => {
    const hh = await start({ server: { pollInterval: 1_000 }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    await clock!.tickAsync(10_000);
    hh.server.setPollInterval(3_000);
    await clock!.tickAsync(30_000);
    const g = gaps(hh, snap.taskId);
    // Ten polls at 1 s; the 11th (at 11 s) reads 3000; from then on every 3 s.
    assert.deepEqual(g.slice(0, 11), Array(11).fill(1_000));
    assert.ok(g.length > 15);
    assert.deepEqual(new Set(g.slice(11)), new Set([3_000]));
    assert.equal(hh.snap(snap.taskId).pollInterval, 3_000);
  });

  it('a pollInterval changed by a status notification reschedules the next poll at once', async () => {
    const hh = await start({ server: { pollInterval: 1_000, notify: 'once' }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    await clock!.tickAsync(10_500);
    hh.server.setPollInterval(5_000, snap.taskId);
    hh.server.sendStatus(snap.taskId);
    await clock!.tickAsync(20_000);
    const g = gaps(hh, snap.taskId);
    assert.deepEqual(g.slice(0, 10), Array(10).fill(1_000));
    // Last poll at 10 s; the notification at 10.5 s moved the next one to 15.5 s, not 11 s.
    assert.equal(g[10], 5_500);
    assert.deepEqual(new Set(g.slice(11)), new Set([5_000]));
  });

  it('T-REQ-2: a status notification that changes the status and the pollInterval together reschedules the next poll at the new pace', async () => {
    const hh = await start({ server: { pollInterval: 60_000, notify: 'once' }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    await clock!.tickAsync(500);
    // The server wants input and asks to be polled every second from now on.
    hh.server.setPollInterval(1_000, snap.taskId);
    hh.server.setStatus(snap.taskId, 'input_required');
    await clock!.tickAsync(3_000);
    assert.equal(hh.snap(snap.taskId).pollInterval, 1_000);
    // Polled at 1.5 s and 2.5 s, not first at 60 s (the pace the notification replaced).
    assert.deepEqual(gaps(hh, snap.taskId), [1_500, 1_000, 1_000]);
  });

  it('T-REQ-2: a long pollInterval (5 minutes) is honoured, not shortened', async () => {
    const hh = await start({ server: { pollInterval: 300_000 }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    assert.equal(hh.engine.effectivePollInterval(snap.key), 300_000);
    await clock!.tickAsync(20 * 60_000);
    assert.deepEqual(gaps(hh, snap.taskId), [300_000, 300_000, 300_000, 300_000]);
  });

  it('a pollInterval beyond an hour is no real suggestion (2^53 ms): the task is checked every minute, as before', async () => {
    const hh = await start({ server: { pollInterval: 2 ** 53 }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    assert.equal(hh.engine.effectivePollInterval(snap.key), 60_000);
    await clock!.tickAsync(3 * 60_000);
    assert.deepEqual(gaps(hh, snap.taskId), [60_000, 60_000, 60_000]);
  });

  it('T-RCV-7: a task whose ttl ends before its next poll is checked once just before, and its result fetched while the server still keeps it', async () => {
    const hh = await start({ server: { pollInterval: 120_000, ttl: 100_000 }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    await clock!.tickAsync(50_000);
    hh.server.complete(snap.taskId); // no notification: only a poll can tell
    await clock!.tickAsync(45_000);
    assert.deepEqual(gaps(hh, snap.taskId), [95_000], 'polled 5 s before the ttl ends, not at 120 s');
    await clock!.tickAsync(10);
    assert.equal(hh.snap(snap.taskId).status, 'completed');
    assert.equal(hh.server.requestsOf('tasks/result').length, 1, 'the result fetched before the ttl ended');
  });

  it('the last check before the ttl ends comes once: a task still working then is polled at its own pace after', async () => {
    const hh = await start({ server: { pollInterval: 120_000, ttl: 100_000 }, engine: { random: () => 0 } });
    const snap = await hh.engine.callTool('fake', 'required-tool');
    await clock!.tickAsync(400_000);
    assert.deepEqual(gaps(hh, snap.taskId), [95_000, 120_000, 120_000]);
  });

  const clamps: Array<[string, number, number]> = [
    ['0', 0, 500],
    ['negative', -1_000, 500],
    ['enormous', 1e12, 10_000],
  ];
  for (const [name, pollInterval, expected] of clamps) {
    it(`clamps a pollInterval of ${name} to [minPollMs, maxPollMs]`, async () => {
      const hh = await start({ server: { pollInterval }, engine: { random: () => 0, minPollMs: 500, maxPollMs: 10_000 } });
      const snap = await hh.engine.callTool('fake', 'required-tool');
      assert.equal(snap.pollInterval, pollInterval, 'the snapshot keeps what the server said');
      assert.equal(hh.engine.effectivePollInterval(snap.key), expected);
      await clock!.tickAsync(60_000);
      const g = gaps(hh, snap.taskId);
      assert.equal(g.length, 60_000 / expected);
      assert.deepEqual(new Set(g), new Set([expected]));
    });
  }
});
