// Issue 8, secrets: no credential reaches the log, at any level, whatever path it takes: a static
// Authorization header, an `${input:token}` password input used in a header, in a stdio server's
// arguments and environment, a server that refuses them (401, with an error page that repeats
// them), a header value the HTTP stack rejects, and full trace logging of the traffic. Also credentials in a
// server URL (`?access_token=…`, user info).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpJson } from '../../../src/core/config/parse';
import { urlSecrets } from '../../../src/core/servers/serverManager';
import { MAX_LOG_LINE, logLine } from '../../../src/core/util/log';
import type { InputDef } from '../../../src/core/config/types';
import { MemoryLogger } from '../helpers/logger';
import { clientsAndPeersForEachTest, startPeer, taskLab } from './support';

const STATIC_SECRET = 's3cr3t-token';
const INPUT_SECRET = 'an0ther-s3cret';

describe('reliability: secrets never reach the log', function () {
  this.timeout(60_000);
  const { open, peers } = clientsAndPeersForEachTest();
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-secrets-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a static Authorization header and a password input, through trace logging, a 401, a bad header value and a stdio command line', async () => {
    const [good, refusing] = await Promise.all([
      startPeer([taskLab, 'http', '--poll-interval', '100', '--require', `authorization=Bearer ${STATIC_SECRET}`, '--require', `x-workspace-key=${INPUT_SECRET}`]),
      startPeer([taskLab, 'http', '--require', 'authorization=Bearer something-else']),
    ]);
    peers.push(good, refusing);
    const headers = { Authorization: `Bearer ${STATIC_SECRET}`, 'X-Workspace-Key': '${input:token}' };
    const mcpJson = {
      inputs: [
        { type: 'promptString', id: 'token', description: 'Workspace key', password: true },
        { type: 'promptString', id: 'tenant', description: 'Tenant' },
      ],
      servers: {
        good: { type: 'http', url: `http://127.0.0.1:${good.port}/mcp`, headers },
        refusing: { type: 'http', url: `http://127.0.0.1:${refusing.port}/mcp`, headers: { ...headers, 'X-Tenant': '${input:tenant}' } },
        broken: { type: 'http', url: `http://127.0.0.1:${good.port}/mcp`, headers: { Authorization: `Bearer ${STATIC_SECRET}\u0000` } },
        local: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--poll-interval', '100', '--token', '${input:token}'], env: { LAB_TOKEN: '${input:token}' } },
      },
    };
    const config = parseMcpJson(JSON.stringify(mcpJson), { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') });
    assert.deepEqual(config.errors, []);
    const prompted: InputDef[] = [];
    const forgotten: string[] = [];
    const log = new MemoryLogger();
    const c = open({
      config,
      logger: log,
      promptInput: async (input) => {
        prompted.push(input);
        return input.id === 'tenant' ? 'acme' : INPUT_SECRET;
      },
      manager: { forgetInput: (input, server) => forgotten.push(`${server.name}: ${input.id}`) },
    });

    // Refused with 401 (its error page repeats the headers it got).
    const refused = await c.servers.getSession(c.id('refusing')).then(() => '', (err: Error) => err.message);
    assert.match(refused, /refused the request \(HTTP 401/);
    // Its words are quoted, with the values it repeats redacted.
    assert.match(refused, /: ".*<redacted>.*"\. The token sent in its "Authorization" header was refused/);
    // The values it used are forgotten, the plain one too (a key typed as plain text, a wrong
    // tenant), to be asked again at the next connection.
    assert.deepEqual(forgotten, ['refusing: token', 'refusing: tenant']);
    assert.ok(log.has('info', /\[refusing\] Forgot the saved value of input "token", input "tenant": the next connection asks for it again$/), log.text());
    // A header value the HTTP stack rejects.
    const broken = await c.servers.getSession(c.id('broken')).then(() => '', (err: Error) => err.message);
    assert.match(broken, /invalid "headers"/);
    // Accepted: a task runs to its result, every message traced.
    for (const name of ['good', 'local']) {
      const id = c.id(name);
      const t = await c.engine.callTool(id, 'work', { arguments: { tag: name, durationMs: 200 } });
      const done = await c.until(t.key, (s) => s.outcome !== undefined, `the task on ${name}`);
      assert.equal(done.status, 'completed');
      await c.engine.refreshList(id);
    }
    const tokens = prompted.filter((i) => i.id === 'token');
    assert.ok(tokens.length >= 2 && tokens.every((i) => i.type === 'promptString' && i.password));
    assert.ok(log.lines.filter((l) => l.level === 'trace').length > 20, 'traffic was traced');
    assert.ok(log.has('trace', /POST .*"authorization":"<redacted>"/), 'the header is there, redacted');

    const everything = [
      ...log.lines.map((l) => `${l.level}: ${l.message}`),
      refused,
      broken,
      ...c.servers.list().map((s) => JSON.stringify(s.state)),
    ];
    for (const secret of [STATIC_SECRET, INPUT_SECRET]) {
      const leaks = everything.filter((l) => l.includes(secret));
      assert.deepEqual(leaks.map((l) => l.slice(0, 300)), [], `"${secret}" reached the log`);
    }
  });
});

describe('reliability: what a command input returns never reaches the log', function () {
  this.timeout(60_000);
  const { open } = clientsAndPeersForEachTest();

  it('on a stdio command line it is redacted, as a password input is (a command input is how an extension hands over a token)', async () => {
    const token = 'gh0-from-a-command';
    const mcpJson = {
      inputs: [{ type: 'command', id: 'tok', command: 'ext.getToken' }],
      servers: { lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--token', '${input:tok}'] } },
    };
    const config = parseMcpJson(JSON.stringify(mcpJson), { kind: 'workspaceFolder', folderName: 'app', folderPath: os.tmpdir(), file: path.join(os.tmpdir(), '.vscode/mcp.json') });
    assert.deepEqual(config.errors, []);
    const log = new MemoryLogger();
    const c = open({ config, logger: log, promptInput: async () => token });
    await c.servers.getSession(c.id('lab'));
    assert.ok(!log.text().includes(token), log.text());
    assert.ok(log.has('info', /Connecting \(stdio: .* --token <redacted>\)/), log.text());
  });
});

describe('reliability: credentials in a server URL never reach the log', function () {
  this.timeout(60_000);
  const URL_SECRET = 'qu3ry-s3cret-value';
  const { open, peers } = clientsAndPeersForEachTest();

  it('the value of an ${env:…} variable with a secret name, on a stdio command line, is redacted; one with a plain name is not', async () => {
    const key = 'sk-live-0123456789abcdef';
    process.env.MCP_TASKS_TEST_API_KEY = key;
    process.env.MCP_TASKS_TEST_REGION = 'eu-west-7';
    try {
      const log = new MemoryLogger();
      const client = open({
        logger: log,
        servers: { lab: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--token', '--api-key=${env:MCP_TASKS_TEST_API_KEY}', '--token', '${env:MCP_TASKS_TEST_REGION}'] } },
      });
      await client.servers.getSession(client.id('lab'));
      assert.ok(!log.text().includes(key), log.text());
      assert.ok(log.has('info', /Connecting \(stdio: .* --api-key=<redacted> --token eu-west-7\)/), log.text());
    } finally {
      delete process.env.MCP_TASKS_TEST_API_KEY;
      delete process.env.MCP_TASKS_TEST_REGION;
    }
  });

  it('urlSecrets finds user info and credential-named query values, and leaves the rest readable', () => {
    assert.deepEqual(urlSecrets('https://me:p%40ss@host/mcp?api_key=abc123&version=2&sig=x%2Fy'), ['me', 'me', 'p%40ss', 'p@ss', 'abc123', 'abc123', 'x/y', 'x%2Fy']);
    assert.deepEqual(urlSecrets('http://127.0.0.1:3000/mcp?version=2&mode=fast'), []);
    assert.deepEqual(urlSecrets('not a url'), []);
  });

  it('an ?access_token= in the URL of an HTTP server is redacted in traces, errors and the server state', async () => {
    const peer = await startPeer([taskLab, 'http', '--poll-interval', '100']);
    peers.push(peer);
    const dir = os.tmpdir();
    const mcpJson = {
      servers: {
        tokened: { type: 'http', url: `http://127.0.0.1:${peer.port}/mcp?access_token=${URL_SECRET}&version=2` },
        // Nothing listens on port 9 here: the connection error names the URL.
        gone: { type: 'http', url: `http://127.0.0.1:9/mcp?access_token=${URL_SECRET}` },
      },
    };
    const config = parseMcpJson(JSON.stringify(mcpJson), { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') });
    assert.deepEqual(config.errors, []);
    const log = new MemoryLogger();
    const c = open({ config, logger: log });
    const gone = await c.servers.getSession(c.id('gone')).then(() => '', (err: Error) => err.message);
    assert.match(gone, /Could not reach server "gone" at .*access_token=<redacted>/);
    const t = await c.engine.callTool(c.id('tokened'), 'work', { arguments: { tag: 'url', durationMs: 100 } });
    assert.equal((await c.until(t.key, (s) => s.outcome !== undefined, 'the task')).status, 'completed');
    assert.ok(log.has('trace', /POST http:\/\/127\.0\.0\.1:\d+\/mcp\?access_token=<redacted>&version=2 /), 'traffic is traced with the URL, redacted');
    const everything = [...log.lines.map((l) => l.message), gone, ...c.servers.list().map((s) => JSON.stringify(s.state))];
    assert.deepEqual(everything.filter((l) => l.includes(URL_SECRET)).map((l) => l.slice(0, 300)), [], 'the URL credential reached the log');
  });
});

describe('reliability: the length of log lines', () => {
  it('a line longer than the log keeps (a server\'s megabyte-long task id) is cut, and says how much was left out', () => {
    const id = 'x'.repeat(1_000_000);
    const full = `[hostile] Task ${id}: working → completed`;
    const line = logLine(full);
    assert.equal(line, `${full.slice(0, MAX_LOG_LINE)}… (${full.length - MAX_LOG_LINE} more chars)`);
    assert.ok(line.length < MAX_LOG_LINE + 30, `${line.length} characters`);
    assert.equal(logLine('[demo] Task 7: working → completed'), '[demo] Task 7: working → completed', 'a usual line is kept whole');
  });

  it('a server\'s text cannot write a line that reads as the log\'s own: the lines after the first are indented', () => {
    const forged = 'server log: done\n2026-12-06 10:39:05.637 [info] [other] Connected\r\nlast\rx';
    assert.equal(logLine(forged), 'server log: done\n  2026-12-06 10:39:05.637 [info] [other] Connected\n  last\n  x');
  });
});
