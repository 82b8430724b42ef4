// Issue 8, secrets: no credential reaches the log, at any level, whatever path it takes: a static
// Authorization header, an `${input:token}` password input used in a header, in a stdio server's
// arguments and environment, a server that refuses them (401, with an error page that repeats
// them), a header value the HTTP stack rejects, and full trace logging of the traffic.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseMcpJson } from '../../../src/core/config/parse';
import type { InputDef } from '../../../src/core/config/types';
import { MemoryLogger } from '../helpers/logger';
import type { Client, Peer } from './support';
import { openClient, startPeer, taskLab } from './support';

const STATIC_SECRET = 's3cr3t-token';
const INPUT_SECRET = 'an0ther-s3cret';

describe('reliability: secrets never reach the log', function () {
  this.timeout(60_000);
  const peers: Peer[] = [];
  let client: Client | undefined;
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-secrets-'))));
  afterEach(async () => {
    await client?.close();
    client = undefined;
    await Promise.all(peers.splice(0).map((p) => p.stop()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a static Authorization header and a password input, through trace logging, a 401, a bad header value and a stdio command line', async () => {
    const [good, refusing] = await Promise.all([
      startPeer([taskLab, 'http', '--poll-interval', '100', '--require', `authorization=Bearer ${STATIC_SECRET}`, '--require', `x-workspace-key=${INPUT_SECRET}`]),
      startPeer([taskLab, 'http', '--require', 'authorization=Bearer something-else']),
    ]);
    peers.push(good, refusing);
    const headers = { Authorization: `Bearer ${STATIC_SECRET}`, 'X-Workspace-Key': '${input:token}' };
    const mcpJson = {
      inputs: [{ type: 'promptString', id: 'token', description: 'Workspace key', password: true }],
      servers: {
        good: { type: 'http', url: `http://127.0.0.1:${good.port}/mcp`, headers },
        refusing: { type: 'http', url: `http://127.0.0.1:${refusing.port}/mcp`, headers },
        broken: { type: 'http', url: `http://127.0.0.1:${good.port}/mcp`, headers: { Authorization: `Bearer ${STATIC_SECRET}\u0000` } },
        local: { type: 'stdio', command: process.execPath, args: [taskLab, 'stdio', '--poll-interval', '100', '--token', '${input:token}'], env: { LAB_TOKEN: '${input:token}' } },
      },
    };
    const config = parseMcpJson(JSON.stringify(mcpJson), { kind: 'workspaceFolder', folderName: 'app', folderPath: dir, file: path.join(dir, '.vscode/mcp.json') });
    assert.deepEqual(config.errors, []);
    const prompted: InputDef[] = [];
    const log = new MemoryLogger();
    client = openClient({
      config,
      logger: log,
      promptInput: async (input) => {
        prompted.push(input);
        return INPUT_SECRET;
      },
    });
    const c = client;

    // Refused with 401 (its error page repeats the headers it got).
    const refused = await c.servers.getSession(c.id('refusing')).then(() => '', (err: Error) => err.message);
    assert.match(refused, /refused the request \(HTTP 401/);
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
    assert.ok(prompted.length >= 2 && prompted.every((i) => i.id === 'token' && i.password));
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
