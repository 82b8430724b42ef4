// Result documents (the mcp-task-result scheme) as the editor reads them.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { RESULT_SCHEME, ResultDocuments } from '../../src/vscode/results';
import type { TaskSnapshot } from '../../src/core/tasks/types';
import { storedTask } from './viewParts';

suite('Result documents', () => {
  test('a tab restored with the window shows the result kept from the earlier one, read from the store before the tab is answered, not "No result has been fetched"', async () => {
    const kept = { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: 'the kept report' }] } };
    const read: string[] = [];
    const engine = new TaskEngine({
      logger: nullLogger,
      sessions: { getSession: () => Promise.reject(new Error('no server here')), label: (id) => id, tasksOutliveConnection: () => true },
      loadOutcome: async (key) => (read.push(key), kept),
    });
    const results = new ResultDocuments(engine, (id) => (id === 'settings:lab' ? 'lab (settings)' : id));
    try {
      // As a reload restores it: fetched before, its outcome on disk only.
      const task = storedTask('settings:lab', 'report', { outcomeFetchedAt: new Date().toISOString() });
      engine.restore([task]);
      // Its tab named as an earlier version named it: found by the task's key and creation time, not its name.
      const doc = await results.provideTextDocumentContent(vscode.Uri.from({ scheme: RESULT_SCHEME, path: '/build-report.md', query: task.key, fragment: task.createdAt }));
      assert.match(doc, /the kept report/);
      // Named by its server as the view names it: two servers may run the same tool.
      assert.match(doc, /^# build on lab \(settings\): /);
      assert.deepEqual(read, [task.key]);
    } finally {
      results.dispose();
      engine.dispose();
    }
  });

  test('a result\'s tab reads as its row (`build (10:00 AM).md`) under its server as the view names it, whatever characters that holds; the same task opens the same tab, its title changed or its tab named by an earlier version', async function () {
    this.timeout(20_000);
    const engine = new TaskEngine({
      logger: nullLogger,
      sessions: { getSession: () => Promise.reject(new Error('no server here')), label: (id) => id, tasksOutliveConnection: () => true },
    });
    const results = new ResultDocuments(engine, () => 'lab (a/b: c?#)');
    const at = (time: string) => new Date(`2025-01-01T${time}Z`).toISOString();
    const clock = (iso: string) => new Date(iso).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
    const tabs = () => vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((tab) => (tab.input as vscode.TabInputText | undefined)?.uri)).filter((u) => u?.scheme === RESULT_SCHEME);
    try {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const [first, second] = [storedTask('settings:lab', 'a', { createdAt: at('10:00:00') }), storedTask('settings:lab', 'b', { createdAt: at('10:05:00') })];
      engine.restore([first, second]);
      await results.show(first);
      const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
      assert.equal(tab?.label, `build (${clock(first.createdAt)}).md`, 'the tab reads as the row: two runs of one tool, told apart by when they started');
      const uri = (tab?.input as vscode.TabInputText).uri;
      // The server as a folder: the editor names it where two tabs read alike; its '/' makes no folder of its own.
      assert.equal(uri.path, `/lab (a_b: c?#)/build (${clock(first.createdAt)}).md`);
      // As a reload restores the tab: from its URI's text.
      const restored = vscode.Uri.parse(uri.toString());
      assert.deepEqual([restored.path, restored.query, restored.fragment], [uri.path, first.key, first.createdAt]);
      // A third run in the first one's minute: the rows now name it to the second; its open tab stays the one.
      engine.restore([storedTask('settings:lab', 'c', { createdAt: at('10:00:30') })]);
      await results.show(first);
      assert.deepEqual(tabs().map(String), [uri.toString()]);
      // A tab named by an earlier version (as a reload restores it) is the task's tab too.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const old = vscode.Uri.from({ scheme: RESULT_SCHEME, path: '/build-a.md', query: first.key, fragment: first.createdAt });
      await vscode.window.showTextDocument(old);
      await results.show(first);
      assert.deepEqual(tabs().map(String), [old.toString()]);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      results.dispose();
      engine.dispose();
    }
  });

  test('an open result whose task the user took out of the view (Remove from List, as Clear Finished Tasks) says so, not "no longer tracked (it was cleared)"', async () => {
    const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: () => Promise.reject(new Error('no server here')), label: (id) => id, tasksOutliveConnection: () => true } });
    const results = new ResultDocuments(engine, (id) => id);
    try {
      const task = storedTask('settings:lab', 'report', { outcome: { kind: 'result', result: { content: [{ type: 'text', text: 'the report' }] } } });
      engine.restore([task]);
      const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: '/build-report.md', query: task.key, fragment: task.createdAt });
      assert.match(await results.provideTextDocumentContent(uri), /the report/);
      engine.remove(task.key);
      const doc = await results.provideTextDocumentContent(uri);
      assert.match(doc, /^# Task removed\n\nThis task is no longer in the MCP Tasks view \(removed or cleared from it, or older than `mcpTasks\.retentionDays`\), and any result kept for it was deleted with it\.\n$/);
    } finally {
      results.dispose();
      engine.dispose();
    }
  });

  test('an open result redraws only when what it shows changes: a progress notification of its task leaves it as it is, a new status message or the task removed redraws it', async () => {
    const changed = new vscode.EventEmitter<TaskSnapshot>();
    const removed = new vscode.EventEmitter<string>();
    let t: TaskSnapshot | undefined = storedTask('settings:lab', 'report', { status: 'working' });
    let reads = 0;
    const engine = { onDidChange: changed.event, onDidRemove: removed.event, get: () => (reads++, t), list: () => (t ? [t] : []) } as unknown as TaskEngine;
    const results = new ResultDocuments(engine, (id) => id);
    let fires = 0;
    results.onDidChange(() => fires++);
    const change = (c: Partial<TaskSnapshot>) => changed.fire((t = { ...t!, ...c }));
    try {
      const task = t;
      const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: '/build.md', query: task.key, fragment: task.createdAt });
      await results.provideTextDocumentContent(uri);
      for (let i = 1; i <= 100; i++) change({ progress: { progress: i, total: 100 }, lastUpdatedAt: new Date(i).toISOString() });
      assert.equal(fires, 0, 'a progress notification changes nothing the document shows');
      change({ statusMessage: 'half way' });
      assert.equal(fires, 1, 'a new status message is shown');
      reads = 0;
      assert.match(await results.provideTextDocumentContent(uri), /half way/);
      assert.equal(reads, 0, 'the editor asking for the text the change fired for gets the one the change worked out, not a second one');
      change({ progress: { progress: 1 } });
      assert.equal(fires, 1, 'the text it was told of is the one it shows, the editor asked for it again or not');
      t = undefined;
      removed.fire(task.key);
      assert.equal(fires, 2, 'the task removed is shown');
    } finally {
      results.dispose();
      changed.dispose();
      removed.dispose();
    }
  });
});
