// Names for a result's document (`/<server>/<row title>.md`): the tab reads them, and Save As
// suggests the last one as the file's name.
import * as assert from 'node:assert/strict';
import { fileName, inert, oneLine, unlinked } from '../../../src/core/util/text';

describe('fileName: a row or server name as a document name', () => {
  it('keeps the name as the row reads it, but for what would make a folder of it or cannot be shown', () => {
    assert.equal(fileName('build (4:47 PM)', false), 'build (4:47 PM)');
    assert.equal(fileName('lab (a/b\\c)\n\u0007x', false), 'lab (a_b_c)_x');
    assert.equal(fileName('what? "this" <or> that|*', false), 'what? "this" <or> that|*');
  });

  it('where the extension host runs on Windows, suggests a name Windows can save: no `: * ? " < > |`, and ":" reads alike (U+2236)', () => {
    assert.equal(fileName('build (4:47 PM)', true), 'build (4\u223647 PM)');
    assert.equal(fileName('what? "this" <or> that|*', true), 'what_ _this_ _or_ that_');
  });

  it('never names "." or ".." (the path would climb out of the server\'s folder) or nothing', () => {
    for (const windows of [false, true]) {
      assert.deepEqual(['.', '..', '', '\n'].map((s) => fileName(s, windows)), ['_', '_', '_', '_']);
      assert.equal(fileName('.env', windows), '.env');
    }
  });

  it('cuts a long name to 99 characters without splitting an emoji', () => {
    assert.equal(fileName('x'.repeat(120), false), 'x'.repeat(99));
    assert.equal(fileName(`${'x'.repeat(98)}😀`, false), 'x'.repeat(98));
  });
});

describe('inert: a server\'s text where the editor would read links and icons in it', () => {
  it('makes no link: a `command:` link in a notification or an input\'s prompt runs the command at a click', () => {
    assert.equal(inert('Failed: [Open logs](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)'), 'Failed: [Open logs] (command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%22%7D)');
    assert.equal(inert('see [docs](https://example.com) and [a](FILE:///etc/passwd)'), 'see [docs] (https://example.com) and [a] (FILE:///etc/passwd)');
    // Only what the editor links: a pattern such as `^[A-Z](\d+)$` reads as the server wrote it.
    assert.equal(inert('matching ^[A-Z](\\d+)$'), 'matching ^[A-Z](\\d+)$');
  });

  it('draws no icon: `$(name)` stays text, as the editor escapes it (`\\$(`)', () => {
    assert.equal(inert('$(check) Verified $(shield)'), '\\$(check) Verified \\$(shield)');
    assert.equal(inert('costs $5 (or $(4))'), 'costs $5 (or \\$(4))');
  });

  it('turns control, bidi and zero-width characters into spaces: U+202E would turn the rest of the line around, ours included', () => {
    assert.equal(inert('safe\u202Etxt.exe\u200B\u2066x\u2069\r\nline\u0007\u001b[31m'), 'safe txt.exe  x   line  [31m');
    assert.equal(inert('日本語 🙂 é'), '日本語 🙂 é');
    assert.equal(inert(undefined), undefined);
  });
});

describe('unlinked: a server\'s text in a notification, which makes links but draws no icons', () => {
  it('makes no link, keeps `$(name)` as sent (a notification shows it so; `\\$(` would read with its backslash) and is on one line', () => {
    assert.equal(unlinked('Failed: run $(npm bin)/tsc, see [log](command:workbench.action.openSettings)\u202E.'), 'Failed: run $(npm bin)/tsc, see [log] (command:workbench.action.openSettings) .');
    assert.equal(unlinked(undefined), undefined);
  });
});

describe('oneLine: a server\'s text in a view\'s row, which draws no icon or link', () => {
  it('keeps the text as sent but for control, bidi and zero-width characters, which become spaces', () => {
    assert.equal(oneLine('$(check) [a](command:x) deploy\u202E · now\r\n'), '$(check) [a](command:x) deploy  · now  ');
  });
});
