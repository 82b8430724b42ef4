// A person opens a folder they do not trust whose .vscode/mcp.json has a stdio server: the Tasks
// view says the server is not started and why, and no server process is started, not even when
// the person asks to connect.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clickRowAction, openViewContainer, openWorkbench, rowDescription, treeRow, widenSideBar } from './ui.mjs';

export const name = 'untrusted-workspace';
export const workspace = 'untrusted';
/** Started without --disable-workspace-trust: the folder opens in Restricted Mode. */
export const workspaceTrust = true;

/** Command lines of the processes running the server of this workspace (its own server.mjs). */
function serverProcesses(serverScript) {
  const found = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
    } catch {
      continue; // gone meanwhile, or not ours to read
    }
    if (cmdline.includes(serverScript)) found.push(`${pid}: ${cmdline}`);
  }
  return found;
}

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, workspace: folder, shot }) {
  const serverScript = join(folder, 'server.mjs');
  await openWorkbench(page, url);
  // The folder is not trusted: the workbench says so in the status bar.
  await page.locator('.part.statusbar').getByText('Restricted Mode').waitFor({ timeout: 30_000 });

  await openViewContainer(page, 'MCP Tasks').catch((e) => {
    throw new Error(`no MCP Tasks view in Restricted Mode: is the extension disabled in untrusted workspaces (capabilities.untrustedWorkspaces)? ${e.message}`);
  });
  await widenSideBar(page, 560);
  const row = treeRow(page, 'demo');
  await row.waitFor({ timeout: 30_000 });
  const notStarted = row.locator('.label-description', { hasText: /^not started: .*not trusted/ });
  const before = await rowDescription(row);
  await shot('view');
  if (!before.startsWith('not started:')) throw new Error(`the server row should say it is not started, not ${JSON.stringify(before)}`);

  // Asking to connect does not start it either.
  await clickRowAction(row, 'Connect Server');
  await notStarted.waitFor({ timeout: 30_000 });
  await shot('after-connect');
  const running = serverProcesses(serverScript);
  if (running.length) throw new Error(`the untrusted workspace's server was started:\n${running.join('\n')}`);
}
