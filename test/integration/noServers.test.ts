// A window with no MCP server configured: the commands that pick a server say so and offer the
// configuration, as Run Tool as Task does, so a first-time user is led to configure one.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { waitFor } from './helpers';
import { QuickInputSpy } from './quickInputs';
import { publicApi } from './taskApiHelpers';

suite('No server configured', () => {
  test('Connect, Disconnect and Restart Server say none is configured and offer Open MCP Configuration', async function () {
    this.timeout(60_000);
    const api = await publicApi();
    const config = vscode.workspace.getConfiguration('mcpTasks');
    const spy = new QuickInputSpy();
    try {
      // The test workspace's servers are in its mcp.json: not read, there is none.
      await config.update('readWorkspaceMcpJson', false, vscode.ConfigurationTarget.Global);
      await waitFor(() => api.getServers().length === 0, 'no server to be configured');
      for (const command of ['mcpTasks.connectServer', 'mcpTasks.disconnectServer', 'mcpTasks.restartServer']) {
        const at = spy.messages.length;
        // Not awaited: the notification waits for its button.
        void vscode.commands.executeCommand(command);
        await waitFor(() => spy.messages.length > at, `${command} to say something`);
        assert.equal(spy.messages[at], 'No MCP server is configured.', command);
        assert.deepEqual(spy.messageItems[at], ['Open MCP Configuration'], command);
      }
    } finally {
      spy.dispose();
      await config.update('readWorkspaceMcpJson', undefined, vscode.ConfigurationTarget.Global);
      await waitFor(() => api.getServers().length > 0, 'the servers of the test workspace again');
    }
  });
});
