import { MAX_TIMER_MS } from '../util/abort';
import { maxOf, minOf } from '../util/builtins';

/**
 * One timer for every poll of every task of every server: a min-heap of due times with lazy
 * deletion (a rescheduled or cancelled key leaves a stale heap entry that is skipped), so
 * following 10,000 tasks costs one timer and O(log n) per poll.
 *
 * Memory matters at that scale: the heap is two parallel arrays (times, keys) rather than an
 * object per entry, and times are whole milliseconds since the scheduler was made, small integers
 * that V8 stores unboxed (an epoch time would be a 16-byte heap number in the map and the heap).
 */

export class PollScheduler {
  /** Key → due time (ms since `base`, rounded up: never early). */
  readonly #due = new Map<string, number>();
  #ats: number[] = [];
  #keys: string[] = [];
  #base: number;
  /** When the armed timer wakes, ms since `base` as the clock read when it was armed. */
  #wake = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerAt = Infinity;
  #disposed = false;
  readonly #fire: (key: string) => void;
  readonly #now: () => number;

  constructor(fire: (key: string) => void, now: () => number = Date.now) {
    this.#fire = fire;
    this.#now = now;
    this.#base = now();
    // eslint-disable-next-line no-unused-labels
    TESTS: Object.defineProperty(this, 'heapLength', { get: () => this.#ats.length });
    // eslint-disable-next-line no-unused-labels
    TESTS: Object.defineProperty(this, 'size', { get: () => this.#due.size });
  }

  /** (Re)schedules `key` at `at` (ms since epoch). */
  schedule(key: string, at: number): void {
    if (this.#disposed) return;
    const t = Math.ceil(at - this.#base);
    this.#due.set(key, t);
    this.#push(t, key);
    if (t < this.#timerAt) this.#arm();
  }

  cancel(key: string): void {
    if (!this.#due.delete(key)) return;
    if (this.#due.size === 0) {
      this.#clearTimer();
      this.#ats = [];
      this.#keys = [];
    }
  }

  has(key: string): boolean {
    return this.#due.has(key);
  }

  /** Entries in the heap, stale ones included: it must stay in proportion to `size`. For tests alone (see the constructor). */
  declare readonly heapLength: number;
  /** Keys scheduled. For tests alone (see the constructor). */
  declare readonly size: number;

  dispose(): void {
    this.#disposed = true;
    this.#clearTimer();
    this.#due.clear();
    this.#ats = [];
    this.#keys = [];
  }

  #run(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    // The timer waited its time but the clock reads earlier: it was set back. The base goes back
    // with it, so what waits keeps its wait (it waited as long again, an hour for an hour).
    this.#base -= maxOf(0, this.#wake - (this.#now() - this.#base));
    const now = this.#now() - this.#base;
    const ready: string[] = [];
    while (this.#ats.length && this.#ats[0] <= now) {
      const key = this.#keys[0];
      const at = this.#ats[0];
      this.#pop();
      if (this.#due.get(key) === at) {
        this.#due.delete(key);
        ready.push(key);
      }
    }
    // Drop stale entries at the top so the next timer is for a live key.
    while (this.#ats.length && this.#due.get(this.#keys[0]) !== this.#ats[0]) this.#pop();
    if (this.#ats.length) this.#arm();
    for (const key of ready) this.#fire(key);
  }

  #arm(): void {
    this.#clearTimer();
    if (!this.#ats.length || this.#disposed) return;
    const at = this.#ats[0];
    this.#timerAt = at;
    // A due time beyond MAX_TIMER_MS (a 30-day ttl's last check) wakes #run early, which finds
    // nothing due and arms again.
    const now = this.#now() - this.#base;
    const delay = minOf(maxOf(0, at - now), MAX_TIMER_MS);
    this.#wake = now + delay;
    this.#timer = setTimeout(() => this.#run(), delay);
    // Polling must not keep a process (tests, benchmarks) alive by itself.
    (this.#timer as { unref?: () => void }).unref?.();
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Infinity;
  }

  #push(at: number, key: string): void {
    const ats = this.#ats;
    const keys = this.#keys;
    let i = ats.length;
    ats.push(at);
    keys.push(key);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (ats[p] <= at) break;
      ats[i] = ats[p];
      keys[i] = keys[p];
      i = p;
    }
    ats[i] = at;
    keys[i] = key;
    // Stale entries pile up when keys are rescheduled often: compact when they dominate.
    if (ats.length > 64 && ats.length > this.#due.size * 4) this.#compact();
  }

  /** Removes the top entry. */
  #pop(): void {
    const ats = this.#ats;
    const keys = this.#keys;
    const at = ats.pop()!;
    const key = keys.pop()!;
    if (ats.length) this.#siftDown(0, at, key);
  }

  /** Places (at, key) at `i` or below, keeping the heap order. */
  #siftDown(i: number, at: number, key: string): void {
    const ats = this.#ats;
    const keys = this.#keys;
    const n = ats.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const m = l + 1 < n && ats[l + 1] < ats[l] ? l + 1 : l;
      if (ats[m] >= at) break;
      ats[i] = ats[m];
      keys[i] = keys[m];
      i = m;
    }
    ats[i] = at;
    keys[i] = key;
  }

  /** Rebuilds the heap from the live keys alone (heapify, O(n)). */
  #compact(): void {
    this.#keys = [...this.#due.keys()];
    this.#ats = [...this.#due.values()];
    for (let i = (this.#ats.length >> 1) - 1; i >= 0; i--) this.#siftDown(i, this.#ats[i], this.#keys[i]);
  }
}
