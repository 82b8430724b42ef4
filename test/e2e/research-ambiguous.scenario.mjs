// A person runs server-everything's simulate-research-query with an ambiguous topic, answers the
// question it asks, watches the task complete, and reads the report. A demo build and a failing
// demo job run alongside, so the view (and the README's pictures) show tasks of two servers in
// several states. The build is started while the Explorer is shown: nothing reveals its row, yet
// back in the view it shows under the demo server's row, which had no task when first drawn.
import {
  activeEditorLines,
  answerQuickInput,
  openViewContainer,
  openWorkbench,
  parts,
  quickInputTitle,
  quickPickRow,
  rowDescription,
  runCommand,
  runToolAsTask,
  taskRow,
  treeRow,
  widenSideBar,
} from './ui.mjs';

export const name = 'research-ambiguous';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);

  // Started while the view is hidden, the build's row is not revealed (nor is a task that a chat
  // tool, the API or Refresh starts): the demo row, drawn without tasks, shows it all the same
  // (VS Code keeps a row's collapse state from when it first drew the row).
  await treeRow(page, 'demo').waitFor({ timeout: 60_000 });
  await openViewContainer(page, 'Explorer');
  await runToolAsTask(page, { server: 'demo', tool: 'build-project', args: { project: 'demo-app', durationMs: '60000' } });
  await openViewContainer(page, 'MCP Tasks');
  await taskRow(page, 'build-project', 'Working').waitFor({ timeout: 30_000 });
  await runToolAsTask(page, { server: 'demo', tool: 'failing-job', args: { failAfterMs: '1500' } });
  await taskRow(page, 'failing-job').waitFor({ timeout: 30_000 });

  await runToolAsTask(page, { server: 'everything', tool: 'simulate-research-query', args: { topic: 'python', ambiguous: 'Yes' } });
  await taskRow(page, 'simulate-research-query', 'Working').waitFor({ timeout: 30_000 });
  await shot('working');

  // At its synthesis stage the server asks which "python" is meant; the row waits for the answer.
  await quickInputTitle(page, 'simulate-research-query on everything').waitFor({ timeout: 30_000 });
  await quickPickRow(page, 'Python snake species').waitFor();
  await taskRow(page, 'simulate-research-query', 'Input required').waitFor({ timeout: 10_000 });
  await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height - 40);
  await shot('question', { media: 'screenshot-question.png' });
  await answerQuickInput(page, 'snake', { match: 'Python snake species' });
  // The last step reviews the answer: Accept sends it.
  await quickPickRow(page, 'Accept').waitFor();
  await shot('review');
  await answerQuickInput(page, 'Accept', { match: 'Accept' });

  const done = taskRow(page, 'simulate-research-query', 'Completed');
  await done.waitFor({ timeout: 60_000 });
  await taskRow(page, 'failing-job', 'Failed').waitFor({ timeout: 30_000 });
  // The toasts of the question and of the end are read; clear them for the picture of the view.
  await runCommand(page, 'Notifications: Clear All Notifications');
  // The palette fades out: the picture waits until it is gone.
  await page.locator(parts.quickInput).waitFor({ state: 'hidden', timeout: 10_000 });
  await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height - 40);
  await shot('completed', { media: 'screenshot-view.png' });

  // A click on a finished row opens its result.
  await done.click();
  await activeEditorLines(page).filter({ hasText: 'Research Report: python (snake)' }).waitFor({ timeout: 30_000 });
  await shot('result', { media: 'screenshot-result.png' });

  // The row itself says the task completed, not the last message of its working stages.
  const description = await rowDescription(done);
  if (!/^Completed\b/.test(description)) throw new Error(`the finished row should read "Completed", not ${JSON.stringify(description)}`);
}
