// A seeded fuzzer that plays a hostile MCP server against the client as the extension composes it:
// McpSession + TaskEngine + TaskHost (elicitation and sampling wrapped as hosted tasks, answered by
// stub prompters), over the in-memory pair, under fake timers. Each case draws a server (its
// capabilities), then sends mutations of valid messages of the 2025-11-25 schema (answers to the
// client's requests, its own requests with and without `task`, notifications), garbage (non-objects,
// batches, bad JSON, 20,000 levels of nesting, duplicate keys, 1e400), drops the connection (the
// client connects again), moves the clock; the user calls tools, cancels, fetches, lists. Then the
// server falls quiet for two minutes, and what must hold whatever a server sends is checked:
//   - no uncaught exception, unhandled rejection, process warning, nor an engine's error message
//     (a TypeError, a stack overflow) in the log or in an answer;
//   - every request the server sent with an id the client can read got one answer (a result, or an
//     error with a sane code), none if the client read a cancel of it (the spec's SHOULD), and the
//     client still answers a ping afterwards;
//   - every message the client sent is well-formed (envelope, params and results of the spec) and
//     allowed (T-TOOL-1/2, T-CAP-2, T-REQ-9, T-RCV-4, T-RCV-8, T-RCV-10, T-LIFE-1, T-LIFE-2 of hosted
//     tasks; no tasks/list or tasks/cancel undeclared; cancels only of its own, non-task requests);
//   - the engine's and the host's snapshots stay well-formed, no tracked task vanishes or comes back
//     from an end (T-LIFE-3), a task waiting for input or ended without its result has had its
//     tasks/result call (T-REQ-3, T-REQ-4), and every promise the user holds settles with a value or an Error;
//   - no timer outlives the client, and the client's requests never storm (counted in the totals).
// FUZZ_SEED (default below) and FUZZ_RUNS (default 400) choose the cases; a failure names the seed of
// its case, which alone reproduces it (FUZZ_SEED=<seed> FUZZ_RUNS=1) with the case's trace;
// FUZZ_KEEP_GOING=1 runs every case and lists each failing one; FUZZ_DUMP_ERRORS=1 prints every
// distinct warning and error the client logged (to read what the checks do not judge).
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import * as z from 'zod/mini';
import type { Answer, FormPrompter, InputOptions, Nav, PickItem, PickOptions } from '../../../src/core/elicitation/handler';
import { createElicitationHandler, listenForElicitationComplete } from '../../../src/core/elicitation/handler';
import { TaskHost } from '../../../src/core/host/taskHost';
import { isPeerError, RpcError } from '../../../src/core/jsonrpc/errors';
import { MODEL_IMMEDIATE_RESPONSE_META, RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import { parseCreateMessage } from '../../../src/core/sampling/request';
import { buildCreateMessageResult } from '../../../src/core/sampling/result';
import type { ServerRequestHandler } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import type { ExecutionPreference } from '../../../src/core/tasks/policy';
import { canTransition, isLocalTaskStatus, isServerTerminal, isTerminal } from '../../../src/core/tasks/status';
import { describeHosted, describeTask } from '../../../src/core/tasks/presentation';
import { formatOutcome } from '../../../src/core/tasks/resultFormat';
import { taskKey } from '../../../src/core/tasks/types';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { messagesIn, TransportParseError } from '../../../src/core/transports/transport';
import { sleep } from '../../../src/core/util/abort';
import { isObject } from '../../../src/core/util/json';
import { Turns } from '../../../src/core/util/turns';
import { Entries, Raw, Rng, deep, describe as show, mutate, nasty, toText } from '../helpers/fuzz';
import { MemoryLogger } from '../helpers/logger';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const KEEP_GOING = process.env.FUZZ_KEEP_GOING === '1';
/** Lines of a failing case's trace shown (FUZZ_TRACE). */
const TRACE = Number(process.env.FUZZ_TRACE ?? 60);
const SERVER = 'hostile';
const T0 = Date.parse('2025-11-25T10:00:00.000Z');
const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;
type WireStatus = (typeof STATUSES)[number];
/** Codes the client may answer with: JSON-RPC's, MCP's URL-required, and -1 (the user declined sampling). */
const SANE_CODES = new Set([-1, -32042, -32600, -32601, -32602, -32603]);
const TOOLS = ['research', 'maybe', 'plain'];
/** What a JavaScript engine says when code meets a value it did not expect: a bug, whoever caught it. */
const INTERNAL = /Maximum call stack|Cannot read propert|Cannot set propert|is not a function|is not iterable|is not an object|Cannot convert|Invalid time value|Invalid array length|Invalid string length|circular structure/;

type Json = Record<string, unknown>;
type Clock = ReturnType<typeof FakeTimers.install>;

// ── What the client may send (schema.ts, 2025-11-25), strictly ──────────────────────────────────

const Obj = z.record(z.string(), z.unknown());
const Id = z.union([z.string(), z.int()]);
const AnyId = z.union([z.string(), z.number()]);
const Iso = z.string().check(
  z.refine((s) => {
    const t = Date.parse(s);
    return !Number.isNaN(t) && new Date(t).toISOString() === s;
  }, 'not an ISO 8601 date'),
);
const NonNegative = z.number().check(z.nonnegative());
const TaskShape = {
  taskId: z.string().check(z.minLength(1)),
  status: z.enum(STATUSES),
  statusMessage: z.optional(z.string()),
  createdAt: Iso,
  lastUpdatedAt: Iso,
  ttl: z.nullable(NonNegative),
  pollInterval: z.optional(NonNegative),
};
const WireTask = z.strictObject(TaskShape);
const Meta = z.optional(Obj);
const Block = z.looseObject({ type: z.string() });
const RESULTS = {
  empty: z.strictObject({ _meta: Meta }),
  task: z.strictObject({ ...TaskShape, _meta: Meta }),
  created: z.strictObject({ task: WireTask, _meta: Meta }),
  list: z.strictObject({ tasks: z.array(WireTask), nextCursor: z.optional(z.string()), _meta: Meta }),
  elicit: z.strictObject({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z.optional(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]))),
    _meta: Meta,
  }),
  message: z.strictObject({ role: z.enum(['user', 'assistant']), content: z.union([Block, z.array(Block)]), model: z.string(), stopReason: z.optional(z.string()), _meta: Meta }),
  roots: z.strictObject({ roots: z.array(z.strictObject({ uri: z.string(), name: z.optional(z.string()) })), _meta: Meta }),
};
const Envelope = {
  request: z.strictObject({ jsonrpc: z.literal('2.0'), id: Id, method: z.string(), params: z.optional(Obj) }),
  notification: z.strictObject({ jsonrpc: z.literal('2.0'), method: z.string(), params: z.optional(Obj) }),
  // An answer carries the id it answers, whatever number the server chose (2^53 + 2 too).
  result: z.strictObject({ jsonrpc: z.literal('2.0'), id: AnyId, result: Obj }),
  error: z.strictObject({ jsonrpc: z.literal('2.0'), id: AnyId, error: z.strictObject({ code: z.int(), message: z.string().check(z.minLength(1)), data: z.optional(z.unknown()) }) }),
};
const TaskIdParams = z.strictObject({ taskId: z.string().check(z.minLength(1)) });
const PARAMS: Record<string, z.ZodMiniType> = {
  initialize: z.strictObject({ protocolVersion: z.literal('2025-11-25'), capabilities: Obj, clientInfo: z.looseObject({ name: z.string(), version: z.string() }) }),
  ping: z.optional(z.strictObject({})),
  'tools/list': z.optional(z.strictObject({ cursor: z.optional(z.string()) })),
  'tools/call': z.strictObject({
    name: z.string(),
    arguments: Obj,
    task: z.optional(z.strictObject({ ttl: z.optional(NonNegative) })),
    _meta: z.optional(z.strictObject({ progressToken: Id })),
  }),
  // T-REQ-9: the taskId param alone, no related-task _meta.
  'tasks/get': TaskIdParams,
  'tasks/result': TaskIdParams,
  'tasks/cancel': TaskIdParams,
  'tasks/list': z.strictObject({ cursor: z.optional(z.string()) }),
  'notifications/initialized': z.optional(z.strictObject({})),
  'notifications/roots/list_changed': z.optional(z.strictObject({})),
  'notifications/cancelled': z.strictObject({ requestId: Id, reason: z.optional(z.string()) }),
  // T-RCV-10: the whole task, no related-task _meta.
  'notifications/tasks/status': WireTask,
};

function problemsOf(schema: z.ZodMiniType, v: unknown): string | undefined {
  const r = schema.safeParse(v);
  return r.success ? undefined : r.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

const idKey = (id: unknown): string => (typeof id === 'number' ? `n${id === 0 ? 0 : id}` : `s${String(id)}`);
const readableId = (id: unknown): id is string | number => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

// ── The client, as src/extension.ts composes it, with stub dialogs ─────────────────────────────

/** A user who answers every prompt after a short (fake) while: the prefilled or first valid choice, sometimes Decline or Cancel. */
class StubPrompter implements FormPrompter {
  #prompts = 0;
  constructor(private readonly rng: Rng) {}
  async pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    const nav = await this.#think(o.signal);
    if (nav) return { nav };
    if (o.canSelectMany) {
      for (const c of [items.filter((i) => i.picked).map((i) => i.value), [], items.slice(0, 1).map((i) => i.value), items.map((i) => i.value)]) {
        if (o.validate?.(c) === undefined) return { value: c };
      }
      return { nav: 'cancel' };
    }
    const item = this.rng.chance(0.7) ? (items.find((i) => i.picked) ?? items[0]) : this.rng.pick(items);
    return { value: item ? [item.value] : [] };
  }
  async input(o: InputOptions): Promise<Answer<string>> {
    const nav = await this.#think(o.signal);
    if (nav) return { nav };
    for (const text of [o.value, 'a', '1', '0', 'a@example.com', '2025-01-01', '2025-01-01T00:00:00Z', 'https://example.com', '1.5', 'true']) {
      if (o.validate(text) === undefined) return { value: text };
    }
    return { nav: 'cancel' };
  }
  async openExternal(): Promise<boolean> {
    return this.rng.chance(0.5);
  }
  close(): void {}
  async #think(signal: AbortSignal): Promise<Nav | undefined> {
    await sleep(this.rng.pick([0, 0, 10, 100, 1000]), signal);
    if (++this.#prompts > 8 || this.rng.chance(0.1)) return this.rng.pick(['decline', 'cancel'] as const);
    return undefined;
  }
}

/**
 * The client. `reconnect` gives the client end of a new connection to the same server, or
 * undefined while the server cannot be reached: the engine asks for a session when it needs one,
 * as the server manager connects again after a connection dropped.
 */
function openClient(clientEnd: InMemoryTransport, rng: Rng, log: MemoryLogger, reconnect: () => InMemoryTransport | undefined) {
  const host = new TaskHost({ logger: log, label: () => SERVER, maxTtlMs: 60_000, defaultTtlMs: 30_000, maxConcurrentPerServer: rng.pick([3, 10]) });
  const elicit = createElicitationHandler({ prompter: () => new StubPrompter(rng), log, serverLabel: () => SERVER, turns: new Turns() });
  const sample: ServerRequestHandler = async (params, ctx) => {
    const plan = parseCreateMessage(params);
    if (!plan.ok) throw plan.error;
    await sleep(rng.pick([0, 10, 1000]), ctx.signal);
    if (rng.chance(0.2)) throw new RpcError(-1, 'User rejected sampling request');
    return buildCreateMessageResult('A stub answer.', 'stub-model', 'endTurn');
  };
  let reconnecting: Promise<McpSession> | undefined;
  const getSession = async (): Promise<McpSession> => {
    if (!client.session.isClosed) return client.session;
    reconnecting ??= (async () => {
      const end = reconnect();
      if (!end) throw new Error(`Could not reach server "${SERVER}": it is gone.`);
      const s = open(end);
      await s.connect();
      return (client.session = s);
    })().finally(() => (reconnecting = undefined));
    return reconnecting;
  };
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    handlers: {
      elicitation: { handle: host.wrap('elicitation/create', elicit), url: true },
      sampling: { handle: host.wrap('sampling/createMessage', sample) },
    },
    sessions: {
      getSession,
      label: () => SERVER,
      tasksOutliveConnection: () => true,
    },
    requestTimeoutMs: 5_000,
    minPollMs: 50,
    random: () => rng.next(),
  });
  host.followRelatedTasks(engine);
  // As the server manager does: handlers registered before the handshake.
  const open = (end: InMemoryTransport) => {
    const s = new McpSession(end, {
      logger: log,
      clientInfo: { name: 'mcp-tasks-fuzz', version: '0.0.0' },
      capabilities: { ...engine.clientCapabilities(), ...host.capabilities() },
      requestTimeoutMs: 5_000,
      initializeTimeoutMs: 5_000,
      serverName: SERVER,
    });
    engine.attachSession(SERVER, s);
    host.attachSession(SERVER, s);
    listenForElicitationComplete(s, SERVER, elicit);
    return s;
  };
  const client = { host, engine, session: open(clientEnd), getSession };
  return client;
}

// ── The hostile server ─────────────────────────────────────────────────────────────────────────

interface ServerTask {
  taskId: string;
  status: WireStatus;
  createdAt: string;
  lastUpdatedAt: string;
  ttl: unknown;
  pollInterval?: unknown;
  outcome?: { result: Json } | { error: Json };
}

/** A request the client sent. */
interface FromClient {
  id: string | number;
  method: string;
  params?: Json;
  answered: boolean;
  /** An answer to it reached the client (one with its id; what the client made of it is its business). */
  delivered?: boolean;
  /** The answer decided already, sent at its next turn (a task created before its CreateTaskResult leaves). */
  prepared?: { result: Json } | { error: Json };
}

/** A request the server sent with an id the client can read, and what the client answered. */
interface ToClient {
  /** The connection it was sent on. */
  gen: number;
  method: unknown;
  params: unknown;
  /** Messages sent with this id (a hostile server repeats ids). */
  sent: number;
  /** Well-formed as a JSON-RPC request (else the answer is -32600). */
  valid: boolean;
  cancelled: boolean;
  answers: Json[];
}

class HostileServer {
  readonly trace: string[] = [];
  readonly problems: string[] = [];
  readonly pending: FromClient[] = [];
  readonly fromClient = new Map<string, FromClient>();
  readonly toClient = new Map<string, ToClient>();
  readonly tasks = new Map<string, ServerTask>();
  /** Task ids the server named in a task of an answer (the only ones the client may ask about). */
  readonly namedTaskIds = new Set<string>();
  readonly cursors = new Set<string>();
  readonly tokens: Array<string | number> = [];
  /** Tools advertised with taskSupport optional or required, and whether tools/call tasks were declared. */
  readonly taskTools = new Set<string>();
  declaresToolTasks = false;
  /** What the initialize answer the client took declared: the protocol revision, tasks.list and tasks.cancel. */
  declared = { version: '', list: false, cancel: false };
  /** This server's capabilities (each case draws its own: not every server declares every part of tasks). */
  profile: { version: string; tasks: Json | undefined };
  /** Hosted tasks the client created for the server: id → its connection, and the statuses it reported, in order. */
  readonly hosted = new Map<string, { gen: number; statuses: WireStatus[] }>();
  readonly elicitationIds: string[] = [];
  /** When each request of the client arrived (fake clock). */
  readonly requestTimes: number[] = [];
  readonly stats = { invalidAnswers: 0, errorAnswers: 0, garbage: 0, requests: 0, mutated: 0 };
  #nextId = 1;
  #nextTask = 1;
  #nextCursor = 1;

  /** Connections so far, less one: ids, answers and hosted tasks belong to one connection. */
  gen = 0;
  /** Connections dropped mid-case; `gone`: the server cannot be reached any more. */
  drops = 0;
  gone = false;
  /** No connection: what the server writes is lost. */
  cut = false;
  /** The longest text the server wrote. */
  longest = 0;

  constructor(
    public end: InMemoryTransport,
    public clientEnd: InMemoryTransport,
    readonly rng: Rng,
  ) {
    end.onmessage = (m) => this.#receive(m);
    this.profile = this.#drawProfile();
  }

  #drawProfile(): HostileServer['profile'] {
    const full = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
    return {
      version: this.rng.chance(0.9) ? '2025-11-25' : '2025-06-18',
      tasks: this.rng.weighted<Json | undefined>([
        [10, full],
        [1, { list: {}, requests: { tools: { call: {} } } }],
        [1, { cancel: {}, requests: { tools: { call: {} } } }],
        [1, { ...full, cancel: false, list: null }],
        [1, { list: {}, cancel: {} }],
        [1, undefined],
      ]),
    };
  }

  /** The server's end of a new connection, for the client's (undefined once the server is gone). */
  reconnect(): InMemoryTransport | undefined {
    if (this.gone) return undefined;
    const [clientEnd, end] = InMemoryTransport.createLinkedPair();
    this.end = end;
    this.clientEnd = clientEnd;
    this.gen++;
    this.cut = false;
    // A server restarted with another version may declare other capabilities.
    if (this.rng.chance(0.2)) this.profile = this.#drawProfile();
    this.pending.length = 0; // what the old connection asked died with it
    end.onmessage = (m) => this.#receive(m);
    this.note(`the client connects again (connection ${this.gen + 1})`);
    return clientEnd;
  }

  /** The server drops the connection (a crash, a network cut). */
  async drop(): Promise<void> {
    this.drops++;
    this.cut = true;
    this.note('the server drops the connection');
    await this.end.close();
  }

  /** Ids are per connection: the client's count starts again on a new one. */
  key(id: unknown): string {
    return `${this.gen}:${idKey(id)}`;
  }

  note(line: string): void {
    this.trace.push(line);
    if (this.trace.length > Math.max(400, TRACE)) this.trace.splice(0, 100);
  }

  /** Writes `value` as JSON text and delivers what a transport would read from it: parsed, a batch split. */
  deliver(value: unknown, what: string): void {
    const text = toText(value);
    this.note(`→ ${what}: ${text.length > 200 ? `${text.slice(0, 160)}… (${text.length} chars)` : text}${this.cut ? ' (lost: no connection)' : ''}`);
    if (this.cut) return;
    this.longest = Math.max(this.longest, text.length);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      const e = new TransportParseError(`Invalid JSON: ${(err as Error).message}`, text);
      queueMicrotask(() => this.clientEnd.onerror?.(e));
      return;
    }
    for (const m of messagesIn(parsed)) {
      this.#sent(m);
      this.end.injectToPeer(m);
    }
  }

  /** Records what a delivered message asks of the client, and what it tells it (task ids, cursors, tools). */
  #sent(m: unknown): void {
    if (!isObject(m)) return;
    if ('method' in m) {
      if (!('id' in m)) {
        // A request is cancelled by the notification the client reads, not by the one the server
        // meant to send: a mutation may cancel another request (requestId -0 is request 0) or none.
        const p = m.params;
        if (m.method === 'notifications/cancelled' && m.jsonrpc === '2.0' && isObject(p) && (typeof p.requestId === 'string' || typeof p.requestId === 'number')) {
          const rec = this.toClient.get(this.key(p.requestId));
          if (rec?.valid) rec.cancelled = true;
        }
        return;
      }
      if (!readableId(m.id)) return;
      const key = this.key(m.id);
      const valid = m.jsonrpc === '2.0' && typeof m.method === 'string' && (m.params === undefined || isObject(m.params)) && (typeof m.id === 'string' || Number.isSafeInteger(m.id));
      const rec = this.toClient.get(key) ?? { gen: this.gen, method: m.method, params: m.params, sent: 0, valid, cancelled: false, answers: [] };
      rec.sent++;
      // The client answers the first well-formed one; a repeat of its id is ignored.
      if (valid && !rec.valid) Object.assign(rec, { method: m.method, params: m.params, valid });
      this.toClient.set(key, rec);
      return;
    }
    const req = readableId(m.id) ? this.fromClient.get(this.key(m.id)) : undefined;
    // The client takes the first answer to a request of its own; later ones it ignores.
    if (!req || req.delivered || !('result' in m || 'error' in m)) return;
    req.delivered = true;
    const r = m.result;
    if (!isObject(r) || 'error' in m) return;
    const named = (t: unknown) => isObject(t) && typeof t.taskId === 'string' && this.namedTaskIds.add(t.taskId);
    named(r);
    named(r.task);
    if (Array.isArray(r.tasks)) r.tasks.forEach(named);
    if (typeof r.nextCursor === 'string' && req.method === 'tasks/list') this.cursors.add(r.nextCursor);
    if (req.method === 'initialize') {
      const caps = isObject(r.capabilities) ? r.capabilities : {};
      const tasks = isObject(caps.tasks) ? caps.tasks : {};
      const requests = isObject(tasks.requests) ? tasks.requests : {};
      const tools = isObject(requests.tools) ? requests.tools : {};
      const on = (flag: unknown) => flag !== undefined && flag !== null && flag !== false;
      this.declaresToolTasks = r.protocolVersion === '2025-11-25' && on(tools.call);
      this.declared = { version: String(r.protocolVersion), list: on(tasks.list), cancel: on(tasks.cancel) };
    }
    if (req.method === 'tools/list' && Array.isArray(r.tools)) {
      for (const t of r.tools) {
        const support = isObject(t) && isObject(t.execution) ? t.execution.taskSupport : undefined;
        if (isObject(t) && typeof t.name === 'string' && (support === 'optional' || support === 'required')) this.taskTools.add(t.name);
      }
    }
  }

  /** Checks one message the client sent, and keeps what it says. */
  #receive(m: unknown): void {
    const bad = (why: string): void => void this.problems.push(`${why}: ${show(m)}`);
    if (!isObject(m)) return bad('the client sent a message that is not an object');
    if ('method' in m && 'id' in m) {
      const p = problemsOf(Envelope.request, m);
      if (p) return bad(`malformed request (${p})`);
      const req: FromClient = { id: m.id as string | number, method: m.method as string, params: m.params as Json | undefined, answered: false };
      if (this.fromClient.has(this.key(req.id))) bad('the client reused a request id');
      this.fromClient.set(this.key(req.id), req);
      this.#checkRequest(req, bad);
      this.note(`← ${req.method} #${req.id} ${show(req.params ?? {})}`);
      this.requestTimes.push(Date.now());
      this.pending.push(req);
      // A connection made again is the client's doing, in the background: its handshake goes through.
      if (req.method === 'initialize' && this.gen > 0) queueMicrotask(() => this.answer(req, 0, 0));
      return;
    }
    if ('method' in m) {
      const p = problemsOf(Envelope.notification, m);
      if (p) return bad(`malformed notification (${p})`);
      this.#checkNotification(m.method as string, m.params as Json | undefined, bad);
      return;
    }
    const isError = 'error' in m;
    const p = problemsOf(isError ? Envelope.error : Envelope.result, m);
    if (p) return bad(`malformed response (${p})`);
    const rec = this.toClient.get(this.key(m.id));
    if (!rec) return bad('a response to a request the server never sent (on this connection)');
    rec.answers.push(m);
    this.note(`← answer #${String(m.id)}: ${show(isError ? m.error : m.result)}`);
    if (isError) {
      const { code, message } = m.error as { code: number; message: string };
      if (!SANE_CODES.has(code)) bad(`an error code that means nothing here (${code})`);
      // Bounded, unless it repeats what the server sent (a 300,000-character mode is named in the
      // refusal, and a hosted task's tasks/result answers that refusal).
      if (message.length > Math.max(4000, this.longest)) bad(`an error message of ${message.length} characters, longer than anything the server sent`);
      if (!rec.valid && code !== -32600) bad('a malformed request answered with something else than -32600');
      if (INTERNAL.test(message)) bad('an answer that reports an internal error of the client');
      return;
    }
    if (!rec.valid) return bad('a malformed request answered with a result');
    this.#checkResult(rec, m.result as Json, bad);
  }

  #checkRequest(req: FromClient, bad: (why: string) => void): void {
    const schema = PARAMS[req.method];
    if (!schema) return bad(`a request the client has no business sending (${req.method})`);
    const p = problemsOf(schema, req.params);
    if (p) return bad(`invalid params of ${req.method} (${p})`);
    const params = req.params ?? {};
    if (req.method === 'tasks/get' || req.method === 'tasks/result' || req.method === 'tasks/cancel') {
      if (!this.namedTaskIds.has(params.taskId as string)) bad(`${req.method} of a task id the server never gave`);
    }
    if (req.method === 'tasks/list' && params.cursor !== undefined && !this.cursors.has(params.cursor as string)) bad('tasks/list with a cursor the server never gave');
    if (req.method === 'tasks/list' && !(this.declared.list && this.declared.version === '2025-11-25')) bad('tasks/list, though the server did not declare tasks.list');
    if (req.method === 'tasks/cancel' && !this.declared.cancel) bad('tasks/cancel, though the server did not declare tasks.cancel');
    if (req.method === 'tools/call' && params.task !== undefined) {
      // T-TOOL-1, T-TOOL-2, T-CAP-2.
      if (!this.declaresToolTasks) bad('tools/call as a task, though the server did not declare tasks.requests.tools.call');
      else if (!this.taskTools.has(params.name as string)) bad(`tools/call of ${String(params.name)} as a task, though it was never advertised with taskSupport optional or required`);
    }
    if (req.method === 'tools/call') {
      const token = (params._meta as { progressToken?: string | number } | undefined)?.progressToken;
      if (token !== undefined) this.tokens.push(token);
    }
  }

  #checkNotification(method: string, params: Json | undefined, bad: (why: string) => void): void {
    const schema = PARAMS[method];
    if (!schema || method === 'initialize' || !method.startsWith('notifications/')) return bad(`a notification the client has no business sending (${method})`);
    const p = problemsOf(schema, params);
    if (p) return bad(`invalid params of ${method} (${p})`);
    if (method === 'notifications/cancelled') {
      const req = this.fromClient.get(this.key(params!.requestId));
      if (!req) bad('notifications/cancelled for a request the client never sent');
      else if (req.method === 'initialize') bad('the client cancelled its initialize request');
      else if (req.method === 'tools/call' && req.params?.task !== undefined) bad('notifications/cancelled for a task-augmented request (use tasks/cancel)');
      this.note(`← cancelled #${String(params!.requestId)}`);
      if (req) this.#drop(req);
    }
    if (method === 'notifications/tasks/status') {
      const t = params as { taskId: string; status: WireStatus };
      const seen = this.hosted.get(t.taskId);
      if (!seen) return bad('a status notification for a task the client never created for the server (or before its CreateTaskResult)');
      if (seen.gen !== this.gen) return bad('a status notification for a task of an earlier connection (T-RCV-8)');
      const last = seen.statuses[seen.statuses.length - 1];
      if (!canTransition(last, t.status)) bad(`hosted task ${t.taskId}: illegal transition ${last} → ${t.status} notified`);
      seen.statuses.push(t.status);
    }
  }

  #checkResult(rec: ToClient, result: Json, bad: (why: string) => void): void {
    const params = isObject(rec.params) ? rec.params : {};
    const related = isObject(params._meta) && isObject(params._meta[RELATED_TASK_META]) ? params._meta[RELATED_TASK_META].taskId : undefined;
    const check = (name: keyof typeof RESULTS) => {
      const p = problemsOf(RESULTS[name], result);
      if (p) bad(`invalid result of ${String(rec.method)} (${p})`);
      return !p;
    };
    switch (rec.method) {
      case 'ping':
        check('empty');
        return;
      case 'roots/list':
        check('roots');
        return;
      case 'tasks/get':
      case 'tasks/cancel':
        check('task');
        return;
      case 'tasks/list':
        check('list');
        return;
      case 'tasks/result': {
        // T-RCV-4: exactly the underlying result, with the related-task _meta.
        const meta = isObject(result._meta) ? result._meta[RELATED_TASK_META] : undefined;
        if (!isObject(meta) || meta.taskId !== params.taskId) bad('a tasks/result answer without the related-task _meta of its task');
        if (!RESULTS.elicit.safeParse(result).success && !RESULTS.message.safeParse(result).success) bad(`tasks/result answered neither an ElicitResult nor a CreateMessageResult: ${show(result)}`);
        return;
      }
      case 'elicitation/create':
      case 'sampling/createMessage': {
        if (typeof related === 'string') {
          const meta = isObject(result._meta) ? result._meta[RELATED_TASK_META] : undefined;
          if (!isObject(meta) || meta.taskId !== related) bad(`an answer to ${rec.method} about task ${related} without its related-task _meta`);
        }
        if (params.task !== undefined) {
          if (!check('created')) return;
          const task = result.task as { taskId: string; status: WireStatus };
          if (task.status !== 'working') bad(`a hosted task created ${task.status} (T-LIFE-1)`);
          if (this.hosted.has(task.taskId)) bad(`a hosted task id given twice (T-RCV-3): ${task.taskId}`);
          this.hosted.set(task.taskId, { gen: this.gen, statuses: [task.status] });
          return;
        }
        check(rec.method === 'elicitation/create' ? 'elicit' : 'message');
        return;
      }
      default:
        bad(`a result for a request of method ${show(rec.method)}, which the client does not serve`);
    }
  }

  #drop(req: FromClient): void {
    const i = this.pending.indexOf(req);
    if (i >= 0) this.pending.splice(i, 1);
  }

  // ── Answers to the client's requests ────────────────────────────────────────────────────────

  now(): string {
    return new Date(Date.now()).toISOString();
  }

  wireTask(t: ServerTask): Json {
    const o: Json = { taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttl: t.ttl };
    if (t.pollInterval !== undefined) o.pollInterval = t.pollInterval;
    if (this.rng.chance(0.3)) o.statusMessage = this.rng.pick(['Working on it', 'Waiting for you', '', 'x'.repeat(5_000)]);
    return o;
  }

  /** A new status for a task: mostly the same or a legal one, sometimes anything (a broken server). */
  evolve(t: ServerTask): void {
    const legal = STATUSES.filter((s) => canTransition(t.status, s));
    const next = this.rng.weighted<WireStatus>([
      [5, t.status],
      [legal.length ? 4 : 0, legal.length ? this.rng.pick(legal) : t.status],
      [1, this.rng.pick(STATUSES)],
    ]);
    if (next !== t.status) {
      t.status = next;
      t.lastUpdatedAt = this.rng.weighted([
        [8, this.now()],
        [1, '2020-01-01T00:00:00.000Z'],
        [1, this.rng.pick(['yesterday', '', '2025-11-25T10:00:00.000+99:00'])],
      ]);
      if (isServerTerminal(next) && !t.outcome) t.outcome = this.outcome(t);
    }
  }

  outcome(t: ServerTask): ServerTask['outcome'] {
    if (t.status === 'completed' || this.rng.chance(0.4)) {
      return { result: { content: [{ type: 'text', text: `done ${t.taskId.slice(0, 20)}` }], ...(this.rng.chance(0.2) && { isError: true }) } };
    }
    return { error: { code: this.rng.pick([-32603, -32602, 42]), message: 'the tool failed' } };
  }

  newTask(): ServerTask {
    const reuse = this.tasks.size > 0 && this.rng.chance(0.08);
    const taskId = reuse
      ? this.rng.pick([...this.tasks.keys()])
      : this.rng.weighted([
          [20, `task-${this.#nextTask++}`],
          [1, `${'long-id-'.repeat(200)}${this.#nextTask++}`],
          [1, `t\u0000${this.#nextTask++}`],
          [1, `🦀-${this.#nextTask++}`],
        ]);
    const created = this.rng.chance(0.9) ? this.now() : this.rng.pick(['not a date', '1970-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']);
    const t: ServerTask = {
      taskId,
      status: this.rng.chance(0.85) ? 'working' : this.rng.pick(STATUSES),
      createdAt: created,
      lastUpdatedAt: created,
      ttl: this.rng.weighted<unknown>([
        [4, 60_000],
        [2, null],
        [1, 0],
        [1, 1_000],
        [1, -1],
        [1, 1e308],
        [1, Infinity],
      ]),
      pollInterval: this.rng.weighted<unknown>([
        [4, undefined],
        [3, 1_000],
        [1, 0],
        [1, -5],
        [1, -0],
        [1, 1e308],
        [1, 2 ** 31],
        [1, 0.5],
      ]),
    };
    if (isServerTerminal(t.status)) t.outcome = this.outcome(t);
    this.tasks.set(taskId, t);
    return t;
  }

  /** A valid answer to a client request (undefined: the server keeps it waiting), or an error. */
  validAnswer(req: FromClient): { result: Json } | { error: Json } | undefined {
    const p = req.params ?? {};
    const task = typeof p.taskId === 'string' ? this.tasks.get(p.taskId) : undefined;
    const notFound = { error: { code: -32602, message: 'Failed to retrieve task: Task not found' } };
    switch (req.method) {
      case 'initialize':
        return {
          result: {
            protocolVersion: this.profile.version,
            capabilities: { tools: { listChanged: true }, logging: {}, ...(this.profile.tasks && { tasks: this.profile.tasks }) },
            serverInfo: { name: 'hostile', version: '6.6.6' },
          },
        };
      case 'ping':
        return { result: {} };
      case 'tools/list':
        return {
          result: {
            tools: [
              { name: 'research', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } },
              { name: 'maybe', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, execution: { taskSupport: 'optional' } },
              { name: 'plain', inputSchema: { type: 'object' } },
            ],
          },
        };
      case 'tools/call': {
        if (p.task === undefined) {
          return this.rng.weighted<{ result: Json } | { error: Json }>([
            [6, { result: { content: [{ type: 'text', text: 'plain answer' }] } }],
            [1, { result: { task: this.wireTask(this.newTask()) } }],
            [1, { error: { code: -32600, message: 'Task augmentation required for tools/call requests' } }],
          ]);
        }
        if (this.rng.chance(0.05)) return { result: { content: [{ type: 'text', text: 'the task was ignored' }] } };
        const t = this.newTask();
        const meta = this.rng.chance(0.2) ? { _meta: { [MODEL_IMMEDIATE_RESPONSE_META]: this.rng.pick(['Started.', 42, 'x'.repeat(10_000)]) } } : {};
        return { result: { task: this.wireTask(t), ...meta } };
      }
      case 'tasks/get':
        if (!task) return notFound;
        this.evolve(task);
        return { result: this.wireTask(task) };
      case 'tasks/result': {
        if (!task) return notFound;
        if (!isServerTerminal(task.status)) {
          const choice = this.rng.weighted([
            [5, 'wait'],
            [3, 'end'],
            [1, 'sloppy'],
          ]);
          if (choice === 'wait') return undefined;
          if (choice === 'end') {
            task.status = this.rng.pick(['completed', 'failed', 'cancelled'] as const);
            task.lastUpdatedAt = this.now();
            task.outcome ??= this.outcome(task);
          } else return { result: { content: [{ type: 'text', text: 'not yet' }] } };
        }
        const o = task.outcome ?? this.outcome(task)!;
        if ('error' in o) return o;
        const named = this.rng.chance(0.1) ? 'another-task' : task.taskId;
        return { result: { ...o.result, _meta: { [RELATED_TASK_META]: { taskId: named } } } };
      }
      case 'tasks/list': {
        const all = [...this.tasks.values()];
        const page = all.filter(() => this.rng.chance(0.7)).map((t) => {
          this.evolve(t);
          return this.wireTask(t);
        });
        const next = this.rng.weighted<string | undefined>([
          [3, undefined],
          [1, `cursor-${this.#nextCursor++}`],
          [1, this.cursors.size ? this.rng.pick([...this.cursors]) : 'cursor-0'],
        ]);
        return { result: { tasks: page, ...(next !== undefined && { nextCursor: next }) } };
      }
      case 'tasks/cancel':
        if (!task) return notFound;
        if (isServerTerminal(task.status)) return { error: { code: -32602, message: `Cannot cancel task: already in terminal status '${task.status}'` } };
        if (this.rng.chance(0.8)) {
          task.status = 'cancelled';
          task.lastUpdatedAt = this.now();
          task.outcome ??= this.outcome(task);
        }
        return { result: this.wireTask(task) };
      default:
        return { error: { code: -32601, message: `Method not found: ${req.method}` } };
    }
  }

  /** Answers one pending request: valid, mutated, as an error, twice, under another id... */
  answer(req: FromClient, mutationRate: number, envelopeRate = 0.3): void {
    const body = req.prepared ?? this.validAnswer(req);
    if (!req.prepared && req.method === 'tools/call' && body && 'result' in body && isObject(body.result.task) && this.rng.chance(0.15)) {
      // The task exists (tasks/list shows it, notifications name it) before its CreateTaskResult leaves.
      req.prepared = body;
      this.note(`  (creates ${String(body.result.task.taskId)} for tools/call #${req.id}, answers later)`);
      return;
    }
    if (body === undefined) {
      this.note(`  (keeps ${req.method} #${req.id} waiting)`);
      return;
    }
    this.#drop(req);
    req.answered = true;
    const created = req.method === 'tools/call' && 'result' in body && isObject(body.result.task) ? this.tasks.get(body.result.task.taskId as string) : undefined;
    if (created && this.rng.chance(0.15)) {
      // Over another stream, a status notification may overtake the answer that creates its task.
      this.evolve(created);
      this.deliver({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: this.wireTask(created) }, 'an early notifications/tasks/status');
    }
    let envelope: Json = { jsonrpc: '2.0', id: req.id, ...body };
    let what = `answer ${req.method} #${req.id}`;
    if (this.rng.chance(mutationRate)) {
      const target = 'result' in body ? 'result' : 'error';
      const m = mutate(body[target as keyof typeof body], this.rng);
      envelope[target] = m.value;
      what += ` mutated ${m.what.join(' ')}`;
      this.stats.mutated++;
    }
    const op = !this.rng.chance(envelopeRate) ? 'plain' : this.rng.weighted<string>([
      [4, 'error'],
      [1, 'twice'],
      [1, 'string-id'],
      [1, 'unknown-id'],
      [1, 'both'],
      [1, 'neither'],
      [1, 'batch'],
      [1, 'envelope'],
      [1, 'method'],
    ]);
    switch (op) {
      case 'error':
        envelope = { jsonrpc: '2.0', id: req.id, error: this.rng.pick([{ code: -32603, message: 'boom' }, { code: 'x', message: 1 }, { code: 1.5, message: 'frac' }, { message: 'no code' }, null, { code: -32602, message: 'x'.repeat(100_000), data: deep(2_000) }]) };
        break;
      case 'twice':
        this.deliver(envelope, `${what} (first of two)`);
        break;
      case 'string-id':
        envelope.id = String(req.id);
        break;
      case 'unknown-id':
        envelope.id = this.rng.pick([987_654, 'nope', -0, 2 ** 53 + 2]);
        break;
      case 'both':
        envelope.error = { code: -32603, message: 'both' };
        if (!('result' in envelope)) envelope.result = {};
        break;
      case 'neither':
        delete envelope.result;
        delete envelope.error;
        break;
      case 'batch':
        envelope = [envelope, { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'in a batch' } }, 17] as unknown as Json;
        break;
      case 'envelope': {
        const m = mutate(envelope, this.rng, 2);
        envelope = m.value as Json;
        what += ` envelope ${m.what.join(' ')}`;
        break;
      }
      case 'method':
        envelope.method = 'tools/call';
        break;
    }
    if (op !== 'plain') what += ` (${op})`;
    this.deliver(envelope, what);
  }

  // ── The server's own requests and notifications ─────────────────────────────────────────────

  #relatedMeta(): Json | undefined {
    const ids = [...this.tasks.keys()];
    if (!ids.length || this.rng.chance(0.5)) return this.rng.chance(0.1) ? { [RELATED_TASK_META]: this.rng.pick([{ taskId: 'unknown-task' }, { taskId: 5 }, 'x', null]) } : undefined;
    const taskId = this.rng.pick(ids);
    const t = this.tasks.get(taskId)!;
    // T-REQ-3: the server asks while its task waits for input.
    if (!isServerTerminal(t.status) && this.rng.chance(0.7)) {
      t.status = 'input_required';
      t.lastUpdatedAt = this.now();
    }
    return { [RELATED_TASK_META]: { taskId } };
  }

  elicitParams(): Json {
    const url = this.rng.chance(0.25);
    if (url) {
      const elicitationId = `el-${this.#nextId}`;
      this.elicitationIds.push(elicitationId);
      return { mode: 'url', message: 'Sign in, please', url: this.rng.pick(['https://example.com/auth', 'http://127.0.0.1/x', `https://example.com/${'a'.repeat(200)}`]), elicitationId };
    }
    const properties: Json = {};
    const kinds = [
      () => ({ type: 'string', title: 'Name', minLength: 1 }),
      () => ({ type: 'number', minimum: 0, maximum: 10 }),
      () => ({ type: 'integer', default: 3 }),
      () => ({ type: 'boolean', default: true }),
      () => ({ type: 'string', enum: ['red', 'green'] }),
      () => ({ type: 'string', oneOf: [{ const: 'a', title: 'A' }, { const: 'b', title: 'B' }] }),
      () => ({ type: 'array', items: { type: 'string', enum: ['x', 'y'] }, minItems: 1 }),
      () => ({ type: 'string', format: this.rng.pick(['email', 'uri', 'date', 'date-time']) }),
    ];
    const n = this.rng.int(0, 3);
    for (let i = 0; i < n; i++) properties[`f${i}`] = this.rng.pick(kinds)();
    const required = Object.keys(properties).filter(() => this.rng.chance(0.5));
    return { message: this.rng.pick(['Your name?', 'Pick one', 'x'.repeat(3_000), '']), requestedSchema: { type: 'object', properties, ...(required.length && { required }) } };
  }

  sampleParams(): Json {
    return {
      messages: [{ role: 'user', content: this.rng.chance(0.8) ? { type: 'text', text: 'Write a haiku' } : [{ type: 'text', text: 'Hi' }, { type: 'image', data: 'aGVsbG8=', mimeType: 'image/png' }] }],
      maxTokens: this.rng.pick([100, 1, 1e308, 0.5]),
      ...(this.rng.chance(0.3) && { systemPrompt: 'Be brief.' }),
      ...(this.rng.chance(0.2) && { modelPreferences: { hints: [{ name: 'gpt' }] } }),
    };
  }

  /** A request of the server's: mostly a well-formed one, sometimes mutated, its id sometimes broken. */
  request(mutationRate: number): void {
    const hosted = [...this.hosted.keys()];
    const hostedId = () => (hosted.length && this.rng.chance(0.8) ? this.rng.pick(hosted) : this.rng.pick(['nope', '', 'x'.repeat(1_000)]));
    const [method, params] = this.rng.weighted<() => [string, Json | undefined]>([
      [6, () => ['elicitation/create', this.elicitParams()]],
      [4, () => ['sampling/createMessage', this.sampleParams()]],
      [3, () => ['tasks/get', { taskId: hostedId() }]],
      [3, () => ['tasks/result', { taskId: hostedId() }]],
      [2, () => ['tasks/cancel', { taskId: hostedId() }]],
      [2, () => ['tasks/list', this.rng.chance(0.3) ? { cursor: this.rng.pick(['bad', 'AAAA', '']) } : {}]],
      [1, () => ['ping', undefined]],
      [1, () => ['roots/list', {}]],
      [1, () => ['resources/list', {}]],
    ])();
    let p: Json | undefined = params;
    if (p && (method === 'elicitation/create' || method === 'sampling/createMessage')) {
      if (this.rng.chance(0.6)) {
        p.task = this.rng.weighted<unknown>([
          [6, { ttl: this.rng.pick([1_000, 30_000, 600_000]) }],
          [2, {}],
          [1, { ttl: this.rng.pick([-1, -0, 1e308, Infinity, 0.5, 'x', null]) }],
          [1, null],
        ]);
      }
      const meta = this.#relatedMeta();
      if (meta) p._meta = meta;
    }
    let what: string;
    [p, what] = this.#maybeMutate(p, method, mutationRate);
    const id = this.rng.weighted<unknown>([
      [20, this.#nextId++],
      [4, `srv-${this.#nextId++}`],
      [1, 1], // an id used before, mostly
      [1, -0],
      [1, 2 ** 53 + 2],
      [1, 1.5],
      [1, null],
      [1, { id: 1 }],
    ]);
    let msg: Json = { jsonrpc: '2.0', id, method, ...(p !== undefined && { params: p }) };
    if (this.rng.chance(mutationRate / 4)) {
      const m = mutate(msg, this.rng, 2);
      msg = m.value as Json;
      what += ` envelope ${m.what.join(' ')}`;
    }
    this.stats.requests++;
    this.deliver(msg, `request ${what}`);
  }

  /** A notification: task status, progress, log, list changed, cancelled, elicitation complete. */
  notification(mutationRate: number): void {
    const tasks = [...this.tasks.values()];
    const [method, params] = this.rng.weighted<() => [string, Json | undefined]>([
      [
        tasks.length ? 6 : 0,
        () => {
          const t = this.rng.pick(tasks);
          this.evolve(t);
          return ['notifications/tasks/status', this.wireTask(t)];
        },
      ],
      [
        3,
        () => [
          'notifications/progress',
          {
            progressToken: this.tokens.length && this.rng.chance(0.8) ? this.rng.pick(this.tokens) : this.rng.pick(['nope', 7]),
            progress: this.rng.pick([0, 1, 50, -1, 1e308, Infinity, -0, 0.5]),
            ...(this.rng.chance(0.5) && { total: this.rng.pick([100, 0, -1, Infinity]) }),
            ...(this.rng.chance(0.5) && { message: this.rng.pick(['halfway', '', 'x'.repeat(50_000)]) }),
          },
        ],
      ],
      [2, () => ['notifications/message', { level: this.rng.pick(['info', 'error', 'debug', 'emergency', 'nonsense', '__proto__', 'constructor']), data: this.rng.pick<unknown>(['hello', { a: 1 }, 'x'.repeat(100_000), deep(5_000), null]) }]],
      [1, () => ['notifications/tools/list_changed', undefined]],
      [
        2,
        () => {
          const open = [...this.toClient.entries()].filter(([, r]) => r.gen === this.gen && r.answers.length === 0 && !r.cancelled);
          const [key] = open.length ? this.rng.pick(open) : ['0:n424242'];
          const id = key.slice(key.indexOf(':') + 1);
          return ['notifications/cancelled', { requestId: id[0] === 'n' ? Number(id.slice(1)) : id.slice(1), reason: 'never mind' }];
        },
      ],
      [1, () => ['notifications/elicitation/complete', { elicitationId: this.elicitationIds.length ? this.rng.pick(this.elicitationIds) : 'el-0' }]],
      [1, () => ['notifications/resources/updated', { uri: 'file:///x' }]],
    ])();
    const [p, what] = this.#maybeMutate(params, method, mutationRate);
    this.deliver({ jsonrpc: '2.0', method, ...(p !== undefined && { params: p }) }, `notification ${what}`);
  }

  /** `params` mutated at `mutationRate`, and how the trace names the message (`method`, and the mutations). */
  #maybeMutate(params: Json | undefined, method: string, mutationRate: number): [Json | undefined, string] {
    if (!params || !this.rng.chance(mutationRate)) return [params, method];
    const m = mutate(params, this.rng);
    this.stats.mutated++;
    return [m.value as Json, `${method} mutated ${m.what.join(' ')}`];
  }

  /** Many requests at once (T-RCV-9: the limits answer what they refuse), sent one by one or as one batch. */
  flood(mutationRate: number): void {
    const n = this.rng.pick([20, 70, 150]);
    if (this.rng.chance(0.5)) {
      for (let i = 0; i < n; i++) this.request(mutationRate / 3);
      return;
    }
    const batch = Array.from({ length: n }, () => ({ jsonrpc: '2.0', id: `flood-${this.#nextId++}`, method: this.rng.pick(['ping', 'tasks/list', 'elicitation/create']), params: { message: 'Flood?', requestedSchema: { type: 'object', properties: {} }, ...(this.rng.chance(0.5) && { task: {} }) } }));
    this.deliver(batch, `a batch of ${n} requests`);
  }

  /** What no peer should send: non-objects, batches, bad JSON, nesting, duplicate keys. */
  garbage(): void {
    this.stats.garbage++;
    const ping = () => ({ jsonrpc: '2.0', id: `g-${this.#nextId++}`, method: 'ping' });
    const [value, what] = this.rng.weighted<() => [unknown, string]>([
      [2, () => [this.rng.pick<unknown>(['hello', 42, null, true, -0, Infinity]), 'a non-object']],
      [1, () => [[], 'an empty batch']],
      [2, () => [[ping(), 'junk', { jsonrpc: '2.0' }, ping()], 'a batch']],
      [1, () => [new Raw('{"jsonrpc":"2.0","id":'), 'JSON cut short']],
      [1, () => [new Raw('{"jsonrpc":"2.0","method":"ping","id":1}{"x":1}'), 'two values on one line']],
      [1, () => [deep(20_000, this.rng.pick(['array', 'object'] as const)), 'deep nesting']],
      [1, () => [new Entries([['jsonrpc', '2.0'], ['id', `dup-${this.#nextId++}`], ['method', 'ping'], ['method', 'tasks/list'], ['id', 0]]), 'duplicate keys']],
      [1, () => [{ jsonrpc: '2.0', id: this.rng.pick([1, 'srv-1', 'never-sent']), result: nasty(this.rng) }, 'a response to a request never made']],
      [1, () => [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }, 'an error without id']],
      [1, () => [new Raw('{"__proto__":{"jsonrpc":"2.0","method":"ping","id":"proto"},"constructor":1}'), '__proto__']],
      [1, () => [{ jsonrpc: '2.0', id: `big-${this.#nextId++}`, method: 'x'.repeat(100_000) }, 'a huge method name']],
    ])();
    this.deliver(value, `garbage: ${what}`);
  }
}

// ── One case ───────────────────────────────────────────────────────────────────────────────────

const errorLines = new Set<string>();

interface Totals {
  /** The most requests the client sent within one second of a case. */
  busiest: number;
  cases: number;
  drops: number;
  ended: number;
  outcomes: number;
  inputRequired: number;
  connected: number;
  steps: number;
  tracked: number;
  hostedTasks: number;
  serverRequests: number;
  answered: number;
  invalidRequestAnswers: number;
  ignoredLogged: number;
  invalidResults: number;
  userErrors: number;
  mutated: number;
}

/** Lets every message in flight land (the in-memory pair delivers on microtasks; the host announces on setImmediate). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((r) => setImmediate(r));
}

function checkSnapshots(c: ReturnType<typeof openClient>, everSeen: Set<string>, removed: Set<string>): string[] {
  const out: string[] = [];
  const dateOk = (s: unknown) => typeof s === 'string' && !Number.isNaN(Date.parse(s)) && new Date(Date.parse(s)).toISOString() === s;
  const keys = new Set<string>();
  for (const t of c.engine.list()) {
    keys.add(t.key);
    const where = `task ${show(t.taskId)}`;
    if (!isLocalTaskStatus(t.status)) out.push(`${where}: status ${show(t.status)}`);
    if (t.kind !== 'task' && t.kind !== 'direct') out.push(`${where}: kind ${show(t.kind)}`);
    if (typeof t.taskId !== 'string' || t.taskId === '') out.push(`${where}: taskId`);
    if (t.key !== taskKey(t.serverId, t.taskId) && !t.key.startsWith(`${taskKey(t.serverId, t.taskId)}\u0000earlier-`)) out.push(`${where}: key ${show(t.key)}`);
    if (!dateOk(t.createdAt)) out.push(`${where}: createdAt ${show(t.createdAt)}`);
    if (!dateOk(t.lastUpdatedAt)) out.push(`${where}: lastUpdatedAt ${show(t.lastUpdatedAt)}`);
    if (t.ttl !== null && !(Number.isFinite(t.ttl) && t.ttl >= 0)) out.push(`${where}: ttl ${show(t.ttl)}`);
    if (t.pollInterval !== undefined && !Number.isFinite(t.pollInterval)) out.push(`${where}: pollInterval ${show(t.pollInterval)}`);
    const poll = c.engine.effectivePollInterval(t.key);
    if (poll !== undefined && !(Number.isFinite(poll) && poll >= 50 && poll <= 3_600_000)) out.push(`${where}: effective poll interval ${poll}`);
    if (t.progress && (!Number.isFinite(t.progress.progress) || (t.progress.total !== undefined && !Number.isFinite(t.progress.total)))) out.push(`${where}: progress ${show(t.progress)}`);
    if (t.lastServerStatus !== undefined && !STATUSES.includes(t.lastServerStatus)) out.push(`${where}: lastServerStatus ${show(t.lastServerStatus)}`);
    if ((t.status === 'lost' || t.status === 'expired') && !t.note) out.push(`${where}: ${t.status} without a note saying why`);
    if (t.kind === 'direct' && isTerminal(t.status) && t.status !== 'cancelled' && !t.outcome && !t.note) out.push(`${where}: a direct call ended ${t.status} with neither its outcome nor a note`);
    if (t.outcome && t.outcome.kind === 'error' && !(Number.isInteger(t.outcome.error.code) && typeof t.outcome.error.message === 'string')) out.push(`${where}: outcome ${show(t.outcome)}`);
    // What the view shows of it: its row, and its result document.
    try {
      const row = describeTask(t, Date.now());
      if (/\bNaN\b|\bundefined\b|\[object Object\]/.test(row)) out.push(`${where}: its row reads ${show(row)}`);
      formatOutcome(t, 'lab');
    } catch (err) {
      out.push(`${where}: showing it throws ${(err as Error).message}`);
    }
  }
  // Nothing tracked vanishes: a key leads to its task, or (an id the server reused) the earlier task is kept apart.
  for (const key of everSeen) {
    if (c.engine.get(key)) continue;
    if (removed.has(key) && [...keys].some((k) => k.startsWith(`${key}\u0000earlier-`))) continue;
    out.push(`the task under key ${show(key)} was dropped${removed.has(key) ? ' (onDidRemove)' : ' silently'}`);
  }
  for (const h of c.host.list()) {
    const where = `hosted task ${h.taskId}`;
    if (!STATUSES.includes(h.status)) out.push(`${where}: status ${show(h.status)}`);
    if (!dateOk(h.createdAt) || !dateOk(h.lastUpdatedAt)) out.push(`${where}: dates ${h.createdAt} ${h.lastUpdatedAt}`);
    if (!(Number.isInteger(h.ttl) && h.ttl >= 1_000 && h.ttl <= 60_000)) out.push(`${where}: ttl ${h.ttl} out of the host's bounds`);
    if (/\bNaN\b|\bundefined\b/.test(describeHosted(h, Date.now()))) out.push(`${where}: its row reads ${show(describeHosted(h, Date.now()))}`);
  }
  return out;
}

async function runCase(seed: number, clock: Clock, totals: Totals, crashes: { seen: string[] }): Promise<void> {
  const rng = new Rng(seed);
  const clientRng = new Rng(seed ^ 0x9e3779b9);
  const log = new MemoryLogger();
  const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
  const server = new HostileServer(serverEnd, clientEnd, rng);
  await serverEnd.start();
  const c = openClient(clientEnd, clientRng, log, () => server.reconnect());
  const everSeen = new Set<string>();
  const removed = new Set<string>();
  /** T-LIFE-3 as the user sees it: a task shown ended is never shown running again. */
  const lastStatus = new Map<string, string>();
  const revived: string[] = [];
  c.engine.onDidChange((t) => {
    everSeen.add(t.key);
    const before = lastStatus.get(t.key);
    if (before !== undefined && isTerminal(before as never) && !isTerminal(t.status)) revived.push(`task ${show(t.taskId)} went from ${before} back to ${t.status}`);
    lastStatus.set(t.key, t.status);
  });
  c.engine.onDidRemove((k) => {
    removed.add(k);
    lastStatus.delete(k); // a server that reuses an id: the key names a new task now
  });
  const userCalls: Array<Promise<void>> = [];
  const userErrors: string[] = [];
  const user = (what: string, p: Promise<unknown>) => {
    server.note(`user: ${what}`);
    userCalls.push(
      p.then(
        () => undefined,
        (err: unknown) => {
          totals.userErrors++;
          // An empty message is allowed only as the server's own (a JSON-RPC error it sent with message "").
          const empty = err instanceof Error && !err.message && !isPeerError(err);
          if (!(err instanceof Error) || empty || /\[object Object\]/.test(err.message) || INTERNAL.test(err.message)) userErrors.push(`${what} rejected with ${show(err instanceof Error ? err.message : err)}`);
        },
      ),
    );
  };
  const mutationRate = rng.pick([0.1, 0.3, 0.6]);
  const fail = (problems: string[]) => {
    if (!problems.length) return;
    throw new Error(`${problems.slice(0, 10).join('\n')}\n── trace of the case (last ${TRACE} lines) ──\n${server.trace.slice(-TRACE).join('\n')}`);
  };

  /** The case proper, once connected: steps of the server, the user and the clock, then quiet, then the checks. */
  const play = async () => {
    // Mostly, a task first, so that the hostile part has one to break.
    if (rng.chance(0.7)) {
      user('callTool research (warm-up)', c.engine.callTool(SERVER, 'research', { preference: 'task' }));
      for (const method of ['tools/list', 'tools/call']) {
        await settle();
        const req = server.pending.find((r) => r.method === method);
        if (req) server.answer(req, 0, 0);
      }
      await settle();
    }
    const steps = rng.int(8, 30);
    for (let i = 0; i < steps; i++) {
      totals.steps++;
      const keys = c.engine.list().map((t) => t.key);
      const action = rng.weighted<string>([
        [server.pending.length ? 30 : 0, 'answer'],
        [14, 'request'],
        [12, 'notification'],
        [4, 'garbage'],
        [10, 'tick'],
        [12, 'user'],
        [server.drops < 2 ? 1 : 0, 'drop'],
        [1, 'flood'],
      ]);
      switch (action) {
        case 'answer':
          server.answer(rng.pick(server.pending), mutationRate);
          break;
        case 'request':
          server.request(mutationRate);
          break;
        case 'notification':
          server.notification(mutationRate);
          break;
        case 'garbage':
          server.garbage();
          break;
        case 'drop':
          await server.drop();
          break;
        case 'flood':
          server.flood(mutationRate);
          break;
        case 'tick': {
          const ms = rng.pick([0, 5, 50, 500, 1_000, 3_000, 10_000, 31_000]);
          server.note(`tick ${ms} ms`);
          await clock.tickAsync(ms);
          break;
        }
        case 'user': {
          const kind = rng.weighted<string>([
            [6, 'call'],
            [keys.length ? 2 : 0, 'cancel'],
            [keys.length ? 2 : 0, 'fetch'],
            [keys.length ? 1 : 0, 'respond'],
            [1, 'refresh'],
            [1, 'ping'],
          ]);
          const key = keys.length ? rng.pick(keys) : '';
          if (kind === 'call') {
            const tool = rng.pick([...TOOLS, 'nope']);
            const preference = rng.pick<ExecutionPreference | undefined>([undefined, 'auto', 'task', 'direct']);
            const ttlMs = rng.pick([undefined, 60_000, 1]);
            user(`callTool ${tool} ${preference ?? ''} ttl ${ttlMs ?? '-'}`, c.engine.callTool(SERVER, tool, { arguments: rng.chance(0.5) ? { q: 'tide pools' } : {}, preference, ttlMs }));
          } else if (kind === 'cancel') user(`cancel ${key}`, c.engine.cancel(key));
          else if (kind === 'fetch') user(`fetchResult ${key}`, c.engine.fetchResult(key));
          else if (kind === 'respond') {
            server.note(`user: respond ${key}`);
            c.engine.respond(key);
          } else if (kind === 'refresh') user('refreshList', c.engine.refreshList(SERVER));
          else user('ping', c.session.ping());
          break;
        }
      }
      await settle();
    }

    if (rng.chance(0.1)) {
      // The server goes away: its requests die with the connection; whatever the user waits for settles.
      server.gone = true;
      await server.drop();
      await clock.tickAsync(30_000);
      await settle();
      const problems = [...server.problems, ...checkSnapshots(c, everSeen, removed)];
      if (c.host.list().length) problems.push(`hosted tasks outlived their connection: ${c.host.list().length}`);
      totals.drops++;
      fail(problems);
      return;
    }
    // Quiet: the server sends nothing more; every dialog, hosted task and timeout runs out.
    server.note('quiet: 120 s');
    for (let i = 0; i < 4; i++) {
      await clock.tickAsync(30_000);
      await settle();
    }
    // The client still answers a ping (on a connection made again, if the last one dropped).
    if (c.session.isClosed) {
      const again = c.getSession().catch((err: unknown) => userErrors.push(`connecting again failed: ${show((err as Error).message)}`));
      await settle();
      await clock.tickAsync(0);
      await again;
    }
    server.deliver({ jsonrpc: '2.0', id: 'final-ping', method: 'ping' }, 'the final ping');
    await settle();
    await clock.tickAsync(0);
    await settle();

    const problems = [...server.problems];
    const finalPing = server.toClient.get(server.key('final-ping'))!;
    if (finalPing.answers.length !== 1 || !isObject(finalPing.answers[0].result)) problems.push(`the final ping was answered ${show(finalPing.answers)}`);
    for (const [key, rec] of server.toClient) {
      totals.serverRequests++;
      totals.answered += rec.answers.length;
      totals.invalidRequestAnswers += rec.answers.filter((a) => isObject(a.error) && a.error.code === -32600).length;
      const n = rec.answers.length;
      // A request whose connection dropped may go unanswered.
      const dropped = rec.gen !== server.gen;
      if (n > rec.sent || (!rec.cancelled && !dropped && (n < 1 || (rec.sent === 1 && n !== 1)))) {
        problems.push(`request ${key} (${show(rec.method)}, sent ${rec.sent}×${rec.cancelled ? ', then cancelled' : ''}) was answered ${n} times`);
      }
    }
    problems.push(...checkSnapshots(c, everSeen, removed));
    problems.push(...revived);
    // Never lose a result: a task that ended completed or failed, with its result not in hand, has had its tasks/result call.
    for (const t of c.engine.list()) {
      const ended = t.status === 'completed' || t.status === 'failed';
      if (ended && t.kind === 'task' && t.origin !== 'server-list' && !t.outcome && !t.key.includes('\u0000earlier-') && ![...server.fromClient.values()].some((r) => r.method === 'tasks/result' && r.params?.taskId === t.taskId)) {
        problems.push(`task ${show(t.taskId)} ended ${t.status}, and no tasks/result was sent for it`);
      }
    }
    // T-REQ-3: a task waiting for input has had its tasks/result call.
    for (const t of c.engine.list()) {
      if (t.status === 'input_required' && ![...server.fromClient.values()].some((r) => r.method === 'tasks/result' && r.params?.taskId === t.taskId)) {
        problems.push(`task ${show(t.taskId)} waits for input, and no tasks/result was sent for it (T-REQ-3)`);
      }
    }
    totals.tracked += c.engine.list().length;
    totals.ended += c.engine.list().filter((t) => isTerminal(t.status)).length;
    totals.outcomes += c.engine.list().filter((t) => t.outcome).length;
    totals.inputRequired += c.engine.list().filter((t) => t.status === 'input_required' || t.lastServerStatus === 'input_required').length;
    totals.hostedTasks += server.hosted.size;
    fail(problems);
  };

  let failure: Error | undefined;
  try {
    // The handshake: a valid answer to initialize, mostly.
    const connected = c.session.connect().then(
      () => true,
      (err: unknown) => {
        if (!(err instanceof Error) || !err.message) userErrors.push(`connect rejected with ${show(err)}`);
        return false;
      },
    );
    await settle();
    // A server may ask before it answers initialize.
    if (rng.chance(0.1)) server.request(mutationRate);
    const init = server.pending.find((r) => r.method === 'initialize');
    assert.ok(init, 'the client sends initialize');
    const broken = rng.chance(0.1);
    server.answer(init, broken ? 0.5 : 0, broken ? 0.5 : 0);
    await settle();
    // An answer the client cannot take leaves initialize to its timeout (5 s).
    let up: boolean | undefined;
    void connected.then((v) => (up = v));
    for (let i = 0; i < 8 && up === undefined; i++) {
      await clock.tickAsync(1_000);
      await settle();
    }
    assert.notEqual(up, undefined, 'connect() settles within its timeout');
    if (up) {
      totals.connected++;
      await play();
    } else fail(server.problems);
  } catch (err) {
    failure = err as Error;
  }

  // The busiest second of the client's requests.
  let busiest = 0;
  for (let i = 0, j = 0; i < server.requestTimes.length; i++) {
    while (server.requestTimes[i] - server.requestTimes[j] >= 1_000) j++;
    busiest = Math.max(busiest, i - j + 1);
  }
  totals.busiest = Math.max(totals.busiest, busiest);

  // Close: every promise the user holds settles.
  c.engine.dispose();
  c.host.dispose();
  await c.session.close();
  await clock.tickAsync(60_000);
  await settle();
  const timersLeft = clock.countTimers();
  clock.reset();
  clock.setSystemTime(T0);
  const stuck = await Promise.race([Promise.all(userCalls).then(() => false), new Promise<boolean>((r) => setImmediate(() => setImmediate(() => r(true))))]);
  if (stuck) userErrors.push('a user call never settled after the connection closed');
  totals.ignoredLogged += log.lines.filter((l) => /Ignored an invalid|Ignored a message that is not JSON|not pending/.test(l.message)).length;
  totals.invalidResults += log.lines.filter((l) => /Invalid result for|answered tools\/call with neither/.test(l.message)).length;
  totals.mutated += server.stats.mutated;
  if (process.env.FUZZ_DUMP_ERRORS) for (const l of log.lines) if (l.level === 'error' || l.level === 'warn') errorLines.add(`${l.level}: ${l.message.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, 'UUID').replace(/\d+/g, 'N').slice(0, 160)}`);
  await settle(); // unhandled rejections are reported once the microtask queue drains
  const after = [...userErrors, ...crashes.seen.splice(0)];
  if (timersLeft) after.push(`${timersLeft} timers outlived the client (disposed, its connection closed, a minute later)`);
  if (busiest > 100) after.push(`the client sent ${busiest} requests within one second: a storm`);
  for (const l of log.lines) if (l.level !== 'trace' && INTERNAL.test(l.message)) after.push(`an internal error in the log: ${l.level}: ${l.message.slice(0, 300)}`);
  if (failure) throw after.length ? new Error(`${failure.message}\n── and at the close ──\n${after.join('\n')}`) : failure;
  fail(after);
}

describe('reliability: a hostile server fuzzed against the client (seeded)', function () {
  this.timeout(Math.max(120_000, RUNS * 100));

  it(`${RUNS} cases from seed ${SEED}: no crash, every request answered once, only well-formed messages out, sane task snapshots, a ping answered after`, async () => {
    const crashes = { seen: [] as string[] };
    const onUncaught = (err: unknown) => crashes.seen.push(`uncaught exception: ${(err as Error)?.stack ?? String(err)}`);
    const onUnhandled = (reason: unknown) => crashes.seen.push(`unhandled rejection: ${(reason as Error)?.stack ?? String(reason)}`);
    const onWarning = (w: Error) => crashes.seen.push(`process warning: ${w.name}: ${w.message}`);
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUnhandled);
    process.on('warning', onWarning);
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'], now: T0 });
    const totals: Totals = { busiest: 0, drops: 0, ended: 0, outcomes: 0, inputRequired: 0, cases: 0, connected: 0, steps: 0, tracked: 0, hostedTasks: 0, serverRequests: 0, answered: 0, invalidRequestAnswers: 0, ignoredLogged: 0, invalidResults: 0, userErrors: 0, mutated: 0 };
    try {
      const failed: string[] = [];
      for (let i = 0; i < RUNS; i++) {
        const seed = (SEED + i) >>> 0;
        try {
          await runCase(seed, clock, totals, crashes);
        } catch (err) {
          const message = `fuzz case ${i} failed; reproduce it alone with FUZZ_SEED=${seed} FUZZ_RUNS=1\n${(err as Error).message}`;
          if (!KEEP_GOING) throw new Error(message);
          failed.push(`${seed}: ${message.split('\n')[1]}`);
        }
        totals.cases++;
      }
      // FUZZ_KEEP_GOING=1 (a hunt over many seeds): every failing case, one line each.
      if (failed.length) throw new Error(`${failed.length} of ${RUNS} cases failed:\n${failed.join('\n')}`);
    } finally {
      clock.uninstall();
      process.off('uncaughtException', onUncaught);
      process.off('unhandledRejection', onUnhandled);
      process.off('warning', onWarning);
    }
    console.log(`      fuzz: ${JSON.stringify(totals)}`);
    if (process.env.FUZZ_DUMP_ERRORS) console.log([...errorLines].sort().join('\n'));
    // Not vacuous: the cases ran, went past the handshake, and the mutations were refused and told.
    assert.equal(totals.cases, RUNS);
    if (RUNS >= 100) {
      assert.ok(totals.connected > RUNS * 0.7, 'most cases get past the handshake');
      assert.ok(totals.tracked > RUNS / 2, 'tools ran as tasks');
      assert.ok(totals.hostedTasks > RUNS / 4, 'the client hosted tasks for the server');
      assert.ok(totals.serverRequests > RUNS * 3 && totals.answered >= totals.serverRequests * 0.8, 'the server\'s requests were answered');
      assert.ok(totals.invalidRequestAnswers > 10, 'malformed requests were answered -32600');
      assert.ok(totals.ignoredLogged > 50, 'invalid messages were logged');
      assert.ok(totals.invalidResults > 20, 'mutated results were refused');
      assert.ok(totals.mutated > RUNS, 'messages were mutated');
    }
  });

  it('the checks catch what they look for: a malformed message of each kind the client could send, and broken snapshots', async () => {
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const server = new HostileServer(serverEnd, clientEnd, new Rng(1));
    const send = (m: Json) => clientEnd.send(m);
    server.declared = { version: '2025-11-25', list: false, cancel: false };
    await send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    await send({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { taskId: 'never-given' } });
    await send({ jsonrpc: '2.0', id: 3, method: 'tasks/result', params: { taskId: 't', _meta: { [RELATED_TASK_META]: { taskId: 't' } } } });
    await send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'research', arguments: {}, task: {} } });
    await send({ jsonrpc: '2.0', id: 5, method: 'tasks/cancel', params: { taskId: 'never-given' } });
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } });
    await send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await send({ jsonrpc: '2.0', method: 'notifications/tasks/status', params: { taskId: 'h', status: 'working', createdAt: '2025-11-25T10:00:00.000Z', lastUpdatedAt: '2025-11-25T10:00:00.000Z', ttl: 1000 } });
    await send({ jsonrpc: '2.0', id: 'never-sent', result: {} });
    await send({ jsonrpc: '2.0', id: 6, method: 'tasks/list', params: { cursor: 'never-given' } });
    server.deliver({ jsonrpc: '2.0', id: 10, method: 'ping' }, 'ping');
    server.deliver({ jsonrpc: '2.0', id: 11, method: 'elicitation/create', params: { message: 'Hi', requestedSchema: { type: 'object', properties: {} }, task: {} } }, 'a task');
    server.deliver({ jsonrpc: '2.0', id: 12, method: 'tasks/result', params: { taskId: 'h' } }, 'its result');
    server.deliver({ jsonrpc: '2.0', id: 13, method: 'ping', params: [] }, 'a malformed ping');
    await settle();
    const task = { taskId: 'h', status: 'completed', createdAt: '2025-11-25T10:00:00.000Z', lastUpdatedAt: '2025-11-25T10:00:00.000Z', ttl: 1000 };
    await send({ jsonrpc: '2.0', id: 10, error: { code: 42, message: 'the answer' } });
    await send({ jsonrpc: '2.0', id: 11, result: { task } });
    await send({ jsonrpc: '2.0', id: 12, result: { action: 'decline' } });
    await send({ jsonrpc: '2.0', id: 13, result: {} });
    await clientEnd.send(42 as unknown as object);
    await settle();
    const expected = [
      /^tasks\/get of a task id the server never gave/,
      /^invalid params of tasks\/result/,
      /^tools\/call as a task, though the server did not declare/,
      /^tasks\/cancel of a task id the server never gave/,
      /^tasks\/cancel, though the server did not declare tasks.cancel/,
      /^the client reused a request id/,
      /^the client cancelled its initialize request/,
      /^a status notification for a task the client never created/,
      /^a response to a request the server never sent/,
      /^tasks\/list with a cursor the server never gave/,
      /^tasks\/list, though the server did not declare tasks.list/,
      /^an error code that means nothing here \(42\)/,
      /^a hosted task created completed \(T-LIFE-1\)/,
      /^a tasks\/result answer without the related-task _meta/,
      /^a malformed request answered with a result/,
      /^the client sent a message that is not an object/,
    ];
    for (const re of expected) assert.ok(server.problems.some((p) => re.test(p)), `${re} among:\n${server.problems.join('\n')}`);
    assert.equal(server.problems.length, expected.length, server.problems.join('\n'));

    // A request may go unanswered once the client read a cancel of it: requestId -0 cancels request
    // 0 (seed 866), a cancel whose requestId a mutation broke cancels nothing.
    server.deliver({ jsonrpc: '2.0', id: -0, method: 'ping' }, 'a ping with id -0');
    server.deliver({ jsonrpc: '2.0', id: 14, method: 'ping' }, 'a ping');
    server.deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: -0 } }, 'a cancel of -0');
    server.deliver({ jsonrpc: '2.0', method: 'notifications/cancelled', params: '{"requestId":14}' }, 'a broken cancel of 14');
    assert.deepEqual([server.toClient.get(server.key(0))?.cancelled, server.toClient.get(server.key(14))?.cancelled], [true, false]);

    // Snapshots: a bad date, infinite progress, a task dropped without a trace.
    const bad = { key: taskKey(SERVER, 't'), serverId: SERVER, taskId: 't', kind: 'task', toolName: 'x', status: 'working', createdAt: 'yesterday', lastUpdatedAt: '2025-11-25T10:00:00.000Z', ttl: -1, progress: { progress: Infinity }, origin: 'user' };
    const stub = { engine: { list: () => [bad], get: (k: string) => (k === bad.key ? bad : undefined), effectivePollInterval: () => 0 }, host: { list: () => [] } } as unknown as ReturnType<typeof openClient>;
    const found = checkSnapshots(stub, new Set([bad.key, 'gone-key']), new Set());
    for (const re of [/createdAt "yesterday"/, /ttl -1/, /progress/, /effective poll interval 0/, /under key "gone-key" was dropped silently/]) assert.ok(found.some((p) => re.test(p)), `${re} among:\n${found.join('\n')}`);
  });
});
