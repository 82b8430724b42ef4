// Issue 8, load: 1,000 concurrent tasks on one server, and 10 servers (stdio and Streamable HTTP)
// with 100 tasks each. Every result is retrieved exactly once (the server counts tasks/result per
// task), none is lost, none duplicated. The server sends every status notification twice, so
// polls and notifications race for each completion.
import * as assert from 'node:assert/strict';
import { RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import type { Client } from './support';
import { clientsAndPeersForEachTest, crashCounter, heapSampler, mb, prng, startPeer, taskLab } from './support';

interface LabStats {
  created: number;
  resultCalls: Record<string, number>;
}

/** Starts `n` tasks on a server at once and waits for every result; checks them against the server's counts. */
async function runTasks(c: Client, serverId: string, n: number, seed: number): Promise<void> {
  const r = prng(seed);
  const tags = Array.from({ length: n }, (_, i) => `${serverId.replace('settings:', '')}#${i}`);
  const snaps = await Promise.all(tags.map((tag) => c.engine.callTool(serverId, 'work', { arguments: { tag, durationMs: 200 + Math.floor(r() * 1800) } })));
  const done = await Promise.all(snaps.map((s) => c.until(s.key, (x) => x.outcome !== undefined, `${s.taskId} of ${serverId}`, 90_000)));
  const tasks = c.engine.list().filter((t) => t.serverId === serverId);
  assert.equal(tasks.length, n, 'no task lost, none duplicated');
  assert.equal(new Set(tasks.map((t) => t.taskId)).size, n);
  for (const [i, t] of done.entries()) {
    assert.equal(t.status, 'completed');
    assert.deepEqual(t.outcome, { kind: 'result', result: { content: [{ type: 'text', text: `done: ${tags[i]}` }], structuredContent: { tag: tags[i] }, _meta: { [RELATED_TASK_META]: { taskId: t.taskId } } } });
  }
  const session = await c.servers.getSession(serverId);
  const stats = (await session.connection.requestRaw('lab/stats', {})) as unknown as LabStats;
  assert.equal(stats.created, n);
  const calls = Object.entries(stats.resultCalls);
  assert.deepEqual(new Set(calls.map(([id]) => id)), new Set(done.map((t: TaskSnapshot) => t.taskId)), 'a result was fetched for every task and no other');
  const notOnce = calls.filter(([, count]) => count !== 1);
  assert.deepEqual(notOnce, [], 'every result fetched exactly once');
}

describe('reliability: load', function () {
  this.timeout(120_000);
  const { open, peers } = clientsAndPeersForEachTest();

  /** Runs `body`, prints its figures, and checks it left no uncaught error, rejection or warning (a listener leak). */
  async function measure(what: string, body: () => Promise<void>): Promise<void> {
    const crashes = crashCounter();
    const cpu = process.cpuUsage();
    const started = Date.now();
    const heap = heapSampler();
    try {
      await body();
    } finally {
      crashes.dispose();
    }
    const peak = heap.stop();
    const used = process.cpuUsage(cpu);
    console.log(`      ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s, client CPU ${((used.user + used.system) / 1e6).toFixed(1)} s, peak heap ${mb(peak)}`);
    assert.deepEqual(crashes.seen, { uncaught: [], unhandled: [], warnings: [] });
  }

  it('1,000 concurrent tasks on one stdio server: every result retrieved exactly once', async () => {
    const c = open({
      servers: { lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--poll-interval', '500', '--notify', 'twice'] } },
      engine: { minPollMs: 250 },
    });
    await c.servers.getSession(c.id('lab'));
    await measure('1 server x 1,000 tasks', () => runTasks(c, c.id('lab'), 1_000, 1));
  });

  it('10 servers (5 stdio, 5 Streamable HTTP) with 100 tasks each: every result retrieved exactly once', async () => {
    const http = await Promise.all(Array.from({ length: 5 }, () => startPeer([taskLab, 'http', '--poll-interval', '500', '--notify', 'twice'])));
    peers.push(...http);
    const servers: Record<string, unknown> = {};
    for (let i = 0; i < 5; i++) servers[`stdio-${i}`] = { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--poll-interval', '500', '--notify', 'twice'] };
    for (const [i, p] of http.entries()) servers[`http-${i}`] = { type: 'http', url: `http://127.0.0.1:${p.port}/mcp` };
    const c = open({ servers, engine: { minPollMs: 250 } });
    const ids = Object.keys(servers).map((name) => c.id(name));
    await Promise.all(ids.map((id) => c.servers.getSession(id)));
    await measure('10 servers x 100 tasks', async () => {
      await Promise.all(ids.map((id, i) => runTasks(c, id, 100, 100 + i)));
    });
  });
});
