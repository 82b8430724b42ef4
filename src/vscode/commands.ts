import * as vscode from 'vscode';
import type { ServerManager, ServerSnapshot } from '../core/servers/serverManager';
import { BLOCKED, CONNECTED, CONNECTING, RESTARTED } from '../core/servers/serverManager';
import { disconnectCost } from '../core/tasks/policy';
import { isTerminal } from '../core/tasks/status';
import type { TaskSnapshot } from '../core/tasks/types';
import { DIRECT } from '../core/tasks/types';
import { MCP_JSON_TEMPLATE } from '../core/config/template';
import { keyPosition } from '../core/config/parse';
import { HTTP, SERVERS_SETTING, SETTINGS, sourcePlace, STDIO } from '../core/config/types';
import { errorMessage } from '../core/util/abort';
import { reasonOf } from '../core/jsonrpc/errors';
import { describeServer, rowOf, SERVER } from './tree/tasksTree';
import { ConfigurationReader, setting } from './configuration';
import { confirmDestructive, couldNotConnect, inform, isConfirmed, noServerConfigured } from './confirm';
import { formatCount } from '../core/util/text';
import { executeCommand, isDismissal, OPEN_CONFIGURATION, registerCommand, SHOW_LOG, TASKS_VIEW } from './editorCommands';
import { isString } from '../core/util/json';
import { openConfigurationLabel, showError, showLogLabel, showWarning } from './notify';

export interface CommandDeps {
  servers: ServerManager;
  /** Pulls `tasks/list` of a connected server. */
  refreshTasks: (serverId: string) => Promise<number>;
  log: vscode.LogOutputChannel;
  reloadConfiguration: () => Promise<void>;
  /** The tracked tasks (a disconnect that would end live ones asks first). */
  tasks: () => readonly TaskSnapshot[];
  /** A server's task-augmented calls not answered yet (see TaskEngine.pendingCalls). */
  pendingCalls: (serverId: string) => number;
  /** Runs `end`, which ends these tasks at the user's request: their end is not notified. */
  endByUser<T>(keys: readonly string[], end: () => Promise<T>): Promise<T>;
  /** The user's mcp.json (see userMcpJson). */
  userMcpJson: vscode.Uri;
}

/** Registers the palette and view commands. */
export const registerCommands = (deps: CommandDeps): vscode.Disposable[] => {
  const { servers, log } = deps;

  /** A server from the view's row, or picked among those `filter` keeps (the pick titled as its command); `none` says why there is none to pick. */
  const pickServer = async (arg: unknown, title: string, placeHolder: string, filter: (s: ServerSnapshot) => boolean = () => true, none?: string): Promise<ServerSnapshot | undefined> => {
    const fromView = rowOf(arg, SERVER);
    if (fromView) return servers.get(fromView.id) ?? servers.leaving(fromView.id);
    const candidates = servers.list().filter(filter);
    if (!servers.list().length) return noServerConfigured();
    if (candidates.length === 0) {
      inform(none ?? vscode.l10n.t('No MCP server to choose from.'));
      return undefined;
    }
    const picked = await vscode.window.showQuickPick(
      candidates.map((s) => ({ label: s.label, description: describeServer(s), detail: sourcePlace(s.source), server: s })),
      { placeHolder, title },
    );
    return picked?.server;
  };

  /** Runs `task` with the Tasks view's progress bar. */
  const inView = <T>(task: () => Thenable<T>) => vscode.window.withProgress({ location: { viewId: TASKS_VIEW } }, task);

  const connect = async (s: ServerSnapshot) => {
    try {
      await inView(() => servers.getSession(s.id, { now: true }));
    } catch (err) {
      if (isDismissal(err)) return; // the user pressed Escape on one of its inputs, or a cancellation
      const trust = vscode.l10n.t('Manage Workspace Trust');
      const untrusted = servers.get(s.id)?.state.kind === BLOCKED && !vscode.workspace.isTrusted;
      const choice = await showError(
        couldNotConnect(s.label, reasonOf(err)),
        ...(untrusted ? [trust] : []),
        showLogLabel(),
        openConfigurationLabel(),
      );
      if (choice === trust) await executeCommand('workbench.trust.manage');
      else if (choice === showLogLabel()) log.show();
      else if (choice) await executeCommand(OPEN_CONFIGURATION, { kind: SERVER, id: s.id });
    }
  };

  /** Asks before a disconnect that ends live tasks or may lose them (see `disconnectCost`); `{ confirmed: true }` in `arg` skips that. */
  const mayDisconnect = async (s: ServerSnapshot, arg: unknown, action: string): Promise<boolean> => {
    const moved = servers.moves(s.id);
    const { ended, calls, atRisk } = disconnectCost(deps.tasks(), s.id, s.type, moved, deps.pendingCalls(s.id));
    if (!(ended + atRisk) || isConfirmed(arg)) return true;
    // Calls made without a task are named as such when they are all that would end.
    if ((s.type === STDIO || moved) && calls < ended) {
      const ask = ended === 1 ? vscode.l10n.t('{0} "{1}"? Its running task will be lost.', action, s.label) : vscode.l10n.t('{0} "{1}"? Its {2} running tasks will be lost.', action, s.label, formatCount(ended));
      return confirmDestructive(
        ask,
        s.type === STDIO
          ? vscode.l10n.t("The server's process ends with the connection, and a new one does not know its tasks; calls made without a task end too.")
          : vscode.l10n.t('Its configuration changed: nothing follows its tasks once it is disconnected.'),
        action,
      );
    }
    if (atRisk) {
      const n = ended + atRisk;
      const ask = n === 1 ? vscode.l10n.t('{0} "{1}"? Its running task may be lost.', action, s.label) : vscode.l10n.t('{0} "{1}"? Its {2} running tasks may be lost.', action, s.label, formatCount(n));
      const transport = s.type === 'ws' ? 'WebSocket' : 'legacy SSE';
      return confirmDestructive(ask, vscode.l10n.t('A {0} connection cannot be resumed: a server that keeps its tasks per connection forgets them when it closes, and calls made without a task end with it.', transport), action);
    }
    // Only its direct calls end: it has no live task, or its tasks outlive the connection (the Streamable HTTP session is kept).
    const ask = ended === 1 ? vscode.l10n.t('{0} "{1}"? Its running call will be lost.', action, s.label) : vscode.l10n.t('{0} "{1}"? Its {2} running calls will be lost.', action, s.label, formatCount(ended));
    // A tools/call whose CreateTaskResult has not come is no call made without a task: its task is lost, whatever the transport.
    const detail = deps.pendingCalls(s.id)
      ? vscode.l10n.t('The server has not yet answered the call that starts its task, and the answer would come on this connection.')
      : s.type === STDIO
        ? vscode.l10n.t('A call made without a task ends with its connection.')
        : vscode.l10n.t('A call made without a task ends with its connection; tasks go on.');
    return confirmDestructive(ask, detail, action);
  };

  /** The live work a disconnect ends or may lose (see `disconnectCost`): a Streamable HTTP server's tasks go on. */
  const endedWith = (s: ServerSnapshot) =>
    deps.tasks().flatMap((t) => (t.serverId === s.id && !isTerminal(t.status) && (t.kind === DIRECT || (s.type !== HTTP && s.type !== undefined) || servers.moves(s.id)) ? [t.key] : []));

  return [
    registerCommand(SHOW_LOG, () => log.show()),
    registerCommand('mcpTasks.refresh', () =>
      // The view's progress bar runs while the configuration is read and the servers list their tasks.
      inView(async () => {
        await deps.reloadConfiguration();
        const connected = servers.list().filter((s) => s.state.kind === CONNECTED);
        await Promise.all(connected.map((s) => deps.refreshTasks(s.id).catch((err: unknown) => log.warn(`[${s.label}] tasks/list failed: ${errorMessage(err)}`))));
      }),
    ),
    registerCommand('mcpTasks.connectServer', async (arg?: unknown) => {
      const s = await pickServer(arg, vscode.l10n.t('Connect Server'), vscode.l10n.t('Connect to which server?'), (x) => x.state.kind !== CONNECTED, vscode.l10n.t('Every MCP server is connected.'));
      if (s) await connect(s);
    }),
    registerCommand('mcpTasks.disconnectServer', async (arg?: unknown) => {
      const s = await pickServer(arg, vscode.l10n.t('Disconnect Server'), vscode.l10n.t('Disconnect which server?'), (x) => x.state.kind === CONNECTED || x.state.kind === CONNECTING, vscode.l10n.t('No MCP server is connected.'));
      if (s && (await mayDisconnect(s, arg, vscode.l10n.t('Disconnect')))) await deps.endByUser(endedWith(s), () => servers.disconnect(s.id));
    }),
    registerCommand('mcpTasks.restartServer', async (arg?: unknown) => {
      const s = await pickServer(arg, vscode.l10n.t('Restart Server'), vscode.l10n.t('Restart which server?'));
      if (!s || !(await mayDisconnect(s, arg, vscode.l10n.t('Restart')))) return;
      await deps.endByUser(endedWith(s), () => servers.disconnect(s.id, RESTARTED));
      await connect(s);
    }),
    registerCommand(OPEN_CONFIGURATION, async (file?: unknown, line?: number, column = 1, server?: string) => {
      const row = rowOf(file, SERVER);
      const s = row && (servers.get(row.id) ?? servers.leaving(row.id));
      if (s) {
        // A server's entry, the cursor on its name, as VS Code opens its own servers.
        if (s.source.kind === SETTINGS) return openSettings(s.name);
        return void reveal(await vscode.window.showTextDocument(vscode.Uri.file(s.source.file)), ['servers', s.name]);
      }
      if (isString(file) && file !== SETTINGS) {
        // A configuration error's row: where the error is.
        await vscode.window.showTextDocument(vscode.Uri.file(file), { selection: line ? new vscode.Range(line - 1, column - 1, line - 1, column - 1) : undefined });
        return;
      }
      const folders = vscode.workspace.workspaceFolders ?? [];
      const user = deps.userMcpJson;
      const exists = (uri: vscode.Uri) => vscode.workspace.fs.stat(uri).then(() => true, () => false);
      const files = folders.map((f) => ({ label: f.name, description: '.vscode/mcp.json', uri: ConfigurationReader.mcpJsonUri(f) }));
      // The user's mcp.json when it is read: offered once it exists, or made when there is no folder.
      if (setting('readWorkspaceMcpJson', true) && (!folders.length || (await exists(user)))) files.push({ label: vscode.l10n.t('User mcp.json'), description: user.fsPath, uri: user });
      if (file === SETTINGS || !files.length) return openSettings(server);
      const uri = files.length === 1 ? files[0].uri : (await vscode.window.showQuickPick(files, { placeHolder: vscode.l10n.t('Open which MCP configuration?'), title: vscode.l10n.t('Open MCP Configuration') }))?.uri;
      if (!uri) return;
      if (!(await exists(uri))) await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(MCP_JSON_TEMPLATE));
      await vscode.window.showTextDocument(uri);
    }),
  ];
};

/** Puts the cursor on the property name at `path` in `editor`; false when it is not there. */
const reveal = (editor: vscode.TextEditor | undefined, path: string[]): boolean => {
  const text = editor?.document.getText() ?? '';
  // A .code-workspace file holds the workspace's settings under "settings".
  const at = keyPosition(text, path) ?? keyPosition(text, ['settings', ...path]);
  if (!editor || !at) return false;
  const p = new vscode.Position(at.line - 1, at.column);
  editor.selection = new vscode.Selection(p, p);
  editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return true;
};

/** Resolves true once `event` fires with what `done` takes (and acts on), or false after `ms`. */
const soon = <T>(event: vscode.Event<T>, done: (e: T) => unknown, ms = 2000): Promise<boolean> =>
  new Promise((resolve) => {
    const end = (ok?: boolean) => (d.dispose(), clearTimeout(t), resolve(!!ok));
    const d = event((e) => done(e) && end(true));
    const t = setTimeout(end, ms);
  });

/** The path of the file each `Open …SettingsFile` command opens: the user's (of any profile), the remote machine's. */
const SETTINGS_FILE: Record<string, RegExp> = { '': /\/User\/(.+\/)?settings\.json$/, Remote: /\/Machine\/settings\.json$/ };

/**
 * The end of the path of the workspace's settings file (Open Workspace Settings (JSON)): its .code-workspace, an untitled
 * one's (untitled:<id>) <user data>/Workspaces/<id>/workspace.json, or the single folder's .vscode/settings.json; not
 * another folder's, which may be active already.
 */
const workspaceSettingsFile = (file = vscode.workspace.workspaceFile): string =>
  file?.scheme === 'untitled' ? `/Workspaces/${file.path}/workspace.json` : (file ?? vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.vscode/settings.json')).path;

/** Opens the settings that hold the `mcpTasks.servers` setting, the cursor on the server `name`'s entry, or on the setting. */
const openSettings = async (name?: string): Promise<void> => {
  const path = name === undefined ? [SERVERS_SETTING] : [SERVERS_SETTING, name];
  // The workspace's value wins over the user's; in a remote window the remote machine's setting, where
  // it has one, wins over the user's (as a whole: not merged), so it is looked in first.
  const value = vscode.workspace.getConfiguration().inspect<Record<string, unknown>>(SERVERS_SETTING)?.workspaceValue;
  const opens = (name === undefined ? value : value?.[name]) !== undefined ? ['Workspace'] : vscode.env.remoteName ? ['Remote', ''] : [''];
  // Those whose editor the extension did not learn of: gone past (the next may hold the server), then named.
  const late: string[] = [];
  for (const open of opens) {
    const ours = (e?: vscode.TextEditor, path = e?.document.uri.path ?? '') => SETTINGS_FILE[open]?.test(path) ?? path.endsWith(workspaceSettingsFile());
    // Without the workbench's revealSetting: Open Remote Settings (JSON) returns before its editor
    // opens, so that reveal (of the setting, not the server) could land after the one below.
    await executeCommand(open ? `workbench.action.open${open}SettingsFile` : 'workbench.action.openSettingsJson');
    // The extension host may learn of the editor the command opened after it returns (seconds
    // later on a slow machine, other editors active in between): that file's editor is waited for.
    // Looked at and listened for in one turn: no change is told between the two.
    if (!ours(vscode.window.activeTextEditor) && !(await soon(vscode.window.onDidChangeActiveTextEditor, ours, 15_000))) {
      late.push(`"Preferences: Open ${open || 'User'} Settings (JSON)"`);
      continue;
    }
    const editor = vscode.window.activeTextEditor;
    if (reveal(editor, path)) return;
    // The last place to look: its text may not have the setting written a moment ago yet (seen in a
    // remote window), so it is looked at again as it changes, for up to 2 s.
    if (editor && open === opens.at(-1) && (await soon(vscode.workspace.onDidChangeTextDocument, (e) => e.document === editor.document && reveal(editor, path)))) return;
  }
  // Not silence: where to look, by the editor's own commands.
  // Each case one whole sentence, its "or" too, for translators.
  const [first, second] = late;
  const key = path.at(-1)!;
  if (!first) return;
  void showWarning(
    second
      ? vscode.l10n.t('The settings file did not show in an editor within 15 s. Run {0} or {1} and look for "{2}" there.', first, second, key)
      : vscode.l10n.t('The settings file did not show in an editor within 15 s. Run {0} and look for "{1}" there.', first, key),
  );
};
