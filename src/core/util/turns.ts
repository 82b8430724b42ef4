import { abortReason, onAbort, raceAbort } from './abort';
import type { Event } from './event';
import { Emitter } from './event';
import { noop } from './promise';

/**
 * One dialog's place in `Turns`, given to it when its turn comes. A dialog hidden without an
 * answer stays pending but gives its turn up; shown again, it takes a turn again. Each dialog
 * has its own `Turn`: releasing it never ends another's.
 */
export interface Turn {
  /** What the dialog is about (the keys of its task and of its hosted task), for showing a hidden one again by either. */
  readonly about: readonly string[];
  /** The dialog was hidden without an answer: the turn is free (see `Turns`). Does nothing unless this dialog holds the turn. */
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
  readonly about: readonly string[];
  /** Shown at the user's request: goes before the dialogs waiting for their first turn. */
  again: boolean;
  /** Was waiting when a dialog was hidden: waits for the user (see `Turns`). */
  deferred: boolean;
  go(): void;
}

/**
 * Dialogs one at a time, in the order they were asked for. The editor shows one quick input at a
 * time, and showing another hides the one shown, which then answers as if the user had dismissed
 * it: so every dialog that servers open (questions, sampling consent) waits for its turn here.
 *
 * A dialog hidden without an answer (Escape, or the Command Palette opened over it) frees the
 * turn, but the dialogs waiting then do not pop up over whatever the user turned to: they are
 * deferred until the user asks for them (`resume`, `bring`) or answers a dialog on screen (one
 * withdrawn by its server does not count). A dialog asked for later shows in its turn, as any
 * new one does.
 */
export class Turns {
  #holder: object | undefined;
  /** What the dialog holding the turn is about. */
  #holderAbout: readonly string[] = [];
  readonly #line: Waiter[] = [];
  readonly #onDidChange = new Emitter<void>();
  /** The number of deferred dialogs may have changed. */
  readonly onDidChange: Event<void> = this.#onDidChange.event;
  readonly #onDidShow = new Emitter<readonly string[]>();
  /** A dialog took its turn (it shows now): what it is about. */
  readonly onDidShow: Event<readonly string[]> = this.#onDidShow.event;

  /** Where the dialog about `about` is: shown, waiting for its turn, deferred (waits for the user), or none here (none asked, hidden, or over). */
  whereIs(about: string): 'shown' | 'waiting' | 'deferred' | undefined {
    if (this.#holder && this.#holderAbout.includes(about)) return 'shown';
    const w = this.#line.find((x) => x.about.includes(about));
    return w && (w.deferred ? 'deferred' : 'waiting');
  }

  /** How many dialogs wait for the user after a hide (never shown yet). */
  get deferred(): number {
    return this.#line.filter((w) => w.deferred).length;
  }

  /** Lets the deferred dialogs show, in their order; false when there are none. */
  resume(): boolean {
    const deferred = this.#line.filter((w) => w.deferred);
    if (!deferred.length) return false;
    for (const w of deferred) w.deferred = false;
    this.#changed();
    return true;
  }

  /** Shows the first deferred dialog about `about` next (before the others); false when none is. */
  bring(about: string): boolean {
    const i = this.#line.findIndex((w) => w.deferred && w.about.includes(about));
    if (i < 0) return false;
    const [w] = this.#line.splice(i, 1);
    this.#putFirst({ ...w, again: true, deferred: false });
    this.#changed();
    return true;
  }

  /** Puts a dialog the user asked for before those waiting for their first turn. */
  #putFirst(w: Waiter): void {
    const first = this.#line.findIndex((x) => !x.again);
    this.#line.splice(first < 0 ? this.#line.length : first, 0, w);
  }

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
      release: () => {
        // Withdrawn, its dialog closes, which can read as a hide: `end` passes the turn on instead.
        if (this.#holder !== owner || signal.aborted) return;
        // Those shown again at the user's request too: the user has turned to something else since.
        for (const w of this.#line) w.deferred = true;
        this.#release(owner);
        this.#onDidChange.fire();
      },
      retake: (show) => {
        if (over || this.#line.some((w) => w.owner === owner)) return;
        if (this.#holder === owner) return show();
        this.#putFirst({ owner, about, again: true, deferred: false, go: show });
        this.#next();
      },
    };
    let started = false;
    // Withdrawn before its turn: out of the line at once (a deferred one is no longer counted).
    let withdrawn: () => void = noop;
    const mine = new Promise<T>((resolve, reject) => {
      withdrawn = () => started || reject(abortReason(signal));
      this.#line.push({
        owner,
        about,
        again: false,
        deferred: false,
        go: () => {
          started = true;
          unlisten();
          if (signal.aborted) return reject(abortReason(signal));
          // Never inside the caller's own stack (the dialog before may be ending in a hide event).
          void Promise.resolve()
            .then(() => run(turn))
            .then(resolve, reject);
        },
      });
    });
    if (signal.aborted) withdrawn();
    const unlisten = onAbort(signal, withdrawn);
    const end = () => {
      over = true;
      unlisten();
      const waiting = this.#line.findIndex((w) => w.owner === owner);
      const wasDeferred = waiting >= 0 && this.#line[waiting].deferred;
      if (waiting >= 0) this.#line.splice(waiting, 1);
      // Answered on screen: the user is answering, so the deferred dialogs follow. Withdrawn by
      // its server instead, it was not the user's doing: they keep waiting to be asked for.
      if (this.#holder === owner && !signal.aborted) this.resume();
      else if (wasDeferred) this.#onDidChange.fire();
      this.#release(owner);
    };
    mine.then(end, end);
    this.#next();
    return raceAbort(mine, signal);
  }

  #release(owner: object): void {
    if (this.#holder !== owner) return;
    this.#holder = undefined;
    this.#holderAbout = [];
    this.#next();
  }

  #changed(): void {
    this.#onDidChange.fire();
    this.#next();
  }

  #next(): void {
    if (this.#holder) return;
    const i = this.#line.findIndex((w) => !w.deferred);
    if (i < 0) return;
    const [w] = this.#line.splice(i, 1);
    this.#holder = w.owner;
    this.#holderAbout = w.about;
    w.go();
    this.#onDidShow.fire(w.about);
  }
}
