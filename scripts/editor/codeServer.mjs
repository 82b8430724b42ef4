// Shared helpers for the editor tests: where the tooling lives, the environment it runs in,
// starting and stopping code-server and Chromium. Only node: imports at the top, so setup.mjs can
// load it before anything is installed.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** Everything installed or written by the editor tooling stays here (git-ignored). */
export const toolsDir = join(repoRoot, '.vscode-test');
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';
/** code-server 4.139.1 declares engines.node 24; Node 24 comes from the npm registry. */
export const node24Dir = join(toolsDir, 'node24');
export const node24Home = join(node24Dir, 'node_modules', 'node', 'node_modules', `node-linux-${process.arch}`);
export const node24Bin = join(node24Home, 'bin');
export const codeServerDir = join(toolsDir, 'code-server');
export const codeServerBin = join(codeServerDir, 'node_modules', '.bin', 'code-server');
export const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const resultsDir = join(repoRoot, 'test-results');

/** Exit code of setup when system packages are missing and we may not install them. */
export const EXIT_NEEDS_SYSTEM_PACKAGES = 3;

/**
 * The environment for code-server and npm: Node 24 first on PATH, local headers for node-gyp
 * (else it tries to download them), and XDG folders inside .vscode-test so nothing is written
 * under the home folder.
 */
export function editorEnv(extra = {}) {
  const xdg = join(toolsDir, 'xdg');
  // Under `npm test`, npm's own variables (npm_config_user_agent names Node 20) would pass on to
  // the npm that installs code-server, whose install script then refuses to run.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return {
    ...inherited,
    PATH: `${node24Bin}:${process.env.PATH ?? ''}`,
    npm_config_nodedir: node24Home,
    XDG_CONFIG_HOME: join(xdg, 'config'),
    XDG_DATA_HOME: join(xdg, 'data'),
    XDG_CACHE_HOME: join(xdg, 'cache'),
    ...extra,
  };
}

/**
 * Runs setup.mjs (idempotent, seconds when warm). Returns 'ready', or 'not-run' when system
 * packages are missing and we may not install them; throws when setup fails.
 */
export function ensureSetup() {
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'editor', 'setup.mjs')], { stdio: 'inherit' });
  if (r.status === EXIT_NEEDS_SYSTEM_PACKAGES) return 'not-run';
  if (r.status !== 0) throw new Error(`editor setup failed (exit ${r.status ?? r.signal})`);
  return 'ready';
}

/**
 * Exit code of a runner whose layer could not run: 0 for a contributor without root (their
 * `npm test` stays green and says "not run"), 1 in CI, which must run every layer.
 */
export function notRunExitCode() {
  const ci = process.env.CI;
  return ci && ci !== 'false' && ci !== '0' ? 1 : 0;
}

/** `port` on 127.0.0.1 if it is free a moment ago (else rejects); by default one the OS picks. */
export function freePort(port = 0) {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/** A fresh folder for one run's profiles and logs, under .vscode-test/runs. */
export function freshRunDir(name) {
  const dir = join(toolsDir, 'runs', `${name}-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** User settings that keep the workbench quiet and the screenshots clean. */
export const DEFAULT_SETTINGS = {
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'window.commandCenter': false,
  'workbench.layoutControl.enabled': false,
  // The test workspaces sit inside this repository: no "open the parent repository?" toast.
  'git.openRepositoryInParentFolders': 'never',
};

/** Writes `userDataDir/User/settings.json`. */
export function writeUserSettings(userDataDir, settings = {}) {
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...settings }, null, 2));
}

/**
 * Builds dist/mcp-tasks.vsix (npm run package); rejects on failure. vsce's output is piped, not a
 * terminal: on a terminal vsce asks npm for its latest version and then tells to update it
 * globally, wrong advice for the version this project pins (and a registry request on every start).
 * (That advice goes to stderr, and only when stdout is a terminal: piped, vsce never prints it.)
 * The pipe is copied out as it comes, so npm's header and vsce's listing keep their place
 * before or after an error, which stderr (left to the terminal) shows at once.
 */
export function packageExtension() {
  return new Promise((resolve, reject) => {
    // detached: npm, its shell, esbuild and vsce are one process group, stopped as a whole by the
    // cleanups (Ctrl-C, SIGTERM: see cleanupOnSignals). A signal to this script alone (a CI
    // timeout's SIGTERM) otherwise ended it and left the build running.
    const child = spawn('npm', ['run', 'package'], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    const closed = new Promise((r) => child.once('close', r));
    let done = false;
    registerCleanup(() => done || killGroup(child.pid, closed));
    child.stdout.pipe(process.stdout, { end: false });
    // Not started at all (npm not on PATH…), it printed nothing: the reason is said here.
    child.once('error', (err) => reject(new Error(`npm run package failed: ${err.message}`)));
    child.once('close', (code) => {
      done = true;
      // Stopped by the cleanups (Ctrl-C…): no failure to tell, their signal handler exits.
      if (isCleaningUp()) return;
      if (code === 0) resolve(join(repoRoot, 'dist', 'mcp-tasks.vsix'));
      else reject(new Error('npm run package failed (see its output above)'));
    });
  });
}

/** Runs code-server once as a command (e.g. `--install-extension x.vsix`); throws on failure. */
export function codeServerCommand(args, { extensionsDir, userDataDir }) {
  const r = spawnSync(codeServerBin, ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, ...args], {
    encoding: 'utf8',
    env: editorEnv(),
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`code-server ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Waits until code-server answers GET /healthz, it exits, or the time is up. */
async function waitForHealthz(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`code-server exited (${child.exitCode ?? child.signalCode}) before it was healthy`);
    try {
      const res = await fetch(new URL('/healthz', url), { signal: globalThis.AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    // No event tells us the port is open; poll it.
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs} ms`);
}

/**
 * Starts code-server in a process group of its own (it spawns an extension host and more, which a
 * plain SIGTERM would leave behind) and waits for /healthz.
 * @param {object} o
 * @param {string} o.folder workspace folder to open
 * @param {string} o.runDir where its user data, extensions (unless given) and log go
 * @param {number} [o.port] defaults to a free port
 * @param {string} [o.extensionsDir]
 * @param {boolean} [o.smokeTestDriver] needed for extensionTestsPath payloads
 * @param {boolean} [o.workspaceTrust] keep workspace trust on (the folder opens untrusted until trusted)
 * @param {object} [o.settings] extra user settings
 * @param {boolean} [o.echo] copy its output to our stderr
 * @param {Record<string, string>} [o.env] extra environment (the extension host inherits it)
 * @returns {Promise<{ url: string, port: number, logFile: string, exited: Promise<number | null>, stop: () => Promise<void>, tail: (n?: number) => string }>}
 */
export async function startCodeServer(o) {
  const port = o.port ?? (await freePort());
  const userDataDir = join(o.runDir, 'user-data');
  const extensionsDir = o.extensionsDir ?? join(o.runDir, 'extensions');
  mkdirSync(extensionsDir, { recursive: true });
  writeUserSettings(userDataDir, o.settings);
  const args = [
    '--config', '/dev/null',
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--disable-telemetry',
    '--disable-update-check',
    ...(o.workspaceTrust ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    // The default (3 hours) keeps an extension host alive for every page ever closed.
    '--reconnection-grace-time', '5',
    ...(o.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    o.folder,
  ];
  const logFile = join(o.runDir, 'code-server.log');
  const logStream = createWriteStream(logFile);
  // code-server and its extension host put their sockets (vscode-ipc-*, vscode-git-*) in
  // XDG_RUNTIME_DIR or TMPDIR and leave them there: a folder of this run's, removed when it stops.
  // Not under runDir: a socket's path may not exceed ~107 characters.
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-tasks-editor-'));
  // detached: the child calls setsid(), so it leads a process group we can kill as a whole.
  const child = spawn(codeServerBin, args, { env: editorEnv({ TMPDIR: tmp, XDG_RUNTIME_DIR: tmp, ...o.env }), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const s of [child.stdout, child.stderr]) {
    s.pipe(logStream, { end: false });
    if (o.echo) s.on('data', (d) => process.stderr.write(d));
  }
  const exited = new Promise((r) => child.once('exit', r));
  let stopped;
  const stop = () =>
    (stopped ??= (async () => {
      await killGroup(child.pid, exited);
      logStream.end();
      rmSync(tmp, { recursive: true, force: true });
    })());
  registerCleanup(stop);
  const url = `http://127.0.0.1:${port}/`;
  try {
    await waitForHealthz(url, child, 30_000);
  } catch (e) {
    await stop();
    throw new Error(`${e.message}\n${tailOf(logFile)}`);
  }
  return { url, port, logFile, exited, stop, tail: (n) => tailOf(logFile, n) };
}

/** SIGTERM to the whole group, SIGKILL to whatever is left after a grace period. */
async function killGroup(pid, exited) {
  const signalGroup = (sig) => {
    try {
      process.kill(-pid, sig);
      return true;
    } catch {
      return false; // The group is gone.
    }
  };
  if (!signalGroup('SIGTERM')) return;
  await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  // The leader may be gone while children linger: probe the group, then force it.
  for (let i = 0; i < 20 && signalGroup(0); i++) await new Promise((r) => setTimeout(r, 100));
  signalGroup('SIGKILL');
}

/** The last lines of a log file, for failure messages. */
export function tailOf(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Chromium flags that keep it offline-friendly and quiet (see EDITOR-TESTS.md). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Launches headless Debian Chromium through playwright-core. Playwright gives it a fresh
 * temporary profile (its --user-data-dir) and removes it on close.
 * @returns {Promise<{ browser: import('playwright-core').Browser, page: import('playwright-core').Page, close: () => Promise<void> }>}
 */
export async function launchBrowser({ viewport = { width: 1280, height: 800 } } = {}) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: CHROMIUM_ARGS, env: editorEnv() });
  let closed;
  const close = () => (closed ??= browser.close().catch(() => {}));
  registerCleanup(close);
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  return { browser, page, close };
}

// Everything started here is stopped on exit, on Ctrl-C and on an overall timeout.
const cleanups = [];
let cleaning;
/** Registers an async function run by runCleanups(). */
export function registerCleanup(fn) {
  cleanups.push(fn);
}
/** True once runCleanups() has started (processes exiting then are expected). */
export function isCleaningUp() {
  return cleaning !== undefined;
}
/** Runs every registered cleanup once, newest first. */
export function runCleanups() {
  return (cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) await Promise.resolve().then(fn).catch(() => {});
  })());
}
/** On SIGINT/SIGTERM, stop everything and exit with 130/143. */
export function cleanupOnSignals() {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143], ['SIGHUP', 129]]) {
    process.once(sig, () => {
      console.error(`\n[editor] ${sig}: stopping everything started`);
      void runCleanups().then(() => process.exit(code));
    });
  }
}

/** Removes a run's folder after a success (unless KEEP_RUN_DIR=1); keeps it to look at after a failure. */
export function finishRunDir(dir, ok) {
  if (ok && process.env.KEEP_RUN_DIR !== '1') rmSync(dir, { recursive: true, force: true });
  else console.error(`[editor] kept ${dir} (code-server.log, user data)`);
}

/** Writes `test-results/<layer>.json` and prints the one-line summary the CI log greps for. */
export function writeResult(layer, result) {
  mkdirSync(resultsDir, { recursive: true });
  const body = { layer, passed: 0, failed: 0, ...result };
  writeFileSync(join(resultsDir, `${layer}.json`), JSON.stringify(body, null, 2) + '\n');
  if (body.notRun) console.log(`${layer}: not run (${body.reason})`);
  else console.log(`${layer}: ${body.passed} passed, ${body.failed} failed`);
  return body;
}
