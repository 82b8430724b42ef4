import * as assert from 'node:assert/strict';
import type * as http from 'node:http';
import { ConnectionClosedError } from '../../../src/core/jsonrpc/errors';
import type { LegacySseOptions } from '../../../src/core/transports/sse';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { TransportHttpError, TransportParseError } from '../../../src/core/transports/transport';
import { clientsForEachTest, hostileServersForEachTest, HttpFixture } from '../helpers/httpServers';
import { peerForSuite, startEverything } from '../helpers/peers';
import { waitFor } from '../helpers/logger';

const PROTOCOL_VERSION = '2025-11-25';
const initParams = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' } };

const { client, open } = clientsForEachTest((log, url: string, options: Partial<LegacySseOptions> = {}) => new LegacySseTransport({ url, logger: log, serverName: 'legacy', ...options }));

/** Where the transport posts its messages: the endpoint its log says it connected with. */
function endpointOf(c: ReturnType<typeof client>): string {
  const line = c.log.lines.find((l) => l.level === 'info' && l.message.startsWith(`Connected to ${c.transport.description}; posting to `));
  return line?.message.split('; posting to ')[1] ?? '';
}

describe('LegacySseTransport against server-everything', function () {
  this.timeout(30_000);
  const server = peerForSuite(() => startEverything('sse'));

  it('initializes (the server answers 2025-11-25) and lists simulate-research-query as a required-task tool', async () => {
    const c = client(server.url('/sse'), { serverName: 'everything' });
    await c.conn.start();
    assert.match(endpointOf(c), new RegExp(`^${server.url('/message')}\\?sessionId=`));
    const result = await c.conn.requestRaw('initialize', initParams);
    assert.equal(result.protocolVersion, PROTOCOL_VERSION);
    assert.equal((result.serverInfo as { name: string }).name, 'mcp-servers/everything');
    assert.ok((result.capabilities as { tasks?: unknown }).tasks, 'tasks capability');
    c.transport.setProtocolVersion(PROTOCOL_VERSION);
    await c.conn.notify('notifications/initialized');

    const list = await c.conn.requestRaw('tools/list', {});
    const tools = list.tools as Array<{ name: string; execution?: { taskSupport?: string } }>;
    const research = tools.find((t) => t.name === 'simulate-research-query');
    assert.ok(research, `tools: ${tools.map((t) => t.name).join(', ')}`);
    assert.equal(research.execution?.taskSupport, 'required');

    await c.conn.close();
    assert.deepEqual(c.closes, [{ reason: 'closed by the client' }]);
    assert.deepEqual(c.errors, []);
  });
});

describe('LegacySseTransport configured for a Streamable HTTP server (server-everything streamableHttp)', function () {
  this.timeout(30_000);
  const server = peerForSuite(() => startEverything('streamableHttp'));

  it('suggests "type": "http" from its answer to a GET without a session (HTTP 400, a JSON-RPC error)', async () => {
    const c = client(server.url('/mcp'));
    await assert.rejects(c.conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.status, 400);
      assert.match(err.message, /^Server "legacy" answered HTTP 400 Bad Request at .*No valid session ID provided.*; if it speaks Streamable HTTP, use "type": "http"\.$/);
      return true;
    });
  });
});

describe('LegacySseTransport against the http fixture', function () {
  this.timeout(15_000);
  const fx = HttpFixture.forSuite();

  it('resolves the relative endpoint, POSTs there, and reads answers from the stream', async () => {
    const c = client(fx.url('/legacy/sse'));
    await c.conn.start();
    assert.match(endpointOf(c), new RegExp(`^${fx.url('/legacy/message')}\\?sid=\\d+$`));
    assert.equal(c.transport.description, `sse: ${fx.url('/legacy/sse')}`);
    const result = await c.conn.requestRaw('initialize', initParams);
    assert.equal((result.serverInfo as { name: string }).name, 'http-fixture');
    const echoed = await c.conn.requestRaw('tools/list', { cursor: 'b' });
    assert.deepEqual(echoed, { method: 'tools/list', params: { cursor: 'b' } });
  });

  it('sends custom headers on GET and POST, MCP-Protocol-Version once set, and never logs secrets', async () => {
    const c = client(fx.url('/legacy/sse'), { headers: { Authorization: 'Bearer s3cret-token', 'X-Team': 'red' } });
    await c.conn.start();
    await c.conn.requestRaw('initialize', initParams);
    c.transport.setProtocolVersion(PROTOCOL_VERSION);
    await c.conn.requestRaw('tools/list', {});
    const [get, init, list] = await fx.requests();
    assert.equal(get.method, 'GET');
    assert.equal(get.headers.accept, 'text/event-stream');
    for (const r of [get, init, list]) {
      assert.equal(r.headers.authorization, 'Bearer s3cret-token');
      assert.equal(r.headers['x-team'], 'red');
    }
    assert.equal(init.headers['content-type'], 'application/json');
    assert.equal(init.headers['mcp-protocol-version'], undefined);
    assert.equal(list.headers['mcp-protocol-version'], PROTOCOL_VERSION);
    assert.ok(c.log.has('trace', /GET .*"authorization":"<redacted>"/), 'traffic is traced');
    assert.doesNotMatch(c.log.text(), /s3cret/);
  });

  it('reports an event that is not JSON as a TransportParseError and keeps reading', async () => {
    const c = client(fx.url('/legacy/sse'));
    await c.conn.start();
    const result = await c.conn.requestRaw('garbage/please', {});
    assert.equal(result.method, 'garbage/please');
    assert.equal(c.errors.length, 1);
    assert.ok(c.errors[0] instanceof TransportParseError);
    assert.equal(c.errors[0].text, 'garbage, not json');
  });

  it('closes once, with a reason, when the server ends the stream', async () => {
    const c = client(fx.url('/legacy/sse'));
    await c.conn.start();
    await c.conn.notify('end/please');
    await waitFor(() => c.closes.length > 0, 'onclose');
    assert.equal(c.closes.length, 1);
    assert.match(c.closes[0].reason, /server "legacy" ended the event stream/);
    assert.deepEqual(c.log.lines.filter((l) => l.level === 'warn'), [], 'the reason is told once, by whoever hears of the close (the server manager logs it)');
    await assert.rejects(c.conn.requestRaw('tools/list', {}), ConnectionClosedError);
    await assert.rejects(c.transport.send({ jsonrpc: '2.0', method: 'x' }), /is closed/);
    await c.conn.close();
    assert.equal(c.closes.length, 1);
  });

  it('close ends the stream on the server', async () => {
    const c = client(fx.url('/legacy/sse'));
    await c.conn.start();
    const endpoint = endpointOf(c);
    await c.conn.close();
    assert.deepEqual(c.closes, [{ reason: 'closed by the client' }]);
    // The fixture forgets a session when its stream closes.
    const post = async () => {
      const r = await fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'x' }) });
      await r.body?.cancel();
      return r.status;
    };
    let status = 0;
    for (let deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
      status = await post();
      if (status === 404) break;
    }
    assert.equal(status, 404);
  });

  it('rejects start with a clear message when no endpoint event comes in time', async () => {
    const c = client(fx.url('/legacy-silent/sse'), { endpointTimeoutMs: 200 });
    await assert.rejects(c.conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.match(err.message, /^Server "legacy" opened an event stream at .* but named no "endpoint" within 0\.2 s; .*"type": "http"/);
      return true;
    });
  });

  it('refuses an endpoint on another origin', async () => {
    const c = client(fx.url('/legacy-foreign/sse'));
    await assert.rejects(c.conn.start(), /named an endpoint on another origin \(http:\/\/example\.invalid\)/);
  });

  it('explains HTTP 401: names the server and how to configure headers', async () => {
    const c = client(fx.url('/auth/sse'), { serverName: 'guarded' });
    await assert.rejects(c.conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.status, 401);
      assert.match(err.message, /^Server "guarded" refused the request \(HTTP 401 .*"Authorization": "Bearer \$\{input:token\}"/);
      return true;
    });
  });

  it('rejects a GET answer that is not an event stream', async () => {
    const c = client(fx.url('/_requests'));
    await assert.rejects(c.conn.start(), /answered GET .* with content type "application\/json" instead of an event stream/);
  });
});

describe('LegacySseTransport against hostile servers', function () {
  this.timeout(15_000);
  const serve = hostileServersForEachTest(open);

  it('rejects start with an error naming the server when a redirect leads to a Location that is no URL', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { location: 'http://[bad' }).end());
    const c = client(server.url('/sse?token=s3cret'));
    await assert.rejects(c.conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.match(err.message, /^Server "legacy" redirected the request to an invalid location \(HTTP 302 Found\); it was not followed/);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
  });

  it('a web page answered to the GET (a proxy\'s sign-in page) names itself and points to url and headers; "type": "http" is suggested only on a 405 or JSON', async () => {
    const signIn = `<!doctype html><html><head><title>Sign in</title><script>${'var a=1;'.repeat(40)}</script></head><body><form><h1>Sign in to Contoso</h1><input name="user"></form></body></html>`;
    const server = await serve((req, res) => {
      if (req.url === '/login/sse') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(signIn);
      else if (req.url === '/guarded/sse') res.writeHead(401, { 'content-type': 'text/html' }).end(signIn);
      else if (req.url === '/post-only/mcp') res.writeHead(405, { allow: 'POST' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
    });
    const said = (path: string) =>
      client(server.url(path))
        .conn.start()
        .then(
          () => 'started',
          (err: Error) => err.message.replace(server.url(path), 'URL'),
        );
    assert.equal(
      await said('/login/sse'),
      'Server "legacy" answered GET URL with a web page ("Sign in") instead of an event stream: check "url" in its configuration; if the page is a sign-in page, give the server its credentials under "headers" there, e.g. "Authorization": "Bearer ${input:token}".',
    );
    assert.equal(await said('/guarded/sse'), 'Server "legacy" refused the request (HTTP 401 Unauthorized): "Sign in". If it needs a token, add it under "headers" in its configuration, e.g. "Authorization": "Bearer ${input:token}".');
    assert.equal(await said('/post-only/mcp'), 'Server "legacy" answered HTTP 405 Method Not Allowed at URL; if it speaks Streamable HTTP, use "type": "http".');
    assert.equal(await said('/text/sse'), 'Server "legacy" answered GET URL with content type "text/plain" instead of an event stream; check "url" in its configuration.');
  });

  it('resolves a relative endpoint against the url the stream came from after a redirect (/sse to /v1/sse/), not the configured one', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/sse') res.writeHead(301, { location: '/v1/sse/' }).end();
      else if (req.url === '/v1/sse/') res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: message?sid=7\n\n');
      else res.writeHead(404).end();
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    assert.equal(endpointOf(c), server.url('/v1/sse/message?sid=7'));
  });

  it('a 404 to the GET says to check "url" in its configuration; a 404 to a POST at the endpoint the server named does not (the configuration has no say there)', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/sse') res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /message\n\n');
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    });
    await assert.rejects(client(server.url('/typo')).conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Server "legacy" answered HTTP 404 Not Found at ${server.url('/typo')} (check "url" in its configuration)`);
      return true;
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('initialize', initParams), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Server "legacy" answered HTTP 404 Not Found at ${server.url('/message')}`);
      return true;
    });
  });

  it('reads an event stream whatever the case and parameters of its content type ("Text/Event-Stream; charset=utf-8"), with a byte order mark and CRLF line ends; an event of another type (ping) is ignored', async () => {
    let stream: http.ServerResponse | undefined;
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') {
        stream = res;
        res.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=utf-8' }).write('\ufeffevent: endpoint\r\ndata: /message\r\n\r\nevent: ping\r\ndata: keep-alive\r\n\r\n');
        return;
      }
      const { id } = JSON.parse(body) as { id: number };
      res.writeHead(202).end('Accepted');
      stream!.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { answered: id } })}\r\n\r\n`);
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    assert.equal(endpointOf(c), server.url('/message'));
    assert.deepEqual(await c.conn.requestRaw('tools/list', {}, { timeoutMs: 600_000 }), { answered: 1 });
    assert.ok(c.log.has('trace', /^Ignored an SSE event of type "ping"$/), c.log.text());
    assert.deepEqual(c.log.lines.filter((l) => l.level === 'warn' || l.level === 'error'), []);
    assert.deepEqual(c.errors, []);
  });

  it('a server that takes its POSTs and answers none (hung): each POST ends after acceptTimeoutMs, so a round of polls that time out holds no socket for longer (nor adds a listener to one signal per POST: MaxListenersExceededWarning), and a notification fails saying so', async () => {
    const posts = { open: 0, ended: 0 };
    const server = await serve((req, res) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /message\n\n');
      posts.open++;
      res.on('close', () => posts.ended++);
    });
    const c = client(server.url('/sse'), { acceptTimeoutMs: 200 });
    await c.conn.start();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    try {
      // More than ten at once: each POST listens to a signal of its own, not all to the transport's.
      await Promise.all(Array.from({ length: 12 }, () => assert.rejects(c.conn.requestRaw('tasks/get', {}, { timeoutMs: 50 }), /timed out after 50 ms/)));
      await waitFor(() => posts.ended === posts.open && posts.open >= 12, 'the POSTs of the timed-out polls (and their notifications/cancelled) to end', 3000);
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(warnings, []);
    await assert.rejects(c.transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Could not reach server "legacy" at ${server.url('/message')}: no answer within 0.2 s (UND_ERR_HEADERS_TIMEOUT)`);
      return true;
    });
    assert.ok(!c.conn.isClosed, 'the session goes on');
  });

  /** A legacy server whose POSTs and answers follow `mode.now`: live, slow (answers only pings), frozen (takes POSTs, writes nothing on the stream), hung (takes nothing). */
  async function scriptedLegacy(mode: { now: 'live' | 'slow' | 'frozen' | 'hung' }) {
    const posted: string[] = [];
    let stream: http.ServerResponse | undefined;
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') return void (stream = res.writeHead(200, { 'content-type': 'text/event-stream' })).write('event: endpoint\ndata: /message\n\n');
      const m = JSON.parse(body) as { id?: unknown; method: string };
      posted.push(m.method);
      if (mode.now === 'hung') return;
      res.writeHead(202).end();
      if (m.id !== undefined && (mode.now === 'live' || (mode.now === 'slow' && m.method === 'ping'))) stream!.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} })}\n\n`);
    });
    const c = client(server.url('/sse'), { acceptTimeoutMs: 200 });
    await c.conn.start();
    await c.conn.requestRaw('initialize', initParams);
    const pings = () => posted.filter((m) => m === 'ping').length;
    return { c, pings };
  }

  it('an event stream that goes silent while its server still takes POSTs (a proxy dropped it without a word: no error ever comes) is found dead after a request times out: a ping is taken and not answered on it, and the transport closes saying so (the server is reconnected, instead of every request timing out for ever)', async () => {
    const mode = { now: 'live' as const as 'live' | 'frozen' };
    const { c, pings } = await scriptedLegacy(mode);
    mode.now = 'frozen';
    await assert.rejects(c.conn.requestRaw('tasks/get', {}, { timeoutMs: 300 }), /timed out after 300 ms/);
    await waitFor(() => c.closes.length > 0, 'the transport to close');
    assert.deepEqual(c.closes, [{ reason: 'the event stream of server "legacy" went silent: a ping it took got no answer there within 0.2 s (a proxy may have dropped the stream)' }]);
    assert.equal(pings(), 1);
    assert.ok(c.conn.isClosed);
  });

  it('a slow server, which answers the ping though not the request, and a hung one, which takes no POST (the ping neither), keep their session: a legacy server keeps its tasks per connection', async () => {
    const mode = { now: 'live' as const as 'live' | 'slow' | 'hung' };
    const { c, pings } = await scriptedLegacy(mode);
    for (const now of ['slow', 'hung'] as const) {
      mode.now = now;
      // Timed out after the stream has been quiet for acceptTimeoutMs, and before a hung server's POST fails after as long.
      const timeoutMs = now === 'slow' ? 300 : 100;
      await assert.rejects(c.conn.requestRaw('tasks/get', {}, { timeoutMs }), /timed out after/);
      await waitFor(() => pings() === (now === 'slow' ? 1 : 2), `the ping to the ${now} server`);
      await new Promise((r) => setTimeout(r, 600));
      assert.deepEqual(c.closes, [], now);
    }
    mode.now = 'live';
    assert.deepEqual(await c.conn.requestRaw('tools/list', {}), {});
    const warned = c.log.lines.filter((l) => (l.level === 'warn' || l.level === 'error') && !l.message.startsWith('Could not send notifications/cancelled')); // to the hung one
    assert.deepEqual(warned, [], 'the answer to the ping is no stray response');
  });

  it('a request the user cancels says nothing about the stream: no ping is sent, even after a long silence (only a timeout sends one)', async () => {
    const mode = { now: 'live' as const as 'live' | 'frozen' };
    const { c, pings } = await scriptedLegacy(mode);
    mode.now = 'frozen';
    await new Promise((r) => setTimeout(r, 300)); // the stream quiet for longer than acceptTimeoutMs
    const ac = new AbortController();
    const asked = c.conn.requestRaw('tasks/get', {}, { signal: ac.signal, timeoutMs: 60_000 });
    ac.abort(new Error('cancelled'));
    await assert.rejects(asked, /cancelled/);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(pings(), 0);
    assert.deepEqual(c.closes, []);
  });

  it('reconnected to a server that answered in this session and now resets the connection (a port-forward whose server restarts): asks whether it runs, not whether it expects TLS', async () => {
    let up = true;
    const server = await serve((req, res) => {
      if (!up) return void req.socket.destroy();
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /message\n\n');
      res.writeHead(202).end();
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    await c.conn.close();
    up = false;
    await assert.rejects(client(server.url('/sse')).conn.start(), (err: Error) => {
      assert.equal(err.message, `Could not reach server "legacy" at ${server.url('/sse')}: the connection closed before any answer (ECONNRESET): is the server running?`);
      return true;
    });
  });

  it('a request of the server\'s own with id -1 (the id of our liveness ping) is delivered and answered: only an answer with that id is the ping\'s', async () => {
    const answers: unknown[] = [];
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'text/event-stream' }).write('event: endpoint\ndata: /message\n\ndata: {"jsonrpc":"2.0","id":-1,"method":"ping"}\n\n');
      answers.push(JSON.parse(body));
      res.writeHead(202).end();
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    await waitFor(() => answers.length > 0, 'the answer to the server\'s ping');
    // Answered (a bare connection has no ping handler: Method not found), not dropped as our ping's answer.
    assert.deepEqual(answers.map((a) => (a as { id: unknown }).id), [-1]);
  });

  it('an event past the 16 MB message limit on the one event stream closes the transport at once, saying so and what to do, and the requests waiting fail with that reason (nothing is resumed, so the event is not downloaded again; a reconnect is a new session), not at their timeout', async () => {
    let gets = 0;
    let stream: http.ServerResponse | undefined;
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') {
        gets++;
        return void (stream = res.writeHead(200, { 'content-type': 'text/event-stream' })).write('event: endpoint\ndata: /message\n\n');
      }
      res.writeHead(202).end();
      const m = JSON.parse(body) as { id?: unknown };
      if (m.id !== undefined) stream!.write(`data: {"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"x":"${'a'.repeat(17_000_000)}"}}\n\n`);
    });
    const c = client(server.url('/sse'));
    await c.conn.start();
    // What to do, as the Streamable HTTP transport says of an event it drops: the lost event may have been a task's question.
    const reason = `server "legacy" sent an event longer than ${16 * 1024 * 1024} characters (not read further); if it asked for input, cancel the task`;
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 60_000 }), (err: unknown) => {
      assert.ok(err instanceof ConnectionClosedError);
      assert.equal(err.message, `Connection closed: ${reason}`);
      return true;
    });
    assert.deepEqual(c.closes, [{ reason }]);
    assert.equal(gets, 1);
  });

  it('bounds the wait for the endpoint from the GET on: a server that never answers it fails start in time', async () => {
    let closed = false;
    const server = await serve((_req, res) => res.on('close', () => (closed = true)));
    const c = client(server.url('/sse'), { endpointTimeoutMs: 200 });
    await assert.rejects(c.conn.start(), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Server "legacy" did not answer GET ${server.url('/sse')} within 0.2 s`);
      return true;
    });
    await waitFor(() => closed, 'the server to see the GET end');
  });
});
