/** setTimeout's longest delay: Node (and fake-timers) fire a longer one after 1 ms. */
export const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/**
 * Records the delay of every setTimeout armed until `restore()` (install fake timers first: the
 * recorder wraps whatever setTimeout is installed then, and puts it back).
 */
export function recordTimerDelays(): { delays: number[]; restore(): void } {
  const original = globalThis.setTimeout;
  const delays: number[] = [];
  globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    delays.push(ms ?? 0);
    return original(fn, ms, ...args);
  }) as typeof setTimeout;
  return { delays, restore: () => void (globalThis.setTimeout = original) };
}
