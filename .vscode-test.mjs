// @vscode/test-cli configuration for machines that can download the editor (`npx vscode-test`).
// Offline CI runs the same tests in code-server instead: scripts/editor/run-integration.mjs.
import { existsSync, readdirSync } from 'node:fs';
import { defineConfig } from '@vscode/test-cli';

// The desktop editor takes several extensions under development, so the helper extensions of
// test/fixtures/extensions (code-server has them packaged and installed instead) load from source.
const fixtures = 'test/fixtures/extensions';
const helpers = existsSync(fixtures) ? readdirSync(fixtures).map((name) => `${fixtures}/${name}`) : [];

export default defineConfig({
  label: 'integration',
  files: 'out/test/integration/**/*.test.js',
  extensionDevelopmentPath: ['.', ...helpers],
  workspaceFolder: 'test/fixtures/workspaces/basic',
  // Only the extensions under development, as in the code-server runs (fresh extensions dir).
  launchArgs: ['--disable-extensions'],
  mocha: { ui: 'tdd', timeout: 20000 },
});
