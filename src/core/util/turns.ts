import { raceAbort } from './abort';

/**
 * Dialogs one at a time, in the order they were asked for. The editor shows one quick input at a
 * time, and showing another hides the one shown, which then answers as if the user had dismissed
 * it: so every dialog that servers open (questions, sampling consent) waits for its turn here.
 */
export class Turns {
  #last: Promise<unknown> = Promise.resolve();

  /**
   * Runs `run` once every earlier turn has ended. When `signal` aborts, the promise rejects at
   * once with its reason, and a turn not started yet is skipped.
   */
  take<T>(run: () => Promise<T>, signal: AbortSignal): Promise<T> {
    const mine = this.#last.then(() => (signal.throwIfAborted(), run()));
    this.#last = mine.catch(() => undefined);
    return raceAbort(mine, signal);
  }
}

