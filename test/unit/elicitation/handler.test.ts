import * as assert from 'node:assert/strict';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport as SdkTransport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Answer, FormPrompter, InputOptions, Nav, PickItem, PickOptions } from '../../../src/core/elicitation/handler';
import { createElicitationHandler, dialogTitle, listenForElicitationComplete, runForm, runUrl } from '../../../src/core/elicitation/handler';
import type { FormPlan, UrlPlan } from '../../../src/core/elicitation/plan';
import { planElicitation } from '../../../src/core/elicitation/plan';
import { ConnectionClosedError, ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';
import type { ServerRequestContext } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { TaskEndedError } from '../../../src/core/tasks/types';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { StdioTransport } from '../../../src/core/transports/stdio';
import { abortReason } from '../../../src/core/util/abort';
import type { Turn } from '../../../src/core/util/turns';
import { Turns } from '../../../src/core/util/turns';
import { Emitter } from '../../../src/core/util/event';
import { MemoryLogger, waitFor } from '../helpers/logger';
import type { EngineHarness } from '../helpers/peers';
import { connectEngine, everythingEntry } from '../helpers/peers';

// ── A prompter that answers from a script, as a user would ──────────────────────────────────

type Call = { kind: 'pick'; items: readonly PickItem<unknown>[]; o: PickOptions<unknown> } | { kind: 'input'; o: InputOptions };
/** One user action on the prompt shown; 'hang' leaves it open until its signal aborts. */
type Act = (c: Call) => Answer<unknown> | 'hang';

function items(c: Call): readonly PickItem<unknown>[] {
  assert.equal(c.kind, 'pick', 'expected a pick, got an input box');
  return c.kind === 'pick' ? c.items : [];
}
function labels(c: Call): string[] {
  return c.kind === 'pick' ? c.items.map((i) => i.label) : [];
}
function placeholder(c: Call): string {
  return c.kind === 'pick' ? c.o.placeholder : '';
}

/** Picks the items with these labels (checking a multi-select's validation as the UI would). */
const choose =
  (...wanted: string[]): Act =>
  (c) => {
    assert.equal(c.kind, 'pick', `expected a pick, got an input box "${c.o.title}"`);
    const values = wanted.map((l) => {
      const item = c.items.find((i) => i.label === l);
      assert.ok(item, `no item "${l}" among ${JSON.stringify(labels(c))}`);
      return item.value;
    });
    assert.equal(c.o.validate?.(values), undefined);
    return { value: values };
  };
/** Types text and presses Enter: the input box refuses Enter while validation shows an error (a note is no error). */
const type =
  (text: string): Act =>
  (c) => {
    assert.equal(c.kind, 'input', `expected an input box, got a pick of ${JSON.stringify(labels(c))}`);
    assert.notEqual(typeof c.o.validate(text), 'string', `"${text}" should be accepted`);
    return { value: text };
  };
/** Presses Enter on what is prefilled. */
const enter: Act = (c) => {
  assert.equal(c.kind, 'input');
  return type(c.o.value)(c);
};
const nav =
  (n: Nav): Act =>
  () => ({ nav: n });
const hang: Act = () => 'hang';
/** Runs a check on the prompt, then acts. */
const see =
  (check: (c: Call) => void, then: Act): Act =>
  (c) => (check(c), then(c));

class ScriptedPrompter implements FormPrompter {
  readonly calls: Call[] = [];
  readonly opened: string[] = [];
  readonly retitled: string[] = [];
  closed = 0;
  aborted = 0;
  openWorks = true;
  constructor(readonly script: Act[]) {}

  pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    return this.next({ kind: 'pick', items, o: o as PickOptions<unknown> }) as Promise<Answer<T[]>>;
  }
  input(o: InputOptions): Promise<Answer<string>> {
    return this.next({ kind: 'input', o }) as Promise<Answer<string>>;
  }
  async openExternal(url: string): Promise<boolean> {
    this.opened.push(url);
    return this.openWorks;
  }
  close(): void {
    this.closed++;
  }
  retitle(title: string): void {
    this.retitled.push(title);
  }
  get left(): number {
    return this.script.length;
  }

  private next(call: Call): Promise<Answer<unknown>> {
    this.calls.push(call);
    const act = this.script.shift();
    if (!act) return Promise.reject(new Error(`unexpected prompt ${call.kind} ${JSON.stringify(labels(call))}`));
    const signal = call.o.signal;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      const onAbort = () => {
        this.aborted++;
        reject(abortReason(signal));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        const a = act(call);
        if (a === 'hang') return;
        signal.removeEventListener('abort', onAbort);
        resolve(a);
      } catch (err) {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      }
    });
  }
}

function formPlan(properties: Record<string, unknown>, required: string[] = [], message = 'Please answer'): FormPlan {
  const r = planElicitation({ message, requestedSchema: { type: 'object', properties, required } });
  assert.ok(r.ok && r.mode === 'form', r.ok ? 'not a form' : r.error.message);
  return r;
}

function urlPlan(url: string): UrlPlan {
  const r = planElicitation({ mode: 'url', message: 'Connect your account', elicitationId: 'e-1', url });
  assert.ok(r.ok && r.mode === 'url');
  return r;
}

const ui = () => ({ title: 'MCP server "demo"', signal: new AbortController().signal });

// ── The dialog logic ─────────────────────────────────────────────────────────────────────────

describe('elicitation runForm: the multi-step dialog', () => {
  const plan = formPlan(
    {
      env: { type: 'string', title: 'Environment', oneOf: [{ const: 'stg', title: 'Staging' }, { const: 'prd', title: 'Production' }], default: 'stg' },
      replicas: { type: 'integer', title: 'Replicas', minimum: 1, maximum: 10, default: 2 },
      notify: { type: 'boolean', title: 'Notify', description: 'Tell the team' },
      note: { type: 'string', title: 'Note' },
    },
    ['env', 'replicas'],
    'Deploy the build?',
  );

  it('shows each field with step numbers, the message first, defaults prefilled, and a review step before accepting', async () => {
    const p = new ScriptedPrompter([
      see((c) => {
        assert.equal(c.o.step, 1);
        assert.equal(c.o.totalSteps, 5);
        assert.equal(c.o.title, 'MCP server "demo"');
        assert.equal(c.o.canGoBack, false);
        assert.equal(c.o.canDecline, true);
        assert.match(placeholder(c), /^Deploy the build\? — Environment/);
        assert.deepEqual(labels(c), ['Staging', 'Production'], 'a required select offers no Skip');
        assert.equal(items(c)[0].picked, true, 'the default is focused');
      }, choose('Production')),
      see((c) => {
        assert.equal(c.kind === 'input' && c.o.value, '2');
        assert.equal(c.o.canGoBack, true);
        assert.equal(c.kind === 'input' && c.o.validate('11'), 'Enter a whole number between 1 and 10');
        assert.equal(c.kind === 'input' && c.o.placeholder, 'Enter a whole number between 1 and 10');
        assert.doesNotMatch(c.kind === 'input' ? c.o.prompt : '', /Deploy/, 'the message leads only the first step');
      }, type('3')),
      see((c) => assert.deepEqual(labels(c), ['Yes', 'No', 'Skip']), choose('Yes')),
      see((c) => assert.equal(c.kind === 'input' && c.o.validate(''), undefined, 'an optional field may stay empty'), type('')),
      see((c) => {
        assert.equal(c.o.step, 5);
        // The question once, under the input; the placeholder says what the step is for (not both saying both).
        assert.deepEqual([placeholder(c), c.kind === 'pick' && c.o.prompt], ['Review and send your answers', 'Deploy the build?']);
        assert.deepEqual(labels(c), ['Accept', 'Decline', 'Cancel', 'Change Environment', 'Change Replicas', 'Change Notify', 'Change Note']);
        const shown = items(c);
        assert.equal(shown[0].detail, 'Environment: Production · Replicas: 3 · Notify: Yes · Note: (left out)');
        assert.equal(shown[3].description, 'Production');
      }, choose('Accept')),
    ]);
    const result = await runForm(plan, p, ui());
    assert.deepEqual(result, { action: 'accept', content: { env: 'prd', replicas: 3, notify: true } });
    assert.equal(p.left, 0);
    assert.equal(p.closed, 1, 'the dialog is closed at the end');
  });

  it('a URI typed as the address bar shows it says, while typed, what is sent (percent-encoded); an ASCII URI says nothing, a bad one still shows its error', async () => {
    const uri = formPlan({ page: { type: 'string', title: 'Page', format: 'uri' } }, ['page']);
    const p = new ScriptedPrompter([
      see((c) => {
        const validate = c.kind === 'input' ? c.o.validate : () => 'not an input';
        assert.deepEqual(validate('https://de.wikipedia.org/wiki/Köln'), { note: 'Sent as https://de.wikipedia.org/wiki/K%C3%B6ln' });
        assert.deepEqual(validate('https://bücher.example/a b'), { note: 'Sent as https://xn--bcher-kva.example/a%20b' });
        assert.equal(validate('https://de.wikipedia.org/wiki/K%C3%B6ln'), undefined);
        assert.equal(validate('example.com/Köln'), 'Enter a full URI, like https://example.com/page');
        assert.equal(validate(''), 'A value is required');
      }, type('https://de.wikipedia.org/wiki/Köln')),
      see((c) => assert.equal(items(c)[0].detail, 'Page: https://de.wikipedia.org/wiki/K%C3%B6ln'), choose('Accept')),
    ]);
    assert.deepEqual(await runForm(uri, p, ui()), { action: 'accept', content: { page: 'https://de.wikipedia.org/wiki/K%C3%B6ln' } });
    assert.equal(p.left, 0);
  });

  it('Back keeps earlier answers, Skip leaves a field out, and Change from the review edits one field', async () => {
    const p = new ScriptedPrompter([
      choose('Production'),
      type('4'),
      nav('back'),
      nav('back'),
      see((c) => assert.deepEqual(items(c).map((i) => i.picked), [false, true], 'the answer given survives Back'), choose('Production')),
      see((c) => assert.equal(c.kind === 'input' && c.o.value, '4', 'the answer given survives Back'), enter),
      choose('Skip'),
      type('hello'),
      choose('Change Replicas'),
      type('9'),
      see((c) => assert.match(String(items(c)[0].detail), /Replicas: 9 · Notify: \(left out\) · Note: hello/), choose('Accept')),
    ]);
    assert.deepEqual(await runForm(plan, p, ui()), { action: 'accept', content: { env: 'prd', replicas: 9, note: 'hello' } });
  });

  it('an optional yes/no or choice without a default or an answer has Skip focused: Enter leaves it out, as in an empty optional input box, instead of answering Yes', async () => {
    const optional = formPlan({
      agree: { type: 'boolean', title: 'Agree to the terms' },
      size: { type: 'string', title: 'Size', enum: ['S', 'M'] },
      color: { type: 'string', title: 'Color', enum: ['red', 'blue'], default: 'blue' },
    });
    const focused = (c: Call) => items(c).filter((i) => i.picked).map((i) => i.label);
    const p = new ScriptedPrompter([
      see((c) => assert.deepEqual(focused(c), ['Skip']), choose('Skip')),
      see((c) => assert.deepEqual(focused(c), ['Skip']), choose('Skip')),
      see((c) => assert.deepEqual(focused(c), ['blue'], 'a default is still focused'), choose('blue')),
      choose('Accept'),
    ]);
    assert.deepEqual(await runForm(optional, p, ui()), { action: 'accept', content: { color: 'blue' } });
  });

  it('a required yes/no or choice without a default or an answer focuses nothing: Enter answers nothing until the user chooses (it answered Yes, or the first choice)', async () => {
    const required = formPlan(
      {
        dry: { type: 'boolean', title: 'Dry run' },
        size: { type: 'string', title: 'Size', enum: ['S', 'M'] },
        force: { type: 'boolean', title: 'Force', default: false },
        agree: { type: 'boolean', title: 'Agree' },
      },
      ['dry', 'size', 'force'],
    );
    const unfocused = (c: Call) => [(c.o as PickOptions<unknown>).unfocused, items(c).filter((i) => i.picked).map((i) => i.label)];
    const p = new ScriptedPrompter([
      see((c) => assert.deepEqual(unfocused(c), [true, []]), choose('No')),
      see((c) => assert.deepEqual(unfocused(c), [true, []]), choose('M')),
      see((c) => assert.deepEqual(unfocused(c), [false, ['No']], 'a default is focused'), choose('No')),
      see((c) => assert.deepEqual(unfocused(c), [false, ['Skip']], 'an optional field focuses Skip'), choose('Skip')),
      choose('Change Dry run'),
      see((c) => assert.deepEqual(unfocused(c), [false, ['No']], 'changed from the review, the answer given is focused'), choose('Yes')),
      choose('Accept'),
    ]);
    assert.deepEqual(await runForm(required, p, ui()), { action: 'accept', content: { dry: true, size: 'M', force: false } });
  });

  it('Back while changing a field from the review step (even the first) returns to the review step', async () => {
    const p = new ScriptedPrompter([
      choose('Production'),
      type('4'),
      choose('No'),
      type(''),
      choose('Change Environment'),
      see((c) => assert.equal(c.o.canGoBack, true, 'the first field, changed from the review, offers Back'), nav('back')),
      see((c) => assert.equal(items(c)[0].detail, 'Environment: Production · Replicas: 4 · Notify: No · Note: (left out)'), choose('Change Replicas')),
      see((c) => assert.equal(c.kind === 'input' && c.o.value, '4'), nav('back')),
      see((c) => assert.equal(c.o.step, 5, 'back on the review step'), choose('Accept')),
    ]);
    assert.deepEqual(await runForm(plan, p, ui()), { action: 'accept', content: { env: 'prd', replicas: 4, notify: false } });
    assert.equal(p.left, 0);
  });

  it('Decline from any step, Decline or Cancel on the review, and Escape answer decline or cancel without content', async () => {
    assert.deepEqual(await runForm(plan, new ScriptedPrompter([choose('Staging'), nav('decline')]), ui()), { action: 'decline' });
    assert.deepEqual(await runForm(plan, new ScriptedPrompter([nav('cancel')]), ui()), { action: 'cancel' });
    const all = [choose('Staging'), enter, choose('No'), type('')];
    assert.deepEqual(await runForm(plan, new ScriptedPrompter([...all, choose('Decline')]), ui()), { action: 'decline' });
    assert.deepEqual(await runForm(plan, new ScriptedPrompter([...all, choose('Cancel')]), ui()), { action: 'cancel' });
  });

  it('multi-selects check the number of options and an optional one checked empty is left out', async () => {
    const multi = formPlan({
      tags: { type: 'array', title: 'Tags', minItems: 1, maxItems: 2, items: { anyOf: [{ const: 't1', title: 'One' }, { const: 't2', title: 'Two' }, { const: 't3', title: 'Three' }] }, default: ['t2'] },
    });
    const p = new ScriptedPrompter([
      see((c) => {
        assert.equal(c.kind === 'pick' && c.o.canSelectMany, true);
        assert.deepEqual(items(c).map((i) => i.picked), [false, true, false], 'the default is checked');
        const validate = c.kind === 'pick' ? c.o.validate! : () => 'not a pick';
        assert.equal(validate(['t1', 't2', 't3']), 'Choose between 1 and 2 options');
        assert.equal(validate([]), undefined);
        assert.match(placeholder(c), /Choose between 1 and 2 options, or none to skip/);
      }, choose()),
      see((c) => assert.match(String(items(c)[0].detail), /Tags: \(left out\)/), choose('Accept')),
    ]);
    assert.deepEqual(await runForm(multi, p, ui()), { action: 'accept', content: {} });
  });

  it('a form without fields is one review step showing the message', async () => {
    const p = new ScriptedPrompter([see((c) => (assert.equal(placeholder(c), 'Continue?'), assert.equal(c.o.canGoBack, false)), choose('Accept'))]);
    assert.deepEqual(await runForm(formPlan({}, [], 'Continue?'), p, ui()), { action: 'accept', content: {} });
  });
});

describe('elicitation runUrl: consent before opening', () => {
  it('shows the message, the domain and the full URL; opens it only after Open, and answers accept', async () => {
    const plan = urlPlan('https://auth.example.com/connect?id=e-1');
    const p = new ScriptedPrompter([
      see((c) => {
        assert.equal(p.opened.length, 0, 'nothing is opened before consent');
        assert.match(placeholder(c), /^Connect your account \(auth\.example\.com\)$/);
        assert.deepEqual(labels(c), ['Open auth.example.com', 'Decline']);
        assert.equal(items(c)[0].detail, 'https://auth.example.com/connect?id=e-1');
      }, choose('Open auth.example.com')),
    ]);
    assert.deepEqual(await runUrl(plan, p, ui()), { action: 'accept' });
    assert.deepEqual(p.opened, ['https://auth.example.com/connect?id=e-1']);
    assert.equal(p.closed, 1);
  });

  it('Decline, Escape and a browser that does not open give decline, cancel, cancel', async () => {
    const plan = urlPlan('https://example.com/x');
    const declined = new ScriptedPrompter([choose('Decline')]);
    assert.deepEqual(await runUrl(plan, declined, ui()), { action: 'decline' });
    assert.deepEqual(declined.opened, []);
    assert.deepEqual(await runUrl(plan, new ScriptedPrompter([nav('cancel')]), ui()), { action: 'cancel' });
    const broken = new ScriptedPrompter([choose('Open example.com')]);
    broken.openWorks = false;
    assert.deepEqual(await runUrl(plan, broken, ui()), { action: 'cancel' });
  });

  it('a long URL can be read in full before consenting, and warnings show next to Open', async () => {
    const long = `http://xn--exmple-4nf.com/${'a'.repeat(100)}`;
    const plan = urlPlan(long);
    const p = new ScriptedPrompter([
      see((c) => {
        assert.deepEqual(labels(c), ['Open xn--exmple-4nf.com', 'Show the full URL', 'Decline']);
        assert.match(String(items(c)[0].description), /punycode.*not encrypted/);
      }, choose('Show the full URL')),
      see((c) => assert.equal(c.kind === 'input' && c.o.value, long), nav('cancel')),
      choose('Decline'),
    ]);
    assert.deepEqual(await runUrl(plan, p, ui()), { action: 'decline' });
    assert.deepEqual(p.opened, []);
  });
});

// ── The handler ──────────────────────────────────────────────────────────────────────────────

function ctx(signal = new AbortController().signal, extra: Partial<ServerRequestContext> = {}): ServerRequestContext {
  return { serverId: 'srv', signal, ...extra };
}

describe('elicitation handler', () => {
  const simple = { message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };

  it('names the task in the title as its row does (taskTitle), not by a cut id (read "7c2f dot dot dot"), and the server, with one pair of parentheses at most ("deploy (4:47 PM) on demo"); a task not followed here by its id', async () => {
    const task = { toolName: 'deploy' } as TaskSnapshot;
    assert.equal(dialogTitle('demo', { task, relatedTaskId: '7c2f9e51-aaaa' }), 'deploy on demo');
    assert.equal(dialogTitle('demo', { relatedTaskId: '7c2f9e51-aaaa' }), 'MCP server "demo", task 7c2f…');
    assert.equal(dialogTitle('demo', { relatedTaskId: 't-1' }), 'MCP server "demo", task t-1');
    assert.equal(dialogTitle('demo', {}), 'MCP server "demo"');
    const p = new ScriptedPrompter([see((c) => assert.equal(c.o.title, 'deploy (4:47 PM) on demo'), type('x')), choose('Accept')]);
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo', taskTitle: (t) => `${t.toolName} (4:47 PM)` });
    assert.deepEqual(await handle(simple, ctx(undefined, { task, relatedTaskId: '7c2f9e51-aaaa' })), { action: 'accept', content: { name: 'x' } });
    assert.ok(log.has('info', /^\[demo\] deploy .* asks: Name\? \(1 field\)$/), log.text());
    assert.ok(log.has('info', /Answered .*: accept \(fields: name\)/));
    assert.ok(!log.text().includes('"x"'), 'answers are not logged');
  });

  it("an open question's title follows its task's row when another run of its tool renames it (`deploy on demo`, then `deploy (4:47 PM) on demo`): the step shown is retitled, the steps after it take the new title", async () => {
    const task = { toolName: 'deploy', serverId: 'srv' } as TaskSnapshot;
    const runs = new Emitter<TaskSnapshot | string>();
    let name = 'deploy';
    const p = new ScriptedPrompter([
      see((c) => {
        assert.equal(c.o.title, 'deploy on demo');
        runs.fire({ toolName: 'other', serverId: 'srv' } as TaskSnapshot); // another tool's run: no new name
        name = 'deploy (4:47 PM)';
        runs.fire({ toolName: 'deploy', serverId: 'srv' } as TaskSnapshot);
        runs.fire('srv\nt-2');
      }, type('x')),
      see((c) => assert.equal(c.o.title, 'deploy (4:47 PM) on demo'), choose('Accept')),
    ]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo', taskTitle: () => name, renamed: runs.event });
    await handle(simple, ctx(undefined, { task, relatedTaskId: 't-1' }));
    assert.deepEqual(p.retitled, ['deploy (4:47 PM) on demo'], 'retitled once, when the name changed');
    name = 'deploy (4:47:03 PM)';
    runs.fire(task);
    assert.equal(p.retitled.length, 1, 'answered: no longer followed');
  });

  it('the log counts the fields in words: "(2 fields)", not "(2 field(s))"', async () => {
    const two = { message: 'Who?', requestedSchema: { type: 'object', properties: { name: { type: 'string' }, team: { type: 'string' } }, required: ['name', 'team'] } };
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: new ScriptedPrompter([type('x'), type('y'), choose('Accept')]), log, serverLabel: () => 'demo' });
    await handle(two, ctx());
    assert.ok(log.has('info', / asks: Who\? \(2 fields\)$/), log.text());
  });

  it('refuses a malformed request with -32602, logs why, and shows nothing', async () => {
    const p = new ScriptedPrompter([]);
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo' });
    await assert.rejects(handle({ message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'object' } } } }, ctx()), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, /property "a" is a nested object/);
      return true;
    });
    assert.ok(log.has('warn', /^\[demo\] Refused elicitation\/create: .*nested object/));
    const noUrl = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo', url: false });
    await assert.rejects(noUrl({ mode: 'url', message: 'm', url: 'https://example.com', elicitationId: 'e' }, ctx()), /mode "url" is not supported/);
    assert.equal(p.calls.length, 0);
  });

  it('closes the open dialog and rejects when the request is withdrawn', async () => {
    const p = new ScriptedPrompter([hang]);
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo' });
    const ac = new AbortController();
    const answer = handle(simple, ctx(ac.signal));
    await waitFor(() => p.calls.length === 1, 'the prompt');
    ac.abort(new Error('cancelled by the server'));
    await assert.rejects(answer, /cancelled by the server/);
    assert.equal(p.aborted, 1);
    assert.equal(p.closed, 1);
    assert.ok(log.has('info', /Closed MCP server "demo": the server withdrew its request \(cancelled by the server\)/));
  });

  it('tells a question its server withdrew (withdrawn: its message cut as a row\'s title), not one closed with its connection, its task\'s end or its hosted task', async () => {
    const told: string[] = [];
    const p = new ScriptedPrompter([hang, hang, hang, hang]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo', withdrawn: (title, server) => told.push(`${title} | ${server}`) });
    const long = { ...simple, message: 'Which  of the\nenvironments should the deployment go to next?' };
    for (const [reason, extra] of [[new Error('no longer needed'), {}], [new ConnectionClosedError('gone'), {}], [new TaskEndedError('completed'), {}], [new Error('cancelled'), { hostedTaskId: 'h1' }]] as const) {
      const ac = new AbortController();
      const answer = handle(long, ctx(ac.signal, extra));
      await waitFor(() => p.closed === p.calls.length - 1, 'the prompt');
      ac.abort(reason);
      await assert.rejects(answer);
    }
    assert.deepEqual(told, ['Which of the environments should the… | demo']);
  });

  it('T-LOG-1: a question hosted as a task that is closed says why in the task host\'s words (the user cancelled it), not that the server withdrew it', async () => {
    const p = new ScriptedPrompter([hang]);
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo' });
    const ac = new AbortController();
    const answer = handle(simple, ctx(ac.signal, { hostedTaskId: 'h-1' }));
    await waitFor(() => p.calls.length === 1, 'the prompt');
    ac.abort(new Error('Cancelled by the user'));
    await assert.rejects(answer, /Cancelled by the user/);
    assert.ok(log.has('info', /^\[demo\] Closed .*: Cancelled by the user$/), log.text());
    assert.equal(log.has('info', /withdrew/), false, log.text());
  });

  it('T-LIFE-5: a question hosted as a task that the user declines or cancels tells its row so ("Declined by the user", "Dismissed by the user"): the task completed, its server gets the action; one accepted tells nothing', async () => {
    for (const [act, action, words] of [[nav('decline'), 'decline', ['Declined by the user']], [nav('cancel'), 'cancel', ['Dismissed by the user']], [type('x'), 'accept', []]] as const) {
      const told: string[] = [];
      const script = action === 'accept' ? [act, choose('Accept')] : [act];
      const handle = createElicitationHandler({ prompter: new ScriptedPrompter(script), log: new MemoryLogger(), serverLabel: () => 'demo' });
      assert.equal((await handle(simple, ctx(undefined, { hostedTaskId: 'h-1', tells: (n) => told.push(n) }))).action, action);
      assert.deepEqual(told, words, action);
    }
  });

  it('shows one dialog at a time: a second request waits, and one withdrawn while waiting is never shown', async () => {
    const p = new ScriptedPrompter([hang, see((c) => assert.match(c.kind === 'input' ? c.o.prompt : '', /^Third/), type('x')), choose('Accept')]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo' });
    const first = new AbortController();
    const a = handle(simple, ctx(first.signal));
    await waitFor(() => p.calls.length === 1, 'the first prompt');
    const waiting = new AbortController();
    const b = handle(simple, ctx(waiting.signal));
    const c = handle({ ...simple, message: 'Third' }, ctx());
    await new Promise((r) => setImmediate(r));
    assert.equal(p.calls.length, 1, 'the second dialog waits for the first');
    waiting.abort(new Error('gone'));
    await assert.rejects(b, /gone/);
    first.abort(new Error('first gone'));
    await assert.rejects(a, /first gone/);
    assert.deepEqual(await c, { action: 'accept', content: { name: 'x' } });
    assert.equal(p.calls.length, 3, 'the withdrawn second request was never shown');
  });

  it('waits for any other dialog of the same turns (a sampling consent prompt), so neither hides the other', async () => {
    const turns = new Turns();
    let endConsent!: () => void;
    const consent = turns.take(() => new Promise<string>((resolve) => (endConsent = () => resolve('once'))), new AbortController().signal);
    const p = new ScriptedPrompter([type('x'), choose('Accept')]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo', turns });
    const answer = handle(simple, ctx());
    await new Promise((r) => setImmediate(r));
    assert.equal(p.calls.length, 0, 'the question is not shown over the consent prompt');
    endConsent();
    assert.equal(await consent, 'once');
    assert.deepEqual(await answer, { action: 'accept', content: { name: 'x' } });
    // And the other way round: a consent prompt asked for while the question is open waits for it.
    const q = new ScriptedPrompter([hang]);
    const asking = new AbortController();
    const open = createElicitationHandler({ prompter: q, log: new MemoryLogger(), serverLabel: () => 'demo', turns })(simple, ctx(asking.signal));
    await waitFor(() => q.calls.length === 1, 'the question');
    let consentShown = false;
    const later = turns.take(async () => (consentShown = true), new AbortController().signal);
    await new Promise((r) => setImmediate(r));
    assert.equal(consentShown, false, 'the consent prompt waits for the question');
    asking.abort(new Error('answered elsewhere'));
    await assert.rejects(open, /answered elsewhere/);
    assert.equal(await later, true);
  });

  it('gives each request its own prompter and turn: hidden at its second step, a question gives up its turn (the next one shows when the user asks), and shown again it goes on from that step', async () => {
    const turns = new Turns();
    const shown: Array<{ turn: Turn; call: Call; answer(a: Answer<unknown>): void }> = [];
    // One prompter per request, as the editor's: each prompt stays open until the test answers it.
    const prompter = (turn: Turn): FormPrompter => {
      const ask = (call: Call) => new Promise<Answer<unknown>>((answer) => shown.push({ turn, call, answer }));
      return {
        pick: <T>(items: readonly PickItem<T>[], o: PickOptions<T>) => ask({ kind: 'pick', items, o: o as PickOptions<unknown> }) as Promise<Answer<T[]>>,
        input: (o) => ask({ kind: 'input', o }) as Promise<Answer<string>>,
        openExternal: () => Promise.resolve(false),
        close: () => undefined,
      };
    };
    const handle = createElicitationHandler({ prompter, log: new MemoryLogger(), serverLabel: () => 'demo', turns });
    const two = { message: 'Deploy?', requestedSchema: { type: 'object', properties: { env: { type: 'string' }, note: { type: 'string' } }, required: ['env', 'note'] } };
    const a = handle(two, ctx());
    const b = handle(simple, ctx());
    await waitFor(() => shown.length === 1, "a's first step");
    shown[0]!.answer({ value: 'staging' });
    await waitFor(() => shown.length === 2, "a's second step");
    const hiddenA = shown[1]!;
    assert.equal(hiddenA.call.o.step, 2);
    // Hidden without an answer (Escape, or another quick input over it): a gives up its turn.
    hiddenA.turn.release();
    assert.equal(turns.deferred, 1, 'b waits for the user');
    turns.resume();
    await waitFor(() => shown.length === 3, 'b, once a is hidden and the user asks for it');
    assert.notEqual(shown[2]!.turn, hiddenA.turn, 'b has a turn of its own');
    let again = false;
    hiddenA.turn.retake(() => (again = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(again, false, 'a, shown again, waits for b on screen');
    shown[2]!.answer({ value: 'x' });
    await waitFor(() => shown.length === 4, "b's review step");
    shown[3]!.answer({ value: [{ type: 'accept' }] });
    assert.deepEqual(await b, { action: 'accept', content: { name: 'x' } });
    await waitFor(() => again, 'a to show again once b is answered');
    hiddenA.answer({ value: 'urgent' });
    await waitFor(() => shown.length === 5, "a's review step");
    assert.equal(shown[4]!.turn, hiddenA.turn);
    shown[4]!.answer({ value: [{ type: 'accept' }] });
    assert.deepEqual(await a, { action: 'accept', content: { env: 'staging', note: 'urgent' } });
  });

  it('notifications/elicitation/complete closes the still-open URL prompt (answered cancel); unknown ids are ignored', async () => {
    const p = new ScriptedPrompter([hang]);
    const log = new MemoryLogger();
    const handle = createElicitationHandler({ prompter: p, log, serverLabel: () => 'demo' });
    const answer = handle({ mode: 'url', message: 'Pay', url: 'https://pay.example.com/', elicitationId: 'pay-1' }, ctx());
    await waitFor(() => p.calls.length === 1, 'the consent prompt');
    handle.complete('other-server', { elicitationId: 'pay-1' });
    handle.complete('srv', { elicitationId: 'nope' });
    handle.complete('srv', { id: 'pay-1' });
    await new Promise((r) => setImmediate(r));
    assert.equal(p.aborted, 0, 'another server or id does not close it');
    assert.ok(log.has('debug', /unknown elicitation nope/));
    assert.ok(log.has('warn', /Ignored an invalid notifications\/elicitation\/complete: elicitationId: expected string/));
    handle.complete('srv', { elicitationId: 'pay-1' });
    assert.deepEqual(await answer, { action: 'cancel' });
    assert.equal(p.aborted, 1);
    assert.ok(log.has('info', /Closed the prompt of elicitation pay-1: the server reports it complete/));
    assert.equal(p.opened.length, 0);
  });

  it('T-LIFE-5: a URL question hosted as a task that its server reports complete tells its row so ("Finished elsewhere"): it completed, but not by an answer given here', async () => {
    const p = new ScriptedPrompter([hang]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo' });
    const told: string[] = [];
    const answer = handle({ mode: 'url', message: 'Pay', url: 'https://pay.example.com/', elicitationId: 'pay-1' }, ctx(undefined, { hostedTaskId: 'h-1', tells: (n) => told.push(n) }));
    await waitFor(() => p.calls.length === 1, 'the consent prompt');
    handle.complete('srv', { elicitationId: 'pay-1' });
    assert.deepEqual(await answer, { action: 'cancel' });
    assert.deepEqual(told, ['Finished elsewhere']);
  });

  it('refuses a second URL request with an elicitationId still pending from the same server', async () => {
    const p = new ScriptedPrompter([hang]);
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'demo' });
    const req = { mode: 'url', message: 'Pay', url: 'https://pay.example.com/', elicitationId: 'pay-1' };
    const ac = new AbortController();
    const first = handle(req, ctx(ac.signal));
    await assert.rejects(handle(req, ctx()), /elicitationId "pay-1" is already pending/);
    ac.abort(new Error('done'));
    await assert.rejects(first, /done/);
  });
});

// ── End to end: real servers send the requests ───────────────────────────────────────────────

/** An SDK `Server` in this process, connected to our engine over the in-memory pair. */
async function sdkPeer(prompter: ScriptedPrompter): Promise<{ server: Server; h: EngineHarness; log: MemoryLogger; close(): Promise<void> }> {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const server = new Server({ name: 'sdk-peer', version: '1.0.0' }, { capabilities: {} });
  await server.connect(theirs as unknown as SdkTransport);
  const log = new MemoryLogger();
  const handle = createElicitationHandler({ prompter, log, serverLabel: () => 'demo' });
  const h = await connectEngine(ours, { elicitation: { handle, url: true } });
  const sub = listenForElicitationComplete(h.session, 'peer', handle);
  return {
    server,
    h,
    log,
    close: async () => {
      sub.dispose();
      await h.close();
      await server.close();
    },
  };
}

describe('elicitation end to end with the SDK server (its elicitInput validates our content with its own JSON Schema checker)', () => {
  it('declares form and url elicitation, and the server accepts the content of every field kind', async () => {
    const p = new ScriptedPrompter([type('Mona'), type('mona@example.com'), type('https://example.com'), type('2000-01-31'), type('2024-05-01T10:00:00Z'), enter, type('2.5'), choose('No'), choose('B'), choose('Beta'), choose('Dogs'), choose('X', 'Z'), choose('Salmon'), choose('Accept')]);
    const peer = await sdkPeer(p);
    try {
      assert.deepEqual(peer.server.getClientCapabilities()?.elicitation, { form: {}, url: {} });
      const result = await peer.server.elicitInput({
        message: 'Profile',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string', minLength: 2, maxLength: 20 },
            email: { type: 'string', format: 'email' },
            site: { type: 'string', format: 'uri' },
            born: { type: 'string', format: 'date' },
            at: { type: 'string', format: 'date-time' },
            age: { type: 'integer', minimum: 18, maximum: 130, default: 40 },
            score: { type: 'number', minimum: 0, maximum: 5 },
            ok: { type: 'boolean', default: true },
            plain: { type: 'string', enum: ['A', 'B'] },
            titled: { type: 'string', oneOf: [{ const: 'a', title: 'Alpha' }, { const: 'b', title: 'Beta' }] },
            legacy: { type: 'string', enum: ['cat', 'dog'], enumNames: ['Cats', 'Dogs'] },
            many: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['X', 'Y', 'Z'] } },
            manyTitled: { type: 'array', items: { anyOf: [{ const: 's', title: 'Salmon' }, { const: 't', title: 'Tuna' }] } },
          },
          required: ['name', 'email', 'age', 'many'],
        },
      });
      assert.deepEqual(result, {
        action: 'accept',
        content: { name: 'Mona', email: 'mona@example.com', site: 'https://example.com', born: '2000-01-31', at: '2024-05-01T10:00:00Z', age: 40, score: 2.5, ok: false, plain: 'B', titled: 'b', legacy: 'dog', many: ['X', 'Z'], manyTitled: ['s'] },
      });
    } finally {
      await peer.close();
    }
  });

  it('URL mode: opens after consent and answers accept; the later completion notification is logged', async () => {
    const p = new ScriptedPrompter([choose('Open auth.example.com')]);
    const peer = await sdkPeer(p);
    try {
      const result = await peer.server.elicitInput({ mode: 'url', message: 'Connect', url: 'https://auth.example.com/c', elicitationId: 'el-9' });
      assert.deepEqual(result, { action: 'accept' });
      assert.deepEqual(p.opened, ['https://auth.example.com/c']);
      await peer.server.createElicitationCompletionNotifier('el-9')();
      await waitFor(() => peer.log.has('info', /The server reports elicitation el-9 complete/), 'the completion in the log');
    } finally {
      await peer.close();
    }
  });

  it('URL mode: the completion notification closes a prompt still waiting for consent', async () => {
    const p = new ScriptedPrompter([hang]);
    const peer = await sdkPeer(p);
    try {
      const result = peer.server.elicitInput({ mode: 'url', message: 'Connect', url: 'https://auth.example.com/c', elicitationId: 'el-10' });
      await waitFor(() => p.calls.length === 1, 'the consent prompt');
      await peer.server.createElicitationCompletionNotifier('el-10')();
      assert.deepEqual(await result, { action: 'cancel' });
      assert.equal(p.aborted, 1);
      assert.deepEqual(p.opened, []);
    } finally {
      await peer.close();
    }
  });

  it('a request the server cancels closes the dialog', async () => {
    const p = new ScriptedPrompter([hang]);
    const peer = await sdkPeer(p);
    try {
      const ac = new AbortController();
      const result = peer.server.elicitInput({ message: 'Name?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } }, { signal: ac.signal });
      await waitFor(() => p.calls.length === 1, 'the prompt');
      ac.abort('no longer needed');
      await assert.rejects(result);
      await waitFor(() => p.aborted === 1, 'the prompt to close');
      assert.equal(p.closed, 1);
      await waitFor(() => peer.log.has('info', /withdrew its request/), 'the log line');
    } finally {
      await peer.close();
    }
  });

  it('a malformed request reaches the server as -32602 with the reason', async () => {
    const p = new ScriptedPrompter([]);
    const peer = await sdkPeer(p);
    try {
      await assert.rejects(
        peer.server.request({ method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { n: { type: 'number', minimum: 5, maximum: 1 } } } } }, ElicitResultSchema),
        (err: unknown) => {
          assert.ok(err instanceof McpError);
          assert.equal(err.code, -32602);
          assert.match(err.message, /property "n": minimum 5 is greater than maximum 1/);
          return true;
        },
      );
      assert.equal(p.calls.length, 0);
    } finally {
      await peer.close();
    }
  });
});

describe('elicitation end to end with server-everything over stdio (a real process)', function () {
  this.timeout(60000);
  let h: EngineHarness;
  const p = new ScriptedPrompter([]);

  before(async () => {
    const handle = createElicitationHandler({ prompter: p, log: new MemoryLogger(), serverLabel: () => 'everything' });
    h = await connectEngine(new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], logger: new MemoryLogger() }), { elicitation: { handle, url: true } });
  });
  after(async () => {
    await h?.close();
  });

  async function call(tool: string, args?: Record<string, unknown>): Promise<string> {
    const first = await h.engine.callTool('peer', tool, { arguments: args });
    const done = await h.until(first.key, (s) => s.outcome !== undefined, `the outcome of ${tool}`);
    assert.equal(done.outcome?.kind, 'result', JSON.stringify(done.outcome));
    return done.outcome?.kind === 'result' ? done.outcome.result.content.map((c) => (c as { text?: string }).text ?? '').join('\n') : '';
  }

  it('trigger-elicitation-request: every field kind of the spec, with Back, Skip and defaults, reaches the tool', async () => {
    p.script.push(
      see((c) => assert.match(c.kind === 'input' ? c.o.prompt : '', /^Please provide inputs for the following fields: — String: Your full, legal name$/), type('Monalisa Octocat')),
      choose('Yes'),
      see((c) => assert.equal(c.kind === 'input' && c.o.value, 'It was a dark and stormy night.'), enter),
      see((c) => assert.equal(c.kind === 'input' && c.o.validate('octocat'), 'Enter an email address, like name@example.com'), type('octocat@github.com')),
      type('https://github.com/octocat'),
      nav('back'),
      see((c) => assert.equal(c.kind === 'input' && c.o.value, 'https://github.com/octocat'), enter),
      type('1990-02-28'),
      see((c) => assert.equal(c.kind === 'input' && c.o.validate('500'), 'Enter a whole number between 1 and 100'), type('7')),
      enter,
      see((c) => assert.ok(labels(c).includes('Skip')), choose('Skip')),
      choose('Piano', 'Drums'),
      choose('Wonder Woman'),
      choose('Tuna', 'Trout'),
      choose('Dogs'),
      choose('Accept'),
    );
    const text = await call('trigger-elicitation-request');
    assert.equal(p.left, 0);
    assert.match(text, /User provided the requested information/);
    const raw = JSON.parse(text.slice(text.indexOf('Raw result: ') + 'Raw result: '.length)) as unknown;
    assert.deepEqual(raw, {
      action: 'accept',
      content: {
        name: 'Monalisa Octocat',
        check: true,
        firstLine: 'It was a dark and stormy night.',
        email: 'octocat@github.com',
        homepage: 'https://github.com/octocat',
        birthdate: '1990-02-28',
        integer: 7,
        number: 3.14,
        untitledMultipleSelectEnum: ['Piano', 'Drums'],
        titledSingleSelectEnum: 'hero-3',
        titledMultipleSelectEnum: ['fish-1', 'fish-3'],
        legacyTitledEnum: 'pet-2',
      },
    });
  });

  it('trigger-elicitation-request: Decline reaches the tool as decline', async () => {
    p.script.push(nav('decline'));
    assert.match(await call('trigger-elicitation-request'), /User declined to provide the requested information/);
  });

  it('trigger-url-elicitation: the user consents, the URL is opened, and the tool hears accept', async () => {
    p.script.push(choose('Open example.com'));
    const text = await call('trigger-url-elicitation', { url: 'https://example.com/connect', message: 'Link your account' });
    assert.match(text, /User completed the URL elicitation flow/);
    assert.deepEqual(p.opened, ['https://example.com/connect']);
  });
});
