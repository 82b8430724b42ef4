// Issue 8, malformed configuration: every mistake gets a precise message (file, line, server, what),
// and the servers that are right still work. The parsing rules are pinned in test/unit/config; this
// goes through ServerManager.setConfiguration and real processes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { combineConfigs, parseMcpJson, parseSettingServers } from '../../../src/core/config/parse';
import type { ConfigSource } from '../../../src/core/config/types';
import { TasksService } from '../../../src/core/api/service';
import { isInputDismissed, NeedsInputError } from '../../../src/core/servers/serverManager';
import { HeldByUserError } from '../../../src/core/tasks/engine';
import { taskKey } from '../../../src/core/tasks/types';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { alive } from '../helpers/process';
import type { Client } from './support';
import type { Peer } from './support';
import { clientsAndPeersForEachTest, startPeer, taskLab } from './support';

describe('reliability: malformed configuration next to a good server', function () {
  this.timeout(30_000);
  const { open } = clientsAndPeersForEachTest();
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-config-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('syntax errors, unknown types, missing commands and bad variables are reported precisely; the good server connects and runs a task', async () => {
    const folder = (name: string): ConfigSource => ({ kind: 'workspaceFolder', folderName: name, folderPath: path.join(dir, name), file: path.join(dir, name, '.vscode/mcp.json') });
    fs.mkdirSync(path.join(dir, 'b'));
    const broken = parseMcpJson('{\n  "servers": {\n    "lost": { "type": "stdio", "command": "node" }\n', folder('a'));
    const mixed = parseMcpJson(
      JSON.stringify(
        {
          servers: {
            pigeon: { type: 'carrier-pigeon' },
            nocommand: { type: 'stdio' },
            badvariable: { command: process.execPath, args: ['${nope:x}'] },
            noinput: { command: process.execPath, args: ['${input:missing}'] },
            notfound: { command: path.join(dir, 'no-such-binary') },
            nocwd: { command: process.execPath, args: [taskLab], cwd: path.join(dir, 'no-such-dir') },
            noenvfile: { command: process.execPath, args: [taskLab], envFile: path.join(dir, 'missing.env') },
            good: { command: process.execPath, args: [taskLab, 'stdio', '--poll-interval', '100'] },
          },
        },
        null,
        2,
      ),
      folder('b'),
    );
    const config = combineConfigs([broken, mixed]);
    const c = open({ config });

    // Parse-time problems: each names the file (and line), the server and what is wrong.
    const messages = c.servers.errors.map((e) => `${e.kind}: ${e.message}`);
    const expected = [
      /^syntax: \.vscode\/mcp\.json \(folder "a"\), line 4, column 1: a closing brace \(\}\) is missing\.$/,
      /^invalid: \.vscode\/mcp\.json \(folder "b"\), server "pigeon": "type" must be .*not "carrier-pigeon"\.$/,
      /^invalid: \.vscode\/mcp\.json \(folder "b"\), server "nocommand": "command" is missing\.$/,
      /^invalid: \.vscode\/mcp\.json \(folder "b"\), server "badvariable": "args\[0\]" uses the unknown variable "\$\{nope:x\}"\.$/,
      /^invalid: \.vscode\/mcp\.json \(folder "b"\), server "noinput": "args\[0\]" uses "\$\{input:missing\}", but no input with that id is defined in "inputs"\.$/,
    ];
    assert.equal(messages.length, expected.length, messages.join('\n'));
    for (const [i, re] of expected.entries()) assert.match(messages[i], re);

    // Start-time problems: each start fails with a message that says what to fix.
    const failure = (name: string) => c.servers.getSession(c.id(name)).then(() => 'connected', (err: Error) => err.message);
    const starts = {
      notfound: await failure('notfound'),
      nocwd: await failure('nocwd'),
      noenvfile: await failure('noenvfile'),
    };
    assert.match(starts.notfound, /command not found\. Check "command" in the server's configuration/);
    assert.match(starts.nocwd, /working directory .*no-such-dir.* does not exist/);
    assert.match(starts.noenvfile, /missing\.env/);

    // The good server, next to all of them.
    const t = await c.engine.callTool(c.id('good'), 'work', { arguments: { tag: 'fine', durationMs: 100 } });
    const done = await c.until(t.key, (s) => s.outcome !== undefined, 'the good task');
    assert.equal(done.status, 'completed');
    const states = Object.fromEntries(c.servers.list().map((s) => [s.name, s.state.kind]));
    // Those whose variables cannot be replaced are left out: each shows once, as its error.
    assert.deepEqual(states, { notfound: 'error', nocwd: 'error', noenvfile: 'error', good: 'connected' });
  });

  it('a server of the settings that uses ${workspaceFolder} restarts in the new folder when the folder set changes; one that does not keeps its connection', async () => {
    const [a, b] = ['a', 'b'].map((n) => (fs.mkdirSync(path.join(dir, n)), path.join(dir, n)));
    let folders = [a];
    const servers = {
      here: { command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', '${workspaceFolder}/spawns'] },
      elsewhere: { command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', path.join(dir, 'spawns')] },
    };
    const c = open({
      servers,
      manager: { resolveContext: () => ({ userHome: os.homedir(), env: process.env, folderPaths: folders, folders: Object.fromEntries(folders.map((f) => [path.basename(f), f])), readFile: (p) => fs.promises.readFile(p, 'utf8') }) },
    });
    await c.servers.getSession(c.id('here'));
    await c.servers.getSession(c.id('elsewhere'));
    const spawns = (f: string) => (fs.existsSync(path.join(f, 'spawns')) ? fs.readFileSync(path.join(f, 'spawns'), 'utf8').trim().split('\n').length : 0);
    assert.deepEqual([spawns(a), spawns(b), spawns(dir)], [1, 0, 1]);

    // The window's folder is replaced: the configuration is read again, unchanged.
    folders = [b];
    const parsed = parseSettingServers(servers);
    c.servers.setConfiguration(parsed.servers, parsed.errors);
    await waitFor(() => spawns(b) > 0, 'a start in the new folder', 10_000);
    assert.deepEqual([spawns(a), spawns(b), spawns(dir)], [1, 1, 1], 'only the server that names the folder restarted, in the new folder');
    await c.servers.getSession(c.id('here'));
    assert.equal(c.servers.get(c.id('here'))?.state.kind, 'connected');
    assert.equal(c.servers.get(c.id('elsewhere'))?.state.kind, 'connected');
  });

  it('a server of the user mcp.json that uses ${workspaceFolder} restarts in the new folder when the folder set changes, as one of the settings does', async () => {
    const [a, b] = ['a', 'b'].map((n) => (fs.mkdirSync(path.join(dir, n)), path.join(dir, n)));
    let folders = [a];
    const user: ConfigSource = { kind: 'user', file: path.join(dir, 'User', 'mcp.json') };
    const text = JSON.stringify({ servers: { here: { command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', '${workspaceFolder}/spawns'] } } });
    const c = open({
      config: parseMcpJson(text, user),
      manager: { resolveContext: () => ({ userHome: os.homedir(), env: process.env, folderPaths: folders, folders: Object.fromEntries(folders.map((f) => [path.basename(f), f])), readFile: (p) => fs.promises.readFile(p, 'utf8') }) },
    });
    assert.equal(c.id('here'), 'user:here');
    await c.servers.getSession('user:here');
    const spawns = (f: string) => (fs.existsSync(path.join(f, 'spawns')) ? fs.readFileSync(path.join(f, 'spawns'), 'utf8').trim().split('\n').length : 0);
    assert.deepEqual([spawns(a), spawns(b)], [1, 0]);
    folders = [b];
    const again = parseMcpJson(text, user);
    c.servers.setConfiguration(again.servers, again.errors);
    await waitFor(() => spawns(b) > 0, 'a start in the new folder', 10_000);
    assert.deepEqual([spawns(a), spawns(b)], [1, 1]);
  });

  it('a settings server with a relative cwd (resolved against the one folder) restarts in the new folder too', async () => {
    const [a, b] = ['a', 'b'].map((n) => (fs.mkdirSync(path.join(dir, n)), path.join(dir, n)));
    let folders = [a];
    const servers = { here: { command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', 'spawns'], cwd: '.' } };
    const c = open({
      servers,
      manager: { resolveContext: () => ({ userHome: os.homedir(), env: process.env, folderPaths: folders, folders: Object.fromEntries(folders.map((f) => [path.basename(f), f])), readFile: (p) => fs.promises.readFile(p, 'utf8') }) },
    });
    await c.servers.getSession(c.id('here'));
    const spawns = (f: string) => (fs.existsSync(path.join(f, 'spawns')) ? fs.readFileSync(path.join(f, 'spawns'), 'utf8').trim().split('\n').length : 0);
    assert.deepEqual([spawns(a), spawns(b)], [1, 0]);
    folders = [b];
    const parsed = parseSettingServers(servers);
    c.servers.setConfiguration(parsed.servers, parsed.errors);
    await waitFor(() => spawns(b) > 0, 'a start in the new folder', 20_000);
    assert.deepEqual([spawns(a), spawns(b)], [1, 1], 'the server runs in the old folder still');
  });

  it('a server made invalid by an edit saved mid-typing keeps its process and its live task until the edit is fixed; the error says so', async () => {
    const spawnLog = path.join(dir, 'spawns');
    const good = { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', spawnLog, '--poll-interval', '100'] };
    const c = open({ servers: { lab: good } });
    const id = c.id('lab');
    // Held: live until the edit is fixed, however slow the machine.
    const t = await c.engine.callTool(id, 'work', { arguments: { tag: 'edited', durationMs: 100, held: true } });
    const typing = parseSettingServers({ lab: { ...good, type: 'std' } });
    c.servers.setConfiguration(typing.servers, typing.errors);
    assert.deepEqual(
      c.servers.errors.map((e) => e.message),
      ['Setting "mcpTasks.servers", server "lab": "type" must be "stdio", "http", "sse" or "ws", not "std". The server stays as it was until this is fixed.'],
    );
    assert.deepEqual([c.servers.isConfigured(id), c.servers.get(id)?.state.kind], [true, 'connected']);
    const log = c.log as MemoryLogger;
    const polls = () => log.lines.filter((l) => /^\[lab\] → .*"method":"tasks\/(get|list)"/.test(l.message)).length;
    const before = polls();
    await waitFor(() => polls() >= before + 3, 'a few polls of the invalid server', 20_000);
    assert.equal(c.engine.get(t.key)?.status, 'working', 'the task is followed on');
    const fixed = parseSettingServers({ lab: good });
    c.servers.setConfiguration(fixed.servers, fixed.errors);
    const lab = (await c.servers.getSession(id).then((s) => s.connection.requestRaw('lab/stats', {}))) as { pid: number };
    process.kill(lab.pid, 'SIGUSR2'); // the task ends 100 ms from now
    const done = await c.until(t.key, (s) => s.outcome !== undefined || s.status === 'lost', 'the task to end');
    assert.equal(done.status, 'completed', done.note);
    assert.equal(fs.readFileSync(spawnLog, 'utf8').trim().split('\n').length, 1, 'one process all along');
    assert.deepEqual(c.servers.errors, []);
  });

  /** A folder's mcp.json with one stdio server that needs the input "key" (logs its spawns). */
  const withInput = (spawnLog: string) =>
    parseMcpJson(
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'key', description: 'Key', password: true }],
        servers: { lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', spawnLog, '--token', '${input:key}'] } },
      }),
      { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') },
    );

  it('a chat request cancelled while its server connects (its input is asked) stops waiting at once, for listing tools, starting a task and cancelling one; the connection goes on for the view, which shares it', async () => {
    const peer: Peer = await startPeer([taskLab, 'http', '--require', 'x-key=the-key']);
    try {
      let answer!: (v: string) => void;
      let c!: Client;
      const asked = new Promise<void>((ready) => {
        const config = parseMcpJson(
          JSON.stringify({
            inputs: [{ type: 'promptString', id: 'key', description: 'Key', password: true }],
            servers: { remote: { type: 'http', url: `http://127.0.0.1:${peer.port}/mcp`, headers: { 'x-key': '${input:key}' } } },
          }),
          { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') },
        );
        c = open({ config, promptInput: () => (ready(), new Promise<string>((r) => (answer = r))) });
      });
      const id = c.id('remote');
      const service = new TasksService({ engine: c.engine, servers: c.servers, logger: c.log });
      const at = new Date().toISOString();
      c.engine.restore([{ key: taskKey(id, 't-1'), serverId: id, taskId: 't-1', kind: 'task', toolName: 'work', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'chat' }]);
      const shared = c.servers.getSession(id); // the view's Connect
      await asked;
      const chat = new AbortController();
      const settled: string[] = [];
      const calls = {
        tools: service.tools(id, chat.signal),
        start: service.start(id, 'work', { origin: 'chat', preference: 'task', signal: chat.signal }),
        cancel: service.cancel(taskKey(id, 't-1'), chat.signal),
      };
      for (const [name, p] of Object.entries(calls)) p.then(() => settled.push(`${name}: answered`), (e: Error) => settled.push(`${name}: ${e.message}`));
      chat.abort(new Error('the chat request was cancelled'));
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(settled.sort(), ['cancel: the chat request was cancelled', 'start: the chat request was cancelled', 'tools: the chat request was cancelled'], 'each answered before the input is given');
      answer('the-key');
      await shared;
      assert.equal(c.servers.get(id)?.state.kind, 'connected', 'the connection went on');
      service.dispose();
    } finally {
      await peer.stop();
    }
  });

  /** The user's Disconnect ended the connection: commands end quietly (isDismissal), background work does not retry as for a failure. */
  const endedByUser = (err: unknown) => isInputDismissed(err) && err instanceof Error && err.message === 'Connection to "lab" was cancelled';

  it('a server disconnected while its input is asked: the prompt is told to close, the connection ends as the user\'s choice (no error to show), and a value given anyway starts nothing', async () => {
    const spawnLog = path.join(dir, 'spawns');
    let answer!: (v: string) => void;
    let asked: AbortSignal | undefined;
    let prompts = 0;
    const c = open({ config: withInput(spawnLog), promptInput: (_input, signal) => (prompts++, (asked = signal), new Promise<string>((r) => (answer = r))) });
    const connecting = c.servers.getSession(c.id('lab'));
    await waitFor(() => prompts === 1, 'the input to be asked');
    await c.servers.disconnect(c.id('lab'));
    assert.equal(asked?.aborted, true, 'the prompt is told to close');
    answer('typed-after-disconnect'); // a prompt that stayed up anyway
    await assert.rejects(connecting, endedByUser);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(fs.existsSync(spawnLog), false, 'no process was started');
    assert.equal(c.servers.get(c.id('lab'))?.state.kind, 'idle');
    // What would have shown a start: the user's Connect starts one, which the spawn log has; a late
    // start of the cancelled connection would be there too by then.
    const connect = c.servers.getSession(c.id('lab'));
    await waitFor(() => prompts === 2, 'the input asked again');
    answer('typed-for-connect');
    await connect;
    assert.equal(fs.readFileSync(spawnLog, 'utf8').trim().split('\n').length, 1, "one start, the Connect's");
  });

  it('a server removed while its input is asked no longer waits for it: the prompt is told to close (its signal aborts), and nothing starts', async () => {
    const spawnLog = path.join(dir, 'spawns');
    let asked: AbortSignal | undefined;
    let prompts = 0;
    const c = open({ config: withInput(spawnLog), promptInput: (_input, signal) => (prompts++, (asked = signal), new Promise<undefined>((r) => signal?.addEventListener('abort', () => r(undefined)))) });
    const connecting = c.servers.getSession(c.id('lab'));
    await waitFor(() => prompts === 1, 'the input to be asked');
    c.servers.setConfiguration([], []);
    assert.equal(asked?.aborted, true, 'the prompt is told to close');
    // Not the user's Disconnect: a call that needed the server fails, saying why.
    await assert.rejects(connecting, (err: unknown) => !isInputDismissed(err) && err instanceof Error && err.message === 'Connection to "lab" was cancelled: the server is no longer in the configuration.');
    assert.equal(fs.existsSync(spawnLog), false, 'no process was started');
  });

  it('a server whose configuration is edited while a call waits for its connection: the call goes on with a connection under the new configuration (not "Connection to "lab" was cancelled")', async () => {
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    const lab = (spawnLog: string) => parseSettingServers({ lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', spawnLog] } }).servers;
    const c = open({});
    c.servers.setConfiguration(lab(a), []);
    const connecting = c.servers.getSession(c.id('lab'));
    c.servers.setConfiguration(lab(b), []);
    const session = await connecting;
    assert.equal(session, c.servers.peekSession(c.id('lab')), 'the connection of the new configuration');
    assert.deepEqual([fs.existsSync(a), fs.readFileSync(b, 'utf8').trim().split('\n').length], [false, 1], 'one process, of the new configuration');
  });

  it('a server whose configuration is edited while it starts and does not answer: the waiting call goes on with the new configuration as soon as it connects, not when the old start times out, and the old process is ended', async () => {
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    // Answers nothing: its initialize waits out the timeout (10 minutes here).
    const mute = parseSettingServers({ lab: { type: 'stdio', command: process.execPath, args: ['-e', `require('fs').writeFileSync(${JSON.stringify(a)}, String(process.pid)); setInterval(() => {}, 1000)`] } }).servers;
    const c = open({ manager: { sessionOptions: { initializeTimeoutMs: 600_000 } } });
    c.servers.setConfiguration(mute, []);
    const id = c.id('lab');
    const connecting = c.servers.getSession(id);
    await waitFor(() => fs.existsSync(a), 'the silent process to start');
    c.servers.setConfiguration(parseSettingServers({ lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--spawn-log', b] } }).servers, []);
    assert.equal(await connecting, c.servers.peekSession(id), 'the connection of the new configuration');
    await waitFor(() => !alive(Number(fs.readFileSync(a, 'utf8'))), 'the silent process to end');
  });

  it('a server whose configuration is edited while its input is asked: the old prompt is told to close, the new configuration asks, and the waiting call goes on with it; a Disconnect then ends it as the user\'s choice', async () => {
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    const signals: AbortSignal[] = [];
    const answers: ((v: string | undefined) => void)[] = [];
    const c = open({
      config: withInput(a),
      // Up to the fourth, a prompt waits; a fifth (a connection after the last Disconnect) is answered at once.
      promptInput: (_input, signal) => (signals.push(signal!) > 4 ? Promise.resolve('the-key') : new Promise((r) => (answers.push(r), signal?.addEventListener('abort', () => r(undefined))))),
    });
    const id = c.id('lab');
    const connecting = c.servers.getSession(id);
    await waitFor(() => signals.length === 1, 'the input to be asked');
    c.servers.setConfiguration(withInput(b).servers, []);
    await waitFor(() => signals.length === 2, 'the input asked for the new configuration');
    for (const answer of answers) answer('the-key'); // a prompt still up
    const session = await connecting;
    assert.equal(signals[0].aborted, true, 'the prompt for the old configuration is told to close');
    assert.equal(session, c.servers.peekSession(id));
    assert.deepEqual([fs.existsSync(a), fs.readFileSync(b, 'utf8').trim().split('\n').length], [false, 1], 'one process, of the new configuration');
    // Edited, then disconnected by the user: the waiting call does not connect it again.
    await c.servers.disconnect(id);
    const again = c.servers.getSession(id);
    await waitFor(() => signals.length === 3, 'the input asked again');
    c.servers.setConfiguration(withInput(a).servers, []);
    await waitFor(() => signals.length === 4, 'the input asked for the configuration edited back');
    await c.servers.disconnect(id);
    await assert.rejects(again, endedByUser);
    assert.equal(c.servers.get(id)?.state.kind, 'idle');
    assert.equal(fs.existsSync(a), false, 'nothing was started');
  });

  it('a quiet connection (an agent listing every server\'s tools) whose configuration is edited reconnects quietly: nothing is asked that nobody asked for; a user\'s call that waited for it is asked', async () => {
    const [a, b] = [path.join(dir, 'a'), path.join(dir, 'b')];
    let prompts = 0;
    const lookups: ((v: undefined) => void)[] = []; // a saved value looked up: none, once told
    const c = open({ config: withInput(a), promptInput: async () => (prompts++, 'the-key'), manager: { savedInput: () => new Promise((r) => lookups.push(r)) } });
    const id = c.id('lab');
    const edited = async (config: ReturnType<typeof withInput>, calls: Promise<unknown>[]) => {
      await waitFor(() => lookups.length === 1, 'the saved value to be looked up');
      c.servers.setConfiguration(config.servers, []);
      await waitFor(() => lookups.length + prompts === 2, 'the new configuration to connect');
      for (const told of lookups.splice(0)) told(undefined);
      return Promise.allSettled(calls);
    };
    const [quiet] = await edited(withInput(b), [c.servers.getSession(id, { quiet: true })]);
    assert.ok(quiet.status === 'rejected' && quiet.reason instanceof NeedsInputError, `the quiet call stops at the input, not ${quiet.status} after a prompt`);
    assert.deepEqual([prompts, c.servers.get(id)?.state.kind], [0, 'idle'], 'nothing asked');
    // A user's call that waits for a quiet connection is asked, edited or not.
    const [, user] = await edited(withInput(a), [c.servers.getSession(id, { quiet: true }), c.servers.getSession(id)]);
    assert.equal(user.status, 'fulfilled');
    assert.deepEqual([prompts, fs.existsSync(b), fs.existsSync(a)], [1, false, true]);
  });

  it('an input the user dismissed is not asked again by background work, only by the user\'s next action; nor is a server the user disconnected connected again by it', async () => {
    let prompts = 0;
    const c = open({ config: withInput(path.join(dir, 'spawns')), promptInput: async () => (prompts++ === 0 ? undefined : 'the-key') });
    const id = c.id('lab');
    await assert.rejects(c.servers.getSession(id), /No value was given for input "key"\. Connect the server to be asked again\.$/);
    assert.equal(c.servers.get(id)?.state.kind, 'idle', 'a dismissal is no error');
    // Following tasks (the engine's polls) does not bring the prompt back: a dismissal, as the user's was.
    await assert.rejects(c.servers.getSession(id, { background: true }), (err: unknown) => isInputDismissed(err) && /Connect the server to be asked again\.$/.test((err as Error).message));
    await assert.rejects(c.servers.getSession(id, { background: true }), /Connect the server to be asked again/);
    assert.equal(prompts, 1);
    // Nor does a quiet connection (an agent listing tools), which asks nothing and so clears nothing.
    await assert.rejects(c.servers.getSession(id, { quiet: true }), NeedsInputError);
    await assert.rejects(c.servers.getSession(id, { background: true }), /Connect the server to be asked again/);
    assert.equal(prompts, 1);
    // The user's own action does.
    await c.servers.getSession(id);
    assert.equal(prompts, 2);
    assert.equal(c.servers.get(id)?.state.kind, 'connected');
    // Disconnected by the user: held, as the user chose, but no dismissed input (nothing was asked).
    await c.servers.disconnect(id);
    await assert.rejects(c.servers.getSession(id, { background: true }), (err: unknown) => err instanceof HeldByUserError && !isInputDismissed(err) && err.message === 'Server "lab" was disconnected by the user: connect it to follow its tasks again.');
    assert.equal(c.servers.get(id)?.state.kind, 'idle');
  });

  it('a quiet connection (listing every server\'s tools for an agent) asks nothing: it stops at an input with no saved value, and a user\'s connection then asks', async () => {
    const spawnLog = path.join(dir, 'spawns');
    let prompts = 0;
    const saved: { value?: string } = {};
    const c = open({ config: withInput(spawnLog), promptInput: async () => (prompts++, 'the-key'), manager: { savedInput: async () => saved.value } });
    const id = c.id('lab');
    // A user's action that starts while a quiet connection is under way is asked, not refused.
    const quiet = c.servers.getSession(id, { quiet: true });
    const user = c.servers.getSession(id);
    await assert.rejects(quiet, (err: unknown) => err instanceof NeedsInputError && err.input === 'key' && /^Server "lab" is not connected: it needs input "key"/.test(err.message));
    await user;
    assert.equal(prompts, 1);
    await c.servers.disconnect(id);
    await assert.rejects(c.servers.getSession(id, { quiet: true }), NeedsInputError);
    assert.equal(c.servers.get(id)?.state.kind, 'idle', 'not an error: nobody was asked');
    assert.equal(prompts, 1, 'nothing asked');
    assert.equal(c.log instanceof MemoryLogger && c.log.lines.some((l) => l.level === 'error'), false, 'nothing logged as an error');
    // With the value saved (a password typed before), the quiet connection connects.
    saved.value = 'the-key';
    await c.servers.getSession(id, { quiet: true });
    assert.equal(c.servers.get(id)?.state.kind, 'connected');
    assert.equal(prompts, 1);
  });

  it('following a restored task does not bring back an input the user dismissed, however often it polls (the client as the extension wires it)', async function () {
    this.timeout(30_000);
    const peer: Peer = await startPeer([taskLab, 'http', '--require', 'x-key=the-key']);
    try {
      let prompts = 0;
      const config = parseMcpJson(
        JSON.stringify({
          inputs: [{ type: 'promptString', id: 'key', description: 'Key', password: true }],
          servers: { remote: { type: 'http', url: `http://127.0.0.1:${peer.port}/mcp`, headers: { 'x-key': '${input:key}' } } },
        }),
        { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') },
      );
      const client = open({ config, promptInput: async () => void prompts++ });
      const id = client.id('remote');
      const at = new Date().toISOString();
      client.engine.restore([{ key: `${id}\u0000t-1`, serverId: id, taskId: 't-1', kind: 'task', toolName: 'work', status: 'working', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user' }]);
      // The engine's polls back off 1 s, 2 s, 4 s...: three tries, each told (the first at info level, the others at debug).
      const log = client.log as MemoryLogger;
      const tries = () => log.lines.filter((l) => /^\[remote\] Not following its tasks: .*Connect the server to be asked again\.$/.test(l.message)).length;
      await waitFor(() => tries() >= 3, 'three polls refused a session', 20_000);
      assert.equal(prompts, 1, 'asked once, when the first poll needed the server');
      await assert.rejects(client.servers.getSession(id, { background: true }), /Connect the server to be asked again/);
    } finally {
      await peer.stop();
    }
  });
});

describe('reliability: the advice for a refused or misdirected remote server fits where it is configured', function () {
  this.timeout(30_000);
  const { open } = clientsAndPeersForEachTest();
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      if (req.url?.startsWith('/page/')) res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Sign in</title>');
      else res.writeHead(401, { 'content-type': 'text/plain' }).end('Unauthorized');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** What connecting to each server of the configuration `c` says. */
  const said = async (c: Client) => Object.fromEntries(await Promise.all(c.servers.list().map(async (s) => [s.name, await c.servers.getSession(s.id).then(() => 'connected', (err: Error) => err.message)])));

  it('a server of mcpTasks.servers (which allow no ${input:…}) is told to use ${env:…} and promised no input asked again; one of an mcp.json still gets ${input:token}', async () => {
    const servers = {
      open: { type: 'http', url: `${base}/mcp` },
      token: { type: 'http', url: `${base}/mcp`, headers: { Authorization: 'Bearer wrong' } },
      legacy: { type: 'sse', url: `${base}/sse` },
      legacyToken: { type: 'sse', url: `${base}/sse`, headers: { Authorization: 'Bearer wrong' } },
      page: { type: 'http', url: `${base}/page/mcp` },
      legacyPage: { type: 'sse', url: `${base}/page/sse` },
    };
    const env = 'e.g. "Authorization": "Bearer ${env:MCP_TOKEN}"';
    const fromSettings = await said(open({ servers }));
    for (const name of ['open', 'legacy', 'page', 'legacyPage']) assert.ok(fromSettings[name].replace(/\.$/, '').endsWith(env), `${name}: ${fromSettings[name]}`);
    for (const name of ['token', 'legacyToken']) assert.match(fromSettings[name], /The token sent in its "Authorization" header was refused: check it\.$/, name);
    const dir = os.tmpdir();
    const fromFile = await said(open({ config: parseMcpJson(JSON.stringify({ servers }), { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') }) }));
    for (const name of ['open', 'legacy', 'page', 'legacyPage']) assert.match(fromFile[name], /e\.g\. "Authorization": "Bearer \$\{input:token\}"\.?$/, `${name}: ${fromFile[name]}`);
    for (const name of ['token', 'legacyToken']) assert.match(fromFile[name], /check it \(a saved \$\{input:…\} value is asked again on the next connect\)\.$/, name);
  });
});
