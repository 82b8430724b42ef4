// Event streams that stay silent, and answers that take long. Node's fetch (undici) fails a request
// whose answer does not start within 300 s (its headersTimeout) and ends a response body that sends
// nothing for 300 s (its bodyTimeout); the editor's proxy support keeps those defaults. Here both
// timeouts of the test process's fetch are cut to half a second, so a request sent through fetch
// dies within a test: the transports' streams and answers must outlive them.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as zlib from 'node:zlib';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import { KEEPALIVE_MS, nodeFetch } from '../../../src/core/transports/nodeFetch';
import type { Transport } from '../../../src/core/transports/transport';
import type { RecordedClient } from '../helpers/httpServers';
import { hostileServer, recordClient } from '../helpers/httpServers';
import { startEverything } from '../helpers/peers';
import { MemoryLogger } from '../helpers/logger';

const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' } };
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const BODY_TIMEOUT_MS = 500;
const HEADERS_TIMEOUT_MS = 500;
/** Longer than both timeouts with undici's one-second timer resolution. */
const IDLE_MS = 3_000;

type Dispatchers = Record<symbol, { constructor: new (options: object) => unknown } | undefined>;

/** For a describe block: the test process's fetch gets half-second headers and body timeouts. */
function shortFetchTimeouts(): void {
  let saved: unknown;
  before(async () => {
    // The first fetch makes Node create its global dispatcher; a shorter-lived one takes its place.
    await fetch('http://127.0.0.1:1/').catch(() => undefined);
    const g = globalThis as unknown as Dispatchers;
    saved = g[GLOBAL_DISPATCHER];
    assert.ok(g[GLOBAL_DISPATCHER], 'Node keeps its fetch dispatcher under the undici symbol');
    g[GLOBAL_DISPATCHER] = new g[GLOBAL_DISPATCHER].constructor({ bodyTimeout: BODY_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS }) as never;
  });
  after(() => void ((globalThis as unknown as Record<symbol, unknown>)[GLOBAL_DISPATCHER] = saved));
}

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
  shortFetchTimeouts();
  const open: Array<RecordedClient<Transport>> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.conn.close()));
  });

  it('legacy SSE: an idle session stays open and answers (the same stream through fetch is cut)', async () => {
    const server = await startEverything('sse');
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
    const server = await startEverything('streamableHttp');
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
      assert.deepEqual(opened, ['Opened the server stream'], log.text());
      assert.equal(transport.listening, true);
      assert.deepEqual(c.errors, []);
    } finally {
      await server.stop();
    }
  });
});

describe('slow answers outlive fetch\'s headers and body timeouts (Streamable HTTP)', function () {
  this.timeout(60_000);
  shortFetchTimeouts();

  it('a plain request answered with JSON after a long silence, and one whose answer stream falls silent, both get their answers (fetch cuts both here)', async () => {
    const server = await hostileServer((req, res, body) => {
      // No GET stream: a cut answer stream cannot be resumed.
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const message = JSON.parse(body) as { id?: number; method: string };
      if (message.id === undefined) return void res.writeHead(202).end();
      const answer = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { slow: message.method } });
      if (message.method === 'slow/json') {
        // Status and headers only once the answer is ready, as a plain JSON server does.
        setTimeout(() => res.writeHead(200, { 'Content-Type': 'application/json' }).end(answer), IDLE_MS);
      } else {
        // The stream opens at once (a priming event), then says nothing until the answer.
        res.writeHead(200, { 'Content-Type': 'text/event-stream' });
        res.write('id: 1\ndata:\n\n');
        setTimeout(() => res.end(`id: 2\ndata: ${answer}\n\n`), IDLE_MS);
      }
    });
    const log = new MemoryLogger();
    const c = recordClient(new StreamableHttpTransport({ url: server.url('/mcp'), logger: log, serverName: 'slow' }), log);
    try {
      // The same exchanges through fetch fail: the test can tell the transports apart.
      const viaFetch = async (method: string) => {
        try {
          const r = await fetch(server.url('/mcp'), { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 99, method }) });
          await r.text();
          return 'answered';
        } catch (err) {
          return String((err as { cause?: { code?: string } }).cause?.code ?? err);
        }
      };
      assert.deepEqual(await Promise.all([viaFetch('slow/json'), viaFetch('slow/sse')]), ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'], 'fetch cuts both exchanges here');
      await c.conn.start();
      const answers = await Promise.all([c.conn.requestRaw('slow/json', {}), c.conn.requestRaw('slow/sse', {})]);
      assert.deepEqual(answers, [{ slow: 'slow/json' }, { slow: 'slow/sse' }], log.text());
      assert.deepEqual(c.errors, []);
    } finally {
      await c.conn.close();
      await server.close();
    }
  });
});

describe('nodeFetch', () => {
  it('sends a POST body with its length and answers as fetch does; a body the server compresses unasked is decompressed', async () => {
    const seen: Array<{ method?: string; headers: Record<string, unknown>; body: string }> = [];
    const server = await hostileServer((req, res, body) => {
      seen.push({ method: req.method, headers: req.headers, body });
      const coding = req.url!.slice(1);
      const json = Buffer.from(JSON.stringify({ echo: body }));
      const encoded = coding === 'gzip' ? zlib.gzipSync(json) : coding === 'br' ? zlib.brotliCompressSync(json) : coding === 'deflate' ? zlib.deflateSync(json) : json;
      res.writeHead(201, 'Made', { 'Content-Type': 'application/json', 'X-Twice': ['a', 'b'], ...(coding && { 'Content-Encoding': coding }) }).end(encoded);
    });
    try {
      for (const coding of ['', 'gzip', 'deflate', 'br']) {
        const response = await nodeFetch(server.url(`/${coding}`), { method: 'POST', headers: new Headers({ 'X-Custom': 'yes' }), body: '{"é":1}', signal: new AbortController().signal });
        assert.equal(response.status, 201);
        assert.equal(response.statusText, 'Made');
        assert.equal(response.headers.get('x-twice'), 'a, b');
        assert.deepEqual(await response.json(), { echo: '{"é":1}' }, coding);
      }
      assert.deepEqual(
        seen.map((r) => [r.method, r.headers['content-length'], r.headers['x-custom'], r.headers['accept-encoding']]),
        Array(4).fill(['POST', String(Buffer.byteLength('{"é":1}')), 'yes', undefined]),
      );
    } finally {
      await server.close();
    }
  });

  it('a request on a kept-alive connection that the server closes as the request goes out (its idle timeout: uvicorn\'s 5 s meets a poll every 5 s) is sent again on a new connection, as browsers and curl do; one the server began to answer is not', async () => {
    const seen: string[] = [];
    const requestsOn = new Map<unknown, number>();
    const server = await hostileServer((req, res) => {
      const n = (requestsOn.get(req.socket) ?? 0) + 1;
      requestsOn.set(req.socket, n);
      seen.push(`${req.url} #${n} on socket ${requestsOn.size}`);
      // The second request on a connection meets the server closing it, unanswered (TCP reset).
      if (n === 2 && req.url === '/idle') req.socket.resetAndDestroy();
      else if (n === 2) res.writeHead(200, { 'Content-Type': 'application/json' }).write('{"cut":', () => req.socket.resetAndDestroy());
      else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    });
    const post = (p: string) => nodeFetch(server.url(p), { method: 'POST', headers: new Headers(), body: '{}', signal: new AbortController().signal });
    try {
      assert.deepEqual(await (await post('/idle')).json(), { ok: true });
      assert.deepEqual(await (await post('/idle')).json(), { ok: true });
      assert.deepEqual(seen, ['/idle #1 on socket 1', '/idle #2 on socket 1', '/idle #1 on socket 2']);
      // A request the server began to answer may have been acted on: its cut body is an error, and it is not sent again.
      await assert.rejects((await post('/begun')).text(), /aborted/);
      assert.deepEqual(seen.slice(3), ['/begun #2 on socket 2']);
    } finally {
      await server.close();
    }
  });

  it('probes a quiet request\'s socket with TCP keep-alive, so a peer that vanished is found although no timeout cuts the answer', async () => {
    const calls: Array<[boolean | undefined, number | undefined]> = [];
    const original = net.Socket.prototype.setKeepAlive;
    net.Socket.prototype.setKeepAlive = function (this: net.Socket, enable?: boolean, delay?: number) {
      calls.push([enable, delay]);
      return original.call(this, enable, delay);
    };
    const server = await hostileServer((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}'));
    try {
      const response = await nodeFetch(server.url('/mcp'), { method: 'POST', headers: new Headers(), body: '{}', signal: new AbortController().signal });
      assert.deepEqual(await response.json(), {});
      assert.ok(calls.some(([enable, delay]) => enable === true && delay === KEEPALIVE_MS), JSON.stringify(calls));
    } finally {
      net.Socket.prototype.setKeepAlive = original;
      await server.close();
    }
  });

  it('a server that accepts the connection but never answers fails the GET once its headers timeout passes, as fetch would', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((s) => sockets.push(s)); // reads nothing, answers nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const { port } = server.address() as net.AddressInfo;
      const err = await nodeFetch(`http://127.0.0.1:${port}/sse`, { headers: new Headers(), signal: new AbortController().signal, headersTimeoutMs: 200 }).then(
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
