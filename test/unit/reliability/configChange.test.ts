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
import { openClient, startPeer, taskLab } from './support';

describe('reliability: the configuration of a stdio server with live tasks changes', function () {
  this.timeout(30_000);
  let dir: string;
  let client: Client | undefined;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-edit-'))));
  afterEach(async () => {
    await client?.close();
    client = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** task-lab over stdio, which notes each start in the spawn log named `log` (what tells configurations apart). */
  const lab = (log: string, extra: Record<string, unknown> = {}) => ({ type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', path.join(dir, log), '--poll-interval', '50'], ...extra });
  /** The processes started with the configuration of spawn log `log`. */
  const spawns = (log: string) => (fs.existsSync(path.join(dir, log)) ? fs.readFileSync(path.join(dir, log), 'utf8').trim().split('\n') : []);
  const configure = (c: Client, servers: Record<string, unknown>) => {
    const parsed = parseSettingServers(servers);
    c.servers.setConfiguration(parsed.servers, parsed.errors);
  };
  const until = async (what: string, check: () => boolean) => {
    const deadline = Date.now() + 15_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const work = (c: Client, tag: string, durationMs: number) => c.engine.callTool(c.id('lab'), 'work', { arguments: { tag, durationMs } });

  it('keeps the process and its live tasks until they end (the count follows them), then restarts with the new configuration, connected as it was', async () => {
    client = openClient({ servers: { lab: lab('a') } });
    const c = client;
    const id = c.id('lab');
    const short = await work(c, 'short', 600);
    const long = await work(c, 'long', 1500);
    const running = c.servers.peekSession(id);
    configure(c, { lab: lab('b', { env: { FIXED: 'typo' } }) });
    assert.deepEqual([c.servers.get(id)?.state.kind, c.servers.get(id)?.newConfigWaitsFor], ['connected', 2]);
    assert.equal(c.servers.peekSession(id), running, 'the same connection');

    assert.equal((await c.until(short.key, (s) => s.status !== 'working', 'the short task')).status, 'completed');
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, 1, 'one task left to wait for');
    const done = await c.until(long.key, (s) => s.status !== 'working', 'the long task');
    assert.equal(done.status, 'completed', done.note);
    await until('the restart with the new configuration', () => spawns('b').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual([spawns('a').length, c.servers.get(id)?.newConfigWaitsFor], [1, undefined]);
    assert.notEqual(c.servers.peekSession(id), running);
  });

  it('a further edit replaces the waiting configuration, an invalid one keeps it, and an edit back to the running one cancels the restart', async () => {
    client = openClient({ servers: { lab: lab('a') } });
    const c = client;
    const id = c.id('lab');
    const first = await work(c, 'first', 1000);
    configure(c, { lab: lab('b') });
    configure(c, { lab: lab('c') });
    configure(c, { lab: { ...lab('c'), type: 'std' } }); // saved mid-typing
    assert.match(c.servers.errors[0]?.message ?? '', /The server stays as it was until this is fixed\.$/);
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, 1);
    configure(c, { lab: lab('c') });
    assert.equal((await c.until(first.key, (s) => s.status !== 'working', 'the first task')).status, 'completed');
    await until('the restart', () => spawns('c').length === 1 && c.servers.get(id)?.state.kind === 'connected');
    assert.deepEqual([spawns('a').length, spawns('b').length], [1, 0], 'started with the last configuration only');

    // Now running "c": an edit, then the edit undone, while a task runs.
    const running = c.servers.peekSession(id);
    const second = await work(c, 'second', 600);
    configure(c, { lab: lab('d') });
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, 1);
    configure(c, { lab: lab('c') });
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, undefined);
    assert.equal((await c.until(second.key, (s) => s.status !== 'working', 'the second task')).status, 'completed');
    assert.equal(c.servers.peekSession(id), running, 'no restart');
    assert.deepEqual([spawns('c').length, spawns('d').length], [1, 0]);
  });

  it('Restart applies the waiting configuration at once; the lost task says the user restarted its server', async () => {
    client = openClient({ servers: { lab: lab('a') } });
    const c = client;
    const id = c.id('lab');
    const task = await work(c, 'long', 60_000);
    configure(c, { lab: lab('b') });
    assert.equal(c.servers.get(id)?.newConfigWaitsFor, 1);
    await c.servers.restart(id);
    assert.deepEqual([spawns('a').length, spawns('b').length, c.servers.get(id)?.newConfigWaitsFor], [1, 1, undefined]);
    const lost = await c.until(task.key, (s) => s.status === 'lost', 'the task to be lost');
    assert.equal(lost.note, `The server's process ended (${RESTARTED}).`);
  });

  it('a process that ends by itself while a new configuration waits: its tasks are lost as in any crash, and the next connection uses the new configuration', async () => {
    client = openClient({ servers: { lab: lab('a') } });
    const c = client;
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
    try {
      const remote = (extra: Record<string, unknown> = {}) => ({ type: 'http', url: `http://127.0.0.1:${peer.port}/mcp`, ...extra });
      client = openClient({ servers: { lab: lab('a'), remote: remote() } });
      const c = client;
      await c.servers.getSession(c.id('lab'));
      const task = await c.engine.callTool(c.id('remote'), 'work', { arguments: { durationMs: 1000 } });
      configure(c, { lab: lab('b'), remote: remote({ headers: { 'x-edited': '1' } }) });
      assert.deepEqual([c.servers.get(c.id('lab'))?.newConfigWaitsFor, c.servers.get(c.id('remote'))?.newConfigWaitsFor], [undefined, undefined]);
      await until('both to reconnect', () => spawns('b').length === 1 && c.servers.list().every((s) => s.state.kind === 'connected'));
      assert.equal((await c.until(task.key, (s) => s.status !== 'working', 'the remote task')).status, 'completed');
    } finally {
      await client?.close();
      client = undefined;
      await peer.stop();
    }
  });

  it('a server removed while its task runs keeps its process until the task ends, then closes; added back meanwhile, it goes on', async () => {
    client = openClient({ servers: { lab: lab('a') } });
    const c = client;
    const id = c.id('lab');
    const task = await work(c, 'left', 800);
    const running = c.servers.peekSession(id);
    configure(c, {});
    assert.deepEqual([c.servers.list().length, c.servers.isConfigured(id), c.servers.leavingWith(id)], [0, true, 1]);
    const done = await c.until(task.key, (s) => s.status !== 'working', 'the task');
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
});
