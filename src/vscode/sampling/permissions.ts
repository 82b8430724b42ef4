import * as vscode from 'vscode';
import { inform } from '../confirm';
import { SamplingPermissions } from '../../core/sampling/permissions';
import { placeOfId } from '../../core/config/types';

/** Where the grants live in `globalState`: they follow the user, not the workspace. */
export const SAMPLING_PERMISSIONS_KEY = 'mcpTasks.samplingPermissions';

/** The grants stored in `memento`, saved back on every change. Dispose with the extension. */
export const loadSamplingPermissions = (memento: vscode.Memento, key = SAMPLING_PERMISSIONS_KEY): SamplingPermissions => {
  const permissions = SamplingPermissions.fromJSON(memento.get(key));
  permissions.onDidChange(() => void memento.update(key, permissions.toJSON()));
  return permissions;
};

interface Item extends vscode.QuickPickItem {
  serverId?: string;
}

/**
 * The command "MCP Tasks: Revoke Sampling Permissions...": pick one always-allowed server (by its
 * label and where it is configured, as other picks of servers show it), or all. Resolves with the
 * number of grants revoked.
 */
export const revokeSamplingPermissions = async (permissions: SamplingPermissions): Promise<number> => {
  const allowed = permissions.alwaysAllowed();
  if (allowed.length === 0) {
    inform(vscode.l10n.t('No MCP server is always allowed to use language models.'));
    return 0;
  }
  const items: Item[] = allowed.map(({ label, serverId }) => ({ label, description: placeOfId(serverId, label), serverId }));
  if (allowed.length > 1) items.push({ label: '', kind: vscode.QuickPickItemKind.Separator }, { iconPath: new vscode.ThemeIcon('clear-all'), label: vscode.l10n.t('All servers') });
  const picked = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Revoke Sampling Permissions'),
    placeHolder: vscode.l10n.t('Which server should ask again before using a language model?'),
  });
  if (!picked) return 0;
  const n = picked.serverId ? (permissions.revoke(picked.serverId) ? 1 : 0) : permissions.revokeAll();
  inform(
    picked.serverId
      ? vscode.l10n.t('MCP server "{0}" will ask again before using a language model.', picked.label)
      : vscode.l10n.t('All MCP servers will ask again before using a language model.'),
  );
  return n;
};
