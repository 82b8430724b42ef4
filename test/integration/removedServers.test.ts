// A server removed from the configuration while the extension still tracks its tasks: the view
// keeps a row for it, its tasks under it, until they are cleared.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { McpTasksTestingApi, TreeSnapshotNode as Row } from './helpers';
import { combineConfigs, parseMcpJson } from '../../src/core/config/parse';
import { answeringWarnings, QuickInputSpy } from './quickInputs';
import { cleanUp, invoke, publicApi } from './taskApiHelpers';
import { storedTask, withTree } from './viewParts';

/** out/test/integration -> the demo server in the sources. */
const DEMO = path.resolve(__dirname, '..', '..', '..', 'demo', 'server.mjs');
const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');

suite('Tasks of a server removed from the configuration', () => {
  let testing: McpTasksTestingApi;
  let api: McpTasksApi;
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  const rows = async () => (await testing.getTreeSnapshot()) as Row[];

  suiteSetup(async function () {
    this.timeout(30_000);
    testing = testingApi(await activateExtension());
    api = await publicApi();
    await settings().update('servers', { leaving: { type: 'stdio', command: 'node', args: [DEMO, 'stdio', '--quiet'] } }, vscode.ConfigurationTarget.Global);
    await waitFor(async () => (await rows()).some((r) => r.label === 'leaving'), 'the row of the server "leaving"');
  });

  suiteTeardown(async () => {
    await removeSettingServers();
    if (api) await cleanUp(api, []);
  });

  test('stay in the view under a row for that server, which offers no server actions, until cleared', async function () {
    this.timeout(30_000);
    const server = api.getServers().find((s) => s.label === 'leaving')!;
    const task = await api.runTool(server.id, 'build-project', { arguments: { project: 'left-behind', durationMs: 200 } });
    assert.equal((await api.getResult(task.id, { waitSeconds: 20 })).task.status, 'completed');
    await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
    const row = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration'), 'the row of the removed server');
    assert.equal(row.label, 'leaving');
    assert.ok(!/\bserver\b/.test(row.contextValue ?? ''), `no Connect, Run Tool or Restart on it: ${row.contextValue}`);
    assert.deepEqual(row.children?.map((c) => c.label), ['build-project'], 'its task is listed under it');
    assert.ok(api.getTask(task.id), 'the task is still tracked');
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
    await waitFor(async () => !(await rows()).some((r) => serverIdOf(r) === server.id), 'the row to go with its last task');
  });

  test('a stdio server removed while its task runs keeps its process until the task completes; its row says so meanwhile', async function () {
    this.timeout(60_000);
    // task-lab notes its pid in the spawn log: the test ends its held task with SIGUSR2 once it has seen the row.
    const spawnLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-leaving-')), 'spawns');
    await settings().update('servers', { leaving: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--spawn-log', spawnLog] } }, vscode.ConfigurationTarget.Global);
    const server = await waitFor(() => api.getServers().find((s) => s.label === 'leaving'), 'the server "leaving"');
    const task = await api.runTool(server.id, 'work', { arguments: { tag: 'removed-meanwhile', held: true, durationMs: 0 } });
    await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
    const row = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration · runs until its task ends'), 'the row of the removed server, still running');
    assert.ok(!/\bserver\b/.test(row.contextValue ?? ''), `no server actions on it: ${row.contextValue}`);
    process.kill(Number(fs.readFileSync(spawnLog, 'utf8').split(' ')[0]), 'SIGUSR2');
    assert.equal((await api.getResult(task.id, { waitSeconds: 30 })).task.status, 'completed');
    fs.rmSync(path.dirname(spawnLog), { recursive: true, force: true });
    await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration'), 'the row once its process has ended');
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
  });

  test('a removed stdio server whose process runs its task offers Disconnect on its row, which asks first (its task is lost), then ends the process', async function () {
    this.timeout(60_000);
    await settings().update('servers', { leaving: { type: 'stdio', command: 'node', args: [DEMO, 'stdio', '--quiet'] } }, vscode.ConfigurationTarget.Global);
    const server = await waitFor(() => api.getServers().find((s) => s.label === 'leaving'), 'the server "leaving"');
    const task = await api.runTool(server.id, 'build-project', { arguments: { project: 'stopped-early', durationMs: 60_000 } });
    await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
    const row = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration · runs until its task ends'), 'the row of the removed server, still running');
    assert.deepEqual(row.contextValue?.split(' '), ['removedServer', 'stoppable']);
    const spy = new QuickInputSpy();
    try {
      const asked = await answeringWarnings(async (modal) => {
        await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: server.id });
        assert.equal(api.getTask(task.id)?.status, 'working', 'Cancel: it runs on');
        modal.answer = 'Disconnect';
        await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: server.id });
      });
      const question = 'Disconnect "leaving"? Its running task will be lost. | The server\'s process ends with the connection, and a new one does not know its tasks; calls made without a task end too. | Disconnect';
      assert.deepEqual(asked, [question, question]);
      await waitFor(() => api.getTask(task.id)?.status === 'lost', 'the task to be lost with the process');
      assert.equal(api.getTask(task.id)?.note, 'Its server is no longer in the configuration and it was disconnected by the user.');
      await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
      assert.deepEqual(spy.messages.filter((m) => m.includes('on leaving: lost')), [], 'the user ended it: not told');
    } finally {
      spy.dispose();
    }
    const after = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration'), 'the row once its process has ended');
    assert.equal(after.contextValue, 'removedServer');
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
  });

  test("tasks of a removed server whose row waits for them, cancelled through mcpTasks_cancelTask and the API's cancelTask, are not told: the user asked for it, as from the view", async function () {
    this.timeout(60_000);
    // task-lab notes its pid in the spawn log: the test ends the third held task with SIGUSR2.
    const spawnLog = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-leaving-')), 'spawns');
    await settings().update('servers', { asked: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--spawn-log', spawnLog] } }, vscode.ConfigurationTarget.Global);
    const server = await waitFor(() => api.getServers().find((s) => s.label === 'asked'), 'the server "asked"');
    const [chat, other, told] = await Promise.all(['chat', 'api', 'told'].map((tag) => api.runTool(server.id, 'work', { arguments: { tag, held: true, durationMs: 0 } })));
    await settings().update('servers', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === server.id && r.description === 'no longer in the configuration · runs until its 3 tasks end'), 'the row of the removed server, still running');
    const spy = new QuickInputSpy();
    try {
      assert.match((await invoke('mcpTasks_cancelTask', { taskId: chat.taskId })).text, /Cancellation of task .* was requested\./);
      assert.equal((await api.cancelTask(other.id)).status, 'cancelled');
      assert.equal(api.getTask(chat.id)?.status, 'cancelled');
      // Told after the cancels: once it is, a notification of theirs would have been too.
      process.kill(Number(fs.readFileSync(spawnLog, 'utf8').split(' ')[0]), 'SIGUSR2');
      await waitFor(() => spy.messages.some((m) => /^"work( \(.+?\))?" on asked: completed/.test(m)), 'the completed task to be told', 20_000).catch((err: Error) => assert.fail(`${err.message}; told: ${JSON.stringify(spy.messages)}`));
      assert.equal(api.getTask(told.id)?.status, 'completed');
      assert.deepEqual(spy.messages.filter((m) => m.includes('asked: cancelled')), [], 'the cancels the user asked for are not told');
    } finally {
      spy.dispose();
      fs.rmSync(path.dirname(spawnLog), { recursive: true, force: true });
    }
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
  });

  test('a .vscode/mcp.json server whose file is no longer read (readWorkspaceMcpJson off) while its task runs: its row says it is no longer in the configuration (it was not removed), and its process runs; read again, it is back with its task', async function () {
    this.timeout(60_000);
    const demo = api.getServers().find((s) => s.label === 'demo')!; // of the test workspace's mcp.json
    const task = await api.runTool(demo.id, 'build-project', { arguments: { project: 'not-read', durationMs: 60_000 } });
    try {
      await settings().update('readWorkspaceMcpJson', false, vscode.ConfigurationTarget.Global);
      const row = await waitFor(async () => (await rows()).find((r) => serverIdOf(r) === demo.id && r.description?.endsWith(' · runs until its task ends')), 'the row of the server no longer read, still running');
      assert.equal(row.description, 'no longer in the configuration · runs until its task ends');
      await settings().update('readWorkspaceMcpJson', undefined, vscode.ConfigurationTarget.Global);
      await waitFor(() => api.getServers().find((s) => s.id === demo.id)?.state === 'connected', 'the server read again, connected');
      assert.equal(api.getTask(task.id)?.status, 'working', 'its task goes on');
    } finally {
      await settings().update('readWorkspaceMcpJson', undefined, vscode.ConfigurationTarget.Global);
      await cleanUp(api, [task.id]);
    }
  });

  test('tasks restored before the configuration is read sit under their server\'s name, which reads "reading the configuration…", not "removed"', () =>
    withTree(({ servers, engine, tree }) => {
      engine.restore([storedTask('settings:api:v2', 't1')]);
      const row = () => tree.getTreeItem(tree.getChildren()[0]);
      assert.deepEqual([row().label, row().description], ['api:v2', 'reading the configuration…'], 'the whole name, colons kept');
      servers.setConfiguration([], []); // read: the server is not in it
      assert.deepEqual([row().label, row().description], ['api:v2', 'no longer in the configuration']);
    }));

  test('a live task of a server whose input the user dismissed is said not to be followed, as one of a server the user disconnected is: its row counts it, its tooltip does not promise checks', () =>
    withTree(async ({ servers, engine, tree }) => {
      const config = parseMcpJson(
        JSON.stringify({ inputs: [{ type: 'promptString', id: 'key', description: 'Key', password: true }], servers: { remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'x-key': '${input:key}' } } } }),
        { kind: 'workspaceFolder', folderName: 'app', folderPath: '/work/app', file: '/work/app/.vscode/mcp.json' },
      );
      servers.setConfiguration(config.servers, config.errors);
      const id = config.servers[0].id;
      await assert.rejects(servers.getSession(id), /No value was given for input "key"/); // the prompt, dismissed (withTree's prompts answer nothing)
      engine.restore([storedTask(id, 't1', { status: 'working', pollInterval: 1000 })]);
      const [row] = tree.getChildren();
      assert.equal(tree.getTreeItem(row).description, 'not connected · 1 live task not followed');
      const [task] = tree.getChildren(row);
      const tip = tree.resolveTreeItem(tree.getTreeItem(task), task).tooltip as vscode.MarkdownString;
      assert.match(tip.value, /Checked: not at all until its server is connected \(its input was dismissed\)/);
    }));

  test('a live task of a server the user disconnected: its tooltip says it is not checked while the server is disconnected, not that an input was dismissed', () =>
    withTree(async ({ servers, engine, tree }) => {
      const config = parseMcpJson(JSON.stringify({ servers: { remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } } }), {
        kind: 'workspaceFolder',
        folderName: 'app',
        folderPath: '/work/app',
        file: '/work/app/.vscode/mcp.json',
      });
      servers.setConfiguration(config.servers, config.errors);
      const id = config.servers[0].id;
      await servers.disconnect(id);
      engine.restore([storedTask(id, 't1', { status: 'working', pollInterval: 1000 })]);
      const [row] = tree.getChildren();
      assert.equal(tree.getTreeItem(row).description, 'disconnected · 1 live task not followed');
      const [task] = tree.getChildren(row);
      const tip = tree.resolveTreeItem(tree.getTreeItem(task), task).tooltip as vscode.MarkdownString;
      assert.match(tip.value, /Checked: not at all while its server is disconnected: connect it to follow the task again/);
    }));

  test('a server removed from one folder of two that both had one of its name keeps its label, "demo (b)": its row is not a second "demo" beside the one still configured', () =>
    withTree(({ servers, engine, tree }) => {
      const folder = (name: string) => parseMcpJson('{ "servers": { "demo": { "command": "node" } } }', { kind: 'workspaceFolder', folderName: name, folderPath: `/work/${name}`, file: `/work/${name}/.vscode/mcp.json` });
      servers.setConfiguration(combineConfigs([folder('a'), folder('b')]).servers, []);
      engine.restore([storedTask('folder:/work/b:demo', 't1')]);
      servers.setConfiguration(combineConfigs([folder('a')]).servers, []);
      const rows = tree.getChildren().map((n) => tree.getTreeItem(n));
      assert.deepEqual(rows.map((r) => [r.label, r.description]), [['demo', 'not connected'], ['demo (b)', 'no longer in the configuration']]);
    }));

  test('the row of a removed server goes with its last task: the view reads its root again, not only that row', () =>
    withTree(({ servers, engine, tree }) => {
      engine.restore([storedTask('settings:gone', 't1')]);
      servers.setConfiguration([], []);
      const [row] = tree.getChildren();
      tree.getChildren(row); // the view has shown the task's row
      const fired: unknown[] = [];
      tree.onDidChangeTreeData((e) => fired.push(e));
      assert.equal(engine.clearFinished(), 1);
      assert.deepEqual(fired, [undefined], 'the root is read again');
      assert.deepEqual(tree.getChildren(), [], 'and has no row for the server');
    }));

  test('a task row\'s accessible label says its status once (the description leads with it when there is no message), its parts apart with commas, not the middle dots shown, and its progress as "2 of 6"', () =>
    withTree(({ engine, tree }) => {
      const task = (taskId: string, status: 'completed' | 'working', statusMessage?: string) => storedTask('settings:s', taskId, { toolName: taskId, status, statusMessage });
      engine.restore([task('done', 'completed'), task('busy', 'working', 'Compiling'), { ...task('steps', 'working', 'Step 1/3…'), progress: { progress: 2, total: 6 } }]);
      const labels = tree.getChildren(tree.getChildren()[0]).map((n) => tree.getTreeItem(n).accessibilityInformation?.label);
      assert.deepEqual(labels.map((l) => l?.replace(/now$/, 'N')).sort(), ['Task busy, Working, Compiling, N', 'Task done, Completed, N', 'Task steps, Working, Step 1/3…, 2 of 6, N']);
    }));

  test('a task row\'s progress is read "2 of 6" in a locale whose digits are not Western (ar-EG: "٢ of ٦"), as a fraction ("2.5 of 6"), and with no message before it', () =>
    withTree(({ engine, tree }) => {
      const heard = (taskId: string) => tree.getChildren(tree.getChildren()[0]).map((n) => tree.getTreeItem(n).accessibilityInformation?.label?.replace(/now$/, 'N')).find((l) => l?.startsWith(`Task ${taskId},`));
      const steps = (taskId: string, progress: number, statusMessage?: string) => ({ ...storedTask('settings:s', taskId, { toolName: taskId, status: 'working', statusMessage }), progress: { progress, total: 6 } });
      engine.restore([steps('plain', 2), steps('half', 2.5, 'Copying')]);
      const read = [heard('plain'), heard('half')];
      // formatCount writes the locale's digits: as Node does when started with LANG=ar_EG.UTF-8.
      const own = Number.prototype.toLocaleString;
      Number.prototype.toLocaleString = function (this: number, locales?: Intl.LocalesArgument, options?: Intl.NumberFormatOptions) {
        return own.call(this, locales ?? 'ar-EG', options);
      };
      try {
        engine.restore([steps('arabic', 2, 'Copying')]);
        read.push(heard('arabic'));
      } finally {
        Number.prototype.toLocaleString = own;
      }
      assert.deepEqual(read, ['Task plain, Working, 2 of 6, N', 'Task half, Working, Copying, 2.5 of 6, N', 'Task arabic, Working, Copying, ٢ of ٦, N']);
    }));
});

