// Names for a result's document (`/<server>/<row title>.md`): the tab reads them, and Save As
// suggests the last one as the file's name.
import * as assert from 'node:assert/strict';
import { fileName } from '../../../src/core/util/text';

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
