// What the user is told when the task store's folder fails them (TaskStore's onSaveError and
// onUnread): the store keeps going by itself, these say what happened and what to do.
import * as vscode from 'vscode';
import { errorMessage } from '../core/util/abort';
import { executeCommand, SHOW_LOG } from './editorCommands';
import { showError, showLogLabel, showWarning } from './notify';

/**
 * The tasks and results cannot be saved in `storage` (a full disk, a read-only file system):
 * told once a window, with what to do; the reason without its path ("ENOSPC: no space left on
 * device, write '…'"), the log has it all.
 */
export const tellUnsaved =
  (storage: string) =>
  (err: unknown): void => {
    const show = showLogLabel();
    const text = vscode.l10n.t('MCP Tasks cannot save its tasks and results ({0}). They are kept while this window is open and saved when they can be: free some disk space, or make {1} writable.', errorMessage(err).split(',')[0], storage);
    void showError(text, show).then((c) => c && executeCommand(SHOW_LOG));
  };

/**
 * The stored task list could not be read: it was kept aside as `keptAs`. Open File shows it in an
 * editor (to look at it or restore it), which a remote window can, unlike revealing it in the OS.
 */
export const tellUnread = (keptAs: string): void => {
  const open = vscode.l10n.t('Open File');
  void showWarning(vscode.l10n.t('MCP Tasks could not read the tasks it saved, and starts without them. The file is kept as {0}.', keptAs), open).then(
    (c) => c && executeCommand('vscode.open', vscode.Uri.file(keptAs)),
  );
};
