// A server's question waits behind another one on screen; the person opens the Command Palette
// over the one on screen. The palette stays (the waiting question does not pop up over it), the
// status bar counts both questions, a click on it shows the first again, and once that one is
// answered the waiting question follows; both tasks end.
//
// The waiting question must be asked while the first is on screen, but starting a task takes the
// palette, which hides the first. So the second is the demo's ask-deploy-target told to ask only
// after 8 s: right after starting it, the person shows the first question again from the status
// bar, and the scenario checks that the second had not asked by then.
import {
  answerQuickInput,
  openViewContainer,
  openWorkbench,
  parts,
  quickInputTitle,
  quickPickRow,
  runCommand,
  runToolAsTask,
  taskRow,
  widenSideBar,
} from './ui.mjs';

export const name = 'deferred-questions';

const RESEARCH = 'simulate-research-query on everything';
const DEPLOY = 'ask-deploy-target on demo';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  // The log says when a server's question reaches the extension, also while it waits its turn.
  // Show Log moves the focus to it, a moment after the panel opens: a palette opened before that
  // would close when the focus moves.
  await runCommand(page, 'MCP Tasks: Show Log', { until: () => page.locator(parts.panel).filter({ hasText: 'MCP Tasks' }).waitFor({ timeout: 10_000 }) });
  await page.waitForFunction((sel) => globalThis.document.activeElement?.closest(sel), parts.panel, { timeout: 30_000 });

  // The first question shows.
  await runToolAsTask(page, { server: 'everything', tool: 'simulate-research-query', args: { topic: 'python', ambiguous: 'Yes' } });
  await quickInputTitle(page, RESEARCH).waitFor({ timeout: 60_000 });
  await taskRow(page, 'simulate-research-query', 'Input required').waitFor({ timeout: 30_000 });

  // Starting the second task takes the palette, which hides the first question: it waits, counted.
  await runToolAsTask(page, { server: 'demo', tool: 'ask-deploy-target', args: { askAfterMs: '8000' } });
  await questionsItem(page, 'MCP question').click();
  await quickInputTitle(page, RESEARCH).waitFor({ timeout: 30_000 });
  await questionsItem(page).waitFor({ state: 'hidden', timeout: 10_000 });
  // The second has not asked yet (its row would say so first): its question comes while the
  // first is on screen, so it waits behind it.
  await taskRow(page, 'ask-deploy-target').waitFor({ timeout: 30_000 });
  if (await taskRow(page, 'ask-deploy-target', 'Input required').isVisible()) {
    throw new Error('ask-deploy-target asked before the first question was shown again: this run cannot test a question waiting behind another');
  }
  await taskRow(page, 'ask-deploy-target', 'Input required').waitFor({ timeout: 30_000 });
  await logLine(page, /ask-deploy-target on demo, task \S+ asks:/).waitFor({ timeout: 30_000 });
  if (!(await quickInputTitle(page, RESEARCH).isVisible())) throw new Error('the second question should wait behind the first one, which should stay on screen');
  await shot('one-waiting');

  // F1 over the first question: the palette opens, and stays open.
  await page.keyboard.press('F1');
  const palette = page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) input`);
  // The status item counts the hidden question and the one waiting, which the extension does when
  // it defers it: once it shows 2, the waiting question had its chance to pop up.
  const deploy = quickInputTitle(page, DEPLOY);
  await questionsItem(page, '2 MCP questions').or(deploy).first().waitFor({ timeout: 30_000 });
  if (await deploy.isVisible()) throw new Error('the waiting question replaced the Command Palette opened over the first question');
  if (!(await palette.isVisible()) || !(await palette.inputValue()).startsWith('>')) throw new Error('the Command Palette should stay open');
  await shot('palette-stays');

  // The person closes the palette: nothing pops up, the status bar still counts 2.
  await page.keyboard.press('Escape');
  await page.locator(parts.quickInput).waitFor({ state: 'hidden', timeout: 10_000 });
  await questionsItem(page, '2 MCP questions').waitFor({ timeout: 10_000 });
  await shot('two-questions');

  // A click on the status item shows the first question again; the second still waits.
  await questionsItem(page, '2 MCP questions').click();
  await quickInputTitle(page, RESEARCH).waitFor({ timeout: 30_000 });
  await questionsItem(page, 'MCP question').waitFor({ timeout: 10_000 });
  await quickPickRow(page, 'Python snake species').waitFor({ timeout: 10_000 });
  await shot('first-again');

  // Answered, the first question ends, and the second follows.
  await answerQuickInput(page, 'snake', { match: 'Python snake species' });
  await quickPickRow(page, 'Accept').waitFor({ timeout: 10_000 });
  await answerQuickInput(page, 'Accept', { match: 'Accept' });
  await quickInputTitle(page, DEPLOY).waitFor({ timeout: 30_000 });
  await questionsItem(page).waitFor({ state: 'hidden', timeout: 10_000 });
  await taskRow(page, 'simulate-research-query', 'Completed').waitFor({ timeout: 60_000 });
  await shot('second-follows');

  // Declined with its button: the server hears a no (a decline, not a dismissal), and the task ends.
  await page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) .action-label[aria-label^="Decline"]`).click();
  await taskRow(page, 'ask-deploy-target', 'Completed')
    .filter({ has: page.locator('.label-description', { hasText: 'Not deployed: the user declined' }) })
    .waitFor({ timeout: 30_000 });
  await page.mouse.move(page.viewportSize().width / 2, page.viewportSize().height / 2);
  await shot('both-done');
}

/** The status bar item of the questions waiting for the user; with `text`, only while it reads that. */
function questionsItem(page, text) {
  const items = page.locator('.part.statusbar .statusbar-item').filter({ has: page.locator('.codicon-comment-unresolved') });
  return text ? items.filter({ hasText: new RegExp(`(^|\\s)${escapeRegExp(text)}\\s*$`) }) : items;
}

/**
 * The log in the panel, while its visible text matches `pattern` (its lines wrap: the spaces
 * where they wrap are read as one).
 */
function logLine(page, pattern) {
  return page.locator(`${parts.panel} .view-lines`).filter({ hasText: new RegExp(pattern.source.replaceAll(' ', '\\s*')) });
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
