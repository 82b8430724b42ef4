// A person answers server-everything's trigger-elicitation-request form (13 fields) and types a URL
// into its URI field as the address bar shows it (https://de.wikipedia.org/wiki/Köln): while typed,
// the input box says, as information and not as an error, that it is sent percent-encoded; Enter
// takes it, the review shows the encoded value, and the accepted form ends the tool call.
import { answerQuickInput, openViewContainer, openWorkbench, parts, quickInputTitle, quickPickRow, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'uri-sent-as';

const TYPED = 'https://de.wikipedia.org/wiki/Köln';
const SENT = 'https://de.wikipedia.org/wiki/K%C3%B6ln';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);

  await runToolAsTask(page, { server: 'everything', tool: 'trigger-elicitation-request', ttl: false });
  // Titled by its call, the only one of its server running, as a task's question is by its task.
  await quickInputTitle(page, 'trigger-elicitation-request on everything').waitFor({ timeout: 60_000 });
  // 13 fields and the review share one quick input: each answer waits for its step's counter.
  const step = (n) => quickInputTitle(page, `(${n}/14)`).waitFor({ timeout: 30_000 });
  await step(1);
  await answerQuickInput(page, 'Mona Octocat'); // String (the one required field)
  for (const n of [2, 3, 4]) {
    await step(n); // Boolean: Skip; String with default: kept; email: left out
    await page.keyboard.press('Enter');
  }
  await step(5);
  await page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) .quick-input-message`).filter({ hasText: 'String with uri format' }).waitFor({ timeout: 30_000 });
  // Typed key by key, as a person does: the box hears each change (setting its value from the
  // extension host would not fire onDidChangeValue).
  await page.keyboard.type(TYPED);
  const widget = page.locator(`${parts.quickInput}:not(.quick-input-widget-closing)`);
  const note = widget.locator('.quick-input-message').filter({ hasText: `Sent as ${SENT}` });
  if (!(await note.waitFor({ timeout: 15_000 }).then(() => true, () => false))) {
    throw new Error(`typing ${TYPED} should show "Sent as ${SENT}"; the input box says: ${await widget.locator('.quick-input-message').innerText().catch(() => '(nothing)')}`);
  }
  // Information, not an error: the box is marked info, and Enter takes the URI.
  await widget.locator('.monaco-inputbox.info').waitFor({ timeout: 10_000 });
  if (await widget.locator('.monaco-inputbox.error').isVisible()) throw new Error('the note shows as an error');
  await shot('uri-note');
  await page.keyboard.press('Enter');
  for (let n = 6; n <= 13; n++) {
    await step(n); // the rest left out, or kept at their defaults
    await page.keyboard.press('Enter');
  }
  await step(14);
  const accept = quickPickRow(page, 'Accept');
  await accept.filter({ hasText: `String with uri format: ${SENT}` }).waitFor({ timeout: 30_000 });
  await shot('review');
  await answerQuickInput(page, 'Accept', { match: 'Accept' });
  await taskRow(page, 'trigger-elicitation-request', 'Completed').waitFor({ timeout: 60_000 });
}
