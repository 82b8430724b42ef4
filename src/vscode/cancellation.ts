// The one bridge between the editor's CancellationToken and the core's AbortSignal, both ways.
import * as vscode from 'vscode';

/** An AbortSignal that aborts when `token` is cancelled. */
export function toAbortSignal(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort(new Error('cancelled'));
  const sub = token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
  return { signal: controller.signal, dispose: () => sub.dispose() };
}

/** The other direction: a CancellationToken that is cancelled when `signal` aborts. */
export function toCancellationToken(signal: AbortSignal): { token: vscode.CancellationToken; dispose(): void } {
  const source = new vscode.CancellationTokenSource();
  const cancel = () => source.cancel();
  if (signal.aborted) source.cancel();
  else signal.addEventListener('abort', cancel, { once: true });
  return {
    token: source.token,
    dispose: () => {
      signal.removeEventListener('abort', cancel);
      source.dispose();
    },
  };
}
