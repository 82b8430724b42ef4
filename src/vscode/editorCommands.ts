// The two calls of the editor's commands the extension makes most (16 commands registered, 19
// run), each written out once: the bundle then spells `commands.registerCommand` and
// `commands.executeCommand` once, not at every call.
import * as vscode from 'vscode';

/** `vscode.commands.registerCommand`. */
export const registerCommand = (id: string, run: (...args: never[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, run);

/** `vscode.commands.executeCommand`. */
export const executeCommand = <T = unknown>(id: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(id, ...args);

/** The ids of the commands named in several places (run, registered, set on items): each one string in the bundle. */
export const OPEN_CONFIGURATION = 'mcpTasks.openConfiguration';
export const OPEN_RESULT = 'mcpTasks.openResult';
export const RESPOND_TO_TASK = 'mcpTasks.respondToTask';
