#!/usr/bin/env node
/**
 * Demo MCP server for MCP Tasks: a handful of tools that exercise every part of the Tasks
 * utility (protocol revision 2025-11-25): stages with status messages and progress, a form
 * elicitation through `tasks/result`, sampling (task-augmented when the client allows it),
 * failure, `isError` results, expiry, and fast plain calls for benchmarks.
 *
 *   node demo/server.mjs [stdio]            stdio (default); stdout is the protocol channel
 *   node demo/server.mjs http [--port N]    Streamable HTTP on 127.0.0.1:N/mcp (N=0: any free port),
 *                                           prints `listening <port>` on stdout once ready
 *   --poll-interval MS   pollInterval suggested in tasks (default 1000)
 *   --quiet              no lifecycle log on stderr
 *
 * Built on the official SDK (`McpServer.experimental.tasks.registerToolTask`, InMemoryTaskStore,
 * InMemoryTaskMessageQueue). Where the SDK 1.32 departs from the spec, a thin wrapper around its
 * handlers restores the spec's behaviour; see demo/README.md for the list.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import http from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskMessageQueue, InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import {
  CallToolRequestSchema,
  CancelTaskRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  RELATED_TASK_META_KEY,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

z.config(en()); // zod/mini ships without messages; argument errors should say what is wrong

// ---------------------------------------------------------------------------------------------
// Settings
// ---------------------------------------------------------------------------------------------

const argv = process.argv.slice(2);
const MODE = argv[0] && !argv[0].startsWith('--') ? argv[0] : 'stdio';
const PORT = intFlag('port', 0);
const POLL_INTERVAL_MS = intFlag('poll-interval', 1000);
const QUIET = argv.includes('--quiet');

/** ttl given to a task when the requestor asks for none (the SDK store would keep it forever). */
const DEFAULT_TTL_MS = 60 * 60_000;
/** A shorter ttl is raised to this, so a result can still be fetched (0 would mean "keep forever" to the SDK store). */
const MIN_TTL_MS = 1000;
/** No task outlives this, whatever the requestor asks (T-RCV-7, T-RCV-9). */
const MAX_TTL_MS = 24 * 60 * 60_000;
/** Expired ids remembered per session, so tasks/get can say "expired" instead of "not found". */
const MAX_EXPIRED_REMEMBERED = 1000;
/** Past this, opening a session closes the least recently used one (benchmarks open many). */
const MAX_HTTP_SESSIONS = 200;
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const IMMEDIATE_RESPONSE_KEY = 'io.modelcontextprotocol/model-immediate-response';

function intFlag(name, fallback) {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) fail(`--${name} needs a non-negative integer, got ${argv[i + 1]}`);
  return value;
}

function fail(message) {
  process.stderr.write(`demo-server: ${message}\n`);
  process.exit(2);
}

/** Lifecycle log. Always stderr: in stdio mode stdout carries the protocol. */
function log(message) {
  if (!QUIET) process.stderr.write(`[demo-server ${new Date().toISOString()}] ${message}\n`);
}

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

/** Resolves after `ms`, rejects with the signal's reason as soon as it aborts; never leaks the timer. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * A JSON-RPC error to throw from a handler. Not McpError: its message gets an "MCP error -326xx:"
 * prefix, and the client shows the message as is.
 */
function rpcError(code, message, data) {
  return Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
}

function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

const isTerminal = (status) => status === 'completed' || status === 'failed' || status === 'cancelled';
const text = (value) => ({ type: 'text', text: value });

// Extra facts carried on a stored result without being serialised (JSON ignores symbol keys).
const STATUS_MESSAGE = Symbol('statusMessage');
const RPC_ERROR = Symbol('rpcError');
function annotate(result, key, value) {
  Object.defineProperty(result, key, { value, enumerable: false });
  return result;
}

/** A CallToolResult that completes its task; `statusMessage` is what tasks/get shows afterwards. */
function toolResult(body, statusMessage, structuredContent) {
  const result = { content: [text(body)], ...(structuredContent && { structuredContent }) };
  return annotate(result, STATUS_MESSAGE, statusMessage);
}

/** An `isError` CallToolResult: its task ends `failed` with `statusMessage` (spec, "Task failure"). */
function toolError(body, statusMessage = body.split('\n')[0]) {
  return annotate({ content: [text(body)], isError: true }, STATUS_MESSAGE, statusMessage);
}

// ---------------------------------------------------------------------------------------------
// Task store
// ---------------------------------------------------------------------------------------------

/**
 * InMemoryTaskStore plus what the demo needs: every task's work gets an AbortSignal that fires on
 * cancel, expiry and shutdown; ttl is bounded; a failed task keeps a statusMessage; a result may
 * stand for a JSON-RPC error; expired ids are remembered so the error can say so.
 */
class DemoTaskStore extends InMemoryTaskStore {
  /** taskId -> AbortController of work still running. */
  #work = new Map();
  /** taskId -> ttl, for tasks deleted because their ttl ran out. */
  #expired = new Map();

  constructor() {
    super();
    if (!(this.tasks instanceof Map)) throw new Error('demo-server: InMemoryTaskStore internals changed (no `tasks` map)');
    // The SDK store deletes a task only when its ttl runs out (`cleanup()` uses clear()), so its
    // map's delete() is the one place to learn about expiry and stop the work it belonged to.
    const onExpired = (taskId, ttl) => this.#onExpired(taskId, ttl);
    this.tasks = new (class extends Map {
      delete(taskId) {
        const ttl = this.get(taskId)?.task.ttl;
        const deleted = super.delete(taskId);
        if (deleted) onExpired(taskId, ttl);
        return deleted;
      }
    })();
  }

  async createTask(params, requestId, request, sessionId) {
    const ttl = Math.min(Math.max(params.ttl ?? DEFAULT_TTL_MS, MIN_TTL_MS), MAX_TTL_MS);
    const task = await super.createTask({ ...params, ttl }, requestId, request, sessionId);
    this.#work.set(task.taskId, new AbortController());
    return task;
  }

  /** Aborts when the task is cancelled, expires, or the server shuts down. */
  signalOf(taskId) {
    return this.#work.get(taskId)?.signal ?? AbortSignal.abort(new Error('task is over'));
  }

  async updateTaskStatus(taskId, status, statusMessage, sessionId) {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    // tasks/cancel lands here: stop the work before the SDK answers the cancel (T-RCV-6).
    if (isTerminal(status)) this.#stop(taskId, `task ${status}`);
  }

  async storeTaskResult(taskId, status, result, sessionId) {
    await super.storeTaskResult(taskId, status, result, sessionId);
    this.#work.delete(taskId);
    const message = result[STATUS_MESSAGE];
    const stored = this.lookup(taskId, sessionId);
    // The SDK's storeTaskResult takes no statusMessage; a failed task should carry one.
    if (message && stored) stored.task.statusMessage = message;
  }

  async getTaskResult(taskId, sessionId) {
    const task = await this.getTask(taskId, sessionId);
    if (task?.status === 'cancelled') {
      throw rpcError(ErrorCode.InternalError, `Task ${taskId} was cancelled (${task.statusMessage ?? 'no reason given'}), so it has no result`);
    }
    const result = await super.getTaskResult(taskId, sessionId);
    if (result[RPC_ERROR]) throw result[RPC_ERROR];
    return result;
  }

  /** The ttl of a task that expired, or undefined. */
  expiredTtl(taskId) {
    return this.#expired.get(taskId);
  }

  close() {
    for (const taskId of [...this.#work.keys()]) this.#stop(taskId, 'server shutting down');
    this.cleanup();
  }

  #onExpired(taskId, ttl) {
    this.#expired.set(taskId, ttl);
    if (this.#expired.size > MAX_EXPIRED_REMEMBERED) this.#expired.delete(this.#expired.keys().next().value);
    if (this.#work.has(taskId)) log(`task ${taskId} expired after its ttl of ${ttl} ms; its work is stopped`);
    this.#stop(taskId, 'task expired');
  }

  #stop(taskId, reason) {
    const controller = this.#work.get(taskId);
    this.#work.delete(taskId);
    controller?.abort(new Error(reason));
  }
}

// ---------------------------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------------------------

const int = (min, max, description) => z.int().check(z.minimum(min), z.maximum(max), z.describe(description));
const str = (description, max = 200) => z.string().check(z.maxLength(max), z.describe(description));

const BUILD_STAGES = ['Resolving dependencies', 'Compiling 1/3', 'Compiling 2/3', 'Compiling 3/3', 'Running tests', 'Packaging'];

const REGIONS = [
  { const: 'eu-west', title: 'Europe West (Ireland)' },
  { const: 'us-east', title: 'US East (Virginia)' },
  { const: 'ap-south', title: 'Asia Pacific South (Mumbai)' },
];
const DeployAnswerSchema = z.object({
  service: z.string().check(z.minLength(2), z.maxLength(63)),
  replicas: z.int().check(z.minimum(1), z.maximum(10)),
  region: z.enum(REGIONS.map((r) => r.const)),
  dryRun: z.optional(z.boolean()),
});

const SamplingMessageSchema = z.looseObject({
  model: z.string(),
  content: z.union([z.looseObject({ type: z.string() }), z.array(z.looseObject({ type: z.string() }))]),
});
const ClientTaskSchema = z.looseObject({ taskId: z.string(), status: z.string(), statusMessage: z.optional(z.string()), pollInterval: z.optional(z.number()) });
const AnyResult = z.looseObject({});

/**
 * Tool table. `run(args, ctx)` does the work and returns a CallToolResult; it runs in the background
 * of a task, or inline for a plain call of an optional tool. ctx: { taskId?, ttl?, signal,
 * status(message, status?), progress(progress, total, message), session }.
 */
const TOOLS = {
  'build-project': {
    title: 'Build project',
    description:
      'Builds a project through six stages (resolve, compile x3, test, package), reporting each stage as the task status message and as progress. Takes about `durationMs` (default 6 s). Must be called as a task.',
    taskSupport: 'required',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    shape: {
      project: z._default(str('Name of the project to build'), 'demo-app'),
      durationMs: z._default(int(0, 3_600_000, 'Total build time in milliseconds'), 6000),
    },
    immediate: (args) => `Building ${args.project} in the background; the result will follow when the build task completes.`,
    async run({ project, durationMs }, ctx) {
      const started = Date.now();
      const total = BUILD_STAGES.length;
      for (const [i, stage] of BUILD_STAGES.entries()) {
        await ctx.status(`${stage}…`);
        await ctx.progress(i, total, stage);
        await sleep(durationMs / total, ctx.signal);
      }
      await ctx.progress(total, total, 'Build finished');
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      return toolResult(
        `Build of ${project} succeeded in ${seconds} s.\n- 3 modules compiled, 0 warnings\n- 42 tests passed\n- Artifact: dist/${project}-1.0.0.tgz`,
        `Build succeeded in ${seconds} s`,
      );
    },
  },

  'ask-deploy-target': {
    title: 'Ask deploy target',
    description:
      'Plans a deployment and asks the user, through a form (elicitation delivered on tasks/result while the task is input_required), for the service, replica count, region and dry-run flag; completes with the answers. Needs the client\'s elicitation capability. Must be called as a task.',
    taskSupport: 'required',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    shape: {
      defaultService: z.optional(str('Service name proposed in the form', 63)),
      askAfterMs: z._default(int(0, 600_000, 'Time spent preparing the plan before asking, in milliseconds'), 200),
    },
    immediate: () => 'A deployment is being planned; the user will be asked where to deploy.',
    async run({ defaultService, askAfterMs }, ctx) {
      const elicitation = ctx.session.clientCapabilities().elicitation;
      if (!elicitation || (elicitation.url && !elicitation.form)) {
        return toolError('ask-deploy-target needs to ask the user a question, but this client did not declare form elicitation (capabilities.elicitation).');
      }
      await ctx.status('Preparing the deployment plan…');
      await sleep(askAfterMs, ctx.signal);
      const requestedSchema = {
        type: 'object',
        properties: {
          service: { type: 'string', title: 'Service', description: 'Name of the service to deploy (2 to 63 characters)', minLength: 2, maxLength: 63, ...(defaultService && { default: defaultService }) },
          replicas: { type: 'integer', title: 'Replicas', description: 'Number of instances to run (1 to 10)', minimum: 1, maximum: 10, default: 2 },
          region: { type: 'string', title: 'Region', description: 'Where to deploy', oneOf: REGIONS, default: 'eu-west' },
          dryRun: { type: 'boolean', title: 'Dry run', description: 'Only plan the deployment, change nothing', default: false },
        },
        required: ['service', 'replicas', 'region'],
      };
      const answer = await ctx.ask(
        { method: 'elicitation/create', params: { mode: 'form', message: 'Where should this deployment go?', requestedSchema } },
        ElicitResultSchema,
        'Waiting for the deploy target (answer the form in your client)',
      );
      if (answer.action !== 'accept') {
        const why = answer.action === 'decline' ? 'the user declined to choose a deploy target' : 'the user dismissed the question';
        return toolResult(`Deployment not started: ${why}. Nothing was changed.`, `Not deployed: ${why}`);
      }
      const parsed = DeployAnswerSchema.safeParse(answer.content ?? {});
      if (!parsed.success) return toolError(`The form answer does not match the requested schema:\n${z.prettifyError(parsed.error)}`, 'Invalid form answer');
      const { service, replicas, region, dryRun = false } = parsed.data;
      await ctx.status(`${dryRun ? 'Planning' : 'Deploying'} ${service} to ${region}…`);
      await sleep(300, ctx.signal);
      const regionTitle = REGIONS.find((r) => r.const === region).title;
      return toolResult(
        `${dryRun ? 'Dry run: would deploy' : 'Deployed'} ${service} with ${replicas} replica${replicas === 1 ? '' : 's'} to ${region} (${regionTitle}).\nAnswers: service=${service}, replicas=${replicas}, region=${region}, dryRun=${dryRun}`,
        `${dryRun ? 'Planned' : 'Deployed'} ${service} to ${region}`,
        { service, replicas, region, dryRun },
      );
    },
  },

  'summarize-with-model': {
    title: 'Summarize with model',
    description:
      'Summarizes a text with the client\'s language model (sampling/createMessage, delivered on tasks/result while the task is input_required; sent as a task itself when the client declared tasks.requests.sampling.createMessage). Needs the client\'s sampling capability. Must be called as a task.',
    taskSupport: 'required',
    annotations: { readOnlyHint: true, openWorldHint: true },
    shape: {
      text: z._default(
        str('Text to summarize', 100_000),
        'The Model Context Protocol lets applications expose tools, resources and prompts to language models. Tasks let a server run a long operation in the background while the client polls its status, answers its questions and fetches its result later.',
      ),
      maxTokens: z._default(int(1, 4096, 'Upper bound on the length of the summary, in tokens'), 200),
    },
    immediate: () => 'A summary is being written by the model; it will follow when the task completes.',
    async run({ text: input, maxTokens }, ctx) {
      const caps = ctx.session.clientCapabilities();
      if (!caps.sampling) return toolError('summarize-with-model needs the client\'s model, but this client did not declare the sampling capability.');
      await ctx.status('Preparing the prompt…');
      const params = {
        messages: [{ role: 'user', content: text(`Summarize the following text in one or two sentences:\n\n${input}`) }],
        systemPrompt: 'You are a concise technical writer.',
        maxTokens,
      };
      const asTask = caps.tasks?.requests?.sampling?.createMessage !== undefined;
      const message = asTask ? await sampleAsTask(ctx, params) : await ctx.ask({ method: 'sampling/createMessage', params }, AnyResult, 'Waiting for the client\'s model');
      const parsed = SamplingMessageSchema.safeParse(message);
      if (!parsed.success) return toolError(`The client answered sampling/createMessage with an invalid message:\n${z.prettifyError(parsed.error)}`, 'Invalid sampling answer');
      const blocks = Array.isArray(parsed.data.content) ? parsed.data.content : [parsed.data.content];
      const summary = blocks.filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text).join('\n');
      if (!summary) return toolError(`The model (${parsed.data.model}) answered without any text.`);
      return toolResult(`Summary by ${parsed.data.model}${asTask ? ' (sampled as a client task)' : ''}:\n${summary}`, `Summarized by ${parsed.data.model}`);
    },
  },

  'failing-job': {
    title: 'Failing job',
    description:
      'A job that always fails after `failAfterMs` (default 1.5 s). The task ends `failed` with a statusMessage. mode "tool-error" (default): tasks/result returns a CallToolResult with isError true. mode "protocol-error": tasks/result returns a JSON-RPC error (-32603). Must be called as a task.',
    taskSupport: 'required',
    annotations: { readOnlyHint: true, openWorldHint: false },
    shape: {
      failAfterMs: z._default(int(0, 3_600_000, 'How long the job runs before failing, in milliseconds'), 1500),
      mode: z._default(z.enum(['tool-error', 'protocol-error']).check(z.describe('How tasks/result reports the failure')), 'tool-error'),
    },
    immediate: () => 'A data migration job started in the background.',
    async run({ failAfterMs, mode }, ctx) {
      await ctx.status('Step 1/3: Fetching inputs…');
      await ctx.progress(0, 3, 'Fetching inputs');
      await sleep(failAfterMs / 2, ctx.signal);
      await ctx.status('Step 2/3: Validating config/deploy.yaml…');
      await ctx.progress(1, 3, 'Validating config/deploy.yaml');
      await sleep(failAfterMs / 2, ctx.signal);
      const reason = 'Step 2/3 failed: config/deploy.yaml has 3 schema errors (first: line 14, "replicas" must be an integer)';
      if (mode === 'protocol-error') {
        const error = rpcError(ErrorCode.InternalError, `failing-job: ${reason}`, { file: 'config/deploy.yaml', errors: 3 });
        return annotate(toolError(reason, reason), RPC_ERROR, error);
      }
      return toolError(`${reason}\n\nFix the file and run the job again. Nothing was migrated.`, reason);
    },
  },

  'lint-with-errors': {
    title: 'Lint with errors',
    description: 'Lints a file and reports problems: always returns a CallToolResult with isError true (as a task, the task ends failed). May be called as a task or directly.',
    taskSupport: 'optional',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    shape: { path: z._default(str('File to lint', 1000), 'src/app.ts') },
    async run({ path }, ctx) {
      await ctx.status(`Linting ${path}…`);
      return toolError(
        `ESLint found 3 problems (2 errors, 1 warning) in ${path}:\n` +
          `  12:7   error    'user' is assigned a value but never used  @typescript-eslint/no-unused-vars\n` +
          `  27:15  error    Expected '===' and instead saw '=='         eqeqeq\n` +
          `  41:1   warning  Unexpected console statement                no-console`,
        `Lint failed: 2 errors, 1 warning in ${path}`,
      );
    },
  },

  'long-running-scan': {
    title: 'Long-running scan',
    description:
      'Scans a repository for a long time (default 10 minutes), reporting progress every second; it stops when cancelled. Its task ttl is capped at `ttlMs` (default 30 s), so the task expires while still working: tasks/get then answers -32602 "Task has expired". Must be called as a task.',
    taskSupport: 'required',
    annotations: { readOnlyHint: true, openWorldHint: false },
    shape: {
      durationMs: z._default(int(0, MAX_TTL_MS, 'How long the scan runs, in milliseconds'), 600_000),
      ttlMs: z._default(int(1000, MAX_TTL_MS, 'Upper bound on the task ttl, in milliseconds'), 30_000),
    },
    ttl: (args, requested) => Math.min(requested ?? args.ttlMs, args.ttlMs),
    immediate: () => 'A repository scan started; it takes a long time.',
    async run({ durationMs }, ctx) {
      const seconds = Math.ceil(durationMs / 1000);
      for (let s = 0; s < seconds; s++) {
        const files = s * 137;
        // No percentage here: sent every 5 s, it disagreed with the progress sent every second.
        if (s % 5 === 0) await ctx.status(`Scanning… ${files} files`);
        await ctx.progress(s, seconds, `Scanned ${files} files`);
        await sleep(Math.min(1000, durationMs - s * 1000), ctx.signal);
      }
      await ctx.progress(seconds, seconds, 'Scan finished');
      return toolResult(`Scan finished after ${seconds} s: ${seconds * 137} files, no secrets found.`, 'Scan finished');
    },
  },

  'quick-echo': {
    title: 'Quick echo',
    description: 'Echoes `message` back at once. May be called as a task or directly; meant for latency benchmarks.',
    taskSupport: 'optional',
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    shape: { message: z._default(str('Text to echo back', 1_000_000), '') },
    async run({ message }) {
      return { content: [text(message)] };
    },
  },

  'get-time': {
    title: 'Get time',
    description: 'Returns the server\'s current time (ISO 8601). A plain tool: never call it as a task.',
    taskSupport: 'forbidden',
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    async run() {
      const now = new Date();
      return { content: [text(now.toISOString())], structuredContent: { iso: now.toISOString(), epochMs: now.getTime() } };
    },
  },
};

for (const tool of Object.values(TOOLS)) tool.schema = z.object(tool.shape ?? {});

/**
 * Task-augmented sampling: the request goes through our task's queue (delivered on tasks/result,
 * tagged with our task), then the client's task is polled at its pollInterval and its result fetched.
 * tasks/get and tasks/result carry no related-task _meta (spec: the taskId param is the truth).
 */
async function sampleAsTask(ctx, params) {
  const created = await ctx.ask({ method: 'sampling/createMessage', params }, AnyResult, 'Waiting for the client\'s model', { task: { ttl: ctx.ttl } });
  if (!('task' in created)) return created; // the client answered at once after all
  let task = ClientTaskSchema.parse(created.task);
  const clientTaskId = task.taskId;
  const send = (method, schema) => ctx.session.mcp.server.request({ method, params: { taskId: clientTaskId } }, schema, { signal: ctx.signal, timeout: ctx.ttl, ...ctx.session.channel(ctx.taskId) });
  try {
    await ctx.status(`Waiting for the client's model (client task ${clientTaskId})`, 'input_required');
    while (!isTerminal(task.status) && task.status !== 'input_required') {
      await sleep(Math.min(Math.max(task.pollInterval ?? 1000, 100), 10_000), ctx.signal);
      task = ClientTaskSchema.parse(await send('tasks/get', AnyResult));
    }
    if (task.status === 'failed' || task.status === 'cancelled') {
      throw new Error(`the client's sampling task ${clientTaskId} ended ${task.status}: ${task.statusMessage ?? 'no reason given'}`);
    }
    const result = await send('tasks/result', AnyResult);
    await ctx.status('Writing the summary…');
    return result;
  } catch (error) {
    // Our task was cancelled or expired: the client's task is of no use any more.
    if (ctx.signal.aborted && !isTerminal(task.status) && ctx.session.clientCapabilities().tasks?.cancel) {
      ctx.session.mcp.server.request({ method: 'tasks/cancel', params: { taskId: clientTaskId } }, AnyResult, { timeout: 5000 }).catch(() => {});
    }
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Sessions: one McpServer, task store and message queue per connection (T-RCV-8)
// ---------------------------------------------------------------------------------------------

function createSession(label) {
  const store = new DemoTaskStore();
  const mcp = new McpServer(
    { name: 'mcp-tasks-demo', title: 'MCP Tasks demo server', version: '0.1.0' },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore: store,
      taskMessageQueue: new InMemoryTaskMessageQueue(),
      instructions:
        'Demo server for MCP Tasks. build-project, ask-deploy-target, summarize-with-model, failing-job and long-running-scan must be called as tasks; lint-with-errors and quick-echo may be; get-time must not be.',
    },
  );
  /** taskId -> ids of the tasks/result requests now blocked on that task. */
  const openResults = new Map();
  const session = {
    label,
    mcp,
    store,
    clientCapabilities: () => mcp.server.getClientCapabilities() ?? {},
    /** Send options that put a message on the stream of a blocked tasks/result for the task (Streamable HTTP), if any. */
    channel(taskId) {
      const ids = openResults.get(taskId);
      return ids?.size ? { relatedRequestId: [...ids].at(-1) } : {};
    },
    closed: false,
    async close() {
      if (session.closed) return;
      session.closed = true;
      store.close();
      await mcp.close().catch(() => {});
      log(`${session.label}: closed`);
    },
  };
  mcp.server.onerror = (error) => log(`${session.label}: ${errorMessage(error)}`);

  for (const [name, tool] of Object.entries(TOOLS)) {
    const config = { title: tool.title, description: tool.description, annotations: tool.annotations };
    if (tool.taskSupport === 'forbidden') {
      mcp.registerTool(name, config, (extra) => tool.run({}, directContext(session, undefined, extra)));
      continue;
    }
    mcp.experimental.tasks.registerToolTask(
      name,
      { ...config, inputSchema: tool.shape, execution: { taskSupport: tool.taskSupport } },
      {
        createTask: (args, extra) => startTask(session, name, tool, args, extra),
        getTask: (_args, extra) => extra.taskStore.getTask(extra.taskId),
        getTaskResult: (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
      },
    );
  }

  // The SDK answers a required tool called plainly with an isError result, runs a forbidden tool
  // called as a task, and serves an optional tool called plainly by creating a task and polling it
  // (a pollInterval of delay). The spec wants -32601 for the first two; the third runs inline here.
  wrapHandler(mcp.server, CallToolRequestSchema, 'tools/call', async (request, extra, next) => {
    const { name, task } = request.params;
    const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
    if (!tool) throw rpcError(ErrorCode.InvalidParams, `Unknown tool '${name}': tools/list shows the tools of this server`);
    if (tool.taskSupport === 'required' && !task) {
      throw rpcError(ErrorCode.MethodNotFound, `Tool '${name}' must be called as a task (execution.taskSupport is "required"): add "task": {} to the tools/call params`);
    }
    if (tool.taskSupport === 'forbidden' && task) {
      throw rpcError(ErrorCode.MethodNotFound, `Tool '${name}' cannot be called as a task (execution.taskSupport is "forbidden"): leave "task" out of the tools/call params`);
    }
    if (tool.taskSupport === 'optional' && !task) return runDirect(session, name, tool, request, extra);
    if (task) {
      // A CreateTaskResult cannot carry an isError result; the SDK would answer a confusing -32602.
      const parsed = tool.schema.safeParse(request.params.arguments ?? {});
      if (!parsed.success) throw rpcError(ErrorCode.InvalidParams, `Invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}`);
    }
    return next();
  });

  // An expired task is gone from the SDK store, which then says "not found"; say "expired" (spec example).
  const refuseExpired = async (request, extra, next) => {
    const ttl = store.expiredTtl(request.params.taskId);
    if (ttl !== undefined) throw rpcError(ErrorCode.InvalidParams, `Failed to retrieve task: Task has expired (its ttl of ${ttl} ms ran out)`);
    return next();
  };
  wrapHandler(mcp.server, GetTaskRequestSchema, 'tasks/get', refuseExpired);
  wrapHandler(mcp.server, CancelTaskRequestSchema, 'tasks/cancel', refuseExpired);
  wrapHandler(mcp.server, GetTaskPayloadRequestSchema, 'tasks/result', (request, extra, next) =>
    refuseExpired(request, extra, async () => {
      const { taskId } = request.params;
      // The SDK's blocking loop adds an abort listener to this signal every pollInterval and never
      // removes it; they go with the request, so only the MaxListeners warning needs silencing.
      setMaxListeners(0, extra.signal);
      let ids = openResults.get(taskId);
      if (!ids) openResults.set(taskId, (ids = new Set()));
      ids.add(extra.requestId);
      try {
        return await next();
      } finally {
        ids.delete(extra.requestId);
        if (!ids.size) openResults.delete(taskId);
      }
    }),
  );
  return session;
}

/** Replaces the handler the SDK installed for a method by `wrap(request, extra, next)`. */
function wrapHandler(server, schema, method, wrap) {
  const inner = server._requestHandlers?.get(method); // SDK internal: checked so an upgrade fails loudly
  if (typeof inner !== 'function') throw new Error(`demo-server: the SDK has no built-in handler for ${method} to wrap`);
  server.setRequestHandler(schema, (request, extra) => wrap(request, extra, () => inner(request, extra)));
}

async function startTask(session, name, tool, args, extra) {
  const ttl = tool.ttl?.(args, extra.taskRequestedTtl) ?? extra.taskRequestedTtl;
  const task = await extra.taskStore.createTask({ ttl, pollInterval: POLL_INTERVAL_MS });
  log(`${session.label}: task ${task.taskId} created for ${name} (ttl ${task.ttl} ms)`);
  const ctx = taskContext(session, task, extra);
  // Start once the CreateTaskResult is on its way, so no status or progress precedes it.
  setImmediate(() => void runTask(session, name, tool, args, ctx, extra.taskStore));
  const immediate = tool.immediate?.(args);
  return { task, ...(immediate && { _meta: { [IMMEDIATE_RESPONSE_KEY]: immediate } }) };
}

async function runTask(session, name, tool, args, ctx, taskStore) {
  let result;
  try {
    result = await tool.run(args, ctx);
  } catch (error) {
    if (ctx.signal.aborted) {
      log(`${session.label}: task ${ctx.taskId} (${name}) stopped: ${errorMessage(ctx.signal.reason)}`);
      return;
    }
    result = toolError(`${name} failed: ${errorMessage(error)}`);
  }
  if (ctx.signal.aborted) return; // cancelled or expired meanwhile: it stays so (T-LIFE-4)
  const status = result.isError ? 'failed' : 'completed';
  try {
    await taskStore.storeTaskResult(ctx.taskId, status, result);
    log(`${session.label}: task ${ctx.taskId} (${name}) ${status}${result[STATUS_MESSAGE] ? `: ${result[STATUS_MESSAGE]}` : ''}`);
  } catch (error) {
    log(`${session.label}: task ${ctx.taskId} (${name}) result dropped: ${errorMessage(error)}`);
  }
}

/** What a tool's work sees when it runs as a task. */
function taskContext(session, task, extra) {
  const { taskId } = task;
  const signal = session.store.signalOf(taskId);
  const progressToken = extra._meta?.progressToken;
  const ttl = task.ttl ?? MAX_TTL_MS;
  const status = (message, value = 'working') => extra.taskStore.updateTaskStatus(taskId, value, message);
  return {
    taskId,
    ttl,
    signal,
    session,
    status,
    // The request's progressToken stays valid for the whole task (spec); sent on a blocked
    // tasks/result stream when there is one, else on the standalone stream.
    progress: (progress, total, message) =>
      progressToken === undefined || signal.aborted
        ? Promise.resolve()
        : session.mcp.server
            .notification(
              { method: 'notifications/progress', params: { progressToken, progress, total, message, _meta: { [RELATED_TASK_META_KEY]: { taskId } } } },
              session.channel(taskId),
            )
            .catch((error) => log(`${session.label}: progress for task ${taskId} not sent: ${errorMessage(error)}`)),
    /**
     * Sends a request the task depends on: queued for the task (the SDK delivers it on tasks/result,
     * tagged with related-task _meta) while the task shows input_required; back to working after.
     */
    async ask(request, schema, waitingMessage, options = {}) {
      const answer = session.mcp.server.request(request, schema, { ...options, relatedTask: { taskId }, signal, timeout: ttl });
      answer.catch(() => {}); // observed below; avoids an unhandled rejection if the status update throws first
      await status(waitingMessage, 'input_required');
      const result = await answer;
      if (!options.task) await status('Answer received, continuing…');
      return result;
    },
  };
}

/** An optional tool called without a task: run inline, like a plain tool. */
async function runDirect(session, name, tool, request, extra) {
  const parsed = tool.schema.safeParse(request.params.arguments ?? {});
  // 2025-11-25: invalid arguments are a tool execution error, so the model can correct itself.
  if (!parsed.success) return toolError(`Invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}`);
  try {
    return await tool.run(parsed.data, directContext(session, request.params._meta?.progressToken, extra));
  } catch (error) {
    return toolError(`${name} failed: ${errorMessage(error)}`);
  }
}

function directContext(session, progressToken, extra) {
  return {
    signal: extra.signal,
    session,
    status: async () => {},
    progress: (progress, total, message) =>
      progressToken === undefined
        ? Promise.resolve()
        : extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total, message } }).catch(() => {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Transports
// ---------------------------------------------------------------------------------------------

async function serveStdio() {
  const session = createSession('stdio');
  const shutdown = async (why) => {
    log(`stdio: ${why}, shutting down`);
    await session.close();
    process.exit(0);
  };
  // The client closing our stdin is the normal end of a stdio server.
  process.stdin.on('end', () => void shutdown('stdin closed'));
  process.stdout.on('error', (error) => void shutdown(`stdout failed (${error.code ?? error.message})`));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  await session.mcp.connect(new StdioServerTransport());
  log('stdio: ready');
}

async function serveHttp() {
  /** Mcp-Session-Id -> { session, transport } */
  const sessions = new Map();
  let allowedHosts = [];

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error) => {
      log(`http: ${req.method} ${req.url} failed: ${errorMessage(error)}`);
      if (!res.headersSent) sendJsonError(res, 500, ErrorCode.InternalError, 'Internal server error');
      else res.end();
    });
  });

  async function handle(req, res) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/mcp') return sendJsonError(res, 404, ErrorCode.InvalidRequest, 'Not found: the MCP endpoint is /mcp');
    // DNS rebinding protection: a local server answers local names only.
    if (!allowedHosts.includes(req.headers.host ?? '')) return sendJsonError(res, 403, ErrorCode.InvalidRequest, `Invalid Host header: ${req.headers.host}`);
    const origin = req.headers.origin;
    if (origin && !/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin)) return sendJsonError(res, 403, ErrorCode.InvalidRequest, `Invalid Origin header: ${origin}`);

    const sessionId = req.headers['mcp-session-id'];
    if (typeof sessionId === 'string') {
      const entry = sessions.get(sessionId);
      if (!entry) return sendJsonError(res, 404, -32001, 'Session not found: initialize a new session');
      sessions.delete(sessionId); // re-inserted last: the map's order is least recently used first
      sessions.set(sessionId, entry);
      return entry.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return sendJsonError(res, 400, ErrorCode.InvalidRequest, 'Bad Request: Mcp-Session-Id header is required');
    let body;
    try {
      body = JSON.parse(await readBody(req));
    } catch (error) {
      return sendJsonError(res, 400, ErrorCode.ParseError, `Parse error: ${errorMessage(error)}`);
    }
    if (!isInitializeRequest(body)) return sendJsonError(res, 400, ErrorCode.InvalidRequest, 'Bad Request: no Mcp-Session-Id header and not an initialize request');
    if (sessions.size >= MAX_HTTP_SESSIONS) {
      const [oldestId, oldest] = sessions.entries().next().value;
      sessions.delete(oldestId);
      log(`${oldest.session.label}: closed to make room (at most ${MAX_HTTP_SESSIONS} sessions)`);
      void oldest.transport.close();
    }

    const session = createSession('http');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        session.label = `http ${id.slice(0, 8)}`;
        sessions.set(id, { session, transport });
        log(`${session.label}: session started`);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void session.close();
    };
    await session.mcp.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  const shutdown = async (why) => {
    log(`http: ${why}, shutting down`);
    server.close();
    server.closeAllConnections();
    await Promise.all([...sessions.values()].map(({ session }) => session.close()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(PORT, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  log(`http: serving http://127.0.0.1:${port}/mcp`);
  process.stdout.write(`listening ${port}\n`);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error(`body larger than ${MAX_BODY_BYTES} bytes`));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJsonError(res, status, code, message) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

if (MODE === 'stdio') await serveStdio();
else if (MODE === 'http') await serveHttp();
else fail(`unknown mode '${MODE}': use stdio or http`);
