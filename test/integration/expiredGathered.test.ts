// Requests a server had the client run (questions, sampling) whose ttl runs out one after another
// over seconds, as many asked one after another do: told in one warning for their server, as ended
// tasks are (see lostWithWindow.test.ts), not one per 100 ms.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostedTaskSnapshot, TaskHost } from '../../src/core/host/taskHost';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { TaskIndicators } from '../../src/vscode/indicators';
import type { Node } from '../../src/vscode/tree/tasksTree';
import { waitFor } from './helpers';
import { recordToasts } from './quickInputs';

suite('Requests whose ttl runs out one after another', () => {
  let toasts: ReturnType<typeof recordToasts>;
  let engine: TaskEngine;
  let indicators: TaskIndicators;
  let expire: (h: HostedTaskSnapshot) => void;

  setup(() => {
    toasts = recordToasts('showWarningMessage');
    engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: () => Promise.reject(new Error('not started')), label: () => 'lab', tasksOutliveConnection: () => false } });
    const host = { onDidExpire: (l: typeof expire) => ((expire = l), { dispose: () => undefined }), onDidServerCancel: () => ({ dispose: () => undefined }), list: () => [] } as unknown as TaskHost;
    indicators = new TaskIndicators(engine, host, {} as vscode.TreeView<Node>, () => 'lab');
  });

  teardown(() => {
    toasts.dispose();
    indicators.dispose();
    engine.dispose();
  });

  const hosted = (i: number): HostedTaskSnapshot => {
    const at = new Date().toISOString();
    return { serverId: 'settings:lab', taskId: `h${i}`, method: 'elicitation/create', status: 'failed', createdAt: at, lastUpdatedAt: at, ttl: 5000, pollInterval: 1000, summary: `Question ${i}` };
  };

  test('are told in one warning with their count and Show Log, where each is logged (not one per 100 ms)', async function () {
    this.timeout(30_000);
    // 20 over 3 s, 150 ms apart: each alone in its 100 ms.
    for (let i = 0; i < 20; i++) {
      expire(hosted(i));
      await new Promise((r) => setTimeout(r, 150));
    }
    await waitFor(() => toasts.told.length > 1, 'the warnings', 10_000);
    // Not Show Tasks: the view no longer has them; the log names each (created, then its ttl ended).
    assert.deepEqual(toasts.told.slice(1), [['19 requests on lab closed unanswered: the time the server allowed for them ran out.', ['Show Log']]]);
    // The first, alone, was told at once, as before.
    assert.deepEqual(toasts.told[0], ['"Question 0" on lab closed unanswered: the server allowed 5 s for an answer.', []]);
    const { commands } = vscode;
    const execute = commands.executeCommand;
    const ran: string[] = [];
    commands.executeCommand = (async (id: string) => void ran.push(id)) as typeof execute;
    try {
      toasts.choices[1]('Show Log');
      await waitFor(() => ran.length, 'the command');
    } finally {
      commands.executeCommand = execute;
    }
    assert.deepEqual(ran, ['mcpTasks.showLog']);
  });
});
