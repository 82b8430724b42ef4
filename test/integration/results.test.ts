// Result documents (the mcp-task-result scheme) as the editor reads them.
import * as assert from 'node:assert/strict';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { ResultDocuments } from '../../src/vscode/results';
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
      const doc = await results.provideTextDocumentContent(ResultDocuments.uriFor(task));
      assert.match(doc, /the kept report/);
      // Named by its server as the view names it: two servers may run the same tool.
      assert.match(doc, /^# build on lab \(settings\): /);
      assert.deepEqual(read, [task.key]);
    } finally {
      results.dispose();
      engine.dispose();
    }
  });
});
