import { maxOf, minOf } from '../util/builtins';

/**
 * A token bucket: `burst` operations at once, refilled at `ratePerSecond`. Refills lazily from
 * the clock on each take, so it owns no timer.
 */
export class TokenBucket {
  #tokens: number;
  #last: number;
  readonly #ratePerSecond: number;
  readonly #burst: number;
  readonly #now: () => number;

  constructor(ratePerSecond: number, burst: number, now: () => number) {
    this.#ratePerSecond = ratePerSecond;
    this.#burst = burst;
    this.#now = now;
    this.#tokens = burst;
    this.#last = now();
  }

  /** Takes one token; false when the bucket is empty. */
  take(): boolean {
    const now = this.#now();
    // A clock that went back refills nothing (never a negative refill).
    this.#tokens = minOf(this.#burst, this.#tokens + (maxOf(0, now - this.#last) * this.#ratePerSecond) / 1000);
    this.#last = now;
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
