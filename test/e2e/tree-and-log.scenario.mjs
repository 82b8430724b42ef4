// A person opens the MCP Tasks view, sees the configured server, and opens the log.
import { openViewContainer, openWorkbench, parts, rowDescription, runCommand, treeRow } from './ui.mjs';

export const name = 'tree-and-log';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await shot('workbench');

  await openViewContainer(page, 'MCP Tasks');
  // The Tasks view lists `everything` from the workspace's .vscode/mcp.json.
  const row = treeRow(page, 'everything');
  await row.waitFor({ timeout: 60_000 });
  // Nothing has asked for the server yet, and servers are connected lazily.
  const state = await rowDescription(row);
  if (state !== 'not connected') throw new Error(`the server row should read "not connected", not ${JSON.stringify(state)}`);
  await shot('tasks-view');

  // The output panel opens on the extension's channel.
  await runCommand(page, 'MCP Tasks: Show Log', { until: () => page.locator(parts.panel).filter({ hasText: 'MCP Tasks' }).waitFor({ timeout: 15_000 }) });
  await shot('log');
}
