import { isString, stringify } from './json';
import { isFiniteNumber, minOf } from './builtins';
import { noop, rejected } from './promise';

/** AbortSignal.any, a static operation that needs no `this`: bound once, as the builtins in ./json are (12 uses). */
// eslint-disable-next-line no-restricted-properties -- where it is bound
export const { any: anySignal } = AbortSignal;
/** A new AbortController: the bundle spells `new AbortController` here alone, where the minifier shortens each call (21 uses). */
export const newController = (): AbortController => new AbortController();
/** Aborts `controller`, if there is one, with an Error saying `why` (13 uses). */
export const abortWith = (controller: AbortController | undefined, why: string): void => controller?.abort(new Error(why));
/** setTimeout's longest delay: Node fires a longer one after 1 ms, with a warning. Longer waits arm this and re-arm. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Aborts `controller` with `reason()` once `ms` have passed (never for a zero, negative or
 * infinite `ms`); returns what stops the timer. It does not keep the process alive.
 */
export const abortAfter = (controller: AbortController, ms: number, reason: () => Error): () => void => {
  if (!(isFiniteNumber(ms) && ms > 0)) return noop;
  const timer = setTimeout(() => controller.abort(reason()), minOf(ms, MAX_TIMER_MS));
  timer.unref?.();
  return () => clearTimeout(timer);
};

/** Calls `listener` once when `signal` aborts (not if it has already); returns what stops listening. */
export const onAbort = (signal: AbortSignal, listener: () => void): () => void => {
  signal.addEventListener('abort', listener, { once: true });
  return () => signal.removeEventListener('abort', listener);
};

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. Leaves no timer behind. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const stop = signal
      ? onAbort(signal, () => {
          clearTimeout(timer);
          reject(abortReason(signal));
        })
      : undefined;
    const timer = setTimeout(() => {
      stop?.();
      resolve();
    }, ms);
  });
};

/** Settles as `promise` does, or rejects with the signal's reason as soon as it aborts. */
export const raceAbort = <T>(promise: Promise<T>, signal: AbortSignal): Promise<T> => {
  if (signal.aborted) return rejected(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    promise.then(resolve, reject).finally(onAbort(signal, () => reject(abortReason(signal))));
  });
};

/** The error an aborted signal stands for: its reason, or an AbortError saying `fallback`. */
export const abortReason = (signal: AbortSignal, fallback = 'The operation was aborted'): Error => {
  const r: unknown = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error(isString(r) ? r : fallback);
  e.name = 'AbortError';
  return e;
};

/** `err` if it is an Error, else an Error saying what it is. */
export const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(errorMessage(err)));

export const errorMessage = (err: unknown): string => {
  if (err instanceof Error) return err.message;
  if (isString(err)) return err;
  try {
    return stringify(err);
  } catch {
    return String(err);
  }
};
