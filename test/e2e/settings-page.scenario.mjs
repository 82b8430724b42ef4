// A person opens the Settings editor and goes to MCP Tasks in its table of contents: the settings
// come in sections (MCP Tasks, then Notifications, Sampling and Hosted Tasks), the servers first,
// each labelled by its own name, not "Mcp Tasks › Notifications: Input Required" as a single
// section left them (the editor trims a key's prefix only by the id of the key's section).
import { openWorkbench, runCommand } from './ui.mjs';

export const name = 'settings-page';

const SECTIONS = ['MCP Tasks', 'Notifications', 'Sampling', 'Hosted Tasks'];
const FIRST = ['Servers', 'Read Workspace Mcp JSON', 'Auto Fetch Results', 'Default Ttl Seconds', 'Retention Days', 'Request Timeout Seconds'];

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, shot }) {
  // Tall enough for the whole page of the extension's settings.
  await page.setViewportSize({ width: 1400, height: 2400 });
  await openWorkbench(page, url);
  const settings = page.locator('.settings-editor');
  await runCommand(page, 'Preferences: Open Settings (UI)', { until: () => settings.waitFor({ timeout: 15_000 }) });
  const toc = settings.locator('.settings-toc-container .monaco-list-row');
  const entry = (title) => settings.locator('.settings-toc-container').getByText(title, { exact: true });
  await entry('Extensions').click();
  await entry('MCP Tasks').click();
  const titles = settings.locator('.setting-item-contents .setting-item-title');
  await titles.filter({ hasText: /^Servers$/ }).waitFor({ timeout: 30_000 });

  const rows = (await toc.allInnerTexts()).map((t) => t.trim());
  const at = rows.indexOf('MCP Tasks');
  if (rows.slice(at, at + SECTIONS.length).join('|') !== SECTIONS.join('|')) {
    throw new Error(`the table of contents should list ${SECTIONS.join(', ')} in a row; it lists ${JSON.stringify(rows.slice(at, at + SECTIONS.length))}`);
  }
  // The rows the editor shows from the section's heading on: the first section's, then the next heading's.
  const shown = (await titles.allInnerTexts()).map((t) => t.trim());
  const first = shown.slice(shown.indexOf('Servers'), shown.indexOf('Servers') + FIRST.length);
  if (first.join('|') !== FIRST.join('|')) throw new Error(`the first section should read ${JSON.stringify(FIRST)}; it reads ${JSON.stringify(first)}`);
  const prefixed = shown.filter((t) => /^Mcp Tasks\b/.test(t));
  if (prefixed.length) throw new Error(`labels should not repeat the extension's name: ${JSON.stringify(prefixed)}`);
  await shot('sections');

  await entry('Hosted Tasks').click();
  await titles.filter({ hasText: /^Max Ttl Seconds$/ }).waitFor({ timeout: 30_000 });
  await shot('hosted-tasks');
}
