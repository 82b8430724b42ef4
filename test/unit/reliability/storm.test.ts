// Issue 8: whatever a server sends, the client keeps running and the user's task is kept. A hostile
// server (test/fixtures/servers/hostile-server.mjs) sends a seeded storm of over 100,000 malformed
// and adversarial messages over stdio, Streamable HTTP and WebSocket at once, and lies about every
// task but one; the good task runs beside the storm on the same server and must end with its
// exact result. The client is wired as the extension wires it (ServerManager, TaskEngine, TaskHost).
import * as assert from 'node:assert/strict';
import type { ServerRequestHandler } from '../../../src/core/tasks/engine';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { clientsAndPeersForEachTest, CountingLogger, collectGarbage, crashCounter, heapSampler, hostileServer, mb, startPeer } from './support';

/** The good task's result, as hostile-lib.mjs GOOD_RESULT has it. */
const GOOD_RESULT = {
  content: [{ type: 'text', text: 'The good task finished: 42 ✓ — ünïcödé, "quotes", \\ backslash, \u2028 line separator, 🦀' }],
  structuredContent: { answer: 42, list: [1, 2, 3], nested: { ok: true, none: null } },
};
const SEED = 20251125;
const COUNTS = { stdio: 50_000, http: 25_000, ws: 30_000 };
const MAX_DIALOGS = 10;

interface Stats {
  sentTotal: number;
  sent: Record<string, number>;
  requestsSent: Record<string, number>;
  answers: Record<string, Record<string, number | string>>;
  unanswered: number;
  /** The longest answer the client sent to the server's requests (JSON characters). */
  largestAnswer: number;
  cancelledOwn: number;
  adversarialReplies: number;
  stormDone: boolean;
  /** HTTP: the most connections the client held open at once. */
  maxSockets?: number;
}

const httpStatsOf = (results: Array<{ name: string; stats: Stats }>) => results.find((r) => r.name === 'storm-http')?.stats.maxSockets;

describe('reliability: a storm of 100,000+ hostile messages over stdio, Streamable HTTP and WebSocket', function () {
  this.timeout(120_000);
  const { open, peers } = clientsAndPeersForEachTest();

  it('the client survives, answers what must be answered, holds its limits, and the good task ends with its exact result', async () => {
    const gc = collectGarbage();
    const crashes = crashCounter();
    try {
      const [http, ws] = await Promise.all([
        startPeer([hostileServer, 'http', '--seed', String(SEED + 1), '--count', String(COUNTS.http)]),
        startPeer([hostileServer, 'ws', '--seed', String(SEED + 2), '--count', String(COUNTS.ws)]),
      ]);
      peers.push(http, ws);
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const cpuBefore = process.cpuUsage();
      const started = Date.now();
      const sampler = heapSampler();

      // The "dialog": plain questions are declined at once; a hosted task's question stays open
      // (as a dialog nobody answers) until its task ends.
      const dialogs = new Map<string, { open: number; peak: number; calls: number }>();
      const elicit: ServerRequestHandler = (params, ctx) => {
        if (String(params?.message).startsWith('flood-plain')) return Promise.resolve({ action: 'decline' });
        const d = dialogs.get(ctx.serverId) ?? { open: 0, peak: 0, calls: 0 };
        dialogs.set(ctx.serverId, d);
        d.calls++;
        d.peak = Math.max(d.peak, ++d.open);
        return new Promise((_, reject) =>
          ctx.signal.addEventListener(
            'abort',
            () => {
              d.open--;
              reject(ctx.signal.reason);
            },
            { once: true },
          ),
        );
      };
      const log = new CountingLogger(/STORM-END|the ids do not match|names task|unhandled|uncaught/i);
      const c = open({
        logger: log,
        servers: {
          'storm-stdio': { type: 'stdio', command: process.execPath, args: [hostileServer, 'stdio', '--seed', String(SEED), '--count', String(COUNTS.stdio)] },
          'storm-http': { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` },
          'storm-ws': { type: 'ws', url: `ws://127.0.0.1:${ws.port}/` },
        },
        elicit,
        host: { maxConcurrentPerServer: MAX_DIALOGS },
        engine: { requestTimeoutMs: 3_000, minPollMs: 100 },
        manager: { sessionOptions: { requestTimeoutMs: 5_000 } },
      });

      const drive = async (name: string) => {
        const id = c.id(name);
        const good = await c.engine.callTool(id, 'good', { arguments: { please: 'behave' } });
        assert.equal(good.status, 'working');
        // While the storm runs: tasks of the decoy tool (every answer about them is a lie) and
        // tasks/list with cursors that loop or never end.
        const decoyErrors: string[] = [];
        for (let i = 0; i < 20; i++) {
          await c.engine.callTool(id, 'decoy', { arguments: { i } }).catch((err: Error) => decoyErrors.push(err.message));
          if (i % 7 === 0) await c.engine.refreshList(id).catch((err: Error) => decoyErrors.push(err.message));
        }
        const done = await c.until(good.key, (s) => s.outcome !== undefined, `the good task of ${name}`, 100_000);
        const session = await c.servers.getSession(id);
        // Its last requests may still wait for their answers, which take turns on a few lanes and
        // drain slowly on a busy machine: wait while they drain; a client that stopped answering
        // leaves the count where it is for 15 s.
        let stats: Stats;
        let least = Infinity;
        let drainedAt = Date.now();
        for (;;) {
          stats = (await session.connection.requestRaw('storm/stats', {}, { timeoutMs: 5_000 })) as unknown as Stats;
          if (stats.unanswered === 0) break;
          if (stats.unanswered < least) [least, drainedAt] = [stats.unanswered, Date.now()];
          else if (Date.now() - drainedAt > 15_000) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        return { id, name, good: done, stats, decoyErrors, state: c.servers.get(id)!.state.kind };
      };
      // A fixture that crashes fails the test at once, with its stderr.
      const results = await Promise.race([Promise.all(['storm-stdio', 'storm-http', 'storm-ws'].map(drive)), http.crashed, ws.crashed]);
      const peakHeap = sampler.stop();
      const elapsed = Date.now() - started;
      const cpu = process.cpuUsage(cpuBefore);

      for (const r of results) {
        const { stats } = r;
        // The good task: completed, with exactly its result (and its own related-task _meta).
        assert.equal(r.good.status, 'completed', `${r.name}: ${JSON.stringify(r.good).slice(0, 500)}`);
        assert.deepEqual(r.good.outcome, { kind: 'result', result: { ...GOOD_RESULT, _meta: { [RELATED_TASK_META]: { taskId: r.good.taskId } } } }, r.name);
        assert.ok(stats.stormDone, `${r.name}: the storm ended`);
        // Every request of the server was answered (bar those it cancelled itself), unknown methods with -32601.
        assert.equal(stats.unanswered, 0, `${r.name}: ${JSON.stringify(stats.answers)}`);
        const unknown = { ...stats.answers.unknown };
        assert.match(String(unknown.sawMessage), /^Method not found: /);
        delete unknown.sawMessage;
        assert.deepEqual(Object.keys(unknown), ['-32601'], `${r.name}: unknown methods: ${JSON.stringify(unknown)}`);
        assert.deepEqual(stats.answers.sampling && Object.keys(stats.answers.sampling), ['-32601'], `${r.name}: no sampling handler`);
        for (const kind of ['hosted:tasks/get', 'hosted:tasks/result', 'hosted:tasks/cancel', 'hosted:tasks/list']) {
          const allowed = kind === 'hosted:tasks/list' ? ['ok', '-32602', '-32603'] : ['-32602', '-32603'];
          for (const code of Object.keys(stats.answers[kind] ?? {})) assert.ok(allowed.includes(code), `${r.name} ${kind}: ${code}`);
        }
        // The flood of hosted questions: within the limits, and at most MAX_DIALOGS dialogs.
        const te = stats.answers['task-elicitation'] ?? {};
        assert.ok(Number(te.ok ?? 0) >= 1 && Number(te['-32603'] ?? 0) >= 1, `${r.name}: task elicitations ${JSON.stringify(te)}`);
        assert.ok(c.host.list().filter((t) => t.serverId === r.id && t.status === 'working').length <= MAX_DIALOGS);
        // No task of the server holds a result that names another task.
        for (const t of c.engine.list().filter((x) => x.serverId === r.id)) {
          const named = t.outcome?.kind === 'result' ? (t.outcome.result._meta?.[RELATED_TASK_META] as { taskId?: unknown } | undefined)?.taskId : undefined;
          assert.ok(named === undefined || named === t.taskId, `${r.name}: task ${t.taskId.slice(0, 40)} holds the result of ${String(named)}`);
        }
        assert.equal(r.state, 'connected', `${r.name}: the connection outlived the storm`);
        assert.ok(stats.largestAnswer < 4096, `${r.name}: the client sent back an answer of ${stats.largestAnswer} bytes`);
      }
      assert.equal(({} as { polluted?: unknown }).polluted, undefined, 'no prototype pollution');
      // Never more dialogs open at once than the limit. Hosted tasks live for at least a minute here
      // (no ttl under 60 s is granted in the storm), so a dialog closes before that only when the
      // server cancels its request before the task's id reached it (T-RCV-6), which frees its place.
      for (const [id, d] of dialogs) assert.ok(d.peak <= MAX_DIALOGS && d.peak > 0, `${id}: ${d.peak} dialogs open at once (${d.calls} in all)`);

      await c.close();
      gc();
      const heapAfter = process.memoryUsage().heapUsed;
      const sent = results.reduce((s, r) => s + r.stats.sentTotal, 0);
      const figures = {
        messagesSent: sent,
        perTransport: Object.fromEntries(results.map((r) => [r.name, r.stats.sentTotal])),
        adversarialReplies: results.reduce((s, r) => s + r.stats.adversarialReplies, 0),
        crashes: crashes.seen.uncaught.length,
        unhandledRejections: crashes.seen.unhandled.length,
        heapBefore: mb(heapBefore),
        heapAfter: mb(heapAfter),
        heapPeak: mb(peakHeap),
        seconds: +(elapsed / 1000).toFixed(1),
        clientCpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1),
        logLines: log.counts,
        httpMaxConnections: httpStatsOf(results),
        longestLogLine: log.longest,
        dialogs: Object.fromEntries([...dialogs].map(([k, d]) => [k.replace('settings:', ''), d.calls])),
        goodResultExact: true,
      };
      console.log(`      storm figures: ${JSON.stringify(figures)}`);
      assert.ok(sent >= 100_000, `only ${sent} messages were sent`);
      assert.deepEqual(crashes.seen.uncaught, [], 'uncaught exceptions');
      assert.deepEqual(crashes.seen.unhandled, [], 'unhandled rejections');
      assert.deepEqual(crashes.seen.warnings, [], 'process warnings (a MaxListenersExceededWarning is a listener leak)');
      // Answers to the server's flood of requests take turns: no socket per answer.
      const httpStats = results.find((r) => r.name === 'storm-http')!.stats;
      assert.ok(httpStats.maxSockets! <= 64, `the client opened ${httpStats.maxSockets} connections at once to the HTTP server`);
      // A server's log message of megabytes is cut in the client's log.
      assert.ok(log.longest < 64 * 1024, `a log line of ${log.longest} characters`);
      assert.ok(heapAfter - heapBefore < 48 * 1024 * 1024, `heap grew from ${mb(heapBefore)} to ${mb(heapAfter)}`);
    } finally {
      crashes.dispose();
    }
  });
});
