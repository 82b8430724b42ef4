import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import type { Transport, TransportCloseInfo } from '../../../src/core/transports/transport';
import { MemoryLogger } from './logger';

const root = path.resolve(__dirname, '../../../..');
const fixturePath = path.join(root, 'test/fixtures/servers/http-fixture.mjs');

/** A request as the fixture recorded it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** Ends a child process and waits until it is gone (SIGKILL if it lingers). */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  try {
    await exited;
  } finally {
    clearTimeout(timer);
  }
}

/** Our scripted node:http fixture (test/fixtures/servers/http-fixture.mjs), on a free port. */
export class HttpFixture {
  private child?: ChildProcess;
  port = 0;

  /** For a describe block: the fixture, started before its tests, reset before each and stopped after them. */
  static forSuite(): HttpFixture {
    const fx = new HttpFixture();
    before(() => fx.start());
    after(() => fx.stop());
    beforeEach(() => fx.reset());
    return fx;
  }

  private async start(): Promise<void> {
    const child = spawn(process.execPath, [fixturePath], { stdio: ['pipe', 'pipe', 'inherit'] });
    this.child = child;
    this.port = await new Promise<number>((resolve, reject) => {
      let out = '';
      const onData = (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const nl = out.indexOf('\n');
        if (nl < 0) return;
        cleanup();
        resolve((JSON.parse(out.slice(0, nl)) as { port: number }).port);
      };
      const onExit = (code: number | null) => {
        cleanup();
        reject(new Error(`http fixture exited with ${code} before listening`));
      };
      const cleanup = () => {
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
      };
      child.stdout!.on('data', onData);
      child.on('exit', onExit);
    });
    child.stdout!.resume();
  }

  /** The URL of `path` on the fixture, e.g. `url('/json/mcp')`. */
  url(p: string): string {
    return `http://127.0.0.1:${this.port}${p}`;
  }

  async requests(): Promise<RecordedRequest[]> {
    const r = await fetch(this.url('/_requests'));
    return (await r.json()) as RecordedRequest[];
  }

  async reset(): Promise<void> {
    await (await fetch(this.url('/_reset'), { method: 'POST' })).body?.cancel();
  }

  async stop(): Promise<void> {
    if (this.child) await stopProcess(this.child);
  }
}

/** A port that was free a moment ago (for servers that take a port but cannot report one they picked). */
export async function freePort(): Promise<number> {
  const srv = net.createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** A transport under test, its connection, and what the transport reported beside the messages. */
export interface RecordedClient<T extends Transport> {
  log: MemoryLogger;
  transport: T;
  conn: JsonRpcConnection;
  /** What the transport reported through `onerror` (the connection only logs it). */
  errors: Error[];
  closes: TransportCloseInfo[];
}

/** Wraps `transport` in a connection, recording its errors and closes on top of the connection's handlers. */
export function recordClient<T extends Transport>(transport: T, log: MemoryLogger): RecordedClient<T> {
  const conn = new JsonRpcConnection(transport, { logger: log, defaultTimeoutMs: 10_000 });
  const c: RecordedClient<T> = { log, transport, conn, errors: [], closes: [] };
  const onerror = transport.onerror;
  transport.onerror = (e) => {
    c.errors.push(e);
    onerror?.(e);
  };
  const onclose = transport.onclose;
  transport.onclose = (info) => {
    c.closes.push(info);
    onclose?.(info);
  };
  return c;
}

/**
 * For a test file: `client(...)` wraps the transport that `make` builds over a new log, as
 * recordClient does; `open` holds the clients made, each closed after its test.
 */
export function clientsForEachTest<A extends unknown[], T extends Transport>(make: (log: MemoryLogger, ...args: A) => T): { client(...args: A): RecordedClient<T>; open: Array<RecordedClient<T>> } {
  const open: Array<RecordedClient<T>> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.conn.close()));
  });
  return {
    open,
    client: (...args) => {
      const log = new MemoryLogger();
      const c = recordClient(make(log, ...args), log);
      open.push(c);
      return c;
    },
  };
}

/** A hand-written HTTP server on 127.0.0.1, for servers too hostile for the fixture. */
export interface HostileServer {
  url(p: string): string;
  /** Ends every open connection and stops listening. */
  close(): Promise<void>;
}

/**
 * For a describe block of hostile servers: `hostileServer`, each server closed after its test,
 * once the clients the test opened (`open`, emptied) are closed. Call it in the block's body.
 */
export function hostileServersForEachTest(open: Array<{ conn: { close(): Promise<void> } }>): typeof hostileServer {
  const servers: HostileServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((c) => c.conn.close()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (handler) => {
    const server = await hostileServer(handler);
    servers.push(server);
    return server;
  };
}

/** Serves `handler` on a free port of 127.0.0.1; the request body is read before the handler runs. */
export async function hostileServer(handler: (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void): Promise<HostileServer> {
  const srv = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => handler(req, res, body));
  });
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as net.AddressInfo).port;
  return {
    url: (p) => `http://127.0.0.1:${port}${p}`,
    close: () => {
      srv.closeAllConnections();
      return new Promise((resolve) => srv.close(() => resolve()));
    },
  };
}
