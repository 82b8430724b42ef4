// A person answers a server's form by typing (the demo's ask-deploy-target: a text, a number, a
// choice and a yes/no), then declines a server's request to use a language model (the demo's
// summarize-with-model; run-e2e installs a test language model provider, so the consent is asked):
// both tasks end, and nothing reached a model.
import { answerQuickInput, openViewContainer, openWorkbench, parts, quickInputTitle, quickPickRow, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'answer-and-decline';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);

  await runToolAsTask(page, { server: 'demo', tool: 'ask-deploy-target', args: {} });
  await quickInputTitle(page, 'ask-deploy-target on demo').waitFor({ timeout: 60_000 });
  await shot('form');
  // The form's steps share one quick input: each answer waits for its step's counter in the title.
  const step = (n) => quickInputTitle(page, `(${n}/5)`).waitFor({ timeout: 30_000 });
  await step(1);
  await answerQuickInput(page, 'checkout-api'); // Service: typed
  await step(2);
  await answerQuickInput(page, '3'); // Replicas: typed over the default
  await step(3);
  await answerQuickInput(page, 'US East', { match: 'US East' }); // Region: typed to filter, Enter
  await step(4);
  await answerQuickInput(page, 'No', { match: 'No' }); // Dry run
  await quickPickRow(page, 'Accept').waitFor({ timeout: 30_000 });
  await shot('review');
  await answerQuickInput(page, 'Accept', { match: 'Accept' });
  await taskRow(page, 'ask-deploy-target', 'Completed').waitFor({ timeout: 60_000 });

  await runToolAsTask(page, { server: 'demo', tool: 'summarize-with-model', args: {} });
  await quickInputTitle(page, 'MCP server "demo" asks to use a language model').waitFor({ timeout: 60_000 });
  // The request, which the server has the client run as a task, waits for the person, as its row says (its server is told working).
  await page.locator(`${parts.sidebar} .monaco-list-row[aria-label^="Sampling asked by the server: "][aria-label*="Input required, The server asks to use a language model, "]`).waitFor({ timeout: 30_000 });
  await shot('consent');
  await answerQuickInput(page, 'Deny', { match: 'Deny' });
  // The server hears the refusal and ends its task; no model was asked.
  await taskRow(page, 'summarize-with-model', 'Failed').or(taskRow(page, 'summarize-with-model', 'Completed')).waitFor({ timeout: 60_000 });
  await shot('declined');
}
