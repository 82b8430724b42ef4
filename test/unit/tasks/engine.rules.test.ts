// Every requestor rule of the MCP Tasks spec (2025-11-25) pinned on the TaskEngine, against a
// scriptable server of our own: what the client sent on the wire, the snapshot, and the log.
import * as assert from 'node:assert/strict';
import type { FormPrompter } from '../../../src/core/elicitation/handler';
import { createElicitationHandler } from '../../../src/core/elicitation/handler';
import { ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import FakeTimers from '@sinonjs/fake-timers';
import type { ServerRequestContext, ServerRequestHandler, TaskEngine, UnsentAnswer } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { taskKey } from '../../../src/core/tasks/types';
import { describeTask } from '../../../src/core/tasks/presentation';
import { hasResult, hasResultToFetch } from '../../../src/core/tasks/policy';
import { NO_POLL, harnessesForEachTest, settle, waitStatus } from '../helpers/fakeTaskServer';
import { waitFor } from '../helpers/logger';


describe('TaskEngine: requestor rules (MCP Tasks 2025-11-25)', () => {
  const harness = harnessesForEachTest();

  // ── Capabilities ─────────────────────────────────────────────────────────────────────────────

  it('T-CAP-1: reads the server\'s tasks capability; declares no tasks capability of its own in initialize', async () => {
    const h = await harness({
      engine: {
        handlers: {
          elicitation: { handle: async () => ({ action: 'decline' }) },
          sampling: { handle: async () => ({ role: 'assistant', content: { type: 'text', text: '' }, model: 'm' }) },
        },
      },
    });
    const init = h.server.initializeParams!;
    assert.equal(init.protocolVersion, '2025-11-25');
    // Only what the handlers implement; this client hosts no tasks, so no `tasks` key at all.
    assert.deepEqual(init.capabilities, { roots: { listChanged: true }, elicitation: { form: {} }, sampling: {} });
    assert.equal(h.session.supportsTasks, true);
    assert.equal(h.session.tasksSummary, 'tools/call, list, cancel');
    assert.ok(h.log.has('info', /Connected to fake-task-server 1\.0\.0 \(MCP 2025-11-25\); tasks: tools\/call, list, cancel$/), h.log.text());
  });

  it('T-CAP-1: uses tasks/list and tasks/cancel only where the server declared them', async () => {
    const h = await harness({ server: { tasks: { list: false, cancel: false }, pollInterval: NO_POLL } });
    assert.equal(h.session.tasksSummary, 'tools/call');
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.kind, 'task', 'tools/call as a task is still declared');
    assert.equal(await h.engine.refreshList('fake'), 0);
    await assert.rejects(h.engine.cancel(snap.key), /Server "fake" does not support cancelling tasks/);
    assert.deepEqual(h.server.requestsOf('tasks/list'), []);
    assert.deepEqual(h.server.requestsOf('tasks/cancel'), []);
    assert.equal(h.snap(snap.taskId).status, 'working');
  });

  for (const flag of [false, null]) {
    it(`T-CAP-1: a server whose tasks capability says "cancel": ${flag} is never sent tasks/cancel: Cancel says it does not support it`, async () => {
      const h = await harness({ server: { tasksRaw: { cancel: flag }, pollInterval: NO_POLL } });
      assert.equal(h.session.tasksSummary, 'tools/call, list');
      const snap = await h.engine.callTool('fake', 'required-tool');
      await assert.rejects(h.engine.cancel(snap.key), /^Error: Server "fake" does not support cancelling tasks\.$/);
      assert.deepEqual(h.server.requestsOf('tasks/cancel'), []);
      assert.equal(h.snap(snap.taskId).status, 'working');
    });
  }

  it('T-CAP-2: a server without capabilities.tasks never gets a task-augmented request', async () => {
    const h = await harness({ server: { tasks: false } });
    assert.equal(h.session.supportsTasks, false);
    assert.equal(h.session.tasksSummary, '');
    const snap = await h.engine.callTool('fake', 'optional-tool', { arguments: { a: 1 } });
    assert.equal(snap.kind, 'direct');
    await waitStatus(h, snap.taskId, 'completed');
    await assert.rejects(h.engine.callTool('fake', 'required-tool'), /must run as a task, but the server does not declare task support for tools\/call/);
    await assert.rejects(h.engine.callTool('fake', 'optional-tool', { preference: 'task' }), /server does not declare task support/);
    assert.equal(await h.engine.refreshList('fake'), 0);
    const calls = h.server.requestsOf('tools/call');
    assert.equal(calls.length, 1, 'only the optional tool, directly');
    assert.equal(calls[0].params?.name, 'optional-tool');
    assert.deepEqual(calls[0].params?.arguments, { a: 1 });
    assert.equal('task' in calls[0].params!, false);
    assert.deepEqual(h.server.received.map((r) => r.method).filter((m) => m.startsWith('tasks/')), []);
  });

  it('T-CAP-2: a server on an older revision gets no tasks even if it claims the capability', async () => {
    const h = await harness({ server: { protocolVersion: '2025-06-18' } });
    assert.equal(h.session.supportsTasks, false);
    const snap = await h.engine.callTool('fake', 'optional-tool');
    assert.equal(snap.kind, 'direct');
    await waitStatus(h, snap.taskId, 'completed');
    assert.equal(h.server.requestsOf('tools/call')[0].params?.task, undefined);
    assert.equal(await h.engine.refreshList('fake'), 0);
    assert.deepEqual(h.server.requestsOf('tasks/list'), []);
  });

  // ── Tool-level negotiation ───────────────────────────────────────────────────────────────────

  it('T-TOOL-1: without tasks.requests.tools.call no tool is called as a task, whatever its taskSupport', async () => {
    const h = await harness({ server: { tasks: { toolsCall: false } } });
    assert.equal(h.session.supportsTasks, true, 'list and cancel are still declared');
    const opt = await h.engine.callTool('fake', 'optional-tool');
    assert.equal(opt.kind, 'direct');
    await waitStatus(h, opt.taskId, 'completed');
    await assert.rejects(h.engine.callTool('fake', 'required-tool'), /must run as a task, but the server does not declare task support/);
    await assert.rejects(h.engine.callTool('fake', 'optional-tool', { preference: 'task' }), /server does not declare task support/);
    const calls = h.server.requestsOf('tools/call');
    assert.equal(calls.length, 1);
    assert.equal('task' in calls[0].params!, false);
  });

  it('T-TOOL-2: taskSupport absent, "forbidden" or unknown: never called as a task', async () => {
    const h = await harness({
      server: { tools: [{ name: 'forbidden-tool', taskSupport: 'forbidden' }, { name: 'plain-tool' }, { name: 'odd-tool', taskSupport: 'sometimes' }] },
    });
    for (const name of ['forbidden-tool', 'plain-tool', 'odd-tool']) {
      const snap = await h.engine.callTool('fake', name);
      assert.equal(snap.kind, 'direct', name);
      await waitStatus(h, snap.taskId, 'completed');
      await assert.rejects(h.engine.callTool('fake', name, { preference: 'task' }), /the tool does not support running as a task/);
    }
    const calls = h.server.requestsOf('tools/call');
    assert.deepEqual(calls.map((c) => c.params?.name), ['forbidden-tool', 'plain-tool', 'odd-tool']);
    for (const c of calls) assert.equal('task' in c.params!, false, JSON.stringify(c.params));
  });

  it('T-TOOL-3: "optional" is a task by default and a plain call when the user prefers', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const asTask = await h.engine.callTool('fake', 'optional-tool');
    assert.equal(asTask.kind, 'task');
    assert.equal(asTask.status, 'working');
    const direct = await h.engine.callTool('fake', 'optional-tool', { preference: 'direct' });
    assert.equal(direct.kind, 'direct');
    await waitStatus(h, direct.taskId, 'completed');
    const [first, second] = h.server.requestsOf('tools/call');
    assert.deepEqual(first.params?.task, {});
    assert.equal('task' in second.params!, false);
  });

  it('T-TOOL-4: "required" is always a task; a direct call is refused before anything is sent', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.kind, 'task');
    await assert.rejects(h.engine.callTool('fake', 'required-tool', { preference: 'direct' }), /must run as a task; it cannot be called directly/);
    const calls = h.server.requestsOf('tools/call');
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].params?.task, {});
  });

  // ── Requestor ────────────────────────────────────────────────────────────────────────────────

  it('T-REQ-1: sends params.task = { ttl }; the answer is a CreateTaskResult, with its immediate response kept', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL, immediateResponse: 'Started; results will follow.' }, engine: { defaultTtlMs: () => 5_000 } });
    const a = await h.engine.callTool('fake', 'required-tool', { arguments: { city: 'Paris' }, ttlMs: 30_000 });
    const b = await h.engine.callTool('fake', 'required-tool');
    const [ca, cb] = h.server.requestsOf('tools/call');
    assert.equal(ca.params?.name, 'required-tool');
    assert.deepEqual(ca.params?.arguments, { city: 'Paris' });
    assert.deepEqual(ca.params?.task, { ttl: 30_000 });
    assert.deepEqual(cb.params?.task, { ttl: 5_000 }, 'the default ttl');
    const server = h.server.task(a.taskId)!;
    assert.equal(a.kind, 'task');
    assert.equal(a.status, 'working');
    assert.equal(a.ttl, 30_000);
    assert.equal(a.createdAt, server.createdAt);
    assert.equal(a.immediateResponse, 'Started; results will follow.');
    assert.equal(a.outcome, undefined, 'the tool result is not in the CreateTaskResult');
    assert.equal(b.ttl, 5_000);

    const h2 = await harness({ server: { pollInterval: NO_POLL } });
    const c = await h2.engine.callTool('fake', 'required-tool');
    assert.deepEqual(h2.server.requestsOf('tools/call')[0].params?.task, {}, 'no ttl: the server chooses');
    assert.equal(c.ttl, null);
    assert.equal(c.immediateResponse, undefined);
  });

  it('T-REQ-2: polls tasks/get { taskId } until the task ends, then stops following it', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(h.engine.followedCount, 1);
    await h.server.waitForRequest('tasks/get', 3);
    h.server.complete(snap.taskId);
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    assert.equal(h.snap(snap.taskId).status, 'completed');
    assert.equal(h.engine.followedCount, 0, 'no poll is scheduled after a terminal status');
    for (const r of h.server.requestsOf('tasks/get')) assert.deepEqual(r.params, { taskId: snap.taskId });
    // The last poll saw the end; polling the task again is a no-op.
    const polls = h.server.requestsOf('tasks/get').length;
    await h.engine.poll(snap.key);
    await settle(h);
    assert.equal(h.server.requestsOf('tasks/get').length, polls);
  });

  it('T-REQ-2: an answer whose advice is malformed (pollInterval "5000", ttl "soon") still moves the task: the advice reads as none', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: 10 } });
    h.server.override('tasks/get', async (_params, _ctx, builtin) => ({ ...((await builtin()) as object), pollInterval: '5000', ttl: 'soon' }));
    const snap = await h.engine.callTool('fake', 'required-tool');
    await h.server.waitForRequest('tasks/get', 2);
    h.server.complete(snap.taskId);
    await waitFor(() => h.snap(snap.taskId).status === 'completed', 'the task to complete through its malformed answers');
    assert.equal(h.snap(snap.taskId).ttl, null, 'a ttl that is not a number reads as none');
  });

  it('T-REQ-2: an answer whose statusMessage is null (a server that writes its empty fields) still moves the task: the message reads as none', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: 10 } });
    h.server.override('tasks/get', async (_params, _ctx, builtin) => ({ ...((await builtin()) as object), statusMessage: null }));
    const snap = await h.engine.callTool('fake', 'required-tool');
    await h.server.waitForRequest('tasks/get', 2);
    h.server.complete(snap.taskId);
    await waitFor(() => h.snap(snap.taskId).status === 'completed', 'the task to complete through its answers with a null message');
    assert.equal(h.snap(snap.taskId).statusMessage, undefined);
  });

  it('T-REQ-3: on input_required calls tasks/result at once; the server\'s elicitation arrives tagged with the task', async () => {
    const asked: Array<{ params: Record<string, unknown> | undefined; ctx: ServerRequestContext }> = [];
    const h = await harness({
      server: { notify: 'once', pollInterval: NO_POLL },
      engine: {
        handlers: {
          elicitation: {
            handle: async (params, ctx) => {
              asked.push({ params, ctx });
              return { action: 'accept', content: { confirm: true } };
            },
          },
        },
      },
    });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required', 'Needs confirmation');
    const result = await h.server.waitForRequest('tasks/result');
    assert.deepEqual(result.params, { taskId: snap.taskId });
    assert.equal(h.server.requestsOf('tasks/get').length, 0, 'tasks/result came from the notification, without waiting for a poll');
    assert.equal(h.snap(snap.taskId).status, 'input_required');

    const answer = await h.server.sendElicitation(snap.taskId, {
      mode: 'form',
      message: 'Delete 3 files?',
      requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
    });
    assert.deepEqual(answer, { action: 'accept', content: { confirm: true }, _meta: { [RELATED_TASK_META]: { taskId: snap.taskId } } });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].params?.message, 'Delete 3 files?');
    assert.equal(asked[0].ctx.serverId, 'fake');
    assert.equal(asked[0].ctx.relatedTaskId, snap.taskId);
    assert.equal(asked[0].ctx.task?.taskId, snap.taskId);
    assert.equal(asked[0].ctx.task?.status, 'input_required');

    h.server.setStatus(snap.taskId, 'working');
    h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'deleted' }] });
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    assert.equal(h.snap(snap.taskId).status, 'completed');
    assert.equal(h.server.requestsOf('tasks/result').length, 1, 'the blocked call delivered the outcome');
  });

  it('T-REQ-3: the answer to a question about a task carries the same related-task _meta (spec: "all requests, notifications, and responses related to a task"), beside the handler\'s own _meta', async () => {
    const h = await harness({
      server: { pollInterval: NO_POLL },
      engine: {
        handlers: {
          elicitation: { handle: async () => ({ action: 'decline', _meta: { 'example.com/why': 'busy' } }) },
          sampling: { handle: async () => ({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' }) },
        },
      },
    });
    const snap = await h.engine.callTool('fake', 'required-tool');
    const related = (taskId: string) => ({ _meta: { [RELATED_TASK_META]: { taskId } } });
    const form = { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: {} } };
    assert.deepEqual(await h.server.sendElicitation(snap.taskId, form), { action: 'decline', _meta: { 'example.com/why': 'busy', [RELATED_TASK_META]: { taskId: snap.taskId } } });
    const sample = { messages: [{ role: 'user', content: { type: 'text', text: 'hello' } }], maxTokens: 5 };
    assert.deepEqual(await h.server.connection.requestRaw('sampling/createMessage', { ...sample, ...related(snap.taskId) }), {
      role: 'assistant',
      content: { type: 'text', text: 'hi' },
      model: 'm',
      ...related(snap.taskId),
    });
    // A task not tracked here is still the one the answer relates to; a question about no task gets no _meta.
    assert.deepEqual((await h.server.sendElicitation('elsewhere', form))._meta, { 'example.com/why': 'busy', [RELATED_TASK_META]: { taskId: 'elsewhere' } });
    assert.deepEqual(await h.server.connection.requestRaw('elicitation/create', form), { action: 'decline', _meta: { 'example.com/why': 'busy' } });
  });

  it('T-REQ-3: an answer to a task\'s question that cannot be sent (tried again first) is told with its task, which no longer waits for the user: until Send Again delivers it, or the server moves on', async () => {
    const h = await harness({
      server: { notify: 'once', pollInterval: NO_POLL },
      engine: { handlers: { elicitation: { handle: async () => ({ action: 'accept', content: { go: true } }) } } },
    });
    const form = { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } } };
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    await waitStatus(h, snap.taskId, 'input_required');
    const told: UnsentAnswer[] = [];
    h.engine.onDidNotSend((u) => told.push(u));
    // The server stops taking answers (a frozen process: each POST times out).
    const transport = h.session.transport;
    const deliver = transport.send.bind(transport);
    let failing = true;
    transport.send = (m) => (failing && 'result' in m ? Promise.reject(new Error('Server "fake" did not accept the response to id 1 within 30 s')) : deliver(m));
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const asked = h.server.sendElicitation(snap.taskId, form);
      await clock.tickAsync(7000);
      assert.equal(told.length, 1);
      assert.deepEqual([told[0].serverId, told[0].method, told[0].task?.key, told[0].reason], ['fake', 'elicitation/create', snap.key, 'Server "fake" did not accept the response to id 1 within 30 s']);
      assert.equal(h.snap(snap.taskId).status, 'input_required', 'the server still waits');
      assert.equal(h.snap(snap.taskId).unsent, 'Server "fake" did not accept the response to id 1 within 30 s');
      assert.match(describeTask(h.snap(snap.taskId), Date.now()), /^Your answer was not sent: Server "fake" did not accept the response to id 1 within 30 s · /);
      // Send Again, the server back: it gets the answer the user gave, with the task's _meta.
      failing = false;
      await told[0].resend!();
      assert.deepEqual(await asked, { action: 'accept', content: { go: true }, _meta: { [RELATED_TASK_META]: { taskId: snap.taskId } } });
      assert.equal(h.snap(snap.taskId).unsent, undefined);
      // Lost again; the server then moves on by itself (a timeout of its own): nothing is missing any more.
      failing = true;
      void h.server.sendElicitation(snap.taskId, form).catch(() => undefined);
      await clock.tickAsync(7000);
      assert.equal(told.length, 2);
      assert.ok(h.snap(snap.taskId).unsent);
    } finally {
      clock.uninstall();
    }
    h.server.setStatus(snap.taskId, 'working');
    await waitStatus(h, snap.taskId, 'working');
    assert.equal('unsent' in h.snap(snap.taskId), false);
  });

  it('T-LIFE-4: a question about a task that ends is withdrawn: its dialog closes; one that comes after the task ended (a server that works on once cancelled) is never shown', async () => {
    const shown: string[] = [];
    const h = await harness({
      server: { notify: 'once', pollInterval: NO_POLL },
      engine: {
        handlers: {
          elicitation: {
            handle: (params, ctx) =>
              new Promise((_resolve, reject) => {
                // As a dialog does: never shown once withdrawn, closed when withdrawn on screen.
                if (ctx.signal.aborted) return reject(ctx.signal.reason);
                shown.push(String(params?.message));
                ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
              }),
          },
        },
      },
    });
    const form = (message: string) => ({ mode: 'form', message, requestedSchema: { type: 'object', properties: {} } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    const first = h.server.sendElicitation(snap.taskId, form('Go on?'));
    await waitFor(() => shown.length === 1, 'the first question shown');
    await h.engine.cancel(snap.key);
    await assert.rejects(first, /the task ended \(cancelled\)/);
    // The server did not stop its work: it asks again, about the cancelled task.
    await assert.rejects(h.server.sendElicitation(snap.taskId, form('Really?')), /the task ended \(cancelled\)/);
    assert.deepEqual(shown, ['Go on?']);
  });

  it('T-LIFE-4: a question (not a task) about a task that ends is closed as an expected end, logged at info as what happened, not as a failure of its handler; a handler that fails is still an error', async () => {
    let shown = 0;
    let fail = false;
    // A dialog on screen until it is closed; or, with `fail`, one that breaks.
    const prompter: FormPrompter = {
      pick: () => Promise.reject(new Error('not asked')),
      input: (o) =>
        fail
          ? Promise.reject(new Error('the quick input broke'))
          : new Promise((_resolve, reject) => {
              shown++;
              o.signal?.addEventListener('abort', () => reject(o.signal!.reason), { once: true });
            }),
      openExternal: async () => false,
      close: () => undefined,
    };
    // The handler logs to the client's log, which the harness makes.
    const ref: { handle?: ServerRequestHandler } = {};
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL }, engine: { handlers: { elicitation: { handle: (params, ctx) => ref.handle!(params, ctx) } } } });
    ref.handle = createElicitationHandler({ prompter, log: h.log, serverLabel: () => 'fake' });
    const form = { mode: 'form', message: 'Go on?', requestedSchema: { type: 'object', properties: { why: { type: 'string' } } } };
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    const asked = h.server.sendElicitation(snap.taskId, form);
    await waitFor(() => shown === 1, 'the question shown');
    await h.engine.cancel(snap.key);
    await assert.rejects(asked, (e: unknown) => e instanceof RpcError && e.code === ErrorCode.InternalError && e.message === 'the task ended (cancelled)');
    assert.ok(!h.log.has('error', /elicitation/), h.log.text());
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Closed required-tool on fake, task ${snap.taskId}: the task ended \\(cancelled\\)$`)), h.log.text());
    // A handler that fails while its task lives is an error of ours.
    const other = await h.engine.callTool('fake', 'required-tool');
    fail = true;
    await assert.rejects(h.server.sendElicitation(other.taskId, form), /the quick input broke/);
    assert.ok(h.log.has('error', /Handler for elicitation\/create failed: the quick input broke/), h.log.text());
  });

  it('T-REQ-7: a question about a task its server withdraws (notifications/cancelled) is told, but not while the user\'s cancel of the task is on its way (a server may withdraw it before it answers tasks/cancel)', async () => {
    let shown = 0;
    const prompter: FormPrompter = {
      pick: () => Promise.reject(new Error('not asked')),
      input: (o) => new Promise((_resolve, reject) => (shown++, o.signal?.addEventListener('abort', () => reject(o.signal!.reason), { once: true }))),
      openExternal: async () => false,
      close: () => undefined,
    };
    const told: string[] = [];
    const ref: { handle?: ServerRequestHandler } = {};
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL }, engine: { handlers: { elicitation: { handle: (params, ctx) => ref.handle!(params, ctx) } } } });
    ref.handle = createElicitationHandler({ prompter, log: h.log, serverLabel: () => 'fake', withdrawn: (title) => told.push(title) });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    const ask = async (message: string, n: number) => {
      const ac = new AbortController();
      const params = { mode: 'form', message, requestedSchema: { type: 'object', properties: { why: { type: 'string' } } }, _meta: { [RELATED_TASK_META]: { taskId: snap.taskId } } };
      const asked = h.server.connection.requestRaw('elicitation/create', params, { signal: ac.signal, timeoutMs: 10_000 }).catch(() => undefined);
      await waitFor(() => shown === n, `${message} shown`);
      ac.abort(new Error('no longer needed'));
      await asked;
      await settle(h);
    };
    await ask('Before', 1);
    assert.deepEqual(told, ['Before']);
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    h.server.override('tasks/cancel', async (_p, _c, builtin) => (await held, builtin()));
    const cancelled = h.engine.cancel(snap.key);
    await waitFor(() => h.snap(snap.taskId).cancelRequested === true, 'the cancel sent');
    await ask('After', 2);
    assert.deepEqual(told, ['Before'], 'the user\'s cancel is on its way: the server did not cancel it');
    answer();
    await cancelled;
  });

  it('T-REQ-3: a task restored as input_required (a reload) gets its tasks/result call once a poll finds it still waiting', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const asking = h.server.createTask('asking-tool', { status: 'input_required', statusMessage: 'Which file?' });
    h.engine.restore([
      {
        key: taskKey('fake', asking.taskId),
        serverId: 'fake',
        taskId: asking.taskId,
        kind: 'task',
        toolName: 'asking-tool',
        status: 'input_required',
        statusMessage: 'Which file?',
        createdAt: asking.createdAt,
        lastUpdatedAt: asking.lastUpdatedAt,
        ttl: null,
        pollInterval: 10,
        origin: 'user',
      },
    ]);
    await h.server.waitForRequest('tasks/get', 3);
    await settle(h);
    assert.deepEqual(h.server.requestsOf('tasks/result').map((r) => r.params), [{ taskId: asking.taskId }], 'one call, though every poll shows input_required');
    h.server.complete(asking.taskId, { content: [{ type: 'text', text: 'answered' }] });
    await waitFor(() => h.snap(asking.taskId).outcome !== undefined, 'the outcome through that call');
    assert.equal(h.server.requestsOf('tasks/result').length, 1);
  });

  it('T-REQ-4: tasks/result returns exactly the tool result, with the related-task _meta', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    const result = { content: [{ type: 'text', text: '42' }], structuredContent: { answer: 42 }, _meta: { 'example.com/trace': 'abc' } };
    // Asked while the task runs: blocks until it ends, one call shared with the automatic fetch.
    const fetched = h.engine.fetchResult(snap.key);
    await h.server.waitForRequest('tasks/result');
    h.server.complete(snap.taskId, result);
    const outcome = await fetched;
    assert.deepEqual(outcome, {
      kind: 'result',
      result: { ...result, _meta: { 'example.com/trace': 'abc', [RELATED_TASK_META]: { taskId: snap.taskId } } },
    });
    await waitStatus(h, snap.taskId, 'completed');
    assert.deepEqual(h.snap(snap.taskId).outcome, outcome);
    assert.match(h.snap(snap.taskId).outcomeFetchedAt!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(h.server.requestsOf('tasks/result').length, 1);
    assert.deepEqual(await h.engine.fetchResult(snap.key), outcome, 'kept, not fetched again');
    assert.equal(h.server.requestsOf('tasks/result').length, 1);
  });

  it('T-REQ-4: tasks/result returns the underlying JSON-RPC error verbatim', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.fail(snap.taskId, { code: -32603, message: 'Upstream API failed', data: { retryAfter: 30 } }, 'Tool execution failed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    const s = h.snap(snap.taskId);
    assert.equal(s.status, 'failed');
    assert.equal(s.statusMessage, 'Tool execution failed');
    assert.deepEqual(s.outcome, { kind: 'error', error: { code: -32603, message: 'Upstream API failed', data: { retryAfter: 30 } } });
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${s.taskId}: result retrieved \\(error -32603: Upstream API failed\\)$`)), h.log.text());
    assert.equal(s.note, undefined, 'its status message says why: the error is not said twice');
  });

  it('T-REQ-4: a task that failed without a status message says why from its JSON-RPC error (its row, tooltip and notification read the note), as a failed direct call does', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    h.server.fail(a.taskId, { code: -32603, message: 'Upstream API failed' });
    h.server.fail(b.taskId, { code: -32603, message: '' });
    await waitFor(() => h.snap(a.taskId).outcome !== undefined && h.snap(b.taskId).outcome !== undefined, 'the outcomes');
    assert.equal(h.snap(a.taskId).statusMessage, undefined);
    assert.equal(h.snap(a.taskId).note, 'Upstream API failed');
    assert.match(describeTask(h.snap(a.taskId), Date.now()), /^Failed · Upstream API failed · /);
    assert.equal(h.snap(b.taskId).note, 'the server gave no reason (error -32603)');
    // A direct call whose error has no message says so too.
    h.server.options.plainCall = () => {
      throw new RpcError(ErrorCode.InternalError, '');
    };
    const c = await h.engine.callTool('fake', 'plain-tool');
    await waitFor(() => h.engine.get(c.key)!.status === 'failed', 'the call to fail');
    assert.equal(h.engine.get(c.key)!.note, 'the server gave no reason (error -32603)');
  });

  it('T-LIFE-5, T-LIFE-2: a task that ends with the statusMessage it had while working (the SDK\'s task store keeps it: "Generating report…") ends without it; one given with the end stays, and so does that of a task first seen ended', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const [a, b, c] = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    for (const t of [a, b, c]) h.server.setStatus(t.taskId, 'working', 'Generating report…');
    await waitFor(() => [a, b, c].every((t) => h.snap(t.taskId).statusMessage === 'Generating report…'), 'the working messages');
    h.server.complete(a.taskId, undefined, 'Generating report…');
    h.server.fail(b.taskId, { code: -32603, message: 'Upstream API failed' }, 'Generating report…');
    h.server.complete(c.taskId, undefined, 'Report ready');
    const ended = h.server.createTask('seeded', { status: 'completed', statusMessage: 'Generating report…' });
    await h.engine.refreshList('fake');
    await waitFor(() => [a, b, c].every((t) => h.snap(t.taskId).outcome !== undefined), 'the outcomes');
    // The snapshot: what the row, the tooltip, the saved list, the API and the chat tools read.
    assert.equal(h.snap(a.taskId).statusMessage, undefined);
    assert.match(describeTask(h.snap(a.taskId), Date.now()), /^Completed · now$/);
    // A failure says why from its error, not by its last working message.
    assert.deepEqual([h.snap(b.taskId).statusMessage, h.snap(b.taskId).note], [undefined, 'Upstream API failed']);
    assert.equal(h.snap(c.taskId).statusMessage, 'Report ready');
    assert.equal(h.snap(ended.taskId).statusMessage, 'Generating report…', 'first seen ended (tasks/list): nothing says it is stale');
  });

  it('T-LIFE-5, T-LIFE-1: a task created already ended keeps the message that came with its end (no working message was ever heard): a failure\'s diagnostics, a summary', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    h.server.override('tools/call', (p) => ({ task: h.server.createTask(String(p?.name), { status: 'failed', statusMessage: 'Invalid region: mars' }) }));
    const failed = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tools/call', (p) => ({ task: h.server.createTask(String(p?.name), { status: 'completed', statusMessage: 'Nothing to do' }) }));
    const done = await h.engine.callTool('fake', 'required-tool');
    assert.deepEqual([h.snap(failed.taskId).status, h.snap(failed.taskId).statusMessage], ['failed', 'Invalid region: mars']);
    assert.deepEqual([h.snap(done.taskId).status, h.snap(done.taskId).statusMessage], ['completed', 'Nothing to do']);
  });

  it('T-REQ-4: keeps polling tasks/get while blocked on tasks/result', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    const before = h.server.requestsOf('tasks/get').length;
    await h.server.waitForRequest('tasks/get', before + 3);
    assert.equal(h.snap(snap.taskId).outcome, undefined, 'tasks/result is still blocked');
    h.server.setStatus(snap.taskId, 'working', 'Resumed');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Resumed', 'the poll to see working again');
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
  });

  it('T-REQ-4: an answer to tasks/result before the task ended (a placeholder while it waits for input) is not its outcome: logged, and the final result is fetched once it ends', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    let early = true;
    h.server.override('tasks/result', (_p, _c, builtin) => (early ? { content: [{ type: 'text', text: 'PLACEHOLDER (not done yet)' }] } : builtin()));
    h.server.setStatus(snap.taskId, 'input_required', 'Which file?');
    await waitFor(() => h.log.has('warn', new RegExp(`^\\[fake\\] The server answered tasks/result ${snap.taskId} while the task is still input_required: not its outcome; asking again$`)), 'the early answer refused');
    assert.equal(h.snap(snap.taskId).outcome, undefined);
    assert.equal(h.snap(snap.taskId).outcomeFetchedAt, undefined);
    assert.equal(h.snap(snap.taskId).status, 'input_required');
    early = false;
    h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'FINAL RESULT' }] });
    await waitStatus(h, snap.taskId, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the final outcome');
    const s = h.snap(snap.taskId);
    assert.deepEqual(s.outcome?.kind === 'result' && s.outcome.result.content, [{ type: 'text', text: 'FINAL RESULT' }]);
    const fetched = await h.engine.fetchResult(s.key);
    assert.deepEqual(fetched.kind === 'result' && fetched.result.content, [{ type: 'text', text: 'FINAL RESULT' }]);
  });

  it('T-REQ-5: applies notifications/tasks/status at once (the whole task)', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'working', 'Stage 2 of 3');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Stage 2 of 3', 'the status message');
    assert.equal(h.snap(snap.taskId).lastUpdatedAt, h.server.task(snap.taskId)!.lastUpdatedAt);
    h.server.complete(snap.taskId);
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    assert.equal(h.snap(snap.taskId).status, 'completed');
    assert.equal(h.server.requestsOf('tasks/get').length, 0, 'no poll was needed');
  });

  it('T-REQ-5, T-LIFE-3: a status notification that overtakes its CreateTaskResult (another HTTP stream) applies once the task is known, and an older one after it does not undo the end', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: NO_POLL } });
    h.server.override('tools/call', async (_p, _ctx, builtin) => {
      const created = builtin() as { task: { taskId: string } };
      const id = created.task.taskId;
      const working = h.server.task(id)!;
      h.server.fail(id, { code: -32603, message: 'boom' }, 'It broke');
      // The end first, then an older `working` that arrived late: both before the answer.
      await h.server.connection.notify('notifications/tasks/status', { ...h.server.task(id) });
      await h.server.connection.notify('notifications/tasks/status', { ...working, statusMessage: 'older news' });
      return created; // still `working`, as the task was when it was created
    });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.status, 'failed', h.log.text());
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    const s = h.snap(snap.taskId);
    assert.equal(s.status, 'failed');
    assert.equal(s.statusMessage, 'It broke');
    assert.deepEqual(s.outcome, { kind: 'error', error: { code: -32603, message: 'boom' } });
    assert.equal(h.server.requestsOf('tasks/get').length, 0, 'no poll was needed');
  });

  it('T-REQ-3: an input_required notification that overtakes its CreateTaskResult gets the tasks/result call at once', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: NO_POLL } });
    h.server.override('tools/call', async (_p, _ctx, builtin) => {
      const created = builtin() as { task: { taskId: string } };
      h.server.setStatus(created.task.taskId, 'input_required');
      await h.server.connection.notify('notifications/tasks/status', { ...h.server.task(created.task.taskId) });
      return created;
    });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.status, 'input_required', h.log.text());
    await h.server.waitForRequest('tasks/result');
    assert.equal(h.server.requestsOf('tasks/get').length, 0);
  });

  it('T-REQ-5: a notification about a task not tracked is held only while a task-augmented call awaits its answer', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: NO_POLL } });
    const now = new Date().toISOString();
    const ghost = { taskId: 'ghost', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, pollInterval: NO_POLL };
    await h.engine.callTool('fake', 'required-tool');
    // That call was answered and no other waits: nothing to hold it for.
    await h.server.connection.notify('notifications/tasks/status', { ...ghost, status: 'failed' });
    await settle(h);
    h.server.override('tools/call', () => ({ task: ghost }));
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.status, 'working');
    await settle(h);
    assert.equal(h.snap('ghost').status, 'working');
  });

  it('T-REQ-5: never relies on notifications: a silent server\'s task still ends through polling', async () => {
    const h = await harness({ server: { notify: 'none', pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'working', 'Halfway');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Halfway', 'a poll to see the message');
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
    assert.equal(h.server.notifications.length, 1, 'the client sent only notifications/initialized');
    assert.ok(h.server.requestsOf('tasks/get').length >= 2);
  });

  it('T-REQ-5: keeps polling after a notification of a live status', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'working', 'notified');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'notified', 'the notification');
    const n = h.server.requestsOf('tasks/get').length;
    await h.server.waitForRequest('tasks/get', n + 2);
    assert.equal(h.snap(snap.taskId).status, 'working');
  });

  it('T-REQ-6: tasks/list follows opaque cursors verbatim and adopts tasks not tracked here', async () => {
    const h = await harness({ server: { listPageSize: 2, pollInterval: NO_POLL } });
    const mine = await h.engine.callTool('fake', 'required-tool');
    const w = h.server.createTask('other-window-tool');
    const done = h.server.createTask('old-tool', { status: 'completed', statusMessage: 'Finished earlier' });
    const ask = h.server.createTask('asking-tool', { status: 'input_required' });
    const fail = h.server.createTask('broken-tool', { status: 'failed' });
    h.server.setStatus(mine.taskId, 'working', 'seen through the list');
    const joined = await h.engine.refreshList('fake');
    assert.equal(joined, 4, 'four tasks were not tracked; mine was updated instead');
    const lists = h.server.requestsOf('tasks/list');
    assert.equal(lists.length, 3, '5 tasks in pages of 2');
    assert.deepEqual(lists[0].params, {});
    assert.equal(h.server.issuedCursors.length, 2);
    assert.deepEqual(lists[1].params, { cursor: h.server.issuedCursors[0] });
    assert.deepEqual(lists[2].params, { cursor: h.server.issuedCursors[1] });
    assert.equal(h.snap(mine.taskId).statusMessage, 'seen through the list');
    assert.equal(h.snap(mine.taskId).origin, 'user');
    for (const t of [w, done, ask, fail]) {
      const s = h.snap(t.taskId);
      assert.equal(s.origin, 'server-list');
      assert.equal(s.kind, 'task');
      assert.equal(s.status, t.status);
      assert.equal(s.createdAt, t.createdAt);
    }
    assert.equal(h.snap(done.taskId).statusMessage, 'Finished earlier');
    // The live ones are followed (mine, w, ask); the one waiting for input gets its tasks/result.
    assert.equal(h.engine.followedCount, 3);
    const r = await h.server.waitForRequest('tasks/result');
    assert.deepEqual(r.params, { taskId: ask.taskId });
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${w.taskId} found through tasks/list \\(working\\)$`)));
    // A second refresh adopts nothing new.
    assert.equal(await h.engine.refreshList('fake'), 0);
  });

  it('T-REQ-7: tasks/cancel { taskId } moves the task to cancelled', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    const after = await h.engine.cancel(snap.key);
    assert.equal(after.status, 'cancelled');
    assert.equal(after.statusMessage, 'Cancelled at the client\'s request');
    assert.deepEqual(h.server.requestsOf('tasks/cancel').map((r) => r.params), [{ taskId: snap.taskId }]);
    assert.equal(h.server.task(snap.taskId)!.status, 'cancelled');
    assert.equal(h.engine.followedCount, 0);
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${snap.taskId}: cancel requested by the user; the server answered cancelled$`)));
    await assert.rejects(h.engine.cancel(snap.key), /The task already ended \(cancelled\)/);
    assert.equal(h.server.requestsOf('tasks/cancel').length, 1, 'a task known to be over is not cancelled again');
  });

  it('T-REQ-7: a task cancelled twice while its tasks/cancel is on its way (two clicks, the palette and the row) is sent one tasks/cancel; both callers get its answer, not a refusal of the second', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    h.server.override('tasks/cancel', async (_p, _c, builtin) => (await held, builtin()));
    const first = h.engine.cancel(snap.key);
    await h.server.waitForRequest('tasks/cancel');
    const second = h.engine.cancel(snap.key);
    answer();
    assert.deepEqual([(await first).status, (await second).status], ['cancelled', 'cancelled']);
    assert.equal(h.server.requestsOf('tasks/cancel').length, 1);
    // Once answered, a new cancel is a new request (here refused: the task is known to be over).
    await assert.rejects(h.engine.cancel(snap.key), /The task already ended \(cancelled\)/);
  });

  /** A task of a server that then stays connecting until `connected()`, cancelled by a chat request (`first`) that is then stopped; `also` asks meanwhile. */
  const cancelWhileConnecting = async (also?: (engine: TaskEngine, key: string) => Promise<TaskSnapshot>) => {
    let connected!: () => void;
    const connection = new Promise<void>((r) => (connected = r));
    let gated = false;
    const h = await harness({ server: { pollInterval: NO_POLL }, connecting: () => (gated ? connection : undefined) });
    const snap = await h.engine.callTool('fake', 'required-tool');
    gated = true;
    const chat = new AbortController();
    const first = h.engine.cancel(snap.key, chat.signal);
    const second = also?.(h.engine, snap.key);
    chat.abort(new Error('the chat request was stopped'));
    await assert.rejects(first, /the chat request was stopped/);
    connected();
    return { h, snap, second };
  };

  it('T-REQ-7: a cancel waiting for its server to connect, asked twice (the chat tool, then a click), is sent for the second caller when the first stops waiting (its signal aborts)', async () => {
    const { h, second } = await cancelWhileConnecting((engine, key) => engine.cancel(key));
    assert.equal((await second)?.status, 'cancelled');
    assert.equal(h.server.requestsOf('tasks/cancel').length, 1);
  });

  it('T-REQ-7: a cancel whose only caller stops waiting for its server to connect is not sent', async () => {
    const { h, snap } = await cancelWhileConnecting();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(h.server.requestsOf('tasks/cancel'), []);
    assert.equal(h.snap(snap.taskId).status, 'working');
  });

  it('T-REQ-7: a cancel the user asked for is kept in the task (persisted, so a reloaded window knows its end is the user\'s) from when it is sent, also unanswered in time; one the server fails or refuses is not', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL }, engine: { requestTimeoutMs: 50 } });
    const [a, b, c] = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    let answer!: () => void;
    const held = new Promise<void>((r) => (answer = r));
    h.server.override('tasks/cancel', async (_p, _c, builtin) => (await held, builtin()));
    const cancelling = h.engine.cancel(a.key);
    await h.server.waitForRequest('tasks/cancel');
    assert.equal(h.snap(a.taskId).cancelRequested, true, 'on its way');
    answer();
    assert.deepEqual([(await cancelling).status, h.snap(a.taskId).cancelRequested], ['cancelled', true]);
    h.server.override('tasks/cancel', () => new Promise(() => undefined));
    await assert.rejects(h.engine.cancel(b.key), /tasks\/cancel timed out/);
    assert.equal(h.snap(b.taskId).cancelRequested, true, 'unanswered, it may land');
    h.server.override('tasks/cancel', () => {
      throw new RpcError(ErrorCode.InternalError, 'the worker is busy');
    });
    await assert.rejects(h.engine.cancel(c.key), /the worker is busy/);
    assert.equal(h.snap(c.taskId).cancelRequested, undefined, 'failed');
  });

  it('T-REQ-7: a cancel whose connection closes before its answer (the user disconnects or restarts the server) is kept in the task: it may have reached the server, and may land', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tasks/cancel', () => new Promise(() => undefined));
    const cancelling = h.engine.cancel(snap.key);
    await h.server.waitForRequest('tasks/cancel');
    await h.session.close('disconnected by the user');
    await assert.rejects(cancelling, /Connection closed: disconnected by the user/);
    assert.equal(h.snap(snap.taskId).cancelRequested, true);
  });

  it('T-REQ-7: cancelling a task that already ended on the server gives -32602; the error says so and the task is refreshed', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(snap.taskId); // silently: no notification, no poll yet
    assert.equal(h.snap(snap.taskId).status, 'working');
    await assert.rejects(
      h.engine.cancel(snap.key),
      new RegExp(`^Error: The server refused to cancel task ${snap.taskId}: Cannot cancel task: already in terminal status 'completed' \\(it is now completed\\)\\.$`),
    );
    assert.equal(h.snap(snap.taskId).status, 'completed');
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome of the completed task');
    // T-LOG-1: the log says the cancel was asked for and refused, then what the task became.
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${snap.taskId}: cancel requested by the user; the server refused it: Cannot cancel task: already in terminal status 'completed'$`)), h.log.text());
  });

  it('T-LOG-1: a cancel the server fails (an error other than -32602, or no answer in time) is logged with the reason; the task is still followed', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL }, engine: { requestTimeoutMs: 50 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tasks/cancel', () => {
      throw new RpcError(ErrorCode.InternalError, 'the worker is busy');
    });
    await assert.rejects(h.engine.cancel(snap.key), /the worker is busy/);
    h.server.override('tasks/cancel', () => new Promise(() => undefined));
    await assert.rejects(h.engine.cancel(snap.key), /tasks\/cancel timed out/);
    const lines = h.log.lines.filter((e) => /cancel requested by the user/.test(e.message)).map((e) => `${e.level} ${e.message}`);
    assert.deepEqual(lines, [
      `warn [fake] Task ${snap.taskId}: cancel requested by the user; it failed: the worker is busy`,
      `warn [fake] Task ${snap.taskId}: cancel requested by the user; it failed: Request tasks/cancel timed out after 50 ms without an answer`,
    ]);
    assert.equal(h.snap(snap.taskId).status, 'working');
  });

  it('T-REQ-7: cancelling a task the server no longer knows (its ttl ended, it was deleted) gives -32602; the task is expired at once, as a poll would find it, and the error says so', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL, ttl: 1_000 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.advanceEngineClock(1_000);
    h.server.forget(snap.taskId); // deleted after its ttl, before any poll
    await assert.rejects(
      h.engine.cancel(snap.key),
      new RegExp(`^Error: The server refused to cancel task ${snap.taskId}: Failed to cancel task: Task not found \\(it is now expired\\)\\.$`),
    );
    const s = h.snap(snap.taskId);
    assert.equal(s.status, 'expired');
    assert.equal(s.note, 'Its ttl of 1 s ended; the server no longer knows the task.');
    assert.equal(h.engine.followedCount, 0, 'no longer polled');
  });

  it('T-REQ-8: the progressToken of the tools/call stays valid for the whole task', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    // Progress sent before the CreateTaskResult is kept too.
    h.server.override('tools/call', async (params, _ctx, builtin) => {
      const token = (params?._meta as { progressToken: string }).progressToken;
      await h.server.sendProgress(token, 0, 4, 'queued');
      return builtin();
    });
    const snap = await h.engine.callTool('fake', 'required-tool');
    const token = h.server.progressTokenOf(snap.taskId)!;
    assert.equal(typeof token, 'string');
    assert.deepEqual(h.snap(snap.taskId).progress, { progress: 0, total: 4, message: 'queued' });
    await h.server.sendProgress(token, 1, 4, 'one of four');
    await settle(h);
    assert.deepEqual(h.snap(snap.taskId).progress, { progress: 1, total: 4, message: 'one of four' });
    h.server.setStatus(snap.taskId, 'input_required');
    h.server.setStatus(snap.taskId, 'working');
    await h.server.sendProgress(token, 3, 4);
    await settle(h);
    assert.equal(h.snap(snap.taskId).status, 'working');
    assert.deepEqual(h.snap(snap.taskId).progress, { progress: 3, total: 4, message: undefined });
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
    await h.server.sendProgress(token, 4, 4);
    await settle(h);
    assert.equal(h.snap(snap.taskId).progress?.progress, 3, 'progress after the end is ignored');
  });

  it('T-REQ-9: tasks/get, tasks/result and tasks/cancel carry only { taskId }, no related-task _meta', async () => {
    // No tasks/list: two tasks on a server that lists would be followed by list, not tasks/get.
    const h = await harness({ server: { pollInterval: 10, tasks: { list: false } } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'optional-tool');
    h.server.setStatus(a.taskId, 'input_required');
    await h.server.waitForRequest('tasks/result');
    await h.server.waitForRequest('tasks/get', 4);
    await h.engine.cancel(b.key);
    h.server.complete(a.taskId);
    await waitFor(() => h.snap(a.taskId).outcome !== undefined, 'the outcome');
    const sent = h.server.received.filter((r) => ['tasks/get', 'tasks/result', 'tasks/cancel'].includes(r.method));
    assert.ok(sent.some((r) => r.method === 'tasks/cancel'));
    for (const r of sent) assert.ok(r.params?.taskId === a.taskId || r.params?.taskId === b.taskId, JSON.stringify(r));
    for (const r of sent) assert.deepEqual(Object.keys(r.params!), ['taskId'], `${r.method}: ${JSON.stringify(r.params)}`);
  });

  it('T-REQ-10: a task that completed with an isError result is reported as failed', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const a = await h.engine.callTool('fake', 'required-tool');
    const b = await h.engine.callTool('fake', 'required-tool');
    const bad = { content: [{ type: 'text', text: 'rate limited' }], isError: true };
    h.server.complete(a.taskId, bad); // the server says completed; the result says error
    h.server.fail(b.taskId, bad, 'Tool execution failed'); // the spec's way
    await waitFor(() => h.snap(a.taskId).outcome !== undefined && h.snap(b.taskId).outcome !== undefined, 'both outcomes');
    await waitStatus(h, a.taskId, 'failed');
    await waitStatus(h, b.taskId, 'failed');
    const sa = h.snap(a.taskId);
    assert.match(sa.note!, /completed, but its result is an error \(isError\)/);
    assert.equal(sa.outcome?.kind, 'result');
    assert.equal(sa.outcome?.kind === 'result' && sa.outcome.result.isError, true);
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${a.taskId}: result retrieved \\(isError result\\)$`)), h.log.text());
    assert.equal(h.snap(b.taskId).statusMessage, 'Tool execution failed');
  });

  it('T-REQ-10: an isError result that tasks/result delivers before a poll sees completed still makes the task failed', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.setStatus(snap.taskId, 'input_required', 'Which file?');
    await h.server.waitForRequest('tasks/result');
    h.server.options.notify = 'none'; // notifications are optional (T-REQ-5): only the poll after the result tells
    h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'rate limited' }], isError: true });
    await waitFor(() => h.snap(snap.taskId).outcome !== undefined, 'the outcome');
    await waitFor(() => h.snap(snap.taskId).status !== 'input_required', 'the poll after the result');
    const s = h.snap(snap.taskId);
    assert.equal(s.status, 'failed');
    assert.match(s.note!, /completed, but its result is an error \(isError\)/);
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${snap.taskId} \\(required-tool\\): completed → failed \\(its result has isError: true\\)$`)), h.log.text());
  });

  it('T-REQ-10, T-LIFE-3: a task shown failed for its isError result: a later list or notification saying completed is no violation, and logs no warning', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'boom' }], isError: true });
    await waitStatus(h, snap.taskId, 'failed');
    await h.engine.refreshList('fake');
    h.server.options.notify = 'once';
    h.server.sendStatus(snap.taskId);
    await settle(h);
    assert.equal(h.snap(snap.taskId).status, 'failed');
    assert.deepEqual(h.log.lines.filter((l) => l.level === 'warn'), [], 'no T-LIFE-3 warning: the server said completed all along');
    // A server that really breaks T-LIFE-3 is still reported.
    h.server.setStatus(snap.taskId, 'working');
    await settle(h);
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Ignored notification status working for task ${snap.taskId}: it already ended as failed \\(T-LIFE-3\\)$`)), h.log.text());
  });

  // ── Lifecycle ────────────────────────────────────────────────────────────────────────────────

  it('T-LIFE-1: a task starts working', async () => {
    const h = await harness({ server: { pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.equal(snap.status, 'working');
    assert.equal(h.server.task(snap.taskId)!.status, 'working');
    // A server whose CreateTaskResult is already completed is applied through the table from working.
    h.server.override('tools/call', async (_p, _ctx, builtin) => {
      const r = (await builtin()) as { task: { taskId: string } };
      h.server.complete(r.task.taskId);
      return { task: h.server.task(r.task.taskId) };
    });
    const quick = await h.engine.callTool('fake', 'required-tool');
    await waitFor(() => h.snap(quick.taskId).outcome !== undefined, 'the quick task\'s outcome');
    assert.equal(h.snap(quick.taskId).status, 'completed');
    assert.ok(h.log.has('info', new RegExp(`Task ${quick.taskId} \\(required-tool\\): working → completed`)), h.log.text());
    // A status outside the spec is not a task: the call fails with a clear message.
    h.server.override('tools/call', () => ({ task: { ...h.server.createTask(), status: 'queued' } }));
    await assert.rejects(h.engine.callTool('fake', 'required-tool'), /answered tools\/call with neither a task nor a tool result: task\.status/);
  });

  it('T-LIFE-2: working ⇄ input_required, then each terminal status, all applied in order', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const seen = new Map<string, string[]>();
    h.engine.onDidChange((s) => {
      const list = seen.get(s.taskId) ?? [];
      if (list[list.length - 1] !== s.status) list.push(s.status);
      seen.set(s.taskId, list);
    });
    const tasks = await Promise.all([1, 2, 3].map(() => h.engine.callTool('fake', 'required-tool')));
    const ends = ['completed', 'failed', 'cancelled'] as const;
    tasks.forEach((t, i) => {
      h.server.setStatus(t.taskId, 'input_required');
      h.server.setStatus(t.taskId, 'working');
      h.server.setStatus(t.taskId, 'input_required');
      h.server.setStatus(t.taskId, ends[i]);
    });
    for (const [i, t] of tasks.entries()) await waitStatus(h, t.taskId, ends[i]);
    for (const [i, t] of tasks.entries()) {
      assert.deepEqual(seen.get(t.taskId), ['working', 'input_required', 'working', 'input_required', ends[i]]);
    }
  });

  it('T-LIFE-3: completed, failed and cancelled are terminal: a later status is ignored and logged', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const tasks = await Promise.all([1, 2, 3].map(() => h.engine.callTool('fake', 'required-tool')));
    const ends = ['completed', 'failed', 'cancelled'] as const;
    tasks.forEach((t, i) => h.server.setStatus(t.taskId, ends[i]));
    for (const [i, t] of tasks.entries()) await waitStatus(h, t.taskId, ends[i]);
    tasks.forEach((t) => h.server.setStatus(t.taskId, 'working', 'back from the dead'));
    h.server.setStatus(tasks[1].taskId, 'completed');
    await settle(h);
    for (const [i, t] of tasks.entries()) {
      assert.equal(h.snap(t.taskId).status, ends[i]);
      assert.notEqual(h.snap(t.taskId).statusMessage, 'back from the dead');
      assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] Ignored notification status working for task ${t.taskId}: it already ended as ${ends[i]} \\(T-LIFE-3\\)$`)), h.log.text());
    }
    assert.ok(h.log.has('warn', new RegExp(`Ignored notification status completed for task ${tasks[1].taskId}: it already ended as failed`)));
    assert.equal(h.engine.followedCount, 0);
  });

  it('T-LIFE-4: once cancelled, a task stays cancelled even if the server later says it completed', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    await h.engine.cancel(snap.key);
    // The work finished anyway and a sloppy server reports it, by notification and in its list.
    h.server.setStatus(snap.taskId, 'completed', 'finished anyway');
    await settle(h);
    await h.engine.refreshList('fake');
    assert.equal(h.snap(snap.taskId).status, 'cancelled');
    assert.equal(h.snap(snap.taskId).outcome, undefined);
    assert.deepEqual(h.server.requestsOf('tasks/result'), [], 'no outcome is fetched for a cancelled task');
    assert.ok(h.log.has('warn', /Ignored list status completed for task .*: it already ended as cancelled/), h.log.text());
  });

  it('T-REQ-4, T-LIFE-4: a task cancelled while its tasks/result waits keeps no outcome when the server answers with an error (it has no result), and is offered by neither Open Result nor Fetch Task Result; a result it answers is kept', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL } });
    const [none, done] = [await h.engine.callTool('fake', 'required-tool'), await h.engine.callTool('fake', 'required-tool')];
    // The work of `done` finished before the cancel took: its tasks/result gives that result.
    (h.server['tasks'] as Map<string, { outcome?: unknown }>).get(done.taskId)!.outcome = { result: { content: [{ type: 'text', text: 'finished anyway' }] } };
    for (const t of [none, done]) {
      h.server.setStatus(t.taskId, 'input_required');
      await waitFor(() => h.server.requestsOf('tasks/result').some((r) => r.params?.taskId === t.taskId), 'its tasks/result in flight');
      await h.engine.cancel(t.key);
    }
    await waitFor(() => h.snap(done.taskId).outcome !== undefined, 'the result kept');
    await settle(h);
    const cancelled = h.snap(none.taskId);
    assert.deepEqual([cancelled.status, cancelled.outcome, cancelled.outcomeFetchedAt], ['cancelled', undefined, undefined]);
    assert.deepEqual([hasResult(cancelled), hasResultToFetch(cancelled)], [false, false], 'no row action, no pick item');
    assert.ok(h.log.has('info', new RegExp(`Task ${none.taskId} was cancelled; the server has no result for it \\(Task was cancelled before it produced a result\\)`)), h.log.text());
    assert.deepEqual([h.snap(done.taskId).status, hasResult(h.snap(done.taskId)), hasResultToFetch(h.snap(done.taskId))], ['cancelled', true, true]);
  });

  it('T-LIFE-5: createdAt, lastUpdatedAt, ttl, pollInterval and statusMessage are kept as the server sent them', async () => {
    const h = await harness({ server: { notify: 'once', pollInterval: NO_POLL, ttl: 120_000 } });
    const snap = await h.engine.callTool('fake', 'required-tool', { ttlMs: 999_999 });
    const t = h.server.task(snap.taskId)!;
    assert.equal(snap.createdAt, t.createdAt);
    assert.equal(snap.lastUpdatedAt, t.lastUpdatedAt);
    assert.equal(snap.ttl, 120_000, 'the ttl the server reports, not the one asked');
    assert.equal(snap.pollInterval, NO_POLL);
    h.server.setPollInterval(NO_POLL + 1, snap.taskId);
    h.server.setStatus(snap.taskId, 'working', 'Indexing');
    await waitFor(() => h.snap(snap.taskId).statusMessage === 'Indexing', 'the message');
    const s = h.snap(snap.taskId);
    assert.equal(s.lastUpdatedAt, h.server.task(snap.taskId)!.lastUpdatedAt);
    assert.equal(s.pollInterval, NO_POLL + 1);
    assert.equal(s.createdAt, t.createdAt);
    assert.equal(h.engine.effectivePollInterval(snap.key), NO_POLL + 1, 'the server\'s interval, honoured');

    const h2 = await harness({ server: { pollInterval: NO_POLL, ttl: null } });
    assert.equal((await h2.engine.callTool('fake', 'required-tool')).ttl, null, 'null ttl: unlimited');
  });

  it('T-LIFE-5: a tasks/get answer without the required fields is logged and ignored; polling goes on', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    h.server.override('tasks/get', (p) => {
      const task = { ...h.server.task(String(p?.taskId))!, status: 'completed' } as Record<string, unknown>;
      delete task.createdAt;
      return task;
    });
    const n = h.server.requestsOf('tasks/get').length;
    await h.server.waitForRequest('tasks/get', n + 2);
    await settle(h);
    assert.equal(h.snap(snap.taskId).status, 'working');
    assert.ok(h.log.has('warn', new RegExp(`^\\[fake\\] tasks/get ${snap.taskId} failed: Invalid result for tasks/get from server: createdAt: expected string$`)), h.log.text());
    h.server.override('tasks/get', undefined);
    h.server.complete(snap.taskId);
    await waitStatus(h, snap.taskId, 'completed');
  });

  // ── Audit ────────────────────────────────────────────────────────────────────────────────────

  it('T-LOG-1: a task without a ttl or a pollInterval is logged so, not as "ttl unlimited ms, poll - ms"', async () => {
    const h = await harness({ server: { pollInterval: undefined } });
    const snap = await h.engine.callTool('fake', 'required-tool');
    assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${snap.taskId} created for required-tool \\(no ttl\\)$`)), h.log.text());
  });

  it('T-LOG-1: creation, each status change, completion and result retrieval are logged with the server and task id', async () => {
    const h = await harness({ server: { pollInterval: 10 } });
    const snap = await h.engine.callTool('fake', 'required-tool', { ttlMs: 60_000 });
    const id = snap.taskId;
    h.server.setStatus(id, 'input_required', 'Which region?');
    await waitStatus(h, id, 'input_required');
    h.server.setStatus(id, 'working', 'Deploying');
    await waitStatus(h, id, 'working');
    h.server.complete(id, { content: [{ type: 'text', text: 'deployed' }] }, 'Deployed');
    await waitStatus(h, id, 'completed');
    await waitFor(() => h.snap(id).outcome !== undefined, 'the outcome');
    const esc = id.replace(/[-]/g, '\\-');
    const expected = [
      new RegExp(`^\\[fake\\] Task ${esc} created for required-tool \\(ttl 60000 ms, poll 10 ms\\)$`),
      new RegExp(`^\\[fake\\] Task ${esc} \\(required-tool\\): working → input_required \\(Which region\\?\\)$`),
      new RegExp(`^\\[fake\\] Task ${esc} \\(required-tool\\): input_required → working \\(Deploying\\)$`),
      new RegExp(`^\\[fake\\] Task ${esc} \\(required-tool\\): working → completed \\(Deployed\\)$`),
      new RegExp(`^\\[fake\\] Task ${esc}: result retrieved \\(result\\)$`),
    ];
    const info = h.log.lines.filter((l) => l.level === 'info').map((l) => l.message);
    for (const re of expected) assert.equal(info.filter((m) => re.test(m)).length, 1, `${re}\n${info.join('\n')}`);
    // Status lines come in the order things happened.
    const order = expected.slice(0, 4).map((re) => info.findIndex((m) => re.test(m)));
    assert.deepEqual(order, [...order].sort((x, y) => x - y));
  });
});
