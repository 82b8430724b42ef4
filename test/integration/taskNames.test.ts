// How the Tasks view names tasks: runs of one tool on one server say when each started (their
// rows, tooltips and accessible labels alike), and a task found through tasks/list is named by
// enough of its id to tell it from the others, heard once as a task ("Task 3f2a…", not "Task Task");
// a server's task id is text in the row's tooltip, and its status message is cut there (a lost task's is
// how it was, on its last known status's row).
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { taskKey } from '../../src/core/tasks/types';
import { storedTask, withTree } from './viewParts';

const SERVER = 'settings:lab';
const UUID = '3f2a9c1e-7b4d-4e2a-9c1e-5d6f7a8b9c0d';

suite('Task names in the Tasks view', () => {
  test('runs of one tool say when they started, in the row, its tooltip and its accessible label; a listed task shows its id, not "Task Task"', () =>
    withTree(({ engine, tree }) => {
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
      const [older, newer] = [ago(120_000), ago(60_000)];
      engine.restore([
        storedTask(SERVER, 'a', { toolName: 'build', createdAt: older }),
        storedTask(SERVER, 'b', { toolName: 'build', createdAt: newer }),
        storedTask(SERVER, 'c', { toolName: 'deploy', createdAt: newer }),
        storedTask(SERVER, UUID, { toolName: '', origin: 'server-list', createdAt: newer }),
      ]);
      const read = () =>
        new Map(
          tree.getChildren(tree.getChildren()[0]).map((n) => {
            const item = tree.resolveTreeItem(tree.getTreeItem(n), n) as vscode.TreeItem;
            return [n.kind === 'task' ? n.key.slice(SERVER.length + 1) : '', { label: String(item.label), a11y: item.accessibilityInformation?.label, tooltip: (item.tooltip as vscode.MarkdownString).value }];
          }),
        );
      const rows = read();
      const at = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
      assert.deepEqual(Object.fromEntries([...rows].map(([id, r]) => [id, r.label])), { a: `build (${at(older)})`, b: `build (${at(newer)})`, c: 'deploy', [UUID]: 'Task 3f2a9c1e…8b9c0d' });
      for (const [id, r] of rows) {
        // The tooltip leads with the row's name (markdown-escaped there).
        assert.ok(r.tooltip.replace(/\\/g, '').includes(`**${r.label}**`), `${id}'s tooltip: ${r.tooltip}`);
        assert.ok(r.a11y?.startsWith(r.label.startsWith('Task ') ? `${r.label}, Completed, ` : `Task ${r.label}, Completed, `), `${id} heard as ${r.a11y}`);
      }
      assert.equal(rows.get(UUID)?.a11y, 'Task 3f2a9c1e…8b9c0d, Completed, 1 min');
      assert.equal(rows.get('a')?.a11y, `Task build (${at(older)}), Completed, 2 min`);
      // One build left: its row is "build" again.
      engine.remove(taskKey(SERVER, 'b'));
      assert.equal(read().get('a')?.label, 'build');
    }));

  // An agent's (or the API's) calls in parallel start tasks in one millisecond: 1,000 such runs read
  // "#297, #298, #299, #300, #295, #296, #275…" down a list that is otherwise newest first.
  test('runs started in one millisecond are listed newest first, as the others: #3, #2, #1', () =>
    withTree(({ engine, tree }) => {
      const at = new Date(Date.now() - 60_000).toISOString();
      engine.restore(['a', 'b', 'c'].map((id) => storedTask(SERVER, id, { createdAt: at })));
      const labels = tree.getChildren(tree.getChildren()[0]).map((n) => String(tree.getTreeItem(n).label));
      assert.deepEqual(labels.map((l) => l.replace(/.* /, '')), ['#3)', '#2)', '#1)'], labels.join(', '));
    }));

  test('a task id is text in the row\'s tooltip: one with a backtick ended a code span there, and an image after it loaded from the server\'s host at a hover', () =>
    withTree(({ engine, tree }) => {
      engine.restore([storedTask(SERVER, 'x` ![t](https://example.com/t.png) $(error) `y')]);
      const [n] = tree.getChildren(tree.getChildren()[0]);
      const tooltip = ((tree.resolveTreeItem(tree.getTreeItem(n), n) as vscode.TreeItem).tooltip as vscode.MarkdownString).value;
      assert.ok(tooltip.includes('Task id: x\\` \\!\\[t\\] \\(https\\://example\\.com/t\\.png\\) \\\\$\\(error\\) \\`y  \n'), tooltip);
    }));

  test('a direct call\'s tooltip says it is one, and shows no task id: the local one it is kept under (direct-…) is no server\'s', () =>
    withTree(({ engine, tree }) => {
      engine.restore([storedTask(SERVER, 'direct-66c23d29', { kind: 'direct' })]);
      const [n] = tree.getChildren(tree.getChildren()[0]);
      const tooltip = ((tree.resolveTreeItem(tree.getTreeItem(n), n) as vscode.TreeItem).tooltip as vscode.MarkdownString).value;
      assert.match(tooltip, /\(direct call, not a task\)/);
      assert.doesNotMatch(tooltip, /Task id|direct-/, tooltip);
    }));

  test('a status message of 100 KB is cut in the row\'s tooltip: the task\'s id and dates after it stay in sight', () =>
    withTree(({ engine, tree }) => {
      engine.restore([storedTask(SERVER, 'big', { status: 'failed', statusMessage: 'B'.repeat(100_000) })]);
      const [n] = tree.getChildren(tree.getChildren()[0]);
      const tooltip = ((tree.resolveTreeItem(tree.getTreeItem(n), n) as vscode.TreeItem).tooltip as vscode.MarkdownString).value;
      assert.ok(tooltip.includes(`${'B'.repeat(2000)} …\n\nTask id: big`), tooltip.slice(0, 300));
      assert.ok(tooltip.length < 3000, `${tooltip.length} characters`);
    }));

  test('a lost task\'s tooltip gives its last status message as how it was, on its "Last known status" row, not under "Lost" as how it is (T-LIFE-5)', () =>
    withTree(({ engine, tree }) => {
      engine.restore([
        storedTask(SERVER, 'gone', { status: 'lost', lastServerStatus: 'working', statusMessage: 'Step 2\nof 3', note: 'The server process ended.' }),
        storedTask(SERVER, 'old', { status: 'expired', statusMessage: 'Report ready' }),
      ]);
      const tips = tree.getChildren(tree.getChildren()[0]).map((n) => ((tree.resolveTreeItem(tree.getTreeItem(n), n) as vscode.TreeItem).tooltip as vscode.MarkdownString).value);
      const lost = tips.find((t) => t.includes('Task id: gone'))!;
      assert.match(lost, /\*\*: Lost\n\n_The server process ended\\\._\n\n/, lost);
      assert.match(lost, /\nLast known status: working · Step 2 of 3( {2}\n|$)/, lost);
      // One kept from before the last known status was: the message alone, named as one (not read as a status).
      assert.match(tips.find((t) => t.includes('Task id: old'))!, /\nLast status message: Report ready( {2}\n|$)/);
    }));
});
