#!/usr/bin/env node
// End-to-end tests: the packaged .vsix installed into code-server, driven through the interface by
// headless Chromium as a person would. Each test/e2e/*.scenario.mjs exports `name` and
// `run(ctx)`, and optionally `workspace` (a folder of test/fixtures/workspaces, default `basic`)
// and `workspaceTrust: true` (start without --disable-workspace-trust). Every scenario gets a
// code-server of its own with fresh user data, so no tasks, layout or trust decision of another
// scenario leak in. Screenshots go to test-results/e2e/<scenario>/, counts to test-results/e2e.json.
//
// Usage: node scripts/editor/run-e2e.mjs [--scenario NAME]... [--repeat N] [--vsix FILE] [--media]
//   --repeat N   run the chosen scenarios N times over (to check they pass reliably)
//   --vsix FILE  install this package instead of building dist/mcp-tasks.vsix (npm run package)
//   --media      copy the screenshots a scenario marks for the README into media/
// Env: MCP_TASKS_EDITOR_TIMEOUT (seconds, default 600), KEEP_RUN_DIR=1, CODE_SERVER_ECHO=1.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { URLSearchParams, pathToFileURL } from 'node:url';
import {
  cleanupOnSignals,
  codeServerCommand,
  ensureSetup,
  freshRunDir,
  launchBrowser,
  notRunExitCode,
  finishRunDir,
  packageExtension,
  repoRoot,
  resultsDir,
  runCleanups,
  startCodeServer,
  tailOf,
  writeResult,
} from './codeServer.mjs';

/**
 * @typedef {object} ScenarioContext
 * @property {import('playwright-core').Page} page a fresh page (own browser context)
 * @property {string} url the workbench URL with the workspace folder
 * @property {string} workspace absolute path of the open folder
 * @property {(step: string, opts?: { media?: string }) => Promise<string>} shot screenshot into
 *   test-results/e2e/<scenario>/NN-step.png; `media` names the README copy made with --media
 */

const LAYER = 'e2e';
const ANSI_COLOURS = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const SCENARIO_TIMEOUT_MS = 180_000;
const timeoutMs = Number(process.env.MCP_TASKS_EDITOR_TIMEOUT || 600) * 1000;
const workspacesDir = join(repoRoot, 'test', 'fixtures', 'workspaces');
const scenariosDir = join(repoRoot, 'test', 'e2e');
const shotsRoot = join(resultsDir, 'e2e');
const log = (msg) => console.log(`[e2e] ${msg}`);

const { values: opts } = parseArgs({
  options: {
    scenario: { type: 'string', multiple: true },
    vsix: { type: 'string' },
    repeat: { type: 'string', default: '1' },
    media: { type: 'boolean', default: false },
  },
});

async function loadScenarios() {
  const files = readdirSync(scenariosDir).filter((f) => f.endsWith('.scenario.mjs')).sort();
  const all = await Promise.all(files.map(async (f) => ({ file: f, ...(await import(pathToFileURL(join(scenariosDir, f)).href)) })));
  const chosen = opts.scenario ? all.filter((s) => opts.scenario.includes(s.name)) : all;
  if (chosen.length === 0) throw new Error(`no scenario matches ${opts.scenario?.join(', ') ?? '*.scenario.mjs'}`);
  return chosen;
}

async function packageVsix() {
  if (opts.vsix) return opts.vsix;
  log('packaging: npm run package');
  return packageExtension();
}

/**
 * Runs one scenario in a code-server of its own on a fresh page; on failure prints what the page
 * shows, the tail of code-server's log, and keeps a screenshot.
 */
async function runScenario(scenario, runDir, extensionsDir) {
  const workspace = join(workspacesDir, scenario.workspace ?? 'basic');
  const server = await startCodeServer({
    folder: workspace,
    runDir,
    extensionsDir,
    workspaceTrust: scenario.workspaceTrust === true,
    echo: process.env.CODE_SERVER_ECHO === '1',
  });
  try {
    return await runOnPage(scenario, server, workspace, runDir);
  } finally {
    await server.stop();
  }
}

async function runOnPage(scenario, server, workspace, runDir) {
  const dir = join(shotsRoot, scenario.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const { page, close } = await launchBrowser();
  // The workbench's own errors (a tree that failed to update, a command not found) show only in
  // the page's console: the last ones are printed with a failure.
  const consoleErrors = [];
  const keep = (text) => {
    consoleErrors.push(`${new Date().toISOString().slice(11, 23)} ${text.slice(0, 2000)}`);
    if (consoleErrors.length > 30) consoleErrors.shift();
  };
  page.on('console', (m) => m.type() === 'error' && keep(m.text()));
  page.on('pageerror', (e) => keep(`uncaught: ${e.stack ?? e.message}`));
  let n = 0;
  const shot = async (step, { media } = {}) => {
    const file = join(dir, `${String(++n).padStart(2, '0')}-${step}.png`);
    await page.screenshot({ path: file });
    if (media && opts.media) {
      mkdirSync(join(repoRoot, 'media'), { recursive: true });
      copyFileSync(file, join(repoRoot, 'media', media));
      log(`copied ${file} to media/${media}`);
    }
    return file;
  };
  const url = `${server.url}?${new URLSearchParams({ folder: workspace })}`;
  const started = Date.now();
  let timer;
  try {
    await Promise.race([
      scenario.run({ page, url, workspace, shot }),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`scenario timed out after ${SCENARIO_TIMEOUT_MS / 1000} s`)), SCENARIO_TIMEOUT_MS);
      }),
    ]);
    log(`ok   ${scenario.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return { name: scenario.name, ok: true, ms: Date.now() - started };
  } catch (e) {
    // Playwright colours its call log; keep the JSON and CI log plain.
    const message = (e instanceof Error ? e.message : String(e)).replace(ANSI_COLOURS, '');
    const file = await shot('failure').catch(() => '(no screenshot)');
    const { visibleText } = await import(pathToFileURL(join(scenariosDir, 'ui.mjs')).href);
    console.error(`[e2e] FAIL ${scenario.name}: ${message}\n[e2e] screenshot: ${file}\n[e2e] the page shows:\n${await visibleText(page)}`);
    console.error(`[e2e] the page's console errors (last ${consoleErrors.length}):\n${consoleErrors.join('\n') || '(none)'}`);
    console.error(`[e2e] code-server log (tail):\n${server.tail(30)}`);
    // What the extension and its host were doing: a stuck view or command shows there first.
    for (const [what, file] of extensionHostLogs(runDir)) console.error(`[e2e] ${what} (tail):\n${tailOf(file, 40).trim() || '(empty)'}`);
    return { name: scenario.name, ok: false, ms: Date.now() - started, error: message };
  } finally {
    clearTimeout(timer);
    await close();
  }
}

/** The extension's own log ("MCP Tasks", at trace level) and the extension host's, of a run. */
function extensionHostLogs(runDir) {
  const found = [];
  const logs = join(runDir, 'user-data', 'logs');
  for (const session of existsSync(logs) ? readdirSync(logs) : []) {
    for (const host of readdirSync(join(logs, session)).filter((d) => d.startsWith('exthost'))) {
      const dir = join(logs, session, host);
      for (const [what, file] of [['MCP Tasks log', join(dir, 'mcp-tasks.mcp-tasks', 'MCP Tasks.log')], ['extension host log', join(dir, 'remoteexthost.log')]]) {
        if (existsSync(file)) found.push([`${what} ${session}/${host}`, file]);
      }
    }
  }
  return found;
}

async function main() {
  cleanupOnSignals();
  rmSync(join(resultsDir, `${LAYER}.json`), { force: true });
  if (ensureSetup() === 'not-run') {
    writeResult(LAYER, { notRun: true, reason: 'editor setup needs system packages (see above)' });
    return notRunExitCode();
  }
  const scenarios = await loadScenarios();
  const rounds = Number(opts.repeat);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--repeat needs a positive integer, got ${opts.repeat}`);
  const vsix = await packageVsix();
  const runDir = freshRunDir(LAYER);
  const extensionsDir = join(runDir, 'extensions');
  // With the test language model provider (test/fixtures/extensions/lm-provider), as a user's
  // Copilot would be: a server's request to use a model is then put to the person (the consent),
  // where without any model it is refused without asking.
  const { packageTestExtensions } = await import(pathToFileURL(join(repoRoot, 'scripts', 'editor', 'package-test-extensions.mjs')).href);
  const helpers = await packageTestExtensions({ only: ['lm-provider'] });
  log(`installing ${vsix}, ${helpers.map((e) => e.id).join(', ')}`);
  codeServerCommand(['--install-extension', vsix, ...helpers.flatMap((e) => ['--install-extension', e.vsix])], { extensionsDir, userDataDir: join(runDir, 'user-data') });

  let timer;
  const results = [];
  try {
    // The limit holds for each round of scenarios.
    const limitMs = timeoutMs * rounds;
    const timedOut = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${limitMs / 1000} s (MCP_TASKS_EDITOR_TIMEOUT per round)`)), limitMs);
    });
    await Promise.race([
      (async () => {
        for (let round = 1; round <= rounds; round++) {
          for (const s of scenarios) results.push(await runScenario(s, join(runDir, `${s.name}-${round}`), extensionsDir));
        }
      })(),
      timedOut,
    ]);
  } finally {
    clearTimeout(timer);
    await runCleanups();
    finishRunDir(runDir, results.length === scenarios.length * rounds && results.every((r) => r.ok));
  }
  const failed = results.filter((r) => !r.ok).length + (scenarios.length * rounds - results.length);
  writeResult(LAYER, { passed: results.length - results.filter((r) => !r.ok).length, failed, scenarios: results });
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  async (e) => {
    console.error(`[e2e] ${e instanceof Error ? e.message : e}`);
    await runCleanups();
    writeResult(LAYER, { failed: 1, error: String(e instanceof Error ? e.message : e) });
    process.exit(1);
  },
);
