// A click on a row that waits for the user's permission to use a language model, while its consent
// prompt is on screen (it stays open when focus leaves it), gives the prompt the keyboard back:
// Enter then answers it (Allow once, its first item), instead of going to the tree.
import { openViewContainer, openWorkbench, parts, quickInputTitle, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'focus-consent';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'summarize-with-model', args: {} });
  const title = 'MCP server "demo" asks to use a language model';
  await quickInputTitle(page, title).waitFor({ timeout: 60_000 });
  await taskRow(page, 'summarize-with-model', 'Input required').click();
  await page.locator(`${parts.quickInput}:focus-within`).waitFor({ timeout: 10_000 }).catch(async (e) => {
    await shot('focus-elsewhere');
    throw new Error(`the consent prompt did not take the keyboard back after the row's click: ${e.message}`);
  });
  await shot('consent-focused');
  // Still the prompt on screen: the row's click did not hide it (no "MCP question" waits hidden).
  await quickInputTitle(page, title).waitFor({ timeout: 5_000 });
  if (await page.locator('.statusbar-item[id*="mcpTasks.hiddenDialog"]').isVisible()) throw new Error('the prompt was counted as hidden');
  await page.keyboard.press('Enter');
  await taskRow(page, 'summarize-with-model', 'Completed').waitFor({ timeout: 60_000 });
  await shot('allowed');
}
