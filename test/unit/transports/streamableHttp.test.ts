import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import type * as http from 'node:http';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import type { StreamableHttpOptions } from '../../../src/core/transports/streamableHttp';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import { SessionExpiredError, TransportHttpError, TransportParseError } from '../../../src/core/transports/transport';
import type { RecordedClient, RecordedRequest } from '../helpers/httpServers';
import { clientsForEachTest, freePort, hostileServersForEachTest, HttpFixture } from '../helpers/httpServers';
import { peerForSuite, startEverything } from '../helpers/peers';
import { waitFor } from '../helpers/logger';

const PROTOCOL_VERSION = '2025-11-25';
const clientInfo = { name: 'mcp-tasks-test', version: '0.0.0' };

type Client = RecordedClient<StreamableHttpTransport>;

const { client, open } = clientsForEachTest(
  (log, url: string, options: Partial<StreamableHttpOptions> = {}) =>
    new StreamableHttpTransport({ url, logger: log, serverName: 'fixture', reconnect: { initialDelayMs: 20, maxDelayMs: 200, maxRetries: 3 }, ...options }),
);

async function initialize(c: Client): Promise<Record<string, unknown>> {
  await c.conn.start();
  const result = await c.conn.requestRaw('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo });
  c.transport.setProtocolVersion(String(result.protocolVersion));
  await c.conn.notify('notifications/initialized');
  return result;
}

function warnings(c: Client): string[] {
  return c.log.lines.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.message);
}

/** A raw POST carrying a session id, to see whether the server still knows the session. */
async function rawPing(url: string, sessionId: string): Promise<number> {
  const r = await fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Session-Id': sessionId,
      'MCP-Protocol-Version': PROTOCOL_VERSION,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'ping' }),
  });
  await r.body?.cancel();
  return r.status;
}

describe('StreamableHttpTransport against server-everything', function () {
  this.timeout(30_000);
  const server = peerForSuite(() => startEverything('streamableHttp'));

  it('initializes at 2025-11-25, lists simulate-research-query as a required-task tool, opens the GET stream, and deletes the session on close; its log lines leave the server\'s name to the logger\'s [name] prefix', async () => {
    const c = client(server.url('/mcp'), { serverName: 'everything' });
    const result = await initialize(c);
    assert.equal(result.protocolVersion, PROTOCOL_VERSION);
    assert.equal((result.serverInfo as { name: string }).name, 'mcp-servers/everything');
    assert.ok((result.capabilities as { tasks?: unknown }).tasks, 'tasks capability');
    const sessionId = c.transport.sessionId;
    assert.ok(sessionId, 'the server assigned a session id');

    const list = await c.conn.requestRaw('tools/list', {});
    const tools = list.tools as Array<{ name: string; execution?: { taskSupport?: string } }>;
    const research = tools.find((t) => t.name === 'simulate-research-query');
    assert.ok(research, `tools: ${tools.map((t) => t.name).join(', ')}`);
    assert.equal(research.execution?.taskSupport, 'required');

    await waitFor(() => c.log.has('debug', /Opened the server stream/), 'the GET stream to open');
    assert.equal(await rawPing(server.url('/mcp'), sessionId), 200, 'the session is alive before close');

    await c.conn.close();
    assert.equal(c.transport.sessionId, undefined);
    // server-everything answers 400 (not 404) for a session it no longer has.
    assert.notEqual(await rawPing(server.url('/mcp'), sessionId), 200, 'the session was deleted');
    assert.deepEqual(warnings(c), []);
    assert.deepEqual(c.errors, []);
    // The server manager logs through prefixed(log, label): "[everything] Server "everything" assigned…" named it twice.
    assert.ok(c.log.has('info', new RegExp(`^The server assigned session ${sessionId}$`)), c.log.text());
    assert.deepEqual(c.log.lines.filter((l) => /server "everything"/i.test(l.message)).map((l) => l.message), []);
  });

  it('a session server-everything no longer has (it answers 400 "No valid session ID provided", not the spec\'s 404) is an expired session: the next initialize starts a new one', async () => {
    // The GET stream the DELETE ends waits a minute to reopen: reopened first, it would find the
    // session gone and drop its id, and tools/list would go without one (answered 400 "Server not
    // initialized", a request before initialize), as a loaded run once had it.
    const c = client(server.url('/mcp'), { serverName: 'everything', reconnect: { initialDelayMs: 60_000 } });
    await initialize(c);
    const sessionId = c.transport.sessionId!;
    await waitFor(() => c.log.has('debug', /Opened the server stream/), 'the GET stream to open');
    // Ended behind the transport's back, as a server restart ends it.
    await (await fetch(server.url('/mcp'), { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': PROTOCOL_VERSION } })).body?.cancel();
    await assert.rejects(c.conn.requestRaw('tools/list', {}), (err: unknown) => {
      assert.ok(err instanceof SessionExpiredError, String(err));
      assert.equal(err.status, 400);
      assert.match(err.message, new RegExp(`^Server "everything" no longer knows session ${sessionId} \\(HTTP 400\\): it expired or the server restarted\\. The next request starts a new session\\.$`));
      return true;
    });
    assert.ok(c.errors.some((e) => e instanceof SessionExpiredError), 'whoever owns the session is told it is over');
    assert.equal(c.transport.sessionId, undefined);
    await c.conn.requestRaw('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo });
    assert.ok(c.transport.sessionId && c.transport.sessionId !== sessionId, 'a new session');
  });

  it('a session lost while only the GET stream listens is told once, as the session\'s end: the stream stops without a warning of its own', async () => {
    const c = client(server.url('/mcp'), { serverName: 'everything' });
    await initialize(c);
    const sessionId = c.transport.sessionId!;
    await waitFor(() => c.log.has('debug', /Opened the server stream/), 'the GET stream to open');
    // Ended behind the transport's back: the server ends the GET stream, and its reopening meets the 400.
    await (await fetch(server.url('/mcp'), { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': PROTOCOL_VERSION } })).body?.cancel();
    await waitFor(() => c.errors.length > 0 && !c.transport.listening, 'the session loss, and the GET stream to stop');
    assert.deepEqual(c.errors.map((e) => e.name), ['SessionExpiredError'], 'told once, as the end of the session');
    const lost = `Server "everything" no longer knows session ${sessionId} (HTTP 400): it expired or the server restarted. The next request starts a new session.`;
    assert.deepEqual(warnings(c), [`Transport error: ${lost}`], 'one warning, without the stream\'s give-up');
    const told = c.log.lines.filter((l) => l.level !== 'debug' && l.level !== 'trace' && /expired|no longer knows|Stopped listening|stopped/.test(l.message));
    assert.equal(told.length, 1, c.log.text());
  });

  it('keeps the session with keepSessionOnClose, and a new transport resumes it', async () => {
    const first = client(server.url('/mcp'), { serverName: 'everything' });
    await initialize(first);
    const sessionId = first.transport.sessionId!;
    first.transport.keepSessionOnClose = true;
    await first.conn.close();
    assert.equal(first.transport.sessionId, sessionId);

    const resumed = client(server.url('/mcp'), { serverName: 'everything', sessionId, protocolVersion: PROTOCOL_VERSION });
    await resumed.conn.start();
    const list = await resumed.conn.requestRaw('tools/list', {});
    assert.ok((list.tools as unknown[]).length > 0);
    await resumed.conn.close();
    assert.notEqual(await rawPing(server.url('/mcp'), sessionId), 200, 'closing the resumed transport deleted the session');
  });
});

describe('StreamableHttpTransport against the http fixture', function () {
  this.timeout(15_000);
  const fx = HttpFixture.forSuite();

  const byMethod = async (method: string): Promise<RecordedRequest[]> => (await fx.requests()).filter((r) => r.method === method);

  it('handles a JSON answer, adopts the session id, and splits a JSON batch', async () => {
    const c = client(fx.url('/json/mcp'));
    const result = await initialize(c);
    assert.equal((result.serverInfo as { name: string }).name, 'http-fixture');
    assert.match(c.transport.sessionId ?? '', /^s-\d+$/);
    assert.equal(c.transport.description, `http: ${fx.url('/json/mcp')}`);

    const echoed = await c.conn.requestRaw('tools/list', { cursor: 'a' });
    assert.deepEqual(echoed, { method: 'tools/list', params: { cursor: 'a' } });

    const notes: unknown[] = [];
    c.conn.onNotification('notifications/message', (p) => notes.push(p));
    const batched = await c.conn.requestRaw('batch/please', {});
    assert.equal(batched.method, 'batch/please');
    assert.deepEqual(notes, [{ level: 'info', data: 'batched' }]);
  });

  it('handles an SSE answer: messages before the response, then the response', async () => {
    const c = client(fx.url('/sse/mcp'));
    await initialize(c);
    const notes: unknown[] = [];
    c.conn.onNotification('notifications/message', (p) => notes.push(p));
    const result = await c.conn.requestRaw('tools/list', {});
    assert.equal(result.method, 'tools/list');
    assert.deepEqual(notes, [{ level: 'info', data: 'before tools/list' }]);
  });

  for (const hard of [false, true]) {
    it(`resumes an answer stream ${hard ? 'cut' : 'ended'} before the response with GET and the last event id`, async () => {
      const c = client(fx.url('/cut/mcp'));
      await initialize(c);
      const progress: number[] = [];
      const result = await c.conn.requestRaw('tools/call', { hard }, { onprogress: (p) => progress.push(p.progress) });
      assert.equal(result.method, 'tools/call');
      assert.deepEqual(progress, [1]);
      // The two ways a stream drops: a clean end and a connection error.
      if (hard) assert.ok(c.log.has('debug', /answer stream of tools\/call .* was cut after 2 event/), c.log.text());
      else assert.ok(c.log.has('trace', /answer stream of tools\/call .* ended after 2 event/), c.log.text());
      const resumes = (await byMethod('GET')).filter((r) => r.headers['last-event-id'] !== undefined);
      assert.equal(resumes.length, 1);
      assert.equal(resumes[0].headers['last-event-id'], 'cut-2');
      assert.equal(resumes[0].headers.accept, 'text/event-stream');
      assert.equal(resumes[0].headers['mcp-session-id'], c.transport.sessionId);
      assert.deepEqual(warnings(c), []);
    });
  }

  it('fails a request at once when its answer stream ends without an event id to resume from', async () => {
    const c = client(fx.url('/cutnoid/mcp'));
    await initialize(c);
    // Its timeout is longer than the test may last: only the dropped stream can fail it in time.
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 600_000 }), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.match(err.message, /Server "fixture" dropped the stream carrying the answer/);
      return true;
    });
  });

  it('reconnects the GET stream with Last-Event-ID when the server ends it', async () => {
    const c = client(fx.url('/sse/mcp'));
    const got: string[] = [];
    c.conn.onNotification('notifications/tools/list_changed', () => got.push('tools'));
    c.conn.onNotification('notifications/resources/list_changed', (p) => got.push(`resources after ${String(p?.resumedAfter)}`));
    await initialize(c);
    await waitFor(() => got.length === 2, 'two messages on the GET stream');
    assert.deepEqual(got, ['tools', 'resources after g-1']);
    const gets = await byMethod('GET');
    assert.equal(gets.length, 2);
    assert.equal(gets[0].headers['last-event-id'], undefined);
    assert.equal(gets[1].headers['last-event-id'], 'g-1');
    assert.equal(c.transport.listening, true);
  });

  it('stops quietly when GET is answered 405', async () => {
    const c = client(fx.url('/json/mcp'));
    await initialize(c);
    await waitFor(() => c.log.has('debug', /No server stream: .*405/), 'the 405 to be seen');
    assert.equal(c.transport.listening, false);
    assert.equal((await byMethod('GET')).length, 1);
    assert.deepEqual(warnings(c), []);
    assert.deepEqual(c.errors, []);
    // Requests still work.
    assert.equal((await c.conn.requestRaw('tools/list', {})).method, 'tools/list');
  });

  for (const [scenario, status] of [
    ['auth', 401],
    ['forbidden', 403],
  ] as const) {
    it(`explains HTTP ${status}: names the server and how to configure headers`, async () => {
      const c = client(fx.url(`/${scenario}/mcp`), { serverName: 'guarded' });
      await c.conn.start();
      await assert.rejects(c.conn.requestRaw('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo }), (err: unknown) => {
        assert.ok(err instanceof TransportHttpError);
        assert.equal(err.status, status);
        assert.match(err.message, new RegExp(`^Server "guarded" refused the request \\(HTTP ${status} `));
        assert.match(err.message, /add it under "headers" in its configuration, e\.g\. "Authorization": "Bearer \$\{input:token\}"/);
        return true;
      });
    });
  }

  it('reports other statuses with the status and the first 200 characters of the body', async () => {
    const c = client(fx.url('/fail/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('initialize', {}), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.status, 500);
      assert.match(err.message, /^Server "fixture" answered HTTP 500 /);
      const body = /: (\{.*)$/.exec(err.message)?.[1] ?? '';
      assert.equal(body.length, 200);
      assert.ok(body.startsWith('{"error":"xxx'));
      return true;
    });
  });

  it('names the URL when the server cannot be reached', async () => {
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    const c = client(url);
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('initialize', {}), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Could not reach server "fixture" at ${url}: connection refused (ECONNREFUSED): is the server running?`);
      return true;
    });
  });

  it('sends custom headers, the session id, and MCP-Protocol-Version once set, and never logs secrets', async () => {
    const c = client(fx.url('/json/mcp'), { headers: { Authorization: 'Bearer s3cret-token', 'X-Team': 'blue' } });
    await c.conn.start();
    await c.conn.requestRaw('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo });
    await c.conn.requestRaw('before/version', {});
    c.transport.setProtocolVersion(PROTOCOL_VERSION);
    await c.conn.requestRaw('after/version', {});

    const [init, before, after] = await byMethod('POST');
    for (const r of [init, before, after]) {
      assert.equal(r.headers.authorization, 'Bearer s3cret-token');
      assert.equal(r.headers['x-team'], 'blue');
      assert.equal(r.headers['content-type'], 'application/json');
      assert.equal(r.headers.accept, 'application/json, text/event-stream');
    }
    assert.equal(init.headers['mcp-session-id'], undefined);
    assert.equal(init.headers['mcp-protocol-version'], undefined);
    assert.equal(before.headers['mcp-session-id'], c.transport.sessionId);
    assert.equal(before.headers['mcp-protocol-version'], undefined);
    assert.equal(after.headers['mcp-protocol-version'], PROTOCOL_VERSION);
    assert.ok(c.log.lines.some((l) => l.level === 'trace' && /POST .*"authorization":"<redacted>"/.test(l.message)), 'traffic is traced');
    assert.doesNotMatch(c.log.text(), /s3cret/);
  });

  it('sends DELETE with the session id on close, and fires onclose once', async () => {
    const c = client(fx.url('/json/mcp'));
    await initialize(c);
    const sessionId = c.transport.sessionId;
    await Promise.all([c.transport.close(), c.transport.close()]);
    const deletes = await byMethod('DELETE');
    assert.equal(deletes.length, 1);
    assert.equal(deletes[0].headers['mcp-session-id'], sessionId);
    assert.equal(deletes[0].headers['mcp-protocol-version'], PROTOCOL_VERSION);
    assert.equal(c.transport.sessionId, undefined);
    assert.deepEqual(c.closes, [{ reason: 'closed by the client' }]);
    await assert.rejects(c.transport.send({ jsonrpc: '2.0', method: 'x' }), /is closed/);
  });

  it('sends no DELETE with keepSessionOnClose and keeps the session readable', async () => {
    const c = client(fx.url('/json/mcp'));
    await initialize(c);
    const sessionId = c.transport.sessionId;
    c.transport.keepSessionOnClose = true;
    await c.conn.close();
    assert.equal((await byMethod('DELETE')).length, 0);
    assert.equal(c.transport.sessionId, sessionId);
    assert.equal(c.closes.length, 1);
    // Resumed as the server manager resumes it, with the version of the saved initialize result:
    // the session and the version go with the next request, as before the close.
    const resumed = client(fx.url('/json/mcp'), { sessionId, protocolVersion: PROTOCOL_VERSION });
    await resumed.conn.start();
    await resumed.conn.requestRaw('after/resume', {});
    const [after] = (await byMethod('POST')).filter((r) => (JSON.parse(r.body) as { method?: string }).method === 'after/resume');
    assert.equal(after.headers['mcp-session-id'], sessionId);
    assert.equal(after.headers['mcp-protocol-version'], PROTOCOL_VERSION);
  });

  it('ends the open GET stream on close and still deletes the session', async () => {
    // The GET stream of /sse stays open after its resume.
    const c = client(fx.url('/sse/mcp'));
    await initialize(c);
    await waitFor(() => c.log.has('debug', /Resumed after event g-1/), 'the resumed GET stream');
    await c.conn.close();
    assert.equal(c.transport.listening, false);
    assert.equal((await byMethod('DELETE')).length, 1);
  });

  it('treats 404 on a request with a session id as an expired session', async () => {
    const c = client(fx.url('/json/mcp'));
    await initialize(c);
    const sessionId = c.transport.sessionId!;
    await (await fetch(fx.url('/json/mcp'), { method: 'DELETE', headers: { 'Mcp-Session-Id': sessionId } })).body?.cancel();
    await assert.rejects(c.conn.requestRaw('tools/list', {}), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.status, 404);
      assert.match(err.message, new RegExp(`Server "fixture" no longer knows session ${sessionId} \\(HTTP 404\\): it expired`));
      return true;
    });
    assert.equal(c.transport.sessionId, undefined);
    // A new initialize on the same transport starts a new session.
    await c.conn.requestRaw('initialize', { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo });
    assert.ok(c.transport.sessionId && c.transport.sessionId !== sessionId);
  });

  it('reports SSE data that is not JSON as a TransportParseError and keeps reading', async () => {
    const c = client(fx.url('/garbage/mcp'));
    await initialize(c);
    const result = await c.conn.requestRaw('tools/list', {});
    assert.equal(result.method, 'tools/list');
    assert.equal(c.errors.length, 1);
    assert.ok(c.errors[0] instanceof TransportParseError);
    assert.equal(c.errors[0].text, 'this is { not json');
    assert.match(c.errors[0].message, /Server "fixture" sent an event that is not JSON/);
  });
});

describe('StreamableHttpTransport against hostile servers', function () {
  this.timeout(15_000);
  const serve = hostileServersForEachTest(open);

  it('a body that only repeats the status line is not said again: "HTTP 404 Not Found at URL (check "url" …)", not "…: Not Found"; nor nginx\'s "502 Bad Gateway" page, Go\'s "404 page not found", FastAPI\'s {"detail":"Method Not Allowed"} or Tomcat\'s "HTTP Status 404 – Not Found" page', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/plain/mcp') res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
      else if (req.url === '/go/mcp') res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      else if (req.url === '/fastapi/mcp') res.writeHead(405, { 'content-type': 'application/json' }).end('{"detail":"Method Not Allowed"}');
      else if (req.url === '/tomcat/mcp') res.writeHead(404, { 'content-type': 'text/html' }).end('<html><head><title>HTTP Status 404 – Not Found</title></head><body><h1>HTTP Status 404 – Not Found</h1></body></html>');
      else if (req.url === '/more/mcp') res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not Found: no route /more/mcp"}');
      // No reason phrase, and words in another script: not "nothing but the status".
      else if (req.url === '/ru/mcp') res.writeHead(404, '', { 'content-type': 'text/plain; charset=utf-8' }).end('Страница не найдена');
      else res.writeHead(502, { 'content-type': 'text/html' }).end('<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1></body></html>');
    });
    const said = async (path: string) => {
      const c = client(server.url(path));
      await c.conn.start();
      return c.conn.requestRaw('initialize', {}).then(() => 'answered', (err: Error) => err.message.replace(server.url(path), 'URL'));
    };
    assert.equal(await said('/plain/mcp'), 'Server "fixture" answered HTTP 404 Not Found at URL (check "url" in its configuration)');
    assert.equal(await said('/nginx/mcp'), 'Server "fixture" answered HTTP 502 Bad Gateway at URL');
    // Go's net/http ("404 page not found"), FastAPI's JSON, Tomcat's page: the status again, in other words.
    assert.equal(await said('/go/mcp'), 'Server "fixture" answered HTTP 404 Not Found at URL (check "url" in its configuration)');
    assert.equal(await said('/fastapi/mcp'), 'Server "fixture" answered HTTP 405 Method Not Allowed at URL');
    assert.equal(await said('/tomcat/mcp'), 'Server "fixture" answered HTTP 404 Not Found at URL (check "url" in its configuration)');
    // A body that says more is quoted.
    assert.equal(await said('/more/mcp'), 'Server "fixture" answered HTTP 404 Not Found at URL (check "url" in its configuration): {"error":"Not Found: no route /more/mcp"}');
    assert.match(await said('/ru/mcp'), /^Server "fixture" answered HTTP 404 .*: Страница не найдена$/);
  });

  it('a proxy\'s HTML pages read as their title (a one-word title followed by the text), or one line of their text without one, not as markup: an error page, a 404 page (which also says to check "url"), a page without a title, and a sign-in page answered 200', async () => {
    const pages: Record<string, [number, string]> = {
      '/nginx/mcp': [502, '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>'],
      '/express/mcp': [404, '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot POST /express/mcp</pre>\n</body>\n</html>\n'],
      '/styled/mcp': [503, `<html><head><title>Just a moment...</title><style>${'body{margin:0}'.repeat(400)}</style></head><body><script>${'x();'.repeat(50)}</script></body></html>`],
      '/untitled/mcp': [500, '<html><head><title> </title></head><body><h1>Internal error</h1>\n<p>Try again later.</p></body></html>'],
      // The title names the page; its text opens with the site's menu.
      '/login/mcp': [200, `<!doctype html><html><head><title>Sign in to Contoso</title><script>${'var a=1;'.repeat(40)}</script></head><body><nav><a href="/">Home</a> <a href="/pricing">Pricing</a></nav><form><h1>Welcome back</h1><input name="user"></form></body></html>`],
    };
    const server = await serve((req, res) => {
      const [status, page] = pages[req.url!];
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(page);
    });
    const said = async (path: string) => {
      const c = client(server.url(path));
      await c.conn.start();
      return c.conn.requestRaw('initialize', {}).then(() => 'answered', (err: Error) => err.message.replace(server.url(path), 'URL'));
    };
    assert.equal(await said('/nginx/mcp'), 'Server "fixture" answered HTTP 502 Bad Gateway at URL');
    assert.equal(await said('/express/mcp'), 'Server "fixture" answered HTTP 404 Not Found at URL (check "url" in its configuration): Error: Cannot POST /express/mcp');
    assert.equal(await said('/styled/mcp'), 'Server "fixture" answered HTTP 503 Service Unavailable at URL: Just a moment...');
    assert.equal(await said('/untitled/mcp'), 'Server "fixture" answered HTTP 500 Internal Server Error at URL: Internal error Try again later.');
    assert.equal(
      await said('/login/mcp'),
      'Server "fixture" answered initialize (id 1) with a web page ("Sign in to Contoso") instead of JSON or an event stream: check "url" in its configuration; if the page is a sign-in page, give the server its credentials under "headers" there, e.g. "Authorization": "Bearer ${input:token}".',
    );
  });

  it('a 401/403 quotes the start of the server\'s words (not a bare "Forbidden"); with an "Authorization" header sent (or a challenge saying invalid_token) it says the token was refused, never its value', async () => {
    const server = await serve((req, res) => {
      const sent = req.headers.authorization;
      if (req.url === '/wrong-token/mcp') res.writeHead(401, { 'content-type': 'text/plain' }).end(`Invalid token ${sent}`);
      else if (req.url === '/scope/mcp') res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"token lacks scope mcp:tasks"}');
      else if (req.url === '/host-check/mcp') res.writeHead(403, { 'content-type': 'text/plain' }).end('Invalid Host header: 127.0.0.1:47120');
      else if (req.url === '/expired/mcp') res.writeHead(401, { 'www-authenticate': 'Bearer realm="api", error="invalid_token"' }).end();
      // Express's res.sendStatus(403), ws's refusals: the status line's words again.
      else if (req.url === '/send-status/mcp') res.writeHead(403, { 'content-type': 'text/plain; charset=utf-8' }).end('Forbidden');
      else res.writeHead(401).end();
    });
    const said = async (path: string, headers?: Record<string, string>) => {
      const c = client(server.url(path), { serverName: 'auth401', headers });
      await c.conn.start();
      return c.conn.requestRaw('initialize', {}).then(() => 'answered', (err: Error) => err.message);
    };
    const REFUSED = 'The token sent in its "Authorization" header was refused: check it (a saved ${input:…} value is asked again on the next connect).';
    const ADD = 'If it needs a token, add it under "headers" in its configuration, e.g. "Authorization": "Bearer ${input:token}".';
    const token = { Authorization: 'Bearer s3cret-token' };
    // The server echoes the token: the message quotes the server's words (the manager redacts the values it resolved), but adds none of its own.
    assert.equal(await said('/wrong-token/mcp', token), `Server "auth401" refused the request (HTTP 401 Unauthorized): "Invalid token Bearer s3cret-token". ${REFUSED}`);
    assert.equal(await said('/wrong-token/mcp', { authorization: 'Bearer other' }), `Server "auth401" refused the request (HTTP 401 Unauthorized): "Invalid token Bearer other". ${REFUSED}`);
    assert.equal(await said('/scope/mcp', token), `Server "auth401" refused the request (HTTP 403 Forbidden): "{"error":"token lacks scope mcp:tasks"}". ${REFUSED}`);
    assert.equal(await said('/host-check/mcp'), `Server "auth401" refused the request (HTTP 403 Forbidden): "Invalid Host header: 127.0.0.1:47120". ${ADD}`);
    assert.equal(await said('/expired/mcp'), 'Server "auth401" refused the request (HTTP 401 Unauthorized). The token was refused: check it (a saved ${input:…} value is asked again on the next connect).');
    assert.equal(await said('/bare/mcp'), `Server "auth401" refused the request (HTTP 401 Unauthorized). ${ADD}`);
    assert.equal(await said('/send-status/mcp', token), `Server "auth401" refused the request (HTTP 403 Forbidden). ${REFUSED}`, 'a body that only repeats the status is not quoted');
    assert.equal(await said('/bare/mcp', { 'X-Api-Key': 'k' }), `Server "auth401" refused the request (HTTP 401 Unauthorized). ${ADD}`, 'only an "Authorization" header is known to carry a token');
  });

  it('follows a redirect within the configured origin, as the SDK does (a path with or without its trailing slash): 307/308 for a POST, any for the GET stream; never to another origin (its "Authorization" stays home), nor a 301 that would turn a POST into a GET', async () => {
    const seen: string[] = [];
    const server = await serve((req, res, body) => {
      seen.push(`${req.method} ${req.headers.host!.split(':')[0]}${req.url} ${req.headers.authorization ?? '-'}`);
      const to = (status: number, location: string) => res.writeHead(status, { location }).end();
      const id = req.method === 'POST' ? (JSON.parse(body) as { id?: number }).id : undefined;
      if (req.url === '/mcp') to(req.method === 'POST' ? 307 : req.method === 'GET' ? 301 : 308, '/mcp/');
      else if (req.url === '/away') to(307, server.url('/mcp/').replace('127.0.0.1', 'localhost'));
      else if (req.url === '/moved') to(301, '/mcp/');
      else if (req.method === 'GET') res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}\n\n');
      else if (id === undefined) res.writeHead(req.method === 'DELETE' ? 200 : 202).end();
      else res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'r', version: '1' } } }));
    });
    const headers = { Authorization: 'Bearer t0ken' };
    const c = client(server.url('/mcp'), { headers });
    const said: unknown[] = [];
    await initialize(c);
    c.transport.onmessage = (m) => said.push(m);
    await waitFor(() => said.length > 0, 'the notification on the GET stream');
    await c.conn.close();
    assert.deepEqual(
      [...new Set(seen)],
      ['POST 127.0.0.1/mcp Bearer t0ken', 'POST 127.0.0.1/mcp/ Bearer t0ken', 'GET 127.0.0.1/mcp Bearer t0ken', 'GET 127.0.0.1/mcp/ Bearer t0ken', 'DELETE 127.0.0.1/mcp Bearer t0ken', 'DELETE 127.0.0.1/mcp/ Bearer t0ken'],
    );
    seen.length = 0;
    for (const [path, line] of [
      ['/away', `to ${server.url('/mcp/').replace('127.0.0.1', 'localhost')} (HTTP 307 Temporary Redirect)`],
      ['/moved', `to ${server.url('/mcp/')} (HTTP 301 Moved Permanently)`],
    ]) {
      const other = client(server.url(path), { headers });
      await other.conn.start();
      await assert.rejects(other.conn.requestRaw('initialize', {}), { message: `Server "fixture" redirected the request ${line}; it was not followed: put the final URL in its configuration.` });
    }
    assert.deepEqual(seen, ['POST 127.0.0.1/away Bearer t0ken', 'POST 127.0.0.1/moved Bearer t0ken']);
  });

  it('turns a redirect to a Location that is no URL into an error naming the server, on a POST, its resume and the GET stream, without the configured URL', async () => {
    const server = await serve((req, res) => {
      if (req.method === 'POST') {
        // The answer stream ends before the answer: resuming it meets the bad redirect too.
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: p-1\ndata:\n\n');
        return;
      }
      res.writeHead(302, { location: 'http://[bad' }).end();
    });
    const redirected = /Server "fixture" redirected the request to an invalid location \(HTTP 302 Found\); it was not followed/;
    const c = client(server.url('/mcp?token=s3cret'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.match(err.message, /^Server "fixture" dropped the stream carrying the answer: /);
      assert.match(err.message, redirected);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
    c.transport.openServerStream();
    await waitFor(() => c.errors.length > 0, 'the GET stream to be given up');
    assert.ok(c.errors[0] instanceof TransportHttpError);
    assert.match(c.errors[0].message, /^Stopped listening for messages from the server until Restart Server is run: /);
    assert.match(c.errors[0].message, redirected);
    assert.doesNotMatch(c.errors[0].message, /s3cret/);
    assert.equal(c.transport.listening, false);
    // Every way the GET stream stops says what to do, once.
    const why = 'Server "fixture" redirected the request to an invalid location (HTTP 302 Found); it was not followed: put the final URL in its configuration.';
    assert.deepEqual(warnings(c), [`The answer stream of tools/call (id 1) was lost: ${why}`, `Transport error: Stopped listening for messages from the server until Restart Server is run: ${why}`]);

    await server.close();
    const second = await serve((_req, res) => res.writeHead(307, { location: 'http://[bad' }).end());
    const post = client(second.url('/mcp?token=s3cret'));
    await post.conn.start();
    await assert.rejects(post.conn.requestRaw('initialize', {}), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.match(err.message, /^Server "fixture" redirected the request to an invalid location \(HTTP 307 /);
      assert.doesNotMatch(err.message, /s3cret/);
      return true;
    });
  });

  it('fails a request answered with a JSON body that does not parse, naming the request and the body, not an SSE event', async () => {
    const server = await serve((_req, res, body) => {
      if ((JSON.parse(body) as { id?: number }).id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('oops {');
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}), (err: Error) => {
      assert.match(err.message, /^Server "fixture" answered tools\/call \(id 1\) with a body that is not JSON \(Unexpected token .*\)$/);
      return true;
    });
  });

  it('fails a request answered 200 with a JSON body but no content type saying that the content type is missing, not that the body is', async () => {
    const server = await serve((_req, res, body) => {
      const { id } = JSON.parse(body) as { id?: number };
      if (id === undefined) return void res.writeHead(202).end();
      res.writeHead(200).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}), (err: Error) => {
      assert.equal(err.message, 'Server "fixture" answered tools/call (id 1) with HTTP 200 without a content type; expected JSON or an event stream');
      return true;
    });
  });

  it('fails a request answered 204 (No Content, which has no body) saying that the body is missing, not only its content type', async () => {
    const server = await serve((_req, res, body) => void res.writeHead((JSON.parse(body) as { id?: number }).id === undefined ? 202 : 204).end());
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}), (err: Error) => {
      assert.equal(err.message, 'Server "fixture" answered tools/call (id 1) with HTTP 204 without a body; expected JSON or an event stream');
      return true;
    });
  });

  it('fails at once a request whose POST is answered 202 without a body (202 only accepts notifications and answers), saying so; the transport goes on', async () => {
    const server = await serve((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id, method } = JSON.parse(body) as { id?: number; method?: string };
      if (id === undefined || method === 'tools/call') return void res.writeHead(202).end();
      if (method === 'tools/get') return void res.writeHead(202, { 'content-type': 'application/json' }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { method } }));
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    // Its timeout is longer than the test may last: only the 202 can fail it in time.
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 600_000 }), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError, String(err));
      assert.equal(err.status, 202);
      assert.equal(err.message, 'Server "fixture" answered tools/call (id 1) with HTTP 202 without a body; expected JSON or an event stream');
      return true;
    });
    // A 202 that names a JSON body it does not send is said the same way, not as JSON that does not parse.
    await assert.rejects(c.conn.requestRaw('tools/get', {}, { timeoutMs: 600_000 }), /^TransportHttpError: Server "fixture" answered tools\/get \(id 2\) with HTTP 202 without a body; expected JSON or an event stream$/);
    assert.deepEqual(await c.conn.requestRaw('tools/list', {}), { method: 'tools/list' });
    assert.deepEqual(warnings(c), []);
    assert.deepEqual(c.errors, []);
  });

  it('reads a content type whatever its case and parameters: "Application/JSON; Charset=UTF-8" as JSON, "Text/Event-Stream; charset=utf-8" as an event stream, on a POST\'s answer and on the GET stream', async () => {
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=utf-8' }).write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
        return;
      }
      const { id, params } = JSON.parse(body) as { id?: number; params?: { sse?: boolean } };
      if (id === undefined) return void res.writeHead(202).end();
      const answer = JSON.stringify({ jsonrpc: '2.0', id, result: { sse: params?.sse === true } });
      if (params?.sse) res.writeHead(200, { 'content-type': 'Text/Event-Stream; charset=utf-8' }).end(`data: ${answer}\n\n`);
      else res.writeHead(200, { 'content-type': 'Application/JSON; Charset=UTF-8' }).end(answer);
    });
    const c = client(server.url('/mcp'));
    const heard: string[] = [];
    c.conn.onNotification('notifications/tools/list_changed', () => heard.push('tools'));
    await c.conn.start();
    assert.deepEqual(await c.conn.requestRaw('tools/list', {}, { timeoutMs: 600_000 }), { sse: false });
    assert.deepEqual(await c.conn.requestRaw('tools/list', { sse: true }, { timeoutMs: 600_000 }), { sse: true });
    c.transport.openServerStream();
    await waitFor(() => heard.length === 1 || c.errors.length > 0, 'a message on the GET stream');
    assert.deepEqual(heard, ['tools']);
    assert.equal(c.transport.listening, true);
    assert.deepEqual(warnings(c), []);
    assert.deepEqual(c.errors, []);
  });

  it('reads an SSE answer as the SSE standard asks: a byte order mark at its start, CRLF line ends, a message split over several data lines; an event of another type (ping) before the response is ignored, and the response delivered once', async () => {
    const server = await serve((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id } = JSON.parse(body) as { id?: number };
      if (id === undefined) return void res.writeHead(202).end();
      // The data lines are joined with line feeds, white space to JSON.
      const lines = JSON.stringify({ jsonrpc: '2.0', id, result: { split: ['a', 'b'] } }, null, 1).split('\n');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`\ufeffevent: ping\r\ndata: keep-alive\r\n\r\nid: e-1\r\n${lines.map((l) => `data: ${l}`).join('\r\n')}\r\n\r\n`);
    });
    const c = client(server.url('/mcp'));
    const delivered: unknown[] = [];
    const onmessage = c.transport.onmessage;
    c.transport.onmessage = (m) => {
      delivered.push(m);
      onmessage?.(m);
    };
    await c.conn.start();
    assert.deepEqual(await c.conn.requestRaw('tools/call', {}, { timeoutMs: 600_000 }), { split: ['a', 'b'] });
    assert.deepEqual(delivered, [{ jsonrpc: '2.0', id: 1, result: { split: ['a', 'b'] } }]);
    assert.ok(c.log.has('trace', /^Ignored an SSE event of type "ping" on the answer stream of tools\/call \(id 1\)$/), c.log.text());
    assert.deepEqual(warnings(c), []);
    assert.deepEqual(c.errors, []);
  });

  it('a 400 "Server not initialized" to a request with a session id (an SDK-made server that hands a session id it does not know, after a restart, to a new SDK transport answers so) is an expired session', async () => {
    const server = await serve((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id } = JSON.parse(body) as { id?: number };
      if (req.headers['mcp-session-id'] === undefined) return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }));
    });
    const c = client(server.url('/mcp'), { serverName: 'closing' });
    await c.conn.start();
    await c.conn.requestRaw('initialize', {});
    await assert.rejects(c.conn.requestRaw('tools/list', {}), (err: unknown) => (assert.ok(err instanceof SessionExpiredError, String(err)), true));
    assert.equal(c.transport.sessionId, undefined, 'the next request starts a new session');
    assert.deepEqual(c.errors.map((e) => e.name), ['SessionExpiredError']);
  });

  it('a 400 that is not about the session (nor in the URL\'s or the server name\'s words) is the request\'s failure: the session is kept', async () => {
    const server = await serve((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { id } = JSON.parse(body) as { id?: number };
      if (req.headers['mcp-session-id'] === undefined) return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32600, message: 'Bad Request: unsupported protocol version' } }));
    });
    const c = client(server.url('/session/mcp'), { serverName: 'session-store' });
    await c.conn.start();
    await c.conn.requestRaw('initialize', {});
    await assert.rejects(c.conn.requestRaw('tools/list', {}), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError && !(err instanceof SessionExpiredError), String(err));
      assert.match(err.message, /^Server "session-store" answered HTTP 400 Bad Request at .*: \{"jsonrpc":"2\.0","id":2,"error":\{"code":-32600,"message":"Bad Request: unsupported protocol version"/);
      return true;
    });
    assert.equal(c.transport.sessionId, 's-1');
    assert.deepEqual(c.errors, []);
  });

  it('a session lost while an answer stream resumes is told once, as the session\'s end: the request fails at once, without a warning of the stream\'s own', async () => {
    const server = await serve((req, res, body) => {
      if (req.method === 'GET' && req.headers['last-event-id'] === undefined) return void res.writeHead(405).end(); // no GET stream
      if (req.method === 'GET') return void res.writeHead(404).end('Session not found'); // the server restarted meanwhile
      const { id } = JSON.parse(body) as { id?: number };
      if (id === undefined) return void res.writeHead(202).end();
      if (req.headers['mcp-session-id'] === undefined) return void res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: 42\nretry: 50\n\n'); // to be resumed
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await c.conn.requestRaw('initialize', {});
    const lost = 'Server "fixture" no longer knows session s-1 (HTTP 404): it expired or the server restarted. The next request starts a new session.';
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 10_000 }), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.equal(err.message, `Server "fixture" dropped the stream carrying the answer: ${lost}`);
      return true;
    });
    assert.deepEqual(c.errors.map((e) => e.name), ['SessionExpiredError'], 'told once, as the end of the session');
    assert.deepEqual(warnings(c), [`Transport error: ${lost}`], 'one warning, without the answer stream\'s give-up');
  });

  it('waits at most an hour to resume a stream, whatever the server\'s retry (setTimeout fires at once past 2^31-1 ms)', async () => {
    let gets = 0;
    const server = await serve((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(202).end();
      gets++;
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`id: e${gets}\nretry: 3000000000\ndata:\n\n`);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    c.transport.openServerStream();
    await waitFor(() => c.log.has('debug', /Resuming the server stream/), 'the wait before resuming');
    assert.ok(c.log.has('debug', /^Resuming the server stream in 3600000 ms$/), c.log.text());
    assert.equal(gets, 1);
  });

  it('fails a request whose JSON answer grows past the message limit, and ends its exchange', async () => {
    let closed = false;
    const server = await serve((_req, res, body) => {
      if ((JSON.parse(body) as { id?: number }).id === undefined) return void res.writeHead(202).end();
      res.on('close', () => (closed = true));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"jsonrpc":"2.0","id":1,"result":{"x":"');
      // 64 MB at most, then the body stays open: endless as far as the client can tell.
      const chunk = 'a'.repeat(1 << 20);
      let sent = 0;
      const pump = () => {
        while (sent < 64 && res.write(chunk)) sent++;
      };
      res.on('drain', pump);
      pump();
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 5_000 }), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, `Server "fixture" sent an answer to tools/call (id 1) longer than ${16 * 1024 * 1024} characters; it was not read further`);
      return true;
    });
    await waitFor(() => closed, 'the server to see the exchange end');
  });

  /** Answers with an event stream: a notification with id 1 (when `ids`), then an event past the message limit (id 2 when `ids`). */
  const overLimit = (res: http.ServerResponse, ids = true): void => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`${ids ? 'id: 1\n' : ''}data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n${ids ? 'id: 2\n' : ''}data: "`);
    res.end(`${'a'.repeat(17_000_000)}"\n\n`);
  };
  const stopped = `an event longer than ${16 * 1024 * 1024} characters (not read further)`;
  const dropped = `Dropped a message from the server (${stopped}); if it asked for input, cancel the task`;

  it('fails at once a request whose answer stream sends an event past the message limit, saying so, rather than resuming it (the server sends the same event again) until the request times out', async () => {
    let gets = 0;
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') gets++;
      else if ((JSON.parse(body) as { id?: number }).id === undefined) return void res.writeHead(202).end();
      overLimit(res);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/call', {}, { timeoutMs: 10_000 }), (err: Error) => {
      assert.equal(err.message, `Server "fixture" sent ${stopped} on the answer stream of tools/call (id 1)`);
      return true;
    });
    assert.equal(gets, 0, 'resumed');
    assert.deepEqual(warnings(c), [`The answer stream of tools/call (id 1) was lost: ${stopped}`]);
  });

  for (const ids of [false, true]) {
    it(`drops, with a warning, an event past the message limit on the GET stream (${ids ? 'with' : 'without'} event ids) and listens again with a fresh GET (no Last-Event-ID: a resumed one would get the same event again)`, async () => {
      const lastIds: Array<string | undefined> = [];
      const server = await serve((req, res) => {
        if (req.method !== 'GET') return void res.writeHead(202).end();
        lastIds.push(req.headers['last-event-id'] as string | undefined);
        if (lastIds.length === 1) return overLimit(res, ids);
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"later"}}\n\n');
      });
      const c = client(server.url('/mcp'));
      const notes: unknown[] = [];
      c.conn.onNotification('notifications/message', (p) => notes.push(p));
      await c.conn.start();
      c.transport.openServerStream();
      await waitFor(() => notes.length === 2, 'the message after the dropped one');
      assert.deepEqual(notes, [{ level: 'info', data: 'working' }, { level: 'info', data: 'later' }]);
      assert.deepEqual(lastIds, [undefined, undefined]);
      assert.deepEqual(warnings(c), [dropped]);
      assert.deepEqual(c.errors, []);
    });
  }

  it('stops listening, saying so, when the GET stream sends an event past the message limit on maxRetries (here 3, by default 5) fresh GETs in a row, not downloading it for ever', async () => {
    let gets = 0;
    const server = await serve((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(202).end();
      gets++;
      overLimit(res);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    c.transport.openServerStream();
    await waitFor(() => c.errors.length > 0, 'the GET stream to be given up');
    const why = `${stopped}, 3 times in a row`;
    const stop = `Stopped listening for messages from the server until Restart Server is run: ${why}`;
    // Told once, with what to do: Restart Server opens a new session, and its GET stream.
    assert.deepEqual(warnings(c), [dropped, dropped, `Transport error: ${stop}`]);
    assert.equal(c.errors[0].message, stop);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(gets, 3);
  });

  it('counts only GET streams in a row that end on an event past the message limit: one that ends otherwise (a poll) starts the count again', async () => {
    let gets = 0;
    const server = await serve((req, res) => {
      if (req.method !== 'GET') return void res.writeHead(202).end();
      gets++;
      if (gets === 3) return void res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data:\n\n');
      if (gets < 6) return overLimit(res, false);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(':\n\n');
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    c.transport.openServerStream();
    await waitFor(() => gets === 6, 'the sixth GET');
    assert.deepEqual(warnings(c), [dropped, dropped, dropped, dropped]);
    assert.deepEqual(c.errors, []);
  });

  it('fails at once, naming the server, a request whose JSON answer holds only a notification or the response to another id', async () => {
    const server = await serve((_req, res, body) => {
      const msg = JSON.parse(body) as { id?: number; params?: { other?: boolean } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(msg.params?.other ? { jsonrpc: '2.0', id: 999, result: {} } : note));
    });
    const c = client(server.url('/mcp'));
    const notes: unknown[] = [];
    c.conn.onNotification('notifications/message', (p) => notes.push(p));
    await c.conn.start();
    // Without the fix both would wait their whole (long) timeout.
    await assert.rejects(c.conn.requestRaw('tools/list', {}, { timeoutMs: 60_000 }), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.equal(err.message, 'Server "fixture" answered with JSON that holds no response to request id 1; no other answer can come');
      return true;
    });
    assert.deepEqual(notes, [{ level: 'info', data: 'hi' }], 'what the body held was delivered first');
    await assert.rejects(c.conn.requestRaw('tools/list', { other: true }, { timeoutMs: 60_000 }), /holds no response to request id 2; no other answer can come$/);
    assert.ok(!c.conn.isClosed);
  });

  it('fails a request whose JSON answer is an error with id null (the server could not read it) with the server\'s own words', async () => {
    const server = await serve((_req, res, body) => {
      const msg = JSON.parse(body) as { id?: number };
      if (msg.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Request: Server not initialized' } }));
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    await assert.rejects(c.conn.requestRaw('tools/list', {}, { timeoutMs: 60_000 }), (err: unknown) => {
      assert.ok(err instanceof RpcError);
      assert.equal(err.message, 'Server "fixture" answered tools/list (id 1) with an error that names no request: Bad Request: Server not initialized');
      return true;
    });
    assert.ok(!c.conn.isClosed);
  });

  it('ends the HTTP exchange of a request once nothing awaits its answer: timed out, cancelled, or answered on a stream the server keeps open', async () => {
    const opened = new Set<string>();
    const closed = new Set<string>();
    const server = await serve((_req, res, body) => {
      const msg = JSON.parse(body) as { id?: number; params?: { mode?: string } };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const mode = msg.params?.mode ?? '';
      opened.add(mode);
      res.on('close', () => closed.add(mode));
      if (mode === 'json') {
        res.writeHead(200, { 'content-type': 'application/json' }).write('{');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': keep-alive\n\n');
      if (mode === 'answered') res.write(`data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { mode } })}\n\n`);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();

    for (const mode of ['json', 'sse']) {
      await assert.rejects(c.conn.requestRaw('tools/call', { mode }, { timeoutMs: 50 }), /timed out after 50 ms/);
      await waitFor(() => closed.has(mode), `the ${mode} exchange of a timed-out request to end`);
      const ac = new AbortController();
      const cancelled = c.conn.requestRaw('tools/call', { mode: `${mode}-cancelled` }, { signal: ac.signal });
      await waitFor(() => opened.has(`${mode}-cancelled`), 'the server to answer');
      ac.abort(new Error('user cancelled'));
      await assert.rejects(cancelled, /user cancelled/);
      await waitFor(() => closed.has(`${mode}-cancelled`), `the ${mode} exchange of a cancelled request to end`);
    }
    assert.deepEqual(await c.conn.requestRaw('tools/call', { mode: 'answered' }), { mode: 'answered' });
    await waitFor(() => closed.has('answered'), 'the answer stream kept open by the server to end');
    assert.ok(!c.conn.isClosed);
  });

  it('does not read the body of a notification\'s answer: a server that drips one holds neither the handshake nor the lanes', async () => {
    const dripping = new Set<http.ServerResponse>();
    const server = await serve((req, res, body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const msg = JSON.parse(body) as { id?: number; method?: string };
      if (msg.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'dripper', version: '1' } } }));
        return;
      }
      if (msg.id !== undefined) return void res.writeHead(405).end();
      // 200 instead of 202, and a body that never ends.
      dripping.add(res);
      res.on('close', () => dripping.delete(res));
      res.writeHead(200, { 'content-type': 'application/json' }).write(' ');
    });
    const c = client(server.url('/mcp'));
    await initialize(c);
    // More notifications than there are lanes: each is done once the server took it.
    await Promise.all(Array.from({ length: 40 }, (_, i) => c.transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: i } })));
    await waitFor(() => dripping.size === 0, 'the dripping answers to be dropped');
  });

  it('fails a notification the server does not accept within oneWayTimeoutMs', async () => {
    let closed = false;
    const server = await serve((_req, res) => res.on('close', () => (closed = true)));
    const c = client(server.url('/mcp'), { oneWayTimeoutMs: 100 });
    await c.conn.start();
    await assert.rejects(c.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }), (err: unknown) => {
      assert.ok(err instanceof TransportHttpError);
      assert.equal(err.message, 'Server "fixture" did not accept notifications/initialized within 0.1 s');
      return true;
    });
    await waitFor(() => closed, 'the server to see the POST end');
  });

  it('a connection reset after the server answered (a proxy or port-forward whose server is gone) asks whether it runs, not whether it expects TLS, which it would have said before its first answer', async () => {
    let up = true;
    const server = await serve((req, res, body) => {
      if (!up || req.method !== 'POST') return void req.socket.destroy();
      const msg = JSON.parse(body) as { id?: number };
      if (msg.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'reset', version: '1' } } }));
    });
    const reset = client(server.url('/mcp'));
    up = false;
    await reset.conn.start();
    await assert.rejects(reset.conn.requestRaw('initialize', {}), /the connection closed before any answer \(ECONNRESET\): if the server expects TLS, use https:\/\/ \(or wss:\/\/\) in "url"$/);
    up = true;
    const c = client(server.url('/mcp'));
    await initialize(c);
    up = false;
    await assert.rejects(c.conn.requestRaw('tasks/get', {}), (err: Error) => {
      assert.equal(err.message, `Could not reach server "fixture" at ${server.url('/mcp')}: the connection closed before any answer (ECONNRESET): is the server running?`);
      return true;
    });
    // Reconnected (a new transport: no answer on it yet) to the server that answered in this session, as it restarts: the same question, not TLS.
    const again = client(server.url('/mcp'));
    await again.conn.start();
    await assert.rejects(again.conn.requestRaw('initialize', {}), /the connection closed before any answer \(ECONNRESET\): is the server running\?$/);
  });

  it('a server that takes requests and answers none (hung): the notifications/cancelled of its timed-out requests go one at a time, not one per request on every lane and the rest queued, all sent once it answers again', async () => {
    const held: http.ServerResponse[] = [];
    const cancels: unknown[] = [];
    let hung = true;
    const server = await serve((_req, res, body) => {
      const msg = JSON.parse(body) as { id?: number; method?: string; params?: { requestId?: unknown } };
      if (msg.method === 'notifications/cancelled') cancels.push(msg.params?.requestId);
      // Its polls are never answered; what no answer follows is accepted once it runs again.
      if (msg.id !== undefined || hung) return void held.push(res);
      res.writeHead(202).end();
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    // A round of polls of 20 tasks, timing out together (more than the transport's 16 lanes).
    await Promise.all(Array.from({ length: 20 }, () => assert.rejects(c.conn.requestRaw('tasks/get', {}, { timeoutMs: 50 }), /timed out after 50 ms/)));
    await waitFor(() => cancels.length > 0, 'a notifications/cancelled');
    hung = false;
    for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(202).end();
    // Queued behind whatever waited for a lane: once it is accepted, those were sent.
    await c.transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
    assert.equal(cancels.length, 1, `${cancels.length} notifications/cancelled for one round of timed-out polls`);
    // The server took it: the next timeout is told again.
    await assert.rejects(c.conn.requestRaw('tasks/get', {}, { timeoutMs: 50 }), /timed out/);
    await waitFor(() => cancels.length === 2, 'the next timeout\'s notifications/cancelled');
  });

  it('never gives up the GET stream while the transport is open: after more failed GETs than maxRetries it reopens once the server is back, with one warning and one info', async () => {
    let gets = 0;
    let failing = 0;
    const streams: http.ServerResponse[] = [];
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') {
        gets++;
        if (failing > 0) {
          failing--;
          return void res.writeHead(503).end('maintenance');
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' }).write(': open\n\n');
        streams.push(res);
        return;
      }
      const msg = JSON.parse(body) as { id?: number; method?: string };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const result = msg.method === 'initialize' ? { protocolVersion: PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'flaky', version: '1' } } : {};
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
    const c = client(server.url('/mcp'));
    const got: string[] = [];
    c.conn.onNotification('notifications/tools/list_changed', () => got.push('tools'));
    await initialize(c);
    await waitFor(() => streams.length === 1, 'the GET stream to open');
    // An outage: the stream drops and the next 6 GETs (twice maxRetries) are refused.
    failing = 6;
    streams[0].destroy();
    await waitFor(() => streams.length === 2, 'the GET stream to reopen once the server is back');
    assert.equal(gets, 8);
    streams[1].write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
    await waitFor(() => got.length === 1, 'a message on the reopened stream');
    assert.equal(c.transport.listening, true);
    assert.deepEqual(warnings(c), ['Not hearing from the server: its stream for its own messages could not be reopened after 3 attempts (Server "fixture" answered HTTP 503 Service Unavailable at ' + server.url('/mcp') + ': maintenance); still trying']);
    assert.ok(c.log.has('info', /^Listening for messages from the server again$/), c.log.text());
    assert.deepEqual(c.errors, []);
  });

  it('a GET stream the server takes and never answers (it hung, and is back) is given up after a minute and opened again: the server\'s messages are heard a minute after, not 5 (the spec has a server answer the GET at once, with an event stream or 405)', async () => {
    const gets: http.ServerResponse[] = [];
    const server = await serve((req, res, body) => {
      if (req.method === 'GET') {
        // The first is taken and left unanswered; the next opens the stream with a message on it.
        gets.push(res);
        if (gets.length > 1) res.writeHead(200, { 'content-type': 'text/event-stream' }).write(`data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })}\n\n`);
        return;
      }
      const msg = JSON.parse(body) as { id?: number; method?: string };
      if (msg.id === undefined) return void res.writeHead(202).end();
      const result = { protocolVersion: PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'hung-get', version: '1' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const c = client(server.url('/mcp'));
      let heard = 0;
      c.conn.onNotification('notifications/tools/list_changed', () => heard++);
      await initialize(c);
      // A minute and a half of the clock, in steps that let the sockets' events in between.
      for (let ms = 0; ms < 90_000 && heard === 0; ms += 100) {
        await clock.tickAsync(100);
        await new Promise((r) => setImmediate(r));
      }
      assert.equal(gets.length, 2, 'the GET sent again');
      assert.equal(heard, 1, 'the message on the reopened stream');
      assert.ok(c.log.has('debug', /^Could not resume the server stream: Could not reach server "fixture" at .*: no answer within 60 s/), c.log.text());
    } finally {
      clock.uninstall();
    }
  });

  it('resumes an answer stream primed with an id and no data (SSE: the id field sets the last event id even when no event is dispatched); an empty id resets it', async () => {
    const resumes: Array<string | undefined> = [];
    const server = await serve((req, res, body) => {
      if (req.method === 'POST') {
        const { id, params } = JSON.parse(body) as { id?: number; params?: { reset?: boolean } };
        if (id === undefined) return void res.writeHead(202).end();
        // The spec's polling: a priming event (id only), then the server closes the stream.
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(params?.reset ? 'id: 42\n\nid\n\n' : 'id: 42\nretry: 50\n\n');
        return;
      }
      const last = req.headers['last-event-id'] as string | undefined;
      resumes.push(last);
      res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`id: 43\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { resumedAfter: last } })}\n\n`);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    assert.deepEqual(await c.conn.requestRaw('tools/call', {}), { resumedAfter: '42' });
    assert.deepEqual(resumes, ['42']);
    assert.deepEqual(warnings(c), []);
    await assert.rejects(c.conn.requestRaw('tools/call', { reset: true }, { timeoutMs: 10_000 }), /dropped the stream carrying the answer: it ended before the answer and gave no event id to resume from/);
    assert.deepEqual(resumes, ['42'], 'no resume from a reset id');
  });

  it('polls an answer stream the server closes at every poll until the answer comes, however many polls, never sooner than 100 ms apart', async () => {
    let polls = 0;
    const server = await serve((req, res, body) => {
      if (req.method === 'POST') {
        const { id } = JSON.parse(body) as { id?: number };
        if (id === undefined) return void res.writeHead(202).end();
        // The spec's polling: prime the stream with an event id, then close it; retry: 0 asks for no wait.
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end('id: p-0\nretry: 0\ndata:\n\n');
        return;
      }
      polls++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      // More polls than maxRetries (3) bring nothing; the sixth brings the answer.
      if (polls < 6) return void res.end();
      res.end(`id: p-1\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { polls } })}\n\n`);
    });
    const c = client(server.url('/mcp'));
    await c.conn.start();
    assert.deepEqual(await c.conn.requestRaw('tools/call', {}), { polls: 6 });
    const waits = c.log.lines.filter((l) => l.level === 'debug' && /^Resuming the answer stream/.test(l.message)).map((l) => /in (\d+) ms$/.exec(l.message)?.[1]);
    assert.deepEqual(waits, Array(6).fill('100'));
    assert.deepEqual(warnings(c), []);
  });
});
