// A configuration error in the Tasks view: its row leads to the place in the file; a server that
// cannot start, met by Run Tool as Task, offers its configuration as Connect Server does.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseMcpJson, parseSettingServers } from '../../src/core/config/parse';
import type { ParseResult } from '../../src/core/config/types';
import { SERVERS_SETTING, SETTINGS } from '../../src/core/config/types';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { TasksTreeProvider } from '../../src/vscode/tree/tasksTree';
import { bareServerManager } from '../unit/helpers/servers';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor, waitForEditor } from './helpers';
import type { TreeSnapshotNode } from './helpers';
import { QuickInputSpy } from './quickInputs';

suite('Configuration errors in the Tasks view', () => {
  suiteSetup(() => activateExtension());
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  /** A Tasks view of `parsed` alone (no extension behind it): the item of its first error row. */
  function errorRow(parsed: ParseResult): { item: vscode.TreeItem; dispose(): void } {
    const servers = bareServerManager({ logger: nullLogger });
    const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: (id) => servers.getSession(id), label: (id) => servers.label(id), tasksOutliveConnection: () => true } });
    const tree = new TasksTreeProvider(servers, engine);
    const dispose = () => {
      tree.dispose();
      engine.dispose();
      servers.dispose();
    };
    servers.setConfiguration(parsed.servers, parsed.errors);
    const row = tree.getChildren().find((n) => n.kind === 'configError');
    if (!row) dispose();
    assert.ok(row, 'a row for the error');
    return { item: tree.getTreeItem(row), dispose };
  }

  /**
   * Makes the extension's view of the active editor lag the editor's by `lagMs` (a slow machine),
   * `active` until then. Returns what undoes it, and each change as told late: its file, and how
   * many of the extension's listeners still listened right after (a wait that has what it waits
   * for stops listening at once; one that does not know its file waits on to its time limit).
   */
  function lateEditors(lagMs: number, active?: vscode.TextEditor): { undo: () => void; told: Array<{ path?: string; listening: number }> } {
    const w = vscode.window as unknown as Record<string, unknown>;
    const real = Object.getOwnPropertyDescriptor(w, 'activeTextEditor')!;
    const changed = w.onDidChangeActiveTextEditor as vscode.Event<vscode.TextEditor | undefined>;
    const seen: Array<{ at: number; editor?: vscode.TextEditor }> = [{ at: 0, editor: active }];
    const told: Array<{ path?: string; listening: number }> = [];
    let listening = 0;
    // Each change told lagMs late, to whoever listens then, as the active editor then says.
    const late = new vscode.EventEmitter<vscode.TextEditor | undefined>();
    const log = changed((e) => (seen.push({ at: Date.now(), editor: e }), setTimeout(() => (late.fire(e), told.push({ path: e?.document.uri.path, listening })), lagMs)));
    Object.defineProperty(w, 'activeTextEditor', { configurable: true, get: () => seen.filter((s) => s.at <= Date.now() - lagMs).at(-1)?.editor });
    w.onDidChangeActiveTextEditor = (listener: (e: vscode.TextEditor | undefined) => unknown) => {
      listening++;
      const d = late.event(listener);
      let gone = false;
      return { dispose: () => gone || ((gone = true), listening--, d.dispose()) };
    };
    const undo = () => {
      Object.defineProperty(w, 'activeTextEditor', real);
      w.onDidChangeActiveTextEditor = changed;
      log.dispose();
      late.dispose();
    };
    return { undo, told };
  }

  /** Asserts that the command stopped waiting as soon as the editor of `file` was told (`told`: see lateEditors), not at its time limit. */
  function waitedFor(told: Array<{ path?: string; listening: number }>, file: string): void {
    const at = told.find((t) => t.path === file);
    assert.ok(at, `the editor of ${file} was told (told: ${JSON.stringify(told)})`);
    assert.equal(at.listening, 0, `no wait went on once the editor of ${file} was told (told: ${JSON.stringify(told)})`);
  }

  /** Makes vscode.workspace.workspaceFile read `uri` (the harness opens a single folder); returns what undoes it. */
  function workspaceFile(uri: vscode.Uri): () => void {
    const was = Object.getOwnPropertyDescriptor(vscode.workspace, 'workspaceFile')!;
    Object.defineProperty(vscode.workspace, 'workspaceFile', { configurable: true, get: () => uri });
    return () => Object.defineProperty(vscode.workspace, 'workspaceFile', was);
  }

  test('the row of an error in .vscode/mcp.json opens the file with the cursor where the error is, not at the top', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-config-'));
    const file = path.join(dir, 'mcp.json');
    fs.writeFileSync(file, '{\n  "servers": {\n    "ok": { "command": "node" },\n    "bad": { "command": 42 }\n  }\n}\n');
    const parsed = parseMcpJson(fs.readFileSync(file, 'utf8'), { kind: 'workspaceFolder', folderName: 'f', folderPath: dir, file });
    const view = errorRow(parsed);
    try {
      const { command } = view.item;
      assert.ok(command);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
      const { line, column = 1 } = parsed.errors[0];
      assert.equal(line, 4, 'the line of "bad"');
      // The cursor may be placed a moment after the editor shows.
      await waitForEditor((e) => e.document.uri.fsPath === file && e.selection.active.isEqual(new vscode.Position(line - 1, column - 1)), `the file in an editor, the cursor at line ${line}, column ${column}`);
    } finally {
      view.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an error row says what is wrong: in a server (of .vscode/mcp.json or the setting), the label names the server and the description says only what is wrong there; outside any server, the description is the whole message', () => {
    const app = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/ws/app', file: '/ws/app/.vscode/mcp.json' } as const;
    const shown = (parsed: ParseResult) => {
      const view = errorRow(parsed);
      const { label, description, tooltip } = view.item;
      view.dispose();
      return { label, description, tooltip };
    };
    assert.deepEqual(shown(parseMcpJson('{ "servers": { "bad": { "command": 42 } } }', app)), {
      label: 'bad: configuration error',
      description: '"command" must be a string.',
      tooltip: '.vscode/mcp.json (folder "app"), server "bad": "command" must be a string.',
    });
    assert.deepEqual(shown(parseMcpJson('{ "servers": { "": { "command": "node" } } }', app)), {
      label: 'Configuration error',
      description: 'a server name must not be empty.',
      tooltip: '.vscode/mcp.json (folder "app"), server "": a server name must not be empty.',
    });
    assert.deepEqual(shown(parseSettingServers({ broken: { type: 'stdio', command: 42 } })), {
      label: 'broken: configuration error',
      description: '"command" must be a string.',
      tooltip: 'Setting "mcpTasks.servers", server "broken": "command" must be a string.',
    });
    for (const parsed of [parseMcpJson('{ "servers": [] }', app), parseSettingServers([]), parseMcpJson('{ "servers": ', app)]) {
      const { label, description, tooltip } = shown(parsed);
      assert.deepEqual([label, description], ['Configuration error', tooltip]);
      assert.equal(tooltip, parsed.errors[0].message);
    }
  });

  test('Open MCP Configuration on the row of a server of .vscode/mcp.json opens the file with the cursor on the server\'s name', async () => {
    const testing = testingApi(await activateExtension());
    const row = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'picky' && serverIdOf(r) !== undefined), 'the picky server row');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', { kind: 'server', id: serverIdOf(row)! });
      const picky = (e: vscode.TextEditor) => {
        const lines = e.document.getText().split('\n');
        const line = lines.findIndex((l) => l.trim().startsWith('"picky":'));
        return line > 0 ? new vscode.Position(line, lines[line].indexOf('"picky"') + 1) : undefined;
      };
      // The cursor (and the scroll to it) may come a moment after the editor shows.
      const editor = await waitForEditor((e) => /\/workspaces\/basic\/\.vscode\/mcp\.json$/.test(e.document.uri.path) && !!picky(e) && e.selection.active.isEqual(picky(e)!), 'the mcp.json in an editor, the cursor on "picky" (after its quote)');
      await waitFor(() => editor.visibleRanges.some((r) => r.contains(editor.selection.active)), 'the entry in view');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test("a configuration error's notification shows the server's name as text: a name like [Open](command:…) (a cloned repository's mcp.json names its servers) makes no link", async () => {
    const spy = new QuickInputSpy();
    await settings().update('servers', { '[Open](command:workbench.action.openSettings)': { type: 'stdio', command: 42 } }, vscode.ConfigurationTarget.Global);
    try {
      const told = await waitFor(() => spy.messages.find((m) => m.includes('"command" must be a string')), 'the warning of the error');
      assert.equal(told, 'Setting "mcpTasks.servers", server "[Open] (command:workbench.action.openSettings)": "command" must be a string.');
    } finally {
      spy.dispose();
      await removeSettingServers();
    }
  });

  test('the row of an invalid server of the mcpTasks.servers setting opens the settings that hold it (the remote machine\'s in code-server), the cursor on its name', async () => {
    await settings().update('servers', { broken: { type: 'stdio', command: 42 } }, vscode.ConfigurationTarget.Global);
    const parsed = parseSettingServers(vscode.workspace.getConfiguration().get(SERVERS_SETTING));
    const view = errorRow(parsed);
    try {
      const { command, label, description, tooltip } = view.item;
      assert.equal(label, 'broken: configuration error');
      // The label names the server: the description says what is wrong, not where again (cut off in a narrow view).
      assert.equal(description, '"command" must be a string.');
      assert.equal(tooltip, 'Setting "mcpTasks.servers", server "broken": "command" must be a string.');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand(command!.command, ...(command!.arguments ?? []));
      // In code-server the user's settings are the remote machine's: the local settings.json does not have the server.
      const has = (e?: vscode.TextEditor) => /settings\.json$/.test(e?.document.uri.path ?? '') && e!.document.getText().includes('"broken"');
      const editor = await waitFor(() => (has(vscode.window.activeTextEditor) ? vscode.window.activeTextEditor : undefined), 'the settings where the server is configured');
      const name = editor.document.positionAt(editor.document.getText().indexOf('"broken"') + 1);
      await waitFor(() => editor.selection.active.isEqual(name), `the cursor on "broken" (${JSON.stringify(name)}), not at ${JSON.stringify(editor.selection.active)}`);
    } finally {
      view.dispose();
      await removeSettingServers();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Open MCP Configuration waits for the settings file\'s own editor, however late the extension host learns of it (a slow machine): the cursor lands on the server\'s name, not at the top', async function () {
    this.timeout(60_000);
    await settings().update('servers', { late: { type: 'stdio', command: 42 } }, vscode.ConfigurationTarget.Global);
    const view = errorRow(parseSettingServers(vscode.workspace.getConfiguration().get(SERVERS_SETTING)));
    // The extension's view of the active editor lags the editor's by 3 s (more than the 2 s it once waited at most).
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const { undo, told } = lateEditors(3000);
      try {
        const { command } = view.item;
        await vscode.commands.executeCommand(command!.command, ...(command!.arguments ?? []));
      } finally {
        undo();
      }
      // The command returns once it has put the cursor there.
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor && /settings\.json$/.test(editor.document.uri.path) && editor.document.getText().includes('"late"'), `the settings that hold the server, not ${editor?.document.uri.path}`);
      // As soon as it shows, not at a time limit.
      waitedFor(told, editor.document.uri.path);
      const name = editor.document.positionAt(editor.document.getText().indexOf('"late"') + 1);
      assert.ok(editor.selection.active.isEqual(name), `the cursor on "late" (${JSON.stringify(name)}), not at ${JSON.stringify(editor.selection.active)}`);
    } finally {
      view.dispose();
      await removeSettingServers();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  /**
   * Runs Open MCP Configuration on server `name`, kept in the workspace's settings, the extension
   * learning of each editor `lagMs` late (`active` shown before). `workspace` stands in for a workspace
   * the harness cannot open (it opens a single folder): the file Open Workspace Settings (JSON) opens
   * (written with the server), and what vscode.workspace.workspaceFile reads. Asserts that the cursor
   * lands on the name in that file (else in the folder's .vscode/settings.json), and that the command
   * stopped waiting as soon as that file's editor was told.
   */
  async function openWorkspaceServer(name: string, lagMs: number, workspace?: { file: string; uri: vscode.Uri; folders: string[] }, active?: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const workspaceSettings = path.join(folder, '.vscode', 'settings.json');
    const had = fs.existsSync(workspaceSettings);
    const servers = { [name]: { type: 'stdio', command: 42 } };
    // The workspace's value names the server, so the command opens the workspace's settings file.
    await settings().update('servers', servers, vscode.ConfigurationTarget.Workspace);
    const commands = vscode.commands as { executeCommand: typeof vscode.commands.executeCommand };
    const original = commands.executeCommand;
    const execute = original.bind(vscode.commands);
    let unfake = () => {};
    if (workspace) {
      fs.mkdirSync(path.dirname(workspace.file), { recursive: true });
      fs.writeFileSync(workspace.file, JSON.stringify({ folders: [folder, ...workspace.folders].map((f) => ({ path: f })), settings: { [SERVERS_SETTING]: servers } }, null, '\t'));
      commands.executeCommand = (async (id: string, ...args: unknown[]) =>
        id === 'workbench.action.openWorkspaceSettingsFile' ? void (await vscode.window.showTextDocument(vscode.Uri.file(workspace.file))) : execute(id, ...args)) as typeof original;
      unfake = workspaceFile(workspace.uri);
    }
    const view = errorRow(parseSettingServers(servers));
    try {
      await execute('workbench.action.closeAllEditors');
      const shown = active === undefined ? undefined : await vscode.window.showTextDocument(vscode.Uri.file(active));
      const { undo, told } = lateEditors(lagMs, shown);
      try {
        const { command } = view.item;
        await execute(command!.command, ...(command!.arguments ?? []));
      } finally {
        undo();
      }
      const file = workspace?.file ?? workspaceSettings;
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor && editor.document.uri.fsPath === file, `${file}, not ${editor?.document.uri.path}`);
      const at = editor.document.positionAt(editor.document.getText().indexOf(`"${name}"`) + 1);
      assert.ok(editor.selection.active.isEqual(at), `the cursor on "${name}" (${JSON.stringify(at)}), not at ${JSON.stringify(editor.selection.active)} (told: ${JSON.stringify(told)})`);
      waitedFor(told, editor.document.uri.path);
    } finally {
      commands.executeCommand = original;
      unfake();
      view.dispose();
      await settings().update('servers', undefined, vscode.ConfigurationTarget.Workspace);
      if (!had) fs.rmSync(workspaceSettings, { force: true });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  }

  test('Open MCP Configuration that never learns of the settings file\'s editor gives up after 15 s saying so, and how to open the file and find the server (code-server is a remote window: the user\'s or the remote machine\'s settings)', async function () {
    this.timeout(60_000);
    const w = vscode.window as unknown as Record<string, unknown>;
    const active = Object.getOwnPropertyDescriptor(w, 'activeTextEditor')!;
    const changed = w.onDidChangeActiveTextEditor;
    const spy = new QuickInputSpy();
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      // The extension never learns of an editor: none is active, no change is told.
      Object.defineProperty(w, 'activeTextEditor', { configurable: true, get: () => undefined });
      w.onDidChangeActiveTextEditor = () => ({ dispose: () => {} });
      try {
        await vscode.commands.executeCommand('mcpTasks.openConfiguration', SETTINGS, undefined, undefined, 'never');
      } finally {
        Object.defineProperty(w, 'activeTextEditor', active);
        w.onDidChangeActiveTextEditor = changed;
      }
      assert.ok(vscode.env.remoteName, 'a remote window');
      assert.deepEqual(spy.messages, ['The settings file did not show in an editor within 15 s. Run "Preferences: Open Remote Settings (JSON)" or "Preferences: Open User Settings (JSON)" and look for "never" there.']);
      assert.deepEqual(spy.messageItems, [[]]);
    } finally {
      spy.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Open MCP Configuration in a remote window whose remote machine\'s settings file never shows in an editor the extension learns of goes on, after 15 s, to the user\'s, where the server is: the cursor on its name, nothing said', async function () {
    this.timeout(60_000);
    const w = vscode.window as unknown as Record<string, unknown>;
    const active = Object.getOwnPropertyDescriptor(w, 'activeTextEditor')!;
    const changed = w.onDidChangeActiveTextEditor as vscode.Event<vscode.TextEditor | undefined>;
    // The remote machine's file (code-server keeps it under Machine/): hidden from the extension.
    const remote = (e?: vscode.TextEditor) => /\/Machine\/settings\.json$/.test(e?.document.uri.path ?? '');
    const current = (): vscode.TextEditor | undefined => (active.get ? active.get.call(w) : active.value);
    const spy = new QuickInputSpy();
    // The user's own file (Global is the remote machine's settings in code-server, see the typo test below).
    const file = path.join(process.env.MCP_TASKS_USER_DATA_DIR ?? '', 'User', 'settings.json');
    const before = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(before), [SERVERS_SETTING]: { late: { type: 'stdio', command: 'mcp-tasks-no-such-command' } } }));
    try {
      assert.ok(vscode.env.remoteName, 'a remote window');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      Object.defineProperty(w, 'activeTextEditor', { configurable: true, get: () => (remote(current()) ? undefined : current()) });
      w.onDidChangeActiveTextEditor = (listener: (e: vscode.TextEditor | undefined) => unknown, thisArg?: unknown, disposables?: vscode.Disposable[]) =>
        changed((e) => remote(e) || listener.call(thisArg, e), undefined, disposables);
      try {
        await vscode.commands.executeCommand('mcpTasks.openConfiguration', SETTINGS, undefined, undefined, 'late');
      } finally {
        Object.defineProperty(w, 'activeTextEditor', active);
        w.onDidChangeActiveTextEditor = changed;
      }
      const e = vscode.window.activeTextEditor;
      assert.match(e?.document.uri.path ?? '', /\/User\/settings\.json$/);
      assert.deepEqual(e!.selection.active, e!.document.positionAt(e!.document.getText().indexOf('"late"') + 1));
      assert.deepEqual(spy.messages, []);
    } finally {
      spy.dispose();
      fs.writeFileSync(file, before);
      await vscode.commands.executeCommand('mcpTasks.refresh');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Open MCP Configuration in a remote window, on a server only the user\'s settings name (the remote machine\'s have no mcpTasks.servers), goes on from the remote machine\'s file to the user\'s at once: the cursor on its name', async function () {
    this.timeout(60_000);
    assert.ok(vscode.env.remoteName, 'a remote window');
    const file = path.join(process.env.MCP_TASKS_USER_DATA_DIR ?? '', 'User', 'settings.json');
    const before = fs.readFileSync(file, 'utf8');
    await removeSettingServers();
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(before), [SERVERS_SETTING]: { mine: { type: 'stdio', command: 'mcp-tasks-users-only' } } }));
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const started = Date.now();
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', SETTINGS, undefined, undefined, 'mine');
      const e = vscode.window.activeTextEditor;
      assert.match(e?.document.uri.path ?? '', /\/User\/settings\.json$/);
      assert.deepEqual(e!.selection.active, e!.document.positionAt(e!.document.getText().indexOf('"mine"') + 1));
      assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms: not the 15 s wait`);
    } finally {
      fs.writeFileSync(file, before);
      await vscode.commands.executeCommand('mcpTasks.refresh');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Open MCP Configuration in a remote window, on a server that both the user\'s and the remote machine\'s settings name, opens the remote machine\'s: the entry that takes effect (its setting overrides the user\'s)', async function () {
    this.timeout(60_000);
    assert.ok(vscode.env.remoteName, 'a remote window');
    // The user's own file (code-server keeps the remote machine's, Global here, under Machine/).
    const file = path.join(process.env.MCP_TASKS_USER_DATA_DIR ?? '', 'User', 'settings.json');
    const before = fs.readFileSync(file, 'utf8');
    const both = (command: string) => ({ both: { type: 'stdio', command } });
    fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(before), [SERVERS_SETTING]: both('mcp-tasks-users') }));
    await settings().update('servers', both('mcp-tasks-remote-machines'), vscode.ConfigurationTarget.Global);
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      assert.deepEqual(settings().get('servers'), both('mcp-tasks-remote-machines'));
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', SETTINGS, undefined, undefined, 'both');
      const e = await waitForEditor((e) => /settings\.json$/.test(e.document.uri.path), 'a settings file');
      assert.match(e.document.uri.path, /\/Machine\/settings\.json$/);
      assert.deepEqual(e.selection.active, e.document.positionAt(e.document.getText().indexOf('"both"') + 1));
    } finally {
      fs.writeFileSync(file, before);
      await removeSettingServers();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Open MCP Configuration on a server of an untitled workspace\'s settings (a folder added, the workspace not saved) puts the cursor on its name at once: the file the command opens, …/Workspaces/<id>/workspace.json, is its settings file, not waited past for 15 s', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-untitled-'));
    try {
      // In an untitled workspace, the editor's own workspace.json in its user data's Workspaces folder;
      // the extension's name for that workspace is untitled:<id>. It learns of the editor 1 s late, so that the command waits for it.
      const file = path.join(dir, 'User', 'Workspaces', '1765000000000', 'workspace.json');
      await openWorkspaceServer('untitled', 1000, { file, uri: vscode.Uri.from({ scheme: 'untitled', path: '1765000000000' }), folders: [] });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Open MCP Configuration on a server of the single folder\'s workspace settings waits for its .vscode/settings.json, however late the extension host learns of it, and no longer: the cursor lands on the server\'s name', async function () {
    this.timeout(60_000);
    await openWorkspaceServer('folder', 3000);
  });

  test('Open MCP Configuration on a server of a multi-root workspace\'s settings, another folder\'s .vscode/settings.json active, waits for the .code-workspace\'s own editor however late the extension host learns of it: the cursor lands on the server\'s name there', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-multi-'));
    try {
      const file = path.join(dir, 'multi.code-workspace');
      const other = path.join(dir, 'other', '.vscode', 'settings.json');
      fs.mkdirSync(path.dirname(other), { recursive: true });
      fs.writeFileSync(other, '{}\n');
      // The extension's view of the active editor lags the editor's by 3 s: the other folder's settings stay active that long.
      await openWorkspaceServer('multi', 3000, { file, uri: vscode.Uri.file(file), folders: [path.dirname(path.dirname(other))] }, other);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a broken .vscode/mcp.json is notified once (the error, Open Configuration at it, Show Log), not again when read again or as the error moves; fixed and broken again, once more; while it is open in an editor, not again until it is valid (auto save saves each state typed through); several errors in it, one warning with the count', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    const w = vscode.window as unknown as Record<string, unknown>;
    const showWarning = w.showWarningMessage;
    const warned: Array<{ message: string; items: string[] }> = [];
    let answer: string | undefined;
    const mine = () => warned.filter((m) => m.message.includes('mcp.json'));
    const errorRows = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).filter((r) => /configuration error$/i.test(r.label));
    // A colon missing on line 4 (column 12), or line 5 with a blank line before it.
    const broken = (blank = '') => original.replace('"servers": {', `"servers": {\n${blank}    "oops" {},`);
    // The file read as it is first: its servers stay when it breaks.
    await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).some((r) => r.label === 'picky'), 'the servers of the file');
    try {
      w.showWarningMessage = (message: string, ...items: string[]) => (warned.push({ message, items }), Promise.resolve(answer));
      fs.writeFileSync(file, broken());
      await waitFor(async () => (await errorRows()).some((r) => r.description?.includes('line 4, column 12')), 'the error row');
      assert.deepEqual(mine(), [
        {
          message: '.vscode/mcp.json (folder "basic"), line 4, column 12: a colon (:) is expected. Its servers stay as they were until it can be read.',
          items: ['Open Configuration', 'Show Log'],
        },
      ]);
      // Read again (Refresh, the same text saved), then the error moved as the user types: no second warning.
      await vscode.commands.executeCommand('mcpTasks.refresh');
      fs.writeFileSync(file, broken());
      fs.writeFileSync(file, broken('\n'));
      await waitFor(async () => (await errorRows()).some((r) => r.description?.includes('line 5, column 12')), 'the error row of the moved error');
      await vscode.commands.executeCommand('mcpTasks.refresh');
      assert.equal(mine().length, 1, JSON.stringify(warned));
      // Fixed: nothing to say. Broken again the same way: said again, and its Open Configuration goes to the error.
      fs.writeFileSync(file, original);
      await waitFor(async () => (await errorRows()).length === 0, 'no error row');
      assert.equal(mine().length, 1, JSON.stringify(warned));
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      answer = 'Open Configuration';
      fs.writeFileSync(file, broken());
      await waitFor(() => mine().length === 2, 'the second warning');
      answer = undefined;
      const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined), 'the file in an editor');
      await waitFor(() => editor.selection.active.isEqual(new vscode.Position(3, 11)), `the cursor at the error (line 4, column 12), not at ${JSON.stringify(editor.selection.active)}`);
      // Open in an editor, the file is being typed into (auto save saves each state): its new problems are not told until it is valid again.
      const twoBad = original.replace('"servers": {', '"servers": {\n    "bad1": { "command": 1 },\n    "bad2": {},');
      fs.writeFileSync(file, twoBad);
      await waitFor(async () => (await errorRows()).length === 2, 'two error rows');
      assert.equal(mine().length, 2, `no warning while the file is in an editor: ${JSON.stringify(warned)}`);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.writeFileSync(file, original);
      await waitFor(async () => (await errorRows()).length === 0, 'no error row');
      // Two invalid servers: one warning for the file, with the count.
      fs.writeFileSync(file, twoBad);
      await waitFor(async () => (await errorRows()).length === 2, 'two error rows');
      assert.equal(mine().length, 3, JSON.stringify(warned));
      // The file named once, as every message about it names it.
      assert.equal(mine()[2].message, '.vscode/mcp.json (folder "basic") has 2 errors (see the MCP Tasks view). The first: server "bad1": "command" must be a string.');
    } finally {
      w.showWarningMessage = showWarning;
      fs.writeFileSync(file, original);
      await vscode.commands.executeCommand('mcpTasks.refresh');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('Run Tool as Task on a server whose command is not found says so and offers Open Configuration, which opens where the server is configured', async function () {
    this.timeout(30_000);
    const testing = testingApi(await activateExtension());
    const w = vscode.window as unknown as Record<string, unknown>;
    const showError = w.showErrorMessage;
    const told: string[] = [];
    await settings().update('servers', { typo: { type: 'stdio', command: 'mcp-tasks-no-such-command' } }, vscode.ConfigurationTarget.Global);
    try {
      const row = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'typo' && serverIdOf(r) !== undefined), 'the typo server row');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      // The button the user clicks, answered here (toasts are not shown while tests run).
      w.showErrorMessage = (message: string, ...items: string[]) => (told.push(`${message} | ${items.join(', ')}`), Promise.resolve(items.find((i) => i === 'Open Configuration')));
      await vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id: serverIdOf(row)! });
      await waitFor(() => told.length > 0, 'the error');
      // Said as Connect Server says it (below): one wording for a failed connection.
      assert.match(told[0], /^Could not connect to MCP server "typo": Could not start "mcp-tasks-no-such-command": command not found\. .* \| Show Log, Open Configuration$/);
      // Connect Server, at once (within the 1 s backoff): the user's Connect tries again, rather than answering "Restart it to try now".
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: serverIdOf(row)! });
      assert.match(told[1] ?? '', /^Could not connect to MCP server "typo": Could not start "mcp-tasks-no-such-command": command not found\. /);
      // Failed, its row offers Connect alone (package.json's menus read the contextValue): Restart Server would do the same.
      const failed = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.id === row.id && r.icon === 'error'), 'the typo row to read failed');
      assert.equal(failed.contextValue, 'server connectable');
      // Global is the remote machine's settings in code-server (user-data/Machine), the file opened first.
      const has = (e?: vscode.TextEditor) => /settings\.json$/.test(e?.document.uri.path ?? '') && e!.document.getText().includes('"typo"');
      // At the server's entry, the cursor on its name, not at the top of the file.
      const name = (e: vscode.TextEditor) => e.document.positionAt(e.document.getText().indexOf('"typo"') + 1);
      await waitForEditor((e) => has(e) && e.selection.active.isEqual(name(e)), 'the settings where the server is configured, the cursor on "typo" (after its quote)');
    } finally {
      w.showErrorMessage = showError;
      await removeSettingServers();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
