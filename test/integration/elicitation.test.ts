// The elicitation prompter inside the real extension host. Its way out of the editor: the URL a
// server asks the user to open reaches vscode.env.openExternal exactly as the consent prompt
// showed it. A server's question hidden by another quick input waits, unanswered, to be shown
// again. The editor leaves `env` writable while tests run, so the test replaces
// openExternal and restores it.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Answer } from '../../src/core/elicitation/handler';
import { QuickInputPrompter } from '../../src/vscode/elicitation/quickInputPrompter';
import { HiddenDialogs } from '../../src/vscode/hiddenDialogs';
import { waitFor } from './helpers';
import { QuickInputSpy } from './quickInputs';

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

suite('A server question hidden without an answer', () => {
  let hidden: HiddenDialogs;
  let prompter: QuickInputPrompter;
  setup(() => {
    hidden = new HiddenDialogs();
    prompter = new QuickInputPrompter({ hidden });
  });
  teardown(() => (prompter.close(), hidden.dispose()));

  const items = [
    { label: 'Staging', value: 'staging' },
    { label: 'Production', value: 'production' },
  ];
  /** Shows the Command Palette over the question, until the question waits hidden, and closes the palette. */
  const paletteOver = async () => {
    await vscode.commands.executeCommand('workbench.action.showCommands');
    await waitFor(() => hidden.size === 1, 'the question to wait hidden');
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
  };

  test('is not answered when another quick input hides it; shown again, it takes the answer', async () => {
    const spy = new QuickInputSpy();
    try {
      let answer: Answer<string[]> | undefined;
      const asked = prompter.pick(items, { title: 'deploy (server "demo")', placeholder: 'Where to?', signal: new AbortController().signal }).then((a) => (answer = a));
      await spy.next('the question');
      await paletteOver();
      assert.equal(answer, undefined, 'no answer went to the server');
      assert.equal(hidden.reopen(), true);
      await spy.next('the question, shown again');
      await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
      await asked;
      assert.deepEqual(answer, { value: ['staging'] });
      assert.equal(hidden.size, 0);
    } finally {
      spy.dispose();
    }
  });

  test('closes when the server withdraws it (or its task ends) while hidden', async () => {
    const ac = new AbortController();
    const asked = prompter.pick(items, { title: 'deploy (server "demo")', placeholder: 'Where to?', signal: ac.signal });
    await paletteOver();
    ac.abort(new Error('the task ended'));
    await assert.rejects(asked, /the task ended/);
    assert.equal(hidden.size, 0, 'nothing is left to reopen');
  });

  test('a step of our own commands (no place to wait) still answers cancel when hidden', async () => {
    const own = new QuickInputPrompter();
    try {
      const asked = own.pick(items, { title: 'Run Tool as Task', placeholder: 'Pick', signal: new AbortController().signal });
      await vscode.commands.executeCommand('workbench.action.showCommands');
      assert.deepEqual(await asked, { nav: 'cancel' });
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    } finally {
      own.close();
    }
  });
});
