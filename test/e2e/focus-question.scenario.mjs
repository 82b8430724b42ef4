// A click on a row that waits for input, while its question is on screen (a form stays open when
// focus leaves it), gives the question the keyboard back: what is typed then answers it, instead
// of going to the tree.
import { openViewContainer, openWorkbench, parts, quickInputTitle, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'focus-question';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'ask-deploy-target', args: {} });
  await quickInputTitle(page, '(1/5)').waitFor({ timeout: 60_000 });
  const input = page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) input`);
  await input.fill('web');
  await taskRow(page, 'ask-deploy-target', 'Input required').click();
  await page.locator(`${parts.quickInput}:focus-within`).waitFor({ timeout: 10_000 }).catch(async (e) => {
    await shot('focus-elsewhere');
    throw new Error(`the question did not take the keyboard back after the row's click: ${e.message}`);
  });
  await page.keyboard.type('-api');
  await page.waitForFunction((sel) => globalThis.document.querySelector(sel)?.value === 'web-api', `${parts.quickInput}:not(.quick-input-widget-closing) input`, { timeout: 10_000 });
  await shot('question-focused');
  // Still the question on screen: the row's click did not hide it (no "MCP question" waits hidden).
  await quickInputTitle(page, '(1/5)').waitFor({ timeout: 5_000 });
  if (await page.locator('.statusbar-item[id*="mcpTasks.hiddenDialog"]').isVisible()) throw new Error('the question was counted as hidden');
}
