// The two calls of the editor's commands the extension makes most (16 commands registered, 19
// run), each written out once: the bundle then spells `commands.registerCommand` and
// `commands.executeCommand` once, not at every call.
import * as vscode from 'vscode';

/** `vscode.commands.registerCommand`. */
export const registerCommand = (id: string, run: (...args: never[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, run);

/** `vscode.commands.executeCommand`. */
export const executeCommand = <T = unknown>(id: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(id, ...args);

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
