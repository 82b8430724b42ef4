import * as vscode from 'vscode';
import { unlinked } from '../core/util/text';

/** A notification with its buttons (`items`): the one chosen, if any. */
export type Notify = <T extends string>(message: string, ...items: T[]) => Thenable<T | undefined>;

/**
 * Every notification goes through these (a lint rule keeps the editor's own out of src/vscode):
 * its text may carry a server's or a workspace file's, shown unlinked (a `[label](command:…)`
 * would run that command at a click).
 */
const notifier =
  (how: 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage'): Notify =>
  (message, ...items) =>
    (vscode.window[how] as Notify)(unlinked(message), ...items);
export const showInfo = notifier('showInformationMessage');
export const showWarning = notifier('showWarningMessage');
export const showError = notifier('showErrorMessage');

/**
 * The stored task list could not be read: it was kept aside as `keptAs`. Open File shows it in an
 * editor (to look at it or restore it), which a remote window can, unlike revealing it in the OS.
 */
export const tellUnread = (keptAs: string): void => {
  const open = vscode.l10n.t('Open File');
  void showWarning(vscode.l10n.t('MCP Tasks could not read the tasks it saved, and starts without them. The file is kept as {0}.', keptAs), open).then(
    (c) => c && vscode.commands.executeCommand('vscode.open', vscode.Uri.file(keptAs)),
  );
};
