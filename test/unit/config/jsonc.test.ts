import * as assert from 'node:assert/strict';
import { isBlankJsonc, parseJsonc } from '../../../src/core/config/jsonc';

describe('config: the JSONC reader', () => {
  it('reads JSON with line and block comments, trailing commas and a BOM', () => {
    const d = parseJsonc('\ufeff{ // c\n "a": [1, 2,], /* b */ "b": { "c": "x\\n\\u00e9", }, }');
    assert.equal(d.error, undefined);
    assert.deepEqual(d.value, { a: [1, 2], b: { c: 'x\né' } });
  });

  it('reads every JSON value kind exactly as JSON.parse does', () => {
    const text = '{"n": -1.5e3, "z": 0, "t": true, "f": false, "nul": null, "s": "q\\"\\\\/\\b\\f\\r\\t", "arr": [[], {}]}';
    assert.deepEqual(parseJsonc(text).value, JSON.parse(text));
  });

  const bad: Array<[string, string, number]> = [
    ['{"a": 1 "b": 2}', 'a comma is missing', 8],
    ['{"a" 1}', 'a colon (:) is expected', 5],
    ['{a: 1}', 'a property name in double quotes is expected', 1],
    ['{"a": }', 'a value is expected', 6],
    ['{"a": 01}', 'invalid number', 6],
    ['{"a": tru}', 'unexpected character', 6],
    ['{"a": "x', 'a string is not closed (" is missing)', 6],
    ['{"a": "x\ny"}', 'a string is not closed (" is missing)', 6],
    ['{"a": "x\r\ny"}', 'a string is not closed (" is missing)', 6],
    ['{"a": "\\q"}', 'invalid escape character in a string', 7],
    ['{"a": "\t"}', 'invalid character in a string (control characters must be escaped)', 7],
    ['{"a": 1', 'a closing brace (}) is missing', 7],
    ['[1, 2', 'a closing bracket (]) is missing', 5],
    ['{} x', 'unexpected text after the end of the document', 3],
    ['{ /* never closed', 'a comment is not closed (*/ is missing)', 2],
  ];
  for (const [text, message, offset] of bad) {
    it(`reports "${message}" at its offset: ${JSON.stringify(text)}`, () => {
      const d = parseJsonc(text);
      assert.deepEqual(d.error, { offset, message });
      assert.equal(d.value, undefined);
    });
  }

  it('locates values, and for a missing path the key of the deepest property that exists', () => {
    const text = '{\n  "servers": {\n    "db": { "command": 42 }\n  }\n}';
    const d = parseJsonc(text);
    assert.equal(d.locate(['servers', 'db', 'command']), text.indexOf('42'));
    assert.equal(d.locate(['servers', 'db', 'args']), text.indexOf('"db"'));
    assert.equal(d.locate([]), 0);
  });

  it('lists property names in order with repeats, so duplicated servers can be reported', () => {
    assert.deepEqual(parseJsonc('{"servers": {"a": 1, "b": 2, "a": 3}}').keys(['servers']), ['a', 'b', 'a']);
  });

  it('refuses nesting deeper than 100 levels where it gets too deep (20,000 levels overflowed the stack; 3,000 took seconds)', () => {
    const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
    assert.deepEqual(parseJsonc(nested(20_000)).error, { offset: 100, message: 'nested too deeply (at most 100 levels)' });
    assert.deepEqual(parseJsonc(`{"a": ${nested(3_000)}}`).error, { offset: 105, message: 'nested too deeply (at most 100 levels)' });
    assert.equal(parseJsonc(nested(100)).error, undefined);
  });

  it('keeps positions down to 8 levels: deeper, a value is located at its nearest ancestor there (positions of every level cost time in the square of the depth)', () => {
    const text = `{"a": ${'['.repeat(60)}1${']'.repeat(60)}}`;
    const d = parseJsonc(text);
    assert.equal(d.error, undefined);
    assert.equal(d.locate(['a', 0, 0, 0, 0, 0, 0]), text.indexOf('[') + 6);
    assert.equal(d.locate(['a', ...Array<number>(59).fill(0)]), text.indexOf('[') + 7);
  });

  it('tells a file of only comments and whitespace from one with content', () => {
    assert.equal(isBlankJsonc(' // a\n/* b\n c */\n'), true);
    assert.equal(isBlankJsonc('// a\n{}'), false);
    assert.equal(isBlankJsonc('/* never closed'), false);
    assert.equal(isBlankJsonc('/* a */ /'), false);
    assert.equal(isBlankJsonc('//// a //// b\n// c'), true);
  });

  it('reads "__proto__" as a property, as JSON.parse does, never as the prototype', () => {
    const text = '{ "servers": { "__proto__": { "command": "node" }, "b": { "command": "python" } } }';
    const v = parseJsonc(text).value as { servers: Record<string, unknown> };
    assert.deepEqual(Object.keys(v.servers), ['__proto__', 'b']);
    assert.deepEqual(v, JSON.parse(text));
    assert.equal(Object.getPrototypeOf(v.servers), Object.prototype);
  });

  it('reads a file of many block comments in one pass (a backtracking pattern took over a minute on 30)', () => {
    // A header, then servers switched off with block comments: the shape that froze the host.
    const disabled = Array.from({ length: 30 }, (_, i) => `/* "s${i}": { "command": "node" }, */`).join('\n');
    assert.equal(isBlankJsonc(`/* header */\n${disabled}\n`), true);
    assert.equal(isBlankJsonc(`/* header */\n${disabled}\n{ "servers": {} }`), false);
    assert.equal(parseJsonc(`/* header */\n${disabled}\n{ "servers": {} }`).error, undefined);
  });
});
