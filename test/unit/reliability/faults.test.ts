// Issue 8: however a server dies or stalls, nothing hangs, the user's tasks keep their last known
// state and their results, and the server comes back without being respawned in a tight loop.
// Servers are real processes (test/fixtures/servers/task-lab.mjs); the client is wired as the
// extension wires it.
//
// An SSE stream cut in the middle of an answer is resumed with Last-Event-ID: that is pinned in
// test/unit/transports/streamableHttp.test.ts ("resumes an answer stream cut before the response").
import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpJson } from '../../../src/core/config/parse';
import { ErrorCode } from '../../../src/core/jsonrpc/errors';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import type { McpSession } from '../../../src/core/protocol/session';
import type { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import { freePort } from '../helpers/httpServers';
import { startEverything } from '../helpers/peers';
import { MemoryLogger, waitFor } from '../helpers/logger';
import type { Client, Peer } from './support';
import { clientsAndPeersForEachTest, startPeer, taskLab } from './support';

const node = process.execPath;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The outcome task-lab gives a task tagged `tag`, with its id in the related-task _meta. */
const outcome = (tag: string, taskId: string) => ({
  kind: 'result',
  result: { content: [{ type: 'text', text: `done: ${tag}` }], structuredContent: { tag }, _meta: { [RELATED_TASK_META]: { taskId } } },
});

/** The getSession that first succeeds, trying every `everyMs`; how long it took. */
async function reconnect(c: Client, id: string, everyMs = 50, timeoutMs = 20_000) {
  const started = Date.now();
  const refusals: string[] = [];
  for (;;) {
    try {
      return { session: await c.servers.getSession(id), ms: Date.now() - started, refusals };
    } catch (err) {
      refusals.push((err as Error).message);
      if (Date.now() - started > timeoutMs) throw new Error(`no reconnect in ${timeoutMs} ms: ${refusals.slice(-3).join(' | ')}`);
      await sleep(everyMs);
    }
  }
}

describe('reliability: faults', function () {
  this.timeout(60_000);
  const { open: client, peers } = clientsAndPeersForEachTest();
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-faults-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** The process of a task-lab server, as it reports itself. */
  const labPid = async (session: McpSession) => ((await session.connection.requestRaw('lab/stats', {})) as { pid: number }).pid;
  const spawns = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => Number(l.split(' ')[1])) : []);

  describe('a stdio server killed in the middle of its tasks', () => {
    it('its tasks show as lost with their last status, pending requests fail at once, finished results are kept, and it comes back after a backoff', async () => {
      const spawnLog = path.join(dir, 'spawns');
      const c = client({ servers: { lab: { type: 'stdio', command: node, args: [taskLab, 'stdio', '--poll-interval', '100', '--spawn-log', spawnLog] } } });
      const id = c.id('lab');
      const session = await c.servers.getSession(id);
      const pid = await labPid(session);
      const quick = await c.engine.callTool(id, 'work', { arguments: { tag: 'quick', durationMs: 100 } });
      const long = await Promise.all([1, 2, 3].map((i) => c.engine.callTool(id, 'work', { arguments: { tag: `long-${i}`, durationMs: 60_000, steps: 600 } })));
      await c.until(quick.key, (s) => s.outcome !== undefined, 'the quick result');
      for (const t of long) await c.until(t.key, (s) => s.statusMessage !== undefined, 'a status message');
      // In flight at the kill: the user waits for a result, and a raw request blocks on the server.
      const fetching = c.engine.fetchResult(long[1].key);
      const raw = session.connection.requestRaw('tasks/result', { taskId: long[2].taskId }, { timeoutMs: 60_000 });
      const log = c.log as MemoryLogger;
      await waitFor(() => log.lines.filter((l) => /→ .*"method":"tasks\/result"/.test(l.message)).length === 2, 'both tasks/result on the wire');
      process.kill(pid, 'SIGKILL');

      await assert.rejects(raw, (err: Error) => {
        assert.equal((err as { code?: number }).code, ErrorCode.ConnectionClosed);
        assert.match(err.message, /^Server process was killed by SIGKILL/);
        return true;
      });
      // Failed by the process's end, not by a timeout (the raw request had 60 s): what each error says.
      await assert.rejects(fetching, /^Error: The task is lost and no result was fetched before: The server's process ended \(Server process was killed by SIGKILL\)\.$/);
      for (const t of long) {
        const s = await c.until(t.key, (x) => x.status === 'lost', `${t.taskId} lost`);
        assert.equal(s.lastServerStatus, 'working');
        assert.match(String(s.statusMessage), /^step \d+\/600$/, 'the last status message is kept');
        assert.match(s.note!, /^The server's process ended \(Server process was killed by SIGKILL/);
      }
      assert.deepEqual(c.engine.get(quick.key)!.outcome, outcome('quick', quick.taskId), 'the finished result is kept');
      assert.equal(c.servers.get(id)!.state.kind, 'error');

      // Asked again at once: refused, with when it will be tried again.
      await assert.rejects(c.servers.getSession(id), /^Error: Server "lab" failed: Server process was killed by SIGKILL\. It will not be tried again for 1 s\. Restart it to try now\.$/);
      assert.equal(spawns(spawnLog).length, 1, 'no process started within the backoff');
      const back = await reconnect(c, id);
      // The backoff was kept (not timed: timings belong in benchmarks): every ask before the new
      // process was refused with when it would be tried again, and no process started meanwhile.
      assert.ok(back.refusals.length > 0, 'asked again at once after the kill, so refused at least once');
      for (const r of back.refusals) assert.match(r, /^Server "lab" failed: Server process was killed by SIGKILL\. It will not be tried again for \d+ s\. Restart it to try now\.$/);
      const again = await c.engine.callTool(id, 'work', { arguments: { tag: 'again', durationMs: 100 } });
      assert.deepEqual((await c.until(again.key, (s) => s.outcome !== undefined, 'a task on the new process')).outcome, outcome('again', again.taskId));
      assert.equal(spawns(spawnLog).length, 2);
    });

    it('a restarted server that counts its task ids: a new task that reuses the id of an ended one is tracked, and the ended one is kept apart with its result', async () => {
      const c = client({ servers: { lab: { type: 'stdio', command: node, args: [taskLab, 'stdio', '--poll-interval', '100', '--counting-ids'] } } });
      const id = c.id('lab');
      const done = await c.engine.callTool(id, 'work', { arguments: { tag: 'first', durationMs: 100 } });
      const live = await c.engine.callTool(id, 'work', { arguments: { tag: 'second', durationMs: 60_000 } });
      assert.deepEqual([done.taskId, live.taskId], ['1', '2']);
      await c.until(done.key, (s) => s.outcome !== undefined, 'the first result');
      await c.restart(id);
      await c.until(live.key, (s) => s.status === 'lost', 'the live task lost with its process');

      const again = await c.engine.callTool(id, 'work', { arguments: { tag: 'again', durationMs: 100 } });
      const reused = await c.engine.callTool(id, 'work', { arguments: { tag: 'reused', durationMs: 100 } });
      assert.deepEqual([again.taskId, reused.taskId], ['1', '2'], 'the new process counted from 1 again');
      assert.equal(again.key, done.key, 'the id, and the key made of it, name the new task');
      assert.deepEqual((await c.until(again.key, (s) => s.outcome !== undefined, 'the new result')).outcome, outcome('again', '1'));
      assert.deepEqual((await c.until(reused.key, (s) => s.outcome !== undefined, 'the other new result')).outcome, outcome('reused', '2'));

      const earlier = c.engine.list().filter((t) => t.key !== again.key && t.key !== reused.key);
      assert.equal(earlier.length, 2, c.engine.list().map((t) => `${t.taskId} ${t.status}`).join(', '));
      const first = earlier.find((t) => t.taskId === '1')!;
      const second = earlier.find((t) => t.taskId === '2')!;
      assert.equal(first.status, 'completed');
      assert.deepEqual(await c.engine.fetchResult(first.key), outcome('first', '1'), 'the earlier result is kept, not replaced by the new one');
      assert.equal(second.status, 'lost');
      assert.match(second.note!, /^The server's process/, `why it was lost is kept: ${second.note}`);
      await assert.rejects(c.engine.fetchResult(second.key), /^Error: The task is lost and no result was fetched before/);
      assert.ok((c.log as MemoryLogger).has('warn', /^\[lab\] The server gave a new task the id of an earlier one that ended \(1\); the earlier one is kept apart$/));
    });

    it('disconnected by the user while its tasks are followed by tasks/list: the tasks are lost at once, saying why, and nothing starts the server again', async () => {
      const spawnLog = path.join(dir, 'spawns');
      const c = client({ servers: { lab: { command: node, args: [taskLab, 'stdio', '--spawn-log', spawnLog, '--poll-interval', '100'] } } });
      const id = c.id('lab');
      const tasks = [await c.engine.callTool(id, 'work', { arguments: { tag: 'a', durationMs: 60_000 } }), await c.engine.callTool(id, 'work', { arguments: { tag: 'b', durationMs: 60_000 } })];
      // Two live tasks: the engine follows them by tasks/list, in cycles that ask for a session.
      await waitFor(() => c.log instanceof MemoryLogger && c.log.text().split('"method":"tasks/list"').length > 3, 'a few list cycles');
      await c.servers.disconnect(id);
      for (const t of tasks) assert.deepEqual([c.engine.get(t.key)?.status, c.engine.get(t.key)?.note], ['lost', "The server's process ended (disconnected by the user)."]);
      await sleep(1000); // ten list intervals: a cycle left over would have run by now
      assert.equal(spawns(spawnLog).length, 1, 'the server was not started again');
      assert.equal(c.servers.get(id)?.state.kind, 'idle');
      // What would have shown a start meanwhile: the user's Connect starts it, and the spawn log has it.
      await c.servers.getSession(id);
      assert.equal(spawns(spawnLog).length, 2, 'a start shows in the spawn log');
    });

    it('a server that crashes at start is respawned with a growing backoff, not in a tight loop', async () => {
      const spawnLog = path.join(dir, 'spawns');
      const c = client({ servers: { crashy: { type: 'stdio', command: node, args: [taskLab, '--spawn-log', spawnLog, '--exit-at-start', '3'] } } });
      const id = c.id('crashy');
      // A caller that asks for the session every 20 ms (a poller gone wild), until the third start
      // has failed too: however slow the machine, the gaps between starts are the backoff's.
      const refusals: string[] = [];
      const started = Date.now();
      while (!refusals.some((m) => /^Server "crashy" failed 3 times in a row/.test(m))) {
        if (Date.now() - started > 30_000) throw new Error(`no third failure in 30 s: ${spawns(spawnLog).length} spawns; ${refusals.slice(-3).join(' | ')}`);
        await c.servers.getSession(id).catch((err: Error) => refusals.push(err.message));
        await sleep(20);
      }
      const at = spawns(spawnLog);
      const gaps = at.slice(1).map((t, i) => t - at[i]);
      console.log(`      crash at start: ${at.length} spawns in ${Date.now() - started} ms (${refusals.length} calls refused), gaps ${gaps.join(', ')} ms`);
      assert.equal(at.length, 3, 'one start per failure');
      assert.ok(gaps[0] >= 1_000, `second spawn ${gaps[0]} ms after the first`);
      assert.ok(gaps[1] >= 2_000, `third spawn ${gaps[1]} ms after the second`);
      assert.ok(refusals.some((m) => /^Server "crashy" failed 2 times in a row: .*exited with code 3 \(its last output: "task-lab: failing at start, as asked"\)\. See the server's output in the log, .* in the configuration\. It will not be tried again for [12] s\. Restart it to try now\.$/.test(m)), refusals.slice(-3).join('\n'));
      // Restart (the user) tries at once, and so does Connect Server, within the backoff as well.
      const before = at.length;
      await c.restart(id).catch(() => undefined);
      assert.equal(spawns(spawnLog).length, before + 1);
      await assert.rejects(c.servers.getSession(id), /It will not be tried again/);
      await assert.rejects(c.servers.getSession(id, { now: true }), /exited with code 3/);
      assert.equal(spawns(spawnLog).length, before + 2, 'Connect Server started it again at once (it answered "Restart it to try now")');
    });

    // What to do next, as "command not found" says it: the server's stderr is in the log, what it was started with in its configuration.
    const NEXT_STEP = `See the server's output in the log, and check its "command", "args" and "env" (or "envFile") in the configuration.`;

    it('a server that exits with an error while connecting says its exit code, its last stderr lines and what to check; the log reads as sentences', async () => {
      const c = client({ servers: { crashy: { type: 'stdio', command: node, args: [taskLab, '--exit-at-start', '3'] } } });
      const id = c.id('crashy');
      const why = `Server process exited with code 3 (its last output: "task-lab: failing at start, as asked"). ${NEXT_STEP}`;
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, why), true));
      assert.deepEqual(c.servers.get(id)!.state, { kind: 'error', message: why });
      const log = c.log as MemoryLogger;
      assert.ok(log.lines.some((l) => l.level === 'error' && l.message === `[crashy] Could not connect: ${why} It will not be tried again for 1 s.`), log.text());
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, `Server "crashy" failed: ${why} It will not be tried again for 1 s. Restart it to try now.`), true));
    });

    it('a server whose configuration uses an ${env:…} that is not set (empty, as in VS Code) and then fails says so, for it may be why (once, however often it is used)', async () => {
      const c = client({ servers: { unset: { type: 'stdio', command: node, args: [taskLab, '--exit-at-start', '3', '${env:MCP_TASKS_TEST_UNSET}'], env: { AGAIN: '${env:MCP_TASKS_TEST_UNSET}' } } } });
      const id = c.id('unset');
      const why = `Server process exited with code 3 (its last output: "task-lab: failing at start, as asked"). \${env:MCP_TASKS_TEST_UNSET} is empty: MCP_TASKS_TEST_UNSET is not set where the editor was started. ${NEXT_STEP}`;
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, why), true));
      assert.deepEqual(c.servers.get(id)!.state, { kind: 'error', message: why });
    });

    it('an ${env:…} set to the empty string says so too: "${env:X} is empty: X is set to "" where the editor was started."', async () => {
      process.env.MCP_TASKS_TEST_EMPTY = '';
      try {
        const c = client({ servers: { blank: { type: 'stdio', command: node, args: [taskLab, '--exit-at-start', '3', '${env:MCP_TASKS_TEST_EMPTY}'] } } });
        const why = `Server process exited with code 3 (its last output: "task-lab: failing at start, as asked"). \${env:MCP_TASKS_TEST_EMPTY} is empty: MCP_TASKS_TEST_EMPTY is set to "" where the editor was started. ${NEXT_STEP}`;
        await assert.rejects(c.servers.getSession(c.id('blank')), (err: Error) => (assert.equal(err.message, why), true));
      } finally {
        delete process.env.MCP_TASKS_TEST_EMPTY;
      }
    });

    it('an ${env:…} where no variable is replaced (an input\'s default or description) is not said to be empty: the server gets no empty value from it', async () => {
      const inputs = [{ type: 'promptString', id: 'key', description: 'Key, as in ${env:MCP_TASKS_TEST_UNSET}', default: '${env:MCP_TASKS_TEST_UNSET}' }];
      const config = parseMcpJson(JSON.stringify({ inputs, servers: { given: { type: 'stdio', command: node, args: [taskLab, '--exit-at-start', '3', '${input:key}'] } } }), { kind: 'workspaceFolder', folderName: 'app', folderPath: os.tmpdir(), file: path.join(os.tmpdir(), '.vscode/mcp.json') });
      const c = client({ config, promptInput: async () => 'typed' });
      await assert.rejects(c.servers.getSession(c.id('given')), (err: Error) => (assert.equal(err.message, `Server process exited with code 3 (its last output: "task-lab: failing at start, as asked"). ${NEXT_STEP}`), true));
    });

    it('a remote server it could not reach, asked for again within the backoff, is named once with its url: "Server "x" failed at URL: connection refused …", not "failed: Could not reach server "x" at URL: …"', async () => {
      const url = `http://127.0.0.1:${await freePort()}/mcp`;
      const c = client({ servers: { down: { type: 'http', url } } });
      const id = c.id('down');
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, `Could not reach server "down" at ${url}: connection refused (ECONNREFUSED): is the server running?`), true));
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, `Server "down" failed at ${url}: connection refused (ECONNREFUSED): is the server running? It will not be tried again for 1 s. Restart it to try now.`), true));
    });

    it('a server that exits with an error just after initializing says what to check too; one that was killed does not (nothing in its configuration did it)', async () => {
      // Answers initialize, then fails on its first notification, as a server missing a key may.
      const script = `require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
        const m = JSON.parse(l);
        if (m.method === 'initialize') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'late', version: '1' } } }));
        else if (m.method === 'notifications/initialized') { console.error('boom: missing API key'); process.exit(3); }
      });`;
      const c = client({ servers: { late: { type: 'stdio', command: node, args: ['-e', script] } } });
      const id = c.id('late');
      await c.servers.getSession(id);
      await waitFor(() => c.servers.get(id)!.state.kind === 'error', 'the exit');
      const why = `Server process exited with code 3 (its last output: "boom: missing API key"). ${NEXT_STEP}`;
      assert.deepEqual(c.servers.get(id)!.state, { kind: 'error', message: why });
      const log = c.log as MemoryLogger;
      assert.ok(log.lines.some((l) => l.level === 'warn' && l.message === `[late] Connection closed: ${why} It will not be tried again for 1 s.`), log.text());
    });

    it('a server that ran for a while, then crashed, is not said to be misconfigured, and what it wrote last reads as its last output, not as the cause', async () => {
      // Writes to stderr as it starts; on "crash", a segfault as a server reports one (exit code 139).
      const script = `console.error('[evil] started');
      require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
        const m = JSON.parse(l);
        if (m.method === 'initialize') console.log(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: {}, serverInfo: { name: 'evil', version: '1' } } }));
        else if (m.method === 'crash') { console.error('[evil] crashing now (simulated segfault)'); process.exit(139); }
      });`;
      let now = Date.parse('2025-11-25T10:00:00Z');
      const c = client({ servers: { evil: { type: 'stdio', command: node, args: ['-e', script] } }, manager: { now: () => now } });
      const id = c.id('evil');
      const session = await c.servers.getSession(id);
      now += 48_000; // it served for 48 s
      session.connection.requestRaw('crash', {}).catch(() => undefined);
      await waitFor(() => c.servers.get(id)!.state.kind === 'error', 'the exit');
      const why = 'Server process exited with code 139 (its last output: "[evil] started | [evil] crashing now (simulated segfault)")';
      assert.deepEqual(c.servers.get(id)!.state, { kind: 'error', message: why });
    });

    it('a command that is not found is logged as one sentence after another, not "…PATH.; not reconnecting"', async () => {
      const c = client({ servers: { missing: { type: 'stdio', command: 'definitely-not-a-command-xyz' } } });
      await assert.rejects(c.servers.getSession(c.id('missing')), /command not found/);
      const log = c.log as MemoryLogger;
      const line = log.lines.find((l) => l.level === 'error')?.message ?? log.text();
      assert.match(line, /^\[missing\] Could not connect: Could not start "definitely-not-a-command-xyz": command not found\. Check "command" in the server's configuration, and that it is on the PATH( or relative to \S+)?\. It will not be tried again for 1 s\.$/);
    });

    it('the backoff doubles to a minute and starts over after a connection that held for a minute', async () => {
      let now = Date.parse('2025-11-25T10:00:00Z');
      const c = client({ servers: { lab: { type: 'stdio', command: node, args: [taskLab, 'stdio'] } }, manager: { now: () => now } });
      const id = c.id('lab');
      const killAndRefusal = async () => {
        const s = await c.servers.getSession(id);
        process.kill(await labPid(s), 'SIGKILL');
        await waitFor(() => c.servers.get(id)!.state.kind === 'error', 'the close');
        return await c.servers.getSession(id).then(() => '', (err: Error) => err.message);
      };
      assert.equal(await killAndRefusal(), 'Server "lab" failed: Server process was killed by SIGKILL. It will not be tried again for 1 s. Restart it to try now.');
      now += 1_000;
      assert.equal(await killAndRefusal(), 'Server "lab" failed 2 times in a row: Server process was killed by SIGKILL. It will not be tried again for 2 s. Restart it to try now.');
      now += 2_000;
      assert.equal(await killAndRefusal(), 'Server "lab" failed 3 times in a row: Server process was killed by SIGKILL. It will not be tried again for 4 s. Restart it to try now.');
      now += 4_000;
      await c.servers.getSession(id);
      now += 60_000; // a stable minute
      assert.equal(await killAndRefusal(), 'Server "lab" failed: Server process was killed by SIGKILL. It will not be tried again for 1 s. Restart it to try now.');
    });
  });

  /** server-everything over Streamable HTTP on `port`, once it listens. */
  async function everythingAt(port: number): Promise<Peer> {
    const { child, stop } = await startEverything('streamableHttp', port);
    const p: Peer = { port, child, crashed: new Promise<never>(() => undefined), stop };
    peers.push(p);
    return p;
  }

  it('server-everything: the stream for its own messages cut while the user answers its question: the question its event store replays is not answered twice, and the task goes on with the user\'s answer', async () => {
    const port = await freePort();
    await everythingAt(port);
    // A proxy that can cut the GET stream, and sees what the client sends and what a resumed GET replays.
    const gets: http.ServerResponse[] = [];
    const posted: string[] = [];
    let replayed = false;
    const proxy = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString('utf8')));
      req.on('end', () => {
        if (req.method === 'POST') posted.push(body);
        const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode!, answer.headers);
          const resumed = req.method === 'GET' && req.headers['last-event-id'] !== undefined;
          if (req.method === 'GET' && !resumed) gets.push(res);
          answer.on('data', (d: Buffer) => {
            if (resumed && d.toString('utf8').includes('"elicitation/create"')) replayed = true;
            res.write(d);
          });
          answer.on('end', () => res.end());
          res.on('close', () => answer.destroy());
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
    proxy.listen(0, '127.0.0.1');
    await once(proxy, 'listening');
    try {
      const log = new MemoryLogger();
      const c = client({
        servers: { everything: { type: 'http', url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp` } },
        logger: log,
        // The user takes a while: meanwhile the GET stream drops, and its resume replays the question.
        elicit: async () => {
          for (const g of gets.splice(0)) g.socket?.destroy();
          await waitFor(() => replayed && (log.has('warn', /Ignored a repeat of request id/) || posted.some((b) => b.includes('-32600'))), 'the question replayed and handled', 15_000);
          return { action: 'accept', content: { interpretation: 'the coral one' } };
        },
      });
      const t = await c.engine.callTool(c.id('everything'), 'simulate-research-query', { arguments: { topic: 'tide pools', ambiguous: true } });
      const done = await c.until(t.key, (s) => s.outcome !== undefined, 'the result');
      assert.deepEqual(posted.filter((b) => b.includes('"error"')), [], 'no error was sent as the answer to the question');
      assert.equal(done.status, 'completed');
      const text = JSON.stringify(done.outcome);
      assert.match(text, /Clarification\*\*: the coral one/, text.slice(0, 2000));
      assert.ok(log.has('warn', /\] Ignored a repeat of request id \d+ \(elicitation\/create\)$/), log.text().slice(-3000));
    } finally {
      proxy.closeAllConnections();
      await new Promise((r) => proxy.close(r));
    }
  });

  describe('a Streamable HTTP server restarted', () => {
    async function labAt(port: number, store: string): Promise<Peer> {
      const p = await startPeer([taskLab, 'http', '--port', String(port), '--store', store, '--poll-interval', '100']);
      peers.push(p);
      return p;
    }
    async function kill(p: Peer): Promise<void> {
      p.child.kill('SIGKILL');
      await new Promise((r) => (p.child.exitCode !== null || p.child.signalCode !== null ? r(undefined) : p.child.once('exit', r)));
    }

    it('with its task store: live tasks are re-attached through a new session and their results fetched exactly once', async () => {
      const port = await freePort();
      const store = path.join(dir, 'tasks.json');
      const first = await labAt(port, store);
      const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
      const id = c.id('remote');
      // Held: they work until the test lets them go, so they are live at the restart however slow the machine.
      const tasks = await Promise.all([1500, 2500, 3500].map((ms, i) => c.engine.callTool(id, 'work', { arguments: { tag: `kept-${i}`, durationMs: ms, held: true } })));
      await c.until(tasks[0].key, (s) => s.status === 'working' && s.pollInterval === 100, 'a poll');
      const log = c.log as MemoryLogger;
      await kill(first);
      await waitFor(() => log.has('warn', /Cannot reach the server to follow its tasks: .*ECONNREFUSED/), 'the polls to meet a closed port', 20_000);
      const second = await labAt(port, store);
      const sessions = () => log.lines.filter((l) => / assigned session /.test(l.message)).length;
      await waitFor(() => sessions() >= 2, 'the tasks followed through a new session', 20_000);
      second.child.kill('SIGUSR2'); // still live: they end 1.5, 2.5 and 3.5 s from now
      for (const [i, t] of tasks.entries()) {
        const s = await c.until(t.key, (x) => x.outcome !== undefined, `${t.taskId} re-attached and fetched`);
        assert.equal(s.status, 'completed');
        assert.deepEqual(s.outcome, outcome(`kept-${i}`, t.taskId));
      }
      assert.ok(log.has('warn', /Connection closed: Server "remote" no longer knows session .* \(HTTP 404\)/), 'the lost session was noticed');
      const stats = (await (await c.servers.getSession(id)).connection.requestRaw('lab/stats', {})) as { resultCalls: Record<string, number> };
      assert.deepEqual(stats.resultCalls, Object.fromEntries(tasks.map((t) => [t.taskId, 1])), 'each result fetched exactly once');
    });

    it('down for a while, then back without the session: its answer (404) ends the outage, so the row no longer says unreachable and the live task is looked for in a new session 2 s later, not when the backoff of the outage ends', async () => {
      const port = await freePort();
      const store = path.join(dir, 'tasks.json');
      const first = await labAt(port, store);
      const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
      const id = c.id('remote');
      const log = c.log as MemoryLogger;
      const t = await c.engine.callTool(id, 'work', { arguments: { tag: 'outage', durationMs: 100, held: true } });
      await c.until(t.key, (s) => s.pollInterval === 100, 'a poll');
      const session = await c.servers.getSession(id);
      await kill(first);
      // Backing off: its next poll is 8 s away.
      await waitFor(() => log.has('debug', /Cannot reach the server to follow its tasks: .*ECONNREFUSED.* Retrying in 8 s\.$/), 'the polls to back off to 8 s', 20_000);
      const second = await labAt(port, store);
      await session.connection.requestRaw('ping', {}).catch(() => undefined); // what the next poll or the GET stream would meet: 404
      await waitFor(() => session.isClosed, 'the forgotten session to close');
      assert.equal(c.engine.unreachable(id), undefined, 'the server answered: it is reachable');
      const reattached = log.lines.length;
      second.child.kill('SIGUSR2');
      const done = await c.until(t.key, (s) => s.outcome !== undefined, 'the task found again and its result fetched');
      assert.deepEqual([done.status, done.outcome], ['completed', outcome('outage', t.taskId)]);
      assert.ok(!log.lines.slice(reattached).some((l) => /Cannot reach the server|Retrying/.test(l.message)), log.text().slice(-3000));
    });

    it('behind a proxy that answers 502 for a while (the same session comes back): its tasks back off and the outage is told once, not once per task per poll; they complete in the same session', async () => {
      const lab = await labAt(await freePort(), path.join(dir, 'tasks.json'));
      let down = false;
      const polledWhileDown: string[] = [];
      const proxy = http.createServer((req, res) => {
        let body = '';
        req.on('data', (d: Buffer) => (body += d.toString('utf8')));
        req.on('end', () => {
          if (down) {
            if (body.includes('"tasks/get"')) polledWhileDown.push(body);
            res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
            return;
          }
          const headers = { ...req.headers, host: `127.0.0.1:${lab.port}` };
          const up = http.request({ port: lab.port, host: '127.0.0.1', path: req.url, method: req.method, headers }, (r) => (res.writeHead(r.statusCode!, r.headers), r.pipe(res)));
          up.on('error', () => res.destroy());
          up.end(body);
        });
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      try {
        const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp` } } });
        const id = c.id('remote');
        // Held: live through the outage however slow the machine, and let go once it is over.
        const tasks = await Promise.all([0, 1, 2].map((i) => c.engine.callTool(id, 'work', { arguments: { tag: `proxied-${i}`, durationMs: 100, held: true } })));
        await c.until(tasks[0].key, (s) => s.pollInterval === 100, 'a poll');
        const session = await c.servers.getSession(id);
        down = true;
        await waitFor(() => (c.log as MemoryLogger).has('warn', /Cannot reach the server to follow its tasks/), 'the polls to meet the outage', 20_000);
        await sleep(3000); // 30 poll intervals of 3 tasks
        down = false;
        lab.child.kill('SIGUSR2');
        for (const [i, t] of tasks.entries()) {
          const s = await c.until(t.key, (x) => x.outcome !== undefined, `${t.taskId} fetched`);
          assert.deepEqual([s.status, s.outcome], ['completed', outcome(`proxied-${i}`, t.taskId)]);
        }
        assert.equal(await c.servers.getSession(id), session, 'the same session all along');
        // Backing off (1 s, then 2 s) gives about 3 rounds of 3 polls; polling each task at its
        // interval gave 75. The bound leaves room for a busy machine's late timers, not for that.
        assert.ok(polledWhileDown.length <= 24, `${polledWhileDown.length} polls while the server was down`);
        const told = (c.log as MemoryLogger).lines.filter((l) => l.level === 'warn' && /tasks\/get|follow its tasks/.test(l.message)).map((l) => l.message);
        assert.deepEqual(told, ['[remote] Cannot reach the server to follow its tasks: Server "remote" answered HTTP 502 Bad Gateway at ' + `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp. Retrying in 1 s.`]);
      } finally {
        proxy.closeAllConnections();
        await new Promise((r) => proxy.close(r));
      }
    });

    it('disconnected by the user with live tasks: following them does not connect it again; the user\'s next action does, and they are followed to their end', async () => {
      const port = await freePort();
      const lab = await labAt(port, path.join(dir, 'tasks.json'));
      const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
      const id = c.id('remote');
      const log = c.log as MemoryLogger;
      // Held: it runs on the server until the test lets it go, however slow the machine.
      const t = await c.engine.callTool(id, 'work', { arguments: { tag: 'kept', durationMs: 200, held: true } });
      await c.until(t.key, (s) => s.status === 'working' && s.pollInterval === 100, 'a poll');
      await c.servers.disconnect(id);
      // Two rounds of polls that asked for a session and were refused it (the second logged at debug level).
      const refused = () => log.lines.filter((l) => /Not following its tasks: Server "remote" was disconnected by the user/.test(l.message)).length;
      await waitFor(() => refused() >= 2, 'two rounds of polls after the disconnect', 20_000);
      assert.equal(c.servers.get(id)?.state.kind, 'idle', 'not connected again by the polls');
      assert.equal(c.engine.get(t.key)?.status, 'working', 'the task is not given up: it runs on the server');
      assert.ok(log.has('info', /Not following its tasks: Server "remote" was disconnected by the user: connect it to follow its tasks again/), 'the log says why the task is not followed');
      await c.servers.getSession(id); // Connect
      lab.child.kill('SIGUSR2'); // the task ends 200 ms from now
      const done = await c.until(t.key, (s) => s.outcome !== undefined, 'the task followed again to its result');
      assert.deepEqual([done.status, done.outcome], ['completed', outcome('kept', t.taskId)]);
    });

    it('a session the server forgets after it held a minute is no failure: the next request starts a new session at once; one forgotten at once backs off', async () => {
      let now = Date.parse('2025-11-25T10:00:00Z');
      const port = await freePort();
      let lab = await labAt(port, path.join(dir, 'a.json'));
      const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, manager: { now: () => now } });
      const id = c.id('remote');
      /** The server restarts (forgetting the session); the next request meets the 404 that closes it. */
      const forget = async (after: number) => {
        const s = await c.servers.getSession(id);
        now += after;
        await kill(lab);
        lab = await labAt(port, path.join(dir, 'a.json'));
        await assert.rejects(s.connection.requestRaw('tools/list', {}), /no longer knows session .* \(HTTP 404\)/);
        await waitFor(() => s.isClosed, 'the forgotten session to close');
      };
      await forget(60_000); // the session held a minute
      assert.equal(c.servers.get(id)!.state.kind, 'idle');
      const again = await c.servers.getSession(id); // not refused
      assert.equal(again.isClosed, false);
      assert.ok((c.log as MemoryLogger).has('info', /no longer knows session .* The next request starts a new session\.$/));
      // Forgotten again at once: that may be a loop, and backs off as a crash does.
      await forget(0);
      assert.match(await c.servers.getSession(id).then(() => '', (err: Error) => err.message), /^Server "remote" failed: .*HTTP 404.* It will not be tried again for 1 s\./);
    });

    it('server-everything, which answers the session it lost with 400 instead of 404: its live task is lost, not followed for ever, and a new call starts a new session', async () => {
      const port = await freePort();
      const first = await everythingAt(port);
      const c = client({ servers: { everything: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
      const id = c.id('everything');
      const t = await c.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'tide pools' } });
      await kill(first);
      await everythingAt(port); // its sessions and their task stores are gone
      const lost = await c.until(t.key, (s) => s.status === 'lost', 'the task to be lost');
      assert.equal(lost.lastServerStatus, 'working');
      assert.match(lost.note!, /^The server no longer knows the task/);
      const log = c.log as MemoryLogger;
      assert.ok(log.has('warn', /\] Connection closed: Server "everything" no longer knows session .* \(HTTP 400\): it expired or the server restarted\. The next request starts a new session\. It will not be tried again for \d+ s\.$/), log.text().slice(-3000));
      assert.ok(!log.has('warn', /Stopped listening|stream for its own messages stopped|Transport error: .*no longer knows session/), log.text().slice(-3000));
      const again = await c.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'kelp' } });
      assert.equal(again.status, 'working');
    });

    it('server-everything restarted under a session that held a minute: the loss is logged once, as the reason the connection closed, and the server stream\'s give-up not at all', async () => {
      let now = Date.parse('2025-11-25T10:00:00Z');
      const port = await freePort();
      const first = await everythingAt(port);
      const c = client({ servers: { everything: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, manager: { now: () => now } });
      const id = c.id('everything');
      const log = c.log as MemoryLogger;
      const session = await c.servers.getSession(id);
      const transport = session.transport as StreamableHttpTransport;
      const sessionId = transport.sessionId;
      await waitFor(() => log.has('debug', /Opened the server stream/), 'the GET stream to open');
      now += 60_000;
      await kill(first);
      await everythingAt(port); // the reopened GET stream meets its 400 "No valid session ID"
      await waitFor(() => session.isClosed && !transport.listening, 'the session to close and its GET stream to stop', 10_000);
      const told = log.lines.filter((l) => l.level !== 'debug' && l.level !== 'trace' && /no longer knows|expired|Stopped listening|stopped/.test(l.message));
      assert.deepEqual(
        told.map((l) => `${l.level}: ${l.message}`),
        [`info: [everything] Server "everything" no longer knows session ${sessionId} (HTTP 400): it expired or the server restarted. The next request starts a new session.`],
        log.text().slice(-3000),
      );
    });

    it('without its task store: tasks are lost before their ttl ends and expired after', async () => {
      const port = await freePort();
      const first = await labAt(port, path.join(dir, 'first.json'));
      const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp` } } });
      const id = c.id('remote');
      const short = await c.engine.callTool(id, 'work', { arguments: { tag: 'short-ttl', durationMs: 30_000, steps: 30 }, ttlMs: 1_000 });
      const long = await c.engine.callTool(id, 'work', { arguments: { tag: 'long-ttl', durationMs: 30_000, steps: 30 }, ttlMs: 60_000 });
      assert.deepEqual([short.ttl, long.ttl], [1_000, 60_000]);
      await kill(first);
      await sleep(1_200); // the short ttl ends while the server is down
      await labAt(port, path.join(dir, 'empty.json'));
      const [s, l] = await Promise.all([
        c.until(short.key, (x) => x.status === 'expired' || x.status === 'lost', 'the short task to end'),
        c.until(long.key, (x) => x.status === 'expired' || x.status === 'lost', 'the long task to end'),
      ]);
      assert.deepEqual([s.status, s.lastServerStatus], ['expired', 'working']);
      assert.deepEqual([l.status, l.lastServerStatus], ['lost', 'working']);
      assert.match(s.note!, /^Its ttl of 1 s ended; the server no longer knows the task/);
      assert.match(l.note!, /^The server no longer knows the task/);
    });
  });

  it('a WebSocket server gone while its task runs: the outage is warned once per reason (the connection lost, then refused), not at every round of polls the backoff refuses, whose words ("failed 3 times in a row… It will not be tried again for 4 s. Restart it to try now.") are for commands', async () => {
    const ws = await startPeer([path.join(__dirname, '../../../../test/fixtures/servers/ws-server.mjs')]);
    peers.push(ws);
    const c = client({ servers: { w: { type: 'ws', url: `ws://127.0.0.1:${ws.port}/` } } });
    const id = c.id('w');
    const log = c.log as MemoryLogger;
    const t = await c.engine.callTool(id, 'delayed_echo', { arguments: { message: 'gone', delayMs: 0, held: true } });
    assert.equal(t.status, 'working');
    await ws.stop();
    // Rounds of polls 1, 2, 4 and 8 s apart, refused by the manager's backoff or by the closed port.
    await waitFor(() => log.has('debug', /Cannot reach the server to follow its tasks: .* Retrying in 8 s\.$/), 'the polls to back off to 8 s', 30_000);
    const told = log.lines.filter((l) => l.level === 'warn' && /follow its tasks/.test(l.message)).map((l) => l.message.replace(/ Retrying in \d+ s\.$/, ''));
    assert.ok(told.length > 0 && told.every((m) => /^\[w\] Cannot reach the server to follow its tasks: ([Tt]he connection to ws:\S+ was lost \(code 1006\)\.|Could not connect to server "w" at ws:\S+: connection refused \(ECONNREFUSED\): is the server running\?)$/.test(m)), told.join('\n'));
    assert.equal(new Set(told).size, told.length, `each reason once:\n${told.join('\n')}`);
  });

  it('an answer stream cut before the result is no result: nothing made up is kept, and the real result is fetched again', async () => {
    const p = await startPeer([taskLab, 'http', '--poll-interval', '100', '--cut-first-result']);
    peers.push(p);
    const c = client({ servers: { remote: { type: 'http', url: `http://127.0.0.1:${p.port}/mcp` } } });
    const id = c.id('remote');
    const t = await c.engine.callTool(id, 'work', { arguments: { tag: 'cut', durationMs: 200 } });
    const log = c.log as MemoryLogger;
    await c.until(t.key, (s) => s.status === 'completed', 'completion');
    await waitFor(() => log.has('warn', /tasks\/result .* failed: Server "remote" dropped the stream carrying the answer/), 'the failed fetch');
    assert.equal(c.engine.get(t.key)!.outcome, undefined, 'the client kept an error it made up as the task\'s result');
    assert.deepEqual(await c.engine.fetchResult(t.key), outcome('cut', t.taskId));
  });

  describe('a server that stops answering', () => {
    /** A task-lab over stdio whose requests time out after 0.4 s, connected; its process id, to stop it. */
    async function stoppableLab() {
      const c = client({
        servers: { lab: { type: 'stdio', command: node, args: [taskLab, 'stdio', '--poll-interval', '100'] } },
        engine: { requestTimeoutMs: 400 },
        manager: { sessionOptions: { requestTimeoutMs: 400 } },
      });
      const id = c.id('lab');
      const session = await c.servers.getSession(id);
      return { c, id, session, pid: await labPid(session) };
    }

    it('SIGSTOP: requests time out with a clear message, polling goes on, and the task completes once the server runs again', async () => {
      const { c, id, session, pid } = await stoppableLab();
      // Held: working until the test lets it go, not for a time the stopped process may outlast before it stops.
      const t = await c.engine.callTool(id, 'work', { arguments: { tag: 'stopped', durationMs: 0, held: true } });
      process.kill(pid, 'SIGSTOP');
      try {
        // The connection's own timeout names its server: it may reach the user far from the server's row.
        await assert.rejects(session.ping(), /^TimeoutError: Server "lab" did not answer ping within 0\.4 s$/);
        await assert.rejects(c.engine.callTool(id, 'work', { arguments: { tag: 'never' } }), /^TimeoutError: Server "lab" did not answer tools\/call within 0\.4 s$/);
        const log = c.log as MemoryLogger;
        // The log's line names the server already: the timeout is told without the name again.
        // A hung server is unreachable, as a closed port is: its polls back off.
        const polls = () => log.lines.filter((l) => /^\[lab\] Cannot reach the server to follow its tasks: The server did not answer tasks\/get within 0\.4 s\. Retrying in \d+ s\.$/.test(l.message)).length;
        await waitFor(() => polls() >= 2, 'two timed-out polls', 5_000);
        assert.ok(!log.has('warn', /^\[lab\] .*Server "lab"/), log.text().slice(-3000));
        assert.equal(c.engine.get(t.key)!.status, 'working', 'a silent server is not a lost task');
        assert.match(c.engine.unreachable(id)?.why ?? '', /did not answer tasks\/get within 0\.4 s/);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      process.kill(pid, 'SIGUSR2');
      const done = await c.until(t.key, (s) => s.outcome !== undefined, 'the task after SIGCONT');
      assert.deepEqual(done.outcome, outcome('stopped', t.taskId));
      assert.equal(c.servers.get(id)!.state.kind, 'connected');
    });

    it('SIGSTOP while its tasks are followed through tasks/list: a list that times out makes the server unreachable as a poll does, said once in the same words, not a warning per cycle', async () => {
      const { c, id, pid } = await stoppableLab();
      const log = c.log as MemoryLogger;
      const tasks = await Promise.all([0, 1, 2].map((i) => c.engine.callTool(id, 'work', { arguments: { tag: `listed-${i}`, durationMs: 0, held: true } })));
      await waitFor(() => log.has('info', /Following 3 tasks through tasks\/list/), 'the tasks followed by list');
      process.kill(pid, 'SIGSTOP');
      try {
        await waitFor(() => log.lines.some((l) => /did not answer tasks\/(list|get) within 0\.4 s\. Retrying in 2 s\.$/.test(l.message)), 'two rounds that timed out', 10_000);
        assert.match(c.engine.unreachable(id)?.why ?? '', /^The server did not answer tasks\/(list|get) within 0\.4 s\.$/);
        const warned = log.lines.filter((l) => l.level === 'warn').map((l) => l.message);
        assert.equal(warned.length, 1, warned.join('\n'));
        assert.match(warned[0], /^\[lab\] Cannot reach the server to follow its tasks: The server did not answer tasks\/(list|get) within 0\.4 s\. Retrying in 1 s\.$/);
      } finally {
        process.kill(pid, 'SIGCONT');
      }
      process.kill(pid, 'SIGUSR2');
      for (const t of tasks) assert.equal((await c.until(t.key, (s) => s.outcome !== undefined, 'the task after SIGCONT')).status, 'completed');
    });

    it('a server that never answers initialize: the log line, which names the server, does not name it again', async () => {
      const c = client({ servers: { mute: { type: 'stdio', command: node, args: ['-e', 'setInterval(() => {}, 1000)'] } }, manager: { sessionOptions: { initializeTimeoutMs: 200 } } });
      const id = c.id('mute');
      await assert.rejects(c.servers.getSession(id), /^TimeoutError: Server "mute" did not answer initialize within 0\.2 s$/);
      const log = c.log as MemoryLogger;
      assert.ok(log.has('error', /^\[mute\] Could not connect: Request initialize timed out after 200 ms without an answer\. It will not be tried again for 1 s\.$/), log.text());
    });

    it('a server that never answers initialize and uses an ${env:…} that is not set: the log line says so too, as its row does', async () => {
      const c = client({ servers: { mute: { type: 'stdio', command: node, args: ['-e', 'setInterval(() => {}, 1000)', '${env:MCP_TASKS_TEST_UNSET}'] } }, manager: { sessionOptions: { initializeTimeoutMs: 200 } } });
      const id = c.id('mute');
      const unset = '${env:MCP_TASKS_TEST_UNSET} is empty: MCP_TASKS_TEST_UNSET is not set where the editor was started.';
      await assert.rejects(c.servers.getSession(id), (err: Error) => (assert.equal(err.message, `Server "mute" did not answer initialize within 0.2 s. ${unset}`), true));
      const log = c.log as MemoryLogger;
      assert.ok(log.lines.some((l) => l.level === 'error' && l.message === `[mute] Could not connect: Request initialize timed out after 200 ms without an answer. ${unset} It will not be tried again for 1 s.`), log.text());
    });

    for (const transport of ['stdio', 'http'] as const) {
      it(`${transport}: a tasks/result that blocks for minutes freezes nothing; the same server's other tasks poll, update and complete`, async () => {
        let url = '';
        if (transport === 'http') {
          const p = await startPeer([taskLab, 'http', '--poll-interval', '100']);
          peers.push(p);
          url = `http://127.0.0.1:${p.port}/mcp`;
        }
        const c = client({
          servers: { lab: transport === 'stdio' ? { type: 'stdio', command: node, args: [taskLab, 'stdio', '--poll-interval', '100'] } : { type: 'http', url } },
          engine: { requestTimeoutMs: 2_000 },
        });
        const id = c.id('lab');
        const long = await c.engine.callTool(id, 'work', { arguments: { tag: 'minutes', durationMs: 300_000, steps: 3000 } });
        let settled = false;
        const blocked = c.engine.fetchResult(long.key).finally(() => (settled = true));
        const others = await Promise.all([300, 600, 900].map((ms, i) => c.engine.callTool(id, 'work', { arguments: { tag: `other-${i}`, durationMs: ms } })));
        for (const [i, o] of others.entries()) {
          assert.deepEqual((await c.until(o.key, (s) => s.outcome !== undefined, `other task ${i}`)).outcome, outcome(`other-${i}`, o.taskId));
        }
        const seen = c.engine.get(long.key)!.statusMessage;
        await c.until(long.key, (s) => s.statusMessage !== seen, 'the blocked task to update through polls');
        assert.equal(settled, false, 'tasks/result is still blocked');
        // Cancelling it ends the blocked call too.
        await c.engine.cancel(long.key);
        const o = await blocked;
        assert.equal(o.kind, 'error');
        assert.equal(c.engine.get(long.key)!.status, 'cancelled');
      });
    }
  });
});
