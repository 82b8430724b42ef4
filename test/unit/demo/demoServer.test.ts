// The demo server (demo/server.mjs) driven by the SDK's own client, as a real child process over
// stdio and over Streamable HTTP. Other tests and the benchmarks rely on what is pinned here.
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  CallToolResultSchema,
  CreateMessageRequestSchema,
  CreateTaskResultSchema,
  ElicitRequestSchema,
  McpError,
  RELATED_TASK_META_KEY,
  TaskStatusNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
  type Progress,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import { waitFor } from '../helpers/logger';

const SERVER = path.resolve(__dirname, '../../../../demo/server.mjs');
// A short pollInterval keeps the suite fast; the default (1 s) is what users see.
const SERVER_FLAGS = ['--poll-interval', '100', '--quiet'];

const DEPLOY_ANSWERS = { service: 'web-api', replicas: 3, region: 'us-east', dryRun: true };
const MODEL_ANSWER: CreateMessageResult = { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'Tasks run tools in the background.' } };

/** A connected SDK client plus what the server sent it. */
interface Harness {
  client: Client;
  elicitations: ElicitRequest[];
  samplings: Array<{ params: { task?: unknown; _meta?: Record<string, unknown> } }>;
  statuses: Task[];
  elicitAnswer: ElicitResult;
  close(): Promise<void>;
}

function newClient(capabilities: ClientCapabilities, h: Omit<Harness, 'client' | 'close'>, timers: Set<NodeJS.Timeout>): Client {
  const asTasks = capabilities.tasks !== undefined;
  const client = new Client({ name: 'demo-server-test', version: '1.0.0' }, { capabilities, ...(asTasks && { taskStore: new InMemoryTaskStore() }) });
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    h.elicitations.push(request);
    return h.elicitAnswer;
  });
  client.setRequestHandler(CreateMessageRequestSchema, async (request, extra) => {
    h.samplings.push(request);
    if (!request.params.task) return MODEL_ANSWER;
    // Task-augmented sampling: answer a task at once, complete it a little later.
    const store = extra.taskStore!;
    const task = await store.createTask({ ttl: request.params.task.ttl });
    timers.add(setTimeout(() => void store.storeTaskResult(task.taskId, 'completed', MODEL_ANSWER), 300));
    return { task } as never; // the handler's declared type knows only the plain result
  });
  client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void h.statuses.push(n.params));
  return client;
}

const FULL_CAPS: ClientCapabilities = { elicitation: { form: {} }, sampling: {} };
const TASK_SAMPLING_CAPS: ClientCapabilities = { ...FULL_CAPS, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} } } } };

async function connectStdio(capabilities = FULL_CAPS): Promise<Harness> {
  const timers = new Set<NodeJS.Timeout>();
  const h = { elicitations: [], samplings: [], statuses: [], elicitAnswer: { action: 'accept', content: DEPLOY_ANSWERS } } as Omit<Harness, 'client' | 'close'>;
  const client = newClient(capabilities, h, timers);
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio', ...SERVER_FLAGS], stderr: 'inherit' }));
  return Object.assign(h, {
    client,
    close: async () => {
      timers.forEach(clearTimeout);
      await client.close(); // ends the server's stdin: it exits at once
    },
  });
}

/** Starts `server.mjs http --port 0` and resolves with the port it prints once listening. */
function startHttpServer(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [SERVER, 'http', '--port', '0', ...SERVER_FLAGS], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /^listening (\d+)$/m.exec(out);
      if (match) {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve({ child, port: Number(match[1]) });
      }
    };
    const onExit = (code: number | null) => reject(new Error(`demo server exited (${code}) before listening; stdout: ${out}`));
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Runs a tool as a task through the SDK's experimental stream and collects everything it yields. */
async function runAsTask(client: Client, name: string, args: Record<string, unknown>, progress?: Progress[]) {
  const messages = [];
  const stream = client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, {
    task: { ttl: 60_000 },
    ...(progress && { onprogress: (p: Progress) => void progress.push(p) }),
  });
  for await (const message of stream) messages.push(message);
  const created = messages.find((m) => m.type === 'taskCreated');
  assert.ok(created, `no task was created for ${name}: ${JSON.stringify(messages)}`);
  const last = messages.at(-1)!;
  return { taskId: created.task.taskId, created: created.task, messages, last };
}

function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

async function rpcErrorOf(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    (value) => assert.fail(`expected a JSON-RPC error, got ${JSON.stringify(value)}`),
    (e: unknown) => e,
  );
  assert.ok(error instanceof McpError, `expected McpError, got ${String(error)}`);
  return error;
}

/** The behaviour every transport must show. */
function commonTests(harness: () => Harness) {
  it('T-CAP-1, T-TOOL-2..4: declares tasks and the right taskSupport for each tool', async () => {
    const { client } = harness();
    assert.deepEqual(client.getServerCapabilities()?.tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.deepEqual(support, {
      'build-project': 'required',
      'ask-deploy-target': 'required',
      'summarize-with-model': 'required',
      'failing-job': 'required',
      'lint-with-errors': 'optional',
      'long-running-scan': 'required',
      'quick-echo': 'optional',
      'get-time': 'forbidden',
    });
    for (const tool of tools) assert.ok(tool.title && tool.description && tool.inputSchema.type === 'object', `${tool.name} lacks title, description or schema`);
  });

  it('build-project runs as a task through its stages and completes with a summary', async () => {
    const { client, statuses } = harness();
    const progress: Progress[] = [];
    const run = await runAsTask(client, 'build-project', { project: 'shop', durationMs: 600 }, progress);
    assert.equal(run.created.status, 'working'); // T-LIFE-1
    assert.equal(run.created.pollInterval, 100);
    assert.equal(run.last.type, 'result');
    assert.match(textOf(run.last.result as CallToolResult), /^Build of shop succeeded in \d+\.\d s\./);
    const task = await client.experimental.tasks.getTask(run.taskId);
    assert.equal(task.status, 'completed');
    assert.match(task.statusMessage ?? '', /^Build succeeded/);
    // Stages are visible as status notifications and as progress on the request's token.
    const messages = statuses.filter((s) => s.taskId === run.taskId).map((s) => s.statusMessage);
    assert.ok(messages.includes('Resolving dependencies…') && messages.includes('Compiling 2/3…'), `status messages: ${messages}`);
    assert.deepEqual(progress.map((p) => p.progress), [0, 1, 2, 3, 4, 5, 6]);
    assert.ok(progress.every((p) => p.total === 6));
  });

  it("long-running-scan's status message counts files and leaves the percentage to its progress: the row showed two that disagreed (\"Scanning… 0% (0 files) · 1%\")", async () => {
    const { client, statuses } = harness();
    const progress: Progress[] = [];
    const run = await runAsTask(client, 'long-running-scan', { durationMs: 1000 }, progress);
    const working = statuses.filter((s) => s.taskId === run.taskId && s.status === 'working').map((s) => s.statusMessage);
    assert.deepEqual(working, ['Scanning… 0 files']);
    assert.deepEqual(progress.map((p) => [p.progress, p.total]), [[0, 1], [1, 1]]);
  });

  it('T-REQ-3: ask-deploy-target goes input_required, elicits a form through tasks/result and completes with the answers', async () => {
    const h = harness();
    h.elicitAnswer = { action: 'accept', content: DEPLOY_ANSWERS };
    const before = h.elicitations.length;
    const run = await runAsTask(h.client, 'ask-deploy-target', { defaultService: 'web' });
    assert.ok(run.messages.some((m) => m.type === 'taskStatus' && m.task.status === 'input_required'), 'never went input_required');
    assert.equal(h.elicitations.length, before + 1);
    const { params } = h.elicitations.at(-1)!;
    assert.deepEqual(params._meta?.[RELATED_TASK_META_KEY], { taskId: run.taskId });
    assert.ok(params.mode === 'form');
    const props = params.requestedSchema.properties as Record<string, Record<string, unknown>>;
    assert.deepEqual(
      Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.type])),
      { service: 'string', replicas: 'integer', region: 'string', dryRun: 'boolean' },
    );
    assert.equal(props.service.minLength, 2);
    assert.equal(props.service.default, 'web');
    assert.deepEqual([props.replicas.minimum, props.replicas.maximum], [1, 10]);
    assert.deepEqual((props.region.oneOf as Array<{ const: string }>).map((o) => o.const), ['eu-west', 'us-east', 'ap-south']);
    assert.equal(run.last.type, 'result');
    const result = run.last.result as CallToolResult;
    assert.deepEqual(result.structuredContent, DEPLOY_ANSWERS);
    assert.match(textOf(result), /service=web-api, replicas=3, region=us-east, dryRun=true/);
    assert.equal((await h.client.experimental.tasks.getTask(run.taskId)).status, 'completed');
  });

  it('ask-deploy-target completes with an explanation when the user declines', async () => {
    const h = harness();
    h.elicitAnswer = { action: 'decline' };
    const run = await runAsTask(h.client, 'ask-deploy-target', {});
    assert.equal(run.last.type, 'result');
    assert.match(textOf(run.last.result as CallToolResult), /declined/);
    assert.equal((await h.client.experimental.tasks.getTask(run.taskId)).status, 'completed');
  });

  it('failing-job ends failed with a statusMessage and an isError result (T-REQ-10)', async () => {
    const { client } = harness();
    const run = await runAsTask(client, 'failing-job', { failAfterMs: 100 });
    assert.equal(run.last.type, 'error'); // the SDK stream reports a failed task as an error
    const task = await client.experimental.tasks.getTask(run.taskId);
    assert.equal(task.status, 'failed');
    assert.match(task.statusMessage ?? '', /^Step 2\/3 failed: config\/deploy\.yaml has 3 schema errors/);
    const result = await client.experimental.tasks.getTaskResult(run.taskId, CallToolResultSchema);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /Nothing was migrated/);
    assert.deepEqual(result._meta?.[RELATED_TASK_META_KEY], { taskId: run.taskId }); // T-REQ-4
  });

  it('lint-with-errors returns isError, called plainly and as a task', async () => {
    const { client } = harness();
    const plain = (await client.callTool({ name: 'lint-with-errors', arguments: { path: 'src/x.ts' } })) as CallToolResult;
    assert.equal(plain.isError, true);
    assert.match(textOf(plain), /ESLint found 3 problems .* in src\/x\.ts/);
    const run = await runAsTask(client, 'lint-with-errors', {});
    const task = await client.experimental.tasks.getTask(run.taskId);
    assert.equal(task.status, 'failed');
    assert.equal((await client.experimental.tasks.getTaskResult(run.taskId, CallToolResultSchema)).isError, true);
  });

  it('get-time answers a plain call and refuses a task (-32601)', async () => {
    const { client } = harness();
    const result = (await client.callTool({ name: 'get-time' })) as CallToolResult;
    const iso = textOf(result);
    assert.ok(Math.abs(Date.parse(iso) - Date.now()) < 60_000, `not a current time: ${iso}`);
    const error = await rpcErrorOf(client.request({ method: 'tools/call', params: { name: 'get-time', task: {} } }, CreateTaskResultSchema));
    assert.equal(error.code, -32601);
  });
}

describe('demo server', function () {
  this.timeout(15_000);

  describe('over stdio', () => {
    let h: Harness;
    before(async () => {
      h = await connectStdio();
    });
    after(async () => {
      await h?.close();
    });

    commonTests(() => h);

    it('T-TOOL-4: a required tool called without a task is refused with -32601', async () => {
      const error = await rpcErrorOf(h.client.request({ method: 'tools/call', params: { name: 'build-project' } }, CallToolResultSchema));
      assert.equal(error.code, -32601);
      assert.match(error.message, /must be called as a task/);
    });

    it('T-REQ-1: CreateTaskResult carries a model-immediate-response; ttl is honoured', async () => {
      const created = await h.client.request(
        { method: 'tools/call', params: { name: 'quick-echo', arguments: { message: 'x' }, task: { ttl: 5000 } } },
        CreateTaskResultSchema,
      );
      assert.equal(created.task.ttl, 5000);
      const failing = await h.client.request({ method: 'tools/call', params: { name: 'failing-job', arguments: { failAfterMs: 0 }, task: {} } }, CreateTaskResultSchema);
      assert.equal(typeof failing._meta?.['io.modelcontextprotocol/model-immediate-response'], 'string');
      assert.equal(failing.task.ttl, 3_600_000); // no ttl asked: one hour
    });

    it('failing-job in protocol-error mode: tasks/result answers the JSON-RPC error', async () => {
      const { task } = await h.client.request(
        { method: 'tools/call', params: { name: 'failing-job', arguments: { failAfterMs: 0, mode: 'protocol-error' }, task: {} } },
        CreateTaskResultSchema,
      );
      const error = await rpcErrorOf(h.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)); // blocks until terminal
      assert.equal(error.code, -32603);
      assert.match(error.message, /failing-job: Step 2\/3 failed/);
      assert.equal((await h.client.experimental.tasks.getTask(task.taskId)).status, 'failed');
    });

    it('quick-echo echoes 1 KB plainly and as a task', async () => {
      const message = 'é'.repeat(512) + 'x'.repeat(512);
      const plain = (await h.client.callTool({ name: 'quick-echo', arguments: { message } })) as CallToolResult;
      assert.equal(textOf(plain), message);
      const run = await runAsTask(h.client, 'quick-echo', { message });
      assert.equal(run.last.type, 'result');
      assert.equal(textOf(run.last.result as CallToolResult), message);
    });

    it('summarize-with-model samples with a plain request when the client has no sampling tasks', async () => {
      const run = await runAsTask(h.client, 'summarize-with-model', { text: 'Some long text.' });
      assert.equal(run.last.type, 'result');
      assert.equal(textOf(run.last.result as CallToolResult), `Summary by test-model:\n${MODEL_ANSWER.content.type === 'text' && MODEL_ANSWER.content.text}`);
      const request = h.samplings.at(-1)!;
      assert.equal(request.params.task, undefined);
      assert.deepEqual(request.params._meta?.[RELATED_TASK_META_KEY], { taskId: run.taskId });
    });

    it('T-REQ-7, T-RCV-6: long-running-scan is cancelled, and cancelling again gives -32602', async () => {
      const progress: Progress[] = [];
      let firstProgress!: () => void;
      const started = new Promise<void>((resolve) => (firstProgress = resolve));
      const { task } = await h.client.request({ method: 'tools/call', params: { name: 'long-running-scan', arguments: {}, task: {} } }, CreateTaskResultSchema, {
        onprogress: (p) => {
          progress.push(p);
          firstProgress();
        },
      });
      assert.equal(task.ttl, 30_000); // capped by ttlMs
      // A scan left running beside it: what the cancelled one would report, had it gone on.
      const control: Progress[] = [];
      const { task: other } = await h.client.request({ method: 'tools/call', params: { name: 'long-running-scan', arguments: {}, task: {} } }, CreateTaskResultSchema, {
        onprogress: (p) => control.push(p),
      });
      await started;
      const cancelled = await h.client.experimental.tasks.cancelTask(task.taskId);
      assert.equal(cancelled.status, 'cancelled');
      // The work stops: no more progress (it comes every second while scanning), while the other
      // scan reports twice more.
      const seen = progress.length;
      const reported = control.length;
      await waitFor(() => control.length >= reported + 2, 'two more reports of the other scan', 20_000);
      assert.equal(progress.length, seen, 'the scan went on after cancel');
      await h.client.experimental.tasks.cancelTask(other.taskId);
      // T-REQ-6: follow the cursor pages (this session has more tasks than a page holds by now).
      const listed: Task[] = [];
      let cursor: string | undefined;
      do {
        const page = await h.client.experimental.tasks.listTasks(cursor);
        listed.push(...page.tasks);
        cursor = page.nextCursor;
      } while (cursor);
      assert.equal(listed.find((t) => t.taskId === task.taskId)?.status, 'cancelled');
      const error = await rpcErrorOf(h.client.experimental.tasks.cancelTask(task.taskId));
      assert.equal(error.code, -32602);
    });

    it('T-RCV-7: long-running-scan expires at its ttl while working; then -32602 "expired"', async () => {
      const { task } = await h.client.request(
        { method: 'tools/call', params: { name: 'long-running-scan', arguments: { ttlMs: 1000 }, task: { ttl: 60_000 } } },
        CreateTaskResultSchema,
      );
      assert.equal(task.ttl, 1000);
      const started = Date.now();
      let error: McpError | undefined;
      let working = 0;
      // Poll like a client would until the server forgets the task.
      while (!error && Date.now() - started < 5000) {
        const current = await h.client.experimental.tasks.getTask(task.taskId).catch((e: McpError) => (error = e));
        if (!error) {
          assert.equal((current as Task).status, 'working');
          working++;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      assert.ok(error, 'task did not expire');
      assert.equal(error.code, -32602);
      assert.match(error.message, /Task has expired/);
      // Not forgotten at once (not timed: timings belong in benchmarks): the first poll, right after
      // the task was made, saw it working.
      assert.ok(working > 0, 'the task was forgotten before its first poll');
    });
  });

  describe('summarize-with-model with a client that runs sampling as tasks (stdio)', () => {
    let h: Harness;
    before(async () => {
      h = await connectStdio(TASK_SAMPLING_CAPS);
    });
    after(async () => {
      await h?.close();
    });

    it('T-CAP-2: sends a task-augmented sampling request and polls the client task', async () => {
      const run = await runAsTask(h.client, 'summarize-with-model', {});
      assert.equal(run.last.type, 'result');
      assert.match(textOf(run.last.result as CallToolResult), /^Summary by test-model \(sampled as a client task\):/);
      assert.equal(h.samplings.length, 1);
      assert.ok(h.samplings[0].params.task, 'sampling request was not task-augmented');
    });
  });

  describe('over Streamable HTTP', () => {
    let server: { child: ChildProcess; port: number } | undefined;
    let h: Harness;
    before(async () => {
      server = await startHttpServer();
      const timers = new Set<NodeJS.Timeout>();
      const base = { elicitations: [], samplings: [], statuses: [], elicitAnswer: { action: 'accept', content: DEPLOY_ANSWERS } } as Omit<Harness, 'client' | 'close'>;
      const client = newClient(FULL_CAPS, base, timers);
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`)));
      h = Object.assign(base, {
        client,
        close: async () => {
          timers.forEach(clearTimeout);
          await client.close();
        },
      });
    });
    after(async () => {
      await h?.close();
      if (server) await stopProcess(server.child);
    });

    commonTests(() => h);

    it('refuses a foreign Host header (DNS rebinding)', async () => {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const request = http.request({ host: '127.0.0.1', port: server!.port, path: '/mcp', method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (response) => {
          response.resume();
          resolve(response.statusCode);
        });
        request.on('error', reject);
        request.end('{}');
      });
      assert.equal(status, 403);
    });
  });
});
