import * as assert from 'node:assert/strict';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { build } from 'esbuild';
import WebSocket, { WebSocketServer } from 'ws';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import type { TransportCloseInfo } from '../../../src/core/transports/transport';
import { TransportHttpError, TransportParseError } from '../../../src/core/transports/transport';
import { WebSocketTransport } from '../../../src/core/transports/websocket';
import { transportFetch } from '../../../src/core/transports/nodeFetch';
import { answeredOrigins, networkError } from '../../../src/core/transports/sseStream';
import { hostileServer } from '../helpers/httpServers';
import type { Logger } from '../../../src/core/util/log';

// Compiled to out/test/unit/transports: the repository root is four levels up.
const FIXTURE = path.resolve(__dirname, '../../../../test/fixtures/servers/ws-server.mjs');
const PROTOCOL_VERSION = '2025-11-25';

/** A logger that keeps every line, so tests can check what was (not) logged. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const rec =
    (level: string) =>
    (m: string | Error, ...a: unknown[]) =>
      lines.push(`${level} ${m instanceof Error ? m.message : m} ${a.map((x) => JSON.stringify(x)).join(' ')}`);
  return { lines, trace: rec('trace'), debug: rec('debug'), info: rec('info'), warn: rec('warn'), error: rec('error'), traceEnabled: true };
}

interface Fixture {
  url: string;
  proc: ChildProcessWithoutNullStreams;
  stop(): Promise<void>;
}

/** Starts ws-server.mjs on an ephemeral port and waits for its `listening <port>` line. */
async function startFixture(env: Record<string, string> = {}): Promise<Fixture> {
  assert.ok(existsSync(FIXTURE), `fixture not found at ${FIXTURE}`);
  const proc = spawn(process.execPath, [FIXTURE], { env: { ...process.env, PORT: '0', ...env }, stdio: 'pipe' });
  let stderr = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
  };
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const onData = (d: Buffer) => {
        out += d.toString();
        const m = /^listening (\d+)$/m.exec(out);
        if (m) {
          proc.stdout.off('data', onData);
          resolve(Number(m[1]));
        }
      };
      proc.stdout.on('data', onData);
      proc.once('exit', (code) => reject(new Error(`fixture exited with ${code} before listening: ${stderr}`)));
    });
    return { url: `ws://127.0.0.1:${port}`, proc, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** A bare `ws` server speaking the `mcp` subprotocol, for frames a real MCP server never sends. */
async function rawServer(
  onConnection: (ws: WebSocket) => void,
  handleProtocols: (p: Set<string>) => string | false = (p) => (p.has('mcp') ? 'mcp' : false),
): Promise<{ url: string; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', onConnection);
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close: () => {
      for (const c of wss.clients) c.terminate();
      return new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const { port } = srv.address() as AddressInfo;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

/** Resolves with the first value `register` hands to its callback. */
function next<T>(register: (cb: (v: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve) => register(resolve));
}

async function initialize(conn: JsonRpcConnection): Promise<Record<string, unknown>> {
  const result = await conn.requestRaw('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name: 'websocket-test', version: '0.0.0' },
  });
  await conn.notify('notifications/initialized');
  return result;
}

describe('WebSocketTransport', () => {
  // Everything a test starts is stopped here, even when it fails halfway.
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  });

  function transport(url: string, extra: Partial<ConstructorParameters<typeof WebSocketTransport>[0]> = {}): WebSocketTransport {
    const t = new WebSocketTransport({ url, logger: recordingLogger(), serverName: 'test', ...extra });
    cleanups.push(() => t.close());
    return t;
  }

  async function fixture(env?: Record<string, string>): Promise<Fixture> {
    const f = await startFixture(env);
    cleanups.push(() => f.stop());
    return f;
  }

  describe('against a real MCP server (ws-server.mjs)', () => {
    it('initializes, lists tools and calls echo', async () => {
      const f = await fixture();
      const t = transport(f.url);
      assert.equal(t.description, `ws: ${f.url}`);
      const conn = new JsonRpcConnection(t, { logger: recordingLogger() });
      await conn.start();

      const init = await initialize(conn);
      assert.equal(init.protocolVersion, PROTOCOL_VERSION);
      assert.deepEqual((init.capabilities as { tasks?: unknown }).tasks, { list: {}, cancel: {}, requests: { tools: { call: {} } } });

      const { tools } = (await conn.requestRaw('tools/list', {})) as { tools: Array<{ name: string; execution?: { taskSupport?: string } }> };
      assert.ok(tools.some((x) => x.name === 'echo'), `echo missing from ${JSON.stringify(tools)}`);
      assert.equal(tools.find((x) => x.name === 'delayed_echo')?.execution?.taskSupport, 'optional');

      const call = await conn.requestRaw('tools/call', { name: 'echo', arguments: { message: 'héllo over ws' } });
      assert.deepEqual(call.content, [{ type: 'text', text: 'héllo over ws' }]);
      await conn.close();
    });

    it('runs delayed_echo as a task (the fixture supports tasks)', async () => {
      const f = await fixture();
      const conn = new JsonRpcConnection(transport(f.url), { logger: recordingLogger() });
      await conn.start();
      await initialize(conn);

      const created = (await conn.requestRaw('tools/call', {
        name: 'delayed_echo',
        arguments: { message: 'later', delayMs: 50 },
        task: { ttl: 60_000 },
      })) as { task: { taskId: string; status: string } };
      assert.equal(typeof created.task.taskId, 'string');
      assert.equal(created.task.status, 'working');

      // tasks/result blocks until the task is terminal.
      const result = await conn.requestRaw('tasks/result', { taskId: created.task.taskId });
      assert.deepEqual(result.content, [{ type: 'text', text: 'later' }]);
      const got = (await conn.requestRaw('tasks/get', { taskId: created.task.taskId })) as { status: string };
      assert.equal(got.status, 'completed');
      await conn.close();
    });

    it('reports a server process that dies: onclose with code 1006, pending requests fail', async () => {
      const f = await fixture();
      const t = transport(f.url);
      const conn = new JsonRpcConnection(t, { logger: recordingLogger() });
      await conn.start();
      await initialize(conn);
      const closed = next<TransportCloseInfo>((cb) => conn.onClose(cb));
      // delayed_echo without a task parameter: the call stays pending for 10 s.
      const pending = conn.requestRaw('tools/call', { name: 'delayed_echo', arguments: { message: 'x', delayMs: 10_000 } });
      f.proc.kill('SIGKILL');
      const info = await closed;
      assert.equal(info.code, 1006);
      assert.match(info.reason, /lost/);
      await assert.rejects(pending, /Connection closed/);
    });

    it('refuses without credentials when the server requires them, with a hint about "headers"', async () => {
      const f = await fixture({ REQUIRE_AUTH: 's3cret-token' });
      const t = transport(f.url, { serverName: 'secure' });
      let closes = 0;
      t.onclose = () => closes++;
      const err = await t.start().then(
        () => assert.fail('start() should have been refused'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof TransportHttpError, String(err));
      assert.equal(err.status, 401);
      assert.match(err.message, /server "secure"/);
      assert.ok(err.message.includes(f.url), err.message);
      // ws-server.mjs answers a bare "Unauthorized", which the status line says already.
      assert.equal(err.message, `server "secure" at ${f.url} refused the WebSocket connection with HTTP 401 Unauthorized. If it needs a token, add it under "headers" in its configuration, e.g. "Authorization": "Bearer \${env:MCP_TOKEN}".`);
      assert.equal(closes, 0, 'a failed start reports through its rejection only');
    });

    it('connects with the Authorization header and never logs its value', async () => {
      const f = await fixture({ REQUIRE_AUTH: 's3cret-token' });
      const logger = recordingLogger();
      const t = transport(f.url, { headers: { Authorization: 'Bearer s3cret-token' }, logger });
      const conn = new JsonRpcConnection(t, { logger });
      await conn.start();
      await initialize(conn);
      const call = await conn.requestRaw('tools/call', { name: 'echo', arguments: { message: 'authorized' } });
      assert.deepEqual(call.content, [{ type: 'text', text: 'authorized' }]);
      await conn.close();
      assert.ok(logger.lines.some((l) => l.includes('<redacted>')), 'the headers are logged, redacted');
      assert.ok(!logger.lines.some((l) => l.includes('s3cret-token')), logger.lines.join('\n'));
    });

    it('the fixture refuses upgrades that do not offer the mcp subprotocol', async () => {
      const f = await fixture();
      const ws = new WebSocket(f.url, 'graphql-ws');
      const status = await new Promise<number>((resolve, reject) => {
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('open', () => reject(new Error('the fixture accepted a non-mcp subprotocol')));
        ws.once('error', reject);
      });
      ws.terminate();
      assert.equal(status, 400);
    });
  });

  describe('against a raw WebSocket server', () => {
    it('reports non-JSON and binary frames as TransportParseError, unpacks arrays, and keeps working', async () => {
      const srv = await rawServer((ws) => {
        ws.send('this is not json');
        ws.send(Buffer.from([1, 2, 3]), { binary: true });
        ws.send(JSON.stringify([
          { jsonrpc: '2.0', method: 'notifications/a' },
          { jsonrpc: '2.0', method: 'notifications/b' },
        ]));
        // Then answer requests, as a server that had hiccups but is alive.
        ws.on('message', (data) => {
          const req = JSON.parse(String(data)) as { id?: number };
          if (req.id !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', id: req.id, result: { pong: true } }));
        });
      });
      cleanups.push(() => srv.close());
      const t = transport(srv.url);
      const conn = new JsonRpcConnection(t, { logger: recordingLogger() });
      const errors: Error[] = [];
      const connectionOnError = t.onerror!;
      t.onerror = (e) => {
        errors.push(e);
        connectionOnError(e);
      };
      const methods: string[] = [];
      const gotB = next<void>((cb) =>
        conn.onUnhandledNotification((n) => {
          methods.push(n.method);
          if (n.method === 'notifications/b') cb();
        }),
      );
      await conn.start();
      await gotB;

      assert.deepEqual(methods, ['notifications/a', 'notifications/b']);
      assert.equal(errors.length, 2, errors.map((e) => e.message).join('; '));
      assert.ok(errors[0] instanceof TransportParseError);
      assert.equal(errors[0].text, 'this is not json');
      assert.ok(errors[1] instanceof TransportParseError);
      assert.match(errors[1].message, /binary/);

      assert.deepEqual(await conn.requestRaw('ping', {}), { pong: true });
      assert.equal(conn.isClosed, false);
    });

    it('reports the server closing: onclose once, with its code and reason', async () => {
      const srv = await rawServer((ws) => ws.on('message', () => ws.close(4001, 'shutting down for test')));
      cleanups.push(() => srv.close());
      const t = transport(srv.url);
      const infos: TransportCloseInfo[] = [];
      const closed = next<void>((cb) => (t.onclose = (i) => (infos.push(i), cb())));
      await t.start();
      await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await closed;
      await t.close(); // after the server's close: a no-op, no second onclose
      assert.equal(infos.length, 1);
      assert.equal(infos[0].code, 4001);
      assert.match(infos[0].reason, /shutting down for test/);
      await assert.rejects(t.send({ jsonrpc: '2.0', method: 'x' }), /not open/);
    });

    it('a server that closes without a code (a close frame with no status, code 1005) closed the WebSocket: it is not told as a lost connection', async () => {
      const srv = await rawServer((ws) => ws.on('message', () => ws.close()));
      cleanups.push(() => srv.close());
      const t = transport(srv.url);
      const closed = next<TransportCloseInfo>((cb) => (t.onclose = cb));
      await t.start();
      await t.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      const info = await closed;
      assert.equal(info.code, 1005);
      assert.match(info.reason, /^the server closed the WebSocket \(code 1005\)$/);
    });

    it('closes with 1009 when a frame exceeds maxPayload', async () => {
      const srv = await rawServer((ws) => ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'big', params: { pad: 'x'.repeat(4096) } })));
      cleanups.push(() => srv.close());
      const t = transport(srv.url, { maxPayload: 1024 });
      const messages: unknown[] = [];
      t.onmessage = (m) => messages.push(m);
      const closed = next<TransportCloseInfo>((cb) => (t.onclose = cb));
      await t.start();
      const info = await closed;
      assert.equal(info.code, 1009);
      assert.match(info.reason, /size limit/);
      assert.deepEqual(messages, []);
    });

    it('closes a connection whose server stops answering pings, saying so (a half-open socket is not kept)', async () => {
      // autoPong off: the server is there at the TCP level but answers nothing, as after a network drop.
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, autoPong: false, handleProtocols: () => 'mcp' });
      await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
      cleanups.push(() => new Promise<void>((resolve) => (wss.clients.forEach((c) => c.terminate()), wss.close(() => resolve()))));
      const t = transport(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { pingIntervalMs: 20 });
      const closed = next<TransportCloseInfo>((cb) => (t.onclose = cb));
      await t.start();
      const info = await closed;
      assert.equal(info.code, 1006);
      assert.match(info.reason, /did not answer a ping/);
      await assert.rejects(t.send({ jsonrpc: '2.0', method: 'x' }), /not open/);
    });

    it('keeps a connection whose server answers its pings', async () => {
      let pings = 0;
      let third!: () => void;
      const thirdPing = new Promise<void>((resolve) => (third = resolve));
      const srv = await rawServer((ws) => {
        ws.on('ping', () => ++pings === 3 && third());
        ws.on('message', (d) => ws.send(d.toString()));
      });
      cleanups.push(() => srv.close());
      const t = transport(srv.url, { pingIntervalMs: 20 });
      let closedEarly = false;
      t.onclose = () => (closedEarly = true);
      await t.start();
      await thirdPing;
      const echoed = next<unknown>((cb) => (t.onmessage = cb));
      await t.send({ jsonrpc: '2.0', method: 'still-there' });
      assert.deepEqual(await echoed, { jsonrpc: '2.0', method: 'still-there' });
      assert.equal(closedEarly, false);
    });

    it('rejects a server that does not select the mcp subprotocol', async () => {
      const srv = await rawServer(() => undefined, () => false);
      cleanups.push(() => srv.close());
      await assert.rejects(transport(srv.url).start(), (e: Error) => {
        assert.match(e.message, /subprotocol/);
        assert.ok(e.message.includes(srv.url), e.message);
        return true;
      });
    });

    it('close() is idempotent and onclose fires once, with the client as the reason', async () => {
      const srv = await rawServer(() => undefined);
      cleanups.push(() => srv.close());
      const t = transport(srv.url);
      const infos: TransportCloseInfo[] = [];
      t.onclose = (i) => infos.push(i);
      await t.start();
      const a = t.close();
      const b = t.close();
      assert.equal(a, b, 'concurrent close() calls share one promise');
      await Promise.all([a, b]);
      await t.close();
      assert.equal(infos.length, 1);
      assert.equal(infos[0].reason, 'closed by the client');
      assert.equal(infos[0].code, 1000);
      await assert.rejects(t.start(), /already started/);
    });

    it('close() drops a socket whose server never answers the close frame', async () => {
      // A hand-made endpoint: completes the upgrade, then ignores every byte (no close frame back).
      const sockets: Socket[] = [];
      const srv = createServer((sock) => {
        sockets.push(sock);
        sock.once('data', (d) => {
          const key = /sec-websocket-key: *(\S+)/i.exec(d.toString())?.[1] ?? '';
          const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
          sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: mcp\r\n\r\n`);
        });
        sock.on('error', () => undefined);
      });
      await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
      cleanups.push(() => {
        for (const s of sockets) s.destroy();
        return new Promise<void>((resolve) => srv.close(() => resolve()));
      });
      const log = recordingLogger();
      const t = transport(`ws://127.0.0.1:${(srv.address() as AddressInfo).port}`, { closeTimeoutMs: 200, logger: log });
      let closes = 0;
      t.onclose = () => closes++;
      await t.start();
      await t.close();
      // Ended by its own 200 ms, not by ws's 30 s (longer than the test may last), however slow the machine.
      assert.ok(log.lines.some((l) => /^trace WebSocket \S+ did not close within 200 ms; terminating it/.test(l)), log.lines.join('\n'));
      assert.equal(closes, 1);
    });

    /** The transport bundled as it ships (ws stripped as esbuild.js strips it), built once. */
    let shipped: Promise<typeof WebSocketTransport> | undefined;
    const shippedTransport = (): Promise<typeof WebSocketTransport> =>
      (shipped ??= (async () => {
        const root = path.resolve(__dirname, '../../../..');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { wsBundling } = require(path.join(root, 'esbuild.js')) as { wsBundling: { alias: Record<string, string>; plugins: Plugin[] } };
        const out = path.join(mkdtempSync(path.join(tmpdir(), 'mcp-tasks-ws-bundle-')), 'websocket.js');
        const built = await build({ entryPoints: [path.join(root, 'src/core/transports/websocket.ts')], absWorkingDir: root, bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent', ...wsBundling, metafile: true });
        const inputs = Object.keys(built.metafile.inputs);
        assert.ok(inputs.some((i) => i.startsWith('ws-stub:')) && !inputs.some((i) => /ws[\\/]lib[\\/](permessage-deflate|extension|event-target)\.js$/.test(i)), `ws parts bundled: ${inputs.join(', ')}`);
        // Nor its binaryType (its comments aside): a message is always the Buffer the transport takes.
        assert.doesNotMatch(readFileSync(out, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, ''), /binaryType|arraybuffer|BINARY_TYPES/);
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const Bundled = (require(out) as { WebSocketTransport: typeof WebSocketTransport }).WebSocketTransport;
        rmSync(path.dirname(out), { recursive: true, force: true });
        assert.notEqual(Bundled, WebSocketTransport);
        return Bundled;
      })());

    it('works as shipped: bundled with ws stripped of deflate, extensions and its EventTarget API (esbuild.js)', async function () {
      this.timeout(30_000);
      const Bundled = await shippedTransport();
      const f = await fixture();
      const t = new Bundled({ url: f.url, logger: recordingLogger(), serverName: 'bundled' });
      cleanups.push(() => t.close());
      const conn = new JsonRpcConnection(t, { logger: recordingLogger() });
      await conn.start();
      assert.equal((await initialize(conn)).protocolVersion, PROTOCOL_VERSION);
      const call = await conn.requestRaw('tools/call', { name: 'echo', arguments: { message: 'as shipped' } });
      assert.deepEqual(call.content, [{ type: 'text', text: 'as shipped' }]);
      let closed: TransportCloseInfo | undefined;
      t.onclose = (info) => (closed = info);
      await t.close();
      assert.equal(closed?.reason, 'closed by the client');
    });

    it('as shipped (without ws\'s binaryType), takes frames whole and in fragments, text and binary, as with ws unbundled', async function () {
      this.timeout(30_000);
      const Bundled = await shippedTransport();
      const srv = await rawServer((ws) => {
        ws.send(Buffer.from([1, 2, 3]), { binary: true });
        ws.send(Buffer.from([4, 5]), { binary: true, fin: false });
        ws.send(Buffer.from([6]), { binary: true, fin: true });
        ws.send('{"jsonrpc":"2.0",', { fin: false });
        ws.send('"method":"notifications/é"}', { fin: true });
      });
      cleanups.push(() => srv.close());
      const heard = async (t: WebSocketTransport): Promise<string[]> => {
        cleanups.push(() => t.close());
        const said: string[] = [];
        const all = next<void>((cb) => {
          t.onerror = (e) => said.push(`error: ${e.message}`);
          t.onmessage = (m) => (said.push(`message: ${JSON.stringify(m)}`), cb());
        });
        await t.start();
        await all;
        await t.close();
        return said;
      };
      const unbundled = await heard(transport(srv.url));
      assert.deepEqual(unbundled, [
        'error: Ignored a binary frame of 3 bytes (MCP sends JSON in text frames)',
        'error: Ignored a binary frame of 3 bytes (MCP sends JSON in text frames)',
        'message: {"jsonrpc":"2.0","method":"notifications/é"}',
      ]);
      assert.deepEqual(await heard(new Bundled({ url: srv.url, logger: recordingLogger(), serverName: 'test' })), unbundled);
    });

    // esbuild.js's WS_FIXED drops the ws code that deflate and redirects need, as the transport
    // asks for neither: what the server answers about them is refused as ws itself refuses it.
    for (const [what, answer, expected] of [
      ['a redirect is not followed: it refuses the connection as any other answer does', 'HTTP/1.1 302 Found\r\nLocation: ws://127.0.0.1:1/\r\nContent-Length: 0\r\n\r\n', /^start: .* refused the WebSocket connection with HTTP 302 Found/],
      ['an extension it did not offer fails the handshake', 'upgrade+Sec-WebSocket-Extensions: permessage-deflate\r\n', /^start: .*Server sent a Sec-WebSocket-Extensions header but no extension was requested/],
      ['a compressed frame closes the connection with 1002', 'upgrade', /^closed: 1002 /],
    ] as const) {
      it(`as shipped, ${what}, as with ws unbundled`, async function () {
        this.timeout(30_000);
        const sockets: Socket[] = [];
        const srv = createServer((sock) => {
          sockets.push(sock);
          sock.on('error', () => undefined);
          sock.once('data', (d) => {
            if (!answer.startsWith('upgrade')) return void sock.end(answer);
            const key = /sec-websocket-key: *(\S+)/i.exec(d.toString())?.[1] ?? '';
            const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
            sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: mcp\r\n${answer.slice('upgrade+'.length)}\r\n`);
            // A text frame "hi" with RSV1 set: compressed, which needs the deflate extension.
            sock.write(Buffer.from([0xc1, 0x02, 0x68, 0x69]));
          });
        });
        await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
        cleanups.push(() => {
          for (const s of sockets) s.destroy();
          return new Promise<void>((resolve) => srv.close(() => resolve()));
        });
        const url = `ws://127.0.0.1:${(srv.address() as AddressInfo).port}`;
        const outcome = async (t: WebSocketTransport): Promise<string> => {
          cleanups.push(() => t.close());
          const closed = next<TransportCloseInfo>((cb) => (t.onclose = cb));
          try {
            await t.start();
          } catch (err) {
            return `start: ${(err as Error).message}`;
          }
          const info = await closed;
          return `closed: ${info.code} ${info.reason}`;
        };
        const Bundled = await shippedTransport();
        const unbundled = await outcome(new WebSocketTransport({ url, logger: recordingLogger(), serverName: 'test' }));
        assert.match(unbundled, expected);
        assert.equal(await outcome(new Bundled({ url, logger: recordingLogger(), serverName: 'test' })), unbundled);
      });
    }

    it("hands ws nothing but strings to send (esbuild.js's WS_SENDS), as the bundle drops ws's Blob path; the build tells any other argument", () => {
      const root = path.resolve(__dirname, '../../../..');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { wsSends } = require(path.join(root, 'esbuild.js')) as { wsSends: (file: string, text: string) => string };
      const file = path.join(root, 'src/core/transports/websocket.ts');
      const text = readFileSync(file, 'utf8');
      assert.equal(wsSends(file, text), 'close(1000), ping(), send(text)');
      assert.equal(wsSends(file, text.replace('ws.send(text, ', 'ws.send(message, ')), 'close(1000), ping(), send(message, not known to be a string)');
    });

    it("listens with on(), never through the DOM-style API or binaryType the bundle drops (esbuild.js's wsDomStyle); the build tells any use", () => {
      const root = path.resolve(__dirname, '../../../..');
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { wsDomStyle } = require(path.join(root, 'esbuild.js')) as { wsDomStyle: (file: string, text: string) => string[] };
      const file = path.join(root, 'src/core/transports/websocket.ts');
      const text = readFileSync(file, 'utf8');
      assert.deepEqual(wsDomStyle(file, text), []);
      const dom = text.replace("ws.on('pong', ", "ws.onmessage = () => undefined;\n        ws.binaryType = 'arraybuffer';\n        ws.addEventListener('pong', ");
      assert.deepEqual(wsDomStyle(file, dom).map((use) => use.replace(/^.*:\d+ /, '')), ['onmessage', 'binaryType', 'addEventListener']);
      // However the WebSocket is reached: cast, read by name, held by another variable or field.
      const reached = text.replace(
        "ws.on('pong', ",
        "(ws as any).onmessage = noop;\n        (<WebSocket>this.#ws!)['onclose'] = noop;\n        const socket = ws;\n        socket.onerror = noop;\n        (socket satisfies WebSocket)[`removeEventListener`]('x', noop);\n        ws.on('pong', ",
      );
      assert.deepEqual(wsDomStyle(file, reached).map((use) => use.replace(/^.*:\d+ /, '')), ['onmessage', 'onclose', 'onerror', 'removeEventListener']);
      // The transport's own handlers, and an AbortSignal's listener, are not ws's.
      const own = text.replace("ws.on('pong', ", "this.onerror?.(new Error('x'));\n        signal.addEventListener('abort', noop);\n        ws.on('pong', ");
      assert.deepEqual(wsDomStyle(file, own), []);
    });

    // What the build refuses, as the stripped ws would misbehave: [what, the importing file, the refusal].
    for (const [what, entry, refusal] of [
      // Renamed with ws's `_socket`, this read would find nothing in the bundle alone.
      ["a file outside ws that names one of the ws fields the bundle renames (esbuild.js's MANGLED)", 'module.exports = (req) => req._socket;\n', /entry\.js names _socket, a property the bundle renames for .*ws[\\/]lib/],
      // With ws's defaults (deflate offered, redirects followed), the code WS_FIXED drops would run.
      ["ws for a file other than the WebSocket transport, whose options esbuild.js's WS_FIXED relies on", "module.exports = (url) => new (require('ws'))(url);\n", /entry\.js imports ws, which esbuild\.js's WS_FIXED bundles for .*websocket\.ts alone/],
    ] as const) {
      it(`refuses to bundle ${what}`, async function () {
        this.timeout(30_000);
        const root = path.resolve(__dirname, '../../../..');
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { wsBundling } = require(path.join(root, 'esbuild.js')) as { wsBundling: { alias: Record<string, string>; plugins: Plugin[] } };
        const dir = mkdtempSync(path.join(tmpdir(), 'mcp-tasks-ws-refused-'));
        cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
        writeFileSync(path.join(dir, 'entry.js'), entry);
        await assert.rejects(build({ entryPoints: [path.join(dir, 'entry.js')], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent', ...wsBundling }), refusal);
      });
    }
  });

  describe('start() failures', () => {
    it('rejects against a closed port with a message naming the server and url, and asking whether the server runs (as over HTTP)', async () => {
      const url = `ws://127.0.0.1:${await closedPort()}`;
      const t = transport(url, { serverName: 'gone' });
      let closes = 0;
      t.onclose = () => closes++;
      await assert.rejects(t.start(), (e: Error) => {
        assert.ok(e instanceof TransportHttpError);
        assert.equal(e.message, `Could not connect to server "gone" at ${url}: connection refused (ECONNREFUSED): is the server running?`);
        return true;
      });
      await t.close();
      assert.equal(closes, 0);
    });

    it('reconnected to a server that answered in this session and now resets the connection (a port-forward whose server restarts): asks whether it runs, not whether it expects TLS', async () => {
      let up = true;
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp', verifyClient: (info, cb) => (up ? cb(true) : info.req.socket.destroy()) });
      await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
      cleanups.push(() => new Promise<void>((resolve) => (wss.clients.forEach((c) => c.terminate()), wss.close(() => resolve()))));
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
      const first = transport(url);
      await first.start();
      await first.close();
      up = false;
      await assert.rejects(transport(url).start(), (e: Error) => {
        assert.equal(e.message, `Could not connect to server "test" at ${url}: the connection closed before any answer (ECONNRESET): is the server running?`);
        return true;
      });
    });

    it('a server that refused the upgrade over HTTP (it answered: 503 while it starts) and then resets the connection: asks whether it runs, not whether it expects TLS', async () => {
      let answers = true;
      const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, verifyClient: (info, cb) => (answers ? cb(false, 503) : info.req.socket.destroy()) });
      await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
      cleanups.push(() => new Promise<void>((resolve) => wss.close(() => resolve())));
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/ws`;
      await assert.rejects(transport(url).start(), /HTTP 503/);
      answers = false;
      await assert.rejects(transport(url).start(), (e: Error) => {
        assert.equal(e.message, `Could not connect to server "test" at ${url}: the connection closed before any answer (ECONNRESET): is the server running?`);
        return true;
      });
    });

    it('a server whose port answered over HTTP (http://, or a WebSocket as ws://) and then resets the connection: asks whether it runs over either scheme, not whether it expects TLS (one host and port, whichever scheme)', async () => {
      let up = true;
      const server = createHttpServer((req, res) => (up ? res.writeHead(404).end() : req.socket.destroy()));
      const wss = new WebSocketServer({ server, handleProtocols: () => 'mcp', verifyClient: (info, cb) => (up ? cb(true) : info.req.socket.destroy()) });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      cleanups.push(() => new Promise<void>((resolve) => (wss.clients.forEach((c) => c.terminate()), wss.close(), server.close(() => resolve()))));
      const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
      const running = 'the connection closed before any answer (ECONNRESET): is the server running?';
      await transportFetch(recordingLogger(), 'GET', `http://${hostPort}/`, {}, {}, { signal: AbortSignal.timeout(5000) });
      up = false;
      await assert.rejects(transport(`ws://${hostPort}/ws`).start(), (e: Error) => (assert.equal(e.message, `Could not connect to server "test" at ws://${hostPort}/ws: ${running}`), true));
      answeredOrigins.clear();
      up = true;
      const first = transport(`ws://${hostPort}/ws`);
      await first.start();
      await first.close();
      up = false;
      await assert.rejects(transportFetch(recordingLogger(), 'GET', `http://${hostPort}/`, {}, {}, { signal: AbortSignal.timeout(5000) }), (e: Error) => (assert.equal(networkError('test', `http://${hostPort}/`, e).message, `Could not reach server "test" at http://${hostPort}/: ${running}`), true));
    });

    it('a 404 to the upgrade (a wrong path) says to check "url" in its configuration', async () => {
      const server = await hostileServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found'));
      cleanups.push(() => server.close());
      const url = server.url('/typo').replace('http:', 'ws:');
      await assert.rejects(transport(url, { serverName: 'moved' }).start(), (e: Error) => {
        assert.ok(e instanceof TransportHttpError);
        assert.equal(e.status, 404);
        assert.equal(e.message, `server "moved" at ${url} refused the WebSocket connection with HTTP 404 Not Found: check "url" in its configuration`);
        return true;
      });
    });

    it('401 and 403 to the upgrade give the advice HTTP gives: a token sent (in its "Authorization" header, any case) was refused, or else how to add one (from ${env:…}), after the start of the body', async () => {
      const server = await hostileServer((req, res) => {
        const status = Number(req.url?.slice(1, 4));
        // An OAuth challenge (but on /plain), which is no answer to a token that was sent and refused.
        const challenge = req.url?.endsWith('/plain') ? {} : { 'www-authenticate': 'Bearer realm="mcp", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"' };
        res.writeHead(status, { 'content-type': 'application/json', ...challenge });
        res.end(`{"error":"${status === 401 ? 'unknown token' : 'not allowed'}"}`);
      });
      cleanups.push(() => server.close());
      const said = async (p: string, headers?: Record<string, string>) => {
        const url = server.url(p).replace('http:', 'ws:');
        const err = await transport(url, { serverName: 'guarded', headers }).start().then(() => assert.fail('connected'), (e: Error) => e);
        assert.ok(err instanceof TransportHttpError);
        assert.equal(err.status, Number(p.slice(1, 4)));
        return err.message.replace(url, 'URL');
      };
      // A WebSocket server is configured in settings, where inputs are not allowed: the token
      // comes from the environment, and no saved input is asked again.
      const refused = 'The token sent in its "Authorization" header was refused: check it.';
      const addIt = 'If it needs a token, add it under "headers" in its configuration, e.g. "Authorization": "Bearer ${env:MCP_TOKEN}".';
      assert.equal(await said('/401', { Authorization: 'Bearer wrong' }), `server "guarded" at URL refused the WebSocket connection with HTTP 401 Unauthorized: "{"error":"unknown token"}". ${refused}`);
      assert.equal(await said('/403', { authorization: 'Bearer wrong' }), `server "guarded" at URL refused the WebSocket connection with HTTP 403 Forbidden: "{"error":"not allowed"}". ${refused}`);
      assert.equal(await said('/403', { 'X-Api-Key': 'k' }), `server "guarded" at URL refused the WebSocket connection with HTTP 403 Forbidden: "{"error":"not allowed"}". ${addIt}`);
      // No token sent: the challenge's OAuth sign-in is said.
      assert.match(await said('/401'), /^server "guarded" at URL refused the WebSocket connection with HTTP 401 Unauthorized: it asks to sign in with OAuth, .* add it under "headers" in its configuration, e\.g\. "Authorization": "Bearer \$\{env:MCP_TOKEN\}"\.$/);
      assert.equal(await said('/401/plain'), `server "guarded" at URL refused the WebSocket connection with HTTP 401 Unauthorized: "{"error":"unknown token"}". ${addIt}`);
    });

    it('a web page answered instead of a WebSocket (a proxy\'s sign-in page) names itself and says what to do (a token from ${env:…}: a WebSocket server is configured in settings), not "refused with HTTP 200 OK"', async () => {
      const page = `<!doctype html><html><head><title>Sign in</title><script>${'var a=1;'.repeat(40)}</script></head><body><form><h1>Sign in to Contoso</h1><input name="user"></form></body></html>`;
      const server = await hostileServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
      cleanups.push(() => server.close());
      const url = server.url('/mcp').replace('http:', 'ws:');
      await assert.rejects(transport(url, { serverName: 'proxied' }).start(), (e: Error) => {
        assert.ok(e instanceof TransportHttpError);
        assert.equal(e.status, 200);
        assert.equal(
          e.message,
          `server "proxied" at ${url} answered HTTP 200 OK with a web page ("Sign in") instead of a WebSocket: check "url" in its configuration; if the page is a sign-in page, give the server its credentials under "headers" there, e.g. "Authorization": "Bearer \${env:MCP_TOKEN}".`,
        );
        return true;
      });
    });

    it('a web page that stalls mid-body is told by what arrived (status, its title if it came), without waiting for the handshake timeout', async function () {
      // The handshake timeout is a minute, the test's 10 s: the answer must not wait for it.
      this.timeout(10_000);
      const server = await hostileServer((req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        // The rest of the page never comes; the connection stays open.
        res.write(req.url === '/titled' ? '<!doctype html><html><head><title>Sign in to Contoso</title></head><body><nav>' : '<!doctype html><html><head><meta charset="utf-8">');
      });
      cleanups.push(() => server.close());
      const said = async (p: string) => {
        const url = server.url(p).replace('http:', 'ws:');
        const err = await transport(url, { serverName: 'proxied', connectTimeoutMs: 60_000 }).start().then(() => assert.fail('connected'), (e: Error) => e);
        assert.ok(err instanceof TransportHttpError);
        assert.equal(err.status, 200);
        return err.message.replace(url, 'URL');
      };
      const what = 'instead of a WebSocket: check "url" in its configuration; if the page is a sign-in page, give the server its credentials under "headers" there, e.g. "Authorization": "Bearer ${env:MCP_TOKEN}".';
      assert.equal(await said('/titled'), `server "proxied" at URL answered HTTP 200 OK with a web page ("Sign in to Contoso") ${what}`);
      assert.equal(await said('/untitled'), `server "proxied" at URL answered HTTP 200 OK with a web page ${what}`);
    });

    it('rejects an invalid url without throwing', async () => {
      await assert.rejects(transport('not a url').start(), /Could not connect to server "test" at not a url/);
    });

    it('keeps credentials in the url out of its description', () => {
      const t = new WebSocketTransport({ url: 'ws://user:pw@127.0.0.1:1/mcp', logger: recordingLogger(), serverName: 's' });
      assert.equal(t.description, 'ws: ws://127.0.0.1:1/mcp');
    });
  });
});
