// Remote servers inside the real extension host: the demo server over Streamable HTTP,
// server-everything over legacy HTTP+SSE and the SDK's McpServer over WebSocket, started by this suite on 127.0.0.1 and added through
// the mcpTasks.servers setting. The editor patches Node's network stack for its proxy support;
// the transports' requests (fetch, and node:http for event streams) must go through it unharmed.
import * as assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { activateExtension, removeSettingServers, serverIdOf, testingApi, waitFor } from './helpers';
import { answeringWarnings, QuickInputSpy } from './quickInputs';
import { cleanUp, publicApi } from './taskApiHelpers';

/** out/test/integration -> the repository. */
const repoRoot = path.resolve(__dirname, '..', '..', '..');
const DEMO = path.join(repoRoot, 'demo', 'server.mjs');
const EVERYTHING = path.join(repoRoot, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** A real SDK McpServer over WebSocket, one server (and task store) per connection. */
const WS_FIXTURE = path.join(repoRoot, 'test', 'fixtures', 'servers', 'ws-server.mjs');

/** Starts `args` with node; resolves once `stream` prints a line matching `ready` (whose first group may be the port). */
function startServer(args: string[], env: Record<string, string>, stream: 'stdout' | 'stderr', ready: RegExp): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`${path.basename(args[0])} did not start in 15 s: ${seen}`)), 15_000);
    child.on('exit', (code) => reject(new Error(`${path.basename(args[0])} exited (${code}): ${seen}`)));
    child.stdout!.on('data', (d: Buffer) => stream === 'stdout' && check(d));
    child.stderr!.on('data', (d: Buffer) => stream === 'stderr' && check(d));
    function check(d: Buffer) {
      seen = (seen + d.toString('utf8')).slice(-2000);
      const match = ready.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match });
      }
    }
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

const settings = () => vscode.workspace.getConfiguration('mcpTasks');

/**
 * What Connect Server tells for each of `servers`, added to the setting for the time: its error
 * notification, recorded and not shown (Connect Server waits for a button), by server label.
 */
const connectErrors = async (servers: Record<string, object>, ids: (label: string) => Promise<string>): Promise<Map<string, string>> => {
  const before = settings().inspect<Record<string, unknown>>('servers')?.globalValue;
  const w = vscode.window as unknown as Record<string, unknown>;
  const showError = w.showErrorMessage;
  const told: string[] = [];
  w.showErrorMessage = (message: string) => (told.push(message), Promise.resolve(undefined));
  try {
    await settings().update('servers', { ...before, ...servers }, vscode.ConfigurationTarget.Global);
    const errors = new Map<string, string>();
    for (const label of Object.keys(servers)) {
      void vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: await ids(label) });
      errors.set(label, await waitFor(() => told.find((m) => m.includes(`"${label}"`)), `the error of ${label} (got ${JSON.stringify(told)})`, 15_000));
    }
    return errors;
  } finally {
    w.showErrorMessage = showError;
    await settings().update('servers', before, vscode.ConfigurationTarget.Global);
  }
};

suite('Remote servers over Streamable HTTP, legacy SSE and WebSocket', () => {
  let api: McpTasksApi;
  const children: ChildProcess[] = [];
  const started: string[] = [];
  /** The ws-shared server's process (one test restarts it). */
  let sharedServer: ChildProcess;
  let demoUrl: string;
  const serverId = (label: string) => {
    const s = api.getServers().find((x) => x.label === label);
    assert.ok(s, `no server "${label}" in ${JSON.stringify(api.getServers().map((x) => x.label))}`);
    return s.id;
  };
  /** A server's id once the configuration lists it. */
  const byLabel = (label: string) => waitFor(() => api.getServers().find((s) => s.label === label)?.id, label);

  suiteSetup(async function () {
    this.timeout(40_000);
    api = await publicApi();
    const demo = await startServer([DEMO, 'http', '--port', '0', '--quiet', '--poll-interval', '200'], {}, 'stdout', /listening (\d+)/);
    children.push(demo.child);
    demoUrl = `http://127.0.0.1:${demo.match[1]}/mcp`;
    const ssePort = await freePort();
    const everything = await startServer([EVERYTHING, 'sse'], { PORT: String(ssePort) }, 'stderr', /listening on port|running on port/i);
    children.push(everything.child);
    const ws = await startServer([WS_FIXTURE], {}, 'stdout', /listening (\d+)/);
    children.push(ws.child);
    const shared = await startServer([WS_FIXTURE], { SHARED_TASKS: '1', LOG_REQUESTS: '1' }, 'stdout', /listening (\d+)/);
    children.push(shared.child);
    sharedServer = shared.child;
    await settings().update(
      'servers',
      {
        'demo-http': { type: 'http', url: demoUrl },
        'everything-sse': { type: 'sse', url: `http://127.0.0.1:${ssePort}/sse` },
        'ws-fixture': { type: 'ws', url: `ws://127.0.0.1:${ws.match[1]}` },
        'ws-shared': { type: 'ws', url: `ws://127.0.0.1:${shared.match[1]}` },
      },
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(() => api.getServers().some((s) => s.label === 'ws-shared'), 'the remote servers in the list');
  });

  suiteTeardown(async function () {
    this.timeout(20_000);
    if (api) await cleanUp(api, started);
    await removeSettingServers();
    for (const c of children) c.kill();
  });

  test('a task on the demo server over Streamable HTTP runs to its result', async function () {
    this.timeout(30_000);
    const id = serverId('demo-http');
    const t = await api.runTool(id, 'build-project', { arguments: { project: 'remote', durationMs: 800 } });
    started.push(t.id);
    assert.equal(t.kind, 'task');
    const r = await api.getResult(t.id, { waitSeconds: 20 });
    assert.equal(r.task.status, 'completed', JSON.stringify(r));
    assert.match(JSON.stringify(r.outcome), /Build of remote succeeded/);
    const server = api.getServers().find((s) => s.id === id);
    assert.equal(server?.type, 'http');
    assert.deepEqual(server?.tasks, { toolCalls: true, list: true, cancel: true });
  });

  test('Connect Server on a remote server it cannot reach names the server once, with the url, over each transport: "Could not connect to MCP server "x" at URL: …", not "…"x": Could not reach server "x" at URL: …"', async function () {
    this.timeout(30_000);
    const closed = await freePort();
    const down = {
      'down-http': { type: 'http', url: `http://127.0.0.1:${closed}/mcp` },
      'down-ws': { type: 'ws', url: `ws://127.0.0.1:${closed}/ws` },
      // A Streamable HTTP server configured as legacy SSE: its answer to the GET is refused.
      'wrong-sse': { type: 'sse', url: demoUrl },
    };
    const told = await connectErrors(down, byLabel);
    const of = (label: string) => told.get(label) ?? '';
    const refused = 'connection refused \\(ECONNREFUSED\\)';
    assert.match(of('down-http'), new RegExp(`^Could not connect to MCP server "down-http" at http://127\\.0\\.0\\.1:${closed}/mcp: ${refused}`));
    assert.match(of('down-ws'), new RegExp(`^Could not connect to MCP server "down-ws" at ws://127\\.0\\.0\\.1:${closed}/ws: ${refused}`));
    assert.match(of('wrong-sse'), /^Could not connect to MCP server "wrong-sse": it answered HTTP 4\d\d .* at http:\/\/127\.0\.0\.1:\d+\/mcp.*use "type": "http"/);
    for (const label of Object.keys(down)) assert.equal(of(label).split(`"${label}"`).length, 2, `"${label}" once in: ${of(label)}`);
  });

  test('Run Again of a task whose remote server has stopped names the server once: "Could not run "t" on x at URL: …", not "…on x: Could not reach server "x" at URL: …"', async function () {
    this.timeout(30_000);
    const before = settings().inspect<Record<string, unknown>>('servers')?.globalValue;
    const w = vscode.window as unknown as Record<string, unknown>;
    const showError = w.showErrorMessage;
    const told: string[] = [];
    const gone = await startServer([DEMO, 'http', '--port', '0', '--quiet'], {}, 'stdout', /listening (\d+)/);
    children.push(gone.child);
    const url = `http://127.0.0.1:${gone.match[1]}/mcp`;
    try {
      await settings().update('servers', { ...before, 'stopping-http': { type: 'http', url } }, vscode.ConfigurationTarget.Global);
      const id = await byLabel('stopping-http');
      // A task: a direct call that fails is a failed row, not an error of Run Again.
      const t = await api.runTool(id, 'build-project', { arguments: { project: 'again', durationMs: 100 } });
      started.push(t.id);
      await api.getResult(t.id, { waitSeconds: 15 });
      const exited = new Promise((resolve) => gone.child.once('exit', resolve));
      gone.child.kill();
      await exited;
      w.showErrorMessage = (message: string) => (told.push(message), Promise.resolve(undefined));
      await vscode.commands.executeCommand('mcpTasks.runAgain', { kind: 'task', key: t.id, serverId: id });
      const error = await waitFor(() => told.find((m) => m.startsWith('Could not run')), `the error (got ${JSON.stringify(told)})`, 15_000);
      assert.match(error, /^Could not run "build-project" on stopping-http\b/);
      assert.equal(error.split('stopping-http').length, 2, `the server once in: ${error}`);
    } finally {
      w.showErrorMessage = showError;
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });

  test("a remote server it cannot reach: its row's tooltip and accessible label say why as the notification does, with the url, the server named once (by the tooltip's title)", async function () {
    this.timeout(30_000);
    const testing = testingApi(await activateExtension());
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const before = settings().inspect<Record<string, unknown>>('servers')?.globalValue;
    const w = vscode.window as unknown as Record<string, unknown>;
    const showError = w.showErrorMessage;
    w.showErrorMessage = () => Promise.resolve(undefined);
    try {
      await settings().update('servers', { ...before, 'closed-http': { type: 'http', url } }, vscode.ConfigurationTarget.Global);
      const id = await byLabel('closed-http');
      void vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
      const row = await waitFor(async () => (await testing.getTreeSnapshot()).find((r) => serverIdOf(r) === id && r.icon === 'error'), 'the row in error');
      const why = `error at ${url}: connection refused (ECONNREFUSED)`;
      // The tooltip is Markdown: its text escapes punctuation (a dot, a parenthesis).
      const text = row.tooltip?.replace(/\\(.)/g, '$1') ?? '';
      assert.ok(text.includes(`State: ${why}`), text);
      assert.equal(text.split('closed-http').length, 2, `the server once in: ${text}`);
      assert.ok(row.accessibility?.startsWith(`Server closed-http, ${why}`), row.accessibility);
    } finally {
      w.showErrorMessage = showError;
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });

  test('Connect Server through a proxy that is down (the editor\'s "http.proxy" at a closed port) keeps the editor\'s words, which name the proxy, and says to check "http.proxy" and the proxy or VPN', async function () {
    this.timeout(30_000);
    const closed = await freePort();
    const http = vscode.workspace.getConfiguration('http');
    const proxyBefore = http.inspect<string>('proxy')?.globalValue;
    try {
      await http.update('proxy', `http://127.0.0.1:${closed}`, vscode.ConfigurationTarget.Global);
      // Not localhost, which the editor always reaches directly: only the proxy could reach it.
      const down = { 'via-down-proxy': { type: 'http', url: 'http://mcp.proxied.test/mcp' }, 'via-down-proxy-ws': { type: 'ws', url: 'ws://mcp.proxied.test/ws' } };
      const told = await connectErrors(down, byLabel);
      for (const [label, { url }] of Object.entries(down)) {
        assert.equal(
          told.get(label),
          `Could not connect to MCP server "${label}" at ${url}: Failed to establish a socket connection to proxies: PROXY 127.0.0.1:${closed}: check the editor's "http.proxy" setting, and that the proxy (or VPN) is up`,
        );
      }
    } finally {
      await http.update('proxy', proxyBefore, vscode.ConfigurationTarget.Global);
    }
  });

  test('a Streamable HTTP server stopped while its task runs, then back without the task (the demo keeps tasks per session): its row says "unreachable · retrying" while it is down, then the task is told lost with the reason and Run Again, and the row is connected again', async function () {
    this.timeout(60_000);
    const testing = testingApi(await activateExtension());
    const before = settings().inspect<Record<string, unknown>>('servers')?.globalValue;
    const port = await freePort();
    const args = [DEMO, 'http', '--port', String(port), '--quiet', '--poll-interval', '200'];
    let demo = await startServer(args, {}, 'stdout', /listening (\d+)/);
    children.push(demo.child);
    const spy = new QuickInputSpy();
    try {
      await settings().update('servers', { ...before, 'restarting-http': { type: 'http', url: `http://127.0.0.1:${port}/mcp` } }, vscode.ConfigurationTarget.Global);
      const id = await byLabel('restarting-http');
      const t = await api.runTool(id, 'build-project', { arguments: { project: 'outage', durationMs: 60_000 } });
      started.push(t.id);
      const row = async () => (await testing.getTreeSnapshot()).find((r) => serverIdOf(r) === id);
      const exited = new Promise((r) => demo.child.once('exit', r));
      demo.child.kill();
      await exited;
      await waitFor(async () => (await row())?.description === 'unreachable · retrying', 'the row to say its polls cannot reach it', 20_000);
      assert.equal(api.getTask(t.id)?.status, 'working', 'a server that is down is no lost task');
      demo = await startServer(args, {}, 'stdout', /listening (\d+)/);
      children.push(demo.child);
      await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost on the restarted server', 40_000);
      assert.match(api.getTask(t.id)?.note ?? '', /^The server no longer knows the task/);
      const told = await waitFor(() => spy.messages.find((m) => m.includes('on restarting-http: lost')), `the loss to be told, among ${JSON.stringify(spy.messages)}`, 5000);
      assert.match(told, /no longer knows the task/);
      assert.ok(spy.messageItems[spy.messages.indexOf(told)]?.includes('Run Again'), JSON.stringify(spy.messageItems));
      await waitFor(async () => (await row())?.description?.startsWith('connected'), 'the row connected again');
    } finally {
      spy.dispose();
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });

  test('server-everything over legacy SSE lists its tools and answers a call', async function () {
    this.timeout(30_000);
    const id = serverId('everything-sse');
    const tools = await api.getTools(id);
    assert.ok(tools.some((x) => x.name === 'echo'), JSON.stringify(tools.map((x) => x.name)));
    const t = await api.runTool(id, 'echo', { arguments: { message: 'over legacy SSE' } });
    started.push(t.id);
    const r = await api.getResult(t.id, { waitSeconds: 15 });
    assert.equal(r.task.status, 'completed', JSON.stringify(r));
    assert.match(JSON.stringify(r.outcome), /Echo: over legacy SSE/);
    assert.equal(api.getServers().find((s) => s.id === id)?.state, 'connected');
  });

  test('Disconnect of a remote server with a running direct call asks about that call only (its tasks would go on)', async function () {
    this.timeout(30_000);
    const id = serverId('everything-sse');
    const t = await api.runTool(id, 'trigger-long-running-operation', { arguments: { duration: 60, steps: 60 } });
    started.push(t.id);
    assert.equal(t.kind, 'direct', 'legacy SSE: no tasks');
    const asked = await answeringWarnings(() => vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id }));
    assert.deepEqual(asked, ['Disconnect "everything-sse"? Its running call will be lost. | A call made without a task ends with its connection; tasks go on. | Disconnect']);
    assert.equal(api.getServers().find((s) => s.id === id)?.state, 'connected', 'Cancel: still connected');
    assert.equal(api.getTask(t.id)?.status, 'working', 'and the call goes on');
  });

  test('a task over WebSocket: Disconnect warns that its tasks may be lost (a connection that cannot be resumed), and they are: the new connection\'s server does not know them', async function () {
    this.timeout(40_000);
    const id = serverId('ws-fixture');
    const quick = await api.runTool(id, 'delayed_echo', { arguments: { message: 'over WebSocket', delayMs: 10 } });
    started.push(quick.id);
    assert.equal(quick.kind, 'task');
    const r = await api.getResult(quick.id, { waitSeconds: 15 });
    assert.equal(r.task.status, 'completed', JSON.stringify(r));
    assert.match(JSON.stringify(r.outcome), /over WebSocket/);
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'never', delayMs: 60_000 } });
    started.push(t.id);
    const spy = new QuickInputSpy();
    const asked = await answeringWarnings(async (modal) => {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id });
      assert.equal(api.getServers().find((s) => s.id === id)?.state, 'connected', 'Cancel: still connected');
      modal.answer = 'Disconnect';
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id });
    });
    const question = 'Disconnect "ws-fixture"? Its running task may be lost. | A WebSocket connection cannot be resumed: a server that keeps its tasks per connection forgets them when it closes, and calls made without a task end with it. | Disconnect';
    assert.deepEqual(asked, [question, question]);
    assert.notEqual(api.getServers().find((s) => s.id === id)?.state, 'connected');
    await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
    try {
      await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost', 20_000);
      assert.match(api.getTask(t.id)?.note ?? '', /no longer knows the task/, 'the note says why');
      await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
      // Its loss alone (or a count of tasks lost): the quick task's completion may be told after the spy started.
      assert.deepEqual(spy.messages.filter((m) => m.includes('on ws-fixture: lost')), [], 'lost after the connection returned, still by the Disconnect: not told');
    } finally {
      spy.dispose();
    }
  });

  test('a task over WebSocket that outlives a Disconnect (its server keeps tasks across connections) and later fails is told: the Disconnect did not end it', async function () {
    this.timeout(40_000);
    const id = serverId('ws-shared');
    // Held until released: it fails after the Disconnect and the Connect, however slow the machine.
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'broke later', delayMs: 0, fail: true, held: true } });
    started.push(t.id);
    const spy = new QuickInputSpy();
    try {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
      let asked = '';
      const read = (d: Buffer) => (asked += d.toString('utf8'));
      sharedServer.stdout!.on('data', read);
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
      await waitFor(() => asked.includes(`tasks/get ${t.taskId}\n`), 'the task polled on the new connection', 15_000);
      sharedServer.stdout!.off('data', read);
      assert.equal(api.getTask(t.id)?.status, 'working', 'the server kept the task: it outlived the Disconnect');
      sharedServer.kill('SIGUSR2');
      await waitFor(() => api.getTask(t.id)?.status === 'failed', 'the task to fail on the server that kept it', 20_000);
      await waitFor(() => spy.messages.some((m) => /^"delayed_echo( \(.+?\))?" on ws-shared: failed/.test(m)), `the failure to be told, among ${JSON.stringify(spy.messages)}`, 5000);
    } finally {
      spy.dispose();
    }
  });

  test('a task over WebSocket that outlives a Disconnect (found again, unchanged, once connected) and is later lost because its server restarted is told: the Disconnect did not end it', async function () {
    this.timeout(60_000);
    const id = serverId('ws-shared');
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'outlives the Disconnect', delayMs: 60_000 } });
    started.push(t.id);
    const spy = new QuickInputSpy();
    try {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
      let asked = '';
      const read = (d: Buffer) => (asked += d.toString('utf8'));
      sharedServer.stdout!.on('data', read);
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
      await waitFor(() => asked.includes(`tasks/get ${t.taskId}\n`), 'the task polled on the new connection', 15_000);
      sharedServer.stdout!.off('data', read);
      assert.equal(api.getTask(t.id)?.status, 'working', 'the server kept the task: it outlived the Disconnect');
      // The server restarts on its port: the task it ran is gone, through no doing of the user's.
      const port = /^ws:\/\/127\.0\.0\.1:(\d+)/.exec(String((settings().get('servers') as Record<string, { url: string }>)['ws-shared'].url))![1];
      const stopped = new Promise((r) => sharedServer.once('exit', r));
      sharedServer.kill();
      await stopped;
      const restarted = await startServer([WS_FIXTURE], { SHARED_TASKS: '1', LOG_REQUESTS: '1', PORT: port }, 'stdout', /listening (\d+)/);
      children.push(restarted.child);
      sharedServer = restarted.child;
      await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost on the restarted server', 30_000);
      await waitFor(() => spy.messages.some((m) => /^"delayed_echo( \(.+?\))?" on ws-shared: lost/.test(m)), `the loss to be told, among ${JSON.stringify(spy.messages)}`, 5000);
    } finally {
      spy.dispose();
    }
  });

  test('Disconnect of a remote server with a live task holds: the row says the task is not followed, polls do not connect it again, and Connect resumes its session and follows the task to its end', async function () {
    this.timeout(40_000);
    const testing = testingApi(await activateExtension());
    const id = serverId('demo-http');
    const t = await api.runTool(id, 'build-project', { arguments: { project: 'held', durationMs: 4000 } });
    started.push(t.id);
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id }); // its task outlives the connection: nothing to ask
    const row = async () => (await testing.getTreeSnapshot()).find((r) => r.label === 'demo-http');
    await waitFor(async () => (await row())?.description === 'disconnected · 1 live task not followed', 'the row to say its task is not followed');
    await new Promise((r) => setTimeout(r, 1000)); // five of the task's poll intervals
    assert.equal((await row())?.description, 'disconnected · 1 live task not followed', 'not connected again by the polls');
    await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
    const r = await api.getResult(t.id, { waitSeconds: 20 });
    assert.equal(r.task.status, 'completed', 'the demo server keeps tasks per session: the session was kept and resumed');
    assert.match(JSON.stringify(r.outcome), /Build of held succeeded/);
  });

  test('a Streamable HTTP server whose url changes while its task runs keeps its connection, its row says so, and Restart or Disconnect asks first: the task is at the old url, lost at the Disconnect (not told)', async function () {
    this.timeout(40_000);
    const id = serverId('demo-http');
    const t = await api.runTool(id, 'build-project', { arguments: { project: 'moved', durationMs: 60_000 } });
    started.push(t.id);
    const before = settings().get<Record<string, { url: string }>>('servers')!;
    const testing = testingApi(await activateExtension());
    try {
      await settings().update('servers', { ...before, 'demo-http': { ...before['demo-http'], url: `${before['demo-http'].url}?moved=1` } }, vscode.ConfigurationTarget.Global);
      await waitFor(async () => ((await testing.getTreeSnapshot()) as Array<{ id?: string; description?: string }>).some((r) => serverIdOf(r) === id && r.description?.endsWith(' · new configuration waits for 1 task')), 'the row to say the new configuration waits');
      const asked = await answeringWarnings(() => vscode.commands.executeCommand('mcpTasks.restartServer', { kind: 'server', id }));
      assert.deepEqual(asked, ['Restart "demo-http"? Its running task will be lost. | Its configuration changed: nothing follows its tasks once it is disconnected. | Restart']);
      assert.equal(api.getTask(t.id)?.status, 'working', 'Cancel: it runs on');
      const spy = new QuickInputSpy();
      try {
        const disconnect = await answeringWarnings(async (modal) => {
          modal.answer = 'Disconnect';
          await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id });
        });
        assert.deepEqual(disconnect, ['Disconnect "demo-http"? Its running task will be lost. | Its configuration changed: nothing follows its tasks once it is disconnected. | Disconnect']);
        assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.note], ['lost', "Its server's configuration changed and it was disconnected by the user."], 'lost at once, as the question said');
        await new Promise((r) => setTimeout(r, 300)); // a notification would come within the indicators' 100 ms
        assert.deepEqual(spy.messages.filter((m) => m.includes('on demo-http: lost')), [], 'the user ended it: not told');
      } finally {
        spy.dispose();
      }
    } finally {
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });

  test('a WebSocket server given new headers at the same url while its task runs waits too, and Disconnect asks whether the task may be lost (not that it will be): the server, which keeps tasks across connections, still has it on Connect', async function () {
    this.timeout(40_000);
    const id = serverId('ws-shared');
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'same url', delayMs: 0, held: true } });
    started.push(t.id);
    const before = settings().get<Record<string, { url: string }>>('servers')!;
    const testing = testingApi(await activateExtension());
    try {
      await settings().update('servers', { ...before, 'ws-shared': { ...before['ws-shared'], headers: { 'X-Token': 'rotated' } } }, vscode.ConfigurationTarget.Global);
      await waitFor(async () => ((await testing.getTreeSnapshot()) as Array<{ id?: string; description?: string }>).some((r) => serverIdOf(r) === id && r.description?.endsWith(' · new configuration waits for 1 task')), 'the row to say the new configuration waits');
      const asked = await answeringWarnings(async (modal) => {
        modal.answer = 'Disconnect';
        await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id });
      });
      assert.deepEqual(asked, ['Disconnect "ws-shared"? Its running task may be lost. | A WebSocket connection cannot be resumed: a server that keeps its tasks per connection forgets them when it closes, and calls made without a task end with it. | Disconnect']);
      assert.deepEqual([api.getTask(t.id)?.status, api.getTask(t.id)?.note], ['working', undefined], 'not lost at the Disconnect');
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
      sharedServer.kill('SIGUSR2');
      const r = await api.getResult(t.id, { waitSeconds: 20 });
      assert.equal(r.task.status, 'completed', r.task.note);
    } finally {
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
      // Applied before the next test connects the server (its old headers), not under its first call.
      await testing.whenConfigurationLoaded?.();
    }
  });

  test('a task over WebSocket that outlives a Disconnect and is lost before its server is reached again, for another reason (the server is now a stdio one: nothing knows the task), is told: the Disconnect did not end it', async function () {
    this.timeout(40_000);
    await testingApi(await activateExtension()).whenConfigurationLoaded?.(); // the last test's restored settings
    const id = serverId('ws-shared');
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'replaced meanwhile', delayMs: 60_000 } });
    started.push(t.id);
    const before = settings().get<Record<string, unknown>>('servers')!;
    const spy = new QuickInputSpy();
    try {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
      assert.equal(api.getTask(t.id)?.status, 'working', 'it may outlive the Disconnect');
      // The same name for a local server now: its process never knew the task.
      await settings().update('servers', { ...before, 'ws-shared': { type: 'stdio', command: 'node', args: [DEMO, 'stdio', '--quiet'] } }, vscode.ConfigurationTarget.Global);
      await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost', 20_000);
      assert.match(api.getTask(t.id)?.note ?? '', /process that ran it is gone/);
      await waitFor(() => spy.messages.some((m) => /^"delayed_echo( \(.+?\))?" on ws-shared: lost/.test(m)), 'the loss to be told', 5000).catch((err: Error) => assert.fail(`${err.message}; told: ${JSON.stringify(spy.messages)}`));
    } finally {
      spy.dispose();
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });

  test('a task over WebSocket that outlives a Disconnect, on a server given another url before Connect, whose server there does not know it, is told lost: the new url lost it, not the Disconnect', async function () {
    this.timeout(40_000);
    const testing = testingApi(await activateExtension());
    await testing.whenConfigurationLoaded?.(); // the last test's restored settings
    const id = serverId('ws-shared');
    const t = await api.runTool(id, 'delayed_echo', { arguments: { message: 'moved meanwhile', delayMs: 60_000 } });
    started.push(t.id);
    const before = settings().get<Record<string, { url: string }>>('servers')!;
    const spy = new QuickInputSpy();
    try {
      await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id, confirmed: true });
      // The url of the other WebSocket server, which never knew the task.
      await settings().update('servers', { ...before, 'ws-shared': { type: 'ws', url: before['ws-fixture'].url } }, vscode.ConfigurationTarget.Global);
      await testing.whenConfigurationLoaded?.();
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id });
      await waitFor(() => api.getTask(t.id)?.status === 'lost', 'the task to be lost', 20_000);
      assert.match(api.getTask(t.id)?.note ?? '', /no longer knows the task/);
      await waitFor(() => spy.messages.some((m) => /^"delayed_echo( \(.+?\))?" on ws-shared: lost/.test(m)), 'the loss to be told', 5000).catch((err: Error) => assert.fail(`${err.message}; told: ${JSON.stringify(spy.messages)}`));
    } finally {
      spy.dispose();
      await settings().update('servers', before, vscode.ConfigurationTarget.Global);
    }
  });
});
