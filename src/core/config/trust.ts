import type { ServerConfig } from './types';
import { WORKSPACE_FOLDER } from './types';

/**
 * Workspace trust gate: a server defined by a workspace's `.vscode/mcp.json` runs code chosen by
 * whoever wrote that folder, so it may start only in a trusted workspace. Servers of the user's
 * own settings and own mcp.json are the user's choice and always may.
 */
export const trustBlocker = (config: ServerConfig, workspaceTrusted: boolean): string | undefined => {
  if (workspaceTrusted || config.source.kind !== WORKSPACE_FOLDER) return undefined;
  return 'this workspace is not trusted, so servers from its .vscode/mcp.json do not start. Trust the workspace (Workspaces: Manage Workspace Trust) to start them.';
};
