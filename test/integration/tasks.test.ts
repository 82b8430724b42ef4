// Commands and view states inside the real extension host, against real stdio servers of the
// workspace test/fixtures/workspaces/basic: `demo` (demo/server.mjs) and `everything`.
//
// The commands' quick inputs are the editor's own. The test answers them with the workbench's
// quick-open commands (select next, accept), after a spy on `vscode.window` says which quick
// input is up and what it lists. The spy only observes, with one exception: `type()` puts a text
// in the next input box, as a person typing there would (code here cannot type into the page).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateExtension, testingApi, waitFor } from './helpers';
import type { McpTasksTestingApi } from './helpers';

/** A tree row as the extension's `testing.getTreeSnapshot()` gives it. */
interface Row {
  id?: string;
  label: string;
  description?: string;
  contextValue?: string;
  icon?: string;
  children?: Row[];
}

/** What a quick input showed: its kind, title, placeholder or prompt, and its items. */
interface Shown {
  kind: 'pick' | 'input';
  title?: string;
  text?: string;
  items: Array<{ label: string; description?: string }>;
}

/** Records every quick input and message the extension shows, and types into input boxes on request. */
class QuickInputSpy implements vscode.Disposable {
  readonly shown: Shown[] = [];
  readonly messages: string[] = [];
  private consumed = 0;
  private readonly typed: string[] = [];
  private readonly restore: Array<() => void> = [];

  constructor() {
    const w = vscode.window as unknown as Record<string, (...args: unknown[]) => unknown>;
    const wrap = (name: string, around: (orig: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown) => {
      const orig = w[name];
      w[name] = around(orig);
      this.restore.push(() => (w[name] = orig));
    };
    const labels = (items: readonly vscode.QuickPickItem[]) => items.map((i) => ({ label: i.label, description: i.description }));
    wrap('showQuickPick', (orig) => (items, options, token) => {
      const o = options as vscode.QuickPickOptions | undefined;
      void Promise.resolve(items as Thenable<vscode.QuickPickItem[]>).then((list) => this.shown.push({ kind: 'pick', title: o?.title, text: o?.placeHolder, items: labels(list) }));
      return orig.call(vscode.window, items, options, token);
    });
    wrap('showInputBox', (orig) => (options, token) => {
      const o = { ...(options as vscode.InputBoxOptions | undefined) };
      const text = this.typed.shift();
      if (text !== undefined) o.value = text;
      this.shown.push({ kind: 'input', title: o.title, text: o.prompt, items: [] });
      return orig.call(vscode.window, o, token);
    });
    wrap('createQuickPick', (orig) => () => {
      const qp = orig.call(vscode.window) as vscode.QuickPick<vscode.QuickPickItem>;
      const show = qp.show.bind(qp);
      qp.show = () => (this.shown.push({ kind: 'pick', title: qp.title, text: qp.placeholder, items: labels(qp.items) }), show());
      return qp;
    });
    for (const name of ['showInformationMessage', 'showWarningMessage', 'showErrorMessage']) {
      wrap(name, (orig) => (...args) => (this.messages.push(String(args[0])), orig.apply(vscode.window, args)));
    }
  }

  /** The next input box shows `text` as its value, as if typed. */
  type(text: string): void {
    this.typed.push(text);
  }

  /** Waits for the next quick input not seen yet. */
  async next(what: string, timeoutMs = 15_000): Promise<Shown> {
    const shown = await waitFor(() => this.shown[this.consumed], what, timeoutMs);
    this.consumed++;
    return shown;
  }

  /** Skips every quick input shown so far. */
  skipShown(): void {
    this.consumed = this.shown.length;
  }

  dispose(): void {
    for (const r of this.restore.reverse()) r();
  }
}

/** Moves the focus of the open quick pick to the item that `match` finds, and accepts it. */
async function choose(shown: Shown, match: (item: Shown['items'][number]) => boolean, what: string): Promise<void> {
  const index = shown.items.findIndex(match);
  assert.ok(index >= 0, `${what} is not among ${JSON.stringify(shown.items.map((i) => i.label))}`);
  for (let i = 0; i < index; i++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
  await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
}

const accept = () => vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
/** A tool in the tool pick: its title is the label, its name leads the description. */
const tool = (name: string) => (i: Shown['items'][number]) => i.label === name || (i.description ?? '').startsWith(`${name} · `);
const words = (contextValue: string | undefined) => new Set((contextValue ?? '').split(' '));

suite('Commands and the Tasks view, with the demo server', () => {
  let testing: McpTasksTestingApi;
  let spy: QuickInputSpy;

  const rows = async () => (await testing.getTreeSnapshot()) as Row[];
  const server = async (label: string) => {
    const row = (await rows()).find((r) => r.label === label && r.id?.startsWith('server:'));
    assert.ok(row?.id, `no server row labelled ${label}`);
    return row;
  };
  /** The argument a command gets from a row of the view. */
  const serverNode = async (label: string) => ({ kind: 'server', id: (await server(label)).id!.slice('server:'.length) });
  const taskNode = (row: Row, serverId: string) => ({ kind: 'task', key: row.id!.slice('task:'.length), serverId });
  const taskRows = async (serverLabel: string) => (await server(serverLabel)).children?.filter((r) => r.id?.startsWith('task:')) ?? [];
  const taskRow = async (serverLabel: string, id: string) => (await taskRows(serverLabel)).find((r) => r.id === id);
  /** Waits until the server's row reads `description`. */
  const serverReads = (label: string, description: string | RegExp, timeoutMs = 15_000) =>
    waitFor(
      async () => {
        const row = await server(label);
        return (typeof description === 'string' ? row.description === description : description.test(row.description ?? '')) ? row : undefined;
      },
      `the ${label} row to read ${description}`,
      timeoutMs,
    );

  /**
   * Runs Tool as Task from the server's row: picks `toolName` in the tool pick and, when the tool
   * takes arguments, accepts the input box (with `typed` in it, if given). Returns the new task's row.
   */
  async function runTool(serverLabel: string, toolName: string, typed?: string): Promise<{ row: Row; node: ReturnType<typeof taskNode> }> {
    const node = await serverNode(serverLabel);
    const before = new Set((await taskRows(serverLabel)).map((r) => r.id));
    spy.skipShown();
    if (typed !== undefined) spy.type(typed);
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask', node);
    const pick = await spy.next('the tool pick', 30_000);
    assert.match(pick.title ?? '', new RegExp(`tool of ${serverLabel}`));
    await choose(pick, tool(toolName), toolName);
    if (typed !== undefined) {
      const box = await spy.next('the arguments input box');
      assert.match(box.title ?? '', new RegExp(`arguments of ${toolName}`));
      await accept();
    }
    await done;
    const row = await waitFor(async () => (await taskRows(serverLabel)).find((r) => !before.has(r.id)), `a new task row under ${serverLabel}`);
    assert.equal(row.label, toolName, 'the row is labelled with the tool name');
    return { row, node: taskNode(row, node.id) };
  }

  /** Waits until the task's row satisfies `ok`. */
  const rowWhen = (serverLabel: string, id: string, ok: (r: Row) => boolean, what: string, timeoutMs = 15_000) =>
    waitFor(async () => {
      const r = await taskRow(serverLabel, id);
      return r && ok(r) ? r : undefined;
    }, what, timeoutMs);

  suiteSetup(async () => {
    testing = testingApi(await activateExtension());
    await testing.whenConfigurationLoaded?.();
    await vscode.commands.executeCommand('mcpTasks.tasks.focus');
    spy = new QuickInputSpy();
  });

  suiteTeardown(async () => {
    spy?.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    // The stdio servers end with their connections.
    for (const label of ['demo', 'everything']) await vscode.commands.executeCommand('mcpTasks.disconnectServer', await serverNode(label));
  });

  test('Connect Server with a server row: the row reads "connected · tasks: tools/call, list, cancel"', async () => {
    await vscode.commands.executeCommand('mcpTasks.connectServer', await serverNode('demo'));
    const row = await serverReads('demo', 'connected · tasks: tools/call, list, cancel');
    assert.equal(row.icon, 'pass-filled');
    assert.ok(words(row.contextValue).has('disconnectable'), `contextValue ${row.contextValue}`);
  });

  test('Restart Server with a server row: disconnects and connects again', async () => {
    await vscode.commands.executeCommand('mcpTasks.restartServer', await serverNode('demo'));
    await serverReads('demo', 'connected · tasks: tools/call, list, cancel');
  });

  test('Disconnect Server with a server row: the row reads "not connected" and offers Connect', async () => {
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', await serverNode('demo'));
    const row = await serverReads('demo', 'not connected');
    assert.ok(words(row.contextValue).has('connectable'), `contextValue ${row.contextValue}`);
  });

  test('Connect Server from the palette asks which server, among those not connected', async () => {
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.connectServer');
    const pick = await spy.next('the server pick');
    assert.ok(!pick.items.some((i) => i.description?.startsWith('connected')), 'connected servers are not offered');
    await choose(pick, (i) => i.label === 'demo', 'demo');
    await done;
    await serverReads('demo', /^connected · /);
  });

  test('Run Tool as Task, get-time (no input): a direct call whose row completes with a result', async () => {
    const { row } = await runTool('demo', 'get-time');
    const done = await rowWhen('demo', row.id!, (r) => r.icon === 'pass', 'get-time to complete');
    assert.match(done.description ?? '', /^Completed · \d+ s$/);
    const caps = words(done.contextValue);
    for (const w of ['task', 'direct', 'hasResult', 'finished']) assert.ok(caps.has(w), `"${w}" in ${done.contextValue}`);
    assert.ok(!caps.has('cancelable'), `a finished call is not cancelable: ${done.contextValue}`);
  });

  let scan: { row: Row; node: ReturnType<typeof taskNode> };
  test('Run Tool as Task, long-running-scan: a live task row, working and cancelable, under its server', async () => {
    scan = await runTool('demo', 'long-running-scan', '{"durationMs":600000}');
    const live = await rowWhen('demo', scan.row.id!, (r) => /^Scanning… \d+% \(\d+ files\) · (\d+\/\d+|\d+%) · \d+ s$/.test(r.description ?? ''), 'the scan to report its status and progress');
    assert.equal(live.icon, 'sync~spin');
    const caps = words(live.contextValue);
    for (const w of ['task', 'cancelable', 'live']) assert.ok(caps.has(w), `"${w}" in ${live.contextValue}`);
    assert.ok(!caps.has('hasResult'), `no result yet: ${live.contextValue}`);
  });

  test('Cancel Task with the row: the task ends Cancelled and is no longer cancelable', async () => {
    await vscode.commands.executeCommand('mcpTasks.cancelTask', scan.node);
    const row = await rowWhen('demo', scan.row.id!, (r) => r.icon === 'circle-slash', 'the scan to be cancelled');
    const caps = words(row.contextValue);
    assert.ok(caps.has('finished') && !caps.has('cancelable') && !caps.has('live'), `contextValue ${row.contextValue}`);
    // A finished row leads with its status; the server's last message may follow.
    assert.match(row.description ?? '', /^Cancelled · /);
  });

  /** Every task row of every server. */
  const allTaskRows = async () => (await rows()).flatMap((r) => r.children ?? []).filter((r) => r.id?.startsWith('task:'));

  test('Cancel Task with nothing running says so', async () => {
    // Other suites may have left tasks running: end them first, through the same command.
    for (const server of await rows()) {
      for (const r of server.children ?? []) {
        if (words(r.contextValue).has('cancelable')) await vscode.commands.executeCommand('mcpTasks.cancelTask', taskNode(r, server.id!.slice('server:'.length)));
      }
    }
    await waitFor(async () => (await allTaskRows()).every((r) => words(r.contextValue).has('finished')), 'every task to be finished');
    spy.messages.length = 0;
    await vscode.commands.executeCommand('mcpTasks.cancelTask');
    assert.ok(spy.messages.includes('No task is running.'), JSON.stringify(spy.messages));
  });

  let build: { row: Row; node: ReturnType<typeof taskNode> };
  test('Run Tool as Task, build-project with typed arguments: the task completes and its row offers the result', async function () {
    this.timeout(30_000);
    build = await runTool('demo', 'build-project', '{"project":"integration-app","durationMs":600}');
    const row = await rowWhen('demo', build.row.id!, (r) => r.icon === 'pass', 'the build to complete');
    // The server's last status message (after the status, see the research test), then the age.
    assert.match(row.description ?? '', /^(Completed · )?Build succeeded in [\d.]+ s · \d+ s$/);
    const caps = words(row.contextValue);
    for (const w of ['task', 'hasResult', 'finished']) assert.ok(caps.has(w), `"${w}" in ${row.contextValue}`);
  });

  /** The text of the active editor once it shows a task result containing `text`. */
  const resultEditor = (text: string) =>
    waitFor(() => {
      const doc = vscode.window.activeTextEditor?.document;
      return doc?.uri.scheme === 'mcp-task-result' && doc.getText().includes(text) ? doc : undefined;
    }, `a result document containing ${JSON.stringify(text)}`);

  test('Open Result with the row: an mcp-task-result document with the tool\'s text', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpTasks.openResult', build.node);
    const doc = await resultEditor('Build of integration-app succeeded');
    assert.equal(doc.isDirty, false);
  });

  test('Fetch Task Result from the palette: picks among the tasks, newest first, and opens the result', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.fetchResult');
    const pick = await spy.next('the task pick');
    assert.match(pick.items[0]?.label ?? '', /build-project$/, 'the newest task comes first');
    await accept();
    await done;
    await resultEditor('Build of integration-app succeeded');
  });

  test('Fetch Task Result with the row opens the same result', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpTasks.fetchResult', build.node);
    await resultEditor('- Artifact: dist/integration-app-1.0.0.tgz');
  });

  test('Respond to Task with nothing waiting says so', async () => {
    assert.ok(!(await allTaskRows()).some((r) => words(r.contextValue).has('respondable')), 'no task waits for input before this test');
    spy.messages.length = 0;
    await vscode.commands.executeCommand('mcpTasks.respondToTask');
    assert.ok(spy.messages.includes('No task is waiting for your input.'), JSON.stringify(spy.messages));
  });

  test('Refresh keeps the servers and their tasks', async () => {
    const before = (await taskRows('demo')).map((r) => r.id);
    await vscode.commands.executeCommand('mcpTasks.refresh');
    await serverReads('demo', /^connected · /);
    assert.deepEqual((await taskRows('demo')).map((r) => r.id), before);
  });

  test('Clear Finished Tasks removes the finished rows and keeps the live one', async function () {
    this.timeout(30_000);
    const live = await runTool('demo', 'long-running-scan', '{"durationMs":600000}');
    assert.ok((await allTaskRows()).some((r) => words(r.contextValue).has('finished')), 'finished tasks to clear');
    await vscode.commands.executeCommand('mcpTasks.clearFinished');
    await waitFor(async () => (await allTaskRows()).every((r) => words(r.contextValue).has('live')), 'only live tasks to remain');
    assert.ok((await taskRows('demo')).some((r) => r.id === live.row.id), 'the live scan is kept');
    await vscode.commands.executeCommand('mcpTasks.cancelTask', live.node);
    await rowWhen('demo', live.row.id!, (r) => r.icon === 'circle-slash', 'the scan to be cancelled');
  });

  test('Clear Stored Results says how many results it deleted', async () => {
    spy.messages.length = 0;
    await vscode.commands.executeCommand('mcpTasks.clearStoredResults');
    await waitFor(() => spy.messages.some((m) => /^Deleted \d+ stored task results\.$/.test(m)), 'the message "Deleted N stored task results."');
  });

  test('Open MCP Configuration opens the workspace\'s .vscode/mcp.json', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpTasks.openConfiguration');
    const doc = await waitFor(() => vscode.window.activeTextEditor?.document, 'an editor');
    assert.match(doc.uri.path, /\/workspaces\/basic\/\.vscode\/mcp\.json$/);
    assert.match(doc.getText(), /"demo"/);
  });

  test('Show Log runs', async () => {
    await vscode.commands.executeCommand('mcpTasks.showLog');
  });

  test('A question from the server (simulate-research-query, ambiguous) is answered in the quick pick; the task completes', async function () {
    this.timeout(45_000);
    const { row, node } = await runTool('everything', 'simulate-research-query', '{"topic":"python","ambiguous":true}');
    // The task waits for the answer: the row says so and offers Respond.
    const waiting = await rowWhen('everything', row.id!, (r) => r.icon === 'bell-dot', 'the task to need input', 20_000);
    assert.ok(words(waiting.contextValue).has('respondable'), `contextValue ${waiting.contextValue}`);
    const question = await spy.next('the question', 20_000);
    assert.match(question.title ?? '', /^simulate-research-query \(server "everything", task /);
    await choose(question, (i) => i.label === 'Python snake species', 'the snake interpretation');
    const review = await spy.next('the review step');
    await choose(review, (i) => i.label.endsWith('Accept'), 'Accept');
    const done = await rowWhen('everything', row.id!, (r) => r.icon === 'pass', 'the research to complete', 20_000);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('mcpTasks.openResult', node);
    await resultEditor('# Research Report: python (snake)');
    // The server never replaced its last working message ("Generating report..."): the row must
    // still say the task completed.
    assert.match(done.description ?? '', /^Completed · /);
  });
});
