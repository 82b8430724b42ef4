// syncedFlag: the context keys mcpTasks.hasServers (followChatReach) and mcpTasks.hasFinished (the
// Tasks view) are set through it, only when their value changes, worked out once per burst.
import * as assert from 'node:assert/strict';
import { syncedFlag } from '../../../src/core/util/flag';

describe('syncedFlag', () => {
  const tick = () => new Promise<void>((r) => setImmediate(r));

  it('calls set only when the value changes, the first value included', () => {
    const set: boolean[] = [];
    const flag = syncedFlag(() => assert.fail('not computed'), (v) => set.push(v));
    flag.put(false);
    flag.put(false);
    flag.put(true);
    flag.put(true);
    flag.put(false);
    assert.deepEqual(set, [false, true, false]);
  });

  it('check() works the value out once for a burst of calls, after them, and sets it only on a change', async () => {
    const set: boolean[] = [];
    let computed = 0;
    let value = false;
    const flag = syncedFlag(() => (computed++, value), (v) => set.push(v));
    flag.check();
    value = true;
    flag.check();
    flag.check();
    assert.equal(computed, 0, 'not in the call');
    await tick();
    assert.equal(computed, 1, 'once for the burst');
    assert.deepEqual(set, [true], 'the value as it was after the burst');
    flag.check();
    await tick();
    assert.equal(computed, 2, 'a later burst is worked out again');
    assert.deepEqual(set, [true], 'unchanged: not set again');
    flag.put(false);
    assert.deepEqual(set, [true, false], 'put sets at once');
  });
});
