import { noop } from './promise';

/** A subscription that can be ended. Shaped like the editor's `Disposable`. */
export interface Disposable {
  dispose(): void;
}

/** A function that subscribes a listener, shaped like the editor's `Event<T>`. */
export type Event<T> = (listener: (e: T) => void) => Disposable;

/** Fires events to its listeners; a listener that throws does not stop the others. */
export class Emitter<T> implements Disposable {
  #listeners: Array<(e: T) => void> = [];
  #disposed = false;
  readonly #onListenerError: ((err: unknown) => void) | undefined;

  constructor(onListenerError?: (err: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  readonly event: Event<T> = (listener) => {
    if (this.#disposed) return { dispose: noop };
    this.#listeners.push(listener);
    return {
      dispose: () => {
        const i = this.#listeners.indexOf(listener);
        if (i >= 0) this.#listeners.splice(i, 1);
      },
    };
  };

  fire(e: T): void {
    // Copy, so listeners that unsubscribe while handling do not skip their neighbours.
    for (const l of this.#listeners.length === 1 ? this.#listeners : [...this.#listeners]) {
      try {
        l(e);
      } catch (err) {
        this.#onListenerError?.(err);
      }
    }
  }

  dispose(): void {
    this.#disposed = true;
    this.#listeners = [];
  }
}

/** Owns disposables and disposes them together, in reverse order. */
export class DisposableStore implements Disposable {
  #items = new Set<Disposable>();
  #disposed = false;

  add<T extends Disposable>(d: T): T {
    if (this.#disposed) d.dispose();
    else this.#items.add(d);
    return d;
  }

  clear(): void {
    const items = [...this.#items].reverse();
    this.#items.clear();
    for (const d of items) {
      try {
        d.dispose();
      } catch {
        // A failing dispose must not keep the rest alive.
      }
    }
  }

  dispose(): void {
    this.#disposed = true;
    this.clear();
  }
}

/** Base for long-lived classes that own their disposables. */
export abstract class DisposableBase implements Disposable {
  protected readonly _store = new DisposableStore();

  protected _register<T extends Disposable>(d: T): T {
    return this._store.add(d);
  }

  dispose(): void {
    this._store.dispose();
  }
}
