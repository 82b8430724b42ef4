// Sampling through the editor's real language model API (vscode.lm), inside the extension host,
// with the test provider test/fixtures/extensions/lm-provider (vendor "mcp-tasks-test", models
// test-echo and test-shout) installed before the run. The handler is called directly with a
// fake request context; consent comes from a scripted prompter, or from the real quick pick
// answered with the quick-open commands.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TaskHost } from '../../src/core/host/taskHost';
import { JsonRpcConnection } from '../../src/core/jsonrpc/connection';
import { RpcError } from '../../src/core/jsonrpc/errors';
import { McpSession } from '../../src/core/protocol/session';
import { SamplingPermissions } from '../../src/core/sampling/permissions';
import type { ServerRequestContext } from '../../src/core/tasks/engine';
import type { Logger } from '../../src/core/util/log';
import { nullLogger } from '../../src/core/util/log';
import { InMemoryTransport } from '../../src/core/transports/inMemory';
import { Turns } from '../../src/core/util/turns';
import type { ConsentAnswer, ConsentPrompter, ConsentRequest } from '../../src/vscode/sampling/consent';
import { HiddenDialogs } from '../../src/vscode/hiddenDialogs';
import { QuickPickConsent } from '../../src/vscode/sampling/consent';
import type { SamplingHandlerOptions } from '../../src/vscode/sampling/handler';
import { USER_REJECTED, createSamplingHandler } from '../../src/vscode/sampling/handler';
import { SAMPLING_PERMISSIONS_KEY, loadSamplingPermissions, revokeSamplingPermissions } from '../../src/vscode/sampling/permissions';
import { waitFor } from './helpers';
import { QuickInputSpy } from './quickInputs';

const PROVIDER_ID = 'mcp-tasks-test.lm-provider';
const VENDOR = 'mcp-tasks-test';

/** What the test provider's activate() returns (see its extension.js). */
interface ProviderState {
  requests: Array<{
    model: string;
    messages: Array<{ role: 'user' | 'assistant'; parts: Array<{ type: string; text?: string; mimeType?: string; bytes?: number }> }>;
    cancelled: boolean;
    done: boolean;
  }>;
  streaming: number;
}

const text = (t: string) => ({ role: 'user', content: { type: 'text', text: t } });

class Lines implements Logger {
  readonly lines: string[] = [];
  readonly traceEnabled = true;
  trace = (m: string) => void this.lines.push(`trace: ${m}`);
  debug = (m: string) => void this.lines.push(`debug: ${m}`);
  info = (m: string) => void this.lines.push(`info: ${m}`);
  warn = (m: string) => void this.lines.push(`warn: ${m}`);
  error = (m: string | Error) => void this.lines.push(`error: ${typeof m === 'string' ? m : m.message}`);
}

suite('Sampling through vscode.lm', () => {
  let provider: ProviderState;
  const asked: ConsentRequest[] = [];
  let nextAnswer: ConsentAnswer = 'once';
  const scripted: ConsentPrompter = (request) => {
    asked.push(request);
    return Promise.resolve(nextAnswer);
  };

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<ProviderState>(PROVIDER_ID);
    assert.ok(
      ext,
      `The test language model provider ${PROVIDER_ID} is not installed in this editor. Package it with ` +
        '`node scripts/editor/package-test-extensions.mjs` and install the .vsix (code-server --install-extension) before the run.',
    );
    provider = await ext.activate();
    const models = await vscode.lm.selectChatModels({ vendor: VENDOR });
    assert.deepEqual(models.map((m) => m.id).sort(), ['test-echo', 'test-shout'], 'the provider\'s models are visible through vscode.lm');
  });

  setup(() => {
    asked.length = 0;
    nextAnswer = 'once';
  });

  function handler(overrides: Partial<SamplingHandlerOptions> = {}) {
    const log = new Lines();
    const permissions = overrides.permissions ?? new SamplingPermissions();
    const h = createSamplingHandler({
      log,
      serverLabel: (id) => `label of ${id}`,
      permissions,
      consentPrompter: scripted,
      preferredModel: () => undefined,
      modelSelector: { vendor: VENDOR },
      ...overrides,
    });
    return { h, log, permissions };
  }

  function ctx(signal = new AbortController().signal, serverId = 'settings:demo'): ServerRequestContext {
    return { serverId, relatedTaskId: 'task-7', signal };
  }

  async function rejection(p: Promise<unknown>): Promise<RpcError> {
    const err = await p.then(
      (r) => assert.fail(`expected an error, got ${JSON.stringify(r)}`),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
    return err;
  }

  test('allowed once: the model answers and the result is a CreateMessageResult', async () => {
    const { h, log } = handler();
    const before = provider.requests.length;
    const result = await h.handle({ messages: [text('hello there')], systemPrompt: 'Be brief.', maxTokens: 100, modelPreferences: { hints: [{ name: 'echo' }] } }, ctx());
    assert.deepEqual(result, { role: 'assistant', content: { type: 'text', text: 'echo: hello there' }, model: 'test-echo', stopReason: 'endTurn' });
    assert.equal(asked.length, 1, 'the user was asked once');
    assert.equal(asked[0]!.serverLabel, 'label of settings:demo');
    assert.match(asked[0]!.preview.text, /for its task task-7/);
    assert.equal(asked[0]!.preview.summary, 'hello there');
    const req = provider.requests[before]!;
    assert.deepEqual(req.messages, [{ role: 'user', parts: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'hello there' }] }], 'the system prompt leads the first user message');
    assert.ok(log.lines.some((l) => /^info: \[label of settings:demo\] Sampling allowed once by the user/.test(l)), log.lines.join('\n'));
    assert.ok(!log.lines.some((l) => l.startsWith('info:') && l.includes('Be brief.')), 'the prompt is not logged at info');
    h.dispose();
  });

  test('denied: the server gets -1 "User rejected sampling request" and no model is asked', async () => {
    const { h } = handler();
    nextAnswer = 'deny';
    const before = provider.requests.length;
    const err = await rejection(h.handle({ messages: [text('secret')], maxTokens: 10 }, ctx()));
    assert.equal(err.code, USER_REJECTED);
    assert.equal(err.code, -1);
    assert.equal(err.message, 'User rejected sampling request');
    assert.equal(provider.requests.length, before, 'nothing reached the provider');
    h.dispose();
  });

  test('the consent prompt waits for a server\'s question open in the same turns; a server always allowed does not wait', async () => {
    const turns = new Turns();
    let endQuestion!: () => void;
    const question = turns.take(() => new Promise<void>((resolve) => (endQuestion = resolve)), new AbortController().signal);
    const { h, permissions } = handler({ turns });
    const answer = h.handle({ messages: [text('after the question')], maxTokens: 10 }, ctx());
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(asked.length, 0, 'no consent prompt over the open question');
    permissions.allowAlways('settings:trusted', 'trusted', undefined);
    const trusted = await h.handle({ messages: [text('no prompt needed')], maxTokens: 10 }, ctx(undefined, 'settings:trusted'));
    assert.equal((trusted.content as { text: string }).text, 'echo: no prompt needed', 'an always-allowed server is answered while the question is open');
    endQuestion();
    await question;
    assert.equal(((await answer).content as { text: string }).text, 'echo: after the question');
    assert.equal(asked.length, 1, 'asked once the question had ended');
    h.dispose();
  });

  test('always allowed: the grant is kept for the server and later requests are not asked', async () => {
    const { h, permissions } = handler();
    nextAnswer = 'always';
    await h.handle({ messages: [text('one')], maxTokens: 10 }, ctx());
    assert.equal(permissions.get('settings:demo'), 'always');
    nextAnswer = 'deny'; // would refuse if asked
    const r = await h.handle({ messages: [text('two')], maxTokens: 10 }, ctx());
    assert.equal((r.content as { text: string }).text, 'echo: two');
    assert.equal(asked.length, 1);
    await rejection(h.handle({ messages: [text('three')], maxTokens: 10 }, ctx(undefined, 'settings:other')));
    assert.equal(asked.length, 2, 'another server is still asked');
    h.dispose();
  });

  test('model choice: hints in order, and the user setting wins', async () => {
    const { h } = handler({ consentPrompter: () => Promise.resolve('once') });
    const r1 = await h.handle({ messages: [text('hi')], maxTokens: 10, modelPreferences: { hints: [{ name: 'claude' }, { name: 'shout' }, { name: 'echo' }] } }, ctx());
    assert.equal(r1.model, 'test-shout');
    assert.equal((r1.content as { text: string }).text, 'ECHO: HI');
    h.dispose();
    const { h: h2 } = handler({ consentPrompter: () => Promise.resolve('once'), preferredModel: () => 'test-echo' });
    const r2 = await h2.handle({ messages: [text('hi')], maxTokens: 10, modelPreferences: { hints: [{ name: 'shout' }] } }, ctx());
    assert.equal(r2.model, 'test-echo');
    h2.dispose();
  });

  test('maxTokens: the answer is cut at the budget with the model\'s tokenizer and the model is told to stop', async () => {
    const { h } = handler();
    const before = provider.requests.length;
    const r = await h.handle({ messages: [text('!long 2000')], maxTokens: 5 }, ctx());
    assert.equal(r.stopReason, 'maxTokens');
    assert.match((r.content as { text: string }).text, /^w1 w2 w3 w4 w5 ?$/);
    await waitFor(() => provider.requests[before]?.done, 'the provider to stop');
    assert.equal(provider.requests[before]!.cancelled, true, 'the request was cancelled, not read to the end');
    h.dispose();
  });

  test('stop sequences end the answer before the sequence', async () => {
    const { h } = handler();
    const r = await h.handle({ messages: [text('alpha beta STOP gamma')], maxTokens: 100, stopSequences: ['STOP'] }, ctx());
    assert.deepEqual([(r.content as { text: string }).text, r.stopReason], ['echo: alpha beta ', 'stopSequence']);
    h.dispose();
  });

  test('images reach the model as data parts', async () => {
    const { h } = handler();
    const before = provider.requests.length;
    // A real 1x1 PNG: the workbench decodes images on their way to a model.
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const r = await h.handle({ messages: [{ role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image', data: png, mimeType: 'image/png' }] }], maxTokens: 50 }, ctx());
    assert.equal((r.content as { text: string }).text, 'echo: what is this [image/png 70 bytes]');
    assert.deepEqual(provider.requests[before]!.messages[0]!.parts[1], { type: 'data', mimeType: 'image/png', bytes: 70 });
    h.dispose();
  });

  test('an editor too old to pass images to a model (no LanguageModelDataPart): its server gets -32602 "…; send text only.", and its row, run as a task here, is told in the user\'s words to update VS Code; no one is asked', async () => {
    // The API object the extension's modules share (the namespace import wraps it): its data part taken away for the test.
    const api = (vscode as unknown as { default: Record<string, unknown> }).default;
    const dataPart = api.LanguageModelDataPart;
    assert.ok(dataPart, 'this editor has LanguageModelDataPart');
    api.LanguageModelDataPart = undefined;
    const { h } = handler();
    try {
      const told: string[] = [];
      const before = provider.requests.length;
      const image = { role: 'user', content: [{ type: 'text', text: 'what is this' }, { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] };
      const err = await rejection(h.handle({ messages: [image], maxTokens: 50 }, { ...ctx(), tells: (note) => told.push(note) }));
      assert.deepEqual(
        [err.code, err.message, told],
        [-32602, `This editor (VS Code ${vscode.version}) cannot pass image content to a language model; send text only.`, [`VS Code ${vscode.version} cannot pass image content to a language model: update VS Code`]],
      );
      assert.deepEqual([asked.length, provider.requests.length], [0, before], 'no consent prompt, no model request');
    } finally {
      api.LanguageModelDataPart = dataPart;
      h.dispose();
    }
  });

  test('the server cancelling stops the model and the handler, and the user is told, as when it withdraws a request before the model answers', async () => {
    const told: string[] = [];
    const { h, log } = handler({ withdrawn: (title, server) => told.push(`${title} on ${server}`) });
    const before = provider.requests.length;
    const ac = new AbortController();
    const pending = h.handle({ messages: [text('!slow')], maxTokens: 10_000 }, ctx(ac.signal));
    await waitFor(() => provider.requests[before] && provider.streaming > 0, 'the provider to stream');
    ac.abort(new Error('cancelled by the server'));
    const err = await pending.then(
      () => assert.fail('expected a rejection'),
      (e: unknown) => e,
    );
    assert.match(String(err), /cancelled by the server/);
    await waitFor(() => provider.requests[before]!.done, 'the provider to stop');
    assert.equal(provider.requests[before]!.cancelled, true);
    assert.deepEqual(told, ['!slow on label of settings:demo'], 'the user is told why the model stopped');
    assert.ok(log.lines.some((l) => /^info: .*Sampling request withdrawn before it was answered: cancelled by the server$/.test(l)), log.lines.join('\n'));
    h.dispose();
  });

  test('a server always allowed: its request withdrawn while the model answers stops the model and tells nothing (the user was not asked about it); the log says so', async () => {
    const told: string[] = [];
    const { h, log, permissions } = handler({ withdrawn: (title, server) => told.push(`${title} on ${server}`) });
    permissions.allowAlways('settings:demo', 'label of settings:demo', undefined);
    const before = provider.requests.length;
    const ac = new AbortController();
    const pending = h.handle({ messages: [text('!slow')], maxTokens: 10_000 }, ctx(ac.signal));
    await waitFor(() => provider.requests[before] && provider.streaming > 0, 'the provider to stream');
    ac.abort(new Error('cancelled by the server'));
    await assert.rejects(pending, /cancelled by the server/);
    await waitFor(() => provider.requests[before]!.done, 'the provider to stop');
    assert.deepEqual([provider.requests[before]!.cancelled, asked.length, told], [true, 0, []]);
    assert.ok(log.lines.some((l) => /^info: .*Sampling request withdrawn before it was answered: cancelled by the server$/.test(l)), log.lines.join('\n'));
    h.dispose();
  });

  test('a failing model gives the server -32603 with the model\'s reason', async () => {
    const { h } = handler();
    const err = await rejection(h.handle({ messages: [text('!fail')], maxTokens: 10 }, ctx()));
    assert.equal(err.code, -32603);
    assert.match(err.message, /test-echo failed.*test provider failure \(asked to fail\)/);
    h.dispose();
  });

  test('a model the user did not allow gives the server -1 "User rejected sampling request: no permission…"; its row, run as a task here, is told "Denied by the user: no permission…"', async () => {
    const { h } = handler();
    const told: string[] = [];
    const err = await rejection(h.handle({ messages: [text('!nopermission')], maxTokens: 10 }, { ...ctx(), tells: (note) => told.push(note) }));
    assert.deepEqual([err.code, err.message, told], [-1, 'User rejected sampling request: no permission to use test-echo', ['Denied by the user: no permission to use test-echo']]);
    h.dispose();
  });

  test('a consent prompt that fails denies the request (the server gets -1), but its row, run as a task here, does not say the user denied it: it says the prompt failed', async () => {
    const { h, log } = handler({ consentPrompter: () => Promise.reject(new Error('the quick pick broke')) });
    const told: string[] = [];
    const err = await rejection(h.handle({ messages: [text('hello')], maxTokens: 10 }, { ...ctx(), tells: (note) => told.push(note) }));
    assert.deepEqual([err.code, err.message, told], [-1, 'User rejected sampling request', ['The consent prompt failed: the quick pick broke']]);
    assert.ok(!log.lines.some((l) => l.includes('denied by the user')), log.lines.join('\n'));
    h.dispose();
  });

  /**
   * The warnings the editor is asked to show while `body` runs, each as "message | its buttons"
   * (none reaches the screen); the user picks the button `choose`, or dismisses the warning.
   */
  async function warningsDuring(body: () => Promise<void>, choose?: string): Promise<string[]> {
    const w = vscode.window as unknown as { showWarningMessage: (...args: unknown[]) => Thenable<unknown> };
    const show = w.showWarningMessage;
    const shown: string[] = [];
    w.showWarningMessage = (message, ...items) => {
      shown.push([message, ...items].join(' | '));
      return Promise.resolve(items.find((i) => i === choose));
    };
    try {
      await body();
    } finally {
      w.showWarningMessage = show;
    }
    return shown;
  }

  const NO_MODEL_WARNING =
    'MCP server "label of settings:demo" asked for a language model answer, but no language model is available. Install or sign in to a language model provider (for example GitHub Copilot Chat). | Install Model Providers';

  test('no language model: the user is not asked to allow what cannot run, is told once what to do, and the server gets -32603', async () => {
    const { h } = handler({ modelSelector: { vendor: 'no-such-vendor' } });
    const warnings = await warningsDuring(async () => {
      const err = await rejection(h.handle({ messages: [text('hi')], maxTokens: 10 }, ctx()));
      assert.equal(err.code, -32603);
      assert.match(err.message, /^No language model is available in the editor: the user needs to install or sign in/);
    });
    assert.equal(asked.length, 0, 'no consent prompt');
    assert.deepEqual(warnings, [NO_MODEL_WARNING]);
    h.dispose();
  });

  test('no language model: the warning\'s "Install Model Providers" opens the Extensions view searched for language model providers, as the editor\'s own Language Models editor does', async () => {
    assert.ok((await vscode.commands.getCommands()).includes('workbench.extensions.search'), 'the editor has the command');
    // The commands the extension runs from now on; the search itself is not run (the Extensions view would take the focus).
    const commands = vscode.commands as { executeCommand: (id: string, ...args: unknown[]) => Thenable<unknown> };
    const execute = commands.executeCommand;
    const ran: unknown[][] = [];
    commands.executeCommand = (id, ...args) => (id === 'workbench.extensions.search' ? (ran.push([id, ...args]), Promise.resolve()) : execute(id, ...args));
    const { h } = handler({ modelSelector: { vendor: 'no-such-vendor' } });
    try {
      const warnings = await warningsDuring(async () => {
        await rejection(h.handle({ messages: [text('hi')], maxTokens: 10 }, ctx()));
      }, 'Install Model Providers');
      assert.deepEqual(warnings, [NO_MODEL_WARNING]);
      await waitFor(() => ran.length > 0, 'the button to run its command');
      assert.deepEqual(ran, [['workbench.extensions.search', '@tag:language-models']]);
    } finally {
      commands.executeCommand = execute;
      h.dispose();
    }
  });

  test('no language model, the request run as a task the client hosts (T-RCV-2, T-RCV-4): no consent prompt, the task fails and tasks/result gives the server -32603', async () => {
    const { h } = handler({ modelSelector: { vendor: 'no-such-vendor' } });
    const host = new TaskHost({ logger: nullLogger });
    const handle = host.wrap('sampling/createMessage', h.handle);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const server = new JsonRpcConnection(serverEnd, { logger: nullLogger });
    server.onRequest('initialize', () => ({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1.0.0' } }));
    server.onNotification('notifications/initialized', () => undefined);
    server.onNotification('notifications/tasks/status', () => undefined);
    await server.start();
    const session = new McpSession(clientEnd, { logger: nullLogger, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' }, capabilities: { sampling: {}, ...host.capabilities() } });
    session.onRequest('sampling/createMessage', (params, c) => handle(params, { serverId: 'settings:demo', signal: c.signal }));
    host.attachSession('settings:demo', session);
    await session.connect();
    try {
      const warnings = await warningsDuring(async () => {
        const created = await server.requestRaw('sampling/createMessage', { messages: [text('hi')], maxTokens: 10, task: { ttl: 60_000 } });
        const { taskId } = created.task as { taskId: string };
        const err = await rejection(server.requestRaw('tasks/result', { taskId }));
        assert.equal(err.code, -32603);
        assert.match(err.message, /^No language model is available in the editor/);
        const task = await server.requestRaw('tasks/get', { taskId });
        assert.equal(task.status, 'failed');
        assert.match(String(task.statusMessage), /^No language model is available in the editor.*\(error -32603\)$/);
      });
      assert.equal(asked.length, 0, 'no consent prompt');
      assert.deepEqual(warnings, [NO_MODEL_WARNING]);
    } finally {
      host.dispose();
      await session.close();
      h.dispose();
    }
  });

  test('bad params are refused with -32602 before the user is asked', async () => {
    const { h } = handler();
    const err = await rejection(h.handle({ messages: [text('hi')], maxTokens: 10, tools: [{ name: 't', inputSchema: { type: 'object' } }] }, ctx()));
    assert.equal(err.code, -32602);
    assert.equal(asked.length, 0);
    h.dispose();
  });

  suite('the real consent quick pick', () => {
    let consent: QuickPickConsent;
    let hidden: HiddenDialogs;
    let turns: Turns;
    let shown: ConsentRequest[];
    /** The real prompt, noting each one it puts on screen (at once, unless its request was already withdrawn). */
    let prompt: ConsentPrompter;
    setup(() => {
      turns = new Turns();
      hidden = new HiddenDialogs(turns);
      consent = new QuickPickConsent(hidden);
      shown = [];
      prompt = (request, signal, turn) => {
        const answer = consent.prompt(request, signal, turn);
        if (!signal.aborted) shown.push(request);
        return answer;
      };
    });
    teardown(() => (consent.dispose(), hidden.dispose()));

    /** Shows the Command Palette over the prompt, until the prompt waits hidden, and closes the palette. */
    const paletteOver = async () => {
      await vscode.commands.executeCommand('workbench.action.showCommands');
      await waitFor(() => hidden.size === 1, 'the prompt to wait hidden');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    };

    test('another quick input shown over the prompt denies nothing: shown again, "Allow once" sends the request', async () => {
      const { h } = handler({ consentPrompter: prompt });
      let settled = false;
      const pending = h.handle({ messages: [text('after the palette')], maxTokens: 20 }, ctx());
      void pending.then(() => (settled = true), () => (settled = true));
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      await paletteOver();
      assert.equal(settled, false, 'the request is still waiting for the user');
      assert.equal(hidden.reopen(), true);
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      const r = await pending;
      assert.equal((r.content as { text: string }).text, 'echo: after the palette');
      assert.equal(hidden.size, 0);
      h.dispose();
    });

    test('a hidden prompt the server withdraws is closed and no longer waits', async () => {
      const { h, log } = handler({ consentPrompter: prompt });
      const ac = new AbortController();
      const pending = h.handle({ messages: [text('withdrawn while hidden')], maxTokens: 20 }, ctx(ac.signal));
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      await paletteOver();
      ac.abort(new Error('request timed out'));
      await assert.rejects(pending, /request timed out/);
      // Withdrawn by the server, or by the engine when its task ends: the log says why, not who.
      assert.ok(log.lines.some((l) => /^info: .*Sampling request withdrawn before it was answered: request timed out$/.test(l)), log.lines.join('\n'));
      assert.equal(hidden.size, 0, 'nothing is left to reopen');
      assert.equal(hidden.reopen(), false);
      h.dispose();
    });

    test('hidden by Escape, a prompt does not let the one waiting behind it pop up: that one waits for the user; the first shown again and allowed, it follows', async () => {
      const { h } = handler({ consentPrompter: prompt, turns });
      const first = h.handle({ messages: [text('hidden first')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the first prompt');
      // In line behind the first before the Escape: a request takes its turn only once it has
      // looked up the models (a round trip to the editor), and one that comes after a hide shows.
      const second = h.handle({ messages: [text('waits for the user')], maxTokens: 20 }, { ...ctx(), calls: ['second call'] });
      await waitFor(() => turns.whereIs('second call') === 'waiting', 'the second prompt to wait for its turn');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await waitFor(() => hidden.size === 1, 'the first prompt to wait hidden');
      assert.equal(turns.deferred, 1, 'the second waits for the user');
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(shown.length, 1, 'and has not popped up');
      assert.equal(hidden.reopen(), true);
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await first).content as { text: string }).text, 'echo: hidden first');
      await waitFor(() => shown.length === 2, 'the second prompt, once the first is allowed');
      assert.equal(shown[1]!.preview.summary, 'waits for the user');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await second).content as { text: string }).text, 'echo: waits for the user');
      assert.deepEqual([hidden.size, turns.deferred], [0, 0]);
      h.dispose();
    });

    test('"Always allow" on one prompt settles the other prompts of the same server, hidden ones too; another server is still asked', async () => {
      const { h, permissions } = handler({ consentPrompter: prompt });
      const first = h.handle({ messages: [text('hidden first')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the first prompt');
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      await waitFor(() => hidden.size === 1, 'the first prompt to wait hidden');
      const second = h.handle({ messages: [text('always from here')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 2, 'the second prompt');
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext'); // "Always allow"
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await second).content as { text: string }).text, 'echo: always from here');
      assert.equal(permissions.get('settings:demo'), 'always');
      assert.equal(((await first).content as { text: string }).text, 'echo: hidden first', 'the hidden prompt is settled by the grant');
      assert.equal(hidden.size, 0, 'nothing is left to reopen');
      const other = h.handle({ messages: [text('other server')], maxTokens: 20 }, ctx(undefined, 'settings:other'));
      await waitFor(() => shown.length === 3, 'the prompt of another server');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await other).content as { text: string }).text, 'echo: other server');
      h.dispose();
    });

    test('"Always allow" answered while another prompt of the server waits its turn: that prompt is never shown', async () => {
      const { h } = handler({ consentPrompter: prompt });
      const first = h.handle({ messages: [text('asked')], maxTokens: 20 }, ctx());
      const queued = h.handle({ messages: [text('not asked')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the first prompt');
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext'); // "Always allow"
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await first).content as { text: string }).text, 'echo: asked');
      assert.equal(((await queued).content as { text: string }).text, 'echo: not asked');
      assert.deepEqual(shown.map((r) => r.preview.summary), ['asked'], 'the queued prompt was not shown');
      h.dispose();
    });

    test('"Allow once" (the first item) sends the request', async () => {
      const { h } = handler({ consentPrompter: prompt });
      const pending = h.handle({ messages: [text('from the quick pick')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      const r = await pending;
      assert.equal((r.content as { text: string }).text, 'echo: from the quick pick');
      h.dispose();
    });

    test('"Deny" (the third item) answers -1; it says what it does, as every item does', async () => {
      const { h } = handler({ consentPrompter: prompt });
      const spy = new QuickInputSpy();
      const pending = h.handle({ messages: [text('no')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      const items = (await spy.next('the consent quick pick')).items;
      spy.dispose();
      assert.deepEqual(items.filter((i) => !i.detail).map((i) => i.label), [], 'every item has a detail line');
      assert.equal(items[2]!.detail, 'Send nothing to a language model and tell the server that you rejected its request');
      // Icons as the rows' icons, words only in the labels: VS Code reads a `$(icon)` there out by name.
      assert.deepEqual(items.map((i) => [i.icon, i.label]), [['check', 'Allow once'], ['check-all', 'Always allow server "label of settings:demo"'], ['circle-slash', 'Deny'], ['eye', 'Show Full Request']]);
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal((await rejection(pending)).code, USER_REJECTED);
      h.dispose();
    });

    test('"Allow once" names the model that will answer (the setting\'s, else the server\'s hint, else the first), and that model answers', async () => {
      for (const [preferred, hints, model] of [['test-shout', [], 'test-shout'], [undefined, ['shout'], 'test-shout'], [undefined, [], 'test-echo']] as const) {
        const { h } = handler({ consentPrompter: prompt, preferredModel: () => preferred });
        const spy = new QuickInputSpy();
        const pending = h.handle({ messages: [text('which model')], maxTokens: 20, modelPreferences: { hints: hints.map((name) => ({ name })) } }, ctx());
        const items = (await spy.next('the consent quick pick')).items;
        spy.dispose();
        assert.equal(items[0]!.detail, `Send this request to ${model} and return the answer to the server`);
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        await pending;
        assert.equal(provider.requests.at(-1)?.model, model);
        h.dispose();
      }
    });

    test('"Show Full Request" opens the request beside the prompt; once answered, that document says so instead of showing a request no longer asked', async () => {
      const { h } = handler({ consentPrompter: prompt });
      const pending = h.handle({ messages: [text('the whole request')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      for (let i = 0; i < 3; i++) await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem'); // "Show Full Request"
      const doc = await waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'mcp-tasks-sampling' && d.getText().includes('the whole request')), 'the full request in an editor');
      await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext'); // back to "Allow once"
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await pending).content as { text: string }).text, 'echo: the whole request');
      await waitFor(() => doc.getText() === 'This sampling request has been answered.', `the document to say the request was answered, not ${JSON.stringify(doc.getText().slice(0, 80))}`);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      h.dispose();
    });

    test('a request the server withdraws closes its prompt instead of waiting, and says so (as a question does); one closed with its connection does not', async () => {
      const told: string[] = [];
      const { h } = handler({ consentPrompter: prompt, withdrawn: (title, server) => told.push(`${title} on ${server}`) });
      const ac = new AbortController();
      const pending = h.handle({ messages: [text('never answered')], maxTokens: 20 }, ctx(ac.signal));
      await waitFor(() => shown.length === 1, 'the consent quick pick');
      ac.abort(new Error('request timed out'));
      await assert.rejects(pending, /request timed out/);
      const closed = new AbortController();
      const lost = h.handle({ messages: [text('connection closed')], maxTokens: 20 }, ctx(closed.signal));
      await waitFor(() => shown.length === 2, 'the second prompt');
      closed.abort(new RpcError(-32000, 'Connection closed'));
      await assert.rejects(lost, /Connection closed/);
      assert.deepEqual(told, ['never answered on label of settings:demo']);
      // The prompt is gone: the next request gets its own, answerable prompt.
      const next = h.handle({ messages: [text('next')], maxTokens: 20 }, ctx());
      await waitFor(() => shown.length === 3, 'the third prompt');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      assert.equal(((await next).content as { text: string }).text, 'echo: next');
      h.dispose();
    });
  });

  suite('permissions in globalState and the revoke command', () => {
    /** A Memento in memory (globalState's shape). */
    function memento(): vscode.Memento & { data: Map<string, unknown> } {
      const data = new Map<string, unknown>();
      return {
        data,
        keys: () => [...data.keys()],
        get: <T>(key: string, fallback?: T) => (data.has(key) ? (data.get(key) as T) : fallback),
        update: (key: string, value: unknown) => {
          data.set(key, JSON.parse(JSON.stringify(value)));
          return Promise.resolve();
        },
      } as vscode.Memento & { data: Map<string, unknown> };
    }

    test('a grant is saved on change and read back by the next window', () => {
      const m = memento();
      const p = loadSamplingPermissions(m);
      p.allowAlways('settings:demo', 'demo', 'fp');
      assert.deepEqual(m.data.get(SAMPLING_PERMISSIONS_KEY), { version: 1, always: { 'settings:demo': { label: 'demo', fingerprint: 'fp' } } });
      p.dispose();
      assert.equal(loadSamplingPermissions(m).get('settings:demo', 'fp'), 'always');
    });

    test('Revoke Sampling Permissions: nothing to revoke resolves at once; a picked server asks again', async () => {
      const p = new SamplingPermissions();
      assert.equal(await revokeSamplingPermissions(p), 0);
      p.allowAlways('settings:b', 'Beta');
      p.allowAlways('settings:a', 'Alpha');
      let revoked: number | undefined;
      // What the pick lists: each server by its label and where it is configured, not by its id.
      const w = vscode.window as { showQuickPick: unknown };
      const showQuickPick = w.showQuickPick as typeof vscode.window.showQuickPick;
      let listed: string[] = [];
      w.showQuickPick = (items: vscode.QuickPickItem[], ...rest: unknown[]) => ((listed = items.map((i) => `${i.label} | ${i.description ?? ''}`)), (showQuickPick as (...a: unknown[]) => unknown).call(vscode.window, items, ...rest));
      const pending = revokeSamplingPermissions(p).then((n) => (revoked = n));
      w.showQuickPick = showQuickPick;
      assert.deepEqual(listed, ['Alpha | setting mcpTasks.servers', 'Beta | setting mcpTasks.servers', ' | ', 'All servers | ']);
      // No event says the quick pick is up: accept until it was (the first item, "Alpha").
      await waitFor(async () => {
        await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
        return revoked !== undefined;
      }, 'the revoke quick pick to be answered');
      await pending;
      assert.equal(revoked, 1);
      assert.equal(p.get('settings:a'), 'ask');
      assert.equal(p.get('settings:b'), 'always');
    });
  });
});
