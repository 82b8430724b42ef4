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
      await waitFor(() => /settings\.json$/.test(vscode.window.activeTextEditor?.document.uri.path ?? ''), 'the user settings, where the server is configured');
    } finally {
      w.showErrorMessage = showError;
      await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
