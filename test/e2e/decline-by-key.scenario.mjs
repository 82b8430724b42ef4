// A keyboard user says no to a server's form without reaching its title-bar buttons (Tab does
// not): Ctrl+Alt+D on its first step declines it, Ctrl+Alt+W on a later one cancels it, and the
// demo's ask-deploy-target ends saying which it heard.
import { openViewContainer, openWorkbench, parts, quickInputTitle, runToolAsTask, widenSideBar } from './ui.mjs';

export const name = 'decline-by-key';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  const row = (heard) => page.locator(`${parts.sidebar} .monaco-list-row[aria-label^="Task ask-deploy-target"][aria-label*="${heard}"]`);

  for (const [key, heard] of [
    ['Control+Alt+D', 'Not deployed: the user declined to choose a deploy target'],
    ['Control+Alt+W', 'Not deployed: the user dismissed the question'],
  ]) {
    await runToolAsTask(page, { server: 'demo', tool: 'ask-deploy-target', args: {} });
    await quickInputTitle(page, '(1/5)').waitFor({ timeout: 60_000 });
    await page.locator(`${parts.quickInput}:not(.quick-input-widget-closing) input`).focus();
    await page.keyboard.press(key);
    await row(heard).waitFor({ timeout: 60_000 }).catch(async (e) => {
      const labels = await page.locator(`${parts.sidebar} .monaco-list-row`).evaluateAll((rs) => rs.map((r) => r.getAttribute('aria-label')));
      throw new Error(`${e.message}\nrows: ${JSON.stringify(labels)}`);
    });
    await shot(key === 'Control+Alt+D' ? 'declined' : 'cancelled');
  }
}
