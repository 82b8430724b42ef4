#!/usr/bin/env node
// Runs test/integration inside a real extension host: code-server with the smoke-test driver,
// driven by headless Chromium, loading the repository as the extension under development and
// out/test/integration/index.js as the tests. Writes test-results/integration.json.
//
// Env: MCP_TASKS_EDITOR_TIMEOUT (seconds, default 1200), MCP_TASKS_TEST_GREP (mocha grep),
// MCP_TASKS_TEST_BUNDLE=production (test the minified bundle users get, not the development one),
// KEEP_RUN_DIR=1 (keep .vscode-test/runs/<run>), CODE_SERVER_ECHO=1 (print code-server's log).
import { spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { format } from 'node:util';
import { URLSearchParams, pathToFileURL } from 'node:url';
import {
  cleanupOnSignals,
  codeServerCommand,
  ensureSetup,
  freshRunDir,
  launchBrowser,
  notRunExitCode,
  registerCleanup,
  finishRunDir,
  repoRoot,
  resultsDir,
  runCleanups,
  startCodeServer,
  writeResult,
} from './codeServer.mjs';

const LAYER = 'integration';
// A guard against a run that never ends, not a budget: each test has its own mocha timeout, and the
// whole layer, minutes long on a quiet 2-core machine and growing with each test, runs longer when
// the machine is busy (a limit of 300 s once cut a run on a loaded machine short): hence 20 min.
const timeoutMs = Number(process.env.MCP_TASKS_EDITOR_TIMEOUT || 1200) * 1000;
const workspace = join(repoRoot, 'test', 'fixtures', 'workspaces', 'basic');
// The extension under development is the repository, whatever its bundle: the tests must sit in
// its folder. The editor gives each extension its own `vscode` object, picked by the path of the
// file that requires it; tests outside the extension's folder get a default one, and their spies
// on `vscode.window` (quickInputs.ts) never see the extension's calls (index.ts checks this).
const extensionPath = repoRoot;
const production = process.env.MCP_TASKS_TEST_BUNDLE === 'production';
const testsEntry = join(repoRoot, 'out', 'test', 'integration', 'index.js');
const resultFile = join(resultsDir, `${LAYER}.json`);

const log = (msg) => console.log(`[integration] ${msg}`);

/**
 * Workbench chatter that is expected here (no internet, no accounts) and hides the test report.
 * Everything, this included, is kept in test-results/integration.log.
 */
const NOISE = [
  /ENOTFOUND open-vsx\.org/,
  /authentication provider 'github'/,
  /vsda/,
  /^(Resolving|Resolved) connection token/,
  /^Creating a socket/,
  /^\[(reconnection-grace-time|Service Worker|AgentHost:remote|AccountPolicyGate)\]/,
  /^Updating additional builtin extensions cache/,
  /^Creation of workbench contribution .* took \d+ms/,
];

/** Keeps the log files the workbench hands over at exit (extension host logs among them). */
function saveLogs(logs) {
  const dir = join(resultsDir, `${LAYER}-logs`);
  rmSync(dir, { recursive: true, force: true });
  for (const { relativePath, contents } of Array.isArray(logs) ? logs : []) {
    const file = join(dir, relativePath);
    if (!file.startsWith(dir)) continue; // never outside the folder
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, contents);
  }
}

/** Newest modification time of the .ts files under the given folders. */
function newestSource(dirs) {
  let newest = 0;
  for (const dir of dirs) {
    for (const f of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts')) newest = Math.max(newest, statSync(join(dir, f)).mtimeMs);
    }
  }
  return newest;
}

function step(title, cmd, args) {
  log(title);
  const r = spawnSync(cmd, args, { cwd: repoRoot, stdio: 'inherit' });
  return r.status === 0;
}

function build() {
  const stale = !existsSync(testsEntry) || statSync(testsEntry).mtimeMs < newestSource([join(repoRoot, 'test'), join(repoRoot, 'src')]);
  if (stale && !step('compiling tests: npx tsc -p . --outDir out', 'npx', ['tsc', '-p', '.', '--outDir', 'out'])) {
    // tsc still emits; type errors are the typecheck's job, and a broken test fails below anyway.
    log('tsc reported errors (see above); running the emitted tests anyway');
  }
  if (!existsSync(testsEntry)) throw new Error(`${testsEntry} was not produced`);
  const esbuild = production ? ['esbuild.js', '--production'] : ['esbuild.js'];
  if (!step(`building the extension: node ${esbuild.join(' ')}`, 'node', esbuild)) throw new Error(`node ${esbuild.join(' ')} failed`);
}

/**
 * The payload loads only one extension under development: the helper extensions the tests need
 * (test/fixtures/extensions, e.g. a language model provider) are packaged and installed instead.
 */
async function installTestExtensions(extensionsDir, userDataDir) {
  const script = join(repoRoot, 'scripts', 'editor', 'package-test-extensions.mjs');
  if (!existsSync(script)) return;
  const { packageTestExtensions } = await import(pathToFileURL(script).href);
  const list = await packageTestExtensions();
  if (list.length === 0) return;
  log(`installing test extensions: ${list.map((e) => e.id).join(', ')}`);
  codeServerCommand(list.flatMap((e) => ['--install-extension', e.vsix]), { extensionsDir, userDataDir });
}

/** Opens the workbench with the test payload and resolves with the exit code the tests report. */
async function runInEditor(runDir) {
  const extensionsDir = join(runDir, 'extensions');
  await installTestExtensions(extensionsDir, join(runDir, 'user-data'));
  // The user data folder, for the tests of the user's mcp.json (<it>/User/mcp.json), found here, not
  // the way the extension finds it.
  const env = { MCP_TASKS_USER_DATA_DIR: join(runDir, 'user-data') };
  const server = await startCodeServer({ folder: workspace, runDir, extensionsDir, smokeTestDriver: true, echo: process.env.CODE_SERVER_ECHO === '1', env });
  log(`code-server on ${server.url} (log: ${server.logFile})`);
  const { page } = await launchBrowser();
  // The payload's authority must equal the page's host and port exactly.
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(extensionPath)],
    ['extensionTestsPath', remote(testsEntry)],
    ['skipWelcome', 'true'],
  ];
  const url = `${server.url}?${new URLSearchParams({ folder: workspace, payload: JSON.stringify(payload) })}`;

  const workbenchLog = createWriteStream(join(resultsDir, `${LAYER}.log`));
  registerCleanup(() => new Promise((r) => workbenchLog.end(r)));
  const exitCode = new Promise((resolve) => {
    // The workbench calls these when the smoke-test driver is on. codeAutomationLog gets the
    // window's log and the extension host's console (the mocha report) as format arguments.
    void page.exposeFunction('codeAutomationLog', (level, args) => {
      const line = format(...(Array.isArray(args) ? args : [args]));
      workbenchLog.write(`[${level}] ${line}\n`);
      if (!NOISE.some((re) => re.test(line))) (level === 'error' ? console.error : console.log)(line);
    });
    // Called when run() settles, with the exit code and the window's log files.
    void page.exposeFunction('codeAutomationExit', (code, logs) => {
      saveLogs(logs);
      resolve(Number(code) || 0);
    });
    page.on('crash', () => resolve(Promise.reject(new Error('the page crashed'))));
  });
  await page.goto(url);
  return await exitCode;
}

async function main() {
  cleanupOnSignals();
  rmSync(resultFile, { force: true });
  mkdirSync(resultsDir, { recursive: true });
  const setup = ensureSetup();
  if (setup === 'not-run') {
    writeResult(LAYER, { notRun: true, reason: 'editor setup needs system packages (see above)' });
    return notRunExitCode();
  }
  build();
  const runDir = freshRunDir(LAYER);
  let timer;
  const timedOut = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs / 1000} s (MCP_TASKS_EDITOR_TIMEOUT)`)), timeoutMs);
  });
  let ok = false;
  try {
    const code = await Promise.race([runInEditor(runDir), timedOut]);
    if (!existsSync(resultFile)) {
      // run() never reached its summary (the host failed to load the tests, say).
      writeResult(LAYER, { failed: 1, error: `tests exited with ${code} without writing results` });
      return code || 1;
    }
    const result = JSON.parse(readFileSync(resultFile, 'utf8'));
    ok = code === 0 && result.failed === 0;
    return ok ? 0 : 1;
  } finally {
    clearTimeout(timer);
    await runCleanups();
    finishRunDir(runDir, ok);
  }
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    console.error(`[integration] ${e instanceof Error ? e.message : e}`);
    await runCleanups();
    if (!existsSync(resultFile)) writeResult(LAYER, { failed: 1, error: String(e instanceof Error ? e.message : e) });
    process.exit(1);
  },
);
