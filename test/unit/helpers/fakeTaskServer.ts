// A scriptable MCP server that runs tools as tasks (2025-11-25), built on our own JsonRpcConnection
// at the far end of an in-memory pair. Tests drive every task by hand (setStatus, complete, fail,
// forget...) and read back exactly what the client sent. It is deliberately lenient where a real
// server would not be (setStatus allows illegal transitions) so misbehaving servers can be played.
import { randomUUID } from 'node:crypto';
import type { IncomingRequestContext, RequestHandler } from '../../../src/core/jsonrpc/connection';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import { ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';
import { MODEL_IMMEDIATE_RESPONSE_META, RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import type { SessionSource, TaskEngineOptions } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import type { LocalTaskStatus } from '../../../src/core/tasks/status';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { taskKey } from '../../../src/core/tasks/types';
import { waitFor } from './logger';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { raceAbort } from '../../../src/core/util/abort';
import { MemoryLogger } from './logger';

export type WireTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';

/** A task as it travels on the wire (spec `Task`). */
export interface WireTask {
  taskId: string;
  status: WireTaskStatus;
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: number | null;
  pollInterval?: number;
}

/** `taskSupport` is a plain string so tests can also send values the spec does not know. */
export interface FakeTool {
  name: string;
  taskSupport?: string;
}

export type ToolResult = Record<string, unknown> & { content: Array<Record<string, unknown>>; isError?: boolean };
export type RpcErrorObject = { code: number; message: string; data?: unknown };
/** What `tasks/result` answers once the task ended: the tool's result or a JSON-RPC error. */
export type Outcome = { result: ToolResult } | { error: RpcErrorObject };

/** `none`: never send `notifications/tasks/status`; `once`: one per change; `twice`: each one duplicated. */
export type NotifyMode = 'none' | 'once' | 'twice';
/** A plain (not task-augmented) `tools/call` of a tool that is not `required`. */
export type PlainCallBehaviour = 'result' | 'require-task' | 'method-not-found' | ((params: Record<string, unknown>) => unknown);
/** `pages`: honest cursors; `repeat-cursor`: always the same nextCursor; `endless`: a new cursor forever. */
export type ListMode = 'pages' | 'repeat-cursor' | 'endless';

export interface FakeTaskServerOptions {
  /** Answered in `initialize` (default 2025-11-25). */
  protocolVersion?: string;
  /** `false`: no `tasks` capability at all. Each flag defaults to true. */
  tasks?: false | { list?: boolean; cancel?: boolean; toolsCall?: boolean };
  /** Sent as they are in `capabilities.tasks`, over the flags above (e.g. `{ cancel: false }`, which a sloppy server writes). */
  tasksRaw?: Record<string, unknown>;
  tools?: FakeTool[];
  notify?: NotifyMode;
  /** `pollInterval` of new tasks; undefined: none sent. */
  pollInterval?: number;
  /** The ttl the server reports; undefined: the requested one (null when none was asked). */
  ttl?: number | null;
  /** `_meta["io.modelcontextprotocol/model-immediate-response"]` of each CreateTaskResult. */
  immediateResponse?: string;
  plainCall?: PlainCallBehaviour;
  /** The result of a plain call in `result` mode. */
  plainResult?: ToolResult;
  listPageSize?: number;
  listMode?: ListMode;
}

/** A replacement request handler; `builtin()` runs the server's own. */
export type OverrideHandler = (params: Record<string, unknown> | undefined, ctx: IncomingRequestContext, builtin: () => unknown) => unknown;

/** A request the client sent, as it came off the wire. */
export interface ReceivedRequest {
  id: unknown;
  method: string;
  params?: Record<string, unknown>;
  /** Date.now() on arrival (fake under fake timers). */
  at: number;
}

interface Entry {
  task: WireTask;
  toolName: string;
  /** The `tools/call` params that created it (undefined for seeded tasks). */
  params?: Record<string, unknown>;
  outcome?: Outcome;
  /** `tasks/result` calls blocked on this task; undefined: the task is gone. */
  waiters: Array<(o: Outcome | undefined) => void>;
}

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled']);
const DEFAULT_TOOLS: FakeTool[] = [
  { name: 'required-tool', taskSupport: 'required' },
  { name: 'optional-tool', taskSupport: 'optional' },
  { name: 'forbidden-tool', taskSupport: 'forbidden' },
  { name: 'plain-tool' },
];

export class FakeTaskServer {
  readonly connection: JsonRpcConnection;
  /** The server connection's own log (kept apart from the client's). */
  readonly log = new MemoryLogger();
  /** Mutable: tests may change notify, pollInterval, plainCall, listMode... mid-test. */
  readonly options: FakeTaskServerOptions;
  /** Every request the client sent, in order. */
  readonly received: ReceivedRequest[] = [];
  /** Every notification the client sent, in order. */
  readonly notifications: Array<{ method: string; params?: Record<string, unknown> }> = [];
  private readonly tasks = new Map<string, Entry>();
  private readonly overrides = new Map<string, OverrideHandler>();
  private readonly cursors = new Map<string, number>();
  /** Every nextCursor `tasks/list` answered, in order. */
  readonly issuedCursors: string[] = [];
  private watchers: Array<() => boolean> = [];
  private seq = 0;

  constructor(
    readonly transport: InMemoryTransport,
    options: FakeTaskServerOptions = {},
  ) {
    this.options = { ...options };
    this.connection = new JsonRpcConnection(transport, { logger: this.log });
    // Record raw messages before the connection dispatches them: what the client really sent.
    const deliver = transport.onmessage!;
    transport.onmessage = (m) => {
      this.record(m);
      deliver(m);
    };
    this.handle('initialize', () => ({
      protocolVersion: this.options.protocolVersion ?? '2025-11-25',
      capabilities: this.capabilities(),
      serverInfo: { name: 'fake-task-server', version: '1.0.0' },
    }));
    this.handle('ping', () => ({}));
    this.handle('tools/list', () => ({
      tools: this.tools.map((t) => ({
        name: t.name,
        inputSchema: { type: 'object' },
        ...(t.taskSupport !== undefined && { execution: { taskSupport: t.taskSupport } }),
      })),
    }));
    this.handle('tools/call', (p) => this.toolsCall(p ?? {}));
    this.handle('tasks/get', (p) => ({ ...this.entry(p, 'Failed to retrieve task').task }));
    this.handle('tasks/result', (p, ctx) => this.tasksResult(p, ctx));
    const caps = this.options.tasks;
    if (caps !== false && caps?.cancel !== false) this.handle('tasks/cancel', (p) => this.tasksCancel(p));
    if (caps !== false && caps?.list !== false) this.handle('tasks/list', (p) => this.tasksList(p));
  }

  async start(): Promise<void> {
    await this.connection.start();
  }

  /** Ends the connection, as a server process that exits. */
  async close(): Promise<void> {
    for (const e of this.tasks.values()) this.release(e, undefined);
    await this.connection.close();
  }

  // ── What the client sent ─────────────────────────────────────────────────────────────────────

  requestsOf(method: string): ReceivedRequest[] {
    return this.received.filter((r) => r.method === method);
  }

  /** Resolves with the `count`-th request of `method` (1-based), now or when it arrives. */
  waitForRequest(method: string, count = 1): Promise<ReceivedRequest> {
    return new Promise((resolve) => {
      const check = (): boolean => {
        const list = this.requestsOf(method);
        if (list.length < count) return false;
        resolve(list[count - 1]);
        return true;
      };
      if (!check()) this.watchers.push(check);
    });
  }

  /** The progress token the client put on the `tools/call` that created `taskId`. */
  progressTokenOf(taskId: string): string | number | undefined {
    const meta = this.tasks.get(taskId)?.params?._meta as { progressToken?: string | number } | undefined;
    return meta?.progressToken;
  }

  /** The `initialize` params the client sent. */
  get initializeParams(): Record<string, unknown> | undefined {
    return this.requestsOf('initialize')[0]?.params;
  }

  // ── Test controls ────────────────────────────────────────────────────────────────────────────

  /** Replaces the handler of `method` (undefined restores the built-in one, which `builtin` calls). */
  override(method: string, handler: OverrideHandler | undefined): void {
    if (handler) this.overrides.set(method, handler);
    else this.overrides.delete(method);
  }

  /** Creates a task as if a tool call had (seeds tasks for tasks/list and restore tests). */
  createTask(toolName = 'seeded', init: Partial<WireTask> = {}, params?: Record<string, unknown>): WireTask {
    const now = new Date().toISOString();
    const task: WireTask = {
      taskId: `task-${++this.seq}-${randomUUID().slice(0, 8)}`,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttl: this.options.ttl === undefined ? null : this.options.ttl,
      ...(this.options.pollInterval !== undefined && { pollInterval: this.options.pollInterval }),
      ...init,
    };
    this.tasks.set(task.taskId, { task, toolName, params, waiters: [] });
    return { ...task };
  }

  /** The task as the server holds it now (undefined once forgotten). */
  task(taskId: string): WireTask | undefined {
    const e = this.tasks.get(taskId);
    return e && { ...e.task };
  }

  /** Sets any status, legal or not (a misbehaving server is a test case too). */
  setStatus(taskId: string, status: WireTaskStatus, message?: string): void {
    const e = this.must(taskId);
    e.task.status = status;
    if (message === undefined) delete e.task.statusMessage;
    else e.task.statusMessage = message;
    e.task.lastUpdatedAt = new Date().toISOString();
    this.sendStatus(taskId);
    if (TERMINAL.has(status)) this.release(e, this.outcomeOf(e));
  }

  /** Ends the task `completed` with `result` (which may carry `isError: true`). */
  complete(taskId: string, result: ToolResult = { content: [{ type: 'text', text: `done: ${taskId}` }] }, message?: string): void {
    this.must(taskId).outcome = { result };
    this.setStatus(taskId, 'completed', message);
  }

  /** Ends the task `failed`, with a JSON-RPC error or an `isError` tool result as its outcome. */
  fail(taskId: string, outcome: RpcErrorObject | ToolResult, message?: string): void {
    this.must(taskId).outcome = 'content' in outcome ? { result: outcome as ToolResult } : { error: outcome };
    this.setStatus(taskId, 'failed', message);
  }

  /** Changes the pollInterval of one task, or of every task and the ones to come. */
  setPollInterval(ms: number | undefined, taskId?: string): void {
    const apply = (e: Entry) => {
      if (ms === undefined) delete e.task.pollInterval;
      else e.task.pollInterval = ms;
      e.task.lastUpdatedAt = new Date().toISOString();
    };
    if (taskId !== undefined) return apply(this.must(taskId));
    this.options.pollInterval = ms;
    this.tasks.forEach(apply);
  }

  /** Drops one task, or all (the server restarted without its tasks): ids become unknown (-32602). */
  forget(taskId?: string): void {
    for (const e of [...this.tasks.values()]) {
      if (taskId !== undefined && e.task.taskId !== taskId) continue;
      this.tasks.delete(e.task.taskId);
      this.release(e, undefined);
    }
  }

  /** Sends `notifications/tasks/status` for the task's current state, per the notify mode. */
  sendStatus(taskId: string): void {
    const mode = this.options.notify ?? 'none';
    const times = mode === 'twice' ? 2 : mode === 'once' ? 1 : 0;
    for (let i = 0; i < times; i++) void this.connection.notify('notifications/tasks/status', { ...this.must(taskId).task });
  }

  /** Delivers any value to the client as if it came off the wire. */
  sendRaw(value: unknown): void {
    this.transport.injectToPeer(value);
  }

  /** `elicitation/create` tagged with the task (related-task `_meta`); resolves with the client's answer. */
  sendElicitation(taskId: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return this.connection.requestRaw('elicitation/create', { ...params, _meta: { [RELATED_TASK_META]: { taskId } } }, { timeoutMs: 10_000 });
  }

  sendProgress(token: string | number, progress: number, total?: number, message?: string): Promise<void> {
    return this.connection.notify('notifications/progress', {
      progressToken: token,
      progress,
      ...(total !== undefined && { total }),
      ...(message !== undefined && { message }),
    });
  }

  // ── Protocol ─────────────────────────────────────────────────────────────────────────────────

  private get tools(): FakeTool[] {
    return this.options.tools ?? DEFAULT_TOOLS;
  }

  private get declaresToolTasks(): boolean {
    const t = this.options.tasks;
    return t !== false && t?.toolsCall !== false;
  }

  private capabilities(): Record<string, unknown> {
    const caps: Record<string, unknown> = { tools: {} };
    const t = this.options.tasks;
    if (t === false) return caps;
    caps.tasks = {
      ...(t?.list !== false && { list: {} }),
      ...(t?.cancel !== false && { cancel: {} }),
      requests: t?.toolsCall !== false ? { tools: { call: {} } } : {},
      ...this.options.tasksRaw,
    };
    return caps;
  }

  private handle(method: string, handler: RequestHandler): void {
    this.connection.onRequest(method, (params, ctx) => {
      const o = this.overrides.get(method);
      return o ? o(params, ctx, () => handler(params, ctx)) : handler(params, ctx);
    });
  }

  private record(m: unknown): void {
    if (typeof m !== 'object' || m === null || !('method' in m)) return;
    const msg = m as { id?: unknown; method: string; params?: Record<string, unknown> };
    if (!('id' in msg)) {
      this.notifications.push({ method: msg.method, params: msg.params });
      return;
    }
    this.received.push({ id: msg.id, method: msg.method, params: msg.params, at: Date.now() });
    this.watchers = this.watchers.filter((w) => !w());
  }

  private toolsCall(params: Record<string, unknown>): unknown {
    const name = params.name;
    const tool = this.tools.find((t) => t.name === name);
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${String(name)}`);
    const support = tool.taskSupport;
    if (params.task !== undefined) {
      if (!this.declaresToolTasks) throw new RpcError(ErrorCode.MethodNotFound, 'This server does not support task-augmented tools/call');
      if (support !== 'optional' && support !== 'required') {
        throw new RpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} does not support task augmentation`);
      }
      const requested = (params.task as { ttl?: unknown }).ttl;
      const ttl = this.options.ttl !== undefined ? this.options.ttl : typeof requested === 'number' ? requested : null;
      const task = this.createTask(tool.name, { ttl }, params);
      const immediate = this.options.immediateResponse;
      return { task, ...(immediate !== undefined && { _meta: { [MODEL_IMMEDIATE_RESPONSE_META]: immediate } }) };
    }
    // The spec: a required tool called without a task answers -32601.
    if (support === 'required') throw new RpcError(ErrorCode.MethodNotFound, `Tool ${tool.name} requires task augmentation`);
    const mode = this.options.plainCall ?? 'result';
    if (typeof mode === 'function') return mode(params);
    if (mode === 'require-task') throw new RpcError(ErrorCode.InvalidRequest, 'Task augmentation required for tools/call requests');
    if (mode === 'method-not-found') throw new RpcError(ErrorCode.MethodNotFound, `Method not found: tools/call of ${tool.name}`);
    return this.options.plainResult ?? { content: [{ type: 'text', text: `plain result of ${tool.name}` }] };
  }

  private async tasksResult(params: Record<string, unknown> | undefined, ctx: IncomingRequestContext): Promise<unknown> {
    const e = this.entry(params, 'Failed to retrieve task result');
    const outcome = TERMINAL.has(e.task.status)
      ? this.outcomeOf(e)
      : await new Promise<Outcome | undefined>((resolve) => {
          e.waiters.push(resolve);
          ctx.signal.addEventListener('abort', () => resolve(undefined), { once: true });
        });
    if (!outcome) throw new RpcError(ErrorCode.InvalidParams, 'Failed to retrieve task result: Task not found');
    if ('error' in outcome) throw new RpcError(outcome.error.code, outcome.error.message, outcome.error.data);
    // T-REQ-4: the result carries the related-task _meta, since the result itself has no task id.
    return { ...outcome.result, _meta: { ...(outcome.result._meta as Record<string, unknown> | undefined), [RELATED_TASK_META]: { taskId: e.task.taskId } } };
  }

  private tasksCancel(params: Record<string, unknown> | undefined): unknown {
    const e = this.entry(params, 'Failed to cancel task');
    if (TERMINAL.has(e.task.status)) {
      throw new RpcError(ErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${e.task.status}'`);
    }
    this.setStatus(e.task.taskId, 'cancelled', 'Cancelled at the client\'s request');
    return { ...e.task };
  }

  private tasksList(params: Record<string, unknown> | undefined): unknown {
    const size = this.options.listPageSize ?? 50;
    const all = [...this.tasks.values()].map((e) => ({ ...e.task }));
    const cursor = params?.cursor;
    const mode = this.options.listMode ?? 'pages';
    if (mode === 'repeat-cursor') {
      this.issuedCursors.push('the-same-cursor');
      return { tasks: all.slice(0, size), nextCursor: 'the-same-cursor' };
    }
    if (mode === 'endless') {
      const next = `endless/${randomUUID()}`;
      this.issuedCursors.push(next);
      return { tasks: [], nextCursor: next };
    }
    let offset = 0;
    if (cursor !== undefined) {
      const o = typeof cursor === 'string' ? this.cursors.get(cursor) : undefined;
      if (o === undefined) throw new RpcError(ErrorCode.InvalidParams, `Invalid cursor: ${JSON.stringify(cursor)}`);
      offset = o;
    }
    const page = all.slice(offset, offset + size);
    if (offset + size >= all.length) return { tasks: page };
    // Opaque on purpose: slashes, spaces and padding, so a client that parses or re-encodes breaks.
    const next = `c/${randomUUID()} +==`;
    this.cursors.set(next, offset + size);
    this.issuedCursors.push(next);
    return { tasks: page, nextCursor: next };
  }

  private entry(params: Record<string, unknown> | undefined, what: string): Entry {
    const id = params?.taskId;
    const e = typeof id === 'string' ? this.tasks.get(id) : undefined;
    if (!e) throw new RpcError(ErrorCode.InvalidParams, `${what}: Task not found`);
    return e;
  }

  private must(taskId: string): Entry {
    const e = this.tasks.get(taskId);
    if (!e) throw new Error(`fake server: no task ${taskId}`);
    return e;
  }

  private outcomeOf(e: Entry): Outcome {
    if (e.outcome) return e.outcome;
    if (e.task.status === 'completed') return { result: { content: [{ type: 'text', text: `done: ${e.task.taskId}` }] } };
    if (e.task.status === 'cancelled') return { error: { code: ErrorCode.InvalidParams, message: 'Task was cancelled before it produced a result' } };
    return { error: { code: ErrorCode.InternalError, message: e.task.statusMessage ?? 'Task failed' } };
  }

  private release(e: Entry, outcome: Outcome | undefined): void {
    const waiters = e.waiters;
    e.waiters = [];
    for (const w of waiters) w(outcome);
  }
}

// ── Wiring ─────────────────────────────────────────────────────────────────────────────────────

export interface HarnessOptions {
  server?: FakeTaskServerOptions;
  /** Engine options; `logger` and `sessions` are the harness's. `minPollMs` defaults to 1 here. */
  engine?: Partial<Omit<TaskEngineOptions, 'logger' | 'sessions'>>;
  /** The SessionSource's answer (false: a stdio server whose tasks die with its process). */
  tasksOutliveConnection?: boolean;
  /** While this returns false, getSession fails as for a server that cannot be reached; an error, with that error. */
  reachable?: () => boolean | Error;
  /** The SessionSource's isConfigured (false: the server was removed from the configuration); none by default. */
  configured?: () => boolean | undefined;
  /** While this returns a promise, getSession waits for it (a server still connecting), or for its caller's signal. */
  connecting?: () => Promise<void> | undefined;
}

export interface Harness {
  readonly serverId: 'fake';
  server: FakeTaskServer;
  session: McpSession;
  engine: TaskEngine;
  /** The client's log (engine and session). */
  log: MemoryLogger;
  /** The engine's snapshot of a task of the fake server (throws when not tracked). */
  snap(taskId: string): TaskSnapshot;
  /** Moves the engine's clock forward by `ms` (ttl expiry without waiting). */
  advanceEngineClock(ms: number): void;
  close(): Promise<void>;
}

/**
 * A FakeTaskServer, a connected McpSession and a TaskEngine following it. The engine's handlers
 * are attached before `connect()` (as the server manager does), and the session declares the
 * capabilities the engine reports.
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = new FakeTaskServer(serverSide, options.server);
  await server.start();
  const log = new MemoryLogger();
  let skew = 0;
  const ref: { session?: McpSession } = {};
  const sessions: SessionSource = {
    getSession: async (_id, opts) => {
      const connecting = options.connecting?.();
      if (connecting) await (opts?.signal ? raceAbort(connecting, opts.signal) : connecting);
      const reachable = options.reachable?.();
      if (reachable instanceof Error) throw reachable;
      if (reachable === false) throw new Error('Could not reach server "fake"');
      return ref.session!;
    },
    label: () => 'fake',
    tasksOutliveConnection: () => options.tasksOutliveConnection ?? true,
    ...(options.configured && { isConfigured: options.configured }),
  };
  // Date.now() read at each call, so fake timers installed before the harness are honoured.
  const engine = new TaskEngine({ logger: log, sessions, minPollMs: 1, now: () => Date.now() + skew, ...options.engine });
  const session = (ref.session = new McpSession(clientSide, {
    logger: log,
    clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' },
    capabilities: engine.clientCapabilities(),
  }));
  engine.attachSession('fake', session);
  await session.connect();
  return {
    serverId: 'fake',
    server,
    session,
    engine,
    log,
    snap: (taskId) => {
      const s = engine.get(taskKey('fake', taskId));
      if (!s) throw new Error(`the engine does not track ${taskId}`);
      return s;
    },
    advanceEngineClock: (ms) => void (skew += ms),
    close: async () => {
      engine.dispose();
      await session.close();
      await server.close();
    },
  };
}

/** A pollInterval long enough that no poll happens during a test: only notifications move tasks. */
export const NO_POLL = 60_000;

/**
 * For a `describe` block: a function that opens harnesses, every one closed after each test.
 * Call it in the block's body (it registers an `afterEach`).
 */
export function harnessesForEachTest(): (options?: HarnessOptions) => Promise<Harness> {
  const open: Harness[] = [];
  afterEach(async () => {
    while (open.length) await open.pop()!.close();
  });
  return async (options = {}) => {
    const h = await createHarness(options);
    open.push(h);
    return h;
  };
}

/** Waits until the task of the fake server reaches `status`. */
export async function waitStatus(h: Harness, taskId: string, status: LocalTaskStatus): Promise<void> {
  await waitFor(() => h.engine.get(taskKey('fake', taskId))?.status === status, `task ${taskId} ${status} (now ${h.engine.get(taskKey('fake', taskId))?.status})`);
}

/** Waits until every message sent so far in both directions was delivered (a ping round trip). */
export const settle = (h: Harness): Promise<void> => h.session.ping();

/**
 * Completes a task and answers its tasks/result with a result whose structuredContent is nested
 * 10,000 deep (JSON.stringify overflows the stack on it), as the transport delivers it after
 * JSON.parse of the server's bytes (V8 parses any depth). Resolves once the engine has the outcome.
 */
export async function completeWithDeepResult(h: Harness, taskId: string): Promise<void> {
  let deep: unknown = [];
  for (let i = 0; i < 10_000; i++) deep = [deep];
  h.server.override('tasks/result', () => new Promise(() => undefined)); // answered by hand below
  h.server.complete(taskId);
  const req = await h.server.waitForRequest('tasks/result');
  h.server.sendRaw({ jsonrpc: '2.0', id: req.id, result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { deep } } });
  await waitFor(() => h.snap(taskId).outcome !== undefined, 'the outcome');
}
