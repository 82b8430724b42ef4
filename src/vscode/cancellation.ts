import type * as vscode from 'vscode';

/** The one bridge between the editor's CancellationToken and the core's AbortSignal. */
export function toAbortSignal(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort(new Error('cancelled'));
  const sub = token.onCancellationRequested(() => controller.abort(new Error('cancelled')));
  return { signal: controller.signal, dispose: () => sub.dispose() };
}
