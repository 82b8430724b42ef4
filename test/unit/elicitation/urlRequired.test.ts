// The -32042 error (URLElicitationRequiredError, schema.ts): a request the server refuses until
// the user completes URL-mode elicitations. Its data comes from the server, so it is read as
// untrusted; the URLs are offered with the consent of URL elicitation, then the request may run
// again ("the client may retry the original request").
import * as assert from 'node:assert/strict';
import type { Answer, FormPrompter, InputOptions, PickItem, PickOptions } from '../../../src/core/elicitation/handler';
import { MAX_REQUIRED_URLS, completeInBrowser, taskBrowserSteps, urlsRequired } from '../../../src/core/elicitation/urlRequired';
import type { UrlPlan } from '../../../src/core/elicitation/plan';
import { ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';

const elicitation = (n: number, extra: Record<string, unknown> = {}) => ({
  mode: 'url',
  message: `Sign in to account ${n}`,
  url: `https://auth.example.com/connect?step=${n}&return=https%3A%2F%2Fapp.example%2Fdone`,
  elicitationId: `e-${n}`,
  ...extra,
});
const error = (data: unknown) => new RpcError(ErrorCode.UrlElicitationRequired, 'This request requires more information.', data);

function plans(data: unknown): UrlPlan[] {
  const r = urlsRequired(error(data));
  assert.ok(r?.ok, `expected URLs, got ${JSON.stringify(r)}`);
  return r.plans;
}

function problem(data: unknown): string {
  const r = urlsRequired(error(data));
  assert.equal(r?.ok, false, `expected the data to be refused: ${JSON.stringify(r)}`);
  return r?.ok === false ? r.problem : '';
}

describe('URLElicitationRequiredError (-32042): reading its data', () => {
  it('reads each URL elicitation of data.elicitations with its domain, from an RpcError or a stored error outcome', () => {
    const data = { elicitations: [elicitation(1), elicitation(2)] };
    const read = plans(data);
    assert.deepEqual(read.map((p) => [p.url, p.domain, p.elicitationId, p.message]), [
      [elicitation(1).url, 'auth.example.com', 'e-1', 'Sign in to account 1'],
      [elicitation(2).url, 'auth.example.com', 'e-2', 'Sign in to account 2'],
    ]);
    // A task's outcome keeps the error as JSON: { code, message, data }.
    assert.deepEqual(urlsRequired(error(data).toJSON()), { ok: true, plans: read });
  });

  it('taskBrowserSteps: the URLs of a task whose outcome is a usable -32042, unless the task was found through tasks/list (its call is unknown)', () => {
    const outcome = { kind: 'error' as const, error: error({ elicitations: [elicitation(1)] }).toJSON() };
    assert.deepEqual(taskBrowserSteps({ outcome, origin: 'user' })?.map((p) => p.url), [elicitation(1).url]);
    assert.deepEqual(taskBrowserSteps({ outcome, origin: 'chat' })?.map((p) => p.url), [elicitation(1).url]);
    assert.equal(taskBrowserSteps({ outcome, origin: 'server-list' }), undefined);
    assert.equal(taskBrowserSteps({ outcome: { kind: 'error', error: error({ elicitations: [elicitation(1, { url: 'javascript:x' })] }).toJSON() }, origin: 'user' }), undefined);
    assert.equal(taskBrowserSteps({ outcome: { kind: 'error', error: { code: -32603, message: 'boom' } }, origin: 'user' }), undefined);
    assert.equal(taskBrowserSteps({ outcome: { kind: 'result', result: { content: [] } }, origin: 'user' }), undefined);
    assert.equal(taskBrowserSteps({ origin: 'user' }), undefined);
  });

  it('is not about other errors, whatever their data', () => {
    assert.equal(urlsRequired(new RpcError(ErrorCode.InternalError, 'boom', { elicitations: [elicitation(1)] })), undefined);
    assert.equal(urlsRequired(new Error('plain')), undefined);
    assert.equal(urlsRequired(undefined), undefined);
    assert.equal(urlsRequired({ code: '-32042', data: { elicitations: [elicitation(1)] } }), undefined);
  });

  it('refuses data without a list of elicitations, or an empty one, saying why', () => {
    assert.match(problem(undefined), /^its error data lists no elicitations$/);
    assert.match(problem('sign in'), /^its error data lists no elicitations$/);
    assert.match(problem({ elicitations: 'https://auth.example.com' }), /^its error data lists no elicitations$/);
    assert.match(problem({ elicitations: [] }), /^its error data lists no elicitations$/);
  });

  it('refuses the whole list when one elicitation is not in URL mode or breaks the URL-mode rules', () => {
    assert.match(problem({ elicitations: [elicitation(1), { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } }] }), /^elicitation 2 is not in URL mode$/);
    assert.match(problem({ elicitations: [elicitation(1, { mode: 'form' })] }), /^elicitation 1 is invalid: requestedSchema is required in form mode$/);
    assert.match(problem({ elicitations: [elicitation(1, { mode: 'sms' })] }), /^elicitation 1 is invalid: unknown mode "sms"/);
    assert.match(problem({ elicitations: [null] }), /^elicitation 1 is invalid: params\.message/);
    assert.match(problem({ elicitations: [elicitation(1, { url: 'not a url' })] }), /^elicitation 1 is invalid: url "not a url" is not a valid URL$/);
    assert.match(problem({ elicitations: [elicitation(1, { url: 'javascript:alert(1)' })] }), /^elicitation 1 is invalid: url must be http or https, not javascript$/);
    assert.match(problem({ elicitations: [elicitation(1, { url: 'file:///etc/passwd' })] }), /not file/);
    assert.match(problem({ elicitations: [elicitation(1, { url: 'https://bank.example@evil.example/' })] }), /must not carry a user name or password/);
    assert.match(problem({ elicitations: [elicitation(1, { elicitationId: undefined })] }), /elicitationId is required/);
    assert.match(problem({ elicitations: [elicitation(1, { message: 42 })] }), /^elicitation 1 is invalid: params\.message/);
  });

  it(`offers at most ${MAX_REQUIRED_URLS} URLs however many the server lists`, () => {
    const many = Array.from({ length: 40 }, (_, i) => elicitation(i));
    const r = urlsRequired(error({ elicitations: many }));
    assert.ok(r?.ok);
    assert.deepEqual(r.plans.map((p) => p.elicitationId), ['e-0', 'e-1', 'e-2', 'e-3', 'e-4']);
  });
});

// ── The dialog, with a prompter that answers as the user would ──────────────────────────────

type Act = 'open' | 'decline' | 'escape' | 'again' | 'not now';

class Scripted implements FormPrompter {
  readonly opened: string[] = [];
  readonly shown: Array<{ title: string; placeholder: string; labels: string[]; detail?: string }> = [];
  constructor(readonly script: Act[]) {}

  pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    this.shown.push({ title: o.title, placeholder: o.placeholder, labels: items.map((i) => i.label), detail: items[0].detail });
    const act = this.script.shift();
    assert.ok(act, `unexpected pick ${JSON.stringify(items.map((i) => i.label))}`);
    if (act === 'escape') return Promise.resolve({ nav: 'cancel' });
    const label = { open: /^Open /, decline: /^Decline$/, again: /^Run Again$/, 'not now': /^Not Now$/ }[act];
    const item = items.find((i) => label.test(i.label));
    assert.ok(item, `no item for ${act} among ${JSON.stringify(items.map((i) => i.label))}`);
    return Promise.resolve({ value: [item.value] });
  }
  input(_: InputOptions): Promise<Answer<string>> {
    return Promise.reject(new Error('no input box expected'));
  }
  openExternal(url: string): Promise<boolean> {
    this.opened.push(url);
    return Promise.resolve(true);
  }
  close(): void {}
}

describe('URLElicitationRequiredError (-32042): completing the steps in the browser', () => {
  const two = () => plans({ elicitations: [elicitation(1), elicitation(2)] });
  const ui = { title: '"connect" on demo needs you to complete a step in your browser first', signal: new AbortController().signal };

  it('offers each URL with the consent of URL elicitation (message, domain, full URL), opens each only after Open, then offers to run the request again', async () => {
    const p = new Scripted(['open', 'open', 'again']);
    assert.equal(await completeInBrowser(two(), p, ui), true);
    assert.deepEqual(p.opened, [elicitation(1).url, elicitation(2).url]);
    assert.deepEqual(
      p.shown.map((s) => [s.title, s.placeholder, s.labels[0]]),
      [
        [`${ui.title} (1/2)`, 'Sign in to account 1 (auth.example.com)', 'Open auth.example.com'],
        [`${ui.title} (2/2)`, 'Sign in to account 2 (auth.example.com)', 'Open auth.example.com'],
        [ui.title, 'Once you have finished in the browser, run the request again', 'Run Again'],
      ],
    );
    assert.equal(p.shown[0].detail, elicitation(1).url, 'the full URL is shown before consent');
  });

  it('Decline or Escape on a URL ends it: nothing (more) is opened and nothing runs again', async () => {
    const declined = new Scripted(['decline']);
    assert.equal(await completeInBrowser(two(), declined, ui), false);
    assert.deepEqual(declined.opened, []);
    const escaped = new Scripted(['open', 'escape']);
    assert.equal(await completeInBrowser(two(), escaped, ui), false);
    assert.deepEqual(escaped.opened, [elicitation(1).url]);
    assert.deepEqual(escaped.script, [], 'no Run Again step');
  });

  it('Not Now or Escape on the last step runs nothing again', async () => {
    assert.equal(await completeInBrowser(two(), new Scripted(['open', 'open', 'not now']), ui), false);
    assert.equal(await completeInBrowser(two(), new Scripted(['open', 'open', 'escape']), ui), false);
  });
});
