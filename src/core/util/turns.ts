import { abortReason, raceAbort } from './abort';

/**
 * One dialog's place in `Turns`, given to it when its turn comes. A dialog hidden without an
 * answer stays pending but gives its turn up, so the dialogs after it show; shown again, it
 * takes a turn again. Each dialog has its own `Turn`: releasing it never ends another's.
 */
export interface Turn {
  /** What the dialog is about (the keys of its task and of its hosted task), for showing a hidden one again by either. */
  readonly about: readonly string[];
  /** The dialog was hidden without an answer: the next one in line goes now. Does nothing unless this dialog holds the turn. */
  release(): void;
  /**
   * The dialog is to show again: `show` runs once the turn is its own, at once when no dialog
   * holds it, else as soon as the one shown is done (before the dialogs still waiting, as the
   * user asked for this one). Never runs once this dialog has ended.
   */
  retake(show: () => void): void;
}

interface Waiter {
  readonly owner: object;
  /** Shown again at the user's request: goes before the dialogs waiting for their first turn. */
  readonly again: boolean;
  go(): void;
}

/**
 * Dialogs one at a time, in the order they were asked for. The editor shows one quick input at a
 * time, and showing another hides the one shown, which then answers as if the user had dismissed
 * it: so every dialog that servers open (questions, sampling consent) waits for its turn here.
 */
export class Turns {
  #holder: object | undefined;
  readonly #line: Waiter[] = [];

  /**
   * Runs `run` once every earlier turn has ended or been released. When `signal` aborts, the
   * promise rejects at once with its reason, and a turn not started yet is skipped; a turn
   * started is held until `run` settles (or releases it). `about`: see Turn.
   */
  take<T>(run: (turn: Turn) => Promise<T>, signal: AbortSignal, about: readonly string[] = []): Promise<T> {
    const owner = {};
    let over = false;
    const turn: Turn = {
      about,
      release: () => this.#release(owner),
      retake: (show) => {
        if (over || this.#line.some((w) => w.owner === owner)) return;
        if (this.#holder === owner) return show();
        const first = this.#line.findIndex((w) => !w.again);
        this.#line.splice(first < 0 ? this.#line.length : first, 0, { owner, again: true, go: show });
        this.#next();
      },
    };
    const mine = new Promise<T>((resolve, reject) => {
      this.#line.push({
        owner,
        again: false,
        go: () => {
          if (signal.aborted) return reject(abortReason(signal));
          // Never inside the caller's own stack (the dialog before may be ending in a hide event).
          void Promise.resolve()
            .then(() => run(turn))
            .then(resolve, reject);
        },
      });
    });
    const end = () => {
      over = true;
      const waiting = this.#line.findIndex((w) => w.owner === owner);
      if (waiting >= 0) this.#line.splice(waiting, 1);
      this.#release(owner);
    };
    mine.then(end, end);
    this.#next();
    return raceAbort(mine, signal);
  }

  #release(owner: object): void {
    if (this.#holder !== owner) return;
    this.#holder = undefined;
    this.#next();
  }

  #next(): void {
    if (this.#holder) return;
    const w = this.#line.shift();
    if (!w) return;
    this.#holder = w.owner;
    w.go();
  }
}
