import * as vscode from 'vscode';
import { openConfigurationLabel, showInfo, showLogLabel, showWarning } from './notify';
import type { ConfigError, ConfigSource, ParseResult } from '../core/config/types';
import { describeSource, SERVERS_SETTING, WORKSPACE_FOLDER } from '../core/config/types';
import { combineConfigs, keepLastReadable, newProblems, parseMcpJson, parseSettingServers, unreadable } from '../core/config/parse';
import { errorMessage } from '../core/util/abort';
import { itsTasksEnd, sentence } from '../core/util/log';
import type { ServerManager } from '../core/servers/serverManager';
import { restarts } from '../core/servers/serverManager';
import type { Event } from '../core/util/event';
import { DisposableBase, Emitter } from '../core/util/event';
import { executeCommand, OPEN_CONFIGURATION } from './editorCommands';

const MCP_JSON = '.vscode/mcp.json';

/** The setting `mcpTasks.<key>` as it is now, or `fallback` where it is not set. */
export const setting = <T>(key: string, fallback: T): T => vscode.workspace.getConfiguration('mcpTasks').get<T>(key, fallback);

/** The ttl `mcpTasks.defaultTtlSeconds` asks new tasks for, in ms; undefined for none (0: the server decides). */
export const defaultTtlMs = (): number | undefined => {
  const seconds = setting('defaultTtlSeconds', 3600);
  return seconds > 0 ? seconds * 1000 : undefined;
};

/** Calls `listener` when the setting `mcpTasks.<key>` (or one under it) changes. */
export const onSettingChange = (key: string, listener: () => unknown): vscode.Disposable => vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration(`mcpTasks.${key}`) && listener());

/**
 * Warns of configuration errors: once for each file (or the settings) with a problem it did not
 * have at the last read (see newProblems; a file in an editor is being typed into: once as it
 * breaks), naming how many it has, with Open Configuration at the first and Show Log. The view
 * lists them all.
 */
export const configErrorNotifier = (log: vscode.LogOutputChannel): (errors: readonly ConfigError[]) => void => {
  const shown = new Map<string, string[]>();
  return (errors) => {
    for (const [e, ...more] of newProblems(shown, errors, (file) => vscode.window.visibleTextEditors.some((ed) => ed.document.uri.fsPath === file))) {
      const open = openConfigurationLabel();
      // Several errors are all `invalid` ones, whose message starts with where they are: said once.
      const where = e.where!;
      const text = more.length ? vscode.l10n.t('{0} has {1} errors (see the MCP Tasks view). The first: {2}', where, more.length + 1, e.message.slice(where.length).replace(/^[,:] /, '')) : e.message;
      void showWarning(text, open, showLogLabel()).then((c) => (c === open ? executeCommand(OPEN_CONFIGURATION, e.source, e.line, e.column, e.server) : c && log.show()));
    }
  };
};

/**
 * Tells once, as an edit of a server's configuration starts to wait for its live tasks or calls
 * (see ServerManager.setConfiguration), that it applies when they end, with Restart Now (which
 * asks before losing them). A wait for results alone is short, and told by the row only.
 */
export const newConfigNotifier = (servers: ServerManager): vscode.Disposable => {
  const told = new Set<string>();
  return servers.onDidChange((one) => {
    // A new configuration comes with a change of the whole list (undefined).
    for (const s of one ? [one] : servers.list()) {
      const n = s.newConfigWaitsFor;
      if (!n) told.delete(s.id);
      else if ((n.tasks || n.calls) && !told.has(s.id)) {
        told.add(s.id);
        void showInfo(vscode.l10n.t('MCP server "{0}" {1} with its new configuration when {2}.', s.label, restarts(s.type), itsTasksEnd(n)), vscode.l10n.t('Restart Now')).then(
          // Chosen later from the notification center: only while the new configuration still waits.
          (c) => c && servers.get(s.id)?.newConfigWaitsFor && executeCommand('mcpTasks.restartServer', { kind: 'server', id: s.id }),
        );
      }
    }
  });
};

/**
 * The user's own mcp.json, which VS Code keeps in the profile's folder (`<user data>/User`, or
 * `User/profiles/<id>`) next to the profile's `globalStorage`, whose subfolder for this extension
 * is `globalStorageUri`. This relies on the extension's global storage being the current profile's:
 * true unless the profile was made to use the Default profile's UI state but its own MCP servers
 * (or the reverse). In a remote window it is the remote machine's user mcp.json, which VS Code
 * also reads there.
 */
export const userMcpJson = (globalStorageUri: vscode.Uri): vscode.Uri => vscode.Uri.joinPath(globalStorageUri, '../../mcp.json');

/**
 * Reads the servers of the `mcpTasks.servers` setting, of the user's mcp.json and of each
 * workspace folder's `.vscode/mcp.json`, and says when any changes.
 */
export class ConfigurationReader extends DisposableBase {
  readonly #onDidChange = this._register(new Emitter<void>());
  readonly onDidChange: Event<void> = this.#onDidChange.event;
  /** The last readable result of each mcp.json, by path (see `keepLastReadable`). */
  readonly #readable = new Map<string, ParseResult>();

  /** The user's mcp.json (see userMcpJson). */
  declare readonly userFile: vscode.Uri;

  constructor(userFile: vscode.Uri) {
    super();
    this.userFile = userFile;
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(SERVERS_SETTING) || e.affectsConfiguration('mcpTasks.readWorkspaceMcpJson')) this.#onDidChange.fire();
      }),
    );
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.#onDidChange.fire()));
    const fire = () => this.#onDidChange.fire();
    // The user's file is outside the workspace: only a pattern with a base folder watches it. A
    // watcher is not told of a parent folder moved away (or back): `.vscode` is watched itself.
    for (const glob of [`**/${MCP_JSON}`, '**/.vscode', new vscode.RelativePattern(vscode.Uri.joinPath(userFile, '..'), 'mcp.json')]) {
      const watcher = this._register(vscode.workspace.createFileSystemWatcher(glob));
      watcher.onDidChange(fire);
      watcher.onDidCreate(fire);
      watcher.onDidDelete(fire);
    }
  }

  async read(): Promise<ParseResult> {
    const results: ParseResult[] = [parseSettingServers(vscode.workspace.getConfiguration().get<unknown>(SERVERS_SETTING, {}))];
    const seen = new Set<string>();
    if (setting('readWorkspaceMcpJson', true)) {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const files = await Promise.all([
        this.#readFile(this.userFile, { kind: 'user', file: this.userFile.fsPath }),
        ...folders.map((folder) => this.#readFile(ConfigurationReader.mcpJsonUri(folder), { kind: WORKSPACE_FOLDER, folderName: folder.name, folderPath: folder.uri.fsPath, file: ConfigurationReader.mcpJsonUri(folder).fsPath })),
      ]);
      for (const f of files) {
        if (!f) continue;
        seen.add(f.path);
        results.push(f.result);
      }
    }
    for (const path of this.#readable.keys()) if (!seen.has(path)) this.#readable.delete(path);
    return combineConfigs(results);
  }

  /** An mcp.json, parsed; undefined when there is none. */
  async #readFile(uri: vscode.Uri, source: ConfigSource): Promise<{ path: string; result: ParseResult } | undefined> {
    const path = uri.fsPath;
    let parsed: ParseResult;
    try {
      const text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
      parsed = parseMcpJson(text, source);
    } catch (err) {
      // No mcp.json there, or no longer: its servers go.
      if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
      const message = `${describeSource(source)} could not be read: ${sentence(errorMessage(err))}`;
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
