import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import FakeTimers from '@sinonjs/fake-timers';
import { formatResult, formatTask } from '../../../src/core/api/lmFormat';
import { TasksService, UnknownTaskError } from '../../../src/core/api/service';
import type { TaskInfo } from '../../../src/core/api/service';
import { combineConfigs, parseMcpJson, parseSettingServers } from '../../../src/core/config/parse';
import { ServerManager } from '../../../src/core/servers/serverManager';
import { HeldByUserError, TaskEngine, UnknownToolError } from '../../../src/core/tasks/engine';
import { createTransport } from '../../../src/core/transports/factory';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import type { ServerSnapshot } from '../../../src/core/servers/serverManager';
import type { HarnessOptions } from '../helpers/fakeTaskServer';
import { NO_POLL, completeWithDeepResult, harnessesForEachTest } from '../helpers/fakeTaskServer';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { MAX_TIMER_DELAY_MS, recordTimerDelays } from '../helpers/timers';
import { demoServer } from '../helpers/peers';
import { bareServerManager } from '../helpers/servers';
import { openClient, startPeer, taskLab } from '../reliability/support';

/** The service over a real engine and server manager, with the demo server over stdio. */
function open() {
  const log = new MemoryLogger();
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    sessions: { getSession: (id, o) => servers.getSession(id, o), label: (id) => servers.label(id), tasksOutliveConnection: (id) => servers.tasksOutliveConnection(id) },
    minPollMs: 100,
  });
  const servers: ServerManager = new ServerManager({
    logger: log,
    clientInfo: { name: 'mcp-tasks-test', version: '0' },
    roots: () => [],
    resolveContext: () => ({ folders: {}, folderPaths: [], userHome: os.homedir(), env: process.env, readFile: async () => '' }),
    promptInput: async () => undefined,
    createTransport,
    capabilities: () => engine.clientCapabilities(),
    onSession: (session, config) => engine.attachSession(config.id, session),
  });
  const config = parseSettingServers({ demo: { type: 'stdio', command: process.execPath, args: [demoServer, 'stdio', '--quiet', '--poll-interval', '200'] } });
  servers.setConfiguration(config.servers, config.errors);
  const service = new TasksService({ engine, servers, logger: log });
  return {
    log,
    engine,
    servers,
    service,
    close() {
      service.dispose();
      engine.dispose();
      servers.dispose();
    },
  };
}

describe('TasksService (the API and language-model tools) against the demo server over stdio', function () {
  this.timeout(30000);
  let w: ReturnType<typeof open>;
  let demoId: string;
  before(() => {
    w = open();
    demoId = w.service.servers()[0].id;
  });
  after(() => w?.close());

  it('finds a server by id, label or name, and names the configured ones when it cannot', () => {
    assert.equal(w.service.resolveServer('demo').id, demoId);
    assert.equal(w.service.resolveServer(demoId).label, 'demo');
    assert.throws(() => w.service.resolveServer('nope'), /No MCP server "nope" is configured; the servers are "demo"\./);
  });

  it('a name two folders\' servers share is not "not configured": the error says several servers have it, and their labels (which are accepted)', () => {
    const servers = bareServerManager();
    const folder = (name: string) => parseMcpJson('{ "servers": { "demo": { "command": "node" } } }', { kind: 'workspaceFolder', folderName: name, folderPath: `/work/${name}`, file: `/work/${name}/.vscode/mcp.json` });
    servers.setConfiguration(combineConfigs([folder('a'), folder('b')]).servers, []);
    const service = new TasksService({ engine: w.engine, servers, logger: new MemoryLogger() });
    try {
      assert.throws(() => service.resolveServer('demo'), /^Error: Several MCP servers are named "demo"; the servers are "demo \(a\)", "demo \(b\)"\.$/);
      assert.equal(service.resolveServer('demo (b)').id, 'folder:/work/b:demo');
    } finally {
      servers.dispose();
    }
  });

  it('reports a server\'s task capabilities only once it is connected, and lists tools with their task support', async () => {
    assert.equal(w.service.servers()[0].tasks, undefined);
    assert.equal(w.service.servers()[0].state, 'idle');
    assert.equal(w.service.cannotStart(demoId, 'nope'), undefined, 'not known before its tools are listed: not connected for it');
    const tools = await w.service.tools(demoId);
    // What a chat agent's start asks the user: nothing for a tool that the list says cannot start as a task.
    // With the refusal starting it would give (ux14 F4: the chat tool's call refuses with it, unasked).
    assert.deepEqual(
      ['nope', 'get-time', 'build-project', 'quick-echo'].map((name) => w.service.cannotStart(demoId, name)?.message),
      ['Server "demo" has no tool named "nope".', 'Cannot call "get-time" on "demo": the tool does not support running as a task.', undefined, undefined],
    );
    const by = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([by.get('build-project')?.taskSupport, by.get('build-project')?.runsAsTask], ['required', true]);
    assert.deepEqual([by.get('quick-echo')?.taskSupport, by.get('quick-echo')?.runsAsTask], ['optional', true]);
    assert.deepEqual([by.get('get-time')?.taskSupport, by.get('get-time')?.runsAsTask], ['forbidden', false]);
    assert.equal((by.get('build-project')?.inputSchema.properties as Record<string, unknown>).project !== undefined, true);
    assert.deepEqual(w.service.servers()[0].tasks, { toolCalls: true, list: true, cancel: true });
    assert.equal(w.service.servers()[0].state, 'connected');
  });

  it('starts a task and returns at once (working, with the immediate response); the result comes later through a bounded wait', async () => {
    // A build that outlasts these checks however slow the machine (cancelled after them)...
    const t = await w.service.start(demoId, 'build-project', { arguments: { project: 'api', durationMs: 600_000 }, origin: 'chat', preference: 'task' });
    assert.equal(t.status, 'working', 'control returns before the task ended');
    assert.equal(t.origin, 'chat');
    assert.equal(t.kind, 'task');
    assert.match(t.immediateResponse ?? '', /Building api in the background/);
    assert.equal(w.engine.get(t.id)?.origin, 'chat', 'the engine tracks it as started by chat');

    const now = await w.service.result(t.id, 0);
    assert.equal(now.done, false);
    assert.equal(now.task.status, 'working');

    const short = await w.service.result(t.id, 200);
    assert.equal(short.done, false, 'a wait shorter than the task returns the status, not an error');
    await w.service.cancel(t.id);

    // ...and a short one, whose result a bounded wait brings.
    const quick = await w.service.start(demoId, 'build-project', { arguments: { project: 'api', durationMs: 300 }, origin: 'chat', preference: 'task' });
    const r = await w.service.result(quick.id, 10_000);
    assert.equal(r.done, true);
    assert.equal(r.task.status, 'completed');
    assert.equal(r.task.hasResult, true);
    assert.equal(r.outcome?.kind, 'result');
    assert.match(JSON.stringify(r.outcome), /Build of api succeeded/);
  });

  it('a ttl in seconds reaches the server as whole milliseconds (1.2345 s was sent as 1234.5 ms)', async () => {
    const t = await w.service.start(demoId, 'long-running-scan', { arguments: { durationMs: 60_000 }, ttlSeconds: 1.2345, origin: 'api', preference: 'task' });
    try {
      assert.equal(t.ttl, 1235, 'the demo server keeps the ttl it is asked for, under its cap');
    } finally {
      await w.service.cancel(t.id);
    }
  });

  it('a task\'s info holds what TaskInfo declares and no more: not the ttl its call asked for, which the engine keeps for Run Again, nor why an answer was not sent', async () => {
    const t = await w.service.start(demoId, 'long-running-scan', { arguments: { durationMs: 60_000 }, ttlSeconds: 90, origin: 'api', preference: 'task' });
    try {
      assert.equal(w.engine.get(t.id)?.requestedTtl, 90_000, 'the engine keeps what was asked');
      const declared: (keyof TaskInfo)[] = ['id', 'serverId', 'serverLabel', 'taskId', 'kind', 'toolName', 'arguments', 'status', 'lastServerStatus', 'statusMessage', 'progress', 'createdAt', 'lastUpdatedAt', 'ttl', 'pollInterval', 'immediateResponse', 'origin', 'hasResult', 'note'];
      for (const info of [t, w.service.task(t.id), w.service.tasks().find((x) => x.id === t.id), w.service.findTask(t.taskId)]) {
        assert.deepEqual(Object.keys(info ?? {}).filter((k) => !declared.includes(k as keyof TaskInfo)), [], 'members TaskInfo does not declare');
      }
      // Nor why an answer to its question was not sent (the view's Send Again), which the engine marks.
      const e = w.engine;
      const marked = <T extends object | undefined>(x: T) => x && { ...x, unsent: 'Server "demo" did not take the answer' };
      const seen = new TasksService({
        engine: { callTool: e.callTool.bind(e), fetchResult: e.fetchResult.bind(e), cancel: e.cancel.bind(e), onDidChange: e.onDidChange, onDidRemove: e.onDidRemove, get: (k) => marked(e.get(k)), list: () => e.list().map(marked) },
        servers: w.servers,
        logger: w.log,
      });
      for (const info of [seen.task(t.id), seen.tasks().find((x) => x.id === t.id), seen.findTask(t.taskId)]) {
        assert.deepEqual(Object.keys(info ?? {}).filter((k) => !declared.includes(k as keyof TaskInfo)), [], 'members TaskInfo does not declare, an answer not sent marked');
      }
      seen.dispose();
    } finally {
      await w.service.cancel(t.id);
    }
  });

  it('a plain-call-only tool is refused as a task', async () => {
    await assert.rejects(w.service.start(demoId, 'get-time', { origin: 'chat', preference: 'task' }), /does not support running as a task/);
    // Typed, so each front end adds where its tools are listed (mcpTasks_listTools, getTools()).
    await assert.rejects(w.service.start(demoId, 'no-such-tool', { origin: 'chat' }), (e: Error) => e instanceof UnknownToolError && /^Server "demo" has no tool named "no-such-tool"\.$/.test(e.message));
  });

  it('a failed task\'s isError result is returned as its outcome', async () => {
    const t = await w.service.start(demoId, 'failing-job', { arguments: { failAfterMs: 100 }, origin: 'api' });
    const r = await w.service.result(t.id, 10_000);
    assert.equal(r.task.status, 'failed');
    assert.equal(r.outcome?.kind === 'result' && r.outcome.result.isError, true);
  });

  it('cancels a task; a cancelled task has no result, and the answer says so', async () => {
    const t = await w.service.start(demoId, 'long-running-scan', { arguments: { durationMs: 60_000 }, origin: 'chat' });
    const c = await w.service.cancel(t.id);
    assert.equal(c.status, 'cancelled');
    const r = await w.service.result(t.id, 1000);
    assert.deepEqual([r.done, r.outcome, r.fetchError], [true, undefined, 'The task was cancelled; it has no result.']);
    await assert.rejects(w.service.cancel(t.id), /already ended \(cancelled\)/);
    await assert.rejects(w.service.cancel('unknown'), (e: Error) => e instanceof UnknownTaskError && /No task with id "unknown" is tracked/.test(e.message));
  });

  it('finds a task by the server\'s task id, with or without the server', async () => {
    const t = await w.service.start(demoId, 'quick-echo', { arguments: { message: 'hi' }, origin: 'chat', preference: 'task' });
    assert.equal(w.service.findTask(t.taskId).id, t.id);
    assert.equal(w.service.findTask(t.taskId, 'demo').id, t.id);
    assert.throws(() => w.service.findTask('nope'), (e: Error) => e instanceof UnknownTaskError && e.message === 'No task "nope" is tracked.');
    assert.throws(() => w.service.findTask(t.taskId, 'other'), /No MCP server "other"/);
    assert.equal(w.service.tasks()[0].id, t.id, 'newest first');
  });

  it('a wait ends when its signal aborts, and every wait ends when the service is disposed', async () => {
    const t = await w.service.start(demoId, 'long-running-scan', { arguments: { durationMs: 60_000 }, origin: 'api' });
    // Waits longer than the test may last: only the abort, or the dispose, can end them in time.
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const r = await w.service.result(t.id, 600_000, ac.signal);
    assert.equal(r.done, false);
    // A second service over the same engine, disposed while it waits (the window closing).
    const other = new TasksService({ engine: w.engine, servers: w.servers, logger: w.log });
    const waiting = other.result(t.id, 600_000);
    setTimeout(() => other.dispose(), 100);
    const r2 = await waiting;
    assert.equal(r2.done, false);
    await w.service.cancel(t.id);
  });

  it('many waits at once add no listener each to the signals they share (the service\'s lifetime, a caller\'s): no MaxListenersExceededWarning', async () => {
    const t = await w.service.start(demoId, 'long-running-scan', { arguments: { durationMs: 60_000 }, origin: 'api' });
    const warnings: string[] = [];
    const onWarning = (e: Error) => warnings.push(`${e.name}: ${e.message}`);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      const waits = Array.from({ length: 12 }, () => w.service.result(t.id, 20_000, ac.signal));
      await new Promise((r) => setTimeout(r, 100)); // warnings are emitted on a later tick
      ac.abort();
      assert.deepEqual((await Promise.all(waits)).map((r) => r.done), Array(12).fill(false));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
      await w.service.cancel(t.id);
    }
  });

  it('change events carry copies: a listener cannot change what others or the engine see', async () => {
    const seen: TaskInfo[] = [];
    const sub = w.service.onDidChangeTask((t) => {
      seen.push(t);
      t.status = 'failed';
      (t as { arguments?: Record<string, unknown> }).arguments!.message = 'changed';
    });
    const throwing = w.service.onDidChangeTask(() => {
      throw new Error('listener bug');
    });
    const t = await w.service.start(demoId, 'quick-echo', { arguments: { message: 'mine' }, origin: 'api', preference: 'task' });
    const r = await w.service.result(t.id, 10_000);
    sub.dispose();
    throwing.dispose();
    assert.ok(seen.some((s) => s.id === t.id));
    assert.equal(r.task.status, 'completed');
    assert.deepEqual(w.engine.get(t.id)?.arguments, { message: 'mine' });
    assert.ok(w.log.has('error', /A listener of task changes failed: listener bug/));
  });
});

describe('TasksService: the order of tasks', () => {
  // An agent's calls in parallel start tasks in one millisecond: the view lists them newest first
  // (the last started first), and so do the API, the chat tools and the Cancel Task and Fetch Task Result picks.
  it('tasks started in one millisecond are listed newest first, as the view lists them: #3, #2, #1, after a newer one', () => {
    const w = open();
    try {
      const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
      const task = (taskId: string, createdAt: string) => ({ key: `demo\u0000${taskId}`, serverId: 'demo', taskId, kind: 'task' as const, toolName: 'build', status: 'completed' as const, createdAt, lastUpdatedAt: createdAt, ttl: null, origin: 'api' as const });
      w.engine.restore([task('1', at(1)), task('2', at(1)), task('new', at(2)), task('3', at(1))]);
      assert.deepEqual(w.service.tasks().map((t) => t.taskId), ['new', '3', '2', '1']);
    } finally {
      w.close();
    }
  });
});

describe('TasksService: a quiet listing leaves a server the user disconnected alone', function () {
  this.timeout(30000);
  it('tools(quiet) of a server the user disconnected rejects without connecting it; named (not quiet), it connects', async () => {
    const w = open();
    try {
      const id = w.service.servers()[0].id;
      await w.service.tools(id);
      assert.equal(w.service.servers()[0].disconnectedByUser, undefined, 'connected');
      await w.servers.disconnect(id);
      assert.deepEqual([w.service.servers()[0].state, w.service.servers()[0].disconnectedByUser], ['idle', true], 'idle as one never connected, but told apart');
      await assert.rejects(w.service.tools(id, undefined, { quiet: true }), HeldByUserError);
      assert.equal(w.servers.get(id)?.state.kind, 'idle', 'not connected again by a chat listing of every server');
      assert.ok((await w.service.tools(id)).length > 0);
      assert.equal(w.servers.get(id)?.state.kind, 'connected');
      assert.equal(w.service.servers()[0].disconnectedByUser, undefined, 'connected again');
    } finally {
      w.close();
    }
  });
});

describe('TasksService: getResult leaves a server the user disconnected alone', function () {
  this.timeout(30000);
  it('the result of an ended task and the wait for a live one, on a remote server the user disconnected, do not connect it again: fetchError says why, at once; the chat answer too; connected by the user, the result comes', async () => {
    const peer = await startPeer([taskLab, 'http']);
    const c = openClient({ servers: { lab: { type: 'http', url: `http://127.0.0.1:${peer.port}/mcp` } }, engine: { autoFetchResults: () => false } });
    const service = new TasksService({ engine: c.engine, servers: c.servers, logger: c.log });
    try {
      const id = c.id('lab');
      const quick = await service.start(id, 'work', { origin: 'api', preference: 'task', arguments: { durationMs: 100 } });
      const long = await service.start(id, 'work', { origin: 'chat', preference: 'task', arguments: { durationMs: 60_000 } });
      await c.until(quick.id, (t) => t.status === 'completed', 'the quick task to complete');
      await c.servers.disconnect(id);
      const why = 'Server "lab" was disconnected by the user: connect it to follow its tasks again.';
      const ended = await service.result(quick.id, 20_000);
      assert.deepEqual([ended.done, ended.outcome, ended.fetchError], [true, undefined, why]);
      // Without a wait (getResult's default, and the chat tool's), at once too.
      const now = await service.result(long.id);
      assert.deepEqual([now.done, now.task.status, now.fetchError], [false, 'working', why], 'said without a wait');
      const live = await service.result(long.id, 20_000);
      assert.deepEqual([live.done, live.task.status, live.fetchError], [false, 'working', why], 'no wait for a task nothing follows');
      assert.equal(c.servers.get(id)?.state.kind, 'idle', 'not connected again');
      const text = formatResult(live, { seconds: 20, capped: false }).text.split('\n');
      assert.deepEqual([text[0], text.at(-1)], ['The task had not ended when last checked.', why]);
      await c.servers.getSession(id); // the user's Connect
      const r = await service.result(quick.id, 20_000);
      assert.equal(r.outcome?.kind, 'result', JSON.stringify(r));
    } finally {
      service.dispose();
      await c.close();
      await peer.stop();
    }
  });
});

describe('TasksService: getResult of a task whose server\'s input the user dismissed', function () {
  this.timeout(30000);
  it('without a wait, fetchError says at once that nothing follows the task until the server is connected (the prompt is not brought back)', async () => {
    let prompts = 0;
    const config = parseMcpJson(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'key', description: 'Key', password: true }],
        servers: { remote: { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: { 'x-key': '${input:key}' } } },
      }),
      { kind: 'workspaceFolder', folderName: 'app', folderPath: os.tmpdir(), file: '/nowhere/.vscode/mcp.json' },
    );
    const c = openClient({ config, promptInput: async () => void prompts++ });
    const service = new TasksService({ engine: c.engine, servers: c.servers, logger: c.log });
    try {
      const id = c.id('remote');
      const at = new Date().toISOString();
      c.engine.restore([{ key: `${id}\u0000t-1`, serverId: id, taskId: 't-1', kind: 'task', toolName: 'work', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'api' }]);
      await waitFor(() => prompts === 1 && c.servers.get(id)?.state.kind === 'idle', 'the input to be asked and dismissed');
      const r = await service.result(`${id}\u0000t-1`);
      assert.equal(r.done, false);
      assert.match(r.fetchError ?? '', /^No value was given for input "key"\. Connect the server to be asked again\.$/);
      assert.equal(prompts, 1, 'not asked again');
    } finally {
      service.dispose();
      await c.close();
    }
  });
});

describe('TasksService over a scripted server: ids that change hands', () => {
  const harness = harnessesForEachTest();
  const services: TasksService[] = [];
  afterEach(() => services.splice(0).forEach((s) => s.dispose()));

  /** The scripted server "fake" as the one configured server, and the service over its engine. */
  async function scripted(options: HarnessOptions) {
    const h = await harness(options);
    const snapshot = { id: 'fake', name: 'fake', label: 'fake', type: 'stdio', source: { kind: 'settings' }, state: { kind: 'connected' } } as unknown as ServerSnapshot;
    const servers = { list: () => [snapshot], get: () => snapshot, getSession: async () => h.session, peekSession: () => h.session, label: () => 'fake', heldWhy: () => undefined, isConfigured: () => true };
    const service = new TasksService({ engine: h.engine, servers, logger: h.log });
    services.push(service);
    return { h, service };
  }

  it('a plain call the server required as a task: the id the caller got leads to the task; its wait, its result and findTask follow it', async () => {
    let answer!: () => void;
    const refused = new Promise<void>((r) => (answer = r));
    const { h, service } = await scripted({
      server: {
        pollInterval: NO_POLL,
        plainCall: async () => {
          await refused;
          throw new RpcError(-32600, 'Task augmentation required for tools/call requests');
        },
      },
    });
    const call = await service.start('fake', 'optional-tool', { origin: 'api', preference: 'direct' });
    assert.equal(call.kind, 'direct');
    const waiting = service.result(call.id, 10_000);
    answer();
    await waitFor(() => h.engine.list().some((t) => t.kind === 'task'), 'the retry as a task');
    const task = h.engine.list()[0];
    assert.equal(service.findTask(call.taskId).id, task.key, 'the chat tools find the task by the id they were given');
    h.server.complete(task.taskId, { content: [{ type: 'text', text: 'done as a task' }] });
    const r = await waiting;
    assert.equal(r.done, true, 'the wait followed the call into its task');
    assert.equal(r.task.id, task.key);
    assert.deepEqual(r.outcome?.kind === 'result' && r.outcome.result.content, [{ type: 'text', text: 'done as a task' }]);
  });

  it('a cancel asked through the API or a chat tool is logged as theirs, not as the user\'s click in the view', async () => {
    const { h, service } = await scripted({ server: { pollInterval: NO_POLL } });
    const api = await service.start('fake', 'required-tool', { origin: 'api' });
    const chat = await service.start('fake', 'required-tool', { origin: 'chat' });
    await service.cancel(api.id, undefined, 'by another extension');
    await service.cancel(chat.id, undefined, 'through a chat tool');
    for (const [t, by] of [[api, 'by another extension'], [chat, 'through a chat tool']] as const) {
      assert.ok(h.log.has('info', new RegExp(`^\\[fake\\] Task ${t.taskId}: cancel requested ${by}; `)), h.log.text());
    }
  });

  it('T-LIFE-5: a task that ended with the message it had while working is answered without it (the API, the chat tools)', async () => {
    const { h, service } = await scripted({ server: { pollInterval: 10 } });
    const t = await service.start('fake', 'required-tool', { origin: 'chat' });
    h.server.setStatus(t.taskId, 'working', 'Generating report…');
    await waitFor(() => service.task(t.id)?.statusMessage === 'Generating report…', 'the working message');
    h.server.complete(t.taskId, undefined, 'Generating report…');
    await waitFor(() => service.task(t.id)?.status === 'completed', 'the end');
    assert.equal(service.task(t.id)?.statusMessage, undefined);
    assert.doesNotMatch(formatTask(service.task(t.id)!).text, /Generating/);
  });

  it('the result of an ended task whose server does not send it: the request ends when its signal aborts, instead of hanging', async () => {
    const { h, service } = await scripted({ server: { pollInterval: 10 }, engine: { autoFetchResults: () => false } });
    const t = await service.start('fake', 'required-tool', { origin: 'chat' });
    h.server.complete(t.taskId);
    await waitFor(() => service.task(t.id)?.status === 'completed', 'the task to end');
    h.server.override('tasks/result', () => new Promise(() => undefined)); // never answers
    const r = await service.result(t.id, 0, AbortSignal.timeout(100));
    assert.equal(r.done, true);
    assert.equal(r.outcome, undefined);
    assert.match(r.fetchError ?? '', /aborted|timeout/i);
  });

  it('a wait longer than setTimeout\'s longest delay (30 days) arms no timer beyond it, and still ends when the task does', async () => {
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const timers = recordTimerDelays();
    try {
      const { h, service } = await scripted({ server: { pollInterval: NO_POLL } });
      const t = await service.start('fake', 'required-tool', { origin: 'api' });
      let ended = false;
      const waiting = service.result(t.id, 30 * 24 * 3600_000).then((r) => ((ended = true), r));
      await clock.tickAsync(1_000);
      assert.equal(ended, false, 'still waiting for the task');
      assert.deepEqual(timers.delays.filter((d) => d > MAX_TIMER_DELAY_MS), [], 'no delay Node would fire after 1 ms');
      h.server.complete(t.taskId, { content: [{ type: 'text', text: 'a month later' }] });
      const r = await waiting;
      assert.equal(r.done, true);
      assert.deepEqual(r.outcome?.kind === 'result' && r.outcome.result.content, [{ type: 'text', text: 'a month later' }]);
    } finally {
      timers.restore();
      clock.uninstall();
    }
  });

  it('a result whose structuredContent is nested 10,000 deep: returned (its deepest parts a placeholder) and told to the model, not a RangeError', async () => {
    const { h, service } = await scripted({ server: { pollInterval: 10 } });
    const t = await service.start('fake', 'required-tool', { origin: 'chat' });
    await completeWithDeepResult(h, t.taskId);
    const r = await service.result(t.id, 0);
    assert.equal(r.outcome?.kind, 'result');
    assert.deepEqual(r.outcome?.kind === 'result' && r.outcome.result.content, [{ type: 'text', text: 'ok' }]);
    assert.match(JSON.stringify(r.outcome), /"<nested too deeply to show>"/);
    const answer = formatResult(r, { seconds: 0, capped: false });
    assert.match(answer.text, /The result:\nok/);
  });

  it('cancelling a direct call answers it cancelled, not still working (its request ends a moment after the abort)', async () => {
    const { service } = await scripted({ server: { pollInterval: NO_POLL, plainCall: () => new Promise(() => undefined) } });
    const call = await service.start('fake', 'optional-tool', { origin: 'api', preference: 'direct' });
    assert.equal(call.kind, 'direct');
    const c = await service.cancel(call.id);
    assert.equal(c.status, 'cancelled', 'the answer the API and mcpTasks_cancelTask give');
    assert.equal(service.task(call.id)?.status, 'cancelled');
  });

  it('findTask: the id of an ended task that its server gave to a new one names the new one (T-RCV-3)', async () => {
    const { h, service } = await scripted({ server: { pollInterval: 10 } });
    const first = await service.start('fake', 'required-tool', { origin: 'chat' });
    h.server.complete(first.taskId);
    await waitFor(() => service.task(first.id)?.status === 'completed', 'the first task to end');
    h.server.forget();
    h.server.override('tools/call', () => ({ task: h.server.createTask('required-tool', { taskId: first.taskId }) }));
    const second = await service.start('fake', 'required-tool', { origin: 'chat' });
    assert.equal(service.tasks().length, 2);
    assert.equal(service.findTask(first.taskId).status, 'working', 'the new task, not "several servers have a task"');
    assert.equal(service.findTask(first.taskId, 'fake').id, second.id);
  });
});
