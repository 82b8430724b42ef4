// Counts the user reads outside the confirmations (the status bar item, its tooltip, the view's
// badge, a notification about many tasks) are written as the locale writes them: "1,000", not "1000".
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { TaskHost } from '../../src/core/host/taskHost';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { TaskIndicators } from '../../src/vscode/indicators';
import type { Node } from '../../src/vscode/tree/tasksTree';
import { waitFor } from './helpers';
import { recordToasts } from './quickInputs';
import { storedTask } from './viewParts';

suite("Counts are written in the locale's digits", () => {
  test('the status bar item, its tooltip and the badge\'s tooltip say "1,000"; so does the warning of 2,000 tasks lost at once', async function () {
    this.timeout(60_000);
    const k = (n: number) => n.toLocaleString();
    assert.notEqual(k(1000), '1000', 'a locale that groups thousands (else this test cannot fail)');
    const toasts = recordToasts('showWarningMessage');
    // Tasks restored after a reload: they wait for the configuration.
    const engine = new TaskEngine({
      logger: nullLogger,
      sessions: { getSession: () => Promise.reject(new Error('not started')), label: () => 'lab', tasksOutliveConnection: () => undefined, isConfigured: () => undefined },
    });
    const view = {} as vscode.TreeView<Node>;
    let indicators: TaskIndicators | undefined;
    try {
      engine.restore(Array.from({ length: 2000 }, (_, i) => storedTask('settings:lab', `t${i}`, { status: i < 1000 ? 'working' : 'input_required', toolName: 'slow' })));
      // Made after the restore, it counts them without telling each that needs input.
      indicators = new TaskIndicators(engine, { onDidExpire: () => ({ dispose: () => undefined }), onDidServerCancel: () => ({ dispose: () => undefined }) } as unknown as TaskHost, view, () => 'lab');
      const { statusBar, tooltip } = indicators.snapshot();
      assert.equal(statusBar, `$(sync~spin) ${k(1000)}  $(bell-dot) ${k(1000)}`);
      assert.equal(tooltip, `MCP Tasks: ${k(1000)} running, ${k(1000)} waiting for you — Click to show the MCP Tasks view`);
      assert.equal(view.badge?.tooltip, `${k(1000)} MCP tasks need your input`);
      // Lost at once (Disconnect of a removed server), they are told in one warning.
      engine.drop('settings:lab', 'disconnected');
      await waitFor(() => toasts.told.length, 'the warning');
      assert.equal(toasts.told[0][0], `${k(2000)} tasks on lab: lost`);
    } finally {
      toasts.dispose();
      indicators?.dispose();
      engine.dispose();
    }
  });
});
