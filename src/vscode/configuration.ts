import * as vscode from 'vscode';
import type { ParseResult } from '../core/config/types';
import { SERVERS_SETTING } from '../core/config/types';
import { combineConfigs, parseMcpJson, parseSettingServers } from '../core/config/parse';
import type { Event } from '../core/util/event';
import { DisposableBase, Emitter } from '../core/util/event';

const MCP_JSON = '.vscode/mcp.json';

/**
 * Reads the servers of the `mcpTasks.servers` setting and of each workspace folder's
 * `.vscode/mcp.json`, and says when either changes.
 */
export class ConfigurationReader extends DisposableBase {
  readonly #onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this.#onDidChange.event;

  constructor() {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SERVERS_SETTING) || e.affectsConfiguration('mcpTasks.readWorkspaceMcpJson')) this.#onDidChange.fire();
      }),
    );
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.#onDidChange.fire()));
    const watcher = this._register(vscode.workspace.createFileSystemWatcher(`**/${MCP_JSON}`));
    const fire = () => this.#onDidChange.fire();
    watcher.onDidChange(fire);
    watcher.onDidCreate(fire);
    watcher.onDidDelete(fire);
  }

  async read(): Promise<ParseResult> {
    const results: ParseResult[] = [parseSettingServers(vscode.workspace.getConfiguration().get<unknown>(SERVERS_SETTING, {}))];
    if (vscode.workspace.getConfiguration('mcpTasks').get<boolean>('readWorkspaceMcpJson', true)) {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const files = await Promise.all(
        folders.map(async (folder) => {
          const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
          try {
            const bytes = await vscode.workspace.fs.readFile(uri);
            return { folder, uri, text: new TextDecoder().decode(bytes) };
          } catch {
            return undefined; // no mcp.json in this folder
          }
        }),
      );
      for (const f of files) {
        if (!f) continue;
        results.push(
          parseMcpJson(f.text, {
            kind: 'workspaceFolder',
            folderName: f.folder.name,
            folderPath: f.folder.uri.fsPath,
            file: f.uri.fsPath,
          }),
        );
      }
    }
    return combineConfigs(results);
  }

  /** The `.vscode/mcp.json` of a folder. */
  static mcpJsonUri(folder: vscode.WorkspaceFolder): vscode.Uri {
    return vscode.Uri.joinPath(folder.uri, MCP_JSON);
  }
}
