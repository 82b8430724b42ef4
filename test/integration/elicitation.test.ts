// The elicitation prompter inside the real extension host. Its way out of the editor: the URL a
// server asks the user to open reaches vscode.env.openExternal exactly as the consent prompt
// showed it. A server's question hidden by another quick input waits, unanswered, to be shown
// again; the server dialogs waiting behind it wait for the user too. The editor leaves `env` writable while tests run, so the test replaces
// openExternal and restores it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Answer } from '../../src/core/elicitation/handler';
import type { TaskSnapshot } from '../../src/core/tasks/types';
import { Emitter } from '../../src/core/util/event';
import { nullLogger } from '../../src/core/util/log';
import { Turns } from '../../src/core/util/turns';
import { createElicitationHandler } from '../../src/vscode/elicitation/handler';
import { QuickInputPrompter } from '../../src/vscode/elicitation/quickInputPrompter';
import { HiddenDialogs } from '../../src/vscode/hiddenDialogs';
import { activateExtension, testingApi, waitFor } from './helpers';
import { QuickInputSpy, choose, enter, escape, press, recordToasts } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

type Opener = { openExternal(target: unknown): Thenable<boolean> };

suite('Elicitation in URL mode', () => {
  test('opens the exact URL the user consented to, percent-escapes and all', async () => {
    const env = vscode.env as unknown as Opener;
    const original = env.openExternal;
    const opened: unknown[] = [];
    env.openExternal = (target) => {
      opened.push(target);
      return Promise.resolve(true);
    };
    try {
      // A vscode.Uri would decode %3A %2F %3F %3D %26 %2B and open another page.
      const url = 'https://mcp.example.com/connect?id=abc&return=https%3A%2F%2Fapp.example%2Fdone%3Fa%3D1%26b%3D2&sig=q%2Bk%3D';
      assert.equal(await new QuickInputPrompter().openExternal(url), true);
      assert.deepEqual(opened, [url]);
    } finally {
      env.openExternal = original;
    }
  });
});

suite('A server question hidden without an answer', () => {
  let hidden: HiddenDialogs;
  let prompter: QuickInputPrompter;
  setup(() => {
    hidden = new HiddenDialogs();
    prompter = new QuickInputPrompter({ hidden });
  });
  teardown(() => (prompter.close(), hidden.dispose()));

  // "the server waits": a question may come with a direct call (trigger-elicitation-request of
  // server-everything) or with none, where "the task waits" told of a task that is not there.
  const HINT = 'Escape only hides it: the server waits, and "MCP question" in the status bar shows it again.';
  const items = [
    { label: 'Staging', value: 'staging' },
    { label: 'Production', value: 'production' },
  ];
  /** Shows the Command Palette over the question, until the question waits hidden, and closes the palette. */
  const paletteOver = async () => {
    await vscode.commands.executeCommand('workbench.action.showCommands');
    await waitFor(() => hidden.size === 1, 'the question to wait hidden');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  };

  test('is not answered when another quick input hides it; shown again, it takes the answer', async () => {
    const spy = new QuickInputSpy();
    try {
      let answer: Answer<string[]> | undefined;
      const asked = prompter.pick(items, { title: 'deploy on demo', placeholder: 'Where to?', signal: new AbortController().signal }).then((a) => (answer = a));
      await spy.next('the question');
      await paletteOver();
      assert.equal(answer, undefined, 'no answer went to the server');
      assert.equal(hidden.reopen(), true);
      await spy.next('the question, shown again');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await asked;
      assert.deepEqual(answer, { value: ['staging'] });
      assert.equal(hidden.size, 0);
    } finally {
      spy.dispose();
    }
  });

  test('a text question\'s prompt says that Escape only hides it and how it comes back, as VS Code follows it with "Escape to cancel"; our own commands\' boxes do not', async () => {
    const spy = new QuickInputSpy();
    const ac = new AbortController();
    const ours = new QuickInputPrompter();
    try {
      const input = { title: 'deploy on demo', prompt: 'Service: Name of the service to deploy', value: '', validate: () => undefined, signal: ac.signal };
      const asked = prompter.input(input).catch(() => undefined);
      assert.equal((await spy.next('the question')).text, `Service: Name of the service to deploy · ${HINT}`);
      const own = ours.input(input).catch(() => undefined);
      assert.equal((await spy.next('a box of our own')).text, 'Service: Name of the service to deploy');
      ac.abort();
      await Promise.all([asked, own]);
    } finally {
      ours.close();
      spy.dispose();
    }
  });

  test('a pick step\'s prompt says so too, under the question (Escape hides it as well): alone after a question that fits the placeholder, after a long one; our own commands\' picks do not', async () => {
    const spy = new QuickInputSpy();
    const ours = new QuickInputPrompter();
    const long = 'The research query "tide pools" could have multiple interpretations. Please clarify what you\'re looking for: — Clarification: Which one?';
    /** The prompt of `p`'s pick step asking `placeholder`; the step is withdrawn after. */
    const promptOf = async (p: QuickInputPrompter, placeholder: string, canSelectMany?: boolean) => {
      const ac = new AbortController();
      const asked = p.pick(items, { title: 'deploy on demo', placeholder, canSelectMany, signal: ac.signal }).catch(() => undefined);
      const prompt = ((await spy.next(placeholder)).pick as { prompt?: string } | undefined)?.prompt;
      ac.abort();
      await asked;
      return prompt;
    };
    try {
      assert.equal(await promptOf(prompter, 'Region: Where to deploy'), HINT);
      assert.equal(await promptOf(prompter, long, true), `${long} · ${HINT}`);
      assert.equal(await promptOf(ours, 'Region: Where to deploy'), undefined);
    } finally {
      ours.close();
      spy.dispose();
    }
  });

  test("a server's placeholder (its question, a field's title or pattern) reads as sent on one line: a bidi override or a line break in it is a space, the $( and link kept, in a pick and an input box", async () => {
    const spy = new QuickInputSpy();
    const ours = new QuickInputPrompter();
    const ac = new AbortController();
    const sent = 'Pay to\u202E 1 $(x) [a](https://b)\nok';
    try {
      const picked = ours.pick(items, { title: 't', placeholder: sent, signal: ac.signal }).catch(() => undefined);
      const pick = await spy.next('the pick');
      const typed = ours.input({ title: 't', prompt: 'Amount', placeholder: sent, value: '', validate: () => undefined, signal: ac.signal }).catch(() => undefined);
      const box = await spy.next('the box');
      assert.deepEqual([pick.text, box.text, box.box?.placeholder], ['Pay to  1 $(x) [a](https://b) ok', 'Amount', 'Pay to  1 $(x) [a](https://b) ok']);
      ac.abort();
      await Promise.all([picked, typed]);
    } finally {
      ours.close();
      spy.dispose();
    }
  });

  test('closes when the server withdraws it (or its task ends) while hidden', async () => {
    const ac = new AbortController();
    const asked = prompter.pick(items, { title: 'deploy on demo', placeholder: 'Where to?', signal: ac.signal });
    await paletteOver();
    ac.abort(new Error('the task ended'));
    await assert.rejects(asked, /the task ended/);
    assert.equal(hidden.size, 0, 'nothing is left to reopen');
  });

  test('the status bar item says to screen readers how many questions wait, as it shows, and its tooltip says one server or several', () => {
    const w = vscode.window as unknown as Record<string, unknown>;
    const create = w.createStatusBarItem as typeof vscode.window.createStatusBarItem;
    const items: vscode.StatusBarItem[] = [];
    w.createStatusBarItem = (...args: unknown[]) => {
      const item = (create as (...a: unknown[]) => vscode.StatusBarItem).apply(vscode.window, args);
      items.push(item);
      return item;
    };
    let counted: HiddenDialogs | undefined;
    const inputs = [vscode.window.createQuickPick(), vscode.window.createQuickPick()];
    try {
      counted = new HiddenDialogs();
      assert.equal(items.length, 1, 'one status bar item');
      counted.add(inputs[0]);
      assert.equal(items[0].text, '$(comment-unresolved) MCP question');
      assert.match(String(items[0].tooltip), /^A server waits for your answer\b/, 'one question: one server waits');
      counted.add(inputs[1]);
      assert.equal(items[0].text, '$(comment-unresolved) 2 MCP questions');
      assert.match(String(items[0].tooltip), /^Servers wait for your answer\b/);
      assert.match(items[0].accessibilityInformation?.label ?? '', /\b2 MCP questions\b/, `the label read out: ${items[0].accessibilityInformation?.label}`);
    } finally {
      w.createStatusBarItem = create;
      counted?.dispose();
      for (const input of inputs) input.dispose();
    }
  });

  test('a question too long for the one-line placeholder is the quick pick\'s prompt, shown whole, and not the placeholder too (which says what to do); a short one is not repeated; a review step says the question once, under its own placeholder', async () => {
    const spy = new QuickInputSpy();
    const ask = (placeholder: string, prompt?: string) => {
      const ac = new AbortController();
      const asked = prompter.pick(items, { title: 'research on everything', placeholder, prompt, signal: ac.signal }).catch(() => undefined);
      return async () => (ac.abort(new Error('withdrawn')), await asked);
    };
    try {
      const long = 'The research query "tide pools" could have multiple interpretations. Please clarify what you\'re looking for: — Clarification: Which one?';
      let withdraw = ask(long);
      const shown = await spy.next('the long question');
      // Said once: whole under the input, the placeholder then says what to do (it repeated the question, cut).
      assert.deepEqual([shown.text, (shown.pick as { prompt?: string } | undefined)?.prompt], ['Pick one', `${long} · ${HINT}`]);
      await withdraw();
      withdraw = ask('Where to?');
      assert.equal(((await spy.next('the short question')).pick as { prompt?: string } | undefined)?.prompt, HINT);
      await withdraw();
      // The review step of a form: "Review and send your answers" above, the server's question under it, each once.
      const question = 'Where should this deployment go? Pick the service, its replicas and the region.';
      withdraw = ask('Review and send your answers', question);
      const review = await spy.next('the review step');
      assert.deepEqual([review.text, (review.pick as { prompt?: string } | undefined)?.prompt], ['Review and send your answers', `${question} · ${HINT}`]);
      await withdraw();
    } finally {
      spy.dispose();
    }
  });

  test('a step of our own commands (no place to wait) still answers cancel when hidden', async () => {
    const own = new QuickInputPrompter();
    try {
      const asked = own.pick(items, { title: 'Run Tool as Task', placeholder: 'Pick', signal: new AbortController().signal });
      await vscode.commands.executeCommand('workbench.action.showCommands');
      assert.deepEqual(await asked, { nav: 'cancel' });
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    } finally {
      own.close();
    }
  });
});

suite('Server questions hidden without an answer give up their turn', () => {
  let turns: Turns;
  let hidden: HiddenDialogs;
  let spy: QuickInputSpy;
  setup(() => {
    turns = new Turns();
    hidden = new HiddenDialogs(turns);
    spy = new QuickInputSpy();
  });
  teardown(() => (spy.dispose(), hidden.dispose()));

  const deploy = { message: 'Deploy where?', requestedSchema: { type: 'object', properties: { env: { type: 'string', enum: ['staging', 'production'] }, note: { type: 'string' } }, required: ['env', 'note'] } };
  const goOn = { message: 'Go on?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] } };
  const ctx = (task: string) => ({ serverId: 'srv', relatedTaskId: task, signal: new AbortController().signal });
  /** Answers a "Go on?" question shown as `shown`: Yes, then Accept on its review step. */
  const yes = async (shown: Awaited<ReturnType<QuickInputSpy['next']>>, what: string) => {
    await choose(shown, (i) => i.label === 'Yes', `Yes to ${what}`);
    await choose(await spy.next(`the review step of ${what}`), (i) => i.label.endsWith('Accept'), 'Accept');
  };

  test('the question waiting behind a hidden one does not pop up over what hid it: shown again and answered, the hidden one lets it follow; one asked after a hide shows at once', async function () {
    this.timeout(60_000);
    const handle = createElicitationHandler({ log: nullLogger, serverLabel: () => 'demo', turns, hidden });
    const a = handle(deploy, ctx('a'));
    const b = handle(goOn, ctx('b'));
    await choose(await spy.next('the first step of a'), (i) => i.label === 'staging', 'staging');
    const second = await spy.next('the second step of a');
    assert.match(second.title ?? '', /task a$/);
    await escape();
    await waitFor(() => hidden.size === 1, 'a to wait hidden');
    assert.equal(turns.deferred, 1, 'b waits for the user');
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(spy.shown.at(-1)?.box, second.box, 'b has not popped up');

    // The status item (or Respond to Task...) shows a again, at the step it was hidden at; answered, b follows.
    assert.equal(hidden.reopen(), true);
    const again = await spy.next('a, shown again');
    assert.equal(again.box, second.box, 'a shows the step it was hidden at');
    await enter(again, 'after a hide');
    await choose(await spy.next('the review step of a'), (i) => i.label.endsWith('Accept'), 'Accept');
    assert.deepEqual(await a, { action: 'accept', content: { env: 'staging', note: 'after a hide' } });
    const bShown = await spy.next('b, once a is answered');
    assert.match(bShown.title ?? '', /task b$/);
    await yes(bShown, 'b');
    assert.deepEqual(await b, { action: 'accept', content: { go: true } });

    // A question asked after a hide is news: it shows in its turn, as any new one does.
    const c = handle(goOn, ctx('c'));
    assert.match((await spy.next('c')).title ?? '', /task c$/);
    await escape();
    await waitFor(() => hidden.size === 1, 'c to wait hidden');
    const d = handle(goOn, ctx('d'));
    await yes(await spy.next('d, asked after c was hidden'), 'd');
    assert.deepEqual(await d, { action: 'accept', content: { go: true } });
    assert.equal(hidden.reopen(), true);
    await yes(await spy.next('c, shown again'), 'c');
    assert.deepEqual(await c, { action: 'accept', content: { go: true } });
    assert.deepEqual([hidden.size, turns.deferred], [0, 0]);
  });

  test("a question's title follows its task's row when another run renames it, shown or hidden", async function () {
    this.timeout(60_000);
    const runs = new Emitter<TaskSnapshot | string>();
    let name = 'deploy';
    const handle = createElicitationHandler({ log: nullLogger, serverLabel: () => 'demo', turns, hidden, taskTitle: () => name, renamed: runs.event });
    const task = { key: 'srv\na', serverId: 'srv', toolName: 'deploy' } as TaskSnapshot;
    const a = handle(goOn, { ...ctx('a'), task });
    const shown = await spy.next('a');
    assert.equal(shown.title, 'deploy on demo');
    name = 'deploy (4:47 PM)';
    runs.fire(task);
    assert.equal(shown.pick?.title, 'deploy (4:47 PM) on demo', 'the step on screen');
    await escape();
    await waitFor(() => hidden.size === 1, 'a to wait hidden');
    name = 'deploy (4:47:03 PM)';
    runs.fire(task);
    assert.equal(hidden.reopen(), true);
    const again = await spy.next('a, shown again');
    assert.equal(again.title, 'deploy (4:47:03 PM) on demo', 'the step shown again');
    await yes(again, 'a');
    assert.deepEqual(await a, { action: 'accept', content: { go: true } });
  });

  test('the Cancel and Decline buttons of a question\'s steps answer the server (cancel, decline); hiding does not', async function () {
    this.timeout(60_000);
    const handle = createElicitationHandler({ log: nullLogger, serverLabel: () => 'demo', turns: new Turns(), hidden });
    const a = handle(deploy, ctx('a'));
    await choose(await spy.next('the first step of a'), (i) => i.label === 'staging', 'staging');
    press(await spy.next('the second step of a'), 'Cancel');
    assert.deepEqual(await a, { action: 'cancel' });
    const b = handle(goOn, ctx('b'));
    const bShown = await spy.next('b');
    await escape();
    assert.equal(hidden.size, 1, 'hidden, b is not answered');
    assert.equal(hidden.reopen(), true);
    const again = await spy.next('b, shown again');
    press(again, 'Decline');
    assert.deepEqual(await b, { action: 'decline' });
    assert.equal(hidden.size, 0);
    assert.equal(again.pick, bShown.pick, 'the same step');
  });

  test('Respond to Task on a task shows that task\'s question, hidden or waiting behind a hidden one, not the one hidden first', async function () {
    this.timeout(60_000);
    const handle = createElicitationHandler({ log: nullLogger, serverLabel: () => 'demo', turns, hidden });
    const ofTask = (task: string) => ({ ...ctx(task), task: { key: `srv\n${task}`, toolName: `tool-${task}` } as TaskSnapshot });
    const a = handle(goOn, ofTask('a'));
    const b = handle(goOn, ofTask('b'));
    const c = handle(goOn, ofTask('c'));
    assert.match((await spy.next('a')).title ?? '', /^tool-a /);
    await escape();
    await waitFor(() => hidden.size === 1, 'a to wait hidden');
    assert.equal(turns.deferred, 2, 'b and c wait for the user');
    assert.equal(hidden.reopen('srv\nnone'), false, 'no question of that task waits');
    assert.equal(hidden.reopen('srv\nc'), true);
    const cShown = await spy.next('c, asked for by its task');
    assert.match(cShown.title ?? '', /^tool-c /);
    await yes(cShown, 'c');
    assert.deepEqual(await c, { action: 'accept', content: { go: true } });
    await yes(await spy.next('b, once c is answered'), 'b');
    assert.deepEqual(await b, { action: 'accept', content: { go: true } });
    assert.equal(hidden.reopen('srv\na'), true);
    await yes(await spy.next('a, asked for by its task'), 'a');
    assert.deepEqual(await a, { action: 'accept', content: { go: true } });
    assert.deepEqual([hidden.size, turns.deferred], [0, 0]);
  });
});

suite('The keys of a server question form (its Decline and Cancel buttons are out of Tab\'s reach)', () => {
  test('Decline\'s key answers the server decline from the first step, Cancel\'s cancel, as the buttons do, whose tooltips name them (⌃⌥D on macOS); hidden by Escape, the form is out of their reach until shown again', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const everything = await waitFor(() => api.getServers().find((s) => s.label === 'everything'), 'server-everything');
    const spy = new QuickInputSpy();
    const started: string[] = [];
    /** server-everything's form (a plain elicitation/create in the call), whose result says what the server got. */
    const ask = async () => {
      spy.skipShown();
      const t = await api.runTool(everything.id, 'trigger-elicitation-request', {});
      started.push(t.id);
      return { t, shown: await spy.next('the first field of the question', 20_000) };
    };
    const got = async (id: string) => JSON.stringify(await api.getResult(id, { waitSeconds: 30 }));
    try {
      const first = await ask();
      const tooltips = (first.shown.box ?? first.shown.pick)!.buttons.map((b) => b.tooltip);
      assert.deepEqual(tooltips, ['Decline: tell the server no (Ctrl+Alt+D)', 'Cancel: dismiss without answering (Ctrl+Alt+W)']);
      await vscode.commands.executeCommand('mcpTasks.declineQuestion');
      assert.match(await got(first.t.id), /User declined to provide the requested information/);

      const second = await ask();
      await escape();
      await waitFor(() => testing.hiddenDialogs?.() === 1, 'the form to wait hidden');
      await vscode.commands.executeCommand('mcpTasks.cancelQuestion');
      await new Promise((r) => setTimeout(r, 500)); // an answer sent would end the call by now
      assert.equal(testing.hiddenDialogs?.(), 1, 'hidden, the form is not answered');
      assert.equal(api.getTask(second.t.id)?.status, 'input_required');
      await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'task', key: second.t.id, serverId: everything.id });
      await spy.next('the form, shown again');
      await vscode.commands.executeCommand('mcpTasks.cancelQuestion');
      assert.match(await got(second.t.id), /User cancelled the elicitation dialog/);

      // On macOS the tooltips write the keys as the editor does there (Control, Option: ⌃⌥D), not Ctrl+Alt.
      const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
      Object.defineProperty(process, 'platform', { value: 'darwin' });
      let mac: { shown: Awaited<ReturnType<typeof ask>>['shown']; t: { id: string } };
      try {
        mac = await ask();
      } finally {
        Object.defineProperty(process, 'platform', platform);
      }
      assert.deepEqual((mac.shown.box ?? mac.shown.pick)!.buttons.map((b) => b.tooltip), ['Decline: tell the server no (⌃⌥D)', 'Cancel: dismiss without answering (⌃⌥W)']);
      await vscode.commands.executeCommand('mcpTasks.declineQuestion');
      assert.match(await got(mac.t.id), /User declined to provide the requested information/);
    } finally {
      spy.dispose();
      await cleanUp(api, started);
    }
  });

  test('Respond to Task on a task whose question is on screen (a click on its row, which takes the keyboard) shows that question again, as typed, rather than saying where it is', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const everything = await waitFor(() => api.getServers().find((s) => s.label === 'everything'), 'server-everything');
    const spy = new QuickInputSpy();
    const toasts = recordToasts('showInformationMessage');
    const started: string[] = [];
    try {
      spy.skipShown();
      const t = await api.runTool(everything.id, 'trigger-elicitation-request', {});
      started.push(t.id);
      const { box } = await spy.next('the first field of the question', 20_000);
      assert.ok(box, 'a text field first');
      box.value = 'Ada';
      await waitFor(() => api.getTask(t.id)?.status === 'input_required', 'its task to wait for input');
      await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'task', key: t.id, serverId: everything.id });
      const again = await spy.next('the question, shown again: the editor focuses a quick input as it shows');
      assert.equal(again.box, box, 'the same step, not a new one');
      assert.equal(again.value, 'Ada');
      assert.equal(testing.hiddenDialogs?.(), 0, 'not counted as hidden by the user');
      assert.deepEqual(toasts.told.filter(([m]) => m.includes('open at the top')), [], 'no toast says where it is');
      await vscode.commands.executeCommand('mcpTasks.cancelQuestion');
      assert.match(JSON.stringify(await api.getResult(t.id, { waitSeconds: 30 })), /User cancelled the elicitation dialog/);
    } finally {
      toasts.dispose();
      spy.dispose();
      await cleanUp(api, started);
    }
  });
});
