// The mocha runner the editor loads as extensionTestsPath (the `run()` contract of
// @vscode/test-electron; code-server's smoke-test driver calls it the same way). It runs every
// *.test.js next to it and writes test-results/integration.json with the counts.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { EXTENSION_ID } from './helpers';

/** out/test/integration -> repository root. */
const repoRoot = path.resolve(__dirname, '..', '..', '..');

export async function run(): Promise<void> {
  // The editor gives each extension its own `vscode` object, picked by the path of the file that
  // requires it. Tests outside the extension's folder get a default one: their spies on
  // `vscode.window` (quickInputs.ts) would see nothing the extension shows, and fail for that.
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  const fromExtension = ext && path.relative(ext.extensionPath, __dirname);
  if (fromExtension !== undefined && (fromExtension.startsWith('..') || path.isAbsolute(fromExtension))) {
    throw new Error(`The tests (${__dirname}) must be inside the folder of the extension under test (${ext!.extensionPath}): make the repository root extensionDevelopmentPath.`);
  }
  const mocha = new Mocha({
    ui: 'tdd',
    timeout: 20_000,
    color: false,
    // MCP_TASKS_TEST_GREP narrows a run while working on one test.
    grep: process.env.MCP_TASKS_TEST_GREP || undefined,
  });
  const files = readdirSync(__dirname, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js'))
    .sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));

  const { passed, failed } = await new Promise<{ passed: number; failed: number }>((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => resolve({ passed: runner.stats?.passes ?? 0, failed: failures }));
    } catch (e) {
      reject(e);
    }
  });

  const resultsDir = path.join(repoRoot, 'test-results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(path.join(resultsDir, 'integration.json'), JSON.stringify({ layer: 'integration', passed, failed }, null, 2) + '\n');
  console.log(`integration: ${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} integration test(s) failed`);
}
