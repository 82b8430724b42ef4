// esbuild.js gives our own methods (OWN_METHODS) short names in the bundle. That is safe only for
// a name that is never data (kept, sent, or read by the editor): the build refuses a file under
// src/ that uses one other than as a method it declares or calls.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ownMethodMisuses } = require(path.join(root, 'esbuild.js')) as { ownMethodMisuses: (file: string, text: string) => string[] };

describe("esbuild.js's check of the methods the bundle renames", () => {
  it('lets a method be declared and called', () => {
    const text = [
      'interface Servers { resolveServer(id: string): string; liveTasksChanged: (id: string) => void }',
      'class A { resolveServer(id: string) { return id; } liveTasksChanged = (id: string) => void id; }',
      'const o = { resolveServer(id: string) { return id; }, liveTasksChanged: (id: string) => void id };',
      'new A().resolveServer("x"); o.liveTasksChanged?.("x");',
    ].join('\n');
    assert.deepEqual(ownMethodMisuses('ok.ts', text), []);
  });

  it('refuses a use that could be data: read, written, shorthand, destructured, or a value that is not a function', () => {
    const text = [
      'const f = o.resolveServer;',
      'o.liveTasksChanged = f;',
      'const p = { resolveServer };',
      'const { liveTasksChanged } = o;',
      'const q = { savedInput: "kept" };',
    ].join('\n');
    assert.deepEqual(ownMethodMisuses('bad.ts', text), [
      'bad.ts:1 uses resolveServer as PropertyAccessExpression',
      'bad.ts:2 uses liveTasksChanged as PropertyAccessExpression',
      'bad.ts:3 uses resolveServer as ShorthandPropertyAssignment',
      'bad.ts:4 uses liveTasksChanged as BindingElement',
      'bad.ts:5 uses savedInput as PropertyAssignment',
    ]);
  });
});
