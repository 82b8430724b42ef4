#!/usr/bin/env node
// `npm start`: the packaged extension in code-server on demo/workspace, with the demo server
// running over HTTP next to it (its stdio twin and server-everything are started by the
// extension from demo/workspace/.vscode/mcp.json). Prints the URL to open; Ctrl-C stops it all.
//
// Usage: node scripts/editor/start-demo.mjs [--port N] [--vsix FILE]
//   --port N     code-server's port on 127.0.0.1 (default: the last run's when it is free, else a
//                free one: the editor keeps a folder's tasks and layout by its address, port included)
//   --vsix FILE  install this package instead of building it (npm run package)
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { URLSearchParams } from 'node:url';
import { parseArgs } from 'node:util';
import { cleanupOnSignals, codeServerCommand, ensureSetup, freePort, isCleaningUp, packageExtension, registerCleanup, repoRoot, runCleanups, startCodeServer, toolsDir } from './codeServer.mjs';

const { values: opts } = parseArgs({ options: { port: { type: 'string' }, vsix: { type: 'string' } } });
const workspace = join(repoRoot, 'demo', 'workspace');
// Kept between runs, so the demo remembers its layout and finished tasks. The workbench keeps them by
// the folder's address (vscode-remote://127.0.0.1:PORT/...): the last run's port is taken again if free.
const demoDir = join(toolsDir, 'demo');
const portFile = join(demoDir, 'port');
const log = (msg) => console.log(`[demo] ${msg}`);

/** Starts `node demo/server.mjs http --port 0` in its own process group; resolves with its port. */
function startHttpDemoServer() {
  const child = spawn(process.execPath, [join(repoRoot, 'demo', 'server.mjs'), 'http', '--port', '0'], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  registerCleanup(() => {
    try {
      process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  });
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const m = /^listening (\d+)$/m.exec(buffered);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code, signal) => reject(new Error(`demo/server.mjs http exited (${code ?? signal}) before listening`)));
  });
}

async function main() {
  cleanupOnSignals();
  if (ensureSetup() === 'not-run') throw new Error('editor setup needs system packages (see above)');
  let vsix = opts.vsix;
  if (!vsix) {
    log('packaging: npm run package');
    vsix = await packageExtension();
  }
  const extensionsDir = join(demoDir, 'extensions');
  mkdirSync(extensionsDir, { recursive: true });
  log(`installing ${vsix}`);
  codeServerCommand(['--install-extension', vsix, '--force'], { extensionsDir, userDataDir: join(demoDir, 'user-data') });

  const httpPort = await startHttpDemoServer();
  log(`demo server (HTTP) on http://127.0.0.1:${httpPort}/mcp`);
  const server = await startCodeServer({
    folder: workspace,
    runDir: demoDir,
    extensionsDir,
    port: Number(opts.port) || (await freePort(existsSync(portFile) ? Number(readFileSync(portFile, 'utf8')) : 0).catch(() => freePort())),
    // demo/workspace/.vscode/mcp.json reads the port with ${env:MCP_TASKS_DEMO_HTTP_PORT}.
    env: { MCP_TASKS_DEMO_HTTP_PORT: String(httpPort) },
    echo: process.env.CODE_SERVER_ECHO === '1',
  });
  writeFileSync(portFile, String(server.port));
  console.log(`\nMCP Tasks demo is running. Open:\n\n  ${server.url}?${new URLSearchParams({ folder: workspace })}\n\nPress Ctrl-C to stop.`);
  const code = await server.exited;
  if (isCleaningUp()) return new Promise(() => {}); // Ctrl-C: the signal handler exits.
  log(`code-server exited on its own (${code}); log: ${server.logFile}`);
  await runCleanups();
  return 1;
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    console.error(`[demo] ${e instanceof Error ? e.message : e}`);
    await runCleanups();
    process.exit(1);
  },
);
