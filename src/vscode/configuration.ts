import * as vscode from 'vscode';
import type { ConfigError, ParseResult } from '../core/config/types';
import { SERVERS_SETTING } from '../core/config/types';
import { combineConfigs, keepLastReadable, newProblems, parseMcpJson, parseSettingServers, unreadable } from '../core/config/parse';
import { errorMessage } from '../core/util/abort';
import { sentence } from '../core/util/log';
import type { Event } from '../core/util/event';
import { DisposableBase, Emitter } from '../core/util/event';
import { executeCommand } from './editorCommands';

const MCP_JSON = '.vscode/mcp.json';

/** The setting `mcpTasks.<key>` as it is now, or `fallback` where it is not set. */
export const setting = <T>(key: string, fallback: T): T => vscode.workspace.getConfiguration('mcpTasks').get<T>(key, fallback);

/** Calls `listener` when the setting `mcpTasks.<key>` (or one under it) changes. */
export const onSettingChange = (key: string, listener: () => unknown): vscode.Disposable => vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`mcpTasks.${key}`) && listener());

/**
 * Warns of configuration errors: once for each file (or the settings) with a problem it did not
 * have at the last read (see newProblems), naming how many it has, with Open Configuration at the
 * first and Show Log. The view lists them all.
 */
export const configErrorNotifier = (log: vscode.LogOutputChannel): (errors: readonly ConfigError[]) => void => {
  const shown = new Map<string, string[]>();
  return (errors) => {
    for (const [e, ...more] of newProblems(shown, errors)) {
      const open = vscode.l10n.t('Open Configuration');
      // Several errors are all `invalid` ones, whose message starts with where they are: said once.
      const where = e.where!;
      const text = more.length ? vscode.l10n.t('{0} has {1} errors (see the MCP Tasks view). The first: {2}', where, more.length + 1, e.message.slice(where.length).replace(/^[,:] /, '')) : e.message;
      void vscode.window.showWarningMessage(text, open, vscode.l10n.t('Show Log')).then((c) => (c === open ? executeCommand('mcpTasks.openConfiguration', e.source, e.line, e.column, e.server) : c && log.show()));
    }
  };
};

/**
 * Reads the servers of the `mcpTasks.servers` setting and of each workspace folder's
 * `.vscode/mcp.json`, and says when either changes.
 */
export class ConfigurationReader extends DisposableBase {
  readonly #onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this.#onDidChange.event;
  /** The last readable result of each mcp.json, by path (see `keepLastReadable`). */
  readonly #readable = new Map<string, ParseResult>();

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
    const seen = new Set<string>();
    if (setting('readWorkspaceMcpJson', true)) {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const files = await Promise.all(folders.map((folder) => this.#readFolder(folder)));
      for (const f of files) {
        if (!f) continue;
        seen.add(f.path);
        results.push(f.result);
      }
    }
    for (const path of this.#readable.keys()) if (!seen.has(path)) this.#readable.delete(path);
    return combineConfigs(results);
  }

  /** A folder's mcp.json, parsed; undefined when it has none. */
  async #readFolder(folder: vscode.WorkspaceFolder): Promise<{ path: string; result: ParseResult } | undefined> {
    const uri = vscode.Uri.joinPath(folder.uri, MCP_JSON);
    const path = uri.fsPath;
    let parsed: ParseResult;
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      parsed = parseMcpJson(text, { kind: 'workspaceFolder', folderName: folder.name, folderPath: folder.uri.fsPath, file: path });
    } catch (err) {
      // No mcp.json in this folder, or no longer: its servers go.
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
      const message = `.vscode/mcp.json (folder "${folder.name}") could not be read: ${sentence(errorMessage(err))}`;
      parsed = { servers: [], inputs: [], errors: [{ kind: 'syntax', source: path, message }] };
    }
    const result = keepLastReadable(this.#readable.get(path), parsed);
    if (!unreadable(parsed)) this.#readable.set(path, parsed);
    return { path, result };
  }

  /** The `.vscode/mcp.json` of a folder. */
  static mcpJsonUri(folder: vscode.WorkspaceFolder): vscode.Uri {
    return vscode.Uri.joinPath(folder.uri, MCP_JSON);
  }
}
