// Cancel Task... from the palette offers only what can be cancelled: not the tasks of a server
// that does not support tasks/cancel (test/fixtures/servers/slow-task.mjs --no-cancel). And what
// is told of a cancel a server answers at once but carries out later (--cancel-after), or ends by
// forgetting the task (--cancel-forgets). Their tasks are held (--held): they end, and a cancel
// lands, only once the test has seen what comes before and released them (SIGUSR2).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import type { TreeSnapshotNode } from './helpers';
import { activateExtension, logText, removeSettingServers, testingApi, waitFor } from './helpers';
import { QuickInputSpy, choose, escape } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

/** out/test/integration -> the fixture in the sources. */
const SLOW_TASK_SERVER = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'slow-task.mjs');
const TASK_LAB = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'task-lab.mjs');
/**
 * The row of server-everything's hosted question (trigger-elicitation-request-async) is named by
 * what it asks, cut to fit a side bar; with when it was asked if another it asked reads alike.
 */
const ASKED = /^Please provide inputs for the following…( \(.+\))?$/;
const isAsked = (r: { label: string }) => ASKED.test(r.label);

suite('Cancel Task from the palette', () => {
  let api: McpTasksApi;
  let spy: QuickInputSpy;
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');
  const started: string[] = [];
  /** Each slow-task server notes its pid in the spawn log named after it (made when the suite runs, not when its file loads). */
  let spawnLogs = '';
  const slowTask = (label: string, ...args: string[]) => ({ type: 'stdio', command: 'node', args: [SLOW_TASK_SERVER, '--answer-after', '0', '--held', '--spawn-log', path.join(spawnLogs, label), ...args] });
  /** Lets the held ends of server `label`'s tasks come (SIGUSR2 to its process), or sends its process another signal. */
  const release = (label: string, signal = 'SIGUSR2') => process.kill(Number(fs.readFileSync(path.join(spawnLogs, label), 'utf8').trim().split('\n').pop()!.split(' ')[0]), signal);

  suiteSetup(async function () {
    this.timeout(30_000);
    spawnLogs = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-cancel-'));
    const testing = testingApi(await activateExtension());
    api = await publicApi();
    spy = new QuickInputSpy();
    await settings().update(
      'servers',
      {
        'no-cancel': slowTask('no-cancel', '--complete-after', '0', '--no-cancel'),
        'late-cancel': slowTask('late-cancel', '--cancel-after', '0'),
        // Released, it fails at once; its cancel would land a minute later.
        'late-cancel-fails': slowTask('late-cancel-fails', '--cancel-after', '60000', '--complete-after', '0', '--fail'),
        'late-cancel-forgets': slowTask('late-cancel-forgets', '--cancel-after', '0', '--cancel-forgets'),
        // Its task completes as tasks/cancel arrives, which is refused (-32602); one fails so.
        'too-late': slowTask('too-late', '--cancel-too-late'),
        'too-late-fails': slowTask('too-late-fails', '--cancel-too-late', '--fail'),
        // Never answers tasks/cancel; the cancel lands once released.
        'mute-cancel': slowTask('mute-cancel', '--cancel-after', '0', '--cancel-unanswered'),
        // The same, never released: Disconnect or Restart while its tasks/cancel is unanswered.
        'mute-closed': slowTask('mute-closed', '--cancel-after', '0', '--cancel-unanswered'),
        // Its task fails once released, with the message it worked with ("Calling the API…").
        'keeps-message': slowTask('keeps-message', '--complete-after', '0', '--fail', '--working-message', 'Calling the API…'),
        // Its tool `ask` sends the questions it is asked for in one write.
        lab: { type: 'stdio', command: 'node', args: [TASK_LAB, 'stdio'] },
      },
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(async () => ((await testing.getTreeSnapshot()) as Array<{ label: string }>).filter((r) => r.label.startsWith('no-cancel') || r.label.startsWith('late-cancel') || r.label.startsWith('too-late') || r.label.startsWith('mute-') || r.label === 'lab' || r.label === 'keeps-message').length === 10, 'the fixture server rows');
  });

  suiteTeardown(async function () {
    this.timeout(30_000);
    spy?.dispose();
    // A task that cannot be cancelled ends by itself, once released.
    for (const label of fs.readdirSync(spawnLogs)) {
      try {
        release(label);
      } catch {
        // its process has ended
      }
    }
    for (const id of started) await api.getResult(id, { waitSeconds: 20 }).catch(() => undefined);
    await cleanUp(api, started);
    await removeSettingServers();
    fs.rmSync(spawnLogs, { recursive: true, force: true });
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
    assert.ok(spy.messages.includes('No running task can be cancelled: their servers do not support tasks/cancel or are no longer configured.'), JSON.stringify(spy.messages));
    release('no-cancel');
    assert.equal((await api.getResult(task.id, { waitSeconds: 20 })).task.status, 'completed');
  });

  test('the task picks are titled as their commands, not "MCP Tasks"; runs of one tool each say when they started, in the pick as in their rows', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const lab = api.getServers().find((s) => s.label === 'lab')!;
    // Three runs of work, held live; the last waits for input.
    const ids: string[] = [];
    for (const input of [false, false, true]) ids.push((await api.runTool(lab.id, 'work', { arguments: { held: true, input } })).id);
    started.push(...ids);
    try {
      await waitFor(() => api.getTask(ids[2])?.status === 'input_required', 'the third run to wait for input');
      const rows = ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'lab')?.children ?? [];
      const labels = rows.map((r) => r.label).sort();
      const asking = rows.find((r) => r.id === `task:${ids[2]}`)?.label;
      for (const [command, title, shown] of [
        ['mcpTasks.cancelTask', 'Cancel Task', labels],
        ['mcpTasks.fetchResult', 'Fetch Task Result', labels],
        ['mcpTasks.respondToTask', 'Respond to Task', [asking]],
        ['mcpTasks.disconnectServer', 'Disconnect Server', undefined],
      ] as const) {
        spy.skipShown();
        const picking = vscode.commands.executeCommand(command);
        const pick = await spy.next(`the ${title} pick`);
        await escape();
        await picking;
        assert.equal(pick.title, title);
        if (shown) assert.deepEqual(pick.items.filter((i) => i.description === 'lab').map((i) => i.label).sort(), shown, 'the pick names the runs as their rows do');
      }
      assert.equal(new Set(labels).size, 3, `three runs of work, three rows that differ: ${JSON.stringify(labels)}`);
      for (const label of labels) assert.match(label, /^work \(.+\)$/);
    } finally {
      for (const id of ids) await api.cancelTask(id);
    }
  });

  test('offers a question the server asked the client to run as a task (hosted), shown under its server; cancelling it closes its hidden dialog and the server sees it cancelled', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    // server-everything sends a task-augmented elicitation/create, then polls the client's task.
    const call = api.runTool(everything.id, 'trigger-elicitation-request-async', {});
    const question = await spy.next('the question of the hosted elicitation');
    assert.match(question.text ?? '', /Please provide inputs for the following fields/);
    await escape(); // hidden: it stays pending, its hosted task waits for input
    const hostedRow = async () => {
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      return rows.find((r) => r.label === 'everything')?.children?.find(isAsked);
    };
    const row0 = await waitFor(hostedRow, 'the hosted question under the everything row');
    // Its row's Respond shows the hidden question again (Escape hides it once more), and so do a click or Enter on the row.
    assert.equal(row0.command, 'mcpTasks.respondToTask');
    const taskId = row0.id!.slice(`hosted:${everything.id}:`.length);
    await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'hosted', serverId: everything.id, taskId });
    assert.match((await spy.next('the question, shown again')).text ?? '', /Please provide inputs for the following fields/);
    await escape();
    spy.skipShown();
    const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask');
    const pick = await spy.next('the Cancel Task pick');
    // Named as its row, by what it asks; its server, then what its row says (status, age as the row gives it), each once; what it is.
    const item = pick.items.find((i) => i.label === row0?.label);
    assert.equal(item?.description, `everything · ${(await hostedRow())?.description}`);
    assert.equal(item?.detail, 'Question asked by the server');
    assert.deepEqual([item?.icon, (await hostedRow())?.icon], ['comment-discussion', 'comment-discussion'], 'the icon of a question, in the pick as in the view');
    await choose(pick, (i) => i === item, 'the hosted question');
    await cancelling;
    await waitFor(async () => /^Cancelled/.test((await hostedRow())?.description ?? ''), 'the hosted row to read cancelled');
    // A screen reader hears what it is (its icon shows it), then what the row shows (why it ended, its age), not the status alone.
    const row = await hostedRow();
    assert.equal(row?.accessibility, `Question asked by the server: ${row?.label}, ${row?.description?.replaceAll(' · ', ', ')}`);
    assert.match(row?.accessibility ?? '', /^Question asked by the server: Please provide inputs for the following…( \(.+\))?, Cancelled by the user, (now|\d+ min)$/);
    // Its hidden dialog was withdrawn: Respond to Task has nothing to show again.
    spy.messages.length = 0;
    const shown = spy.shown.length;
    await vscode.commands.executeCommand('mcpTasks.respondToTask');
    assert.equal(spy.shown.length, shown, 'no dialog shown again');
    assert.ok(spy.messages.includes('No task is waiting for your input.'), JSON.stringify(spy.messages));
    // Cancelled again (a second click, a pick opened before): it is what the user asked for, no warning.
    spy.messages.length = 0;
    await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'hosted', serverId: everything.id, taskId });
    assert.deepEqual(spy.messages, [], 'nothing said of a second cancel');
    const t = await call;
    started.push(t.id);
    const r = await api.getResult(t.id, { waitSeconds: 30 });
    assert.match(JSON.stringify(r.outcome), /\[CANCELLED\]/, `the server polled its task and saw it cancelled: ${JSON.stringify(r)}`);
  });

  test('a direct call whose server asks a question waits for input and does not time out while its form is open; its row says so, the question is titled by the call, and Respond shows the form hidden by Escape again; cancelling the call closes the question', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    await settings().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    try {
      spy.skipShown();
      // server-everything asks its 14-field form (a plain elicitation/create) inside the call.
      const t = await api.runTool(everything.id, 'trigger-elicitation-request', {});
      started.push(t.id);
      const question = await spy.next('the first field of the question');
      assert.match(question.text ?? '', /Please provide inputs for the following fields/);
      let closed = false;
      (question.box ?? question.pick)!.onDidHide(() => (closed = true));
      // Longer than the request timeout: the call waits for the user, who the server waits for.
      await new Promise((r) => setTimeout(r, 2500));
      assert.equal(api.getTask(t.id)?.status, 'input_required', JSON.stringify(api.getTask(t.id)));
      // Its row waits for input as a task's does: the bell, what it waits for (the question), and the Respond button.
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      const row = rows.find((r) => r.label === 'everything')?.children?.find((c) => c.id === `task:${t.id}`);
      assert.equal(row?.icon, 'bell-dot', JSON.stringify(row));
      assert.match(row?.description ?? '', /^The server asks: Please provide inputs for the following fields/);
      assert.match(row?.contextValue ?? '', /\brespondable\b/);
      // Titled by its call as a task's question is by its task (it read 'MCP server "everything"'): the only call of its server running.
      assert.match(question.title ?? '', /^trigger-elicitation-request/);
      assert.equal(question.title, `${row?.label} on everything`);
      // Escape hides the form without answering; the row's Respond shows it again.
      await escape();
      await waitFor(() => testing.hiddenDialogs?.() === 1, 'the form to wait hidden');
      await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'task', key: t.id, serverId: everything.id });
      const again = await spy.next('the form, shown again');
      assert.equal(again.title, question.title);
      assert.equal(testing.hiddenDialogs?.(), 0);
      closed = false;
      (again.box ?? again.pick)!.onDidHide(() => (closed = true));
      await api.cancelTask(t.id);
      await waitFor(() => closed, 'the question to close with its call');
    } finally {
      await settings().update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  test('Clear Finished Tasks counts and clears the ended row of a hosted question too, not only tool tasks', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
    const call = api.runTool(everything.id, 'trigger-elicitation-request-async', {});
    await spy.next('the question of the hosted elicitation');
    await escape();
    const hostedRows = async () => {
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      return rows.find((r) => r.label === 'everything')?.children?.filter(isAsked) ?? [];
    };
    const hosted = await waitFor(async () => ((await hostedRows()).length === 1 ? await hostedRows() : undefined), 'the hosted question under the everything row');
    spy.skipShown();
    const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask');
    await choose(await spy.next('the Cancel Task pick'), (i) => i.label === hosted[0].label, 'the hosted question');
    await cancelling;
    await waitFor(async () => /^Cancelled/.test((await hostedRows())[0]?.description ?? ''), 'the hosted row to read cancelled');
    const t = await call;
    started.push(t.id);
    await api.getResult(t.id, { waitSeconds: 30 });
    // Two ended rows: the direct call and the hosted question. The confirmation names both.
    const w = vscode.window as unknown as Record<string, unknown>;
    const showWarning = w.showWarningMessage;
    const asked: string[] = [];
    // A modal dialog the host cannot click: declined here.
    w.showWarningMessage = (message: string) => (asked.push(message), Promise.resolve(undefined));
    try {
      await vscode.commands.executeCommand('mcpTasks.clearFinished');
    } finally {
      w.showWarningMessage = showWarning;
    }
    assert.deepEqual(asked, ['Clear 2 finished tasks?']);
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
    assert.deepEqual(await hostedRows(), [], 'the ended hosted question left the view with the other finished tasks');
  });
  test('Remove from List takes one ended hosted question out of the view, and no live one', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    const hostedRows = async () => {
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      return rows.find((r) => r.label === 'everything')?.children?.filter(isAsked) ?? [];
    };
    const node = (row: TreeSnapshotNode) => ({ kind: 'hosted', serverId: everything.id, taskId: row.id!.split(':').pop() });
    const call = api.runTool(everything.id, 'trigger-elicitation-request-async', {});
    await spy.next('the question of the hosted elicitation');
    await escape();
    const [row] = await waitFor(async () => ((await hostedRows()).length === 1 ? await hostedRows() : undefined), 'the hosted question under the everything row');
    await vscode.commands.executeCommand('mcpTasks.removeTask', node(row));
    assert.equal((await hostedRows()).length, 1, 'a live question stays');
    await vscode.commands.executeCommand('mcpTasks.cancelTask', node(row));
    await waitFor(async () => /^Cancelled/.test((await hostedRows())[0]?.description ?? ''), 'the hosted row to read cancelled');
    await vscode.commands.executeCommand('mcpTasks.removeTask', node(row));
    assert.deepEqual(await hostedRows(), [], 'the ended question left the view');
    started.push((await call).id);
  });
  test('questions a server had the client run as tasks are listed newest first under their server, as its tasks are; two that ask alike each say when they were asked', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    const liveHosted = async () => {
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      const under = rows.find((r) => r.label === 'everything')?.children ?? [];
      return under.filter((c) => isAsked(c) && /^Input required/.test(c.description ?? ''));
    };
    const calls = [api.runTool(everything.id, 'trigger-elicitation-request-async', {})];
    await spy.next('the first question');
    await escape();
    await waitFor(async () => (await liveHosted()).length === 1, 'the first hosted question');
    const [older] = (await liveHosted()).map((c) => c.id);
    calls.push(api.runTool(everything.id, 'trigger-elicitation-request-async', {}));
    await spy.next('the second question');
    await escape();
    await waitFor(async () => (await liveHosted()).length === 2, 'the second hosted question');
    const rows = await liveHosted();
    const ids = rows.map((c) => c.id ?? '');
    assert.deepEqual(ids[1], older, `the older question is below the newer one: ${JSON.stringify(ids)}`);
    // Not two identical rows: each says when it was asked, as runs of one tool do.
    const labels = rows.map((c) => c.label);
    assert.equal(new Set(labels).size, 2, JSON.stringify(labels));
    for (const label of labels) assert.match(label, /^Please provide inputs for the following… \(.+\)$/);
    for (const id of ids) await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'hosted', serverId: everything.id, taskId: id.split(':').pop() });
    for (const call of calls) started.push((await call).id);
  });
  test('a question asked alike as one the user removed from the view is named plainly again, in its row and the Cancel Task pick, as a run of one tool is once its other runs are removed', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
    const hostedRows = async () => {
      const rows = (await testing.getTreeSnapshot()) as TreeSnapshotNode[];
      return rows.find((r) => r.label === 'everything')?.children?.filter(isAsked) ?? [];
    };
    const node = (row: TreeSnapshotNode) => ({ kind: 'hosted', serverId: everything.id, taskId: row.id!.split(':').pop() });
    const calls = [api.runTool(everything.id, 'trigger-elicitation-request-async', {})];
    await spy.next('the first question');
    await escape();
    const [older] = await waitFor(async () => ((await hostedRows()).length === 1 ? await hostedRows() : undefined), 'the first hosted question');
    calls.push(api.runTool(everything.id, 'trigger-elicitation-request-async', {}));
    await spy.next('the second question');
    await escape();
    const both = await waitFor(async () => ((await hostedRows()).length === 2 ? await hostedRows() : undefined), 'the second hosted question');
    for (const row of both) assert.match(row.label, / \(.+\)$/, 'two alike each say when they were asked');
    await vscode.commands.executeCommand('mcpTasks.cancelTask', node(older));
    await waitFor(async () => /^Cancelled/.test((await hostedRows()).find((r) => r.id === older.id)?.description ?? ''), 'the older question to read cancelled');
    await vscode.commands.executeCommand('mcpTasks.removeTask', node(older));
    const [newer, ...others] = await hostedRows();
    assert.deepEqual([newer?.label, others], ['Please provide inputs for the following…', []], 'the one left is named as if asked alone');
    spy.skipShown();
    const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask');
    const pick = await spy.next('the Cancel Task pick');
    await choose(pick, (i) => i.label === newer.label && i.detail === 'Question asked by the server', 'the question left, named as its row');
    await cancelling;
    for (const call of calls) started.push((await call).id);
  });
  test('a question whose ttl runs out while shown closes with a warning that says why, not silently (T-RCV-7)', async function () {
    this.timeout(60_000);
    const everything = api.getServers().find((s) => s.label === 'everything')!;
    const testing = testingApi(await activateExtension());
    // One asked alike before, ended and removed from the view: the warning names this one as its row does, plainly.
    await vscode.commands.executeCommand('mcpTasks.clearFinished', { confirmed: true });
    const before = api.runTool(everything.id, 'trigger-elicitation-request-async', {});
    await spy.next('the question asked before');
    await escape();
    const asked = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'everything')?.children?.find(isAsked);
    const node = { kind: 'hosted', serverId: everything.id, taskId: (await waitFor(asked, 'the question asked before')).id!.split(':').pop() };
    await vscode.commands.executeCommand('mcpTasks.cancelTask', node);
    await waitFor(async () => /^Cancelled/.test((await asked())?.description ?? ''), 'the question asked before to read cancelled');
    await vscode.commands.executeCommand('mcpTasks.removeTask', node);
    started.push((await before).id);
    await settings().update('hostedTasks.maxTtlSeconds', 5, vscode.ConfigurationTarget.Global);
    try {
      spy.messages.length = 0;
      const call = api.runTool(everything.id, 'trigger-elicitation-request-async', {});
      await spy.next('the question of the hosted elicitation');
      // Its row's tooltip says how long is left to answer, not only the ttl granted.
      const rows = (await testing.getTreeSnapshot()) as Array<TreeSnapshotNode & { tooltip?: string }>;
      const row = rows.find((r) => r.label === 'everything')?.children?.find((c) => isAsked(c) && /^Input required/.test(c.description ?? '')) as { tooltip?: string } | undefined;
      assert.match(row?.tooltip ?? '', /Time allowed: 5 s, \d s left \(then it closes unanswered\)/);
      const said = /^"Please provide inputs for the following…" on everything closed unanswered: the server allowed 5 s for an answer\.$/;
      await waitFor(async () => spy.messages.some((m) => said.test(m)), 'the warning', 15_000).catch((e: Error) => assert.fail(`${e.message}, among ${JSON.stringify(spy.messages)}`));
      started.push((await call).id);
    } finally {
      await settings().update('hostedTasks.maxTtlSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
  });
  for (const hosted of [false, true]) {
    test(`a question${hosted ? ' asked as a task (run here)' : ''} during a plain call the server then answers with a task is that task's: Respond on the task shows it again after Escape, and it closes when the task is cancelled`, async function () {
      this.timeout(60_000);
      const testing = testingApi(await activateExtension());
      const lab = api.getServers().find((s) => s.label === 'lab')!;
      spy.skipShown();
      // work-direct is a plain call; with input and held, the task it becomes waits for input until cancelled.
      const call = await api.runTool(lab.id, 'work-direct', { arguments: { askFirst: hosted ? 'task' : true, held: true, input: true } });
      const question = await spy.next('the question of the call', 20_000);
      const task = await waitFor(() => (api.getTask(call.id)?.kind === 'task' ? api.getTask(call.id) : undefined), 'the call to become a task');
      started.push(task.id);
      let closed = false;
      (question.box ?? question.pick)!.onDidHide(() => (closed = true));
      await escape();
      await waitFor(() => testing.hiddenDialogs?.() === 1 && api.getTask(task.id)?.status === 'input_required', 'the question to wait hidden, and its task for input');
      await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'task', key: task.id, serverId: lab.id });
      const again = await spy.next('the question, shown again from the task');
      assert.equal(again.title, question.title);
      closed = false;
      (again.box ?? again.pick)!.onDidHide(() => (closed = true));
      await api.cancelTask(task.id);
      await waitFor(() => closed && testing.hiddenDialogs?.() === 0, 'the question to close with the task');
    });
  }

  for (const [nav, does] of [['decline', 'declines'], ['cancel', 'cancels (dismisses without answering)']]) {
    test(`a question the user ${does}, whose call then fails, is not told as a failure: the user did it; the row says failed`, async function () {
      this.timeout(60_000);
      const lab = api.getServers().find((s) => s.label === 'lab')!;
      spy.skipShown();
      const messages = spy.messages.length;
      const call = await api.runTool(lab.id, 'work-direct', { arguments: { askFirst: 'fail' } });
      started.push(call.id);
      await spy.next('the question of the call', 20_000);
      await vscode.commands.executeCommand(`mcpTasks.${nav}Question`);
      assert.match(JSON.stringify(await api.getResult(call.id, { waitSeconds: 20 })), new RegExp(`Cannot go on: the question was answered ${nav}`));
      assert.equal(api.getTask(call.id)?.status, 'failed');
      await new Promise((r) => setTimeout(r, 1000)); // a notification of the failure would have come by now
      assert.deepEqual(spy.messages.slice(messages).filter((m) => m.includes('on lab')), []);
    });
  }

  for (const [nav, said] of [['decline', 'Declined by the user'], ['cancel', 'Dismissed by the user']]) {
    test(`T-LIFE-5: a question run as a task here that the user answers ${nav} completes (its server gets ${nav}), and its row says so: "Completed · ${said}", not a bare "Completed" that reads as answered`, async function () {
      this.timeout(60_000);
      const lab = api.getServers().find((s) => s.label === 'lab')!;
      const testing = testingApi(await activateExtension());
      spy.skipShown();
      const call = await api.runTool(lab.id, 'ask', { arguments: { message: `Answered ${nav}` } });
      started.push(call.id);
      await spy.next('the question', 20_000);
      await vscode.commands.executeCommand(`mcpTasks.${nav}Question`);
      const row = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'lab')?.children?.find((c) => c.label.startsWith(`Answered ${nav}`));
      const done = await waitFor(async () => ((await row())?.description?.startsWith('Completed') ? await row() : undefined), 'the question to read completed');
      assert.deepEqual([done.description, done.icon], [`Completed · ${said} · now`, 'pass']);
    });
  }
  test('T-RCV-6: a question the server cancels (its tasks/cancel to the client) closes and says so, once: the user did not close it; its row reads cancelled', async function () {
    this.timeout(60_000);
    const lab = api.getServers().find((s) => s.label === 'lab')!;
    const testing = testingApi(await activateExtension());
    spy.messages.length = 0;
    const call = await api.runTool(lab.id, 'ask', { arguments: { message: 'Withdrawn', cancelAfter: 500 } });
    started.push(call.id);
    await spy.next('the question');
    const row = async () => ((await testing.getTreeSnapshot()) as TreeSnapshotNode[]).find((r) => r.label === 'lab')?.children?.find((c) => c.label.startsWith('Withdrawn'));
    await waitFor(async () => /^Cancelled/.test((await row())?.description ?? ''), 'the question to read cancelled');
    const said = /^"Withdrawn \(1 of 1\)( \(.+\))?" on lab closed unanswered: its server cancelled it\.$/;
    await waitFor(() => spy.messages.some((m) => said.test(m)), `the notice, among ${JSON.stringify(spy.messages)}`, 5000);
    await new Promise((r) => setTimeout(r, 300)); // a second one would come by now
    assert.deepEqual(spy.messages.filter((m) => m.includes('Withdrawn')).length, 1, JSON.stringify(spy.messages));
    spy.skipShown();
  });
  test('a plain question (no task) its server withdraws (notifications/cancelled) closes and says so, once, as one run as a task does', async function () {
    this.timeout(60_000);
    const lab = api.getServers().find((s) => s.label === 'lab')!;
    spy.messages.length = 0;
    const call = await api.runTool(lab.id, 'ask', { arguments: { message: 'Withdrawn plainly', plain: true, cancelAfter: 1500 } });
    started.push(call.id);
    await spy.next('the question');
    const said = '"Withdrawn plainly (1 of 1)" on lab closed unanswered: its server cancelled it.';
    await waitFor(() => spy.messages.includes(said), `the notice, among ${JSON.stringify(spy.messages)}`, 5000);
    await new Promise((r) => setTimeout(r, 300)); // a second one would come by now
    assert.deepEqual(spy.messages.filter((m) => m.includes('Withdrawn')).length, 1, JSON.stringify(spy.messages));
    spy.skipShown();
  });
  test('questions whose ttl runs out together close with one warning for their server, with Show Log, which has each (they left the view), not one each', async function () {
    this.timeout(60_000);
    const lab = api.getServers().find((s) => s.label === 'lab')!;
    spy.messages.length = 0;
    spy.messageItems.length = 0;
    // Three questions with a ttl of 5 s that arrive in one write (task-lab's ask): their ttl runs
    // out together however long the machine takes to deliver them, unlike three calls of their own.
    const logged = logText().length;
    const call = await api.runTool(lab.id, 'ask', { arguments: { count: 3, ttl: 5000 } });
    started.push(call.id);
    await spy.next('the first question');
    const said = '3 requests on lab closed unanswered: the time the server allowed for them ran out.';
    await waitFor(async () => spy.messages.some((m) => m.includes('closed unanswered')), `the warning, among ${JSON.stringify(spy.messages)}`);
    await new Promise((r) => setTimeout(r, 500)); // any other warning would come by now
    assert.deepEqual(spy.messages.filter((m) => m.includes('closed unanswered')), [said]);
    assert.deepEqual(spy.messageItems[spy.messages.indexOf(said)], ['Show Log']);
    // The log has each: what it asked when created, then its ttl's end.
    const closedIn = (log: string) => [...log.matchAll(/\[lab\] Hosted task (\S+) \(elicitation\/create\): \w+ → cancelled \(Its ttl of 5000 ms ended before it finished\)/g)].map((m) => m[1]);
    await waitFor(() => closedIn(logText().slice(logged)).length >= 3, 'each in the log');
    const log = logText().slice(logged);
    const closed = closedIn(log);
    assert.equal(closed.length, 3, log);
    for (const id of closed) assert.match(log, new RegExp(`\\[lab\\] Hosted task ${id} created for elicitation/create \\(ttl 5000 ms\\): "\\w`));
    spy.skipShown();
  });
  test('a question whose ttl runs out while another of its server reads alike is named in the warning as its row was, with when it was asked (T-RCV-7); the ttl is said exactly, in the warning and the tooltip ("13.5 s", not "14 s")', async function () {
    this.timeout(60_000);
    const lab = api.getServers().find((s) => s.label === 'lab')!;
    spy.messages.length = 0;
    // Two calls, two questions asked alike; the first one's ttl runs out 10.5 s before the other's.
    for (const ttl of [3000, 13_500]) started.push((await api.runTool(lab.id, 'ask', { arguments: { ttl, message: 'Alike' } })).id);
    await spy.next('the first question');
    await waitFor(async () => spy.messages.some((m) => m.includes('closed unanswered')), `the warning, among ${JSON.stringify(spy.messages)}`);
    assert.match(spy.messages.find((m) => m.includes('closed unanswered'))!, /^"Alike \(1 of 1\) \(.+\)" on lab closed unanswered: the server allowed 3 s for an answer\.$/);
    spy.skipShown();
    const rows = (nodes: TreeSnapshotNode[]): TreeSnapshotNode[] => nodes.flatMap((n) => [n, ...rows(n.children ?? [])]);
    const tips = rows((await testingApi(await activateExtension()).getTreeSnapshot()) as TreeSnapshotNode[]).map((r) => r.tooltip ?? '').filter((t) => t.includes('Time allowed'));
    assert.ok(tips.some((t) => /Time allowed: 13\.5 s, \d+ s left/.test(t)), tips.join('\n---\n'));
    await waitFor(async () => spy.messages.filter((m) => m.includes('closed unanswered')).length === 2, 'the second warning', 30_000);
    // Alone by then, it reads as its row did: its message only.
    assert.equal(spy.messages.filter((m) => m.includes('closed unanswered'))[1], '"Alike (1 of 1)" on lab closed unanswered: the server allowed 13.5 s for an answer.');
    spy.skipShown();
  });
  test('Cancel Task on a server that answers tasks/cancel while the task works and cancels it later: the later end "cancelled" is not told (the user did it); a task that fails despite the cancel is told', async function () {
    this.timeout(60_000);
    spy.messages.length = 0;
    const run = async (label: string) => {
      const t = await api.runTool(api.getServers().find((s) => s.label === label)!.id, 'slow', {});
      started.push(t.id);
      return t;
    };
    const [late, failing] = [await run('late-cancel'), await run('late-cancel-fails')];
    for (const t of [late, failing]) {
      await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'task', key: t.id, serverId: t.serverId });
      assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.statusMessage], ['working', 'Cancelling…'], 'the server answered tasks/cancel with the task still working');
    }
    release('late-cancel');
    release('late-cancel-fails');
    await waitFor(() => api.getTask(late.id)?.status === 'cancelled', 'the cancel to land', 15_000);
    await waitFor(() => api.getTask(failing.id)?.status === 'failed', 'the task to fail despite the cancel', 15_000);
    await waitFor(() => spy.messages.some((m) => /^"slow( \(.+?\))?" on late-cancel-fails: failed/.test(m)), `the failure to be told, among ${JSON.stringify(spy.messages)}`, 5000);
    await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
    assert.deepEqual(spy.messages.filter((m) => /^"slow( \(.+?\))?" on late-cancel:/.test(m)), [], 'the cancel the user asked for is not told when it lands');
  });
  test('a task that fails with the message it worked with ("Calling the API…", as the SDK\'s task store keeps it) is told failed, not failed for that message', async function () {
    this.timeout(30_000);
    spy.messages.length = 0;
    const t = await api.runTool(api.getServers().find((s) => s.label === 'keeps-message')!.id, 'slow', {});
    started.push(t.id);
    assert.equal(api.getTask(t.id)?.statusMessage, 'Calling the API…');
    release('keeps-message');
    await waitFor(() => spy.messages.some((m) => m.includes(' on keeps-message: failed')), `the failure to be told, among ${JSON.stringify(spy.messages)}`, 15_000);
    assert.deepEqual(spy.messages.filter((m) => m.includes('Calling the API')), []);
    // The task ended without it: the view, the API and the chat tools (and the next window) read it so.
    assert.equal(api.getTask(t.id)?.statusMessage, undefined);
  });

  test('T-REQ-7: Cancel Task as the task ends (the server refuses: -32602, already completed or failed): told once, as it ended, with no "Could not cancel" warning; the result is kept', async function () {
    this.timeout(60_000);
    spy.messages.length = 0;
    for (const [label, end] of [['too-late', 'completed'], ['too-late-fails', 'failed']]) {
      const t = await api.runTool(api.getServers().find((s) => s.label === label)!.id, 'slow', {});
      started.push(t.id);
      await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'task', key: t.id, serverId: t.serverId });
      assert.equal(api.getTask(t.id)?.status, end, 'the task as the server has it');
      const told = new RegExp(`^"slow( \\(.+?\\))?" on ${label}: ${end === 'completed' ? 'Completed' : 'Failed'}`, 'i');
      await waitFor(() => spy.messages.some((m) => told.test(m)), `the end to be told, among ${JSON.stringify(spy.messages)}`, 5000);
      await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
      assert.deepEqual(spy.messages.filter((m) => m.includes(`on ${label}`) || /cancel/i.test(m)).filter((m) => !told.test(m)), [], 'nothing else is told');
      assert.ok((await api.getResult(t.id, { waitSeconds: 10 })).outcome, 'its result is kept');
    }
  });
  test('T-REQ-7: Cancel Task on a server that does not answer tasks/cancel in time: the Tasks view shows progress while it waits, the warning says the server may still cancel the task, and when the cancel lands it is not told (the user did it)', async function () {
    this.timeout(60_000);
    const t = await api.runTool(api.getServers().find((s) => s.label === 'mute-cancel')!.id, 'slow', {});
    started.push(t.id);
    const w = vscode.window as unknown as Record<string, unknown>;
    const withProgress = w.withProgress as typeof vscode.window.withProgress;
    const locations: unknown[] = [];
    w.withProgress = (options: vscode.ProgressOptions, task: Parameters<typeof vscode.window.withProgress>[1]) => (locations.push(options.location), withProgress(options, task));
    await settings().update('requestTimeoutSeconds', 1, vscode.ConfigurationTarget.Global);
    spy.messages.length = 0;
    try {
      await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'task', key: t.id, serverId: t.serverId });
    } finally {
      w.withProgress = withProgress;
      await settings().update('requestTimeoutSeconds', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.deepEqual(locations, [{ viewId: 'mcpTasks.tasks' }], 'the wait for the answer is shown in the Tasks view');
    const said = '"slow" may still be cancelled by the server (its row will show it): Server "mute-cancel" did not answer tasks/cancel within 1 s. If the server needs longer, raise the setting "mcpTasks.requestTimeoutSeconds".';
    await waitFor(() => spy.messages.includes(said), `the warning, among ${JSON.stringify(spy.messages)}`, 5000);
    assert.equal(api.getTask(t.id)?.status, 'working', 'the task is still followed');
    release('mute-cancel');
    await waitFor(() => api.getTask(t.id)?.status === 'cancelled', 'the cancel to land', 15_000);
    await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
    assert.deepEqual(spy.messages.filter((m) => /^"slow( \(.+?\))?" on mute-cancel/.test(m)), [], 'the cancel the user asked for is not told when it lands');
  });
  test('T-REQ-7, T-RCV-5: Cancel Task on a server that answers tasks/cancel while the task works, then forgets the task (tasks/get: -32602): the task is lost, its row says why, and nothing is told (the user ended it)', async function () {
    this.timeout(60_000);
    spy.messages.length = 0;
    const t = await api.runTool(api.getServers().find((s) => s.label === 'late-cancel-forgets')!.id, 'slow', {});
    started.push(t.id);
    // From the palette: the pick this test answers shows that the spy, which records the messages too, sees what the extension shows.
    spy.skipShown();
    const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask');
    await choose(await spy.next('the Cancel Task pick'), (i) => i.description === 'late-cancel-forgets', 'the task of late-cancel-forgets');
    await cancelling;
    assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.statusMessage], ['working', 'Cancelling…'], 'the server answered tasks/cancel with the task still working');
    release('late-cancel-forgets');
    await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost once its server forgets it', 15_000);
    assert.match(api.getTask(t.id)?.note ?? '', /no longer knows the task \(unknown task\)/, 'the row says what happened');
    await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
    assert.deepEqual(spy.messages.filter((m) => /^"slow( \(.+?\))?" on late-cancel-forgets/.test(m)), [], 'losing a task the user cancelled is not told');
  });
  test('Disconnect or Restart while a Cancel Task is on its way: no "Could not cancel" beside the command the user asked for; the row says the task is lost with its process, and its end is not told', async function () {
    this.timeout(60_000);
    const server = api.getServers().find((s) => s.label === 'mute-closed')!;
    for (const command of ['disconnectServer', 'restartServer']) {
      const t = await api.runTool(server.id, 'slow', {});
      started.push(t.id);
      spy.messages.length = 0;
      const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'task', key: t.id, serverId: t.serverId });
      // The server has it (its task says so) and does not answer.
      await waitFor(() => api.getTask(t.id)?.statusMessage === 'Cancelling…', 'the tasks/cancel to reach the server', 15_000);
      await vscode.commands.executeCommand(`mcpTasks.${command}`, { kind: 'server', id: server.id, confirmed: true });
      await cancelling;
      assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.note], ['lost', `The server's process ended (${command === 'restartServer' ? 'restarted' : 'disconnected'} by the user).`]);
      await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
      assert.deepEqual(spy.messages.filter((m) => m.includes('slow') || /cancel/i.test(m)), [], `nothing told after ${command}`);
    }
  });

  test('a Cancel Task whose server\'s process dies before it answers says, once, that the task is lost with its server: not "Could not cancel" and the closed connection', async function () {
    this.timeout(60_000);
    const server = api.getServers().find((s) => s.label === 'mute-closed')!;
    const t = await api.runTool(server.id, 'slow', {});
    started.push(t.id);
    spy.messages.length = 0;
    const cancelling = vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'task', key: t.id, serverId: t.serverId });
    await waitFor(() => api.getTask(t.id)?.statusMessage === 'Cancelling…', 'the tasks/cancel to reach the server', 15_000);
    release('mute-closed', 'SIGKILL');
    await cancelling;
    assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.note], ['lost', "The server's process ended (Server process was killed by SIGKILL)."]);
    await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
    // Named with when it started if earlier runs of slow are listed.
    assert.deepEqual(spy.messages.filter((m) => m.includes('slow') || /cancel/i.test(m)).map((m) => m.replace(/^"slow \(.+?\)"/, '"slow"')), ['"slow" is lost: its server stopped before it answered the cancel (Server process was killed by SIGKILL).']);
  });
});
