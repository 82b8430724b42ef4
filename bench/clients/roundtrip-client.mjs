#!/usr/bin/env node
// One round-trip client in a process of its own: `ours` (McpSession + StdioTransport from
// src/core), `sdk` (@modelcontextprotocol/sdk Client + StdioClientTransport) or `bare` (spawn,
// JSON lines, ids matched, nothing validated: the floor). Each talks to its own
// bench/servers/echo-server.mjs over stdio and calls its `echo` tool with a 1 KB argument.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildDir, cpuSince, serversDir } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
const kind = process.argv[2];
// For A/B experiments with a patched core: the bundle to load instead of core.cjs.
const coreFile = process.argv[3] ?? join(buildDir, 'core.cjs');
const serverArgs = [join(serversDir, 'echo-server.mjs')];
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error: (m) => process.stderr.write(`[${kind}] ${m}\n`), traceEnabled: false };

/** Connects and returns `{ call(text), close() }`. */
async function connect() {
  if (kind === 'ours') {
    const { McpSession, StdioTransport, CallToolResultSchema } = require(coreFile);
    const transport = new StdioTransport({ command: process.execPath, args: serverArgs, logger: quiet });
    const session = new McpSession(transport, { logger: quiet, clientInfo: { name: 'bench-ours', version: '1' } });
    await session.connect();
    return {
      call: (text) => session.request('tools/call', { name: 'echo', arguments: { text } }, CallToolResultSchema),
      close: () => session.close(),
    };
  }
  if (kind === 'sdk') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const client = new Client({ name: 'bench-sdk', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: serverArgs, stderr: 'inherit' }));
    return { call: (text) => client.callTool({ name: 'echo', arguments: { text } }), close: () => client.close() };
  }
  if (kind === 'bare') return bareClient();
  throw new Error(`unknown client ${kind}`);
}

/** The floor: what any client must do at least (spawn, frame, parse, match ids). */
async function bareClient() {
  const child = spawn(process.execPath, serverArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
  const pending = new Map();
  let nextId = 1;
  let buf = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buf += chunk;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const msg = JSON.parse(line);
      const done = pending.get(msg.id);
      if (done) {
        pending.delete(msg.id);
        done(msg);
      }
    }
  });
  const request = (method, params) =>
    new Promise((resolve) => {
      const id = nextId++;
      pending.set(id, resolve);
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-bare', version: '1' } });
  child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return {
    call: (text) => request('tools/call', { name: 'echo', arguments: { text } }),
    close: async () => {
      child.stdin.end();
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    },
  };
}

let client;
serveWorker({
  async start() {
    client = await connect();
    return { pid: process.pid };
  },
  /** `calls` calls with `inflight` of them outstanding at a time; CPU and wall time of the lot. */
  async round({ calls, inflight, bytes }) {
    const text = 'x'.repeat(bytes);
    let started = 0;
    const lane = async () => {
      while (started < calls) {
        started++;
        const r = await client.call(text);
        if (kind !== 'bare' && r.content[0].text.length !== bytes) throw new Error('bad echo');
      }
    };
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: Math.min(inflight, calls) }, lane));
    return { calls, wallMs: performance.now() - t0, cpuUs: cpuSince(cpu0) };
  },
  async stop() {
    await client?.close();
    client = undefined;
  },
});
