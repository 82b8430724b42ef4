import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { WebSocketServer } from 'ws';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import type { Transport } from '../../../src/core/transports/transport';
import { WebSocketTransport } from '../../../src/core/transports/websocket';
import { MemoryLogger } from '../helpers/logger';

const root = path.resolve(__dirname, '../../../..');
/** A self-signed certificate for 127.0.0.1 and localhost (valid for a century). */
const CERT = path.join(root, 'test/fixtures/tls/cert.pem');
const KEY = path.join(root, 'test/fixtures/tls/key.pem');
/** The same key's certificate for 127.0.0.1 and localhost that expired on 2 January 2020. */
const EXPIRED = path.join(root, 'test/fixtures/tls/expired-cert.pem');
/** The same key's certificate for mcp.other.test only (valid for a century). */
const OTHER_HOST = path.join(root, 'test/fixtures/tls/other-host-cert.pem');

/** Answers `initialize` with JSON (Streamable HTTP), anything else 202; upgrades to a WebSocket speaking mcp. */
const serveMcp = async (server: http.Server): Promise<number> => {
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const id = body ? (JSON.parse(body) as { id?: number }).id : undefined;
      if (id === undefined) res.writeHead(202).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'tls', version: '1' } } }));
    });
  });
  new WebSocketServer({ server, handleProtocols: () => 'mcp' });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
};

/** What `start` and a first request of the transport end with: 'answered' or the error's message, the url as URL. */
const outcome = async (transport: Transport, url: string): Promise<string> => {
  try {
    await transport.start();
    if (!(transport instanceof WebSocketTransport) && !(transport instanceof LegacySseTransport)) await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    return 'answered';
  } catch (err) {
    return (err as Error).message.replace(url, 'URL');
  } finally {
    await transport.close();
  }
};

const options = (url: string) => ({ url, logger: new MemoryLogger(), serverName: 's' });

describe('TLS: a certificate that is not trusted, and https to a server without TLS (real sockets)', function () {
  this.timeout(20_000);
  const servers: http.Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      s.close();
    }
  });
  const start = async (server: http.Server) => {
    servers.push(server);
    return serveMcp(server);
  };

  it('a self-signed certificate says it is not trusted and what to do (the system\'s trusted certificates, or NODE_EXTRA_CA_CERTS), over Streamable HTTP, legacy SSE and a WebSocket', async () => {
    const port = await start(https.createServer({ cert: readFileSync(CERT), key: readFileSync(KEY) }));
    const advice =
      "its TLS certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT): if it is self-signed or your organization's, add its certificate authority to the system's trusted certificates, or name its file in NODE_EXTRA_CA_CERTS and restart the editor";
    const http1 = `https://127.0.0.1:${port}/mcp`;
    assert.equal(await outcome(new StreamableHttpTransport(options(http1)), http1), `Could not reach server "s" at URL: ${advice}`);
    const sse = `https://127.0.0.1:${port}/sse`;
    assert.equal(await outcome(new LegacySseTransport(options(sse)), sse), `Could not reach server "s" at URL: ${advice}`);
    const ws = `wss://127.0.0.1:${port}/ws`;
    assert.equal(await outcome(new WebSocketTransport(options(ws)), ws), `Could not connect to server "s" at URL: ${advice}`);
  });

  /** What a first request to the server of `cert` at 127.0.0.1 ends with, in a process of its own that trusts `cert` (Node reads NODE_EXTRA_CA_CERTS once, at its start). */
  const trusting = async (cert: string): Promise<string> => {
    const port = await start(https.createServer({ cert: readFileSync(cert), key: readFileSync(KEY) }));
    const script = `
      const { StreamableHttpTransport } = require(${JSON.stringify(path.join(root, 'out/src/core/transports/streamableHttp'))});
      const t = new StreamableHttpTransport({ url: 'https://127.0.0.1:${port}/mcp', logger: { trace() {}, debug() {}, info() {}, warn() {}, error() {} }, serverName: 's' });
      t.onmessage = (m) => { console.log(m.result.serverInfo.name); t.close(); };
      t.start().then(() => t.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).catch((e) => console.log(e.message));`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', script], { env: { ...process.env, NODE_EXTRA_CA_CERTS: cert } }, (err, out) => (err ? reject(err) : resolve(out))),
    );
    return stdout.trim().replace(`https://127.0.0.1:${port}/mcp`, 'URL');
  };

  it('the advice works: with NODE_EXTRA_CA_CERTS naming the certificate, the same server answers', async () => {
    assert.equal(await trusting(CERT), 'tls');
  });

  it('an expired certificate says so and what to check (the server\'s certificate, this computer\'s clock), over Streamable HTTP and a WebSocket, not Node\'s "certificate has expired" alone', async () => {
    const port = await start(https.createServer({ cert: readFileSync(EXPIRED), key: readFileSync(KEY) }));
    const advice = "its TLS certificate has expired (CERT_HAS_EXPIRED): check the server's certificate, and this computer's date and time";
    const url = `https://127.0.0.1:${port}/mcp`;
    assert.equal(await outcome(new StreamableHttpTransport(options(url)), url), `Could not reach server "s" at URL: ${advice}`);
    const ws = `wss://127.0.0.1:${port}/ws`;
    assert.equal(await outcome(new WebSocketTransport(options(ws)), ws), `Could not connect to server "s" at URL: ${advice}`);
  });

  it('a trusted certificate for another host name says so and to check the host name in "url" against it, not Node\'s "Hostname/IP does not match certificate\'s altnames"', async () => {
    assert.equal(
      await trusting(OTHER_HOST),
      'Could not reach server "s" at URL: its TLS certificate is for another host name (ERR_TLS_CERT_ALTNAME_INVALID): check that the host name in "url" is one the certificate names',
    );
  });

  it('http:// (or ws://) to a server that speaks TLS says the connection closed without an answer and that it may expect https:// (or wss://), not Node\'s bare "socket hang up"', async () => {
    const port = await start(https.createServer({ cert: readFileSync(CERT), key: readFileSync(KEY) }));
    const advice = 'the connection closed before any answer (ECONNRESET): if the server expects TLS, use https:// (or wss://) in "url"';
    const url = `http://127.0.0.1:${port}/mcp`;
    assert.equal(await outcome(new StreamableHttpTransport(options(url)), url), `Could not reach server "s" at URL: ${advice}`);
    const sse = `http://127.0.0.1:${port}/sse`;
    assert.equal(await outcome(new LegacySseTransport(options(sse)), sse), `Could not reach server "s" at URL: ${advice}`);
    const ws = `ws://127.0.0.1:${port}/ws`;
    assert.equal(await outcome(new WebSocketTransport(options(ws)), ws), `Could not connect to server "s" at URL: ${advice}`);
  });

  it('https:// (or wss://) to a server that speaks plain HTTP says the handshake failed and to use http:// (or ws://), not OpenSSL\'s words', async () => {
    const port = await start(http.createServer());
    const advice = 'the TLS handshake failed (EPROTO): if the server speaks plain HTTP, use http:// (or ws://) in "url"';
    const url = `https://127.0.0.1:${port}/mcp`;
    assert.equal(await outcome(new StreamableHttpTransport(options(url)), url), `Could not reach server "s" at URL: ${advice}`);
    const ws = `wss://127.0.0.1:${port}/ws`;
    assert.equal(await outcome(new WebSocketTransport(options(ws)), ws), `Could not connect to server "s" at URL: ${advice}`);
  });
});
