// Runs inside a real extension host (code-server here, @vscode/test-electron elsewhere) with the
// workspace test/fixtures/workspaces/basic open.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from './helpers';
import { COMMAND_IDS, activateExtension, findNode, getExtension, removeSettingServers, testingApi, waitFor } from './helpers';
import { publicApi } from './taskApiHelpers';

suite('MCP Tasks in the editor', () => {
  let api: McpTasksApi;

  suiteSetup(async () => {
    api = await activateExtension();
  });

  test('the extension loads and activates with API version 1', () => {
    const ext = getExtension();
    assert.equal(ext.isActive, true);
    assert.equal(api.apiVersion, 1);
  });

  test('every command is registered', async () => {
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = COMMAND_IDS.filter((id) => !registered.has(id));
    assert.deepEqual(missing, [], `commands not registered: ${missing.join(', ')}`);
  });

  test('every command is contributed in the "MCP Tasks" category', () => {
    const contributed: Array<{ command: string; category?: string }> = getExtension().packageJSON.contributes?.commands ?? [];
    for (const id of COMMAND_IDS) {
      const entry = contributed.find((c) => c.command === id);
      assert.ok(entry, `${id} is missing from contributes.commands`);
      assert.equal(entry.category, 'MCP Tasks', `${id} category`);
    }
  });

  test('Restart shows inline on rows of connected (or connecting) servers, as Disconnect does (a failed one has Connect, which tries at once)', () => {
    type Entry = { command: string; when?: string; group?: string };
    const items: Entry[] = getExtension().packageJSON.contributes?.menus?.['view/item/context'] ?? [];
    const inline = (command: string) => items.find((i) => i.command === command && i.group?.startsWith('inline'))?.when;
    assert.match(inline('mcpTasks.disconnectServer') ?? '', /viewItem =~ \/\\bdisconnectable\\b\//);
    assert.match(inline('mcpTasks.restartServer') ?? '', /viewItem =~ \/\\bdisconnectable\\b\//);
  });

  test('the MCP Tasks view container and its Tasks view open', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.mcpTasks');
    // `<viewId>.focus` exists only for a contributed view, and resolving it renders the tree.
    await vscode.commands.executeCommand('mcpTasks.tasks.focus');
  });

  test('the tree lists the server from .vscode/mcp.json, not yet connected', async () => {
    const testing = testingApi(api);
    await testing.whenConfigurationLoaded?.();
    const row = await waitFor(
      async () => findNode(await testing.getTreeSnapshot(), (n) => n.label === 'everything'),
      'a tree row labelled "everything"',
    );
    // Servers are connected lazily (when a task needs them), so nothing starts it on its own. The
    // suites that run before this one connect it and disconnect it again: then it reads "disconnected".
    const byUser = (row.tooltip ?? '').includes('it stays so until you connect it');
    assert.equal(row.description, byUser ? 'disconnected' : 'not connected', 'a server row shows its state in the description');
    assert.match(row.contextValue ?? '', /\bconnectable\b/, 'an idle server row offers Connect');
  });

  test('a server in error reads its message alone beside the error icon; its tooltip and accessible label say it is an error', async function () {
    this.timeout(30_000);
    const testing = testingApi(api);
    const tasksApi = await publicApi();
    const settings = vscode.workspace.getConfiguration('mcpTasks');
    await settings.update('servers', { broken: { type: 'stdio', command: 'mcp-tasks-no-such-command' } }, vscode.ConfigurationTarget.Global);
    try {
      const server = await waitFor(async () => tasksApi.getServers().find((s) => s.label === 'broken'), 'the server "broken"');
      await assert.rejects(tasksApi.getTools(server.id));
      const message = tasksApi.getServers().find((s) => s.id === server.id)?.stateMessage ?? '';
      assert.ok(message, 'the server is in error, with a message');
      const row = await waitFor(async () => findNode(await testing.getTreeSnapshot(), (n) => n.label === 'broken' && n.icon === 'error'), 'the row of "broken" in error');
      assert.equal(row.description, message, 'the message alone, not "error: …"');
      assert.match(row.tooltip ?? '', /State: error\\: /);
      assert.equal(row.accessibility, `Server broken, error: ${message}`);
    } finally {
      await removeSettingServers();
    }
  });

  test('a remote server in error: its row reads the reason without its name and url ("connection refused…"), as its tooltip and notifications name them once', async function () {
    this.timeout(30_000);
    const testing = testingApi(api);
    const tasksApi = await publicApi();
    const settings = vscode.workspace.getConfiguration('mcpTasks');
    // Port 1: nothing listens there, so the connection is refused at once.
    await settings.update('servers', { refused: { type: 'http', url: 'http://127.0.0.1:1/mcp' } }, vscode.ConfigurationTarget.Global);
    try {
      const server = await waitFor(async () => tasksApi.getServers().find((s) => s.label === 'refused'), 'the server "refused"');
      await assert.rejects(tasksApi.getTools(server.id));
      assert.match(tasksApi.getServers().find((s) => s.id === server.id)?.stateMessage ?? '', /^Could not reach server "refused" at http:\/\/127\.0\.0\.1:1\/mcp: /);
      const row = await waitFor(async () => findNode(await testing.getTreeSnapshot(), (n) => n.label === 'refused' && n.icon === 'error'), 'the row of "refused" in error');
      assert.equal(row.description, 'connection refused (ECONNREFUSED): is the server running?');
      assert.match(row.tooltip ?? '', /State: error at http.*1.*mcp.*connection refused/, 'the tooltip names the url');
    } finally {
      await removeSettingServers();
    }
  });

  test('removing the whole .vscode folder (rm -rf) removes its servers; putting it back brings them back', async function () {
    this.timeout(60_000);
    const testing = testingApi(api);
    const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const dotVscode = path.join(folder, '.vscode');
    const kept = new Map(fs.readdirSync(dotVscode).map((name) => [name, fs.readFileSync(path.join(dotVscode, name))]));
    const everything = async () => findNode(await testing.getTreeSnapshot(), (n) => n.label === 'everything');
    await waitFor(everything, 'the row of "everything"');
    try {
      fs.rmSync(dotVscode, { recursive: true });
      await waitFor(async () => !(await everything()), 'the row of "everything" to go with its folder', 20_000);
    } finally {
      fs.mkdirSync(dotVscode, { recursive: true });
      for (const [name, data] of kept) fs.writeFileSync(path.join(dotVscode, name), data);
    }
    await waitFor(everything, 'the row of "everything" back with its folder', 20_000);
  });
});

