// The warning that the stored task list could not be read (it was kept aside, see TaskStore's
// onUnread): its button opens the kept file in an editor, which works in remote windows too.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { tellUnread } from '../../src/vscode/storageNotices';
import { waitFor } from './helpers';
import { recordToasts } from './quickInputs';

suite('A stored task list that cannot be read', () => {
  let toasts: ReturnType<typeof recordToasts>;
  let dir: string;

  setup(() => {
    toasts = recordToasts('showWarningMessage');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-tasks-unread-'));
  });

  teardown(async () => {
    toasts.dispose();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('is told with Open File, which opens the file it was kept as, so the user can look at it or restore it', async () => {
    const kept = path.join(dir, 'tasks.json.1765000000000.damaged');
    fs.writeFileSync(kept, '{"version":1,"tasks":[{"snap":{"key":"precious"');
    tellUnread(kept);
    assert.deepEqual(toasts.told, [[`MCP Tasks could not read the tasks it saved, and starts without them. The file is kept as ${kept}.`, ['Open File']]]);
    toasts.choices[0]('Open File');
    const doc = await waitFor(() => vscode.window.activeTextEditor?.document, 'an editor of the kept file');
    assert.equal(doc.uri.fsPath, kept);
    assert.equal(doc.getText(), '{"version":1,"tasks":[{"snap":{"key":"precious"');
  });
});
