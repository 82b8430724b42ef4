// The elicitation prompter's way out of the editor, inside the real extension host: the URL a
// server asks the user to open reaches vscode.env.openExternal exactly as the consent prompt
// showed it. The editor leaves `env` writable while tests run, so the test replaces
// openExternal and restores it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { QuickInputPrompter } from '../../src/vscode/elicitation/quickInputPrompter';

type Opener = { openExternal(target: unknown): Thenable<boolean> };

suite('Elicitation in URL mode', () => {
  test('opens the exact URL the user consented to, percent-escapes and all', async () => {
    const env = vscode.env as unknown as Opener;
    const original = env.openExternal;
    const opened: unknown[] = [];
    env.openExternal = (target) => {
      opened.push(target);
      return Promise.resolve(true);
    };
    try {
      // A vscode.Uri would decode %3A %2F %3F %3D %26 %2B and open another page.
      const url = 'https://mcp.example.com/connect?id=abc&return=https%3A%2F%2Fapp.example%2Fdone%3Fa%3D1%26b%3D2&sig=q%2Bk%3D';
      assert.equal(await new QuickInputPrompter().openExternal(url), true);
      assert.deepEqual(opened, [url]);
    } finally {
      env.openExternal = original;
    }
  });
});
