// An edit of .vscode/mcp.json while a stdio server runs a task: the server keeps its process (the
// task would die with it) until the task ends, its row says so, then it restarts with the edit.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { TreeSnapshotNode } from './helpers';
import { cleanUp, publicApi } from './taskApiHelpers';
import { answeringWarnings, QuickInputSpy, recordToasts } from './quickInputs';

const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');

suite('A stdio server whose configuration is edited while its task runs', () => {
  test('keeps its process: its row says the new configuration waits for the task, which completes with its result; then the server runs the new configuration', async function () {
    this.timeout(90_000);
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    assert.ok(original.includes('"servers": {'), 'the servers of the test workspace');
    // A task-lab server added to the workspace's mcp.json: it notes each process it starts in the
    // spawn log, and its task is held until the test has seen the row, then released with SIGUSR2.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-edited-'));
    const spawnLog = path.join(dir, 'spawns');
    const spawns = () => (fs.existsSync(spawnLog) ? fs.readFileSync(spawnLog, 'utf8').trim().split('\n') : []);
    const withLab = (extra: Record<string, unknown> = {}, ...more: string[]) =>
      original.replace('"servers": {', `"servers": {\n    "lab": ${JSON.stringify({ type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--spawn-log', spawnLog, ...more], ...extra })},`);
    const started: string[] = [];
    const toasts = recordToasts('showInformationMessage');
    const told = () => toasts.told.filter(([m]) => m.includes('new configuration'));
    try {
      fs.writeFileSync(file, withLab());
      // Of mcp.json, not a "lab" of the settings that an earlier suite took out and the extension has not read yet.
      const lab = await waitFor(() => api.getServers().find((s) => s.label === 'lab' && s.id.startsWith('folder:')), 'the lab server of mcp.json');
      const row = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => serverIdOf(r) === lab.id);
      const task = await api.runTool(lab.id, 'work', { arguments: { tag: 'edited-meanwhile', held: true, durationMs: 0 } });
      started.push(task.id);
      assert.equal(task.pollInterval, 500, "task-lab's default");
      // The edit a user saves: an env var added, and another poll interval (which tells the processes apart).
      fs.writeFileSync(file, withLab({ env: { LAB_NOTE: 'edited' } }, '--poll-interval', '700'));
      const waiting = await waitFor(async () => {
        const r = await row();
        return r?.description?.endsWith(' · new configuration waits for 1 task') ? r : undefined;
      }, 'the lab row to say its new configuration waits for the task');
      assert.match(waiting.description ?? '', /^connected · runs tools as tasks/);
      assert.match(waiting.tooltip ?? '', /Its configuration changed; it restarts with the new one when its live task ends\. Restart it to apply it now, losing 1 task\./);
      assert.equal(api.getTask(task.id)?.status, 'working');
      // Told once, with what applies it now; saved again (auto save), not told again.
      assert.deepEqual(told(), [['MCP server "lab" restarts with its new configuration when its live task ends.', ['Restart Now']]]);
      fs.writeFileSync(file, withLab({ env: { LAB_NOTE: 'edited' } }, '--poll-interval', '700'));
      await vscode.commands.executeCommand('mcpTasks.refresh');
      assert.equal(told().length, 1, JSON.stringify(toasts.told));

      process.kill(Number(spawns()[0].split(' ')[0]), 'SIGUSR2');
      const done = await api.getResult(task.id, { waitSeconds: 30 });
      assert.equal(done.task.status, 'completed', done.task.note);
      // Fetched from the process that ran the task, which the restart waits for (the new one does not know the task).
      assert.match(JSON.stringify(done.outcome ?? done.fetchError), /done: edited-meanwhile/);
      await waitFor(async () => /^connected · runs tools as tasks$/.test((await row())?.description ?? ''), 'the lab server to restart, connected, with nothing waiting');
      const next = await api.runTool(lab.id, 'work', { arguments: { tag: 'after-the-edit', durationMs: 100 } });
      started.push(next.id);
      assert.equal(next.pollInterval, 700, 'a task of the process started with the new configuration');
      assert.equal(spawns().length, 2, 'one process for each configuration');
      assert.equal((await api.getResult(next.id, { waitSeconds: 30 })).task.status, 'completed');
      // Restart Now chosen later, from the notification center, once nothing waits: nothing restarts.
      toasts.choices[toasts.told.indexOf(told()[0])]('Restart Now');
      await new Promise((r) => setTimeout(r, 1500)); // a restart would have started its process by now
      assert.equal(spawns().length, 2, 'a stale Restart Now restarts nothing');
    } finally {
      toasts.dispose();
      fs.writeFileSync(file, original);
      await vscode.commands.executeCommand('mcpTasks.refresh'); // read again before the next suites
      await cleanUp(api, started);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  /**
   * A task-lab server (in the settings) whose task has ended and whose result comes `resultDelay`
   * ms later; its configuration is then edited. `started` gets the task, for the clean-up.
   */
  async function labEditedAfterItsTask(resultDelay: number, tag: string, started: string[]) {
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const lab = (...more: string[]) => ({ lab: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', '--poll-interval', '100', '--result-delay', String(resultDelay), ...more] } });
    await settings().update('servers', lab(), vscode.ConfigurationTarget.Global);
    const id = await waitFor(() => api.getServers().find((s) => s.label === 'lab' && s.id.startsWith('settings:'))?.id, 'the lab server of the settings');
    const row = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => serverIdOf(r) === id);
    const task = await api.runTool(id, 'work', { arguments: { tag, durationMs: 100 } });
    started.push(task.id);
    await waitFor(() => api.getTask(task.id)?.status === 'completed', 'the task to end');
    await settings().update('servers', lab('--notify', 'none'), vscode.ConfigurationTarget.Global);
    return { row, task };
  }
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  test("keeps its process for the result of a task that has ended: its row says the new configuration waits for the task's result, not for a task", async function () {
    this.timeout(90_000);
    const started: string[] = [];
    const api = await publicApi();
    try {
      // task-lab answers tasks/result 4 s after its task ended: a result slow to come.
      const { row, task } = await labEditedAfterItsTask(4000, 'slow result', started);
      const waiting = await waitFor(async () => {
        const r = await row();
        return r?.description?.includes(' · new configuration waits for ') ? r : undefined;
      }, 'the lab row to say its new configuration waits');
      assert.match(waiting.description ?? '', / · new configuration waits for 1 task's result$/);
      assert.match(waiting.tooltip ?? '', /Its configuration changed; it restarts with the new one when its task's result is fetched\. Restart it to apply it now, losing 1 task's result\./);

      const done = await api.getResult(task.id, { waitSeconds: 30 });
      assert.match(JSON.stringify(done.outcome ?? done.fetchError), /slow result/);
      await waitFor(async () => /^connected · runs tools as tasks$/.test((await row())?.description ?? ''), 'the lab server to restart, connected, with nothing waiting');
    } finally {
      await cleanUp(api, started);
      await removeSettingServers();
    }
  });

  test('Restart Now, on the notification that an edit waits for a live task, restarts the server with its new configuration once the loss is confirmed; a wait for a result alone is not notified', async function () {
    this.timeout(90_000);
    const api = await publicApi();
    const started: string[] = [];
    const toasts = recordToasts('showInformationMessage');
    const told = () => toasts.told.filter(([m]) => m.includes('new configuration'));
    // Another name than the first part's "lab", whose reconfiguration could still be under way.
    const lab = (...more: string[]) => ({ relab: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio', ...more] } });
    try {
      const { row, task: first } = await labEditedAfterItsTask(4000, 'result only', started);
      await waitFor(async () => (await row())?.description?.endsWith(" · new configuration waits for 1 task's result"), 'the row to say the new configuration waits for the result');
      assert.deepEqual(told(), [], 'a wait for a result alone is short: not notified');
      await api.getResult(first.id, { waitSeconds: 30 });
      await waitFor(async () => /^connected · runs tools as tasks$/.test((await row())?.description ?? ''), 'the lab server to restart, connected, with nothing waiting');
      await settings().update('servers', lab(), vscode.ConfigurationTarget.Global);
      const id = await waitFor(() => api.getServers().find((s) => s.label === 'relab')?.id, 'the relab server');
      const task = await api.runTool(id, 'work', { arguments: { tag: 'restarted', held: true, durationMs: 0 } });
      started.push(task.id);
      await settings().update('servers', lab('--poll-interval', '700'), vscode.ConfigurationTarget.Global);
      await waitFor(() => told().length, 'the notification that the new configuration waits');
      assert.deepEqual(told(), [['MCP server "relab" restarts with its new configuration when its live task ends.', ['Restart Now']]]);
      const asked = await answeringWarnings(async (modal) => {
        modal.answer = 'Restart';
        toasts.choices[toasts.told.indexOf(told()[0])]('Restart Now');
        await waitFor(() => api.getTask(task.id)?.status === 'lost', 'the task to be lost with the restart');
      });
      assert.deepEqual(asked, ['Restart "relab"? Its running task will be lost. | The server\'s process ends with the connection, and a new one does not know its tasks; calls made without a task end too. | Restart']);
      const next = await api.runTool(id, 'work', { arguments: { tag: 'after', durationMs: 100 } });
      started.push(next.id);
      assert.equal(next.pollInterval, 700, 'the new configuration applies');
    } finally {
      toasts.dispose();
      await cleanUp(api, started);
      await removeSettingServers();
    }
  });

  test('a new configuration that waits only for a result applies at once when mcpTasks.autoFetchResults is turned off: nothing waits for the result then', async function () {
    this.timeout(90_000);
    const started: string[] = [];
    const api = await publicApi();
    try {
      // The result would come 10 minutes after the task ended: long after this test.
      const { row } = await labEditedAfterItsTask(600_000, 'never fetched', started);
      await waitFor(async () => (await row())?.description?.endsWith(" · new configuration waits for 1 task's result"), 'the lab row to say its new configuration waits for the result');

      await settings().update('autoFetchResults', false, vscode.ConfigurationTarget.Global);
      let seen: string | undefined;
      await waitFor(async () => /^connected · runs tools as tasks$/.test((seen = (await row())?.description) ?? ''), 'the lab server to restart, connected, with nothing waiting').catch((err: Error) =>
        assert.fail(`${err.message}; its row read "${seen}"`),
      );
    } finally {
      await cleanUp(api, started);
      await removeSettingServers();
      await settings().update('autoFetchResults', undefined, vscode.ConfigurationTarget.Global);
    }
  });
});

suite("A workspace folder's .vscode folder moved away", () => {
  test('takes its mcp.json servers out of the view, and back when it returns: the editor tells a file watcher nothing of a parent folder moved, so the folder is watched too', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    await testing.whenConfigurationLoaded?.();
    const folder = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode');
    const aside = `${folder}-moved`;
    const labels = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).map((r) => r.label);
    assert.ok((await labels()).includes('everything'), 'the servers of the test workspace');
    try {
      fs.renameSync(folder, aside);
      await waitFor(async () => (await labels()).length === 0, 'the servers of the moved mcp.json to leave the view');
      fs.renameSync(aside, folder);
      await waitFor(async () => (await labels()).includes('everything'), 'the servers to come back with it');
    } finally {
      if (!fs.existsSync(folder)) fs.renameSync(aside, folder);
      await vscode.commands.executeCommand('mcpTasks.refresh');
    }
  });
});

suite('A server removed from mcp.json while its input is asked', () => {
  test('closes the prompt: nothing waits for the answer any more, and the call that connected it ends', async function () {
    this.timeout(60_000);
    await activateExtension();
    const api = await publicApi();
    await vscode.commands.executeCommand('mcpTasks.forgetSavedInputs');
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    const labels = () => api.getServers().map((s) => s.label);
    const spy = new QuickInputSpy();
    try {
      const picky = api.getServers().find((s) => s.label === 'picky')!;
      let ended: string | undefined;
      api.getTools(picky.id).then(
        () => (ended = 'listed'),
        (err: Error) => (ended = err.message),
      );
      await spy.next('the pick of the pollInterval input of "picky"');
      // Renamed: "picky" is no longer in the file (its inputs are the file's, shared with no one).
      fs.writeFileSync(file, original.replace('"picky": {', '"picky-away": {'));
      await waitFor(() => !labels().includes('picky'), 'picky to leave the configuration');
      await waitFor(() => ended, 'the prompt to close and the call to end', 10_000);
      assert.notEqual(ended, 'listed');
      assert.equal(spy.shown.length, 1, 'its password is not asked');
    } finally {
      spy.dispose();
      fs.writeFileSync(file, original);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await waitFor(() => labels().includes('picky'), 'picky to be back');
    }
  });
});
