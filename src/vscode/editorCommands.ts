// The two calls of the editor's commands the extension makes most (16 commands registered, 19
// run), each written out once: the bundle then spells `commands.registerCommand` and
// `commands.executeCommand` once, not at every call. Every command of ours is registered here,
// so here is where a failure no command tells is caught, logged and told (see failuresTo).
import * as vscode from 'vscode';
import { isInputDismissed } from '../core/servers/serverManager';
import { reasonOf } from '../core/jsonrpc/errors';
import { showError, showLogLabel } from './notify';

/** Tells a command's unexpected failure (see failuresTo). */
let failed: (id: string, err: unknown) => Promise<void>;

/**
 * Where a failure no command handled goes (a bug of ours, or a caller's argument we could not
 * use): logged in `log` with its stack, and shown once, named by the command's title in
 * `commands` (package.json's), with the log a click away. Set once, before the commands run.
 */
export const failuresTo = (log: vscode.LogOutputChannel, commands: readonly { command: string; title: string }[]): void => {
  failed = async (id, err) => {
    const title = commands.find((c) => c.command === id)?.title.replace(/(\.\.\.|…)$/, '') ?? id;
    log.error(`${title} (${id}) failed: ${(err instanceof Error && err.stack) || reasonOf(err)}`);
    const show = showLogLabel();
    const text = vscode.l10n.t('{0} failed: {1}. If it happens again, please report it with the details in the log.', title, reasonOf(err).replace(/\.$/, ''));
    if ((await showError(text, show)) === show) log.show();
  };
};

/** The user's Escape on an input, or a cancellation (`vscode.CancellationError`): no failure, nothing to tell. */
export const isDismissal = (err: unknown): boolean => isInputDismissed(err) || err instanceof vscode.CancellationError;

/**
 * `vscode.commands.registerCommand`, for every command of ours: what fails in `run` (what it
 * does not tell the user itself) is told by `failed`, instead of the editor's toast "command
 * resulted in an error" and nothing in the log. The user's Escape or a cancellation is no failure.
 */
export const registerCommand = (id: string, run: (...args: never[]) => unknown): vscode.Disposable =>
  vscode.commands.registerCommand(id, async (...args: never[]) => {
    try {
      return await run(...args);
    } catch (err) {
      if (!isDismissal(err)) void failed(id, err);
      return undefined;
    }
  });

/** `vscode.commands.executeCommand`. */
export const executeCommand = <T = unknown>(id: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(id, ...args);

/** Sets a context key (`when` clauses read it). */
export const setContext = (key: string, value: unknown): Thenable<unknown> => executeCommand('setContext', key, value);

/** The ids of the commands (and the view) named in several places (run, registered, set on items): each one string in the bundle. */
export const OPEN_CONFIGURATION = 'mcpTasks.openConfiguration';
export const OPEN_RESULT = 'mcpTasks.openResult';
export const RESPOND_TO_TASK = 'mcpTasks.respondToTask';
export const CANCEL_TASK = 'mcpTasks.cancelTask';
export const RUN_AGAIN = 'mcpTasks.runAgain';
export const SHOW_LOG = 'mcpTasks.showLog';
/** The tasks view, and the command that shows it. */
export const TASKS_VIEW = 'mcpTasks.tasks';
export const FOCUS_TASKS_VIEW = `${TASKS_VIEW}.focus`;
