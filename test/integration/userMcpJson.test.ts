// The user's own mcp.json (VS Code's "MCP: Open User Configuration"), in the user data folder that
// the runner passes (scripts/editor/run-integration.mjs), not where the extension derives it from.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, findNode, serverIdOf, testingApi, waitFor, waitForEditor } from './helpers';
import type { TreeSnapshotNode } from './helpers';
import { QuickInputSpy, choose } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

/** out/test/integration -> the demo server in the sources. */
const DEMO = path.resolve(__dirname, '..', '..', '..', 'demo', 'server.mjs');

suite('The user\'s mcp.json', () => {
  test('its server shows in the Tasks view next to the workspace\'s same-named one and runs a tool as a task; an edit saved half-way keeps it, the next adds a server; Open Configuration opens the file; when the file goes, so does the server', async function () {
    this.timeout(60_000);
    const dataDir = process.env.MCP_TASKS_USER_DATA_DIR;
    assert.ok(dataDir, 'the runner names the user data folder in MCP_TASKS_USER_DATA_DIR');
    const file = path.join(dataDir, 'User', 'mcp.json');
    assert.ok(!fs.existsSync(file), `no ${file} before the test`);
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const rows = async () => (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
    const started: string[] = [];
    try {
      // Written as VS Code writes it, comments allowed; "demo" is also a server of the workspace.
      fs.writeFileSync(file, `// MCP servers of every window\n{ "servers": { "demo": ${JSON.stringify({ type: 'stdio', command: 'node', args: [DEMO, 'stdio', '--quiet'] })} } }\n`);
      const row = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === 'user:demo'), 'the row of the user mcp.json\'s demo server');
      assert.equal(row.label, 'demo (user)');
      // The hover says where it is configured (Markdown source: its punctuation escaped).
      assert.ok((row.tooltip ?? '').replace(/\\(.)/g, '$1').includes(`Source: ${file}`), row.tooltip);
      const workspaceDemo = (await rows()).find((r) => r.label === 'demo (basic)');
      assert.ok(workspaceDemo && serverIdOf(workspaceDemo)?.startsWith('folder:'), 'the workspace\'s demo server stays a server of its own');

      const task = await api.runTool('user:demo', 'quick-echo', { arguments: { message: 'from the user mcp.json' } });
      started.push(task.id);
      const done = await api.getResult(task.id, { waitSeconds: 30 });
      assert.equal(done.task.status, 'completed', done.task.note);
      assert.match(JSON.stringify(done.outcome), /from the user mcp\.json/);
      await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === 'user:demo')?.children?.some((t) => t.icon === 'pass'), 'the task\'s row under the server, completed');

      // Saved in the middle of an edit: an error row names the file, and its server stays; saved
      // again with one more server, both are there.
      const server = (args: string[]) => JSON.stringify({ type: 'stdio', command: 'node', args: [DEMO, 'stdio', '--quiet', ...args] });
      fs.writeFileSync(file, `{ "servers": { "demo": ${server([])}, "second": `);
      const error = await waitFor(async () => findNode(await rows(), (r) => /^User mcp\.json, line \d+, column \d+: /.test(r.tooltip ?? '')), 'the error row of the user mcp.json');
      assert.match(error.tooltip ?? '', /Its servers stay as they were until it can be read\.$/);
      assert.ok((await rows()).some((r) => serverIdOf(r) === 'user:demo'), 'its server stays');
      fs.writeFileSync(file, `{ "servers": { "demo": ${server([])}, "second": ${server(['--poll-interval', '300'])} } }`);
      await waitFor(async () => (await rows()).some((r) => serverIdOf(r) === 'user:second'), 'the second server of the edited file');
      assert.ok(!findNode(await rows(), (r) => (r.tooltip ?? '').startsWith('User mcp.json')), 'no error row left');

      // Open Configuration: from the server's row, the file at its name; from the palette, a pick
      // of the workspace's mcp.json and the user's (once it exists).
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', { kind: 'server', id: 'user:demo' });
      // The cursor may be placed a moment after the editor shows.
      await waitForEditor((e) => {
        const at = e.selection.active;
        return e.document.uri.fsPath === file && e.document.lineAt(at.line).text.slice(at.character - 1, at.character + 5) === '"demo"';
      }, 'the user mcp.json in an editor, the cursor on the server\'s name "demo" (after its quote)');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const spy = new QuickInputSpy();
      try {
        const command = vscode.commands.executeCommand('mcpTasks.openConfiguration');
        const pick = await spy.next('the pick of configuration files');
        assert.deepEqual(pick.items.map((i) => [i.label, i.description]), [['basic', '.vscode/mcp.json'], ['User mcp.json', file]]);
        await choose(pick, (i) => i.label === 'User mcp.json', 'the user mcp.json');
        await command;
      } finally {
        spy.dispose();
      }
      await waitForEditor((e) => e.document.uri.fsPath === file, 'the user mcp.json in an editor');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    } finally {
      await cleanUp(api, started);
      fs.rmSync(file, { force: true });
    }
    await waitFor(async () => !(await rows()).some((r) => serverIdOf(r) === 'user:demo'), 'the server to go with the file');
    assert.ok((await rows()).some((r) => r.label === 'demo'), 'the workspace\'s demo server is "demo" again');
  });
});
