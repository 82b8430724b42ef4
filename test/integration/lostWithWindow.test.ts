// Tasks of a stdio server restored after a window reload: the server's process ended with the old
// window, so they are lost. The notifications the user gets then, and their buttons. An engine of
// the test's own restores them as the extension does (before the configuration is read, then
// polled once it is), so no window has to reload.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { TaskHost } from '../../src/core/host/taskHost';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { TaskIndicators } from '../../src/vscode/indicators';
import { registerTaskCommands, type TaskCommandDeps } from '../../src/vscode/taskCommands';
import type { Node } from '../../src/vscode/tree/tasksTree';
import { waitFor } from './helpers';
import { recordToasts } from './quickInputs';
import { storedTask } from './viewParts';
import type { TaskSnapshot } from '../../src/core/tasks/types';
import { createHarness } from '../unit/helpers/fakeTaskServer';
import { RequestTimeoutError } from '../../src/core/jsonrpc/errors';

/** The indicators of a window, over `engine`, with no hosted tasks and every server called `label`. */
const indicatorsOf = (engine: TaskEngine, label: string): TaskIndicators => {
  const host = { onDidExpire: () => ({ dispose: () => undefined }), onDidServerCancel: () => ({ dispose: () => undefined }) } as unknown as TaskHost;
  return new TaskIndicators(engine, host, {} as vscode.TreeView<Node>, () => label);
};

suite('Tasks of a stdio server lost with a reloaded window', () => {
  let toasts: ReturnType<typeof recordToasts>;
  let told: Array<[string, string[]]>;
  let choices: Array<(c: string | undefined) => void>;
  let engine: TaskEngine;
  let indicators: TaskIndicators;
  /** The configuration has been read: the server is known, and is a stdio one. */
  let known = false;

  setup(() => {
    known = false;
    toasts = recordToasts('showWarningMessage');
    ({ told, choices } = toasts);
    engine = new TaskEngine({
      logger: nullLogger,
      sessions: {
        getSession: () => Promise.reject(new Error('not started')),
        label: () => 'lab',
        tasksOutliveConnection: () => (known ? false : undefined),
        isConfigured: () => (known ? true : undefined),
      },
    });
    indicators = indicatorsOf(engine, 'lab');
  });

  teardown(() => {
    toasts.dispose();
    indicators.dispose();
    engine.dispose();
  });

  /** Restores `tasks` before the configuration is read, as a reload does; then reads it. */
  const reload = async (...tasks: Parameters<typeof storedTask>[]) => {
    engine.restore(tasks.map((t) => storedTask(...t)));
    // Their first polls find no configuration yet: they wait for it.
    await waitFor(() => engine.followedCount === 0, 'the first polls');
    known = true;
    engine.serversChanged();
  };

  test('all of them are told in one warning that says the window took them, with Show Tasks', async () => {
    await reload(
      ['settings:lab', 't1', { status: 'working', toolName: 'slow' }],
      ['settings:lab', 't2', { status: 'input_required', toolName: 'ask' }],
      ['settings:lab', 't3', { status: 'working', toolName: 'slow' }],
    );
    await waitFor(() => told.length, 'the warning');
    assert.deepEqual(told, [
      ["3 tasks on lab were lost when the window closed: a stdio server's process ends with the window, and a new one does not know its tasks. Run them again if you still need them.", ['Show Tasks']],
    ]);
  });

  test('one the user removes from the list while they are gathered (Remove from List, Clear Finished) is not counted when they are told', async () => {
    await reload(
      ['settings:lab', 't1', { status: 'working', toolName: 'slow' }],
      ['settings:lab', 't2', { status: 'working', toolName: 'slow' }],
      ['settings:lab', 't3', { status: 'working', toolName: 'slow' }],
    );
    await waitFor(() => engine.list().every((t) => t.status === 'lost'), 'every task lost');
    // Held until none has come for 2 s: the user removes one meanwhile.
    engine.remove(engine.list().find((t) => t.taskId === 't1')!.key);
    await waitFor(() => told.length, 'the warning');
    assert.deepEqual(told, [
      ["2 tasks on lab were lost when the window closed: a stdio server's process ends with the window, and a new one does not know its tasks. Run them again if you still need them.", ['Show Tasks']],
    ]);
  });

  test('many found lost one poll after another, over seconds, are told in one warning too (not one per 100 ms)', async function () {
    this.timeout(60_000);
    // The configuration is read before their first polls, which are staggered (5 ms apart): each poll finds its task lost in turn, 400 over 2 s.
    engine.restore(Array.from({ length: 400 }, (_, i) => storedTask('settings:lab', `t${i}`, { status: 'working', toolName: 'slow' })));
    known = true;
    await waitFor(() => engine.list().every((t) => t.status === 'lost'), 'every task lost', 30_000);
    await waitFor(() => told.length, 'the warning');
    assert.deepEqual(told, [
      [`${(400).toLocaleString()} tasks on lab were lost when the window closed: a stdio server's process ends with the window, and a new one does not know its tasks. Run them again if you still need them.`, ['Show Tasks']],
    ]);
  });

  test('one of them is told with Run Again, which runs the command Run Again (its tool again, with the same arguments) on its row', async () => {
    const ran: unknown[][] = [];
    const { commands } = vscode;
    const execute = commands.executeCommand;
    commands.executeCommand = (id: string, ...args: unknown[]) => (id === 'mcpTasks.runAgain' ? (ran.push([id, ...args]), Promise.resolve()) : execute(id, ...args)) as Thenable<never>;
    try {
      await reload(['settings:lab', 't1', { status: 'working', toolName: 'slow', arguments: { seconds: 30 } }]);
      await waitFor(() => told.length, 'the warning');
      assert.deepEqual(told, [
        ['"slow" on lab: lost. The window closed, and with it the server\'s process that ran it; a new process does not know its tasks.', ['Run Again']],
      ]);
      choices[0]('Run Again');
      await waitFor(() => ran.length, 'the command');
      assert.deepEqual(ran, [['mcpTasks.runAgain', { kind: 'task', key: engine.list()[0].key, serverId: 'settings:lab' }]]);
    } finally {
      commands.executeCommand = execute;
    }
  });

  test('a lost run of a tool run more than once on its server is named as its row names it, with when it started', async () => {
    const [earlier, later] = [new Date(Date.now() - 120_000).toISOString(), new Date(Date.now() - 60_000).toISOString()];
    await reload(['settings:lab', 't1', { status: 'completed', toolName: 'slow', createdAt: earlier }], ['settings:lab', 't2', { status: 'working', toolName: 'slow', createdAt: later }]);
    await waitFor(() => told.length, 'the warning');
    assert.equal(told[0][0].split(' on lab:')[0], `"slow (${new Date(later).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' })})"`);
  });
});

suite('A cancel the user asked for before a window reload', () => {
  test('T-REQ-7: the task found cancelled after the reload is not told (the user asked for it), though no command of the new window marked it', async function () {
    this.timeout(20_000);
    const h = await createHarness({ server: { pollInterval: 50 } });
    const toasts = [recordToasts('showInformationMessage'), recordToasts('showWarningMessage')];
    const t = await h.engine.callTool('fake', 'required-tool');
    // The server takes the cancel and carries it out later: it answers with the task still working.
    h.server.override('tasks/cancel', () => h.server.task(t.taskId));
    await h.engine.cancel(t.key);
    // The next window restores what this one kept, and follows the task through the same server.
    const engine = new TaskEngine({ logger: nullLogger, minPollMs: 1, sessions: { getSession: async () => h.session, label: () => 'fake', tasksOutliveConnection: () => true } });
    engine.restore([JSON.parse(JSON.stringify(h.engine.get(t.key))) as TaskSnapshot]);
    h.engine.dispose();
    const indicators = indicatorsOf(engine, 'fake');
    try {
      h.server.setStatus(t.taskId, 'cancelled');
      await waitFor(() => engine.get(t.key)?.status === 'cancelled', 'the cancel to land');
      await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
      assert.deepEqual(toasts.flatMap((x) => x.told), []);
    } finally {
      indicators.dispose();
      engine.dispose();
      toasts.forEach((x) => x.dispose());
      await h.close();
    }
  });
});

suite('A cancel that timed out before it was sent', () => {
  test('T-REQ-7: a cancel that timed out waiting for its server to connect sent nothing: the task\'s later end is told (its server did it)', async function () {
    this.timeout(20_000);
    let connecting = false;
    const h = await createHarness({ server: { pollInterval: 50 }, reachable: () => (connecting ? new RequestTimeoutError('initialize', 1000, 'fake') : true) });
    const toasts = [recordToasts('showInformationMessage'), recordToasts('showWarningMessage')];
    const indicators = indicatorsOf(h.engine, 'fake');
    try {
      const t = await h.engine.callTool('fake', 'required-tool');
      connecting = true;
      await assert.rejects(indicators.endByUser([t.key], () => h.engine.cancel(t.key), true), RequestTimeoutError);
      connecting = false;
      assert.equal(h.engine.get(t.key)?.cancelRequested, undefined, 'no tasks/cancel was sent');
      h.server.setStatus(t.taskId, 'cancelled');
      await waitFor(() => toasts.some((x) => x.told.some(([m]) => m.startsWith('"required-tool" on fake: cancelled'))), 'the end to be told', 5000).catch((e: Error) => assert.fail(`${e.message}, among ${JSON.stringify(toasts.flatMap((x) => x.told))}`));
    } finally {
      indicators.dispose();
      toasts.forEach((x) => x.dispose());
      await h.close();
    }
  });
});

suite('The warning of a Cancel Task that failed', () => {
  test('T-REQ-7: a cancel that timed out waiting for its server to connect (nothing sent) could not cancel; one whose connection closed unanswered (a remote server keeps the task) may still cancel it', async function () {
    this.timeout(20_000);
    let failure: Error | undefined;
    const h = await createHarness({ reachable: () => failure ?? true });
    const toasts = recordToasts('showWarningMessage');
    // The command's own code, over the harness's engine (the extension's commands hold its own).
    const c = vscode.commands as unknown as Record<string, unknown>;
    const register = c.registerCommand;
    const commands = new Map<string, (...args: unknown[]) => Promise<unknown>>();
    c.registerCommand = (id: string, run: (...args: unknown[]) => Promise<unknown>) => (commands.set(id, run), { dispose: () => undefined });
    const none = { dispose: () => undefined };
    try {
      registerTaskCommands({ engine: h.engine, asking: { has: () => false, onDidChange: () => none }, endByUser: (_keys: unknown, end: () => Promise<unknown>) => end() } as unknown as TaskCommandDeps);
    } finally {
      c.registerCommand = register;
    }
    try {
      const cancel = (t: TaskSnapshot) => commands.get('mcpTasks.cancelTask')!({ kind: 'task', key: t.key, serverId: t.serverId });
      const t = await h.engine.callTool('fake', 'required-tool');
      failure = new RequestTimeoutError('initialize', 1000, 'fake');
      await cancel(t);
      failure = undefined;
      h.server.override('tasks/cancel', () => new Promise(() => undefined));
      const u = await h.engine.callTool('fake', 'optional-tool');
      const cancelling = cancel(u);
      await waitFor(() => h.server.received.some((r) => r.method === 'tasks/cancel'), 'the cancel to reach the server', 5000);
      await h.session.close('the server went away');
      await cancelling;
      await waitFor(() => toasts.told.length === 2, 'two warnings', 5000);
      assert.deepEqual(toasts.told.map(([m]) => m), [
        'Could not cancel "required-tool": Server "fake" did not answer initialize within 1 s. If the server needs longer, raise the setting "mcpTasks.requestTimeoutSeconds".',
        '"optional-tool" may still be cancelled by the server (its row will show it): Connection closed: the server went away',
      ]);
    } finally {
      toasts.dispose();
      await h.close();
    }
  });
});
