// The one bridge between the editor's CancellationToken and the core's AbortSignal, both ways.
import * as vscode from 'vscode';
import { abortWith, anySignal, newController, onAbort, raceAbort } from '../core/util/abort';
import { unlinked } from '../core/util/text';

/** A signal that never aborts: for the steps of our own commands, which only the user ends. */
export const NEVER = newController().signal;

/** An AbortSignal that aborts when `token` is cancelled. */
export const toAbortSignal = (token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } => {
  const controller = newController();
  const cancel = () => abortWith(controller, 'cancelled');
  if (token.isCancellationRequested) cancel();
  const sub = token.onCancellationRequested(cancel);
  return { signal: controller.signal, dispose: () => sub.dispose() };
};

/** The other direction: a CancellationToken that is cancelled when `signal` aborts. */
export const toCancellationToken = (signal: AbortSignal): { token: vscode.CancellationToken; dispose(): void } => {
  const source = new vscode.CancellationTokenSource();
  if (signal.aborted) source.cancel();
  const stop = onAbort(signal, () => source.cancel());
  return {
    token: source.token,
    dispose: () => {
      stop();
      source.dispose();
    },
  };
};

/**
 * Waits for `work` under a notification progress titled `title` with a Cancel button. Cancel
 * (or `signal`) ends the wait, not the work, and resolves undefined; a failure of the work rejects.
 */
export const waitWithProgress = <T>(title: string, work: Promise<T>, signal?: AbortSignal): Promise<T | undefined> => {
  const shown = vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: unlinked(title), cancellable: true }, async (_, token) => {
    const cancelled = toAbortSignal(token);
    const stop = signal ? anySignal([signal, cancelled.signal]) : cancelled.signal;
    try {
      return await raceAbort(work, stop);
    } catch (err) {
      if (stop.aborted) return undefined;
      throw err;
    } finally {
      cancelled.dispose();
    }
  });
  return Promise.resolve(shown);
};
