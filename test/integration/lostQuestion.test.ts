// An HTTP server's task when what the client hears of it is cut: a question the server sent on a
// stream that died with the window before a reload (the server does not send it again), and a
// server that stops answering polls (down, or hung behind a proxy). task-lab over HTTP; its `work`
// with `input` waits for a question it never sends.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { TreeSnapshotNode } from './helpers';
import { cleanUp, publicApi } from './taskApiHelpers';
import { recordToasts } from './quickInputs';

/** out/test/integration -> the fixture in the sources. */
const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');

suite('An HTTP server whose question or answers do not reach the client', () => {
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  let child: ChildProcess | undefined;
  let url = '';

  /** task-lab over HTTP (its tasks kept in `store`, if given); its port. */
  const lab = async (port = '0', store?: string): Promise<string> => {
    child = spawn(process.execPath, [TASK_LAB, 'http', '--port', port, '--poll-interval', '200', ...(store ? ['--store', store] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    return waitFor(() => /listening (\d+)/.exec(out)?.[1], 'task-lab over HTTP');
  };

  /** task-lab over HTTP, named "demo-http" in the settings; its id. */
  const startLab = async (store?: string): Promise<string> => {
    url = `http://127.0.0.1:${await lab('0', store)}/mcp`;
    await settings().update('servers', { 'demo-http': { type: 'http', url } }, vscode.ConfigurationTarget.Global);
    const api = await publicApi();
    return waitFor(() => api.getServers().find((s) => s.label === 'demo-http')?.id, 'the server');
  };

  const started: string[] = [];

  /** The task lists the servers kept, removed once they are stopped. */
  const stores: string[] = [];
  teardown(async () => {
    await cleanUp(await publicApi(), started.splice(0));
    child?.kill();
    child = undefined;
    await removeSettingServers();
    for (const dir of stores.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('Respond to a task waiting for input whose question does not come (lost with a reloaded window) says so after a while, once however often it is clicked, with Cancel Task, which cancels it', async function () {
    this.timeout(60_000);
    const api = await publicApi();
    const id = await startLab();
    const toasts = recordToasts('showInformationMessage');
    const { told, choices } = toasts;
    try {
      const task = await api.runTool(id, 'work', { arguments: { held: true, input: true } });
      started.push(task.id);
      await waitFor(() => api.getTask(task.id)?.status === 'input_required', 'the task to wait for input');
      const row = { kind: 'task', key: task.id, serverId: id };
      await vscode.commands.executeCommand('mcpTasks.respondToTask', row);
      // Clicked again while the first waits: no second wait, no second message.
      await vscode.commands.executeCommand('mcpTasks.respondToTask', row);
      const lost = 'demo-http has not sent the question of "work" again: one open during a window reload can be lost. Cancel the task, or wait.';
      const n = await waitFor(() => told.findIndex(([m]) => m === lost) + 1, `the message (got ${JSON.stringify(told)})`, 30_000);
      assert.deepEqual(told[n - 1][1], ['Cancel Task']);
      choices[n - 1]('Cancel Task');
      await waitFor(() => api.getTask(task.id)?.status === 'cancelled', 'the task cancelled', 20_000);
      assert.equal(told.filter(([m]) => m === lost).length, 1, JSON.stringify(told));
    } finally {
      toasts.dispose();
    }
  });

  test("a server whose polls meet a closed port: its row says it is unreachable, and its tooltip why and since when, until a poll reaches it again", async function () {
    this.timeout(60_000);
    const api = await publicApi();
    const testing = testingApi(await activateExtension());
    stores.push(fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-down-')));
    const store = path.join(stores[0], 'tasks.json');
    const id = await startLab(store);
    const row = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => serverIdOf(r) === id);
    started.push((await api.runTool(id, 'work', { arguments: { held: true } })).id);
    await waitFor(async () => (await row())?.description?.startsWith('connected · runs tools as tasks'), 'the row connected');
    child!.kill();
    const down = await waitFor(async () => ((await row())?.description === 'unreachable · retrying' ? await row() : undefined), 'the row to say the server cannot be reached', 20_000);
    assert.match(down.tooltip ?? '', /State: unreachable · retrying \\\(since .+: .*ECONNREFUSED.*\\\)\n/);
    // The server named once, with the url, as its notification words it: not "…: Could not reach server "demo-http" at URL: …".
    assert.match(down.accessibility ?? '', /^Server demo-http, unreachable, retrying \(since [^"]+ at http:\/\/127\.0\.0\.1:\d+\/mcp: connection refused \(ECONNREFUSED\).*\)$/);
    // Back at the same port, with its tasks: the next poll reaches it.
    await lab(new URL(url).port, store);
    await waitFor(async () => (await row())?.description?.startsWith('connected · runs tools as tasks'), 'the row connected again', 30_000);
    assert.doesNotMatch((await row())?.tooltip ?? '', /unreachable/);
  });
});
