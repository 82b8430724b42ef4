// A configuration error in the Tasks view: its row leads to the place in the file; a server that
// cannot start, met by Run Tool as Task, offers its configuration as Connect Server does.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseMcpJson } from '../../src/core/config/parse';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { TasksTreeProvider } from '../../src/vscode/tree/tasksTree';
import { bareServerManager } from '../unit/helpers/servers';
import { activateExtension, testingApi, waitFor } from './helpers';
import type { TreeSnapshotNode } from './helpers';

suite('Configuration errors in the Tasks view', () => {
  suiteSetup(() => activateExtension());
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  test('the row of an error in .vscode/mcp.json opens the file with the cursor where the error is, not at the top', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-config-'));
    const file = path.join(dir, 'mcp.json');
    fs.writeFileSync(file, '{\n  "servers": {\n    "ok": { "command": "node" },\n    "bad": { "command": 42 }\n  }\n}\n');
    const parsed = parseMcpJson(fs.readFileSync(file, 'utf8'), { kind: 'workspaceFolder', folderName: 'f', folderPath: dir, file });
    const servers = bareServerManager({ logger: nullLogger });
    const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: (id) => servers.getSession(id), label: (id) => servers.label(id), tasksOutliveConnection: () => true } });
    const tree = new TasksTreeProvider(servers, engine);
    try {
      servers.setConfiguration(parsed.servers, parsed.errors);
      const row = tree.getChildren().find((n) => n.kind === 'configError');
      assert.ok(row, 'a row for the error');
      const { command } = tree.getTreeItem(row);
      assert.ok(command);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand(command.command, ...(command.arguments ?? []));
      const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === file ? vscode.window.activeTextEditor : undefined), 'the file in an editor');
      const { line, character } = editor.selection.active;
      assert.deepEqual([line + 1, character + 1], [parsed.errors[0].line, parsed.errors[0].column]);
      assert.equal(line, 3, 'the line of "bad"');
    } finally {
      tree.dispose();
      engine.dispose();
      servers.dispose();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('Open MCP Configuration on the row of a server of .vscode/mcp.json opens the file with the cursor on the server\'s name', async () => {
    const testing = testingApi(await activateExtension());
    const row = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'picky' && r.id?.startsWith('server:')), 'the picky server row');
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', { kind: 'server', id: row.id!.slice('server:'.length) });
      const editor = await waitFor(() => (/\/workspaces\/basic\/\.vscode\/mcp\.json$/.test(vscode.window.activeTextEditor?.document.uri.path ?? '') ? vscode.window.activeTextEditor : undefined), 'the mcp.json in an editor');
      const lines = editor.document.getText().split('\n');
      const line = lines.findIndex((l) => l.trim().startsWith('"picky":'));
      assert.ok(line > 0, 'picky is in the file');
      assert.deepEqual(editor.selection.active, new vscode.Position(line, lines[line].indexOf('"picky"') + 1));
      assert.ok(editor.visibleRanges.some((r) => r.contains(editor.selection.active)), 'the entry is in view');
    } finally {
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
      const row = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'typo' && r.id?.startsWith('server:')), 'the typo server row');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      // The button the user clicks, answered here (toasts are not shown while tests run).
      w.showErrorMessage = (message: string, ...items: string[]) => (told.push(`${message} | ${items.join(', ')}`), Promise.resolve(items.find((i) => i === 'Open Configuration')));
      await vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id: row.id!.slice('server:'.length) });
      await waitFor(() => told.length > 0, 'the error');
      assert.match(told[0], /^Could not connect to "typo": Could not start "mcp-tasks-no-such-command": command not found\. .* \| Show Log, Open Configuration$/);
      // Connect Server, at once (within the 1 s backoff): the user's Connect tries again, rather than answering "Restart it to try now".
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: row.id!.slice('server:'.length) });
      assert.match(told[1] ?? '', /^Could not connect to MCP server "typo": Could not start "mcp-tasks-no-such-command": command not found\. /);
      // In code-server the user's settings are the remote machine's (user-data/Machine): the local file, opened first, does not have the server.
      const has = (e?: vscode.TextEditor) => /settings\.json$/.test(e?.document.uri.path ?? '') && e!.document.getText().includes('"typo"');
      const editor = await waitFor(() => (has(vscode.window.activeTextEditor) ? vscode.window.activeTextEditor : undefined), 'the settings where the server is configured');
      // At the server's entry, the cursor on its name, not at the top of the file.
      const name = editor.document.positionAt(editor.document.getText().indexOf('"typo"') + 1);
      await waitFor(() => editor.selection.active.isEqual(name), `the cursor on "typo" (${JSON.stringify(name)}), not at ${JSON.stringify(editor.selection.active)}`);
    } finally {
      w.showErrorMessage = showError;
      await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
