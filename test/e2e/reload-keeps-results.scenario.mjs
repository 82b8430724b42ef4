// A person runs a quick task, reloads the window, and finds the finished task and its result
// again: tasks and results are kept across reloads.
import { activeEditorLines, answerQuickInput, focusWorkbench, openViewContainer, openWorkbench, parts, runToolAsTask, taskRow, treeRow, widenSideBar } from './ui.mjs';

export const name = 'reload-keeps-results';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  // Unique to this run, so the text found after the reload cannot come from anywhere else.
  const message = `kept across the reload ${Date.now().toString(36)}`;
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message } });
  await taskRow(page, 'quick-echo', 'Completed').waitFor({ timeout: 30_000 });
  await shot('completed');

  // The reload replaces the page: listen for that before asking for it.
  const reloaded = page.waitForEvent('framenavigated', { predicate: (f) => f === page.mainFrame(), timeout: 30_000 });
  await focusWorkbench(page);
  await page.keyboard.press('F1');
  await answerQuickInput(page, '>Developer: Reload Window', { match: 'Developer: Reload Window' });
  await reloaded;
  await page.locator(parts.workbench).waitFor({ timeout: 60_000 });
  await openViewContainer(page, 'MCP Tasks');
  // The stored task shows at once; once the configuration is read it moves under its server's
  // row (the other servers' rows appear above it), so it is clicked only after that.
  await treeRow(page, 'everything').waitFor({ timeout: 60_000 });
  const row = taskRow(page, 'quick-echo', 'Completed');
  await row.waitFor({ timeout: 60_000 });
  await shot('after-reload');

  await row.click();
  await activeEditorLines(page).filter({ hasText: message }).waitFor({ timeout: 30_000 });
  await shot('result');
}
