// A server's text in a row's tooltip (Markdown) reads as sent: URLs in it are plain text, not links
// a click opens (the server chose them), and the backslashes that keep its `_` and `*` from
// formatting are not seen, inside a URL either.
import { openViewContainer, openWorkbench, treeRow } from './ui.mjs';

export const name = 'server-text-tooltip';
export const workspace = 'server-text';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  const row = treeRow(page, 'says-urls');
  await row.waitFor({ timeout: 60_000 });
  // Connect (its inline action): the process exits at once, and the row is in error.
  await row.hover();
  await row.locator('.actions .action-label[aria-label^="Connect"]').click();
  await row.locator('.label-description', { hasText: /exited with code 3/ }).waitFor({ timeout: 30_000 });
  await page.mouse.move(0, 0);
  await row.locator('.label-name').hover();
  const hover = page.locator('.monaco-hover, .workbench-hover').filter({ hasText: 'State:' }).first();
  await hover.waitFor({ timeout: 15_000 });
  await shot('tooltip');
  const text = await hover.innerText();
  const links = await hover.locator('a').evaluateAll((as) => as.map((a) => `${a.textContent} -> ${a.getAttribute('href') ?? a.dataset.href ?? ''}`));
  const problems = [];
  if (!text.includes('see https://example.com/a_b*c or http://evil.example')) problems.push('the URLs do not read as sent');
  if (text.includes('\\')) problems.push('a backslash shows');
  if (links.length) problems.push(`links: ${links.join(', ')}`);
  if (problems.length) throw new Error(`the tooltip: ${problems.join('; ')}. It reads: ${JSON.stringify(text)}; its HTML: ${await hover.innerHTML()}`);
}
