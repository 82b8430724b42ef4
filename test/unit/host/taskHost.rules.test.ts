// Every receiver rule of the MCP Tasks spec (2025-11-25) pinned on the TaskHost: a scripted server
// (our JsonRpcConnection at the far end of an in-memory pair) sends task-augmented elicitation and
// sampling to a real McpSession + TaskEngine + TaskHost, and drives tasks/* as a server would.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import type { HostedTaskSnapshot, TaskHostOptions } from '../../../src/core/host/taskHost';
import { TaskHost } from '../../../src/core/host/taskHost';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import type { ServerRequestContext, ServerRequestHandler } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { describeHosted } from '../../../src/core/tasks/presentation';
import { hostedKey, requestAbout, taskKey } from '../../../src/core/tasks/types';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { nullLogger } from '../../../src/core/util/log';
import { MemoryLogger, waitFor } from '../helpers/logger';

type Params = Record<string, unknown>;

/** A handler call held open until the test answers it; it rejects when its signal aborts (a closed dialog). */
interface Call {
  params: Params | undefined;
  ctx: ServerRequestContext;
  resolve(v: Params): void;
  reject(e: unknown): void;
}

class Gate {
  readonly calls: Call[] = [];
  readonly handler: ServerRequestHandler = (params, ctx) =>
    new Promise((resolve, reject) => {
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      this.calls.push({ params, ctx, resolve, reject });
    });
}

interface ScriptedServer {
  conn: JsonRpcConnection;
  session: McpSession;
  init?: Params;
  /** Every message the server received, in order. */
  raw: Array<Record<string, unknown>>;
  statuses: Params[];
  request(method: string, params?: Params): Promise<Params>;
  /** Resolves once everything sent so far both ways was delivered (a ping round trip). */
  settle(): Promise<void>;
}

interface Client {
  host: TaskHost;
  engine: TaskEngine;
  log: MemoryLogger;
  connect(serverId: string): Promise<ScriptedServer>;
  close(): Promise<void>;
}

const ELICIT = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const SAMPLE = { messages: [{ role: 'user', content: { type: 'text', text: 'Write a haiku' } }], maxTokens: 50 };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function createClient(handlers: { elicit?: ServerRequestHandler; sample?: ServerRequestHandler }, options: Partial<TaskHostOptions> = {}): Promise<Client> {
  const log = new MemoryLogger();
  const host = new TaskHost({ logger: log, ...options });
  const sessions = new Map<string, McpSession>();
  const engine = new TaskEngine({
    logger: log,
    handlers: {
      ...(handlers.elicit && { elicitation: { handle: host.wrap('elicitation/create', handlers.elicit) } }),
      ...(handlers.sample && { sampling: { handle: host.wrap('sampling/createMessage', handlers.sample) } }),
    },
    // Servers whose tasks outlive a connection (as over HTTP): a tool task restored from an earlier
    // window is still followed, not lost with a process.
    sessions: { getSession: async (id) => sessions.get(id)!, label: (id) => id, tasksOutliveConnection: () => true },
  });
  // As the extension composes them: a hosted question closes when its tool task ends.
  host.followRelatedTasks(engine);
  const servers: ScriptedServer[] = [];
  return {
    host,
    engine,
    log,
    async connect(serverId) {
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const conn = new JsonRpcConnection(serverEnd, { logger: nullLogger });
      const raw: Array<Record<string, unknown>> = [];
      const deliver = serverEnd.onmessage!;
      serverEnd.onmessage = (m) => {
        raw.push(m as Record<string, unknown>);
        deliver(m);
      };
      const session = new McpSession(clientEnd, {
        logger: log,
        clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' },
        capabilities: { ...engine.clientCapabilities(), ...host.capabilities() },
      });
      const s: ScriptedServer = {
        conn,
        session,
        raw,
        statuses: [],
        request: (method, params) => conn.requestRaw(method, params),
        // The host's turn of the event loop ends first (held status notifications go out then).
        settle: async () => {
          await new Promise((r) => setImmediate(r));
          await conn.requestRaw('ping', undefined);
        },
      };
      conn.onRequest('initialize', (params) => {
        s.init = params;
        return { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1.0.0' } };
      });
      conn.onNotification('notifications/initialized', () => undefined);
      conn.onNotification('notifications/tasks/status', (p) => s.statuses.push(p!));
      await conn.start();
      sessions.set(serverId, session);
      engine.attachSession(serverId, session);
      host.attachSession(serverId, session);
      await session.connect();
      servers.push(s);
      return s;
    },
    async close() {
      host.dispose();
      engine.dispose();
      for (const s of servers) await s.session.close();
    },
  };
}

/** The RpcError a promise rejects with. */
async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RpcError, `expected an RpcError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the request to fail');
}

function taskOf(created: Params): { taskId: string; status: string; ttl: number; pollInterval: number; createdAt: string; lastUpdatedAt: string; statusMessage?: string } {
  return created.task as never;
}

describe('TaskHost: receiver rules (MCP Tasks 2025-11-25)', () => {
  const open: Client[] = [];
  async function client(handlers: Parameters<typeof createClient>[0], options?: Partial<TaskHostOptions>): Promise<Client> {
    const c = await createClient(handlers, options);
    open.push(c);
    return c;
  }
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  /** A working tool task `tool-1` of server `a` that the engine follows; `related` is the _meta of requests about it. */
  function followToolTask(c: Client, s: Awaited<ReturnType<Client['connect']>>) {
    const at = new Date().toISOString();
    const tool = { taskId: 'tool-1', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: 60_000, pollInterval: 60_000 };
    s.conn.onRequest('tasks/get', () => tool);
    c.engine.restore([{ key: taskKey('a', 'tool-1'), serverId: 'a', taskId: 'tool-1', kind: 'task', toolName: 'deploy', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: 60_000, origin: 'user' }]);
    return { tool, related: { [RELATED_TASK_META]: { taskId: 'tool-1' } } };
  }

  // ── Capabilities ─────────────────────────────────────────────────────────────────────────────

  it('T-RCV-1: declares tasks.list, tasks.cancel and both request types in initialize', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler, sample: gate.handler });
    const s = await c.connect('a');
    assert.deepEqual(s.init!.capabilities, {
      roots: { listChanged: true },
      elicitation: { form: {} },
      sampling: {},
      tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} }, sampling: { createMessage: {} } } },
    });
  });

  it('T-RCV-1: declares only the request types it was given handlers for; none: no tasks key', () => {
    const only = new TaskHost({ logger: nullLogger });
    assert.deepEqual(only.capabilities(), {});
    only.wrap('elicitation/create', async () => ({ action: 'decline' }));
    assert.deepEqual(only.capabilities(), { tasks: { list: {}, cancel: {}, requests: { elicitation: { create: {} } } } });
    only.dispose();
  });

  it('T-RCV-1: a request without task is handled normally (no hosted task)', async () => {
    const c = await client({ elicit: async (params) => ({ action: 'accept', content: { echo: params?.message } }) });
    const s = await c.connect('a');
    const answer = await s.request('elicitation/create', ELICIT);
    assert.deepEqual(answer, { action: 'accept', content: { echo: 'Your name?' } });
    assert.deepEqual(c.host.list(), []);
  });

  // ── Creation ─────────────────────────────────────────────────────────────────────────────────

  it('T-RCV-2: a task-augmented elicitation is answered with a CreateTaskResult at once, the dialog runs in the background', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { pollIntervalMs: 1500 });
    const s = await c.connect('a');
    const seen: HostedTaskSnapshot[] = [];
    c.host.onDidChange((snap) => seen.push(snap));
    const created = await s.request('elicitation/create', { ...ELICIT, task: { ttl: 60_000 }, _meta: { progressToken: 7 } });
    const task = taskOf(created);
    assert.deepEqual(Object.keys(created), ['task']);
    assert.equal(task.status, 'working'); // T-LIFE-1
    assert.equal(task.ttl, 60_000);
    assert.equal(task.pollInterval, 1500);
    assert.ok(!Number.isNaN(Date.parse(task.createdAt)) && task.lastUpdatedAt === task.createdAt, 'T-LIFE-5 dates');
    // The handler got the request without `task` (its _meta kept), and a signal of its own.
    assert.equal(gate.calls.length, 1);
    assert.deepEqual(gate.calls[0].params, { ...ELICIT, _meta: { progressToken: 7 } });
    assert.equal(gate.calls[0].ctx.serverId, 'a');
    assert.equal(gate.calls[0].ctx.signal.aborted, false);
    // Its dialog knows the hosted task it runs as (Respond on the hosted row shows that dialog).
    assert.equal(gate.calls[0].ctx.hostedTaskId, task.taskId);
    assert.deepEqual(requestAbout(gate.calls[0].ctx), [hostedKey('a', task.taskId)]);
    assert.deepEqual(seen.map((x) => [x.serverId, x.taskId, x.method, x.status, x.summary]), [['a', task.taskId, 'elicitation/create', 'working', 'Your name?']]);
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' } });
    await waitFor(() => c.host.list()[0]?.status === 'completed', 'completed');
  });

  it('T-RCV-2: task-augmented sampling too; the view gets the prompt as summary', async () => {
    const gate = new Gate();
    const c = await client({ sample: gate.handler });
    const s = await c.connect('a');
    const task = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} }));
    assert.equal(task.status, 'working');
    assert.deepEqual(gate.calls[0].params, SAMPLE);
    const [snap] = c.host.list();
    assert.equal(snap.method, 'sampling/createMessage');
    assert.equal(snap.summary, 'Write a haiku');
  });

  it('T-REQ-3, T-LIFE-2: a hosted sampling task waiting for the user\'s consent (its handler\'s hold with no `as`) stays working for its server; the view learns it asks, and that it no longer does once answered', async () => {
    const gate = new Gate();
    const c = await client({ sample: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} }));
    const seen: Array<boolean | undefined> = [];
    c.host.onDidChange((x) => seen.push(x.asks));
    const answered = gate.calls[0].ctx.hold!();
    assert.equal(c.host.list()[0].asks, true);
    // input_required would send the server to tasks/result for requests of this client; there are none (the spec's diagram: working while the user reviews).
    assert.equal((await s.request('tasks/get', { taskId })).status, 'working');
    answered();
    gate.calls[0].ctx.hold!('model')();
    assert.deepEqual(seen, [true, false], 'a model answering asks nothing of the user');
    gate.calls[0].resolve({ role: 'assistant', content: { type: 'text', text: 'Haiku' }, model: 'm' });
    await waitFor(() => c.host.list()[0].status === 'completed', 'completed');
    await s.settle();
    assert.deepEqual(s.statuses.map((x) => x.status), ['completed'], 'never told input_required');
  });

  it('a hosted sampling task is told which language model its handler chose (before the consent prompt), for the view only: what the server gets (T-LIFE-5) is unchanged, and the model stays named once it ended', async () => {
    const gate = new Gate();
    const c = await client({ sample: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} }));
    gate.calls[0].ctx.usesModel!('Test Model');
    assert.equal(c.host.list()[0].model, 'Test Model');
    assert.deepEqual(Object.keys(await s.request('tasks/get', { taskId })).sort(), ['createdAt', 'lastUpdatedAt', 'pollInterval', 'status', 'taskId', 'ttl']);
    gate.calls[0].resolve({ role: 'assistant', content: { type: 'text', text: 'Haiku' }, model: 'm' });
    await waitFor(() => c.host.list()[0].status === 'completed', 'completed');
    assert.equal(c.host.list()[0].model, 'Test Model');
  });

  it('T-LIFE-5: a hosted task\'s handler tells the user how it ended in their words, for the view only: its server gets the error\'s own message as the statusMessage', async () => {
    const gate = new Gate();
    const c = await client({ sample: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} }));
    gate.calls[0].ctx.tells!('No language model is available: install one');
    gate.calls[0].reject(new RpcError(-32603, 'No language model is available in the editor: the user needs to install one'));
    await waitFor(() => c.host.list()[0].status === 'failed', 'failed');
    assert.equal(c.host.list()[0].note, 'No language model is available: install one');
    assert.equal((await s.request('tasks/get', { taskId })).statusMessage, 'No language model is available in the editor: the user needs to install one (error -32603)');
  });

  it('T-LIFE-5: an ended hosted task\'s row reads for the user: an error\'s message without its code, "Cancelled by the server" for tasks/cancel; its server gets its own statusMessage', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler, sample: gate.handler });
    const s = await c.connect('a');
    const failed = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} })).taskId;
    const cancelled = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId;
    const mine = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId;
    gate.calls[0].reject(new RpcError(-32603, 'The language model Test Model failed: it is offline'));
    await s.request('tasks/cancel', { taskId: cancelled });
    c.host.cancel('a', mine);
    await waitFor(() => c.host.list().some((h) => h.status === 'failed'), 'failed');
    const row = (id: string) => describeHosted(c.host.list().find((h) => h.taskId === id)!, Date.now());
    assert.equal(row(failed), 'Failed · The language model Test Model failed: it is offline · now');
    assert.equal(row(cancelled), 'Cancelled by the server · now');
    assert.equal(row(mine), 'Cancelled by the user · now');
    assert.equal((await s.request('tasks/get', { taskId: failed })).statusMessage, 'The language model Test Model failed: it is offline (error -32603)');
    assert.equal((await s.request('tasks/get', { taskId: cancelled })).statusMessage, 'Cancelled at the request of the server (tasks/cancel)');
  });

  it('T-LIFE-4, T-RCV-6: a hosted task its server cancels reads "Cancelled by the server" even when its work, aborted, tells a note at once: the status and its words are settled before the abort fires', async () => {
    const c = await client({
      elicit: (_params, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => (ctx.tells!('Dismissed by the user'), reject(ctx.signal.reason)), { once: true });
        }),
    });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    await s.request('tasks/cancel', { taskId });
    await s.settle();
    const h = c.host.list()[0];
    assert.deepEqual([h.status, h.note, describeHosted(h, Date.now())], ['cancelled', 'Cancelled by the server', 'Cancelled by the server · now']);
  });

  it('T-RCV-3: task ids are UUID v4 strings generated here, all distinct, never the server\'s choice', async () => {
    const c = await client({ elicit: async () => ({ action: 'decline' }) }, { maxConcurrentPerServer: 1000, rateBurst: 10_000, maxRetainedPerServer: 1000 });
    const a = await c.connect('a');
    const b = await c.connect('b');
    const ids: string[] = [];
    for (const s of [a, b]) {
      for (let batch = 0; batch < 5; batch++) {
        const created = await Promise.all(Array.from({ length: 40 }, () => s.request('elicitation/create', { ...ELICIT, task: { ttl: 60_000, taskId: 'chosen-by-server' } })));
        ids.push(...created.map((x) => taskOf(x).taskId));
      }
    }
    assert.equal(ids.length, 400);
    for (const id of ids) assert.match(id, UUID_V4);
    assert.equal(new Set(ids).size, 400);
  });

  // ── Serving tasks/* ──────────────────────────────────────────────────────────────────────────

  it('T-RCV-4: tasks/get follows the task from working to completed, without related-task _meta', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const first = await s.request('tasks/get', { taskId });
    assert.equal(first.status, 'working');
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' } });
    await waitFor(() => c.host.list()[0].status === 'completed', 'completed');
    const second = await s.request('tasks/get', { taskId, _meta: { [RELATED_TASK_META]: { taskId: 'ignored' } } });
    assert.equal(second.status, 'completed');
    assert.equal(second.taskId, taskId);
    assert.equal('_meta' in second, false);
    assert.ok(Date.parse(second.lastUpdatedAt as string) >= Date.parse(second.createdAt as string));
  });

  it('T-RCV-4: tasks/result blocks until the task ends and returns exactly the result, with related-task _meta', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    let settled = false;
    const pending = s.request('tasks/result', { taskId }).finally(() => (settled = true));
    await s.settle();
    // Blocked: polling still works meanwhile.
    assert.equal((await s.request('tasks/get', { taskId })).status, 'working');
    assert.equal(settled, false, 'tasks/result answered before the task ended');
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' }, _meta: { 'example.com/x': 1 } });
    const expected = { action: 'accept', content: { name: 'Ada' }, _meta: { 'example.com/x': 1, [RELATED_TASK_META]: { taskId } } };
    assert.deepEqual(await pending, expected);
    // Again, once terminal: at once, the same.
    assert.deepEqual(await s.request('tasks/result', { taskId }), expected);
    assert.ok(c.host.list()[0].resultRetrievedAt);
  });

  it('T-RCV-4: a failed task gives, through tasks/result, exactly the JSON-RPC error of the request', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const pending = rpcError(s.request('tasks/result', { taskId }));
    gate.calls[0].reject(new RpcError(-32042, 'URL elicitation required', { elicitations: [{ url: 'https://example.com' }] }));
    const err = await pending;
    assert.deepEqual(err.toJSON(), { code: -32042, message: 'URL elicitation required', data: { elicitations: [{ url: 'https://example.com' }] } });
    const task = await s.request('tasks/get', { taskId });
    assert.equal(task.status, 'failed');
    assert.match(task.statusMessage as string, /URL elicitation required/);
  });

  it('T-RCV-4: tasks/list pages with opaque cursors, in creation order, only nextCursor while more remain', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { pageSize: 2 });
    const s = await c.connect('a');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId);
    gate.calls[1].resolve({ action: 'decline' });
    await waitFor(() => c.host.list()[1].status === 'completed', 'completed');
    const pages: Params[] = [];
    let cursor: string | undefined;
    do {
      const page = await s.request('tasks/list', cursor === undefined ? {} : { cursor });
      pages.push(page);
      cursor = page.nextCursor as string | undefined;
      if (cursor !== undefined) assert.equal(typeof cursor, 'string');
    } while (cursor !== undefined);
    assert.deepEqual(pages.map((p) => (p.tasks as unknown[]).length), [2, 2, 1]);
    const listed = pages.flatMap((p) => p.tasks as Array<{ taskId: string; status: string }>);
    assert.deepEqual(listed.map((t) => t.taskId), ids);
    assert.equal(listed[1].status, 'completed');
    assert.equal('_meta' in pages[0], false);
    // No params at all is a first page too.
    assert.equal(((await s.request('tasks/list')).tasks as unknown[]).length, 2);
  });

  it('T-RCV-5: unknown ids, bad params and bad cursors are -32602 that say why', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { pageSize: 1 });
    const s = await c.connect('a');
    const unknown = '786512e2-9e0d-44bd-8f29-789f320fe840';
    const cases: Array<[string, Params | undefined, string]> = [
      ['tasks/get', { taskId: unknown }, 'Failed to retrieve task: Task not found'],
      ['tasks/result', { taskId: unknown }, 'Failed to retrieve task result: Task not found'],
      ['tasks/cancel', { taskId: unknown }, 'Failed to cancel task: Task not found'],
      ['tasks/get', {}, 'Invalid params of tasks/get: taskId: expected string'],
      ['tasks/cancel', { taskId: 42 }, 'Invalid params of tasks/cancel: taskId: expected string'],
      ['tasks/list', { cursor: 7 }, 'Invalid params of tasks/list: cursor: expected string'],
      ['tasks/list', { cursor: 'not-a-cursor' }, 'Invalid cursor for tasks/list: "not-a-cursor" was not issued by this client'],
      ['elicitation/create', { ...ELICIT, task: { ttl: -5 } }, 'Invalid task parameter of elicitation/create: ttl: must not be negative'],
      ['elicitation/create', { ...ELICIT, task: 'soon' }, 'Invalid task parameter of elicitation/create: (root): expected object'],
    ];
    for (const [method, params, message] of cases) {
      const err = await rpcError(s.request(method, params));
      assert.deepEqual([method, err.code, err.message], [method, -32602, message]);
    }
    // A cursor beyond what was issued (forged) is refused as well.
    const forged = Buffer.from('c99').toString('base64url');
    assert.equal((await rpcError(s.request('tasks/list', { cursor: forged }))).code, -32602);
    assert.equal(gate.calls.length, 0, 'an invalid task parameter never reaches the handler');
  });

  it('T-RCV-5: cancelling a task in a terminal status is -32602 naming the status', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId);
    gate.calls[0].resolve({ action: 'accept', content: {} });
    gate.calls[1].reject(new Error('boom'));
    await s.request('tasks/cancel', { taskId: ids[2] });
    await waitFor(() => c.host.list().every((t) => t.status !== 'working'), 'all ended');
    for (const [i, status] of ['completed', 'failed', 'cancelled'].entries()) {
      const err = await rpcError(s.request('tasks/cancel', { taskId: ids[i] }));
      assert.equal(err.code, -32602);
      assert.equal(err.message, `Cannot cancel task: already in terminal status '${status}'`);
    }
  });

  it('T-RCV-5: internal failures are -32603 that say why', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    // The work itself fails with a plain error: the task fails, tasks/result gives -32603 with its message.
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    gate.calls[0].reject(new Error('the dialog could not be shown'));
    const err = await rpcError(s.request('tasks/result', { taskId }));
    assert.deepEqual(err.toJSON(), { code: -32603, message: 'the dialog could not be shown' });
    // A task for a server whose connection the host does not know (a wiring fault).
    const wrapped = c.host.wrap('elicitation/create', gate.handler);
    const orphan = await rpcError(wrapped({ ...ELICIT, task: {} }, { serverId: 'nowhere', signal: new AbortController().signal }));
    assert.equal(orphan.code, -32603);
    assert.match(orphan.message, /cannot host a task for elicitation\/create: no connection to this server/);
    assert.ok(c.log.has('error', /\[nowhere\] Cannot host a task/));
  });

  // ── Cancellation ─────────────────────────────────────────────────────────────────────────────

  it('T-RCV-6: tasks/cancel stops the work and the task is cancelled before the answer', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const signal = gate.calls[0].ctx.signal;
    const atAnswer = await s.request('tasks/cancel', { taskId }).then((answer) => ({ answer, host: c.host.list()[0].status, aborted: signal.aborted }));
    assert.equal(atAnswer.answer.status, 'cancelled');
    assert.equal(atAnswer.answer.taskId, taskId);
    assert.equal(atAnswer.answer.statusMessage, 'Cancelled at the request of the server (tasks/cancel)');
    assert.equal(atAnswer.host, 'cancelled');
    assert.equal(atAnswer.aborted, true, 'the dialog was told to close');
    assert.match(String((signal.reason as Error).message), /Cancelled at the request of the server/);
    // On the wire, the cancelled status went out before the answer.
    const idx = (pred: (m: Record<string, unknown>) => boolean) => s.raw.findIndex(pred);
    const note = idx((m) => m.method === 'notifications/tasks/status' && (m.params as Params).status === 'cancelled');
    const answer = idx((m) => (m.result as Params | undefined)?.status === 'cancelled');
    assert.ok(note >= 0 && note < answer, `notification at ${note}, answer at ${answer}`);
    assert.equal((await s.request('tasks/get', { taskId })).status, 'cancelled');
    const err = await rpcError(s.request('tasks/result', { taskId }));
    assert.equal(err.code, -32603);
    assert.match(err.message, /was cancelled .*it has no result/);
  });

  it('T-RCV-6: a task its server cancels is announced (onDidServerCancel), once, so the user learns why its dialog closed; one the user cancels is not', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const announced: string[] = [];
    c.host.onDidServerCancel((h) => announced.push(`${h.taskId} ${h.status}`));
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const mine = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId;
    await s.request('tasks/cancel', { taskId });
    await rpcError(s.request('tasks/cancel', { taskId }));
    c.host.cancel('a', mine);
    assert.deepEqual(announced, [`${taskId} cancelled`]);
  });

  it('T-RCV-6: a cancelled task stays cancelled when its work finishes later (T-LIFE-4); a blocked tasks/result is answered', async () => {
    let finish!: (v: Params) => void;
    const c = await client({ elicit: () => new Promise((resolve) => (finish = resolve)) });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const blocked = rpcError(s.request('tasks/result', { taskId }));
    await s.request('tasks/cancel', { taskId });
    assert.equal((await blocked).code, -32603);
    finish({ action: 'accept', content: { late: true } });
    await s.settle();
    assert.equal((await s.request('tasks/get', { taskId })).status, 'cancelled');
    assert.deepEqual(s.statuses.map((n) => n.status), ['cancelled']);
    assert.ok(c.log.has('debug', /work ended after it was cancelled; outcome discarded/));
  });

  it('T-RCV-6: a server that cancels its task-augmented request before the CreateTaskResult leaves has no orphan task: the dialog closes, the task is cancelled', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const asked = new AbortController();
    const answer = s.conn.requestRaw('elicitation/create', { ...ELICIT, task: {} }, { signal: asked.signal }).catch(() => undefined);
    // Sent after the request, so it arrives while the client is still answering it.
    await Promise.resolve();
    asked.abort(new Error('the tool call was cancelled'));
    await answer;
    await s.settle();
    assert.equal(s.raw.some((m) => (m.result as Params | undefined)?.task !== undefined), false, 'no CreateTaskResult went out: the server never learns the task id');
    assert.equal(gate.calls[0].ctx.signal.aborted, true, 'the dialog closed: no one could read its answer');
    assert.deepEqual(c.host.list().map((t) => [t.status, t.statusMessage]), [['cancelled', 'The server withdrew its request (the tool call was cancelled)']]);
  });

  it('T-LIFE-1: a request that fails at once has its CreateTaskResult (working) on the wire before its failed status', async () => {
    const c = await client({ elicit: async () => Promise.reject(new RpcError(-32602, 'the form cannot be shown')) });
    const s = await c.connect('a');
    const { taskId, status } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    assert.equal(status, 'working');
    await s.settle();
    const created = s.raw.findIndex((m) => ((m.result as Params | undefined)?.task as Params | undefined)?.taskId === taskId);
    const failed = s.raw.findIndex((m) => m.method === 'notifications/tasks/status' && (m.params as Params).status === 'failed');
    assert.ok(created >= 0 && failed > created, `CreateTaskResult at ${created}, failed status at ${failed}`);
    assert.deepEqual(s.statuses.map((n) => [n.taskId, n.status]), [[taskId, 'failed']], 'sent once, after the answer');
  });

  it('T-RCV-6: the user cancels from the view: the work stops and the server is told', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const snap = c.host.cancel('a', taskId);
    assert.equal(snap.status, 'cancelled');
    assert.equal(gate.calls[0].ctx.signal.aborted, true);
    await s.settle();
    assert.deepEqual(s.statuses.map((n) => [n.taskId, n.status, n.statusMessage]), [[taskId, 'cancelled', 'Cancelled by the user']]);
    assert.throws(() => c.host.cancel('a', taskId), /already ended \(cancelled\)/);
    assert.throws(() => c.host.cancel('b', taskId), /No task/);
  });

  it('a hosted question about a tool task is cancelled, its dialog closed, when that tool task ends', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler, sample: gate.handler });
    const s = await c.connect('a');
    const { tool, related } = followToolTask(c, s);
    const { taskId: asked } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {}, _meta: related }));
    const { taskId: sampled } = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {}, _meta: related }));
    const { taskId: other } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    assert.deepEqual(gate.calls.map((call) => call.ctx.task?.taskId), ['tool-1', 'tool-1', undefined]);
    // A dialog about tool-1 is found by the tool task's key (Respond on its row) and by its hosted task's.
    assert.deepEqual(requestAbout(gate.calls[0].ctx), [taskKey('a', 'tool-1'), hostedKey('a', asked)]);
    await s.conn.notify('notifications/tasks/status', { ...tool, status: 'cancelled' });
    await waitFor(() => gate.calls[0].ctx.signal.aborted && gate.calls[1].ctx.signal.aborted, 'the dialogs about tool-1 closed');
    assert.equal(gate.calls[2].ctx.signal.aborted, false, 'a question about no task stays open');
    await s.settle();
    const status = (id: string) => c.host.list().find((t) => t.taskId === id)?.status;
    assert.deepEqual([status(asked), status(sampled), status(other)], ['cancelled', 'cancelled', 'working']);
    // Its row says why it closed unanswered, in words the user reads as they are (no note needed over them).
    assert.equal(describeHosted(c.host.list().find((t) => t.taskId === asked)!, Date.now()), 'Cancelled · The task it belongs to ended (cancelled) · now');
    assert.deepEqual(
      s.statuses.map((n) => [n.taskId, n.status, n.statusMessage]),
      [
        [asked, 'cancelled', 'The task it belongs to ended (cancelled)'],
        [sampled, 'cancelled', 'The task it belongs to ended (cancelled)'],
      ],
    );
    assert.match((await rpcError(s.request('tasks/result', { taskId: asked }))).message, /was cancelled \(The task it belongs to ended \(cancelled\)\)/);
  });

  it('T-LIFE-4: a hosted question about a tool task that ended already (a server that works on once cancelled) is cancelled at once, never shown', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const { tool, related } = followToolTask(c, s);
    await s.conn.notify('notifications/tasks/status', { ...tool, status: 'cancelled' });
    await waitFor(() => c.engine.get(taskKey('a', 'tool-1'))?.status === 'cancelled', 'tool-1 cancelled');
    const created = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {}, _meta: related }));
    assert.equal(created.status, 'working', 'T-LIFE-1');
    assert.equal(gate.calls.length, 0, 'no dialog');
    assert.deepEqual(await s.request('tasks/get', { taskId: created.taskId }), { ...created, status: 'cancelled', statusMessage: 'The task it belongs to ended (cancelled)', lastUpdatedAt: c.host.list()[0].lastUpdatedAt });
    assert.match((await rpcError(s.request('tasks/result', { taskId: created.taskId }))).message, /was cancelled \(The task it belongs to ended \(cancelled\)\)/);
  });

  // ── ttl ──────────────────────────────────────────────────────────────────────────────────────

  it('T-RCV-7: the ttl is capped, defaulted and floored, and the real one is reported everywhere', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { maxTtlMs: 60_000, defaultTtlMs: 30_000, minTtlMs: 1_000 });
    const s = await c.connect('a');
    const asked = [{ ttl: 36_000_000 }, {}, { ttl: 0 }, { ttl: 5_000 }, { ttl: null }];
    const granted = [60_000, 30_000, 1_000, 5_000, 30_000];
    for (const [i, task] of asked.entries()) {
      const created = taskOf(await s.request('elicitation/create', { ...ELICIT, task }));
      assert.equal(created.ttl, granted[i], `asked ${JSON.stringify(task)}`);
      assert.equal((await s.request('tasks/get', { taskId: created.taskId })).ttl, granted[i]);
    }
    const listed = (await s.request('tasks/list')).tasks as Array<{ ttl: number }>;
    assert.deepEqual(listed.map((t) => t.ttl), granted);
    assert.ok(c.log.has('info', /created for elicitation\/create \(ttl 60000 ms, 36000000 asked\)/));
  });

  describe('with fake timers', () => {
    let clock: ReturnType<typeof FakeTimers.install> | undefined;
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });

    it('T-RCV-7: a task is deleted once its ttl ends (live work aborted), by one timer for all tasks', async () => {
      // Only timers and Date: the in-memory transport delivers on queueMicrotask, which stays real.
      clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: Date.parse('2025-11-25T10:00:00Z') });
      const gate = new Gate();
      const c = await client({ elicit: gate.handler }, { maxConcurrentPerServer: 100 });
      const s = await c.connect('a');
      const removed: string[] = [];
      c.host.onDidRemove((id) => removed.push(id));
      const expiredLive: string[] = [];
      c.host.onDidExpire((h) => expiredLive.push(`${h.taskId} ${h.status}`));
      const done = taskOf(await s.request('elicitation/create', { ...ELICIT, task: { ttl: 5_000 } })).taskId;
      gate.calls[0].resolve({ action: 'decline' });
      const live = taskOf(await s.request('elicitation/create', { ...ELICIT, task: { ttl: 10_000 } })).taskId;
      for (let i = 0; i < 20; i++) await s.request('elicitation/create', { ...ELICIT, task: { ttl: 60_000 } });
      await s.settle();
      assert.equal(clock.countTimers(), 1, 'one expiry timer for 22 tasks');
      await clock.tickAsync(5_000);
      assert.deepEqual(removed, [done]);
      const expired = await rpcError(s.request('tasks/get', { taskId: done }));
      assert.deepEqual([expired.code, expired.message], [-32602, 'Failed to retrieve task: Task has expired']);
      assert.equal((await s.request('tasks/get', { taskId: live })).status, 'working');
      await clock.tickAsync(5_000);
      assert.deepEqual(removed, [done, live]);
      assert.equal(gate.calls[1].ctx.signal.aborted, true, 'the dialog of an expired task is closed');
      // The editor says why the dialog went away: only the live one counts, not the one that had ended.
      assert.deepEqual(expiredLive, [`${live} cancelled`]);
      await s.settle();
      assert.deepEqual(s.statuses.find((n) => n.taskId === live)?.status, 'cancelled');
      assert.ok(c.log.has('info', new RegExp(`Hosted task ${live} deleted \\(was cancelled\\): Task has expired`)));
      await clock.tickAsync(50_000);
      assert.equal(c.host.list().length, 0);
      assert.equal(clock.countTimers(), 0, 'no timer left once no task remains');
    });
  });

  // ── Binding ──────────────────────────────────────────────────────────────────────────────────

  it('T-RCV-8: another server can neither get, fetch, list nor cancel a task, and learns nothing', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { pageSize: 1 });
    const a = await c.connect('a');
    const b = await c.connect('b');
    const { taskId } = taskOf(await a.request('elicitation/create', { ...ELICIT, task: {} }));
    await a.request('elicitation/create', { ...ELICIT, task: {} });
    const aList = await a.request('tasks/list');
    const own = await b.request('elicitation/create', { ...ELICIT, task: {} });
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const stolen = await rpcError(b.request(method, { taskId }));
      const none = await rpcError(b.request(method, { taskId: unknown }));
      assert.deepEqual(stolen.toJSON(), none.toJSON(), `${method}: same answer as an unknown id`);
      assert.equal(stolen.code, -32602);
    }
    assert.deepEqual(((await b.request('tasks/list')).tasks as Array<{ taskId: string }>).map((t) => t.taskId), [taskOf(own).taskId]);
    assert.equal((await rpcError(b.request('tasks/list', { cursor: aList.nextCursor as string }))).code, -32602);
    assert.equal(gate.calls[0].ctx.signal.aborted, false);
    assert.equal((await a.request('tasks/get', { taskId })).status, 'working');
  });

  it('T-RCV-8: hosted tasks belong to their connection: when it closes, their work is aborted and they are deleted', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const a = await c.connect('a');
    const b = await c.connect('b');
    const { taskId } = taskOf(await a.request('elicitation/create', { ...ELICIT, task: {} }));
    await b.request('elicitation/create', { ...ELICIT, task: {} });
    const removed: string[] = [];
    c.host.onDidRemove((id) => removed.push(id));
    await a.conn.close();
    await waitFor(() => removed.length === 1, 'removal');
    assert.deepEqual(removed, [taskId]);
    assert.equal(gate.calls[0].ctx.signal.aborted, true);
    assert.equal(gate.calls[1].ctx.signal.aborted, false, 'the other server\'s task lives on');
    assert.deepEqual(c.host.list().map((t) => t.serverId), ['b']);
    assert.ok(c.log.has('info', new RegExp(`Hosted task ${taskId} dropped \\(was working\\): the connection closed`)));
  });

  // ── Limits ───────────────────────────────────────────────────────────────────────────────────

  it('T-RCV-9: a flood of 2,000 task-augmented elicitations gets errors beyond the limits; at most 10 dialogs open', async () => {
    let now = Date.parse('2025-11-25T10:00:00Z');
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { now: () => now });
    const s = await c.connect('a');
    // In batches under the connection's own cap of 64 requests in flight, so the host's limits are what answers.
    const outcomes: Array<PromiseSettledResult<Params>> = [];
    for (let i = 0; i < 2000; i += 50) {
      outcomes.push(...(await Promise.allSettled(Array.from({ length: 50 }, () => s.request('elicitation/create', { ...ELICIT, task: { ttl: 60_000 } })))));
    }
    const accepted = outcomes.filter((o) => o.status === 'fulfilled');
    const errors = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as RpcError] : []));
    assert.equal(accepted.length, 10);
    assert.equal(gate.calls.length, 10, 'the handler (a dialog) ran only for accepted tasks');
    assert.ok(errors.every((e) => e instanceof RpcError && e.code === -32603));
    // 100 tokens of burst: 10 accepted, 90 over the concurrency limit, then the rate limit.
    assert.equal(errors.filter((e) => /^Too many concurrent tasks: this server already has 10 tasks and requests running on the client \(limit 10\)/.test(e.message)).length, 90);
    assert.equal(errors.filter((e) => /^Rate limit exceeded: more than 50 task operations per second \(burst 100\)/.test(e.message)).length, 1900);
    // The log says so without one line per refusal.
    assert.equal(c.log.lines.filter((l) => l.level === 'warn').length, 1);
    // A second later the bucket has refilled: polls work; once a task ends, a new one is accepted.
    now += 1_000;
    assert.equal((await s.request('tasks/get', { taskId: taskOf((accepted[0] as PromiseFulfilledResult<Params>).value).taskId })).status, 'working');
    assert.equal((await rpcError(s.request('elicitation/create', { ...ELICIT, task: {} }))).code, -32603);
    gate.calls[0].resolve({ action: 'decline' });
    await waitFor(() => c.host.list().filter((t) => t.status === 'working').length === 9, 'one ended');
    assert.equal(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).status, 'working');
    now += 10_000;
    await rpcError(Promise.all(Array.from({ length: 2 }, () => s.request('elicitation/create', { ...ELICIT, task: {} }))));
    assert.ok(c.log.has('warn', /Too many concurrent tasks.*\(\d+ refusals since the last warning\)/), c.log.text());
  });

  it('T-RCV-9: plain (not task-augmented) questions count against the same limits: a flood of them opens at most 10 dialogs', async () => {
    let now = Date.parse('2025-11-25T10:00:00Z');
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { now: () => now });
    const s = await c.connect('a');
    // Ten stay in their dialogs (unanswered); the others are answered at once.
    const errors: RpcError[] = [];
    for (let i = 0; i < 200; i += 50) {
      for (let j = 0; j < 50; j++) s.request('elicitation/create', ELICIT).catch((e: RpcError) => errors.push(e));
      await waitFor(() => errors.length + gate.calls.length === i + 50, 'the batch answered or in a dialog');
    }
    assert.equal(errors.length, 190, 'all but the ten in a dialog were refused at once');
    assert.equal(gate.calls.length, 10);
    // 100 tokens of burst: 10 in dialogs, 90 over the concurrency limit, then the rate limit.
    const concurrency = errors.filter((e) => /^Too many concurrent tasks: this server already has 10 tasks and requests running on the client \(limit 10\)/.test(e.message));
    const rate = errors.filter((e) => /^Rate limit exceeded: more than 50 task operations per second \(burst 100\)/.test(e.message));
    assert.deepEqual([concurrency.length, rate.length], [90, 100]);
    assert.ok(errors.every((e) => e.code === -32603));
    // A task-augmented one is refused too while ten plain ones are open; once one is answered, there is room.
    now += 1_000;
    assert.equal((await rpcError(s.request('elicitation/create', { ...ELICIT, task: {} }))).code, -32603);
    gate.calls[0].resolve({ action: 'decline' });
    await waitFor(() => gate.calls.length === 10 && c.host.list().length === 0, 'one answered');
    await new Promise((r) => setImmediate(r));
    assert.equal(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).status, 'working');
  });

  it('T-RCV-9: bursts of twice the rate; new limits apply to the next requests, on connections already open', async () => {
    let now = Date.parse('2025-11-25T10:00:00Z');
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { now: () => now, ratePerSecond: 5, maxConcurrentPerServer: 100 });
    const s = await c.connect('a');
    const burst = async (n: number) => (await Promise.allSettled(Array.from({ length: n }, () => s.request('elicitation/create', { ...ELICIT, task: {} })))).filter((o) => o.status === 'fulfilled').length;
    assert.equal(await burst(20), 10, 'a rate of 5 a second admits bursts of 10');
    now += 10_000;
    c.host.configure({ ratePerSecond: 2, maxConcurrentPerServer: 12 });
    assert.equal(await burst(20), 2, 'the new limits: 12 at once, of which 10 already run');
    now += 10_000;
    c.host.configure({ maxConcurrentPerServer: 100 });
    assert.equal(await burst(20), 4, 'the rate set before stays: bursts of 4');
  });

  it('T-RCV-9: 2,000 at once (no batching) never open more than 10 dialogs; every refusal is -32603 naming a limit', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const outcomes = await Promise.allSettled(Array.from({ length: 2000 }, () => s.request('elicitation/create', { ...ELICIT, task: {} })));
    assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 10);
    assert.equal(gate.calls.length, 10);
    for (const o of outcomes) if (o.status === 'rejected') assert.ok(o.reason instanceof RpcError && o.reason.code === -32603 && /limit/i.test(o.reason.message), String(o.reason));
  });

  it('T-RCV-9: tasks/* are rate limited per server (token bucket)', async () => {
    let now = 0;
    const c = await client({ elicit: new Gate().handler }, { now: () => now, ratePerSecond: 50, rateBurst: 100 });
    const a = await c.connect('a');
    const b = await c.connect('b');
    const poll = async (s: ScriptedServer, n: number) => {
      const codes: number[] = [];
      for (let i = 0; i < n; i += 50) {
        const batch = await Promise.allSettled(Array.from({ length: Math.min(50, n - i) }, () => s.request('tasks/get', { taskId: 'guess' })));
        codes.push(...batch.map((o) => (o.status === 'rejected' ? (o.reason as RpcError).code : 0)));
      }
      return { notFound: codes.filter((x) => x === -32602).length, limited: codes.filter((x) => x === -32603).length };
    };
    assert.deepEqual(await poll(a, 150), { notFound: 100, limited: 50 });
    assert.deepEqual(await poll(b, 100), { notFound: 100, limited: 0 }, 'each server has its own bucket');
    now += 500; // refills 25
    assert.deepEqual(await poll(a, 40), { notFound: 25, limited: 15 });
    assert.match((await rpcError(a.request('tasks/list'))).message, /^Rate limit exceeded.*tasks\/list refused, try again later$/);
  });

  it('T-RCV-9: ended tasks are kept up to a limit per server, the oldest deleted first', async () => {
    const c = await client({ elicit: async () => ({ action: 'decline' }) }, { maxRetainedPerServer: 3 });
    const s = await c.connect('a');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId);
      await waitFor(() => c.host.list().every((t) => t.status === 'completed'), 'completed');
    }
    assert.deepEqual(c.host.list().map((t) => t.taskId), ids.slice(2));
    assert.equal((await rpcError(s.request('tasks/get', { taskId: ids[0] }))).message, 'Failed to retrieve task: Task was deleted: the client keeps at most 3 ended tasks per server');
  });

  it('T-RCV-4, T-RCV-9: the cap on ended tasks deletes those that ended first: a question answered last reaches the server waiting in tasks/result', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { maxRetainedPerServer: 2 });
    const s = await c.connect('a');
    const { taskId: slow } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    const blocked = s.request('tasks/result', { taskId: slow });
    const quick: string[] = [];
    for (let i = 0; i < 2; i++) quick.push(taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId);
    gate.calls[1].resolve({ action: 'decline' });
    gate.calls[2].resolve({ action: 'decline' });
    await waitFor(() => c.host.list().filter((t) => t.status === 'completed').length === 2, 'the quick ones ended');
    // The user answers the oldest question last: it is the newest ended task, not the oldest.
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' } });
    assert.deepEqual(await blocked, { action: 'accept', content: { name: 'Ada' }, _meta: { [RELATED_TASK_META]: { taskId: slow } } });
    assert.equal((await s.request('tasks/get', { taskId: slow })).status, 'completed');
    assert.deepEqual(c.host.list().map((t) => t.taskId).sort(), [slow, quick[1]].sort(), 'the task that ended first was deleted');
    assert.equal((await rpcError(s.request('tasks/get', { taskId: quick[0] }))).message, 'Failed to retrieve task: Task was deleted: the client keeps at most 2 ended tasks per server');
  });

  it('T-RCV-4, T-RCV-9: tasks ending together never evict one whose tasks/result is waiting: the server gets its outcome, not "deleted"', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { maxRetainedPerServer: 1 });
    const s = await c.connect('a');
    const { tool, related } = followToolTask(c, s);
    const { taskId: first } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {}, _meta: related }));
    await s.request('elicitation/create', { ...ELICIT, task: {}, _meta: related });
    const blocked = rpcError(s.request('tasks/result', { taskId: first }));
    await s.settle();
    // The tool task ends: both questions are cancelled in one turn, the waited one first.
    await s.conn.notify('notifications/tasks/status', { ...tool, status: 'cancelled' });
    assert.match((await blocked).message, /^Task .* was cancelled \(The task it belongs to ended \(cancelled\)\); it has no result$/);
  });

  // ── Notifications and audit ──────────────────────────────────────────────────────────────────

  it('T-RCV-10: status notifications carry the whole task and no related-task _meta', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler, sample: gate.handler });
    const s = await c.connect('a');
    const ok = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} })).taskId;
    const bad = taskOf(await s.request('sampling/createMessage', { ...SAMPLE, task: {} })).taskId;
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' } });
    gate.calls[1].reject(new RpcError(-1, 'User rejected sampling request'));
    await waitFor(() => s.statuses.length === 2, 'two notifications');
    const notes = s.raw.filter((m) => m.method === 'notifications/tasks/status');
    assert.equal(notes.length, 2);
    for (const n of notes) {
      const p = n.params as Params;
      assert.equal('_meta' in p, false);
      assert.deepEqual(p, await s.request('tasks/get', { taskId: p.taskId as string }), 'the whole task, as tasks/get says');
    }
    assert.deepEqual(s.statuses.map((p) => [p.taskId, p.status]), [[ok, 'completed'], [bad, 'failed']]);
    assert.equal(s.statuses[1].statusMessage, 'User rejected sampling request (error -1)');
  });

  it('T-LOG-1: creation, status changes and result retrieval are logged with the server and task id', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler }, { label: (id) => `Server ${id.toUpperCase()}` });
    const s = await c.connect('a');
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: { ttl: 60_000 } }));
    gate.calls[0].resolve({ action: 'accept', content: { name: 'Ada' } });
    await s.request('tasks/result', { taskId });
    const info = c.log.lines.filter((l) => l.level === 'info' && l.message.includes(taskId)).map((l) => l.message);
    assert.deepEqual(info, [
      `[Server A] Hosted task ${taskId} created for elicitation/create (ttl 60000 ms): "Your name?"`,
      `[Server A] Hosted task ${taskId} (elicitation/create): working → completed`,
      `[Server A] Hosted task ${taskId}: result retrieved by the server (result)`,
    ]);
  });

  it('events: the view gets plain snapshots on every change and the id on removal', async () => {
    const gate = new Gate();
    const c = await client({ elicit: gate.handler });
    const s = await c.connect('a');
    const seen: HostedTaskSnapshot[] = [];
    const removed: string[] = [];
    c.host.onDidChange((x) => seen.push(x));
    c.host.onDidRemove((x) => removed.push(x));
    const { taskId } = taskOf(await s.request('elicitation/create', { ...ELICIT, task: {} }));
    gate.calls[0].resolve({ action: 'decline' });
    await s.request('tasks/result', { taskId });
    assert.deepEqual(seen.map((x) => [x.status, x.resultRetrievedAt !== undefined]), [['working', false], ['completed', false], ['completed', true]]);
    assert.deepEqual(JSON.parse(JSON.stringify(seen[2])), seen[2], 'serialisable');
    c.host.dispose();
    assert.deepEqual(removed, [taskId], 'shutting down drops hosted tasks');
    assert.deepEqual(c.host.list(), []);
  });
});
