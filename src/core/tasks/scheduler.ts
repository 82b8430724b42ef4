/**
 * One timer for every poll of every task of every server: a min-heap of due times with lazy
 * deletion (a rescheduled or cancelled key leaves a stale heap entry that is skipped), so
 * following 10,000 tasks costs one timer and O(log n) per poll.
 */
export class PollScheduler {
  private readonly due = new Map<string, number>();
  private heap: Array<{ at: number; key: string }> = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Infinity;
  private disposed = false;

  constructor(
    private readonly fire: (key: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** (Re)schedules `key` at `at` (ms since epoch). */
  schedule(key: string, at: number): void {
    if (this.disposed) return;
    this.due.set(key, at);
    this.push({ at, key });
    if (at < this.timerAt) this.arm();
  }

  cancel(key: string): void {
    this.due.delete(key);
    if (this.due.size === 0) this.clearTimer();
  }

  has(key: string): boolean {
    return this.due.has(key);
  }

  dueAt(key: string): number | undefined {
    return this.due.get(key);
  }

  get size(): number {
    return this.due.size;
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    this.due.clear();
    this.heap = [];
  }

  private run(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    const ready: string[] = [];
    while (this.heap.length && this.heap[0].at <= now) {
      const top = this.pop()!;
      if (this.due.get(top.key) === top.at) {
        this.due.delete(top.key);
        ready.push(top.key);
      }
    }
    // Drop stale entries at the top so the next timer is for a live key.
    while (this.heap.length && this.due.get(this.heap[0].key) !== this.heap[0].at) this.pop();
    if (this.heap.length) this.arm();
    for (const key of ready) this.fire(key);
  }

  private arm(): void {
    this.clearTimer();
    if (!this.heap.length || this.disposed) return;
    const at = this.heap[0].at;
    this.timerAt = at;
    this.timer = setTimeout(() => this.run(), Math.max(0, at - this.now()));
    // Polling must not keep a process (tests, benchmarks) alive by itself.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }

  private push(e: { at: number; key: string }): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p].at <= e.at) break;
      h[i] = h[p];
      i = p;
    }
    h[i] = e;
    // Stale entries pile up when keys are rescheduled often: compact when they dominate.
    if (h.length > 64 && h.length > this.due.size * 4) this.compact();
  }

  private pop(): { at: number; key: string } | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l].at < (m === i ? last.at : h[m].at)) m = l;
        if (r < h.length && h[r].at < (m === i ? last.at : h[m].at)) m = r;
        if (m === i) break;
        h[i] = h[m];
        i = m;
      }
      h[i] = last;
    }
    return top;
  }

  private compact(): void {
    const entries = [...this.due].map(([key, at]) => ({ key, at })).sort((a, b) => a.at - b.at);
    this.heap = entries; // a sorted array is a valid heap
  }
}
