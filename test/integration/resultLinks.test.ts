// The links the editor's Markdown support finds in a result document (a Ctrl+click opens one) of
// a hostile server's text: none may run a command.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TaskEngine } from '../../src/core/tasks/engine';
import { nullLogger } from '../../src/core/util/log';
import { RESULT_SCHEME, ResultDocuments } from '../../src/vscode/results';
import { storedTask } from './viewParts';

/**
 * Every way tried to write a command: link: `x` holds its number, to tell which one a failure is.
 * Not `[r]:` with its link on the next line: the editor then fails to give any link of the
 * document ("Illegal argument: range"), and this test would see none.
 */
const HOSTILE = [
  '[a](command&#58;x1)', '[a](command&colon;x2)', '[a](command&#x3A;x3)', '[a](&#99;ommand:x4)', '[a](command%3Ax5)', '[a](command\\:x6)',
  '[a](CoMmAnD:x7)', '[a](\n command:x8)', '[a](<command:x9>)', '[r10]: command:x10 "title"',
  'a <a href="command:x12">a</a>', "a <a href='command&#58;x13'>a</a>", 'a <a href=command:x14>a</a>', 'a <img src="command:x15">',
  '<map><area href="command:x16"></map>', 'a <command:x17> b', 'a <a href="command&colon;x18">a</a>', 'a <a title="t" href="&#99;ommand:x19">a</a>',
  'a <a href="comm&#97;nd&#x3a;x20">a</a>', 'a <a href="command&#0058x21">a</a>', 'a <img src="&#x63;&#x6f;mmand:x22">',
  'a <video src="command&#58;x23"></video>', 'a <video><source src="command&#58;x24"></video>', '<a href="command&#58;x25">a block</a>', 'a <a href="command&#58;x26"',
  'a <a href=" command:x27">a</a>', 'a <a href="\tcommand:x28">a</a>', 'a <a href="&#32;command:x29">a</a>', 'a <a href="&#9;command:x30">a</a>', '[a](< command:x31>)',
  '[a](<\tcommand:x32>)', 'a <img src=" command&#58;x33">', '[a]( \t command:x34)', 'a <a href="\ncommand:x35">a</a>',
  // A reference of no letter, colon or space is left as sent (x = &#169;): it makes no scheme before or in one.
  'a <a href="&#169;command:x36">a</a>', 'a <a href="comm&#169;&#97;nd&#58;x37">a</a>', 'a <a href="comm&Tab;and:x38">a</a>', 'a <a href="&NewLine;command:x39">a</a>',
  'a <a href="&#X63;&#x6F;mmand&#x3A;x40">a</a>',
];

suite('Result document links', () => {
  test('a server\'s text gives no link that runs a command, however it writes one (character references, case, spaces, angle brackets, definitions, HTML href and src, autolinks); its https and file links stay', async function () {
    this.timeout(30_000);
    const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: () => Promise.reject(new Error('no server here')), label: (id) => id, tasksOutliveConnection: () => true } });
    const results = new ResultDocuments(engine, (id) => id);
    try {
      const text = [...HOSTILE, 'see <https://example.com/ok> and [the notes](notes.md); x = &#169;'].map((t) => ({ type: 'text' as const, text: t }));
      const task = storedTask('settings:lab', 'report', { outcome: { kind: 'result', result: { content: text } } });
      engine.restore([task]);
      const uri = vscode.Uri.from({ scheme: RESULT_SCHEME, path: '/lab/build.md', query: task.key, fragment: task.createdAt });
      await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri));
      // The Markdown language server starts on its first document, and the editor answers before it
      // with links of its own: asked until the server's link to a file next to it is found.
      let links: vscode.DocumentLink[] = [];
      for (let i = 0; i < 80 && !links.some((l) => l.target?.path.endsWith('/notes.md')); i++) {
        if (i) await new Promise((r) => setTimeout(r, 250));
        links = await vscode.commands.executeCommand<vscode.DocumentLink[]>('vscode.executeLinkProvider', uri, 1000);
      }
      // The Markdown server's own link: the editor's https one comes without it, and no command: link then.
      assert.ok(links.some((l) => l.target?.path.endsWith('/notes.md')) && links.some((l) => `${l.target}` === 'https://example.com/ok'), `the Markdown links are found: ${links.map((l) => `${l.target}`).join(', ')}`);
      const doc = await vscode.workspace.openTextDocument(uri);
      const commands = links.filter((l) => l.target?.scheme === 'command').map((l) => `${doc.getText(l.range)} -> ${l.target}`);
      assert.deepEqual(commands, []);
      assert.ok(doc.getText().includes('x = &#169;'), 'a reference that makes no scheme reads as sent');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      results.dispose();
      engine.dispose();
    }
  });
});
