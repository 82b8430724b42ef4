import { fromJson, stringify } from '../util/json';
/**
 * A small JSONC reader for `.vscode/mcp.json`: JSON plus comments and trailing commas, as VS Code
 * reads that file. It stops at the first syntax error (the file is then not used at all) and
 * records where each value and property key starts, so errors can point at a line and column.
 *
 * Written here rather than bundling `jsonc-parser` (12 KB of the extension's bundle for what this
 * file does in about 2 KB); the config tests pin its positions and messages.
 */

export type JsoncSyntaxError =
  | 'unexpected character'
  | 'a value is expected'
  | 'a property name in double quotes is expected'
  | 'a colon (:) is expected'
  | 'a comma is missing'
  | 'a closing brace (}) is missing'
  | 'a closing bracket (]) is missing'
  | 'unexpected text after the end of the document'
  | 'a comment is not closed (*/ is missing)'
  | 'a string is not closed (" is missing)'
  | 'invalid number'
  | 'invalid escape character in a string'
  | 'invalid character in a string (control characters must be escaped)'
  | 'nested too deeply (at most 100 levels)';

export type JsoncPath = Array<string | number>;

export interface JsoncDocument {
  value: unknown;
  error?: { offset: number; message: JsoncSyntaxError };
  /** Where the value at `path` starts (with `key`, its property name); for a missing path, the key of its deepest existing parent property. */
  locate(path: JsoncPath, key?: boolean): number | undefined;
  /** The property names of the object at `path`, in order, repeats included. */
  keys(path: JsoncPath): string[];
}

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/**
 * Deeper nesting is refused: the parser recurses, and no configuration needs it. Positions are
 * kept only down to TRACKED levels (errors point no deeper): keeping the path of every value
 * cost time in the square of the depth, seconds of the extension host for a hostile file.
 */
const MAX_DEPTH = 100;
const TRACKED = 8;

export const parseJsonc = (text: string): JsoncDocument => {
  let i = 0;
  let depth = 0;
  const values = new Map<string, { value: number; key?: number }>();
  const keyLists = new Map<string, string[]>();
  const id = (path: JsoncPath) => stringify(path);
  let error: JsoncDocument['error'];
  /** Ends parsing at the first error, which it records for the catch at the top (no other is thrown once it is). */
  const fail = (message: JsoncSyntaxError, at = i): never => {
    error = { offset: at, message };
    throw new SyntaxError(message);
  };

  const skip = () => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
      else if (c === 47 && text[i + 1] === '/') {
        const nl = text.indexOf('\n', i);
        i = nl < 0 ? text.length : nl + 1;
      } else if (c === 47 && text[i + 1] === '*') {
        const end = text.indexOf('*/', i + 2);
        if (end < 0) fail('a comment is not closed (*/ is missing)');
        i = end + 2;
      } else return;
    }
  };

  const string = (): string => {
    const start = i++;
    let out = '';
    for (;;) {
      const c = text[i];
      // The end of the text, or of the line: JSON strings do not span lines.
      if (c === undefined || c === '\n' || c === '\r') fail('a string is not closed (" is missing)', start);
      if (c === '"') {
        i++;
        return out;
      }
      if (c === '\\') {
        const e = text[i + 1];
        const hex = text.slice(i + 2, i + 6);
        // ESCAPES has no "u": a \u without four hex digits is an invalid escape too.
        if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(hex)) {
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          i += 2;
        } else fail('invalid escape character in a string');
      } else if (c < ' ') {
        fail('invalid character in a string (control characters must be escaped)');
      } else {
        out += c;
        i++;
      }
    }
  };

  /** A child's path, or undefined below the tracked levels. */
  const child = (path: JsoncPath | undefined, k: string | number) => (path && path.length < TRACKED ? [...path, k] : undefined);

  const value = (path: JsoncPath | undefined, key?: number): unknown => {
    skip();
    if (path) values.set(id(path), { value: i, key });
    const c = text[i];
    if (c === '{' || c === '[') {
      if (++depth > MAX_DEPTH) fail('nested too deeply (at most 100 levels)');
      const v = c === '{' ? object(path) : array(path);
      depth--;
      return v;
    }
    if (c === '"') return string();
    const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
    if (m && !/[\w.]/.test(text[i + m[0].length] ?? '')) {
      i += m[0].length;
      return fromJson(m[0]) as unknown;
    }
    if (c === undefined || c === '}' || c === ']' || c === ',') return fail('a value is expected');
    return fail(/[-\d]/.test(c) ? 'invalid number' : 'unexpected character');
  };

  const object = (path: JsoncPath | undefined): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    const names: string[] = [];
    if (path) keyLists.set(id(path), names);
    for (;;) {
      skip();
      if (text[i] === '}') {
        i++;
        return out;
      }
      if (i >= text.length) fail('a closing brace (}) is missing');
      if (text[i] !== '"') fail('a property name in double quotes is expected');
      const keyAt = i;
      const name = string();
      skip();
      if (text[i] !== ':') fail('a colon (:) is expected');
      i++;
      names.push(name);
      // As JSON.parse does: "__proto__" is a property like any other, never the prototype.
      Object.defineProperty(out, name, { value: value(child(path, name), keyAt), enumerable: true, writable: true, configurable: true });
      skip();
      if (text[i] === ',') i++;
      // At the end of the text, the loop says what is missing.
      else if (text[i] !== '}' && i < text.length) fail('a comma is missing');
    }
  };

  const array = (path: JsoncPath | undefined): unknown[] => {
    i++;
    const out: unknown[] = [];
    for (;;) {
      skip();
      if (text[i] === ']') {
        i++;
        return out;
      }
      if (i >= text.length) fail('a closing bracket (]) is missing');
      out.push(value(child(path, out.length)));
      skip();
      if (text[i] === ',') i++;
      // At the end of the text, the loop says what is missing.
      else if (text[i] !== ']' && i < text.length) fail('a comma is missing');
    }
  };

  let result: unknown;
  try {
    result = value([]);
    skip();
    if (i < text.length) fail('unexpected text after the end of the document');
  } catch (err) {
    if (!error) throw err;
    result = undefined;
  }
  return {
    value: result,
    error,
    locate(path, key) {
      for (let n = path.length; n >= 0; n--) {
        const at = values.get(id(path.slice(0, n)));
        if (at) return (key || n < path.length) && at.key !== undefined ? at.key : at.value;
      }
      return undefined;
    },
    keys: (path) => keyLists.get(id(path)) ?? [],
  };
};

/**
 * True when the text holds nothing but whitespace and comments. A scan, not a regular expression:
 * one with a lazy comment inside a repeat took seconds on a file of two dozen block comments.
 */
export const isBlankJsonc = (text: string): boolean => {
  for (let i = 0; i < text.length; ) {
    if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return false;
      i = end + 2;
    } else if (/\s/.test(text[i])) i++;
    else return false;
  }
  return true;
};
