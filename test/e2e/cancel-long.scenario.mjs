// A person starts the demo server's long-running scan, then cancels it from the Tasks view.
import { clickRowAction, openViewContainer, openWorkbench, rowDescription, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'cancel-long';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'long-running-scan', args: { durationMs: '600000' } });

  // The row appears working, and the scan reports its status and progress.
  const working = taskRow(page, 'long-running-scan', 'Working');
  await working.filter({ has: page.locator('.label-description', { hasText: /^Scanning… \d+ files · \d+% · now$/ }) }).waitFor({ timeout: 30_000 });
  await shot('working');

  // The row's button cancels at once: titled without "..." (the palette's Cancel Task... asks which task first).
  await working.hover();
  const button = await working.locator('.actions .action-label[aria-label^="Cancel Task"]').getAttribute('aria-label', { timeout: 10_000 });
  if (button !== 'Cancel Task') throw new Error(`the row's cancel button should be titled "Cancel Task", not ${JSON.stringify(button)}`);
  await clickRowAction(working, 'Cancel Task');
  const cancelled = taskRow(page, 'long-running-scan', 'Cancelled');
  await cancelled.waitFor({ timeout: 30_000 });
  await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height / 2);
  await shot('cancelled');
  // What the row shows, not only its icon and accessible name.
  const description = await rowDescription(cancelled);
  if (!/^Cancelled\b/.test(description)) throw new Error(`the cancelled row should read "Cancelled", not ${JSON.stringify(description)}`);
}
