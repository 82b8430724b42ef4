// An answer the server does not take (its POSTs refused: a frozen or failing server) is not
// dropped unseen: after its tries, one warning names the server and the task, with Send Again,
// and the task no longer counts as waiting for you. server-everything over Streamable HTTP,
// behind a proxy of the test that refuses the POSTs of answers while told to.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, removeSettingServers, testingApi, waitFor } from './helpers';
import { QuickInputSpy, choose, recordToasts } from './quickInputs';
import { publicApi } from './taskApiHelpers';

const EVERYTHING = path.resolve(__dirname, '..', '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');

suite('An answer the server does not take', () => {
  test('is tried again, then told once with Send Again, which delivers it; meanwhile the task is not "waiting for you"', async function () {
    this.timeout(90_000);
    const testing = testingApi(await activateExtension());
    const api = await publicApi();
    const port = 38000 + Math.floor(Math.random() * 2000);
    const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
    let refuse = false;
    let refused = 0;
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (refuse && req.method === 'POST' && /"result"/.test(body.toString()) && !/"method"/.test(body.toString())) {
          refused++;
          res.writeHead(503).end('busy');
          return;
        }
        const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.writeHead(502).end());
        up.end(body);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const spy = new QuickInputSpy();
    // The button the user clicks: chosen by the test, once it has seen what comes before.
    const toasts = recordToasts('showWarningMessage');
    const { told: warnings, choices } = toasts;
    const settings = vscode.workspace.getConfiguration('mcpTasks');
    try {
      await waitFor(() => new Promise((r) => http.get(`http://127.0.0.1:${port}/mcp`, (res) => (res.resume(), r(true))).on('error', () => r(false))), 'server-everything to listen', 20_000);
      await settings.update('servers', { 'demo-http': { type: 'http', url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp` } }, vscode.ConfigurationTarget.Global);
      const server = await waitFor(() => api.getServers().find((s) => s.label === 'demo-http'), 'the server');
      spy.skipShown();
      const task = await api.runTool(server.id, 'simulate-research-query', { arguments: { topic: 'python', ambiguous: true } });
      const question = await spy.next('the question', 30_000);
      await choose(question, (i) => i.label === 'Python snake species', 'the snake interpretation');
      refuse = true;
      await choose(await spy.next('the review step'), (i) => i.label.endsWith('Accept'), 'Accept');
      await waitFor(() => warnings.length > 0, 'the warning', 30_000);
      assert.equal(refused, 4, 'the first try and three more');
      assert.deepEqual(warnings, [[`The answer to the question of "simulate-research-query" on demo-http was not sent: ${warnings[0][0].split('was not sent: ')[1]}`, ['Send Again', 'Show Log']]]);
      assert.match(warnings[0][0], /503/);
      assert.equal(api.getTask(task.id)?.status, 'input_required', 'the server still waits');
      await waitFor(() => testing.indicators?.().badge === undefined && !/waiting/.test(testing.indicators?.().tooltip ?? ''), 'nothing counted as waiting for you');
      // Send Again, the server taking answers again: it gets the kept answer, and the task completes.
      refuse = false;
      choices[0]('Send Again');
      const done = await api.getResult(task.id, { waitSeconds: 30 });
      assert.equal(done.task.status, 'completed');
      assert.equal(warnings.length, 1, 'no second warning');
    } finally {
      toasts.dispose();
      spy.dispose();
      await removeSettingServers();
      proxy.close();
      child.kill();
    }
  });
});
