// What a connected server's row says it supports, in words, for the three kinds of server: one
// that runs tools as tasks, one that declares tasks (list, cancel) but not task-augmented
// tools/call (T-TOOL-1: none of its tools is run as a task), and one without tasks at all. The
// tooltip keeps what the server declared. Servers: test/fixtures/servers/slow-task.mjs
// (--no-tool-tasks) and schema-server.mjs, through the mcpTasks.servers setting.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { McpTasksTestingApi, TreeSnapshotNode as Row } from './helpers';

/** out/test/integration -> the fixtures in the sources. */
const fixture = (name: string) => path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', name);
const SLOW_TASK = fixture('slow-task.mjs');

suite('A server row says what the server supports', () => {
  let testing: McpTasksTestingApi;
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  const SERVERS = {
    'tool-tasks': { type: 'stdio', command: 'node', args: [SLOW_TASK] },
    'list-only': { type: 'stdio', command: 'node', args: [SLOW_TASK, '--no-tool-tasks'] },
    'no-tasks': { type: 'stdio', command: 'node', args: [fixture('schema-server.mjs')] },
  };
  const row = async (label: string) => ((await testing.getTreeSnapshot()) as Row[]).find((r) => r.label === label && serverIdOf(r) !== undefined);

  suiteSetup(async function () {
    this.timeout(30_000);
    testing = testingApi(await activateExtension());
    await settings().update('servers', SERVERS, vscode.ConfigurationTarget.Global);
    await waitFor(async () => (await Promise.all(Object.keys(SERVERS).map(row))).every(Boolean), 'the fixture server rows');
  });

  suiteTeardown(async () => {
    await removeSettingServers();
  });

  test('T-TOOL-1: "runs tools as tasks", "runs no tools as tasks" (tasks: list, cancel, no tools/call) or "no task support"; the tooltip names what was declared', async function () {
    this.timeout(30_000);
    const seen: Record<string, [string | undefined, string | undefined]> = {};
    for (const label of Object.keys(SERVERS)) {
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: serverIdOf((await row(label))!) });
      const r = await waitFor(async () => {
        const r = await row(label);
        return r?.description?.startsWith('connected') ? r : undefined;
      }, `${label} to connect`);
      // (Markdown: its escapes aside.)
      seen[label] = [r.description, /State: (.*)/.exec((r.tooltip ?? '').replace(/\\/g, ''))?.[1]];
    }
    assert.deepEqual(seen, {
      'tool-tasks': ['connected · runs tools as tasks', 'connected · runs tools as tasks (tasks: tools/call, list, cancel)'],
      'list-only': ['connected · runs no tools as tasks', 'connected · runs no tools as tasks (tasks: list, cancel)'],
      'no-tasks': ['connected · no task support', 'connected · no task support'],
    });
    for (const label of Object.keys(SERVERS)) await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: serverIdOf((await row(label))!), confirmed: true });
  });
});
