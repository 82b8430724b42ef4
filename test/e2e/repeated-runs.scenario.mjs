// A person runs one tool twice: the two rows say when each run started, so they are not two
// identical rows, and the Cancel Task pick (titled so, not "MCP Tasks") names them as the rows do.
import { openViewContainer, openWorkbench, parts, quickInputTitle, quickPickRow, runCommand, runToolAsTask, widenSideBar } from './ui.mjs';

export const name = 'repeated-runs';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  for (let i = 0; i < 2; i++) await runToolAsTask(page, { server: 'demo', tool: 'long-running-scan', args: { durationMs: '600000' }, ttl: '10 min' });

  // The first row, drawn as "long-running-scan", is drawn again with its time once the second run comes.
  const rows = page.locator(`${parts.sidebar} .monaco-list-row[aria-label^="Task long-running-scan ("]`);
  await rows.nth(1).waitFor({ timeout: 30_000 });
  const labels = await rows.locator('.label-name').allTextContents();
  await shot('two-runs');
  if (labels.length !== 2 || labels[0] === labels[1] || !labels.every((l) => /^long-running-scan \(.+\)$/.test(l.trim()))) {
    throw new Error(`two runs should be two rows that say when each started, not ${JSON.stringify(labels)}`);
  }

  await runCommand(page, 'MCP Tasks: Cancel Task...', { until: () => quickInputTitle(page, 'Cancel Task').waitFor({ timeout: 15_000 }) });
  for (const label of labels) await quickPickRow(page, label.trim()).waitFor({ timeout: 15_000 });
  await shot('cancel-pick');
  await page.keyboard.press('Escape');
}
