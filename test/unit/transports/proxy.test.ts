import * as assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { LegacySseTransport } from '../../../src/core/transports/sse';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import type { Transport } from '../../../src/core/transports/transport';
import type { TransportHttpError } from '../../../src/core/transports/transport';
import { WebSocketTransport } from '../../../src/core/transports/websocket';
import { MemoryLogger } from '../helpers/logger';

/**
 * In the editor, requests go through the user's proxy (`http.proxy`, HTTP(S)_PROXY, the system's):
 * the editor patches node:http(s), which the HTTP transports and ws use. A proxy that wants
 * credentials answers 407, and the editor hands that answer to the transport as the server's,
 * whether the server is http:// (a forwarded request), https:// (a refused CONNECT) or ws://
 * (checked in code-server 4.139.1 against a proxy of our own). Here, without the editor, a server
 * answers 407 as that proxy does.
 */
describe('a proxy that asks for credentials (HTTP 407)', function () {
  this.timeout(15_000);
  let server: http.Server;
  let base = '';
  const refuse = (write: (head: string) => void) =>
    write('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="corp"\r\nContent-Type: text/html\r\nContent-Length: 71\r\nConnection: close\r\n\r\n<html><head><title>Proxy Authentication Required</title></head></html>');
  before(async () => {
    server = http.createServer((req, res) => {
      req.resume();
      refuse((head) => res.socket!.end(head));
    });
    server.on('upgrade', (_req, socket) => refuse((head) => socket.end(head)));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  const failure = async (transport: Transport): Promise<TransportHttpError> => {
    try {
      await transport.start();
      if (transport instanceof StreamableHttpTransport) await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} });
    } catch (err) {
      return err as TransportHttpError;
    } finally {
      await transport.close();
    }
    throw new Error('no failure');
  };
  const options = (url: string) => ({ url, logger: new MemoryLogger(), serverName: 's' });
  const advice = 'the proxy between the editor and the server asks for credentials (HTTP 407): put them in the editor\'s "http.proxy" setting, as http://user:password@host:port';

  it('says it is the proxy that refused, not the server, and where its credentials go, over Streamable HTTP, legacy SSE and a WebSocket', async () => {
    for (const [transport, url, start] of [
      [StreamableHttpTransport, `http://${base}/mcp`, 'Could not reach server "s" at'],
      [LegacySseTransport, `http://${base}/sse`, 'Could not reach server "s" at'],
      [WebSocketTransport, `ws://${base}/ws`, 'Could not connect to server "s" at'],
    ] as const) {
      const err = await failure(new transport(options(url)));
      assert.equal(err.message, `${start} ${url}: ${advice}`);
      assert.equal(err.status, 407);
    }
  });
});
