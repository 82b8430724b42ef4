#!/usr/bin/env node
// Installs what the in-editor tests need: Debian packages (Chromium, headers and compilers for
// code-server's native modules), Node 24 from the npm registry, and code-server, all under
// .vscode-test/. Idempotent: a warm run only checks and takes a few seconds.
//
// Exit codes: 0 ready; 1 failed; 3 (EXIT_NEEDS_SYSTEM_PACKAGES) system packages are missing and we
// are not root: the exact apt command is printed and the runners report their layer as "not run".
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  CODE_SERVER_VERSION,
  EXIT_NEEDS_SYSTEM_PACKAGES,
  NODE_MAJOR,
  chromiumPath,
  codeServerBin,
  codeServerDir,
  editorEnv,
  node24Bin,
  node24Dir,
  toolsDir,
} from './codeServer.mjs';

const SYSTEM_PACKAGES = ['chromium', 'libkrb5-dev', 'build-essential', 'pkg-config', 'python3'];
const started = Date.now();
const log = (msg) => console.log(`[setup] ${msg}`);

/** Runs a command with inherited output; throws with the command line when it fails. */
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${r.status ?? r.signal}`);
}

/** Runs a command quietly and returns its trimmed stdout, or undefined when it fails. */
function probe(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000, ...opts });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function missingSystemPackages() {
  return SYSTEM_PACKAGES.filter((p) => !probe('dpkg-query', ['-W', '-f=${Status}', p])?.includes('install ok installed'));
}

function ensureSystemPackages() {
  const missing = missingSystemPackages();
  if (missing.length === 0 && existsSync(chromiumPath)) return log('system packages present');
  const aptCommand = `apt-get update && apt-get install -y ${missing.join(' ')}`;
  if (process.getuid?.() !== 0) {
    console.error(`[setup] missing system packages: ${missing.join(' ')}\n[setup] install them with:\n  sudo sh -c '${aptCommand}'`);
    throw Object.assign(new Error('system packages missing'), { exitCode: EXIT_NEEDS_SYSTEM_PACKAGES });
  }
  log(`installing ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env });
}

/** A folder with its own package.json, so npm installs there and never walks up to the repo. */
function ownNpmFolder(dir) {
  mkdirSync(dir, { recursive: true });
  const pkg = join(dir, 'package.json');
  if (!existsSync(pkg)) writeFileSync(pkg, JSON.stringify({ private: true, description: 'editor test tooling' }, null, 2) + '\n');
}

function ensureNode24() {
  const version = probe(join(node24Bin, 'node'), ['--version']);
  if (version?.startsWith(`v${NODE_MAJOR}.`)) return log(`node ${version} present`);
  log(`installing node@${NODE_MAJOR} from npm into ${node24Dir}`);
  ownNpmFolder(node24Dir);
  run('npm', ['install', '--no-audit', '--no-fund', `node@${NODE_MAJOR}`], { cwd: node24Dir });
  const installed = probe(join(node24Bin, 'node'), ['--version']);
  if (!installed?.startsWith(`v${NODE_MAJOR}.`)) throw new Error(`node ${NODE_MAJOR} not found at ${node24Bin} after install`);
  log(`node ${installed} installed`);
}

function codeServerVersion() {
  // `--version` prints "4.139.1 <commit> with Code 1.139.1".
  return probe(codeServerBin, ['--version'], { env: editorEnv() })?.split('\n').find((l) => l.startsWith(CODE_SERVER_VERSION));
}

function ensureCodeServer() {
  const present = codeServerVersion();
  if (present) return log(`code-server ${present} present`);
  log(`installing code-server@${CODE_SERVER_VERSION} (native modules compile from source: minutes when cold)`);
  ownNpmFolder(codeServerDir);
  // A half-finished earlier install would make npm skip the postinstall that builds the modules.
  rmSync(join(codeServerDir, 'node_modules'), { recursive: true, force: true });
  run('npm', ['install', '--no-audit', '--no-fund', `code-server@${CODE_SERVER_VERSION}`], { cwd: codeServerDir, env: editorEnv() });
  const installed = codeServerVersion();
  if (!installed) throw new Error(`code-server ${CODE_SERVER_VERSION} does not answer --version after install`);
  log(`code-server ${installed} installed`);
}

/** One setup at a time: the runners may be started together and npm installs must not overlap. */
function withLock(fn) {
  mkdirSync(toolsDir, { recursive: true });
  const lock = join(toolsDir, 'setup.lock');
  for (;;) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const holder = Number(readFileSync(lock, 'utf8'));
      let alive = false;
      try {
        alive = holder > 0 && process.kill(holder, 0);
      } catch {
        alive = false;
      }
      if (!alive) {
        rmSync(lock, { force: true });
        continue;
      }
      log(`waiting for setup in process ${holder}`);
      // A lock has no event to wait on; poll it once a second.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

try {
  withLock(() => {
    ensureSystemPackages();
    for (const d of ['config', 'data', 'cache']) mkdirSync(join(toolsDir, 'xdg', d), { recursive: true });
    ensureNode24();
    ensureCodeServer();
  });
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} catch (e) {
  if (e?.exitCode === undefined) console.error(`[setup] failed: ${e instanceof Error ? e.message : e}`);
  process.exit(e?.exitCode ?? 1);
}
