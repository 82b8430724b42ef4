// Issue 8, security of the tasks the client hosts for servers (T-RCV-3, T-RCV-8, T-RCV-9). Extends
// test/unit/host/taskHost.rules.test.ts (UUID shape and uniqueness, another server's access, a
// flood over an in-memory pair) with: the randomness of task ids, a second connection of the same
// server, and a flood from a real server process through the real transport and wiring.
import * as assert from 'node:assert/strict';
import { TaskHost } from '../../../src/core/host/taskHost';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import { McpSession } from '../../../src/core/protocol/session';
import type { ServerRequestHandler } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { nullLogger } from '../../../src/core/util/log';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { clientsAndPeersForEachTest, hostileServer } from './support';

const ELICIT = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A dialog that stays open until its task ends. */
class Dialogs {
  calls = 0;
  open = 0;
  maxOpen = 0;
  readonly handler: ServerRequestHandler = (_params, ctx) => {
    this.calls++;
    this.maxOpen = Math.max(this.maxOpen, ++this.open);
    return new Promise((_, reject) =>
      ctx.signal.addEventListener(
        'abort',
        () => {
          this.open--;
          reject(ctx.signal.reason);
        },
        { once: true },
      ),
    );
  };
}

/** A client (engine + task host) and scripted servers over in-memory pairs, each a connection of its own. */
function inMemoryClient(dialogs: Dialogs, hostOptions: Partial<ConstructorParameters<typeof TaskHost>[0]> = {}) {
  const log = new MemoryLogger();
  const host = new TaskHost({ logger: log, ...hostOptions });
  const sessions = new Map<string, McpSession>();
  const engine = new TaskEngine({
    logger: log,
    handlers: { elicitation: { handle: host.wrap('elicitation/create', dialogs.handler) } },
    sessions: { getSession: async (id) => sessions.get(id)!, label: (id) => id, tasksOutliveConnection: () => false },
  });
  const opened: McpSession[] = [];
  return {
    log,
    host,
    /** A new connection of `serverId`; it replaces the server's previous one, as a reconnect does. */
    async connect(serverId: string) {
      const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
      const server = new JsonRpcConnection(serverEnd, { logger: nullLogger });
      server.onRequest('initialize', () => ({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1.0.0' } }));
      server.onNotification('notifications/initialized', () => undefined);
      await server.start();
      const session = new McpSession(clientEnd, { logger: log, clientInfo: { name: 'test', version: '0' }, capabilities: { ...engine.clientCapabilities(), ...host.capabilities() } });
      sessions.set(serverId, session);
      engine.attachSession(serverId, session);
      host.attachSession(serverId, session);
      await session.connect();
      opened.push(session);
      const request = (method: string, params?: Record<string, unknown>) => server.requestRaw(method, params, { timeoutMs: 5_000 });
      return { server, session, request, create: async () => ((await request('elicitation/create', { ...ELICIT, task: { ttl: 60_000 } })).task as { taskId: string }).taskId };
    },
    async close() {
      host.dispose();
      engine.dispose();
      for (const s of opened) await s.close();
    },
  };
}

async function rpcError(p: Promise<unknown>): Promise<RpcError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof RpcError, String(err));
    return err;
  }
  return assert.fail('expected an error');
}

/** The 128 bits of a UUID. */
function bitsOf(uuid: string): number[] {
  const hex = uuid.replace(/-/g, '');
  const bits: number[] = [];
  for (const ch of hex) {
    const v = parseInt(ch, 16);
    for (let b = 3; b >= 0; b--) bits.push((v >> b) & 1);
  }
  return bits;
}

describe('reliability: security of hosted tasks', function () {
  this.timeout(60_000);
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length) await cleanup.pop()!();
  });

  it('T-RCV-3: task ids carry 122 random bits from a cryptographic source (not Math.random, not a counter)', async () => {
    const dialogs = new Dialogs();
    const c = inMemoryClient(dialogs, { maxConcurrentPerServer: 10_000, rateBurst: 100_000, ratePerSecond: 100_000 });
    cleanup.push(() => c.close());
    const s = await c.connect('a');
    const N = 4096;
    const ids: string[] = [];
    // With Math.random stuck, ids derived from it would repeat.
    const random = Math.random;
    Math.random = () => 0;
    try {
      for (let i = 0; i < N; i += 64) ids.push(...(await Promise.all(Array.from({ length: 64 }, () => s.create()))));
    } finally {
      Math.random = random;
    }
    assert.equal(new Set(ids).size, N, 'all distinct');
    for (const id of ids) assert.match(id, UUID_V4);
    // Bits 48-51 hold the version (4) and 64-65 the variant (10): the other 122 must each be a
    // fair coin. 4,096 samples: sd 0.0078 per bit; 0.45..0.55 is over 6 sd.
    const ones = new Array<number>(128).fill(0);
    let hamming = 0;
    let prev: number[] | undefined;
    for (const id of ids) {
      const bits = bitsOf(id);
      bits.forEach((b, i) => (ones[i] += b));
      if (prev) hamming += bits.reduce((d, b, i) => d + (b ^ prev![i]), 0);
      prev = bits;
    }
    const fixed = new Set([48, 49, 50, 51, 64, 65]);
    let random122 = 0;
    for (let i = 0; i < 128; i++) {
      if (fixed.has(i)) continue;
      random122++;
      const p = ones[i] / N;
      assert.ok(p > 0.45 && p < 0.55, `bit ${i} is set in ${(p * 100).toFixed(1)}% of ids`);
    }
    assert.equal(random122, 122);
    // Consecutive ids share nothing: about half of the 122 random bits differ (a counter: a few).
    const meanDistance = hamming / (N - 1);
    assert.ok(meanDistance > 58 && meanDistance < 64, `mean Hamming distance ${meanDistance.toFixed(1)}`);
  });

  it('T-RCV-8: a second connection of the same server can neither get, fetch, list nor cancel the first one\'s tasks; the first is no longer served', async () => {
    const dialogs = new Dialogs();
    const c = inMemoryClient(dialogs);
    cleanup.push(() => c.close());
    const first = await c.connect('a');
    const ids = [await first.create(), await first.create()];
    assert.equal((await first.request('tasks/get', { taskId: ids[0] })).status, 'working');
    const second = await c.connect('a'); // the server reconnected (a new process, a new HTTP session)
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const stolen = await rpcError(second.request(method, { taskId: ids[0] }));
      const none = await rpcError(second.request(method, { taskId: unknown }));
      assert.deepEqual(stolen.toJSON(), none.toJSON(), `${method}: the same answer as for an id never issued`);
      assert.equal(stolen.code, -32602);
    }
    assert.deepEqual((await second.request('tasks/list')).tasks, []);
    // The first connection (still open) has lost its task host: its tasks are gone, their dialogs closed.
    const refused = await rpcError(first.request('tasks/get', { taskId: ids[0] }));
    assert.equal(refused.code, -32601);
    assert.equal(dialogs.open, 0, 'the first connection\'s dialogs were closed');
    assert.deepEqual(c.host.list(), []);
    // The second connection's own task works.
    const own = await second.create();
    assert.equal((await second.request('tasks/get', { taskId: own })).status, 'working');
    assert.deepEqual(((await second.request('tasks/list')).tasks as Array<{ taskId: string }>).map((t) => t.taskId), [own]);
  });

  describe('T-RCV-9: a real server process floods the client with task-augmented questions', () => {
    const { open } = clientsAndPeersForEachTest();

    it('5,000 task-augmented elicitations over stdio: the limits hold, every other one gets an error naming its limit, and at most maxConcurrentPerServer dialogs open', async () => {
      const dialogs = new Dialogs();
      const MAX = 5;
      const c = open({
        servers: { flood: { type: 'stdio', command: process.execPath, args: [hostileServer, 'stdio', '--flood', '5000'] } },
        elicit: dialogs.handler,
        host: { maxConcurrentPerServer: MAX },
      });
      const log = c.log as MemoryLogger;
      await c.servers.getSession(c.id('flood'));
      await waitFor(() => log.has('info', /FLOOD-END/), 'the flood report', 30_000);
      const line = log.lines.find((l) => l.level === 'info' && /server log: FLOOD-END/.test(l.message))!.message;
      const report = JSON.parse(line.slice(line.indexOf('FLOOD-END ') + 10)) as { sent: number; accepted: number; refused: Record<string, number>; messages: string[] };
      console.log(`      flood: ${JSON.stringify({ sent: report.sent, accepted: report.accepted, refused: report.refused, dialogs: dialogs.calls })}`);
      assert.equal(report.sent, 5_000);
      assert.equal(report.accepted, MAX, 'exactly the limit accepted');
      assert.deepEqual(Object.keys(report.refused), ['-32603'], 'every refusal is -32603');
      assert.equal(report.accepted + report.refused['-32603'], 5_000, 'every request answered');
      for (const m of report.messages) assert.match(m, /^(Too many concurrent tasks: .*\(limit 5\)|Rate limit exceeded: .*|Too many concurrent requests \(limit \d+\))/);
      assert.ok(report.messages.some((m) => /^Rate limit exceeded/.test(m)));
      assert.equal(dialogs.calls, MAX, 'the dialog was called only for accepted tasks');
      assert.ok(dialogs.maxOpen <= MAX);
      assert.equal(c.host.list().filter((t) => t.status === 'working').length, MAX);
      // The flood is logged as counts, not as 5,000 lines.
      assert.ok(log.lines.filter((l) => l.level === 'warn' && /Too many concurrent tasks|Rate limit exceeded/.test(l.message)).length <= 5);
    });
  });
});
