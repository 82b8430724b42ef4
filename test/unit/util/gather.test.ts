// What the notifications of ended tasks are gathered by: many of one kind found one after another
// over seconds (a reload's tasks, lost one poll after another) are told together, one alone at once.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { gatherer } from '../../../src/core/util/gather';

describe('gatherer', () => {
  let clock: ReturnType<typeof FakeTimers.install>;
  let handed: string[][];
  let gather: ReturnType<typeof gatherer<string>>;

  beforeEach(() => {
    clock = FakeTimers.install();
    handed = [];
    gather = gatherer<string>((items) => handed.push(items), 2000, 20_000);
  });

  afterEach(() => {
    gather.dispose();
    clock.uninstall();
  });

  it('hands one alone on at once; one more of its kind within the quiet time waits for it, then goes alone', () => {
    gather.add('lost', ['t1']);
    assert.deepEqual(handed, [['t1']]);
    clock.tick(1000);
    gather.add('lost', ['t2']);
    clock.tick(1999);
    assert.deepEqual(handed, [['t1']], 'held while the kind is open');
    clock.tick(1);
    assert.deepEqual(handed, [['t1'], ['t2']]);
    clock.tick(5000);
    gather.add('lost', ['t3']);
    assert.deepEqual(handed, [['t1'], ['t2'], ['t3']], 'the kind closed: at once again');
  });

  it('holds many of a kind while more keep coming, 100 ms apart over 10 s, and hands them on together once none has come for the quiet time', () => {
    for (let i = 0; i < 100; i++) {
      gather.add('lost', [`a${i}`, `b${i}`]);
      clock.tick(100);
    }
    assert.equal(handed.length, 0);
    clock.tick(1899);
    assert.equal(handed.length, 0);
    clock.tick(1);
    assert.deepEqual(handed.map((h) => h.length), [200]);
  });

  it('holds them no longer than the longest wait after the kind opened, however many keep coming', () => {
    for (let i = 0; i < 300; i++) {
      gather.add('lost', [`t${i}`]);
      clock.tick(100);
    }
    clock.tick(2000);
    // The first at once; then what came in the 20 s after the first held, then the rest.
    assert.deepEqual(handed.map((h) => h.length), [1, 199, 100]);
    assert.deepEqual(handed[1].slice(0, 2), ['t1', 't2']);
  });

  it('keeps kinds apart: another kind is handed on at once while one is held', () => {
    gather.add('lost on a', ['a1', 'a2']);
    gather.add('completed on a', ['c1']);
    gather.add('lost on b', ['b1']);
    assert.deepEqual(handed, [['c1'], ['b1']]);
    clock.tick(2000);
    assert.deepEqual(handed, [['c1'], ['b1'], ['a1', 'a2']]);
  });

  it('hands nothing on once disposed', () => {
    gather.add('lost', ['t1', 't2']);
    gather.dispose();
    clock.tick(30_000);
    assert.deepEqual(handed, []);
  });
});
