// Run Tool as Task when the server answers -32042 (URLElicitationRequiredError), inside the real
// extension host: the user is told a step in the browser comes first, each URL is offered with the
// consent of URL elicitation (nothing opens before Open; the spec's rule for URL mode), and once
// opened, Run Again sends the same call again. A task whose result is -32042 is told so by its
// notification (every step with its domain when there are several), and the chat tools tell the
// model the step and its domain, never the URL. The server is
// test/fixtures/servers/url-required.mjs, which refuses the first call of each account. The
// editor leaves `env` writable while tests run: openExternal is replaced and restored.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import type { McpTasksTestingApi, TreeSnapshotNode as Row } from './helpers';
import { QuickInputSpy, choose, chooseTtl, fillArguments } from './quickInputs';
import { cleanUp, invoke, publicApi } from './taskApiHelpers';

type Opener = { openExternal(target: unknown): Thenable<boolean> };

/** out/test/integration -> the fixture in the sources. */
const SERVER = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'servers', 'url-required.mjs');
const LABEL = 'url-required';
const TITLE = (tool: string) => `"${tool}" on ${LABEL} needs you to complete a step in your browser first`;
const authUrl = (account: string) => `https://auth.example.com/connect?account=${account}&return=https%3A%2F%2Fapp.example%2Fdone`;

suite('Run Tool as Task: a call the server refuses until a step in the browser (-32042)', () => {
  let testing: McpTasksTestingApi;
  let api: McpTasksApi;
  let spy: QuickInputSpy;
  const env = vscode.env as unknown as Opener;
  const original = env.openExternal;
  let opened: unknown[] = [];
  const settings = () => vscode.workspace.getConfiguration('mcpTasks');

  const serverRow = async () => {
    const row = ((await testing.getTreeSnapshot()) as Row[]).find((r) => r.label === LABEL && serverIdOf(r) !== undefined);
    assert.ok(row?.id, `no server row labelled ${LABEL}`);
    return row;
  };
  const taskIds = async () => new Set(((await serverRow()).children ?? []).filter((r) => r.id?.startsWith('task:')).map((r) => r.id!.slice('task:'.length)));
  const serverId = async () => serverIdOf(await serverRow())!;
  const newTask = async (before: Set<string>, what: string) => waitFor(async () => [...(await taskIds())].find((t) => !before.has(t)), what);

  /** Runs `tool` for `account` from the server's row, through the arguments and ttl steps; resolves when the command ends. */
  async function runTool(tool: string, account: string): Promise<Thenable<unknown>> {
    spy.skipShown();
    const done = vscode.commands.executeCommand('mcpTasks.runToolAsTask', { kind: 'server', id: await serverId() });
    await choose(await spy.next('the tool pick', 30_000), (i) => i.label === tool, tool);
    await fillArguments(spy, tool, { account });
    await chooseTtl(spy, tool);
    return done;
  }

  /** What the server received and how many calls of that account it had, from a task's result. */
  const received = async (id: string) => {
    const r = await api.getResult(id, { waitSeconds: 10 });
    assert.equal(r.outcome?.kind, 'result', JSON.stringify(r));
    return r.outcome.kind === 'result' ? r.outcome.result.structuredContent : undefined;
  };

  suiteSetup(async function () {
    this.timeout(30_000);
    testing = testingApi(await activateExtension());
    api = await publicApi();
    spy = new QuickInputSpy();
    env.openExternal = (target) => (opened.push(target), Promise.resolve(true));
    await settings().update('servers', { [LABEL]: { type: 'stdio', command: 'node', args: [SERVER] } }, vscode.ConfigurationTarget.Global);
    await waitFor(async () => ((await testing.getTreeSnapshot()) as Row[]).some((r) => r.label === LABEL), 'the url-required server row');
  });

  /**
   * Runs `body` with the notifications that match `toast` answered by their first button, as the
   * user's click (toasts are not shown in this test mode); the others show as usual.
   */
  async function clicking(toast: RegExp, body: () => Promise<void>): Promise<void> {
    const w = vscode.window as unknown as { showInformationMessage: (...args: unknown[]) => Thenable<unknown> };
    const info = w.showInformationMessage;
    w.showInformationMessage = (...args) => {
      const shown = info.apply(vscode.window, args);
      return toast.test(String(args[0])) ? Promise.resolve(args[1]) : shown;
    };
    try {
      await body();
    } finally {
      w.showInformationMessage = info;
    }
  }

  setup(() => (opened = []));

  suiteTeardown(async () => {
    env.openExternal = original;
    spy?.dispose();
    await cleanUp(api, api.getTasks().map((t) => t.id));
    await removeSettingServers();
  });

  test('the user is told, consents to the URL (opened exactly as shown), and Run Again sends the same call, which runs', async function () {
    this.timeout(60_000);
    const before = await taskIds();
    await runTool('connect', 'octo');
    const consent = await spy.next('the consent to open the URL');
    assert.equal(consent.title, TITLE('connect'));
    assert.equal(consent.text, 'Sign in to connect octo (auth.example.com)');
    assert.deepEqual([consent.items[0].icon, consent.items[0].label], ['link-external', 'Open auth.example.com']);
    assert.equal(consent.items[0].detail, authUrl('octo'), 'the full URL is shown before consent');
    assert.deepEqual(opened, [], 'nothing is opened before the user consents');
    assert.deepEqual(await taskIds(), before, 'the refused call started no task');
    await choose(consent, (i) => i.label.endsWith('Open auth.example.com'), 'Open');

    const again = await spy.next('the offer to run the call again');
    assert.deepEqual(opened, [authUrl('octo')]);
    assert.equal(again.title, TITLE('connect'));
    assert.deepEqual(again.items.map((i) => [i.icon, i.label]), [['refresh', 'Run Again'], ['close', 'Not Now']]);
    await choose(again, (i) => i.label.endsWith('Run Again'), 'Run Again');
    const id = await newTask(before, 'the task of the call run again');
    assert.deepEqual(await received(id), { received: { account: 'octo' }, calls: 2 }, 'the same arguments, in a second call');
  });

  test('Decline on the consent ends quietly: nothing is opened, nothing runs again, nothing else is shown', async function () {
    this.timeout(60_000);
    const before = await taskIds();
    const messages = spy.messages.length;
    const done = await runTool('connect', 'declined');
    const consent = await spy.next('the consent to open the URL');
    assert.equal(consent.title, TITLE('connect'));
    await choose(consent, (i) => i.label.endsWith('Decline'), 'Decline');
    await done;
    // Whatever would follow a Decline would show by now.
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(opened, []);
    assert.equal(spy.shown.length, spy.shown.indexOf(consent) + 1, `nothing was shown after the consent: ${JSON.stringify(spy.shown.slice(-2).map((s) => s.title))}`);
    // (A task of the test before may still tell that it ended.)
    assert.deepEqual(spy.messages.slice(messages).filter((m) => /Could not|requires more information/.test(m)), [], 'no error is shown');
    assert.deepEqual(await taskIds(), before, 'nothing ran');
  });

  test('unusable URLs (a javascript: URL) are not offered: the error names the server and says why', async function () {
    this.timeout(60_000);
    const messages = spy.messages.length;
    await runTool('connect-broken', 'mallory');
    const error = await waitFor(() => spy.messages.slice(messages).find((m) => m.startsWith('Could not run')), 'the error message');
    assert.equal(
      error,
      `Could not run "connect-broken" on ${LABEL}: This request requires more information. (the server asks for a step in the browser, but elicitation 1 is invalid: url must be http or https, not javascript)`,
    );
    assert.ok(!spy.shown.some((s) => s.title === TITLE('connect-broken')), 'no consent was shown');
    assert.deepEqual(opened, []);
  });

  test('a task whose result is the -32042 error: Open Result shows it and offers the URL, then runs the call again', async function () {
    this.timeout(60_000);
    const before = await taskIds();
    await runTool('connect-later', 'later');
    const failed = await newTask(before, 'the task that fails');
    await waitFor(() => api.getTask(failed)?.status === 'failed', 'the task to fail');
    const outcome = await api.getResult(failed, { waitSeconds: 10 });
    assert.equal(outcome.outcome?.kind === 'error' && outcome.outcome.error.code, -32042);
    spy.skipShown();
    const shown = vscode.commands.executeCommand('mcpTasks.openResult', { kind: 'task', key: failed, serverId: await serverId() });
    const consent = await spy.next('the consent to open the URL');
    assert.equal(consent.title, TITLE('connect-later'));
    assert.match(vscode.window.activeTextEditor?.document.getText() ?? '', /The server answered with error -32042/, 'the result is shown under the consent');
    await choose(consent, (i) => i.label.endsWith('Open auth.example.com'), 'Open');
    await choose(await spy.next('the offer to run the call again'), (i) => i.label.endsWith('Run Again'), 'Run Again');
    await shown;
    assert.deepEqual(opened, [authUrl('later')]);
    const id = await waitFor(async () => [...(await taskIds())].find((t) => !before.has(t) && t !== failed), 'the task of the call run again');
    assert.deepEqual(await received(id), { received: { account: 'later' }, calls: 2 });
  });
  test('a task that ends with the -32042 error is told once, as a step in the browser, and Continue offers the URL, then runs the call again', async function () {
    this.timeout(60_000);
    const before = await taskIds();
    const messages = spy.messages.length;
    const browser = /needs a step in your browser/;
    await clicking(browser, async () => {
      spy.skipShown();
      const failed = await api.runTool(await serverId(), 'connect-later', { arguments: { account: 'toast' } });
      const told = await waitFor(() => spy.messages.slice(messages).find((m) => browser.test(m)), 'the notification of the task');
      // Named as its row is: the test before ran connect-later too, so it says when this run started.
      assert.equal(told.replace(/^"connect-later \(.+?\)"/, '"connect-later"'), `"connect-later" on ${LABEL} needs a step in your browser first: Sign in to connect toast (auth.example.com).`);
      assert.deepEqual(spy.messageItems[spy.messages.indexOf(told)], ['Continue…']);
      assert.equal(api.getTask(failed.id)?.status, 'failed');
      const consent = await spy.next('the consent to open the URL');
      assert.equal(consent.title, TITLE('connect-later'));
      await choose(consent, (i) => i.label.endsWith('Open auth.example.com'), 'Open');
      await choose(await spy.next('the offer to run the call again'), (i) => i.label.endsWith('Run Again'), 'Run Again');
      const id = await waitFor(async () => [...(await taskIds())].find((t) => !before.has(t) && t !== failed.id), 'the task of the call run again');
      assert.deepEqual(await received(id), { received: { account: 'toast' }, calls: 2 });
      assert.deepEqual(opened, [authUrl('toast')]);
      // (The task run again completes, and may say so.)
      assert.deepEqual(spy.messages.slice(messages).filter((m) => /"connect-later( \(.+?\))?"/.test(m) && !m.endsWith(': completed')), [told], 'one notification for the task, not a "failed" one as well');
    });
  });

  test('a task that ends with a -32042 error of two URLs is told with both steps and their domains, and Continue offers each URL in turn', async function () {
    this.timeout(60_000);
    const messages = spy.messages.length;
    await clicking(/needs 2 steps in your browser/, async () => {
      spy.skipShown();
      await api.runTool(await serverId(), 'connect-later-2', { arguments: { account: 'two' } });
      const told = await waitFor(() => spy.messages.slice(messages).find((m) => m.includes('"connect-later-2"')), 'the notification of the task');
      assert.equal(told, `"connect-later-2" on ${LABEL} needs 2 steps in your browser first: Sign in to connect two (auth.example.com); Approve the plan of two (pay.example.com).`);
      assert.deepEqual(spy.messageItems[spy.messages.indexOf(told)], ['Continue…']);
      const first = await spy.next('the consent to open the first URL');
      assert.equal(first.title, `${TITLE('connect-later-2')} (1/2)`);
      await choose(first, (i) => i.label.endsWith('Open auth.example.com'), 'Open');
      const second = await spy.next('the consent to open the second URL');
      assert.equal(second.title, `${TITLE('connect-later-2')} (2/2)`);
      assert.equal(second.text, 'Approve the plan of two (pay.example.com)');
      await choose(second, (i) => i.label.endsWith('Decline'), 'Decline');
      assert.deepEqual(opened, [authUrl('two')], 'the URL declined is not opened');
    });
  });

  test('chat: mcpTasks_startTask refused with -32042 tells the model a step in the browser is needed, with the domain, never the URL', async function () {
    this.timeout(60_000);
    const call = Promise.resolve(vscode.lm.invokeTool('mcpTasks_startTask', { input: { server: LABEL, tool: 'connect', arguments: { account: 'chat' } }, toolInvocationToken: undefined }));
    const err = await call.then(
      () => assert.fail('the tool answered as if a task had started'),
      (e: unknown) => e as Error,
    );
    assert.equal(
      err.message,
      'This request requires more information. No task was started. The user must first complete in their browser: Sign in to connect chat (auth.example.com). Run Tool as Task in the MCP Tasks view opens the URL with their consent, then runs the tool again.',
    );
    assert.deepEqual(opened, []);
  });

  test('chat: mcpTasks_getResult of a task whose result is -32042 names the step and its domain, never the URL, and says how the user goes on', async function () {
    this.timeout(60_000);
    const started = await invoke('mcpTasks_startTask', { server: LABEL, tool: 'connect-later', arguments: { account: 'chat-later' } });
    const taskId = (started.data.task as { taskId: string }).taskId;
    const a = await invoke('mcpTasks_getResult', { server: LABEL, taskId, waitSeconds: 30 });
    assert.ok(!/https?:|auth\.example\.com\/connect/.test(a.text + JSON.stringify(a.data)), `no URL reaches the model: ${a.text}\n${JSON.stringify(a.data)}`);
    assert.match(
      a.text,
      /\nThe server answered with JSON-RPC error -32042: This request requires more information\.\nThe user must first complete in their browser: Sign in to connect chat-later \(auth\.example\.com\)\. Open Result on this task in the MCP Tasks view opens the URL with their consent, then runs the tool again\.$/,
    );
    assert.deepEqual(a.data.error, { code: -32042, message: 'This request requires more information.' });
  });
});
