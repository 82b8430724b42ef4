import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseSettingServers } from '../../../src/core/config/parse';
import { ServerManager } from '../../../src/core/servers/serverManager';
import { TaskStore } from '../../../src/core/state/taskStore';
import { TaskEngine } from '../../../src/core/tasks/engine';
import type { ServerRequestContext } from '../../../src/core/tasks/engine';
import type { LiveWork, RemovedTask, TaskSnapshot } from '../../../src/core/tasks/types';
import { taskKey } from '../../../src/core/tasks/types';
import type { ResolvedServer, ServerConfig } from '../../../src/core/config/types';
import { createTransport } from '../../../src/core/transports/factory';
import { isTerminal } from '../../../src/core/tasks/status';
import { Emitter } from '../../../src/core/util/event';
import { noop } from '../../../src/core/util/promise';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { peerForSuite, startEverything, waitForTask } from '../helpers/peers';

/** How a test window differs from the plain one: a shared store (no folder), and the questions it is asked. */
interface WindowOptions {
  shared?: boolean;
  /** The process whose life the window's claims on a shared store last (see TaskStoreOptions.pid). */
  pid?: number;
  asked?: ServerRequestContext[];
  /** The window leaves the server's questions open (until the window closes). */
  hold?: boolean;
  /** The server's headers in this window's configuration (none by default). */
  headers?: Record<string, string>;
  /**
   * The editor's secret storage, which outlives windows (a map the test keeps); with it, the
   * window is wired as src/extension.ts wires it for configuration changes too: a new
   * configuration waits for the live tasks of the running one.
   */
  secrets?: Map<string, string>;
  /** The secret storage fails every write and delete (a locked keychain). */
  secretsFail?: boolean;
  /** The server manager's clock (real time by default). */
  now?: () => number;
  /** The mcpTasks.autoFetchResults setting (on by default). */
  autoFetch?: boolean;
}

/** A configuration's url (none for a stdio server). */
const urlOf = (config: ServerConfig | undefined) => (config as { url?: string } | undefined)?.url;

/** One "window": a server manager, a task engine and a store, wired as the extension wires them. */
function openWindow(dir: string, url: string, onTransport?: (resuming: boolean, server: ResolvedServer) => void, options: WindowOptions = {}) {
  const log = new MemoryLogger();
  const { secrets } = options;
  const store = new TaskStore(dir, log, { retentionDays: () => 30, debounceMs: 10, shared: options.shared, pid: options.pid });
  let crashed = false;
  const engine: TaskEngine = new TaskEngine({
    logger: log,
    handlers: {
      elicitation: {
        handle: async (params, ctx) => {
          options.asked?.push(ctx);
          if (options.hold) await new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error)));
          const schema = params?.requestedSchema as { properties: { interpretation: { oneOf: Array<{ const: string }> } } };
          return { action: 'accept', content: { interpretation: schema.properties.interpretation.oneOf[0].const } };
        },
      },
    },
    sessions: {
      getSession: (id, o) => servers.getSession(id, o),
      label: (id) => servers.label(id),
      tasksOutliveConnection: (id) => servers.tasksOutliveConnection(id),
      isConfigured: (id) => servers.isConfigured(id),
    },
    loadOutcome: (key) => store.loadOutcome(key),
    autoFetchResults: () => options.autoFetch ?? true,
    minPollMs: 100,
  });
  const servers: ServerManager = new ServerManager({
    logger: log,
    now: options.now,
    clientInfo: { name: 'mcp-tasks-test', version: '0' },
    roots: () => [],
    resolveContext: () => ({ folders: {}, folderPaths: [], userHome: os.homedir(), env: {}, readFile: async () => '' }),
    promptInput: async () => undefined,
    createTransport: (server, logger, resume) => {
      const transport = createTransport(server, logger, resume);
      onTransport?.(resume !== undefined, server);
      return transport;
    },
    capabilities: () => engine.clientCapabilities(),
    onSession: (session, config) => engine.attachSession(config.id, session),
    keepSessionAtShutdown: (id) => engine.holdsSession(id),
    saveSessions: (s) => crashed || store.saveSessions(s),
    ...(secrets && {
      secrets: options.secretsFail
        ? { get: async () => undefined, store: () => Promise.reject(new Error('the keychain is locked')), delete: () => Promise.reject(new Error('the keychain is locked')) }
        : { get: async (k) => secrets.get(k), store: async (k, v) => void secrets.set(k, v), delete: async (k) => void secrets.delete(k) },
      liveTasks: (id) => engine.liveCount(id),
    }),
  });
  if (secrets) {
    engine.onDidChange((t) => servers.liveTasksChanged(t.serverId));
    engine.onDidRemove(() => servers.liveTasksChanged());
  }
  const config = parseSettingServers({ everything: { type: 'http', url, headers: options.headers } });
  return {
    log,
    store,
    engine,
    servers,
    /** The configuration read again, with the server (as at start, or with other headers) or without it. */
    configure(withServer: boolean, headers?: Record<string, string>, at = url) {
      servers.setConfiguration(withServer ? (headers || at !== url ? parseSettingServers({ everything: { type: 'http', url: at, headers } }) : config).servers : [], []);
      engine.serversChanged();
    },
    async start() {
      const state = await store.load();
      engine.restore(state.tasks, state.progressTokens, state.removed);
      await servers.addSavedSessions(state.sessions, state.dropped);
      store.attach(engine);
      servers.setConfiguration(config.servers, config.errors);
      return state;
    },
    close() {
      store.dispose();
      engine.dispose();
      servers.dispose();
    },
    /** The window's process ends without a word: nothing more is written, no session is closed on the server. */
    crash() {
      crashed = true;
      engine.dispose();
      servers.dispose();
    },
    until: (key: string, pred: (t: TaskSnapshot) => boolean, what: string) => waitForTask(engine, key, pred, what, 20_000, () => log.text().slice(-2000)),
  };
}

/**
 * Closes the window the moment it sees the task completed, before its tasks/result (about to be
 * sent) answers: the task ends just before the window closes, its result not in hand. Resolves
 * with what a new configuration of its server waited for then.
 */
function closeAtEnd(w: ReturnType<typeof openWindow>, key: string): Promise<LiveWork | undefined> {
  return new Promise((resolve) => {
    const sub = w.engine.onDidChange((t) => {
      if (t.key !== key || t.status !== 'completed') return;
      sub.dispose();
      const waits = w.servers.get(t.serverId)?.newConfigWaitsFor;
      w.close();
      resolve(waits);
    });
  });
}

describe('reload: tasks and results survive the window (server-everything over Streamable HTTP)', function () {
  this.timeout(60000);
  const peer = peerForSuite(() => startEverything('streamableHttp'));
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-store-'))));
  // A store write still in flight after dispose may add a temporary file while the folder goes:
  // removed asynchronously, so that write ends meanwhile and each retry lists the folder again
  // (rmSync's retries block it and try the emptied folder only: ENOTEMPTY for good).
  afterEach(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  it('a live task is re-attached through the resumed session and its result fetched; a finished result is read back from disk', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    await w1.start();
    const id = w1.servers.list()[0].id;
    const quick = await w1.engine.callTool(id, 'echo', { arguments: { message: 'kept' } });
    await w1.until(quick.key, (t) => t.outcome !== undefined, 'the echo result');
    const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'reloads' } });
    assert.equal(live.status, 'working');
    await waitFor(async () => (await w1.store.loadOutcome(quick.key)) !== undefined, 'the outcome file to be written');
    w1.close(); // the "reload": the session is kept, not deleted, because a task is live

    const w2 = openWindow(dir, url);
    const state = await w2.start();
    assert.equal(state.sessions.length, 1, 'the HTTP session was saved for the next window');
    assert.deepEqual(state.tasks.map((t) => t.key).sort(), [quick.key, live.key].sort());
    const done = await w2.until(live.key, (t) => t.status === 'completed' && t.outcome !== undefined, 'the re-attached task to complete');
    assert.match(JSON.stringify(done.outcome), /Research Report: reloads/);
    assert.ok(w2.log.has('info', /Resumed session/), 'the saved session was resumed, not a new one');
    const kept = await w2.engine.fetchResult(quick.key);
    assert.deepEqual(kept, { kind: 'result', result: { content: [{ type: 'text', text: 'Echo: kept' }] } });
    w2.close();
  });

  it('a window that dies (a crashed extension host, nothing saved at shutdown) while its task lives: its session was saved when the task started, and the next window resumes it and follows the task to its end (server-everything keeps tasks per session: it was lost)', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    // As the extension wires it (see src/extension.ts).
    w1.engine.onDidChange((t) => w1.servers.liveTasksChanged(t.serverId));
    await w1.start();
    const id = w1.servers.list()[0].id;
    const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'crashes' } });
    await waitFor(() => fs.existsSync(path.join(dir, 'tasks.json')) && fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8').includes(live.taskId), 'the task saved');
    w1.crash();
    const w2 = openWindow(dir, url);
    assert.equal((await w2.start()).sessions.length, 1, 'the session saved for the next window');
    const done = await w2.until(live.key, (t) => isTerminal(t.status), 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.ok(w2.log.has('info', /Resumed session/), 'the saved session was resumed, not a new one');
    w2.close();
  });

  it('a task that ends just before the window closes, its result not fetched yet: its session is kept, and the next window resumes it and fetches the result there (server-everything keeps tasks per session)', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    await w1.start();
    const id = w1.servers.list()[0].id;
    const task = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'late results' } });
    const sessionId = w1.servers.peekSession(id)!.transport.sessionId;
    await closeAtEnd(w1, task.key);

    const w2 = openWindow(dir, url);
    const state = await w2.start();
    try {
      const done = await w2.until(task.key, (t) => isTerminal(t.status) && (t.status !== 'completed' || t.outcome !== undefined), 'the result');
      assert.equal(done.status, 'completed', done.note);
      assert.match(JSON.stringify(done.outcome), /Research Report: late results/);
      assert.deepEqual([state.sessions.map((s) => s.sessionId), state.dropped], [[sessionId], []], 'the session is resumed, not dropped');
      assert.ok(w2.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w2.log.text().slice(-2000));
    } finally {
      w2.close();
    }
  });

  it('with autoFetchResults off, the session of an ended task whose result the user has not fetched is kept at shutdown (not ended), and Fetch Task Result in the next window gets the result there', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url, undefined, { autoFetch: false });
    await w1.start();
    const id = w1.servers.list()[0].id;
    const task = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'fetched by hand' } });
    const sessionId = w1.servers.peekSession(id)!.transport.sessionId;
    await w1.until(task.key, (t) => isTerminal(t.status), 'the task to end');
    assert.deepEqual(w1.engine.liveCount(id), { tasks: 0, calls: 0, results: 0, asking: 0 }, 'a new configuration would not wait for the result (autoFetchResults off)');
    w1.close();

    const w2 = openWindow(dir, url, undefined, { autoFetch: false });
    const state = await w2.start();
    try {
      const outcome = await w2.engine.fetchResult(task.key);
      assert.match(JSON.stringify(outcome), /Research Report: fetched by hand/);
      assert.deepEqual(state.sessions.map((s) => s.sessionId), [sessionId], 'the session was kept for the result');
      assert.ok(w2.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w2.log.text().slice(-2000));
    } finally {
      w2.close();
    }
  });

  it('a server removed from the configuration and back within the grace period: its live task goes on in the same session, which was kept, not deleted', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w = openWindow(dir, url);
    await w.start();
    const id = w.servers.list()[0].id;
    const live = await w.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'comebacks' } });
    w.configure(false);
    w.configure(true);
    const done = await w.until(live.key, (t) => isTerminal(t.status), 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.ok(w.log.has('info', /Resumed session/), 'the session of the removed server was resumed');
    assert.ok(!w.log.has('info', /previous window/), 'the log does not say it came from a previous window: it is this one\'s');
    w.close();
  });

  it('a server whose headers change while its task lives (a new token, same URL): the session is kept and resumed with the new headers, not deleted, and the task goes on', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w = openWindow(dir, url);
    await w.start();
    const id = w.servers.list()[0].id;
    const live = await w.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'rotations' } });
    const sessionId = w.servers.peekSession(id)!.transport.sessionId;
    w.configure(true, { 'X-Api-Key': 'rotated' });
    const done = await w.until(live.key, (t) => isTerminal(t.status), 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.ok(w.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w.log.text().slice(-2000));
    w.close();
  });

  it('a server whose headers changed while the window was closed (a new token, same URL): the next window resumes the kept session with them, and the live task goes on', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    await w1.start();
    const id = w1.servers.list()[0].id;
    const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'rotated while closed' } });
    const sessionId = w1.servers.peekSession(id)!.transport.sessionId;
    w1.close();

    const w2 = openWindow(dir, url, undefined, { headers: { 'X-Api-Key': 'rotated' } });
    await w2.start();
    const done = await w2.until(live.key, (t) => isTerminal(t.status), 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.ok(w2.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w2.log.text().slice(-2000));
    w2.close();
  });

  it('a window closed while its server resumes the kept session keeps that session (not deleted on the server) for the next window, whose live task goes on in it', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    await w1.start();
    const id = w1.servers.list()[0].id;
    const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'shutdowns' } });
    w1.close();
    const kept = (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: Array<{ sessionId: string }> }).sessions;
    assert.equal(kept.length, 1);

    // The second window closes just as the server comes back: its resume is under way.
    const w2: ReturnType<typeof openWindow> = openWindow(dir, url, (resuming) => resuming && w2.close());
    await w2.start();
    await assert.rejects(w2.servers.getSession(id), /cancelled/);
    const after = (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: Array<{ sessionId: string }> }).sessions;
    assert.deepEqual(after.map((s) => s.sessionId), [kept[0].sessionId], 'the session is still kept on disk');

    const w3 = openWindow(dir, url);
    await w3.start();
    const done = await w3.until(live.key, (t) => isTerminal(t.status), 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.ok(w3.log.has('info', new RegExp(`Resumed session ${kept[0].sessionId}`)), `the kept session was resumed, so the server still knew it: ${w3.log.text().slice(-1500)}`);
    w3.close();
  });

  it('a window whose server is down keeps the session for the next window: a connection that fails does not drop it', async () => {
    const down = await startEverything('streamableHttp');
    const url = `http://127.0.0.1:${down.port}/mcp`;
    let sessions: Array<{ sessionId: string }> = [];
    try {
      const w1 = openWindow(dir, url);
      await w1.start();
      await w1.engine.callTool(w1.servers.list()[0].id, 'simulate-research-query', { arguments: { topic: 'outages' } });
      w1.close();
      sessions = (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: typeof sessions }).sessions;
      assert.equal(sessions.length, 1);
    } finally {
      await down.stop();
    }
    const w2 = openWindow(dir, url);
    await w2.start();
    await assert.rejects(w2.servers.getSession(w2.servers.list()[0].id));
    w2.close();
    const after = (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: typeof sessions }).sessions;
    assert.deepEqual(after.map((s) => s.sessionId), [sessions[0].sessionId], `the session is still kept: ${w2.log.text().slice(-1500)}`);
  });

  it('two windows without a folder that start at once: one resumes the kept session and follows the live task, and only it is asked the server\'s question (T-REQ-3); the other takes neither', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w0 = openWindow(dir, url, undefined, { shared: true });
    await w0.start();
    const live = await w0.engine.callTool(w0.servers.list()[0].id, 'simulate-research-query', { arguments: { topic: 'python', ambiguous: true } });
    w0.close(); // its task and session handed to the next window

    const asked: ServerRequestContext[][] = [[], []];
    const windows = [openWindow(dir, url, undefined, { shared: true, asked: asked[0] }), openWindow(dir, url, undefined, { shared: true, asked: asked[1] })];
    try {
      const states = await Promise.all(windows.map((w) => w.start()));
      const taking = states.map((s) => s.tasks.some((t) => t.key === live.key));
      assert.deepEqual(taking.slice().sort(), [false, true], 'exactly one window takes the live task');
      const [mine, other] = taking[0] ? [0, 1] : [1, 0];
      assert.deepEqual(states.map((s) => s.sessions.length), mine === 0 ? [1, 0] : [0, 1], 'and the kept session');
      const done = await windows[mine].until(live.key, (t) => t.status === 'completed' && t.outcome !== undefined, 'the task to complete');
      assert.match(JSON.stringify(done.outcome), /Research Report: python \(programming\)/);
      assert.deepEqual(asked.map((a) => a.length), mine === 0 ? [1, 0] : [0, 1], 'the question was asked once, by the window that follows the task');
      assert.equal(windows[other].engine.get(live.key), undefined);
      assert.ok(!windows[other].log.has('info', /Resumed session/), windows[other].log.text().slice(-1500));
    } finally {
      for (const w of windows) w.close();
    }
  });

  it('a window without a folder that closes hands its live task back, and so does one that dies without a word: the next window follows it in the kept session, while one open meanwhile leaves it alone', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const index = () => JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { tasks: Array<{ snap: TaskSnapshot; owner?: unknown }>; sessions: Array<{ sessionId: string }> };
    // A window's extension host, which the test ends at once (SIGKILL) to play a crash.
    const host = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], { stdio: 'ignore' });
    const opened: Array<ReturnType<typeof openWindow>> = [];
    const open = (options: WindowOptions) => {
      const w = openWindow(dir, url, undefined, { shared: true, ...options });
      opened.push(w);
      return w;
    };
    try {
      // The server's question stays open: the task stays input_required while windows come and go.
      const a = open({ asked: [], hold: true });
      await a.start();
      const live = await a.engine.callTool(a.servers.list()[0].id, 'simulate-research-query', { arguments: { topic: 'python', ambiguous: true } });
      await a.until(live.key, (t) => t.status === 'input_required', 'the question');
      await waitFor(() => index().tasks.some((t) => t.snap.key === live.key && t.owner !== undefined), 'the task saved as the first window\'s');

      const b = open({});
      assert.deepEqual((await b.start()).tasks.map((t) => t.key), [], 'a window opened meanwhile leaves it to the first');
      a.close();
      const session = index().sessions[0]?.sessionId;
      assert.ok(session, 'the session was kept for the next window');

      const c = open({ pid: host.pid, hold: true });
      assert.deepEqual((await c.start()).tasks.map((t) => t.key), [live.key], 'the next window takes the task handed back');
      await waitFor(() => c.log.has('info', new RegExp(`Resumed session ${session}`)), 'the kept session resumed', 20_000);
      await waitFor(() => index().tasks.some((t) => t.snap.key === live.key && t.owner !== undefined), 'the task claimed');
      await new Promise<void>((resolve) => {
        host.once('exit', () => resolve());
        host.kill('SIGKILL');
      });
      c.crash();

      // Held too: the question reaches whichever window's tasks/result call the server first sends it to, perhaps this one.
      const d = open({ hold: true });
      assert.deepEqual((await d.start()).tasks.map((t) => t.key), [live.key], 'the claim of a window that died does not keep the task');
      await waitFor(() => d.log.has('info', new RegExp(`Resumed session ${session}`)), 'the kept session resumed again', 20_000);
      await waitFor(() => d.log.has('trace', new RegExp(`← \\{"result":\\{"taskId":"${live.taskId}","status":"input_required"`)), 'the task polled by the new window', 20_000);
      assert.equal(d.engine.get(live.key)?.status, 'input_required');
      assert.equal(b.engine.get(live.key), undefined, 'the window open all along still leaves it alone');
    } finally {
      for (const w of opened) w.close();
      host.kill('SIGKILL');
    }
  });

  describe('a new url that waits for the live task at the old one when the window closes', () => {
    const token = 'Bearer old-token-3f9a';
    const index = () => fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8');
    /** Window 1 at `from` (its headers carry a token) starts a task held at its question, is moved to `to`, and closes. */
    async function moveAndClose(from: string, to: string, secrets: Map<string, string>) {
      const w1 = openWindow(dir, from, undefined, { secrets, headers: { Authorization: token }, asked: [], hold: true });
      await w1.start();
      const id = w1.servers.list()[0].id;
      const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'moves', ambiguous: true } });
      await w1.until(live.key, (t) => t.status === 'input_required', 'the question');
      const sessionId = w1.servers.peekSession(id)!.transport.sessionId;
      w1.configure(true, undefined, to);
      assert.deepEqual(w1.servers.get(id)?.newConfigWaitsFor, { tasks: 1, calls: 0, results: 0 }, 'the new configuration waits');
      await waitFor(() => [...secrets.values()].some((v) => v.includes(token) && v.includes(from)), 'the old url and headers kept in secret storage');
      w1.close();
      assert.ok(!index().includes(token) && !index().includes(from), `neither the token nor the old url is in the store: ${index()}`);
      assert.ok(!w1.log.text().includes(token), 'nor in the log');
      return { id, live, sessionId };
    }

    /** `a`: the suite's server-everything; `b`: a second one, stopped after `body`; `secrets`: the editor's secret storage, which outlives windows. */
    async function withTwoUrls(body: (a: string, b: string, secrets: Map<string, string>) => Promise<void>): Promise<void> {
      const other = await startEverything('streamableHttp');
      try {
        await body(`http://127.0.0.1:${peer.port}/mcp`, other.url('/mcp'), new Map());
      } finally {
        await other.stop();
      }
    }
    /** The next window, configured with `url`, open while `body` runs. */
    async function nextWindow(url: string, secrets: Map<string, string>, body: (w2: ReturnType<typeof openWindow>) => Promise<void>, onTransport?: (resuming: boolean, server: ResolvedServer) => void): Promise<void> {
      const w2 = openWindow(dir, url, onTransport, { secrets });
      await w2.start();
      try {
        await body(w2);
      } finally {
        w2.close();
      }
    }
    /** Ended, with its result in hand if it completed. */
    const settled = (t: TaskSnapshot) => isTerminal(t.status) && (t.status !== 'completed' || t.outcome !== undefined);

    it('the next window follows it there, in its kept session, with the old headers, until its result is fetched; then it connects the new url and forgets the old endpoint', () =>
      withTwoUrls(async (a, b, secrets) => {
        const { id, live, sessionId } = await moveAndClose(a, b, secrets);
        const transports: ResolvedServer[] = [];
        await nextWindow(b, secrets, async (w2) => {
          const done = await w2.until(live.key, settled, 'the task to end');
          assert.equal(done.status, 'completed', done.note);
          assert.match(JSON.stringify(done.outcome), /Research Report: moves \(/);
          assert.ok(w2.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w2.log.text().slice(-2000));
          const first = transports[0] as { url?: string; headers?: Record<string, string> };
          assert.deepEqual([first.url, first.headers], [a, { Authorization: token }], 'the old url, with the headers it had');
          await waitFor(() => w2.servers.get(id)?.state.kind === 'connected' && urlOf(w2.servers.config(id)) === b, 'the new configuration connected');
          assert.equal(w2.servers.get(id)?.newConfigWaitsFor, undefined);
          await waitFor(() => secrets.size === 0, 'the old endpoint forgotten');
          assert.ok(!w2.log.text().includes(token), 'the token is not in the log');
        }, (_, server) => transports.push(server));
      }));

    it('a secret storage that fails is logged with what it means: the server named, and where the next window would look for its tasks', () =>
      withTwoUrls(async (a, b) => {
        const w1 = openWindow(dir, a, undefined, { secrets: new Map(), secretsFail: true, asked: [], hold: true });
        await w1.start();
        try {
          const id = w1.servers.list()[0].id;
          const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'locked', ambiguous: true } });
          await w1.until(live.key, (t) => t.status === 'input_required', 'the question');
          w1.configure(true, undefined, b);
          assert.deepEqual(w1.servers.get(id)?.newConfigWaitsFor, { tasks: 1, calls: 0, results: 0 }, 'the new configuration waits');
          await waitFor(() => w1.log.has('warn', /Could not keep the endpoint of everything in the editor's secret storage \(the keychain is locked\): if the window closes before its tasks end, the next window looks for them at its new url/), 'the failed write logged');
          w1.configure(true);
          await waitFor(() => w1.log.has('warn', /Could not delete a kept endpoint from the editor's secret storage \(the keychain is locked\)/), 'the failed delete logged');
        } finally {
          w1.close();
        }
      }));

    it('an edit back to the configuration its tasks run on, in the next window, ends the wait: the old endpoint is forgotten, and the task is followed there to its end', () =>
      withTwoUrls(async (a, b, secrets) => {
        const { id, live } = await moveAndClose(a, b, secrets);
        await nextWindow(b, secrets, async (w2) => {
          assert.deepEqual(w2.servers.get(id)?.newConfigWaitsFor, { tasks: 1, calls: 0, results: 0 }, 'it waits in the next window');
          w2.configure(true, { Authorization: token }, a);
          assert.equal(w2.servers.get(id)?.newConfigWaitsFor, undefined, 'no longer waits');
          assert.ok(w2.log.has('info', /Its configuration is back to the one it runs/), w2.log.text().slice(-2000));
          await waitFor(() => secrets.size === 0, 'the old endpoint forgotten');
          const done = await w2.until(live.key, settled, 'the task to end');
          assert.equal(done.status, 'completed', done.note);
          assert.equal(urlOf(w2.servers.config(id)), a);
        });
      }));

    it('when it waits for a task\'s result alone (the task ended just before the window closed), the next window fetches the result at the old url, in the kept session, then connects the new url', () =>
      withTwoUrls(async (a, b, secrets) => {
        const w1 = openWindow(dir, a, undefined, { secrets, headers: { Authorization: token } });
        await w1.start();
        const id = w1.servers.list()[0].id;
        const task = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'moved results' } });
        const sessionId = w1.servers.peekSession(id)!.transport.sessionId;
        const closed = closeAtEnd(w1, task.key);
        w1.configure(true, undefined, b);
        await waitFor(() => secrets.size === 1, 'the old endpoint kept');
        assert.deepEqual(await closed, { tasks: 0, calls: 0, results: 1 }, 'at close, the new configuration waits for the result alone');

        const transports: ResolvedServer[] = [];
        await nextWindow(b, secrets, async (w2) => {
          const done = await w2.until(task.key, settled, 'the result');
          assert.equal(done.status, 'completed', done.note);
          assert.match(JSON.stringify(done.outcome), /Research Report: moved results/);
          assert.ok(w2.log.has('info', new RegExp(`Resumed session ${sessionId}`)), w2.log.text().slice(-2000));
          assert.equal((transports[0] as { url?: string }).url, a, 'the old url');
          await waitFor(() => w2.servers.get(id)?.state.kind === 'connected' && urlOf(w2.servers.config(id)) === b, 'the new configuration connected');
          await waitFor(() => secrets.size === 0, 'the old endpoint forgotten');
        }, (_, server) => transports.push(server));
      }));

    it('when the old endpoint cannot be reached in the next window, it is tried for 5 minutes (a network that comes up late), then the new configuration applies: the task is lost there, as before, and the old endpoint forgotten', async () => {
      const old = await startEverything('streamableHttp');
      const a = old.url('/mcp');
      const b = `http://127.0.0.1:${peer.port}/mcp`;
      const secrets = new Map<string, string>();
      let moved: Awaited<ReturnType<typeof moveAndClose>>;
      try {
        moved = await moveAndClose(a, b, secrets);
      } finally {
        await old.stop();
      }
      let skipped = 0;
      const w2 = openWindow(dir, b, undefined, { secrets, now: () => Date.now() + skipped });
      await w2.start();
      try {
        const failed = /^\[everything\] Could not connect: /;
        await waitFor(() => w2.log.has('error', failed), 'a first connection to the old endpoint to fail');
        await waitFor(() => w2.log.lines.filter((l) => l.level === 'error' && failed.test(l.message)).length >= 2, 'a second try at the old endpoint', 20_000);
        assert.notEqual(w2.engine.get(moved.live.key)?.status, 'lost');
        assert.equal(urlOf(w2.servers.config(moved.id)), a, 'the old endpoint is tried again, not given up');
        assert.equal(secrets.size, 1);
        skipped = 5 * 60_000;
        const t = await w2.until(moved.live.key, (x) => isTerminal(x.status), 'the task to end');
        assert.equal(t.status, 'lost', t.note);
        assert.ok(w2.log.has('warn', /^\[everything\] Could not reach the endpoint its live tasks are at for 5 minutes: .* It connects with its new configuration\.$/), w2.log.text().slice(-2000));
        assert.equal(urlOf(w2.servers.config(moved.id)), b);
        await waitFor(() => secrets.size === 0, 'the old endpoint forgotten');
      } finally {
        w2.close();
      }
    });

    it('when its session is no longer kept for the next window (kept longer than the retention period), the old endpoint is forgotten', async () => {
      const other = await startEverything('streamableHttp');
      const secrets = new Map<string, string>();
      try {
        await moveAndClose(`http://127.0.0.1:${peer.port}/mcp`, other.url('/mcp'), secrets);
      } finally {
        await other.stop();
      }
      const data = JSON.parse(index()) as { sessions: Array<{ keptAt: number }> };
      data.sessions[0].keptAt -= 31 * 86400_000;
      fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(data));
      assert.equal(secrets.size, 1);
      const w2 = openWindow(dir, `http://127.0.0.1:${peer.port}/other`, undefined, { secrets });
      assert.equal((await w2.start()).sessions.length, 0);
      await waitFor(() => secrets.size === 0, 'the old endpoint forgotten');
      w2.close();
    });
  });

  it('when the server no longer knows the session, the client initializes anew and the task shows as lost (its ttl has not ended)', async () => {
    const url = `http://127.0.0.1:${peer.port}/mcp`;
    const w1 = openWindow(dir, url);
    await w1.start();
    const id = w1.servers.list()[0].id;
    const live = await w1.engine.callTool(id, 'simulate-research-query', { arguments: { topic: 'gone' } });
    w1.close();
    // The saved session id is made unknown to the server, as after a server restart.
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: Array<{ sessionId: string }> };
    index.sessions[0].sessionId = 'no-such-session';
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(index));

    const w2 = openWindow(dir, url);
    await w2.start();
    const t = await w2.until(live.key, (x) => x.status === 'lost' || x.status === 'expired', 'the task to be lost');
    assert.equal(t.status, 'lost');
    assert.equal(t.lastServerStatus, 'working');
    assert.ok(w2.log.has('info', /Could not resume the kept session: .* Starting a new one\.$/));
    w2.close();
  });
});

describe('TaskStore', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-store-'))));
  // A store write still in flight after dispose may add a temporary file while the folder goes:
  // removed asynchronously, so that write ends meanwhile and each retry lists the folder again
  // (rmSync's retries block it and try the emptied folder only: ENOTEMPTY for good).
  afterEach(() => fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 5 }));

  const snap = (key: string, status: TaskSnapshot['status'], updated: string, serverId = 's'): TaskSnapshot => ({
    key,
    serverId,
    taskId: key,
    kind: 'task',
    toolName: 't',
    status,
    createdAt: updated,
    lastUpdatedAt: updated,
    ttl: null,
    origin: 'user',
  });

  const initialized = { protocolVersion: '2025-11-25', capabilities: { tasks: {} }, serverInfo: { name: 'lab', version: '1.0.0' } };

  it('drops finished tasks older than the retention period, keeps live and recent ones', async () => {
    const old = new Date(Date.now() - 40 * 86400_000).toISOString();
    const recent = new Date().toISOString();
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify({ version: 1, sessions: [], tasks: [{ snap: snap('a', 'completed', old) }, { snap: snap('b', 'working', old) }, { snap: snap('c', 'failed', recent) }] }));
    const state = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load();
    assert.deepEqual(state.tasks.map((t) => t.key), ['b', 'c']);
  });

  it('remembers the tasks the user removed for the retention period, so the next window\'s Refresh does not bring them back; damaged entries are skipped', async () => {
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    engine.remove('recent', Date.now() - 29 * 86400_000);
    engine.remove('old', Date.now() - 31 * 86400_000);
    store.flushSync();
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { removed: unknown[] };
    assert.deepEqual(index.removed.map((r) => (r as RemovedTask).key), ['recent'], 'one removed longer ago than the retention period is forgotten');
    index.removed.push(null, 7, { key: 'no-date', createdAt: 'then' }, { key: 'text-date', createdAt: 'then', removedAt: String(Date.now()) }, { key: 'ok', createdAt: 'then', removedAt: Date.now() });
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(index));
    const state = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load();
    assert.deepEqual(state.removed.map((r) => r.key), ['recent', 'ok']);
    // An index of an older version, without the list, loads with none.
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify({ version: 1, tasks: [], sessions: [] }));
    assert.deepEqual((await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load()).removed, []);
  });

  it("forgets a task the user removed once its ttl has ended (with the server's clock's grace): its server no longer has it to list; 7,000 tasks cleared in a session wrote 1 MB of removed keys at every change", async () => {
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    engine.remove('ttl-ended', Date.now(), Date.now() - 1);
    engine.remove('ttl-running', Date.now(), Date.now() + 60_000);
    engine.remove('no-ttl');
    store.flushSync();
    const index = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { removed: RemovedTask[] };
    assert.deepEqual(index.removed.map((r) => r.key), ['ttl-running', 'no-ttl']);
    index.removed.push({ key: 'ended-on-disk', createdAt: 'then', removedAt: Date.now(), until: Date.now() - 1 });
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(index));
    assert.deepEqual((await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load()).removed.map((r) => r.key), ['ttl-running', 'no-ttl'], 'read back');
    store.dispose();
  });

  it('entries that are not tasks (null, a number, an unknown status) are skipped with a log line; the others load', async () => {
    const ok = new Date().toISOString();
    const tasks = [null, 42, { snap: null }, { snap: { ...snap('bogus', 'working', ok), status: 'paused' } }, { snap: snap('a', 'working', ok), progressToken: 'tok-a' }, 'text'];
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify({ version: 1, sessions: [], tasks }));
    const log = new MemoryLogger();
    const state = await new TaskStore(dir, log, { retentionDays: () => 30 }).load();
    assert.deepEqual(state.tasks.map((t) => t.key), ['a']);
    assert.equal(state.progressTokens.get('a'), 'tok-a');
    assert.ok(log.has('warn', /^Skipped 5 stored tasks that could not be read \(not a task, or an unknown status\): kept as .*\.damaged$/), log.text());
  });

  it('saved sessions that are damaged are not resumed (the server starts a new session); the sound one is, and a shared save keeps only sound ones', async () => {
    const sound = { serverId: 'http-a', fingerprint: 'f', sessionId: 'sa', initializeResult: initialized, keptAt: Date.now() };
    const sessions = [null, 'text', { ...sound, serverId: 'http-b', initializeResult: undefined }, { ...sound, serverId: 'http-c', initializeResult: { ...initialized, capabilities: 'all' } }, { ...sound, serverId: 'http-d', sessionId: 7 }, sound];
    const tasks = ['http-a', 'http-b', 'http-c', 'http-d'].map((server) => ({ snap: snap(server, 'working', new Date().toISOString(), server) }));
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify({ version: 1, tasks, sessions }));
    const state = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load();
    assert.deepEqual(state.sessions, [sound]);

    const other = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, shared: true });
    other.attach(stubEngine() as unknown as TaskEngine);
    other.flushSync();
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: unknown[] };
    assert.deepEqual(onDisk.sessions, [sound]);
  });

  /** An engine as the store sees it: a list of snapshots and the two events. */
  function stubEngine() {
    const changed = new Emitter<TaskSnapshot>();
    const removed = new Emitter<string>();
    const e = {
      tasks: [] as TaskSnapshot[],
      gone: [] as RemovedTask[],
      list: () => e.tasks,
      progressToken: () => undefined,
      removedTasks: () => e.gone,
      onDidChange: changed.event,
      onDidRemove: removed.event,
      change: (t: TaskSnapshot) => changed.fire(t),
      /** The user removes a task (as TaskEngine.remove: it is remembered, with when). */
      remove: (key: string, removedAt = Date.now(), until?: number) => {
        e.gone.push({ key, createdAt: 'then', removedAt, ...(until !== undefined && { until }) });
        removed.fire(key);
      },
    };
    return e;
  }

  /** Holds fs.promises.writeFile for paths that match until released (restored after the test). */
  function holdWrites(match: RegExp) {
    const original = fs.promises.writeFile;
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held = 0;
    let written = 0;
    fs.promises.writeFile = (async (file: fs.PathLike, ...rest: unknown[]) => {
      if (!match.test(String(file))) return (original as (...a: unknown[]) => Promise<void>)(file, ...rest);
      held++;
      await released;
      try {
        return await (original as (...a: unknown[]) => Promise<void>)(file, ...rest);
      } finally {
        written++;
      }
    }) as typeof fs.promises.writeFile;
    /** Resolves once the held writes are done and what the store does after them (rename or remove) ran. */
    const settled = async () => {
      await waitFor(() => written === held, 'the held writes to end');
      await new Promise((r) => setImmediate(r));
    };
    return { held: () => held, release, settled, restore: () => void (fs.promises.writeFile = original) };
  }

  /** A store following an engine whose task `k` has just got its result `outcome` (its file being written). */
  const storeWithResult = (log = new MemoryLogger()) => {
    const store = new TaskStore(dir, log, { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const outcome = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'kept' }] } };
    const t = { ...snap('k', 'completed', new Date().toISOString()), outcome, outcomeFetchedAt: new Date().toISOString() };
    engine.tasks = [t];
    engine.change(t);
    const written = async () => {
      for (let i = 0; (await store.loadOutcome('k')) === undefined; i++) {
        assert.ok(i < 500, 'the result file was not written');
        await new Promise((r) => setTimeout(r, 10));
      }
    };
    return { store, outcome, written, engine };
  };

  it('readOutcome: a result still being written is read from memory (the engine may have let it go already), then from its file', async () => {
    const { store, outcome, written } = storeWithResult();
    try {
      // Asked at once, before the file can be there.
      assert.equal(await store.readOutcome('k'), outcome);
      await written();
      const read = await store.readOutcome('k');
      assert.deepEqual(read, outcome);
      assert.notEqual(read, outcome, 'from the file once written');
    } finally {
      store.dispose();
    }
  });

  it('a damaged result file reads as no result, with a warning, instead of an outcome of any shape', async () => {
    const log = new MemoryLogger();
    const { store, outcome, written } = storeWithResult(log);
    try {
      await written();
      assert.deepEqual(await store.loadOutcome('k'), outcome);
      const warned = log.lines.length;
      const [file] = fs.readdirSync(path.join(dir, 'results'));
      for (const damaged of ['{"kind":"result","result":5}', '{"kind":"error","error":{"code":"x"}}', '[]', '{"kind":"res']) {
        fs.writeFileSync(path.join(dir, 'results', file), damaged);
        assert.equal(await store.loadOutcome('k'), undefined, damaged);
      }
      const warnings = log.lines.slice(warned).filter((l) => l.level === 'warn').map((l) => l.message.replace(/ \(.*/, ''));
      assert.deepEqual(warnings, ['A stored result is damaged', 'A stored result is damaged', 'A stored result is damaged', 'Could not read a stored result'], log.text());
    } finally {
      store.dispose();
    }
  });

  it('a result whose file is missing or damaged, fetched again from its server, is written again (it was not: the store took the file for written, and the next window found it damaged again)', async () => {
    const { store, written, engine } = storeWithResult();
    try {
      await written();
      const [file] = fs.readdirSync(path.join(dir, 'results'));
      fs.writeFileSync(path.join(dir, 'results', file), '{"kind":"res');
      assert.equal(await store.loadOutcome('k'), undefined);
      // Its server gives it again, and the engine tells it (see TaskEngine.fetchResult).
      const at = new Date().toISOString();
      const outcome = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'fetched again' }] } };
      engine.change({ ...snap('k', 'completed', at), outcome, outcomeFetchedAt: at });
      const read = () => new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).loadOutcome('k');
      await waitFor(async () => (await read()) !== undefined, 'the result written again', 1_000).catch(noop);
      assert.deepEqual(await read(), outcome);
    } finally {
      store.dispose();
    }
  });

  it('a task removed while its result file is being written leaves no file behind', async () => {
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const hold = holdWrites(/results/);
    try {
      const t = { ...snap('k', 'completed', new Date().toISOString()), outcome: { kind: 'result' as const, result: { content: [] } }, outcomeFetchedAt: new Date().toISOString() };
      engine.tasks = [t];
      engine.change(t);
      await waitFor(() => hold.held() === 1, 'the result write under way');
      engine.tasks = [];
      engine.remove('k');
      hold.release();
      await hold.settled();
      assert.deepEqual(fs.existsSync(path.join(dir, 'results')) ? fs.readdirSync(path.join(dir, 'results')) : [], []);
    } finally {
      hold.restore();
      store.dispose();
    }
  });

  it('a result whose file is still being written when the window closes is written at shutdown, and the next window reads it', async () => {
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const hold = holdWrites(/results/);
    const outcome = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'the only copy' }] } };
    try {
      const t = { ...snap('k', 'completed', new Date().toISOString()), outcome, outcomeFetchedAt: new Date().toISOString() };
      engine.tasks = [t];
      engine.change(t);
      await waitFor(() => hold.held() === 1, 'the result write under way');
      store.dispose(); // the window closes; the extension host may end before the write finishes
      assert.deepEqual(await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).loadOutcome('k'), outcome);
      hold.release();
      await hold.settled();
      assert.deepEqual(await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).loadOutcome('k'), outcome, 'the late write changes nothing');
      assert.deepEqual(fs.readdirSync(path.join(dir, 'results')).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
    } finally {
      hold.restore();
    }
  });

  it('a save at shutdown is never overwritten by an older save still under way', async () => {
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const hold = holdWrites(/tasks\.json/);
    try {
      const at = new Date().toISOString();
      engine.tasks = [snap('old-1', 'completed', at), snap('old-2', 'completed', at)];
      engine.change(engine.tasks[0]);
      await waitFor(() => hold.held() === 1, 'the debounced save under way');
      engine.tasks = [snap('new', 'completed', at)];
      store.flushSync(); // what dispose() does at shutdown
      hold.release();
      await hold.settled();
      const index = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { tasks: Array<{ snap: TaskSnapshot }> };
      assert.deepEqual(index.tasks.map((t) => t.snap.key), ['new']);
      assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file left');
    } finally {
      hold.restore();
    }
  });

  it('windows without a folder share one store: each save keeps the tasks and sessions of the others, and what a window removed stays removed', async () => {
    const at = new Date().toISOString();
    const windowA = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1, shared: true });
    const windowB = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1, shared: true });
    const [a, b] = [stubEngine(), stubEngine()];
    windowA.attach(a as unknown as TaskEngine);
    windowB.attach(b as unknown as TaskEngine);
    const onDisk = () => (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { tasks: Array<{ snap: TaskSnapshot }>; sessions: Array<{ serverId: string }>; removed: RemovedTask[] });
    const keys = () => onDisk().tasks.map((t) => t.snap.key).sort();

    a.tasks = [snap('a1', 'working', at, 'http-a')];
    windowA.saveSessions([{ serverId: 'http-a', fingerprint: 'f', sessionId: 'sa', initializeResult: initialized }]);
    b.tasks = [snap('b1', 'working', at), snap('b2', 'completed', at)];
    windowB.flushSync();
    assert.deepEqual(keys(), ['a1', 'b1', 'b2'], 'the second window to save keeps the first one\'s task');
    assert.deepEqual(onDisk().sessions.map((s) => s.serverId), ['http-a'], 'and its session to resume');

    b.tasks = [snap('b1', 'working', at)];
    b.remove('b2');
    a.tasks = [snap('a1', 'completed', at, 'http-a')];
    windowA.flushSync();
    windowB.flushSync();
    assert.deepEqual(keys(), ['a1', 'b1'], 'a removed task is not brought back by the other window');
    a.remove('a0');
    windowA.flushSync();
    assert.deepEqual(onDisk().removed.map((r) => r.key).sort(), ['a0', 'b2'], 'what each window removed is remembered, the other window\'s too');
    assert.equal(onDisk().tasks.find((t) => t.snap.key === 'a1')?.snap.status, 'completed', 'each window\'s own tasks are as it last saved them');

    // A window that does not share (a folder's own store) writes only its list.
    const alone = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 });
    const c = stubEngine();
    alone.attach(c as unknown as TaskEngine);
    c.tasks = [snap('c1', 'working', at)];
    alone.flushSync();
    assert.deepEqual(keys(), ['c1']);
  });

  it('a finished task cleared in one window without a folder, while another window still shows it, stays cleared in the next window (that other window saves it again)', async () => {
    const at = new Date().toISOString();
    const opts = { retentionDays: () => 30, debounceMs: 1, shared: true };
    const [windowA, windowB] = [new TaskStore(dir, new MemoryLogger(), opts), new TaskStore(dir, new MemoryLogger(), opts)];
    const [a, b] = [stubEngine(), stubEngine()];
    windowA.attach(a as unknown as TaskEngine);
    windowB.attach(b as unknown as TaskEngine);
    // Both windows show the finished task (finished tasks are not claimed); B clears it, A saves after.
    a.tasks = [snap('done', 'completed', at), snap('other', 'completed', at)];
    b.remove('done');
    windowB.flushSync();
    windowA.flushSync();
    const next = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, shared: true }).load();
    assert.deepEqual(next.tasks.map((t) => t.key), ['other']);
    assert.deepEqual(next.removed.map((r) => r.key), ['done'], 'and it is remembered as removed');
  });

  it('windows without a folder that load at the same moment: one waits for the lock of the other, then leaves it the live task and session it claimed; a lock left by a window that died is broken; a folder\'s own store ignores claims', async () => {
    const at = new Date().toISOString();
    const session = { serverId: 'http-a', fingerprint: 'f', sessionId: 'sa', initializeResult: initialized, keptAt: Date.now() };
    const written = { version: 1, tasks: [{ snap: snap('live', 'working', at, 'http-a') }, { snap: snap('done', 'completed', at, 'http-a') }], sessions: [session] };
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(written));
    const lock = path.join(dir, 'tasks.json.lock');
    const opts = { retentionDays: () => 30, shared: true };
    const [windowA, windowB] = [new TaskStore(dir, new MemoryLogger(), opts), new TaskStore(dir, new MemoryLogger(), opts)];
    fs.writeFileSync(lock, ''); // another window is writing the index
    const loadingB = windowB.load(); // finds the lock taken, and waits
    fs.rmSync(lock);
    const loadingA = windowA.load(); // takes the lock at once, and claims
    const [a, b] = await Promise.all([loadingA, loadingB]);
    assert.deepEqual(a.tasks.map((t) => t.key), ['live', 'done']);
    assert.deepEqual(a.sessions.map((s) => s.sessionId), ['sa']);
    assert.deepEqual(b.tasks.map((t) => t.key), ['done'], 'the live task is the first window\'s; finished ones every window shows');
    assert.deepEqual(b.sessions, []);

    const stale = new Date(Date.now() - 60_000);
    fs.writeFileSync(lock, '');
    fs.utimesSync(lock, stale, stale);
    const log = new MemoryLogger();
    assert.deepEqual((await new TaskStore(dir, log, opts).load()).tasks.map((t) => t.key), ['done']);
    assert.ok(!fs.existsSync(lock), 'the stale lock was broken');
    assert.ok(!log.has('warn', /locked/), log.text());

    assert.deepEqual((await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load()).tasks.map((t) => t.key), ['live', 'done'], 'not shared: as before');
  });

  it('a window without a folder with no live task to claim loads without writing the index (activation does no write of its own)', async () => {
    const at = new Date().toISOString();
    const text = JSON.stringify({ version: 1, tasks: [{ snap: snap('done', 'completed', at, 'http-a') }], sessions: [] });
    const index = path.join(dir, 'tasks.json');
    fs.writeFileSync(index, text);
    const before = fs.statSync(index).ino;
    const loaded = await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, shared: true }).load();
    assert.deepEqual(loaded.tasks.map((t) => t.key), ['done']);
    assert.equal(fs.statSync(index).ino, before, 'the index was not replaced');
    assert.equal(fs.readFileSync(index, 'utf8'), text);
  });

  it('Clear Stored Results in one window without a folder deletes its own results, not those of the other windows sharing the store', async () => {
    const opts = { retentionDays: () => 30, debounceMs: 1, shared: true };
    const [windowA, windowB] = [new TaskStore(dir, new MemoryLogger(), opts), new TaskStore(dir, new MemoryLogger(), opts)];
    const [a, b] = [stubEngine(), stubEngine()];
    windowA.attach(a as unknown as TaskEngine);
    windowB.attach(b as unknown as TaskEngine);
    const result = (text: string) => ({ kind: 'result' as const, result: { content: [{ type: 'text', text }] } });
    const finished = (key: string, text: string) => ({ ...snap(key, 'completed', new Date().toISOString()), outcome: result(text), outcomeFetchedAt: new Date().toISOString() });
    a.tasks = [finished('a1', 'window A')];
    a.change(a.tasks[0]);
    b.tasks = [finished('b1', 'window B')];
    b.change(b.tasks[0]);
    const reader = new TaskStore(dir, new MemoryLogger(), opts);
    const files = () => (fs.existsSync(path.join(dir, 'results')) ? fs.readdirSync(path.join(dir, 'results')).filter((f) => f.endsWith('.json')) : []);
    await waitFor(() => files().length === 2, 'both result files written');
    try {
      assert.equal(windowB.storedResults, 1);
      assert.equal(await windowB.clearResults(), 1);
      assert.equal(await reader.loadOutcome('b1'), undefined);
      assert.deepEqual(await reader.loadOutcome('a1'), result('window A'), "the other window's result is kept");
    } finally {
      windowA.dispose();
      windowB.dispose();
    }
  });

  it('result files that no task points to are swept at load once older than the retention period; recent ones are left', async () => {
    const results = path.join(dir, 'results');
    fs.mkdirSync(results, { recursive: true });
    const old = new Date(Date.now() - 40 * 24 * 3600_000);
    fs.writeFileSync(path.join(results, 'orphan-old.json'), '{}');
    fs.utimesSync(path.join(results, 'orphan-old.json'), old, old);
    fs.writeFileSync(path.join(results, 'orphan-new.json'), '{}');
    await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, sweepDelayMs: 0 }).load();
    await waitFor(() => !fs.existsSync(path.join(results, 'orphan-old.json')), 'the old orphan swept');
    assert.deepEqual(fs.readdirSync(results), ['orphan-new.json']);
  });

  it('temporary files left by a window that died while saving (killed mid-write) are swept at load; those of a window that runs are left', async () => {
    const results = path.join(dir, 'results');
    fs.mkdirSync(results, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const left = [path.join(dir, `tasks.json.${dead}.3.tmp`), path.join(results, `ab.json.${dead}.tmp`), path.join(results, `cd.json.${dead}.sync.tmp`)];
    const running = [path.join(dir, `tasks.json.${process.pid}.7.tmp`), path.join(results, `ef.json.${process.pid}.tmp`)];
    for (const f of [...left, ...running]) fs.writeFileSync(f, 'x'.repeat(1000));
    await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, sweepDelayMs: 0 }).load();
    await waitFor(() => left.every((f) => !fs.existsSync(f)), `the dead window's files swept: ${fs.readdirSync(dir).join(' ')} ${fs.readdirSync(results).join(' ')}`);
    assert.ok(running.every((f) => fs.existsSync(f)));
  });

  it('a window closed before its stored tasks were loaded leaves them, and the sessions to resume, on disk', async () => {
    const at = new Date().toISOString();
    const index = { version: 1, tasks: [{ snap: snap('a', 'working', at) }, { snap: snap('b', 'completed', at) }], sessions: [{ serverId: 'http-a', fingerprint: 'f', sessionId: 'sa', initializeResult: initialized }] };
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify(index));
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 });
    const loading = store.load();
    // The shutdown order of the extension: the store, then the server manager, which saves the sessions it keeps.
    store.dispose();
    store.saveSessions([]);
    await loading;
    const onDisk = JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as typeof index;
    assert.deepEqual(onDisk.tasks.map((t) => t.snap.key), ['a', 'b']);
    assert.deepEqual(onDisk.sessions.map((s) => s.sessionId), ['sa']);
  });

  it('a kept session stays only while a task may use it (live, or ended with its result to fetch): not once its tasks ended with their results in hand or deleted, expired (their ttl and an hour of grace passed), were cleared or are direct calls, nor when no live connection kept it within the retention period', async () => {
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms).toISOString();
    const HOUR = 3600_000;
    const session = (serverId: string, keptAt = now) => ({ serverId, fingerprint: 'f', sessionId: `session-of-${serverId}`, initializeResult: initialized, keptAt });
    const live = { ...snap('live', 'working', ago(2 * HOUR), 'live'), ttl: 3 * HOUR };
    const waiting = { ...snap('waiting', 'input_required', ago(HOUR), 'waiting') }; // no ttl
    const grace = { ...snap('grace', 'working', ago(2 * HOUR), 'grace'), ttl: 1.5 * HOUR }; // ttl ended 30 min ago: the server's clock may differ
    const expired = { ...snap('expired', 'working', ago(3 * HOUR), 'expired'), ttl: HOUR };
    // Ended tasks under their own key (taskKey): one under another is a retired one, never asked about.
    const own = (t: TaskSnapshot): TaskSnapshot => ({ ...t, key: taskKey(t.serverId, t.taskId) });
    const ended = [{ ...own(snap('done', 'completed', ago(HOUR), 'ended')), outcomeFetchedAt: ago(HOUR) }, { ...own(snap('deleted', 'failed', ago(HOUR), 'ended')), resultDeleted: true as const }, own(snap('lost', 'lost', ago(HOUR), 'ended'))];
    const result = own(snap('result', 'completed', ago(HOUR), 'result')); // its result still to fetch
    const late = { ...own(snap('late', 'failed', ago(3 * HOUR), 'late')), ttl: HOUR }; // and one whose ttl and grace passed
    const retiredOne = snap('retired', 'completed', ago(HOUR), 'retired');
    const direct = { ...snap('direct', 'working', ago(HOUR), 'direct'), kind: 'direct' as const };
    const stale = snap('stale', 'working', ago(HOUR), 'stale'); // no ttl, and its server not seen for 40 days
    const tasks = [live, waiting, grace, expired, ...ended, result, late, retiredOne, direct, stale];
    const sessions = [...['live', 'waiting', 'grace', 'expired', 'ended', 'result', 'late', 'retired', 'cleared', 'direct'].map((id) => session(id)), session('stale', now - 40 * 24 * HOUR)];
    const kept = ['live', 'waiting', 'grace', 'result'];
    fs.writeFileSync(path.join(dir, 'tasks.json'), JSON.stringify({ version: 1, tasks: tasks.map((t) => ({ snap: t })), sessions }));
    const onDisk = () => (JSON.parse(fs.readFileSync(path.join(dir, 'tasks.json'), 'utf8')) as { sessions: Array<{ serverId: string }> }).sessions.map((s) => s.serverId);

    // Read back: only the needed ones are resumed.
    const store = new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30, debounceMs: 1 });
    const state = await store.load();
    assert.deepEqual(state.sessions.map((s) => s.serverId), kept);
    // Saved at shutdown, as the server manager hands them over (the live connections' and those it still holds).
    const engine = stubEngine();
    engine.tasks = tasks;
    store.attach(engine as unknown as TaskEngine);
    store.saveSessions(sessions);
    assert.deepEqual(onDisk(), kept);
    // The result of a server's last ended task is fetched: its session goes with the next save.
    engine.tasks = tasks.map((t) => (t === result ? { ...t, outcomeFetchedAt: new Date().toISOString() } : t));
    engine.change(engine.tasks[0]);
    await waitFor(() => !onDisk().includes('result'), 'the session of the fetched result dropped');
    assert.deepEqual(onDisk(), ['live', 'waiting', 'grace']);
    store.dispose();
  });

  it('a folder that cannot be written (a full or read-only disk): the log says so once and the user is told once, the results stay in memory and are read from there, and all is saved when the folder can be written again, tried again by itself', async () => {
    // A storage folder whose parent is a file: every write fails (ENOTDIR), as on a full or read-only disk.
    const parent = path.join(dir, 'parent');
    fs.writeFileSync(parent, '');
    const storage = path.join(parent, 'storage');
    const log = new MemoryLogger();
    const told: unknown[] = [];
    const store = new TaskStore(storage, log, { retentionDays: () => 30, debounceMs: 1, onSaveError: (err) => told.push(err) });
    await store.load();
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const at = new Date().toISOString();
    const outcome = { kind: 'result' as const, result: { content: [{ type: 'text', text: 'the only copy' }] } };
    const errors = () => log.lines.filter((l) => l.level === 'error');
    try {
      for (let i = 0; i < 5; i++) {
        const t = { ...snap(`k${i}`, 'completed', at), outcome, outcomeFetchedAt: at };
        engine.tasks.push(t);
        engine.change(t);
        await new Promise((r) => setTimeout(r, 20));
      }
      await waitFor(() => errors().length > 0, 'a failed save logged');
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(errors().map((l) => l.message.replace(/: .*/, '')), ['Could not save the tasks and results'], log.text());
      assert.equal(told.length, 1, 'told once');
      // The engine let the results leave memory: the store still has them.
      for (let i = 0; i < 5; i++) assert.deepEqual(await store.readOutcome(`k${i}`), outcome, `k${i}`);
      // The disk takes them again: saved without another change.
      fs.rmSync(parent);
      // The index may be written before the results' folder is made: neither is looked into before it is there.
      const results = path.join(storage, 'results');
      await waitFor(() => fs.existsSync(path.join(storage, 'tasks.json')) && fs.existsSync(results) && fs.readdirSync(results).length === 5, 'saved again', 10_000);
      const next = new TaskStore(storage, new MemoryLogger(), { retentionDays: () => 30 });
      await waitFor(async () => (await next.load()).tasks.filter((t) => t.outcomeFetchedAt).length === 5, 'the results written in the index as fetched');
      assert.deepEqual((await next.load()).tasks.map((t) => t.key), ['k0', 'k1', 'k2', 'k3', 'k4']);
      for (let i = 0; i < 5; i++) assert.deepEqual(await next.loadOutcome(`k${i}`), outcome);
      assert.ok(log.has('info', /^The tasks and results are saved again$/), log.text());
      assert.equal(told.length, 1);
    } finally {
      store.dispose();
    }
  });

  it('a result whose file cannot be written while the task list can (a disk with room for the small file only) is not written as fetched: the next window fetches it again from its server; a write that fails after the window closed is not told as saved', async () => {
    fs.writeFileSync(path.join(dir, 'results'), ''); // its folder cannot be made
    const log = new MemoryLogger();
    const store = new TaskStore(dir, log, { retentionDays: () => 30, debounceMs: 1 });
    const engine = stubEngine();
    store.attach(engine as unknown as TaskEngine);
    const at = new Date().toISOString();
    const t = { ...snap('k', 'completed', at), outcome: { kind: 'result' as const, result: { content: [] } }, outcomeFetchedAt: at };
    engine.tasks = [t];
    engine.change(t);
    store.dispose();
    const [saved] = (await new TaskStore(dir, new MemoryLogger(), { retentionDays: () => 30 }).load()).tasks;
    assert.equal(saved.status, 'completed');
    assert.equal(saved.outcomeFetchedAt, undefined);
    // The write under way when the window closed ends (failed) after it: not a save.
    await new Promise((r) => setTimeout(r, 50));
    assert.ok(!log.has('info', /saved again/), log.text());
  });

  it('an index that cannot be read (empty, cut short, not JSON, of another version) is kept aside, not overwritten by the next save: the window starts with no tasks, and the log and the user are told where it is; one with entries that cannot be read is copied aside, the others load', async () => {
    const at = new Date().toISOString();
    const sound = JSON.stringify({ version: 1, sessions: [], tasks: [{ snap: snap('a', 'working', at) }] });
    for (const text of ['', '{ not json', sound.slice(0, 40), JSON.stringify({ version: 2, tasks: {} }), '[]']) {
      fs.writeFileSync(path.join(dir, 'tasks.json'), text);
      const log = new MemoryLogger();
      const told: string[] = [];
      const store = new TaskStore(dir, log, { retentionDays: () => 30, onUnread: (where) => told.push(where) });
      assert.equal((await store.load()).tasks.length, 0, text);
      const engine = stubEngine();
      engine.tasks = [snap('new', 'working', at)];
      store.attach(engine as unknown as TaskEngine);
      store.flushSync();
      const aside = fs.readdirSync(dir).filter((f) => f.endsWith('.damaged'));
      assert.equal(aside.length, 1, `${JSON.stringify(text)}: kept aside\n${log.text()}`);
      assert.equal(fs.readFileSync(path.join(dir, aside[0]), 'utf8'), text);
      assert.ok(log.has('warn', new RegExp(`^Could not read the stored tasks \\(.*\\): kept as .*${aside[0]}; starting with none$`)), log.text());
      assert.deepEqual(told, [path.join(dir, aside[0])], 'the user is told where it is kept');
      fs.rmSync(path.join(dir, aside[0]));
    }
    const damaged = JSON.stringify({ version: 1, sessions: [], tasks: [{ snap: snap('a', 'working', at) }, { snap: { ...snap('b', 'working', at), status: 'paused' } }] });
    fs.writeFileSync(path.join(dir, 'tasks.json'), damaged);
    const log = new MemoryLogger();
    assert.deepEqual((await new TaskStore(dir, log, { retentionDays: () => 30 }).load()).tasks.map((t) => t.key), ['a']);
    const [copy] = fs.readdirSync(dir).filter((f) => f.endsWith('.damaged'));
    assert.equal(copy && fs.readFileSync(path.join(dir, copy), 'utf8'), damaged, log.text());
    assert.ok(log.has('warn', new RegExp(`^Skipped 1 stored task that could not be read \\(not a task, or an unknown status\\): kept as .*${copy}$`)), log.text());
  });
});
