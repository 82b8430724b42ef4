// Event streams that stay silent. Node's fetch (undici) ends a response body that sends nothing for
// 300 s (its bodyTimeout); the editor's proxy support keeps that default. Here the timeout of the
// test process's fetch is cut to half a second, so an idle stream read through fetch dies within
// a test: the GET streams of both HTTP transports must outlive it.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import { streamingGet } from '../../../src/core/transports/streamingGet';
import type { Transport } from '../../../src/core/transports/transport';
import type { RecordedClient } from '../helpers/httpServers';
import { EverythingHttpServer, recordClient } from '../helpers/httpServers';
import { MemoryLogger } from '../helpers/logger';

const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' } };
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const BODY_TIMEOUT_MS = 500;
/** Longer than the body timeout with undici's one-second timer resolution. */
const IDLE_MS = 3_000;

type Dispatchers = Record<symbol, { constructor: new (options: object) => unknown } | undefined>;

/** Reads the first chunk of a fetched event stream, then how its next read ends. */
async function fetchedStreamEnds(url: string): Promise<string> {
  const response = await fetch(url, { headers: { Accept: 'text/event-stream' } });
  const reader = response.body!.getReader();
  await reader.read();
  try {
    const next = await reader.read();
    return next.done ? 'ended' : 'data';
  } catch (err) {
    return String((err as { cause?: { code?: string } }).cause?.code ?? err);
  } finally {
    reader.releaseLock();
  }
}

describe('silent event streams outlive fetch\'s body timeout (server-everything)', function () {
  this.timeout(60_000);
  let saved: unknown;
  const open: Array<RecordedClient<Transport>> = [];
  before(async () => {
    // The first fetch makes Node create its global dispatcher; a shorter-lived one takes its place.
    await fetch('http://127.0.0.1:1/').catch(() => undefined);
    const g = globalThis as unknown as Dispatchers;
    saved = g[GLOBAL_DISPATCHER];
    assert.ok(g[GLOBAL_DISPATCHER], 'Node keeps its fetch dispatcher under the undici symbol');
    g[GLOBAL_DISPATCHER] = new g[GLOBAL_DISPATCHER].constructor({ bodyTimeout: BODY_TIMEOUT_MS }) as never;
  });
  after(() => void ((globalThis as unknown as Record<symbol, unknown>)[GLOBAL_DISPATCHER] = saved));
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.conn.close()));
  });

  it('legacy SSE: an idle session stays open and answers (the same stream through fetch is cut)', async () => {
    const server = await EverythingHttpServer.start('sse');
    try {
      assert.equal(await fetchedStreamEnds(server.url('/sse')), 'UND_ERR_BODY_TIMEOUT', 'fetch cuts the idle stream here');
      const log = new MemoryLogger();
      const c = recordClient(new LegacySseTransport({ url: server.url('/sse'), logger: log, serverName: 'legacy' }), log);
      open.push(c);
      await c.conn.start();
      await c.conn.requestRaw('initialize', initParams);
      await new Promise((r) => setTimeout(r, IDLE_MS));
      assert.deepEqual(c.closes, [], log.text());
      const tools = (await c.conn.requestRaw('tools/list', {})) as { tools: unknown[] };
      assert.ok(tools.tools.length > 0);
    } finally {
      await server.stop();
    }
  });

  it('Streamable HTTP: an idle GET stream stays open, not cut and reopened', async () => {
    const server = await EverythingHttpServer.start('streamableHttp');
    try {
      const log = new MemoryLogger();
      const transport = new StreamableHttpTransport({ url: server.url('/mcp'), logger: log, serverName: 'everything' });
      const c = recordClient(transport, log);
      open.push(c);
      await c.conn.start();
      const result = await c.conn.requestRaw('initialize', initParams);
      transport.setProtocolVersion(String(result.protocolVersion));
      await c.conn.notify('notifications/initialized');
      transport.openServerStream();
      await new Promise((r) => setTimeout(r, IDLE_MS));
      const opened = log.lines.filter((l) => /(Opened|Resumed after event \S+) the server stream/.test(l.message)).map((l) => l.message);
      assert.deepEqual(opened, ['Opened the server stream of server "everything"'], log.text());
      assert.equal(transport.listening, true);
      assert.deepEqual(c.errors, []);
    } finally {
      await server.stop();
    }
  });
});

describe('streamingGet', () => {
  it('a server that accepts the connection but never answers fails the GET once its headers timeout passes, as fetch would', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s)); // reads nothing, answers nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as net.AddressInfo;
      const err = await streamingGet(`http://127.0.0.1:${port}/sse`, { headers: new Headers(), signal: new AbortController().signal, headersTimeoutMs: 200 }).then(
        () => undefined,
        (e: unknown) => e as TypeError & { cause?: { code?: string; message?: string } },
      );
      assert.ok(err instanceof TypeError, String(err));
      assert.equal(err.cause?.code, 'UND_ERR_HEADERS_TIMEOUT');
      assert.equal(err.cause?.message, 'no answer within 0.2 s');
    } finally {
      for (const s of sockets) s.destroy();
      server.close();
    }
  });
});
