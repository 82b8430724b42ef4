// A person runs tasks while the extension's storage folder cannot be written (a full disk, a
// read-only file system; played by a file in the folder's place): one notification says so, with
// what to do, however many saves fail; the tasks stay in the view, and once the folder can be
// written again they are saved by themselves, results too.
import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parts, runToolAsTask, storedTasks, withOneTask } from './ui.mjs';

export const name = 'storage-unwritable';

/** @param {import('../../scripts/editor/run-e2e.mjs').ScenarioContext} ctx */
export async function run({ page, url, workspace, shot }) {
  await withOneTask(page, url, 'saved');
  const { dir } = await storedTasks(page, workspace, name);

  // A file in the folder's place (the folder kept aside): every save fails.
  renameSync(dir, `${dir}.aside`);
  writeFileSync(dir, '');
  for (const message of ['not saved', 'not saved either']) {
    await runToolAsTask(page, { server: 'demo', tool: 'quick-echo', args: { message } });
  }
  const toast = page.locator(`${parts.notifications} .notification-list-item`).filter({ hasText: 'MCP Tasks cannot save its tasks and results' });
  await toast.first().waitFor({ timeout: 30_000 });
  await page.locator(`${parts.sidebar} .monaco-list-row[aria-label*="Completed"]`).nth(2).waitFor({ timeout: 30_000 });
  await shot('told-once');
  // (A toast may be hidden while the list is drawn again: none is no second one.)
  if ((await toast.count()) > 1) throw new Error(`told ${await toast.count()} times`);

  // The disk takes them again: saved within a minute, without a word from the person.
  rmSync(dir);
  renameSync(`${dir}.aside`, dir);
  for (const deadline = Date.now() + 90_000; !(existsSync(join(dir, 'results')) && readdirSync(join(dir, 'results')).length === 3); await page.waitForTimeout(1_000)) {
    if (Date.now() > deadline) throw new Error(`not saved again: ${existsSync(dir) ? readdirSync(dir).join(', ') : 'no folder'}`);
  }
  await shot('saved-again');
}
