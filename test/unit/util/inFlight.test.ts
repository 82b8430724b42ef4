// The per-task count of work in flight (open questions, a model's answers) behind Respond to
// Task and the "needs your input" notification.
import * as assert from 'node:assert/strict';
import { InFlight } from '../../../src/core/util/inFlight';

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
    const first = flight.during('t1', () => a.promise);
    const second = flight.during('t1', () => b.promise);
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

  it('counts nothing for work without a key', async () => {
    const flight = new InFlight();
    let told = 0;
    flight.onDidChange(() => told++);
    assert.equal(await flight.during(undefined, async () => 'plain'), 'plain');
    assert.equal(told, 0);
  });
});
