// The extension host is killed (kill -9) and its task list is found cut short when it starts
// again (a crash in the middle of a save on a file system without atomic renames, or a disk that
// failed): the editor starts a new extension host, MCP Tasks activates again and says that it
// could not read the tasks it saved and where the file is kept, and runs tasks as before.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { filesUnder, parts, runToolAsTask, storedTasks, taskRow, withOneTask } from './ui.mjs';

export const name = 'host-killed';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, workspace, shot }) {
  await withOneTask(page, url, 'before the crash');
  const { userData, index, dir } = await storedTasks(page, workspace, name);
  const logs = filesUnder(join(userData, 'logs'), /exthost\d*[/\\](remote)?exthost\.log$/);
  const pids = logs.flatMap((f) => [...readFileSync(f, 'utf8').matchAll(/Extension host with pid (\d+) started/g)].map((m) => Number(m[1])));
  if (pids.length !== 1) throw new Error(`extension host pids: ${pids.join(', ')}`);
  const cut = readFileSync(index, 'utf8').slice(0, 60);
  process.kill(pids[0], 'SIGKILL');
  writeFileSync(index, cut);

  const toast = page.locator(`${parts.notifications} .notification-list-item`).filter({ hasText: 'could not read the tasks it saved' });
  await toast.first().waitFor({ timeout: 90_000 });
  await shot('told');
  const kept = readdirSync(dir).filter((f) => f.endsWith('.damaged'));
  if (kept.length !== 1 || readFileSync(join(dir, kept[0]), 'utf8') !== cut) throw new Error(`kept aside: ${kept.join(', ')}`);
  await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message: 'after the crash' } });
  await taskRow(page, 'quick-echo', 'Completed').waitFor({ timeout: 60_000 });
  await shot('runs-again');
}
