// A command that fails in a way it does not tell itself (a bug of ours, or an argument from
// another extension it cannot use) is told once, named by its title, and logged with its stack:
// not the editor's "command 'mcpTasks.x' resulted in an error" with nothing in the log.
// A row without the id that names it is no row: the command asks as from the palette; a row
// naming a question no longer asked says so.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateExtension, logText, waitFor } from './helpers';

suite('A command that fails unexpectedly, or is given a row it cannot use', () => {
  test('Open MCP Configuration run with a file that does not exist says "Open MCP Configuration failed: …" once, with Show Log, and logs the error with its stack', async () => {
    await activateExtension();
    const missing = path.join(__dirname, 'no-such-mcp.json');
    const w = vscode.window as unknown as Record<string, unknown>;
    const showError = w.showErrorMessage;
    const told: string[] = [];
    // Toasts are not shown while tests run: the message is recorded, and no button is clicked.
    w.showErrorMessage = (message: string, ...items: string[]) => (told.push(`${message} | ${items.join(', ')}`), Promise.resolve(undefined));
    try {
      // Told by the extension, the failure does not reach the caller (the editor would show its own toast).
      await vscode.commands.executeCommand('mcpTasks.openConfiguration', missing);
      await waitFor(() => told.length > 0, 'the error');
      assert.equal(told.length, 1, told.join('\n'));
      assert.match(told[0], /^Open MCP Configuration failed: cannot open .*no-such-mcp\.json.*\. If it happens again, please report it with the details in the log\. \| Show Log$/);
      const line = await waitFor(() => /^.*\[error\] Open MCP Configuration \(mcpTasks\.openConfiguration\) failed: .*no-such-mcp\.json.*\n\s+at /m.exec(logText()), 'the error and its stack in the log');
      assert.ok(line);
    } finally {
      w.showErrorMessage = showError;
    }
  });

  test('Cancel Task given a hosted row without its task id asks as from the palette, not "No task undefined is hosted for this server"', async () => {
    await activateExtension();
    const w = vscode.window as unknown as Record<string, unknown>;
    const saved = [w.showWarningMessage, w.showInformationMessage, w.showQuickPick];
    const told: string[] = [];
    // The pick is answered with Escape; a message is recorded (toasts are not shown while tests run).
    w.showWarningMessage = (message: string) => (told.push(`warning: ${message}`), Promise.resolve(undefined));
    w.showInformationMessage = (message: string) => (told.push(`information: ${message}`), Promise.resolve(undefined));
    w.showQuickPick = (_: unknown, o: vscode.QuickPickOptions) => (told.push(`pick: ${o.title}`), Promise.resolve(undefined));
    try {
      await vscode.commands.executeCommand('mcpTasks.cancelTask', { kind: 'hosted', serverId: 'nowhere' });
      // The pick of live tasks, or why there is none (earlier tests may have left tasks).
      assert.equal(told.length, 1, told.join('\n'));
      assert.match(told[0], /^(pick: Cancel Task|information: No task is running\.|information: No running task can be cancelled)/);
    } finally {
      [w.showWarningMessage, w.showInformationMessage, w.showQuickPick] = saved;
    }
  });

  test('Respond to Task given a hosted row whose task is not hosted says there is no such question, not "The question is open at the top of the window"', async () => {
    await activateExtension();
    const w = vscode.window as unknown as Record<string, unknown>;
    const saved = [w.showWarningMessage, w.showInformationMessage];
    const told: string[] = [];
    w.showWarningMessage = (message: string) => (told.push(`warning: ${message}`), Promise.resolve(undefined));
    w.showInformationMessage = (message: string) => (told.push(`information: ${message}`), Promise.resolve(undefined));
    try {
      await vscode.commands.executeCommand('mcpTasks.respondToTask', { kind: 'hosted', serverId: 'x', taskId: 'nope' });
      assert.deepEqual(told, ['information: No question of task nope waits for your answer: it may have been answered or have expired.']);
    } finally {
      [w.showWarningMessage, w.showInformationMessage] = saved;
    }
  });
});
