// Live tasks of a server that left the configuration (removed from mcp.json or the settings):
// lost after a grace period instead of polled for ever, and unharmed when the server is back
// under the same id before that. Under fake timers, so the grace period is exact.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { parseMcpJson, parseSettingServers } from '../../../src/core/config/parse';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { taskKey } from '../../../src/core/tasks/types';
import type { Harness } from '../helpers/fakeTaskServer';
import { createHarness } from '../helpers/fakeTaskServer';
import { MemoryLogger } from '../helpers/logger';
import { bareServerManager } from '../helpers/servers';

type Clock = ReturnType<typeof FakeTimers.install>;
const MINUTE = 60_000;

describe('TaskEngine: live tasks of a server removed from the configuration', () => {
  let clock: Clock | undefined;
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
    clock?.uninstall();
    clock = undefined;
  });

  /** A manager and an engine whose polls are noted in `asked`, under fake timers: the tests need no server behind them. */
  const unreachedClient = () => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const log = new MemoryLogger();
    const servers = bareServerManager({ logger: log });
    const asked: string[] = [];
    const engine = new TaskEngine({
      logger: log,
      sessions: {
        getSession: (id) => (asked.push(id), Promise.reject(new Error(`${id} is not reached in this test`))),
        label: (id) => servers.label(id),
        tasksOutliveConnection: (id) => servers.tasksOutliveConnection(id),
        isConfigured: (id) => servers.isConfigured(id),
      },
      minPollMs: 100,
    });
    cleanups.push(() => servers.dispose(), () => engine.dispose());
    return { log, servers, asked, engine, clock };
  };

  it('a live task restored for a server the loaded configuration no longer names: lost 5 minutes later, saying its server was removed, with no warning every minute', async () => {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const log = new MemoryLogger();
    const servers = bareServerManager({ logger: log });
    const engine = new TaskEngine({
      logger: log,
      sessions: {
        getSession: (id, o) => servers.getSession(id, o),
        label: (id) => servers.label(id),
        tasksOutliveConnection: (id) => servers.tasksOutliveConnection(id),
        isConfigured: (id) => servers.isConfigured(id),
      },
      minPollMs: 100,
    });
    cleanups.push(() => servers.dispose(), () => engine.dispose());
    assert.equal(servers.isConfigured('old-http'), undefined, 'not known before the configuration loads');
    const kept = parseSettingServers({ kept: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    servers.setConfiguration(kept.servers, kept.errors); // loaded: old-http is gone
    assert.equal(servers.isConfigured('old-http'), false);
    assert.equal(servers.isConfigured(kept.servers[0].id), true);
    const now = new Date().toISOString();
    engine.restore([{ key: taskKey('old-http', 't1'), serverId: 'old-http', taskId: 't1', kind: 'task', toolName: 'long-job', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, origin: 'user' }]);
    await clock.tickAsync(4 * MINUTE);
    assert.equal(engine.list()[0].status, 'working', 'not before the grace period ends');
    await clock.tickAsync(2 * MINUTE);
    const t = engine.list()[0];
    assert.equal(t.status, 'lost');
    assert.equal(t.lastServerStatus, 'working');
    assert.equal(t.note, 'Its server is no longer in the configuration.');
    await clock.tickAsync(24 * 60 * MINUTE);
    assert.deepEqual(
      log.lines.filter((l) => l.level === 'warn').map((l) => l.message),
      ['[old-http] The server is no longer configured: its live tasks are lost unless it is back within 5 minutes', '[old-http] Task t1 (long-job) is lost: its server is no longer in the configuration'],
    );
  });

  it('a live task restored before the configuration loads: not polled until it has loaded (no false warning that its server is not configured), then polled at once', async () => {
    const { log, servers, asked, engine, clock } = unreachedClient();
    const config = parseSettingServers({ remote: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    const id = config.servers[0].id;
    const now = new Date().toISOString();
    engine.restore([{ key: taskKey(id, 't1'), serverId: id, taskId: 't1', kind: 'task', toolName: 'long-job', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, origin: 'user' }]);
    await clock.tickAsync(MINUTE);
    assert.deepEqual([asked, log.lines.filter((l) => l.level === 'warn').map((l) => l.message)], [[], []], 'no poll, no warning, before the configuration is known');
    servers.setConfiguration(config.servers, config.errors);
    engine.serversChanged();
    await clock.tickAsync(0);
    assert.deepEqual(asked, [id], 'polled as soon as the configuration names its server');
    assert.equal(engine.list()[0].status, 'working');
  });

  it('a live task restored for a server whose .vscode/mcp.json does not parse as the window opens (a save mid-edit): not taken as removed, so not lost 5 minutes later; polled once the file reads again', async () => {
    const { log, servers, asked, engine, clock } = unreachedClient();
    const source = { kind: 'workspaceFolder', folderName: 'app', folderPath: '/ws/app', file: '/ws/app/.vscode/mcp.json' } as const;
    const text = '{ "servers": { "remote": { "type": "http", "url": "http://127.0.0.1:9/mcp" } } }';
    const fixed = parseMcpJson(text, source);
    const id = fixed.servers[0].id;
    const now = new Date().toISOString();
    engine.restore([{ key: taskKey(id, 't1'), serverId: id, taskId: 't1', kind: 'task', toolName: 'long-job', status: 'working', createdAt: now, lastUpdatedAt: now, ttl: null, origin: 'user' }]);
    const broken = parseMcpJson(text.slice(0, -3), source);
    servers.setConfiguration(broken.servers, broken.errors);
    engine.serversChanged();
    assert.equal(servers.isConfigured(id), undefined, 'unknown while its file cannot be read, not removed');
    await clock.tickAsync(10 * MINUTE);
    assert.deepEqual([engine.list()[0].status, asked, log.lines.filter((l) => l.level === 'warn').map((l) => l.message)], ['working', [], []]);
    servers.setConfiguration(fixed.servers, fixed.errors);
    engine.serversChanged();
    await clock.tickAsync(0);
    assert.deepEqual(asked, [id], 'polled as soon as the file reads again');

    // Removed, then the file breaks: the server is not said to be back.
    servers.setConfiguration([], []);
    engine.serversChanged();
    await clock.tickAsync(MINUTE);
    servers.setConfiguration(broken.servers, broken.errors);
    engine.serversChanged();
    await clock.tickAsync(0);
    assert.deepEqual(log.lines.filter((l) => /configured/.test(l.message)).map((l) => l.message), [`[remote] The server is no longer configured: its live tasks are lost unless it is back within 5 minutes`]);
  });

  describe('over the scripted server', () => {
    let configured = true;
    let h: Harness;
    beforeEach(async () => {
      configured = true;
      clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      h = await createHarness({ server: { pollInterval: 1_000 }, engine: { random: () => 0 }, configured: () => configured, reachable: () => configured });
      cleanups.push(() => h.close());
    });

    it('a server removed for 5 minutes: its live tasks are not polled meanwhile, then lost', async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      await clock!.tickAsync(3_000);
      configured = false;
      const gets = h.server.requestsOf('tasks/get').length;
      await clock!.tickAsync(4 * MINUTE);
      assert.equal(h.snap(snap.taskId).status, 'working');
      await clock!.tickAsync(2 * MINUTE);
      assert.equal(h.snap(snap.taskId).status, 'lost');
      assert.equal(h.server.requestsOf('tasks/get').length, gets, 'no tasks/get to a server no longer configured');
    });

    it("a task that outlived its closed connection (a Disconnect's) and is lost with its removed server, with no word from the server since, is first told unchanged: that close did not end it (whoever marked it for the Disconnect learns so)", async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      await clock!.tickAsync(3_000);
      const changes: string[] = [];
      h.engine.onDidChange((t) => t.key === snap.key && changes.push(t.status));
      await h.session.close();
      configured = false;
      await clock!.tickAsync(6 * MINUTE);
      assert.deepEqual([changes, h.snap(snap.taskId).note], [['working', 'lost'], 'Its server is no longer in the configuration.']);
    });

    it('a server back in the configuration (same id) before 5 minutes: its tasks are followed as before, and end as the server says', async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      await clock!.tickAsync(3_000);
      configured = false;
      await clock!.tickAsync(2 * MINUTE);
      configured = true;
      await clock!.tickAsync(4 * MINUTE);
      assert.equal(h.snap(snap.taskId).status, 'working', 'not lost');
      h.server.complete(snap.taskId);
      await clock!.tickAsync(2_000);
      assert.equal(h.snap(snap.taskId).status, 'completed');
      // Removed again later: a new grace period, not the old one.
      const other = await h.engine.callTool('fake', 'required-tool');
      configured = false;
      await clock!.tickAsync(4 * MINUTE);
      assert.equal(h.snap(other.taskId).status, 'working');
      await clock!.tickAsync(2 * MINUTE);
      assert.equal(h.snap(other.taskId).status, 'lost');
    });

    it('a server back in the configuration: its live tasks are polled at once, not when the grace period ends', async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      await clock!.tickAsync(3_000);
      configured = false;
      await clock!.tickAsync(MINUTE);
      const gets = h.server.requestsOf('tasks/get').length;
      h.server.complete(snap.taskId);
      configured = true;
      h.engine.serversChanged(); // as the extension calls it after each configuration load
      await clock!.tickAsync(2_000);
      assert.equal(h.snap(snap.taskId).status, 'completed', 'followed again within seconds, 4 minutes before the grace period ends');
      assert.ok(h.server.requestsOf('tasks/get').length > gets);
      assert.ok(h.log.lines.some((l) => l.message === '[fake] The server is configured again: its live tasks are followed again'));
    });

    it('an ended task of a removed server: its result is not tried every few minutes for ever, and is fetched once the server is back', async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      configured = false;
      h.server.options.notify = 'once';
      h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'kept by the server' }] });
      await clock!.tickAsync(0);
      assert.equal(h.snap(snap.taskId).status, 'completed');
      await clock!.tickAsync(60 * MINUTE);
      assert.equal(h.server.requestsOf('tasks/result').length, 0);
      const warns = h.log.lines.filter((l) => l.level === 'warn').map((l) => l.message);
      assert.deepEqual(warns.filter((m) => /Cannot reach the server/.test(m)).length, 1, warns.join('\n'));
      assert.deepEqual(warns.filter((m) => /cannot be fetched/.test(m)), [`[fake] The result of task ${snap.taskId} cannot be fetched: its server is no longer in the configuration (tried again if it comes back)`]);
      configured = true;
      h.engine.attachSession('fake', h.session); // its session, as the server manager opens one
      await clock!.tickAsync(0);
      await clock!.tickAsync(0);
      const outcome = h.snap(snap.taskId).outcome;
      assert.deepEqual(outcome?.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'kept by the server' }]);
    });

    it('an ended task of a removed server: its result is fetched as soon as the configuration names the server again', async () => {
      const snap = await h.engine.callTool('fake', 'required-tool');
      configured = false;
      h.server.options.notify = 'once';
      h.server.complete(snap.taskId, { content: [{ type: 'text', text: 'kept by the server' }] });
      await clock!.tickAsync(10 * MINUTE);
      assert.equal(h.server.requestsOf('tasks/result').length, 0);
      configured = true;
      h.engine.serversChanged();
      await clock!.tickAsync(0);
      await clock!.tickAsync(0);
      const outcome = h.snap(snap.taskId).outcome;
      assert.deepEqual(outcome?.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'kept by the server' }]);
    });
  });
});
