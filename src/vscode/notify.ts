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

/** Buttons that many notifications offer, in the user's language. */
export const showLogLabel = (): string => vscode.l10n.t('Show Log');
export const openConfigurationLabel = (): string => vscode.l10n.t('Open Configuration');
export const cancelTaskLabel = (): string => vscode.l10n.t('Cancel Task');
