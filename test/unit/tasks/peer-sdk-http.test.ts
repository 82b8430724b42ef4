// A question a server asks during direct calls, over Streamable HTTP, from the official SDK's
// McpServer: sent on the answer stream of one call's POST (`relatedRequestId`), it is that call's.
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import type { ServerRequestContext } from '../../../src/core/tasks/engine';
import { MemoryLogger, waitFor } from '../helpers/logger';
import type { EngineHarness } from '../helpers/peers';
import { connectEngine } from '../helpers/peers';

describe('peer: the SDK\'s McpServer over Streamable HTTP asks a question during two direct calls', function () {
  this.timeout(20_000);
  let httpServer: http.Server;
  let h: EngineHarness;
  /** Each tool waits for its gate, then asks; `loose` asks on the standalone GET stream (no relatedRequestId). */
  const gates = new Map<string, () => void>();
  const asked: Array<{ ctx: ServerRequestContext; answer: (r: Record<string, unknown>) => void }> = [];
  /** The request timeout of the calls made next (read at each request). */
  let timeoutMs = 60_000;

  before(async () => {
    const server = new McpServer({ name: 'asking', version: '1.0.0' });
    for (const name of ['a', 'b', 'loose']) {
      server.registerTool(name, { description: `asks the user, for call ${name}` }, async (extra) => {
        await new Promise<void>((resolve) => gates.set(name, resolve));
        const form = { mode: 'form' as const, message: `Question of ${name}`, requestedSchema: { type: 'object' as const, properties: {} } };
        const answer = await server.server.elicitInput(form, name === 'loose' ? { timeout: 600_000 } : { relatedRequestId: extra.requestId, timeout: 600_000 });
        return { content: [{ type: 'text', text: answer.action }] };
      });
    }
    server.registerTool('mute', { description: 'never answers' }, () => new Promise(() => undefined));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => 'one-session' });
    await server.connect(transport);
    httpServer = http.createServer((req, res) => void transport.handleRequest(req, res));
    await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
    h = await connectEngine(new StreamableHttpTransport({ url, logger: new MemoryLogger(), serverName: 'asking' }), {
      elicitation: {
        handle: (_p, ctx) => new Promise((answer, reject) => {
          asked.push({ ctx, answer });
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error));
        }),
      },
    }, { requestTimeoutMs: () => timeoutMs });
  });
  after(async () => {
    await h?.close();
    httpServer?.closeAllConnections();
    await new Promise((resolve) => httpServer?.close(resolve));
  });

  // Each test starts with no call running (a failed one could leave its calls to the next).
  afterEach(async () => {
    for (const t of h.engine.list()) if (t.status === 'working' || t.status === 'input_required') await h.engine.cancel(t.key);
  });

  const statuses = (...keys: string[]) => keys.map((k) => h.engine.get(k)?.status);
  const ask = async (name: string) => {
    await waitFor(() => gates.has(name), `call ${name} to run`);
    const before = asked.length;
    gates.get(name)!();
    gates.delete(name);
    await waitFor(() => asked.length > before, `the question of ${name}`);
    return asked[before];
  };

  it('ties a question sent on a call\'s answer stream to that call alone: only its row waits for input, and it is withdrawn when that call ends', async () => {
    const a = await h.engine.callTool('peer', 'a');
    const b = await h.engine.callTool('peer', 'b');
    assert.deepEqual([a.kind, b.kind], ['direct', 'direct']);
    const qa = await ask('a');
    assert.deepEqual(qa.ctx.calls, [a.key], 'the question of a is about a, not about b too');
    await waitFor(() => h.engine.get(a.key)?.status === 'input_required', 'a to wait for input');
    assert.deepEqual(statuses(a.key, b.key), ['input_required', 'working'], 'one question, one row waiting (the status bar counts 1)');

    const qb = await ask('b');
    assert.deepEqual(qb.ctx.calls, [b.key]);
    await waitFor(() => h.engine.get(b.key)?.status === 'input_required', 'b to wait for input');
    await h.engine.cancel(b.key);
    await waitFor(() => qb.ctx.signal.aborted, 'the question of b to close with b');
    assert.equal(qa.ctx.signal.aborted, false, 'the question of a stays open');
    assert.deepEqual(statuses(a.key, b.key), ['input_required', 'cancelled']);

    qa.answer({ action: 'accept', content: {} });
    await waitFor(() => h.engine.get(a.key)?.status === 'completed', 'a to complete');
  });

  it('stops only the clock of the call a question is tied to while it is open: another call still times out', async () => {
    timeoutMs = 2_000;
    const a = await h.engine.callTool('peer', 'a');
    const qa = await ask('a');
    timeoutMs = 3_000; // from the question on: a would time out first, were it not held
    const mute = await h.engine.callTool('peer', 'mute');
    timeoutMs = 60_000;
    await h.until(mute.key, (t) => t.status === 'failed', 'the call that does not answer to time out', 10_000);
    assert.match(h.engine.get(mute.key)!.note ?? '', /timed out after 3000 ms/);
    assert.equal(h.engine.get(a.key)?.status, 'input_required', 'a waits for the user, not timed out');
    qa.answer({ action: 'accept', content: {} });
    await waitFor(() => h.engine.get(a.key)?.status === 'completed', 'a to complete');
  });

  it('keeps a question on the standalone GET stream (no related request) about every direct call running', async () => {
    const loose = await h.engine.callTool('peer', 'loose');
    const a = await h.engine.callTool('peer', 'a');
    const q = await ask('loose');
    assert.deepEqual([...q.ctx.calls!].sort(), [loose.key, a.key].sort());
    await waitFor(() => statuses(loose.key, a.key).every((s) => s === 'input_required'), 'both calls to wait for input');
    q.answer({ action: 'accept', content: {} });
    await waitFor(() => h.engine.get(loose.key)?.status === 'completed', 'loose to complete');
  });
});
