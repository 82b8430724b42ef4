import * as vscode from 'vscode';
import type { ServerStateKind } from '../../core/servers/serverManager';
import { WARNING_COLOR } from '../../core/tasks/presentation';

/** One table: server state to codicon. */
export const SERVER_STATE_ICON: Record<ServerStateKind, { id: string; color?: string }> = {
  idle: { id: 'circle-large-outline' },
  connecting: { id: 'loading~spin' },
  connected: { id: 'pass-filled', color: 'testing.iconPassed' },
  error: { id: 'error', color: 'errorForeground' },
  blocked: { id: 'workspace-untrusted', color: WARNING_COLOR },
};

/** A server no longer in the configuration, listed for its tasks. */
export const REMOVED_SERVER_ICON = { id: 'debug-disconnect', color: 'disabledForeground' };

export const asThemeIcon = (icon: { id: string; color?: string }): vscode.ThemeIcon => new vscode.ThemeIcon(icon.id, icon.color ? new vscode.ThemeColor(icon.color) : undefined);
