import * as assert from 'node:assert/strict';
import { parseDotenv } from '../../../src/core/config';

describe('config: parseDotenv', () => {
  it('reads KEY=VALUE lines, skipping comments, blanks and lines it cannot read', () => {
    const text = ['# a comment', '', 'A=1', '  B = two words  ', 'not a line', '=nokey', 'C=', 'D.E-F=ok'].join('\n');
    assert.deepEqual(parseDotenv(text), { A: '1', B: 'two words', C: '', 'D.E-F': 'ok' });
  });

  it('reads a key that starts with a digit, as dotenv and VS Code do (the line was skipped, so the server lacked the variable)', () => {
    assert.deepEqual(parseDotenv('1PASSWORD_TOKEN=abc\n2=two'), { '1PASSWORD_TOKEN': 'abc', '2': 'two' });
  });

  it('accepts the export prefix', () => {
    assert.deepEqual(parseDotenv('export TOKEN=abc\nexport\tX=1\nexport=3'), { TOKEN: 'abc', X: '1', export: '3' });
  });

  it('strips inline comments from unquoted values only, from the first # as dotenv and VS Code do (a#b was read as "a#b": the server got another value than under VS Code)', () => {
    assert.deepEqual(parseDotenv('A=1 # note\nB=a#b\nC="x # y" # note\nD=\'#\'\nE=#'), { A: '1', B: 'a', C: 'x # y', D: '#', E: '' });
  });

  it('accepts KEY: VALUE lines, as dotenv and VS Code do (they were skipped)', () => {
    assert.deepEqual(parseDotenv('A: 1\nexport B:\t"two"\nC:3\nD = x: y'), { A: '1', B: 'two', D: 'x: y' });
  });

  it('reads quoted values: escapes in double quotes only, multi-line values, equals signs', () => {
    const text = 'A="line1\\nline2\\t\\"q\\""\nB=\'raw\\n\'\nC=`back`\nD="multi\nline"\nE=a=b=c\nF="  spaced  "';
    assert.deepEqual(parseDotenv(text), { A: 'line1\nline2\t"q"', B: 'raw\\n', C: 'back', D: 'multi\nline', E: 'a=b=c', F: '  spaced  ' });
  });

  it('handles CRLF line ends, an unclosed quote, and a later key winning', () => {
    assert.deepEqual(parseDotenv('A=1\r\nB="open\r\nA=2\r\n'), { A: '2', B: '"open' });
  });
});
