// The per-task count of work in flight (open questions, a model's answers) behind Respond to
// Task and the "needs your input" notification.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { InFlight, watchLate } from '../../../src/core/util/inFlight';

function deferred(): { promise: Promise<string>; resolve: (v: string) => void; reject: (e: Error) => void } {
  let resolve!: (v: string) => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<string>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('InFlight', () => {
  it('holds a key while any of its work runs, and tells only when the first starts and the last ends', async () => {
    const flight = new InFlight();
    const told: Array<[string, boolean]> = [];
    flight.onDidChange((key) => told.push([key, flight.has(key)]));
    const a = deferred();
    const b = deferred();
    const first = flight.during(['t1'], () => a.promise);
    const second = flight.during(['t1'], () => b.promise);
    assert.equal(flight.has('t1'), true);
    assert.equal(flight.has('t2'), false);
    a.resolve('one');
    assert.equal(await first, 'one');
    assert.equal(flight.has('t1'), true, 'the second piece of work still runs');
    b.reject(new Error('the model failed'));
    await assert.rejects(second, /the model failed/);
    assert.equal(flight.has('t1'), false, 'a failed piece of work is counted out too');
    assert.deepEqual(told, [
      ['t1', true],
      ['t1', false],
    ]);
  });

  it('holds each key of work about several (the direct calls a request of no task may be about)', async () => {
    const flight = new InFlight();
    const a = deferred();
    const work = flight.during(['c1', 'c2'], () => a.promise);
    assert.deepEqual([flight.has('c1'), flight.has('c2')], [true, true]);
    a.resolve('done');
    await work;
    assert.deepEqual([flight.has('c1'), flight.has('c2')], [false, false]);
  });

  it('counts nothing for work without a key', async () => {
    const flight = new InFlight();
    let told = 0;
    flight.onDidChange(() => told++);
    assert.equal(await flight.during([], async () => 'plain'), 'plain');
    assert.equal(told, 0);
  });

  // Respond to Task on a task whose question has not come: told after 10 s that it may be lost.
  describe('watchLate, with fake timers', () => {
    let clock: ReturnType<typeof FakeTimers.install> | undefined;
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });
    const setup = () => {
      clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
      const flight = new InFlight();
      const late: string[] = [];
      return { c: clock, flight, late, w: watchLate(flight, 10_000, (key) => late.push(key)) };
    };

    it('tells once per wait, however often a key is watched meanwhile (Respond clicked again); a later watch waits anew', async () => {
      const { c, late, w } = setup();
      w.watch('t1');
      await c.tickAsync(4_000);
      w.watch('t1');
      w.watch('t2');
      await c.tickAsync(6_000);
      assert.deepEqual(late, ['t1']);
      await c.tickAsync(30_000);
      assert.deepEqual(late, ['t1', 't2'], 'no second message for t1');
      w.watch('t1');
      await c.tickAsync(10_000);
      assert.deepEqual(late, ['t1', 't2', 't1']);
      assert.equal(c.countTimers(), 0);
    });

    it('tells nothing when work for the key starts within the wait (the question came): its timer ends then', async () => {
      const { c, flight, late, w } = setup();
      w.watch('t1');
      w.watch('t2');
      await c.tickAsync(3_000);
      let answer!: () => void;
      const asked = flight.during(['t1'], () => new Promise<void>((r) => (answer = r)));
      assert.equal(c.countTimers(), 1, "t1's timer is cleared, t2's runs");
      await c.tickAsync(60_000);
      assert.deepEqual(late, ['t2']);
      answer();
      await asked;
      await c.tickAsync(60_000);
      assert.deepEqual(late, ['t2'], 'nor when the question is answered');
    });

    it('dispose ends every wait', async () => {
      const { c, late, w } = setup();
      w.watch('t1');
      w.dispose();
      assert.equal(c.countTimers(), 0);
      await c.tickAsync(60_000);
      assert.deepEqual(late, []);
    });
  });
});
