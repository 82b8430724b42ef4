// A person runs a quick task and opens a result with an image (in the Markdown preview), reloads
// the window, and finds the preview showing it and the finished task and its result again: tasks
// and results are kept across reloads.
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
  // A result with an image opens in the Markdown preview, a tab the reload restores.
  await runToolAsTask(page, { server: 'everything', tool: 'get-tiny-image', ttl: false });
  // VS Code drops the command of a row redrawn under the pointer ("Actual command not found"), and a
  // row that has just completed may be redrawn as it is clicked (its server's row is drawn anew at
  // its first task): nothing opens, and a person clicks again. So does this step, once.
  const imageRow = taskRow(page, 'get-tiny-image', 'Completed');
  await imageRow.click({ timeout: 30_000 });
  if (!(await previewImage(page).waitFor({ timeout: 10_000 }).then(() => true, () => false))) {
    await imageRow.click({ timeout: 30_000 });
    await previewImage(page).waitFor({ timeout: 30_000 });
  }
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
  // The restored preview shows the kept result (read from the store), not "No result has been fetched".
  await previewImage(page).waitFor({ timeout: 30_000 });
  const row = taskRow(page, 'quick-echo', 'Completed');
  await row.waitFor({ timeout: 60_000 });
  await shot('after-reload');

  await row.click();
  await activeEditorLines(page).filter({ hasText: message }).waitFor({ timeout: 30_000 });
  await shot('result');
}

/** The image of the Markdown preview's content (a webview: frames within frames), once shown. */
function previewImage(page) {
  return page.frameLocator('iframe.webview').frameLocator('iframe').locator('img[src^="data:image/"]');
}
