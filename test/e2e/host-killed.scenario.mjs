// The extension host is killed (kill -9) and its task list is found cut short when it starts
// again (a crash in the middle of a save on a file system without atomic renames, or a disk that
// failed): the editor starts a new extension host, MCP Tasks activates again and says that it
// could not read the tasks it saved and where the file is kept, and runs tasks as before.
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parts, openViewContainer, openWorkbench, runToolAsTask, taskRow, widenSideBar } from './ui.mjs';

export const name = 'host-killed';

/** This run's folder (the newest: one editor at a time) and its scenario folder's user data. */
function userData(workspace) {
  const runs = join(workspace, '..', '..', '..', '..', '.vscode-test', 'runs');
  const run = readdirSync(runs).map((d) => join(runs, d)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
  const scenario = readdirSync(run).find((d) => existsSync(join(run, d, 'user-data')));
  return join(run, scenario, 'user-data');
}

/** Files under `dir` whose path matches `re`. */
function find(dir, re) {
  return readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f))).filter((f) => re.test(f));
}

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, workspace, shot }) {
  await openWorkbench(page, url);
  await openViewContainer(page, 'MCP Tasks');
  await widenSideBar(page, 520);
  await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message: 'before the crash' } });
  await taskRow(page, 'quick-echo', 'Completed').waitFor({ timeout: 30_000 });
  const data = userData(workspace);
  let index;
  // Saved half a second after the change.
  for (const deadline = Date.now() + 10_000; !(index = find(join(data, 'User', 'workspaceStorage'), /mcp-tasks\.mcp-tasks[/\\]tasks\.json$/)[0]); await page.waitForTimeout(200)) {
    if (Date.now() > deadline) throw new Error('no tasks.json');
  }
  const pids = find(join(data, 'logs'), /exthost\d*[/\\]remoteexthost\.log$|exthost\d*[/\\]exthost\.log$/).flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/Extension host with pid (\d+) started/g)].map((m) => Number(m[1])));
  if (pids.length !== 1) throw new Error(`extension host pids: ${pids.join(', ')}`);
  const text = readFileSync(index, 'utf8');
  process.kill(pids[0], 'SIGKILL');
  writeFileSync(index, text.slice(0, 60));

  const toast = page.locator(`${parts.notifications} .notification-list-item`).filter({ hasText: 'could not read the tasks it saved' });
  await toast.first().waitFor({ timeout: 90_000 });
  await shot('told');
  const kept = readdirSync(join(index, '..')).filter((f) => f.endsWith('.damaged'));
  if (kept.length !== 1 || readFileSync(join(index, '..', kept[0]), 'utf8') !== text.slice(0, 60)) throw new Error(`kept aside: ${kept.join(', ')}`);
  await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message: 'after the crash' } });
  await taskRow(page, 'quick-echo', 'Completed').waitFor({ timeout: 60_000 });
  await shot('runs-again');
}
