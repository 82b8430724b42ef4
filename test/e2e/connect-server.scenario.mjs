// A person connects a configured server from the command palette and sees its state change.
import { answerQuickInput, openViewContainer, openWorkbench, quickPickRow, runCommand, treeRow } from './ui.mjs';

export const name = 'connect-server';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  const row = treeRow(page, 'everything');
  await row.waitFor({ timeout: 60_000 });

  await runCommand(page, 'MCP Tasks: Connect Server...', { until: () => quickPickRow(page, 'everything').waitFor({ timeout: 15_000 }) });
  await shot('pick-server');
  await answerQuickInput(page, 'everything', { match: 'everything' });

  // The row follows the connection: "connecting…", then "connected · …" once initialized.
  await row.locator('.label-description', { hasText: /^connected\b/ }).waitFor({ timeout: 60_000 });
  await shot('connected');
}
