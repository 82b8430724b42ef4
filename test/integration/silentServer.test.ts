// A server whose error says nothing (code -32603, an empty message): every place that tells the
// user, or a model, why it could not connect names the code instead of ending on a colon.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, removeSettingServers, testingApi, waitFor } from './helpers';
import type { TreeSnapshotNode } from './helpers';
import { invoke, publicApi } from './taskApiHelpers';

/** out/test/integration -> the fixture in the sources. */
const MISBEHAVE = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'stdio-misbehave.mjs');
const NO_REASON = 'the server gave no reason (error -32603)';

suite('A server that refuses to start with an empty error message', () => {
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  suiteSetup(async () => {
    await activateExtension();
    await settings().update('servers', { silent: { type: 'stdio', command: 'node', args: [MISBEHAVE, 'silent-error'] } }, vscode.ConfigurationTarget.Global);
  });

  suiteTeardown(removeSettingServers);

  test('Connect Server, the server\'s row and mcpTasks_listTools say "the server gave no reason (error -32603)", not nothing after a colon', async () => {
    const api = await publicApi();
    const testing = testingApi(await activateExtension());
    const server = await waitFor(() => api.getServers().find((s) => s.label === 'silent'), 'the server "silent"');
    const w = vscode.window as unknown as Record<string, unknown>;
    const showError = w.showErrorMessage;
    const told: string[] = [];
    // Toasts are not shown while tests run: the message is recorded, and no button is clicked.
    w.showErrorMessage = (message: string) => (told.push(message), Promise.resolve(undefined));
    try {
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: server.id });
      await waitFor(() => told.length > 0, 'the error');
      assert.equal(told[0], `Could not connect to MCP server "silent": ${NO_REASON}`);
    } finally {
      w.showErrorMessage = showError;
    }
    const row = await waitFor(async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'silent' && r.icon === 'error'), 'the row of the failed server');
    assert.equal(row.description, NO_REASON);
    // Within the second it waits, the answer is the wait's ("failed: <the reason>. It will not be tried again…"); later, the reason itself.
    const { text } = await invoke('mcpTasks_listTools', { server: 'silent' });
    assert.match(text, /^Server "silent" could not be reached: (Server "silent" failed: )?the server gave no reason \(error -32603\)/m);
  });
});
