// The server list of ServerManager (labels of servers not configured, the order servers are listed
// in), and what a server that fails to start is said to have done.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { combineConfigs, parseMcpJson, parseSettingServers } from '../../../src/core/config/parse';
import type { ServerManager } from '../../../src/core/servers/serverManager';
import { MemoryLogger, waitFor } from '../helpers/logger';
import { bareServerManager } from '../helpers/servers';

describe('ServerManager: the list of servers', () => {
  const made: ServerManager[] = [];
  const manager = () => {
    const m = bareServerManager();
    made.push(m);
    return m;
  };
  afterEach(() => {
    for (const m of made.splice(0)) m.dispose();
  });

  it('a server not configured (yet, or any more) is named by the name in its id, not by its id (notifications and the log say "on everything")', () => {
    const servers = manager();
    assert.equal(servers.label('folder:/work/project:everything'), 'everything');
    assert.equal(servers.label('settings:old-http'), 'old-http');
    servers.setConfiguration(parseSettingServers({ kept: { type: 'http', url: 'http://127.0.0.1:9/mcp' } }).servers, []);
    assert.equal(servers.label('settings:kept'), 'kept');
    assert.equal(servers.label('settings:old-http'), 'old-http');
  });

  it('a server removed from the configuration keeps its last label, which told it from a same-named server of another folder (its lost tasks are "on demo (b)", not "on demo")', () => {
    const servers = manager();
    const folder = (name: string) => parseMcpJson('{ "servers": { "demo": { "command": "node" } } }', { kind: 'workspaceFolder', folderName: name, folderPath: `/work/${name}`, file: `/work/${name}/.vscode/mcp.json` });
    servers.setConfiguration(combineConfigs([folder('a'), folder('b')]).servers, []);
    assert.equal(servers.label('folder:/work/b:demo'), 'demo (b)');
    servers.setConfiguration(combineConfigs([folder('a')]).servers, []);
    assert.deepEqual([servers.label('folder:/work/a:demo'), servers.label('folder:/work/b:demo')], ['demo', 'demo (b)']);
  });

  it('a running connection logs under its current label: once a same-named server of another folder makes it "demo (a)", its lines say "[demo (a)]", not the "[demo]" it connected as', async () => {
    const log = new MemoryLogger();
    const servers = bareServerManager({ logger: log });
    made.push(servers);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-label-'));
    const spawns = path.join(dir, 'spawns');
    const lab = path.resolve(__dirname, '../../../../test/fixtures/servers/task-lab.mjs');
    const folder = (name: string) => {
      fs.mkdirSync(path.join(dir, name), { recursive: true });
      const servers = { demo: { command: process.execPath, args: [lab, 'stdio', '--spawn-log', spawns] } };
      return parseMcpJson(JSON.stringify({ servers }), { kind: 'workspaceFolder', folderName: name, folderPath: path.join(dir, name), file: path.join(dir, name, '.vscode/mcp.json') });
    };
    try {
      servers.setConfiguration(combineConfigs([folder('a')]).servers, []);
      const id = servers.list()[0].id;
      await servers.getSession(id);
      servers.setConfiguration(combineConfigs([folder('a'), folder('b')]).servers, []);
      assert.equal(servers.label(id), 'demo (a)');
      process.kill(Number(fs.readFileSync(spawns, 'utf8').split(' ')[0]));
      await waitFor(() => /Connection closed/.test(log.text()), 'its connection to close');
      assert.match(log.text(), /^warn: \[demo \(a\)\] Connection closed/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a configuration error is logged once, not again on each reload that finds it (a save fires several file events); fixed and back, it is logged again', () => {
    const log = new MemoryLogger();
    const servers = bareServerManager({ logger: log });
    made.push(servers);
    const broken = parseSettingServers({ pigeon: { type: 'carrier-pigeon' } });
    const fixed = parseSettingServers({ pigeon: { type: 'http', url: 'http://127.0.0.1:9/mcp' } });
    const logged = () => log.lines.filter((l) => l.level === 'error' && /carrier-pigeon/.test(l.message)).length;
    servers.setConfiguration(broken.servers, broken.errors);
    servers.setConfiguration(broken.servers, broken.errors);
    servers.setConfiguration(broken.servers, broken.errors);
    assert.equal(logged(), 1, log.text());
    assert.equal(servers.errors.length, 1, 'the view still shows it');
    servers.setConfiguration(fixed.servers, fixed.errors);
    servers.setConfiguration(broken.servers, broken.errors);
    assert.equal(logged(), 2, 'broken again after a fix: logged again');
  });

  it('servers are listed in the order of the configuration, also after one is removed and added back, or the file is reordered', () => {
    const servers = manager();
    const config = (...names: string[]) => parseSettingServers(Object.fromEntries(names.map((n) => [n, { type: 'http', url: `http://127.0.0.1:9/${n}` }]))).servers;
    const listed = () => servers.list().map((s) => s.label);
    servers.setConfiguration(config('everything', 'demo', 'picky'), []);
    assert.deepEqual(listed(), ['everything', 'demo', 'picky']);
    servers.setConfiguration(config('everything', 'picky'), []);
    servers.setConfiguration(config('everything', 'demo', 'picky'), []);
    assert.deepEqual(listed(), ['everything', 'demo', 'picky'], 'demo back in its place');
    servers.setConfiguration(config('picky', 'everything', 'demo'), []);
    assert.deepEqual(listed(), ['picky', 'everything', 'demo'], 'as the file now orders them');
  });
});

describe('ServerManager: a server that fails to start', () => {
  it('a server that refuses initialize with an empty error message: its state, and the wait before it is tried again, name the code (the server gave no reason)', async () => {
    const servers = bareServerManager();
    const fixture = path.resolve(__dirname, '../../../../test/fixtures/servers/stdio-misbehave.mjs');
    servers.setConfiguration(parseSettingServers({ silent: { type: 'stdio', command: process.execPath, args: [fixture, 'silent-error'] } }).servers, []);
    const reason = 'the server gave no reason (error -32603)';
    try {
      await assert.rejects(servers.getSession('settings:silent'), { message: reason });
      assert.deepEqual(servers.get('settings:silent')?.state, { kind: 'error', message: reason });
      // At once: within the second it waits before it is tried again.
      await assert.rejects(servers.getSession('settings:silent'), { message: `Server "silent" failed: ${reason}. It will not be tried again for 1 s. Restart it to try now.` });
    } finally {
      servers.dispose();
    }
  });

  it('a connection that fails with a DOMException (its message a getter, which strict code cannot set) still says the ${env:…} it used is empty, and keeps the error\'s kind', async () => {
    const aborted = new DOMException('The operation was aborted', 'TimeoutError');
    const servers = bareServerManager({ createTransport: () => ({ description: 'a fake', start: () => Promise.reject(aborted), send: async () => undefined, close: async () => undefined }) });
    servers.setConfiguration(parseSettingServers({ aborts: { type: 'stdio', command: process.execPath, args: ['${env:MCP_TASKS_TEST_UNSET}'] } }).servers, []);
    const reason = 'The operation was aborted. ${env:MCP_TASKS_TEST_UNSET} is empty: MCP_TASKS_TEST_UNSET is not set where the editor was started.';
    try {
      await assert.rejects(servers.getSession('settings:aborts'), (err: Error) => (assert.equal(err.message, reason), assert.equal(err.name, 'TimeoutError'), true));
      assert.deepEqual(servers.get('settings:aborts')?.state, { kind: 'error', message: reason });
    } finally {
      servers.dispose();
    }
  });
});
