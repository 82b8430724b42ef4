import * as vscode from 'vscode';
import { unnamedReason } from '../core/transports/transport';
import { isObjectLike } from '../core/util/json';
import { executeCommand, OPEN_CONFIGURATION } from './editorCommands';
import { showInfo } from './notify';

/**
 * The argument with which a program (another extension, a test) runs a destructive command
 * without its confirmation: `executeCommand('mcpTasks.clearFinished', { confirmed: true })`.
 */
export const isConfirmed = (arg: unknown): boolean => isObjectLike(arg) && (arg as { confirmed?: unknown }).confirmed === true;

/** A modal warning naming what goes and a button for it; true when the user chose it. */
export const confirmDestructive = async (message: string, detail: string, action: string): Promise<boolean> => {
  // eslint-disable-next-line no-restricted-syntax -- a modal dialog (its options come second), not a notification
  return (await vscode.window.showWarningMessage(message, { modal: true, detail }, action)) === action;
};

/** A notification that asks nothing of the user (no buttons), not awaited. */
export const inform = (message: string): void => {
  void showInfo(message);
};

/** With no server configured, a command that needs one says so and offers to open the configuration. */
export const noServerConfigured = async (): Promise<undefined> => {
  const open = vscode.l10n.t('Open MCP Configuration');
  if ((await showInfo(vscode.l10n.t('No MCP server is configured.'), open)) === open) await executeCommand(OPEN_CONFIGURATION);
  return undefined;
};

/** A passing word in the status bar, gone after `ms`. */
export const flash = (message: string, ms = 5000): void => {
  void vscode.window.setStatusBarMessage(message, ms);
};

/** What a failed connection says, whichever command tried it (Connect Server, Run Tool as Task): the server named once, with the url its reason gives. */
export const couldNotConnect = (label: string, reason: string): string => {
  const { at, why } = unnamedReason(reason, label);
  return at ? vscode.l10n.t('Could not connect to MCP server "{0}" at {1}: {2}', label, at, why) : vscode.l10n.t('Could not connect to MCP server "{0}": {1}', label, why);
};
