// A stdio server's tasks die with its process: an edit of its configuration (each save of
// mcp.json) or its removal must not end them. Its process runs on until they end; then it restarts
// with the new configuration, or closes. Real task-lab processes, wired as src/extension.ts wires them.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSettingServers } from '../../../src/core/config/parse';
import { RESTARTED } from '../../../src/core/servers/serverManager';
import type { Client } from './support';
import type { MemoryLogger } from '../helpers/logger';
import { waitFor } from '../helpers/logger';
import type { SavedSession } from '../../../src/core/state/taskStore';
import { isTerminal } from '../../../src/core/tasks/status';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { clientsAndPeersForEachTest, fixtures, startPeer, taskLab } from './support';

/** The note of a task whose removed server the user disconnected. */
const DROPPED = 'Its server is no longer in the configuration and it was disconnected by the user.';
/** The note of a task whose server the user disconnected while its new configuration waited for it (the task is at the old endpoint). */
const MOVED = "Its server's configuration changed and it was disconnected by the user.";
/** Ended with its result kept (its process or connection is kept for that too), or ended otherwise. */
const settled = (s: TaskSnapshot) => s.outcome !== undefined || (isTerminal(s.status) && s.status !== 'completed');

/** Replaces the client's configuration with `servers` (the setting's shape), as a save does. */
function configure(c: Client, servers: Record<string, unknown>): void {
  const parsed = parseSettingServers(servers);
  c.servers.setConfiguration(parsed.servers, parsed.errors);
}

const until = (what: string, check: () => boolean) => waitFor(check, what, 15_000);

describe('reliability: the configuration of a stdio server with live tasks changes', function () {
  this.timeout(30_000);
  const { open, peers } = clientsAndPeersForEachTest();
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-edit-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** task-lab over stdio, which notes each start in the spawn log named `log` (what tells configurations apart). */
  const lab = (log: string, extra: Record<string, unknown> = {}, more: string[] = []) => ({ type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', path.join(dir, log), '--poll-interval', '50', ...more], ...extra });
  /** The processes started with the configuration of spawn log `log`. */
  const spawns = (log: string) => (fs.existsSync(path.join(dir, log)) ? fs.readFileSync(path.join(dir, log), 'utf8').trim().split('\n') : []);
  const work = (c: Client, tag: string, durationMs: number) => c.engine.callTool(c.id('lab'), 'work', { arguments: { tag, durationMs } });
  /** A task that works until `release(c, tag)`, then ends at once. */
  const held = (c: Client, tag: string) => c.engine.callTool(c.id('lab'), 'work', { arguments: { tag, durationMs: 0, held: true } });
  const release = (c: Client, tag: string) => c.servers.peekSession(c.id('lab'))!.connection.requestRaw('lab/release', { tag });
  /** What a new configuration or a removed server waits for: `n` live tasks, `calls` running calls and `results` results to fetch. */
  const tasks = (n: number, calls = 0, results = 0) => ({ tasks: n, calls, results });

  it('keeps the process and its live tasks until they end (the count follows them), then restarts with the new configuration, connected as it was', async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    // Held, so both are live at the edit and the long one outlives the short one, however slow the machine.
    const short = await held(c, 'short');
    const long = await held(c, 'long');
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b', { env: { FIXED: 'typo' } }) });
    assert.deepEqual([c.servers.get(id)?.state.kind, c.servers.get(id)?.newConfigWaitsFor], ['connected', tasks(2)]);
    assert.equal(c.servers.peekSession(id), running, 'the same connection');

    await release(c, 'short');
    assert.equal((await c.until(short.key, settled, 'the short task and its result')).status, 'completed');
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(1), 'one task left to wait for');
    await release(c, 'long');
    const done = await c.until(long.key, (s) => s.status !== 'working', 'the long task');
    assert.equal(done.status, 'completed', done.note);
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual([spawns('a').length, c.servers.get(id)?.newConfigWaitsFor], [1, undefined]);
    assert.notEqual(c.servers.peekSession(id), running);
  });

  it('an ended task whose result is still being fetched keeps the process too: the result is kept, then the server restarts', async () => {
    const c = open({ servers: { lab: lab('a', {}, ['--result-delay', '800']) } });
    const id = c.id('lab');
    const task = await work(c, 'slow result', 300);
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b') });
    await c.until(task.key, (s) => s.status !== 'working', 'the task');
    const held = [c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === running];
    const kept = await c.until(task.key, settled, 'the result');
    assert.deepEqual([kept.status, kept.outcome?.kind === 'result' && kept.outcome.result.structuredContent], ['completed', { tag: 'slow result' }], kept.note);
    assert.deepEqual(held, [tasks(0, 0, 1), true], 'ended, the task waited for its result from this process (a result, no longer a live task)');
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual([spawns('a').length, c.servers.get(id)?.newConfigWaitsFor], [1, undefined]);
  });

  it('a result that cannot be fetched does not keep the process for ever: after 3 failed tries it restarts, and the log says why', async () => {
    const c = open({ servers: { lab: lab('a', {}, ['--result-error']) } });
    const id = c.id('lab');
    const task = await work(c, 'no result', 200);
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b') });
    const log = c.log as MemoryLogger;
    await until('the first try to fail', () => /tasks\/result \S+ failed though the task completed/.test(log.text()));
    await assert.rejects(c.engine.fetchResult(task.key), /: the server answered tasks\/result with error -?\d+: /);
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === running], [tasks(0, 0, 1), true], 'kept after 2 tries');
    await assert.rejects(c.engine.fetchResult(task.key), /: the server answered tasks\/result with error -?\d+: /);
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.match(log.text(), /\[lab\] Task \S+: no result after 3 tries; a restart or removal of its server no longer waits for it/);
  });

  it('a further edit replaces the waiting configuration, an invalid one keeps it, and an edit back to the running one cancels the restart', async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const first = await work(c, 'first', 1000);
    configure(c, { lab: lab('b') });
    configure(c, { lab: lab('c') });
    configure(c, { lab: { ...lab('c'), type: 'std' } }); // saved mid-typing
    assert.match(c.servers.errors[0]?.message ?? '', /The server stays as it was until this is fixed\.$/);
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(1));
    configure(c, { lab: lab('c') });
    assert.equal((await c.until(first.key, (s) => s.status !== 'working', 'the first task')).status, 'completed');
    await until('the restart', () => spawns('c').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual([spawns('a').length, spawns('b').length], [1, 0], 'started with the last configuration only');

    // Now running "c": an edit, then the edit undone, while a task runs.
    const running = c.servers.peekSession(id);
    const second = await work(c, 'second', 600);
    configure(c, { lab: lab('d') });
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(1));
    configure(c, { lab: lab('c') });
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, undefined);
    assert.equal((await c.until(second.key, (s) => s.status !== 'working', 'the second task')).status, 'completed');
    assert.equal(c.servers.peekSession(id), running, 'no restart');
    assert.deepEqual([spawns('c').length, spawns('d').length], [1, 0]);
  });

  it('Restart applies the waiting configuration at once; the lost task says the user restarted its server', async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const task = await work(c, 'long', 60_000);
    configure(c, { lab: lab('b') });
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(1));
    await c.restart(id);
    assert.deepEqual([spawns('a').length, spawns('b').length, c.servers.get(id)?.newConfigWaitsFor], [1, 1, undefined]);
    const lost = await c.until(task.key, (s) => s.status === 'lost', 'the task to be lost');
    assert.equal(lost.note, `The server's process ended (${RESTARTED}).`);
  });

  it("Disconnect while a new configuration waits ends the process, and the task with it at once, by the user's choice (one change), as its row's question said", async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const task = await work(c, 'long', 60_000);
    configure(c, { lab: lab('b') });
    const changes: string[] = [];
    c.engine.onDidChange((t) => t.key === task.key && changes.push(t.status));
    await c.servers.disconnect(id);
    assert.deepEqual([changes, c.engine.get(task.key)?.note], [['lost'], "The server's process ended (disconnected by the user)."]);
  });

  it('a process that ends by itself while a new configuration waits: its tasks are lost as in any crash, and the next connection uses the new configuration', async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const task = await work(c, 'long', 60_000);
    configure(c, { lab: lab('b') });
    process.kill(Number(spawns('a')[0].split(' ')[0]));
    assert.equal((await c.until(task.key, (s) => s.status !== 'working', 'the task')).status, 'lost');
    await until('the server to settle', () => c.servers.get(id)?.state.kind === 'idle');
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, undefined);
    await c.servers.getSession(id);
    assert.deepEqual([spawns('a').length, spawns('b').length], [1, 1]);
  });

  it('a server without live tasks restarts at once, as does a remote server with live tasks (they live on the server)', async () => {
    const peer = await startPeer([taskLab, 'http', '--port', '0']);
    peers.push(peer);
    const remote = (extra: Record<string, unknown> = {}) => ({ type: 'http', url: `http://127.0.0.1:${peer.port}/mcp`, ...extra });
    const c = open({ servers: { lab: lab('a'), remote: remote() } });
    await c.servers.getSession(c.id('lab'));
    const task = await c.engine.callTool(c.id('remote'), 'work', { arguments: { durationMs: 1000 } });
    configure(c, { lab: lab('b'), remote: remote({ headers: { 'x-edited': '1' } }) });
    assert.deepEqual([c.servers.get(c.id('lab'))?.newConfigWaitsFor, c.servers.get(c.id('remote'))?.newConfigWaitsFor], [undefined, undefined]);
    await until('both to reconnect', () => spawns('b').length === 1 && c.servers.list().every((s) => s.state.kind === 'connected'));
    assert.equal((await c.until(task.key, (s) => s.status !== 'working', 'the remote task')).status, 'completed');
  });

  it('a question the server asked as a task (hosted here, its form open) keeps the process too: the new configuration waits for it, then applies once it is answered', async () => {
    let answer: ((v: Record<string, unknown>) => void) | undefined;
    const c = open({ servers: { lab: lab('a') }, elicit: () => new Promise((resolve) => (answer = resolve)) });
    const id = c.id('lab');
    const ask = await c.engine.callTool(id, 'ask', { arguments: { count: 1 } });
    await until('the question', () => answer !== undefined);
    // The call's answer follows the question: until it is read, the question may be the call's.
    await c.until(ask.key, (s) => s.status === 'completed', 'the call');
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b') });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === running, c.host.list().map((h) => h.status)], [tasks(1), true, ['working']], 'the same process, the question still open');
    answer!({ action: 'accept', content: { answer: 'yes' } });
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.match((c.log as MemoryLogger).text(), /\[lab\] Hosted task \S+ dropped \(was completed\): the connection closed \(closed: its configuration changed\)/, 'answered before the restart, not dropped open');
  });

  /** A task-augmented call whose server asks a question before it answers (askFirst "fail": it fails the call unless accepted), once asked. */
  const askingCall = async () => {
    let answer: ((v: Record<string, unknown>) => void) | undefined;
    const c = open({ servers: { lab: lab('a') }, elicit: () => new Promise((resolve) => (answer = resolve)) });
    const call = c.engine.callTool(c.id('lab'), 'work', { arguments: { askFirst: 'fail' } });
    await until('the question before the answer', () => answer !== undefined);
    return { c, id: c.id('lab'), call, answer: answer! };
  };

  it('a task-augmented call still waiting for its CreateTaskResult keeps the process too (the task the server makes is its): the new configuration waits, then applies once the call fails', async () => {
    const { c, id, call, answer } = await askingCall();
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b') });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === running, c.engine.pendingCalls(id)], [tasks(0, 1), true, 1], 'the same process, the call waiting');
    answer({ action: 'decline' });
    await assert.rejects(call, /Cannot go on/);
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
  });

  it('a task-augmented call still waiting for its answer when the configuration changes, answered at last (here with a tool result, kept as a direct call that ended): the new configuration applies then, not at some later change', async () => {
    const { c, id, call, answer } = await askingCall();
    configure(c, { lab: lab('b') });
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(0, 1), 'the call waiting');
    answer({ action: 'accept', content: { answer: 'yes' } });
    assert.equal((await call).status, 'completed');
    // The call's end was told while it still counted: the end of the call itself tells again.
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
  });

  it('a server removed while its task runs keeps its process until the task ends, then closes; added back meanwhile, it goes on', async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const task = await work(c, 'left', 800);
    const running = c.servers.peekSession(id);
    configure(c, {});
    assert.deepEqual([c.servers.list().length, c.servers.isConfigured(id), c.servers.leavingWith(id)], [0, true, tasks(1)]);
    const done = await c.until(task.key, settled, 'the task and its result');
    assert.equal(done.status, 'completed', done.note);
    assert.deepEqual([c.servers.isConfigured(id), c.servers.leavingWith(id), c.servers.peekSession(id)], [false, undefined, undefined]);
    await until('its process to end', () => running!.isClosed);

    // Removed and added back (a rename undone) while a task runs: the same process.
    configure(c, { lab: lab('a') });
    const again = await work(c, 'again', 800);
    const second = c.servers.peekSession(id);
    configure(c, {});
    configure(c, { lab: lab('a') });
    assert.deepEqual([c.servers.leavingWith(id), c.servers.get(id)?.state.kind, c.servers.peekSession(id)], [undefined, 'connected', second]);
    assert.equal((await c.until(again.key, (s) => s.status !== 'working', 'the task')).status, 'completed');
    assert.equal(spawns('a').length, 2);
  });

  it("Disconnect of a removed server whose process runs its task (the removed row's action, which asks first) ends it now: the task is lost by the user's choice, as a removed remote server's is", async () => {
    const c = open({ servers: { lab: lab('a') } });
    const id = c.id('lab');
    const task = await work(c, 'stopped', 60_000);
    const running = c.servers.peekSession(id);
    configure(c, {});
    await c.servers.disconnect(id);
    const lost = await c.until(task.key, (s) => s.status !== 'working', 'the task to end');
    assert.deepEqual([lost.status, lost.note], ['lost', DROPPED]);
    await until('its process to end', () => running!.isClosed);
  });

  it('a server removed while the result of its ended task is being fetched keeps its process until the result is kept', async () => {
    const c = open({ servers: { lab: lab('a', {}, ['--result-delay', '800']) } });
    const id = c.id('lab');
    const task = await work(c, 'left', 300);
    const running = c.servers.peekSession(id);
    await c.until(task.key, (s) => s.status !== 'working', 'the task');
    configure(c, {});
    const held = [c.servers.leavingWith(id), running?.isClosed];
    const kept = await c.until(task.key, settled, 'the result');
    assert.deepEqual([kept.status, kept.outcome?.kind === 'result' && kept.outcome.result.structuredContent], ['completed', { tag: 'left' }], kept.note);
    assert.deepEqual(held, [tasks(0, 0, 1), false], 'ended, the task waited for its result from this process');
    assert.match((c.log as MemoryLogger).text(), /\[lab\] Removed from the configuration: its process runs until its task's result is fetched$/m);
    await until('its process to end', () => running!.isClosed);
    assert.equal(c.servers.leavingWith(id), undefined);
  });
});

describe('reliability: the configuration of a remote server with live tasks changes', function () {
  this.timeout(30_000);
  const { open, peers } = clientsAndPeersForEachTest();

  /** task-lab over Streamable HTTP (its tasks are the process's, whatever the session), on its own port. */
  const lab = async (...more: string[]) => {
    const peer = await startPeer([taskLab, 'http', '--port', '0', '--poll-interval', '50', ...more]);
    peers.push(peer);
    return { type: 'http', url: `http://127.0.0.1:${peer.port}/mcp` };
  };
  const tasks = (n: number, calls = 0, results = 0) => ({ tasks: n, calls, results });
  /** The url of the configuration the server runs (or will connect with). */
  const urlOf = (c: Client, id: string) => (c.servers.config(id) as { url?: string } | undefined)?.url;

  it('a changed url keeps the connection to the old endpoint, where its live task is, until the task ends; then it reconnects to the new one', async () => {
    const [a, b] = [await lab(), await lab()];
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { durationMs: 1200 } });
    const old = c.servers.peekSession(id);
    configure(c, { remote: b });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === old], [tasks(1), true], 'the same connection waits');
    assert.match((c.log as MemoryLogger).text(), /\[remote\] Configuration changed: it reconnects with the new one when its live task ends \(Restart Server applies it now\)/);
    const done = await c.until(task.key, (s) => s.status !== 'working', 'the task');
    assert.equal(done.status, 'completed', done.note);
    await until('the connection to the new url', () => c.servers.get(id)?.state.kind === 'connected' && c.servers.peekSession(id) !== old);
    assert.deepEqual([urlOf(c, id), c.servers.get(id)?.newConfigWaitsFor, old?.isClosed], [b.url, undefined, true]);
  });

  it('a changed url keeps the old connection while the result of its ended task is being fetched: the result is kept', async () => {
    const [a, b] = [await lab('--result-delay', '800'), await lab()];
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { tag: 'at a', durationMs: 300 } });
    const old = c.servers.peekSession(id);
    await c.until(task.key, (s) => s.status !== 'working', 'the task');
    configure(c, { remote: b });
    const held = [c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === old];
    const kept = await c.until(task.key, settled, 'the result');
    assert.deepEqual([kept.status, kept.outcome?.kind === 'result' && kept.outcome.result.structuredContent], ['completed', { tag: 'at a' }], kept.note);
    assert.deepEqual(held, [tasks(0, 0, 1), true], 'ended, the task waited for its result from the old endpoint');
    assert.match((c.log as MemoryLogger).text(), /\[remote\] Configuration changed: it reconnects with the new one when its task's result is fetched \(Restart Server applies it now\)$/m);
    await until('the new url', () => urlOf(c, id) === b.url && c.servers.peekSession(id) !== old);
  });

  it('waiting, a connection that drops is made again to the old endpoint, not to the new one, while its task lives', async () => {
    const [a, b] = [await lab(), await lab()];
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    // Held: live after the drop however slow the machine; let go once the test has seen where it reconnects.
    const task = await c.engine.callTool(id, 'work', { arguments: { durationMs: 0, held: true } });
    configure(c, { remote: b });
    await c.servers.peekSession(id)!.close('dropped by the test');
    assert.deepEqual([urlOf(c, id), c.servers.get(id)?.newConfigWaitsFor], [a.url, tasks(1)]);
    // Let go through the connection made again: it reaches the task only at the old endpoint.
    await until('the connection made again', () => c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual(await (await c.servers.getSession(id)).connection.requestRaw('lab/release', {}), { released: 1 });
    const done = await c.until(task.key, (s) => s.status !== 'working', 'the task');
    assert.equal(done.status, 'completed', done.note);
    await until('the new url', () => urlOf(c, id) === b.url);
  });

  it('a renamed server (removed under its old name) keeps its connection while its task lives, then closes; Disconnect ends it before', async () => {
    const a = await lab();
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { durationMs: 1000 } });
    const old = c.servers.peekSession(id);
    configure(c, { renamed: a });
    assert.deepEqual([c.servers.isConfigured(id), c.servers.leavingWith(id), c.servers.peekSession(id) === old], [true, tasks(1), true], 'the same connection stays');
    assert.match((c.log as MemoryLogger).text(), /\[remote\] Removed from the configuration: its connection stays until its live task ends/);
    const done = await c.until(task.key, (s) => s.status !== 'working', 'the task');
    assert.equal(done.status, 'completed', done.note);
    await until('the old connection to close', () => old!.isClosed);
    assert.deepEqual([c.servers.isConfigured(id), c.servers.leavingWith(id)], [false, undefined]);

    // Renamed again while a long task runs: Disconnect (the removed row's action) closes it now.
    const renamed = c.id('renamed');
    await c.engine.callTool(renamed, 'work', { arguments: { durationMs: 60_000 } });
    const second = c.servers.peekSession(renamed);
    configure(c, { third: a });
    assert.deepEqual(c.servers.leavingWith(renamed), tasks(1));
    await c.servers.disconnect(renamed);
    assert.deepEqual([c.servers.isConfigured(renamed), c.servers.leavingWith(renamed), second?.isClosed], [false, undefined, true]);
  });

  it('Disconnect of a removed server ends its live tasks now, lost by the user\'s choice, whether its connection is up or has dropped (not after the grace period kept for a server that comes back)', async () => {
    const peer = await startPeer([path.join(fixtures, 'ws-server.mjs')]);
    peers.push(peer);
    const c = open({ servers: { http: await lab(), ws: { type: 'ws', url: `ws://127.0.0.1:${peer.port}/mcp` } } });
    const [http, ws] = [c.id('http'), c.id('ws')];
    const tasks = [
      await c.engine.callTool(http, 'work', { arguments: { durationMs: 60_000 } }),
      await c.engine.callTool(ws, 'delayed_echo', { arguments: { message: 'dropped', delayMs: 60_000 }, preference: 'task' }),
    ];
    configure(c, {});
    await c.servers.disconnect(http);
    // Dropped: made again only at its next poll, while the server is leaving.
    await c.servers.peekSession(ws)!.close('dropped by the test');
    assert.equal(c.servers.peekSession(ws), undefined);
    await c.servers.disconnect(ws);
    assert.deepEqual(
      tasks.map((t) => [c.engine.get(t.key)?.status, c.engine.get(t.key)?.note]),
      tasks.map(() => ['lost', DROPPED]),
    );
  });

  it("a removed server whose new url waited for its live task: Disconnect on its row ends the task now, lost by the user's choice, as without that wait (not 5 minutes later, for a server missing from the configuration)", async () => {
    const [a, b] = [await lab(), await lab()];
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { durationMs: 0, held: true } });
    configure(c, { remote: b });
    assert.deepEqual(c.servers.get(id)?.newConfigWaitsFor, tasks(1));
    configure(c, {});
    assert.deepEqual(c.servers.leavingWith(id), tasks(1));
    const changes: string[] = [];
    c.engine.onDidChange((t) => t.key === task.key && changes.push(t.status));
    await c.servers.disconnect(id);
    assert.deepEqual([changes, c.engine.get(task.key)?.note], [['lost'], DROPPED]);
  });

  it("Disconnect of a server whose new url waits for its live task (its row asks, saying the task will be lost) loses it now, by the user's choice, whether its connection is up or has dropped: not later at the new url, nor 5 minutes after a removal", async () => {
    const [a, b] = [await lab(), await lab()];
    let later = 0;
    const c = open({ servers: { up: a, down: a }, engine: { now: () => Date.now() + later } });
    const [up, down] = [c.id('up'), c.id('down')];
    const started = await Promise.all([up, down].map((id) => c.engine.callTool(id, 'work', { arguments: { durationMs: 0, held: true } })));
    configure(c, { up: b, down: b });
    void c.servers.peekSession(down)!.close('dropped by the test'); // closed at once: made again at the next poll
    assert.deepEqual([c.servers.get(up)?.newConfigWaitsFor, c.servers.get(down)?.newConfigWaitsFor, c.servers.peekSession(down)], [tasks(1), tasks(1), undefined]);
    const changes = started.map(() => [] as string[]);
    c.engine.onDidChange((t) => started.forEach((s, i) => s.key === t.key && changes[i].push(t.status)));
    await c.servers.disconnect(down);
    await c.servers.disconnect(up);
    const now = () => started.map((t) => [c.engine.get(t.key)?.status, c.engine.get(t.key)?.note]);
    assert.deepEqual([now(), changes], [started.map(() => ['lost', MOVED]), [['lost'], ['lost']]]);
    // Then connected at the new url (up), or removed past the 5 minutes a removed server is waited for (down): nothing more.
    await c.servers.getSession(up);
    configure(c, { up: b });
    for (const t of started) await c.engine.poll(t.key);
    later = 6 * 60_000;
    for (const t of started) await c.engine.poll(t.key);
    assert.deepEqual([now(), changes], [started.map(() => ['lost', MOVED]), [['lost'], ['lost']]]);
  });

  it('removed while its new url waits, and added back with it after its connection dropped: it still waits for its live task at the old endpoint (the new url is not connected at once, where the task would be lost), then reconnects to the new one', async () => {
    const [a, b] = [await lab(), await lab()];
    const c = open({ servers: { remote: a } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { tag: 'back', durationMs: 0, held: true } });
    configure(c, { remote: b });
    configure(c, {});
    void c.servers.peekSession(id)!.close('dropped by the test'); // closed at once: made again at the next poll
    configure(c, { remote: b });
    assert.deepEqual([urlOf(c, id), c.servers.get(id)?.newConfigWaitsFor], [a.url, tasks(1)]);
    await until('the connection made again (to the old endpoint)', () => c.servers.get(id)?.state.kind === 'connected');
    await c.servers.peekSession(id)!.connection.requestRaw('lab/release', { tag: 'back' });
    const done = await c.until(task.key, (s) => s.status !== 'working', 'the task');
    assert.equal(done.status, 'completed', done.note);
    await until('the new url', () => urlOf(c, id) === b.url && c.servers.get(id)?.state.kind === 'connected');
  });

  it('Streamable HTTP: new headers at the same url wait for a running call (its answer comes on the old connection) and a task waiting for input (its question would), not for a working task; then it reconnects, resuming the session', async () => {
    const a = await lab();
    const c: Client = open({ servers: { remote: a }, manager: { keepSessionAtShutdown: (id) => c.engine.holdsSession(id) } });
    const id = c.id('remote');
    const working = await c.engine.callTool(id, 'work', { arguments: { tag: 'w', held: true, durationMs: 0 } });
    const asking = await c.engine.callTool(id, 'work', { arguments: { tag: 'q', held: true, input: true, durationMs: 0 } });
    const call = await c.engine.callTool(id, 'work-direct', { arguments: { tag: 'call', held: true, durationMs: 0 } });
    const old = c.servers.peekSession(id)!;
    configure(c, { remote: { ...a, headers: { Authorization: 'Bearer rotated' } } });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === old], [tasks(1, 1), true], 'the same connection waits for the call and the question');
    const release = async (tag: string) => ((await old.connection.requestRaw('lab/release', { tag })) as { released: number }).released;
    await waitFor(async () => (await release('call')) === 1, 'the held call to be released', 15_000);
    const answered = await c.until(call.key, (s) => s.status !== 'working', 'the call');
    assert.equal(answered.status, 'completed', answered.note);
    assert.equal(await release('q'), 1);
    await until('the new connection', () => c.servers.get(id)?.state.kind === 'connected' && c.servers.peekSession(id) !== old);
    assert.match((c.log as MemoryLogger).text(), new RegExp(`Resumed session ${old.transport.sessionId}`));
    assert.equal(c.engine.get(working.key)?.status, 'working', 'the working task did not hold the new headers back');
    assert.equal((await c.until(asking.key, (s) => s.status !== 'input_required' && s.status !== 'working', 'the asking task')).status, 'completed');
    await c.servers.peekSession(id)!.connection.requestRaw('lab/release', { tag: 'w' });
    assert.equal((await c.until(working.key, (s) => s.status !== 'working', 'the working task')).status, 'completed');
  });

  it('WebSocket: new headers wait too (the connection is the session, and this server keeps tasks per connection); a direct call counts as a call, not a task', async () => {
    const peer = await startPeer([path.join(fixtures, 'ws-server.mjs')]);
    peers.push(peer);
    const ws = (headers: Record<string, string> = {}) => ({ type: 'ws', url: `ws://127.0.0.1:${peer.port}/mcp`, headers });
    const c = open({ servers: { ws: ws() } });
    const id = c.id('ws');
    // Held, so both are live at the edit however slow the machine; released by the test (lab/release, over the waiting connection).
    const task = await c.engine.callTool(id, 'delayed_echo', { arguments: { message: 'task', delayMs: 0, held: true }, preference: 'task' });
    const call = await c.engine.callTool(id, 'delayed_echo', { arguments: { message: 'call', delayMs: 0, held: true }, preference: 'direct' });
    const old = c.servers.peekSession(id);
    configure(c, { ws: ws({ Authorization: 'Bearer rotated' }) });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.peekSession(id) === old], [tasks(1, 1), true], 'the same connection waits');
    const release = async (tag: string) => ((await old!.connection.requestRaw('lab/release', { tag })) as { released: number }).released;
    assert.equal(await release('task'), 1);
    // The call's task exists once the server has read the tools/call sent before: released once it does.
    await waitFor(async () => (await release('call')) === 1, 'the held call to be released', 15_000);
    for (const t of [task, call]) {
      const done = await c.until(t.key, (s) => s.status !== 'working', t.kind);
      assert.equal(done.status, 'completed', `${t.kind}: ${done.note}`);
    }
    await until('the new connection', () => c.servers.get(id)?.state.kind === 'connected' && c.servers.peekSession(id) !== old);
  });

  it('WebSocket: Disconnect while new headers wait at the same url loses nothing at once (its question says the task may be lost): the server, which keeps tasks across connections, has it on Connect, where it completes', async () => {
    const peer = await startPeer([path.join(fixtures, 'ws-server.mjs')], undefined, { SHARED_TASKS: '1' });
    peers.push(peer);
    const ws = (headers: Record<string, string> = {}) => ({ type: 'ws', url: `ws://127.0.0.1:${peer.port}/mcp`, headers });
    const c = open({ servers: { ws: ws() } });
    const id = c.id('ws');
    const task = await c.engine.callTool(id, 'delayed_echo', { arguments: { message: 'task', delayMs: 0, held: true }, preference: 'task' });
    configure(c, { ws: ws({ Authorization: 'Bearer rotated' }) });
    assert.deepEqual([c.servers.get(id)?.newConfigWaitsFor, c.servers.moves(id)], [tasks(1), false], 'new headers wait, at the same url');
    await c.servers.disconnect(id);
    assert.deepEqual([c.engine.get(task.key)?.status, c.engine.get(task.key)?.note], ['working', undefined], 'not lost at the Disconnect: the same url may still have it');
    const session = await c.servers.getSession(id);
    assert.deepEqual((c.servers.config(id) as { headers?: Record<string, string> }).headers, { Authorization: 'Bearer rotated' }, 'connected with the new headers');
    assert.equal(((await session.connection.requestRaw('lab/release', { tag: 'task' })) as { released: number }).released, 1);
    const done = await c.until(task.key, (t) => t.status !== 'working', 'the task');
    assert.equal(done.status, 'completed', done.note);
  });

  it("WebSocket: a task that outlived a Disconnect and is lost at the url its server was given after it is first told unchanged (that loss is not the Disconnect's doing); lost at the same url it is not, nor when the Disconnect applied the url (lost then: the user was warned)", async () => {
    const [a, b] = [await startPeer([path.join(fixtures, 'ws-server.mjs')]), await startPeer([path.join(fixtures, 'ws-server.mjs')])];
    peers.push(a, b);
    const ws = (p: typeof a) => ({ type: 'ws', url: `ws://127.0.0.1:${p.port}/mcp` });
    const c = open({ servers: { stays: ws(a), moves: ws(a), applied: ws(a) } });
    const ids = ['stays', 'moves', 'applied'].map((n) => c.id(n));
    const started = await Promise.all(ids.map((id) => c.engine.callTool(id, 'delayed_echo', { arguments: { message: id, delayMs: 60_000 }, preference: 'task' })));
    // Given the other url while its task runs: that configuration waits, and Disconnect applies it (its task is lost then).
    configure(c, { stays: ws(a), moves: ws(a), applied: ws(b) });
    assert.deepEqual(c.servers.get(c.id('applied'))?.newConfigWaitsFor, tasks(1));
    const changes = started.map(() => [] as string[]);
    c.engine.onDidChange((t) => started.forEach((s, i) => s.key === t.key && changes[i].push(t.status)));
    for (const id of ids) await c.servers.disconnect(id);
    configure(c, { stays: ws(a), moves: ws(b), applied: ws(b) });
    // Connect: this server keeps tasks per connection, and b never knew them.
    for (const id of ids) await c.servers.getSession(id);
    for (const s of started) await c.until(s.key, (t) => t.status === 'lost', `${s.serverId}'s task to be lost`);
    assert.deepEqual([changes, c.engine.get(started[2].key)?.note], [[['lost'], ['working', 'lost'], ['lost']], MOVED]);
  });

  it('a Streamable HTTP session whose ended task has its result still to fetch is kept at shutdown (saved for the next window, which fetches it there), not ended', async () => {
    const a = await lab('--result-delay', '60000');
    let saved: SavedSession[] | undefined;
    const c = open({ servers: { remote: a }, manager: { keepSessionAtShutdown: (id) => c.engine.holdsSession(id), saveSessions: (s) => (saved ??= s) } });
    const id = c.id('remote');
    const task = await c.engine.callTool(id, 'work', { arguments: { durationMs: 100 } });
    const sessionId = c.servers.peekSession(id)?.transport.sessionId;
    const ended = await c.until(task.key, (s) => s.status !== 'working', 'the task to end');
    assert.deepEqual([ended.status, ended.outcome], ['completed', undefined], 'ended, its result not fetched yet');
    c.engine.dispose(); // as at the window's shutdown: the engine first, then the servers
    c.servers.dispose();
    assert.deepEqual(saved?.map((s) => [s.serverId, s.sessionId]), [[id, sessionId]]);
  });

  it('a renamed Streamable HTTP server whose connection stays for its live task keeps its session at shutdown (saved for the next window), as a configured one does', async () => {
    const a = await lab();
    let saved: SavedSession[] | undefined;
    const c = open({
      servers: { remote: a },
      manager: {
        keepSessionAtShutdown: (id) => c.engine.holdsSession(id),
        saveSessions: (s) => (saved ??= s),
      },
    });
    const id = c.id('remote');
    await c.engine.callTool(id, 'work', { arguments: { durationMs: 60_000 } });
    const sessionId = c.servers.peekSession(id)?.transport.sessionId;
    configure(c, { renamed: a });
    assert.deepEqual(c.servers.leavingWith(id), tasks(1));
    c.engine.dispose(); // as at the window's shutdown: the engine first, then the servers
    c.servers.dispose();
    assert.deepEqual(saved?.map((s) => [s.serverId, s.sessionId]), [[id, sessionId]]);
  });
});
