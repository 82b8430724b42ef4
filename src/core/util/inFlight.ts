import type { Disposable, Event } from './event';
import { Emitter } from './event';

/**
 * Counts work in flight per key: the questions of a task open in a dialog, the sampling requests
 * of a task a language model is answering. Says when a key starts or stops having any.
 */
export class InFlight {
  readonly #counts = new Map<string, number>();
  readonly #onDidChange = new Emitter<string>();
  /** The key got its first piece of work, or its last one ended: `has(key)` answers otherwise. */
  readonly onDidChange: Event<string> = this.#onDidChange.event;

  has(key: string): boolean {
    return this.#counts.has(key);
  }

  /** Counts `keys` in while `work` runs (a request's task, or the direct calls it may be about: see `requestAbout`). */
  async during<T>(keys: readonly string[], work: () => Promise<T>): Promise<T> {
    for (const key of keys) {
      const before = this.#counts.get(key) ?? 0;
      this.#counts.set(key, before + 1);
      if (!before) this.#onDidChange.fire(key);
    }
    try {
      return await work();
    } finally {
      for (const key of keys) {
        const left = (this.#counts.get(key) ?? 1) - 1;
        if (left > 0) this.#counts.set(key, left);
        else {
          this.#counts.delete(key);
          this.#onDidChange.fire(key);
        }
      }
    }
  }
}

/**
 * Calls `late(key)` `ms` after `watch(key)`, unless `flight` starts work for the key first (which
 * ends that wait). A key watched already is not watched twice: `late` comes once per wait.
 */
export const watchLate = (flight: Pick<InFlight, 'onDidChange'>, ms: number, late: (key: string) => void): Disposable & { watch(key: string): void } => {
  const waits = new Map<string, ReturnType<typeof setTimeout>>();
  const end = (key: string) => (clearTimeout(waits.get(key)), waits.delete(key));
  const sub = flight.onDidChange(end);
  return {
    watch: (key) => void (waits.has(key) || waits.set(key, setTimeout(() => (end(key), late(key)), ms))),
    dispose: () => (sub.dispose(), [...waits.keys()].forEach(end)),
  };
};
