// Cancel Task... from the palette offers only what can be cancelled: not the tasks of a server
// that does not support tasks/cancel (test/fixtures/servers/slow-task.mjs --no-cancel).
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { activateExtension, testingApi, waitFor } from './helpers';
import { QuickInputSpy } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

/** out/test/integration -> the fixture in the sources. */
const SLOW_TASK_SERVER = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'slow-task.mjs');

suite('Cancel Task from the palette', () => {
  let api: McpTasksApi;
  let spy: QuickInputSpy;
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  const started: string[] = [];

  suiteSetup(async function () {
    this.timeout(30_000);
    const testing = testingApi(await activateExtension());
    api = await publicApi();
    spy = new QuickInputSpy();
    await settings().update(
      'servers',
      { 'no-cancel': { type: 'stdio', command: 'node', args: [SLOW_TASK_SERVER, '--answer-after', '0', '--complete-after', '8000', '--no-cancel'] } },
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(async () => ((await testing.getTreeSnapshot()) as Array<{ label: string }>).some((r) => r.label === 'no-cancel'), 'the no-cancel server row');
  });

  suiteTeardown(async function () {
    this.timeout(30_000);
    spy?.dispose();
    // The task cannot be cancelled: it ends by itself.
    for (const id of started) await api.getResult(id, { waitSeconds: 20 }).catch(() => undefined);
    await cleanUp(api, started);
    await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
  });

  test('leaves out the live task of a server without tasks/cancel, and says why nothing is offered', async function () {
    this.timeout(30_000);
    const server = api.getServers().find((s) => s.label === 'no-cancel')!;
    const task = await api.runTool(server.id, 'slow', {});
    started.push(task.id);
    assert.equal(api.getTask(task.id)?.status, 'working');
    assert.ok(!api.getTasks().some((t) => t.id !== task.id && (t.status === 'working' || t.status === 'input_required')), 'no other live task');
    spy.skipShown();
    spy.messages.length = 0;
    await vscode.commands.executeCommand('mcpTasks.cancelTask');
    assert.ok(spy.messages.includes('No running task can be cancelled: their servers do not support tasks/cancel.'), JSON.stringify(spy.messages));
  });
});
