// A person whose workspace turns mcpTasks.readWorkspaceMcpJson off opens the view: it says that
// .vscode/mcp.json is not read and which setting does it, not that no server is configured and
// to add some to the mcp.json that holds them, and its button opens that setting.
import { openViewContainer, openWorkbench, parts } from './ui.mjs';

export const name = 'mcp-json-off';
export const workspace = 'mcp-json-off';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  const welcome = page.locator(`${parts.sidebar} .welcome-view-content`);
  await welcome.filter({ hasText: 'mcpTasks.readWorkspaceMcpJson' }).waitFor({ timeout: 60_000 });
  const text = await welcome.innerText();
  if (/Add servers to this folder's \.vscode\/mcp\.json/.test(text)) throw new Error(`the view asks to add servers to the mcp.json it does not read:\n${text}`);
  await shot('welcome');

  await welcome.getByRole('button', { name: 'Open Setting' }).click();
  const settings = page.locator('.settings-editor');
  await settings.locator('.setting-item-title', { hasText: 'Read Workspace Mcp JSON' }).waitFor({ timeout: 30_000 });
  await shot('setting');
}
