// esbuild.js gives our own methods (OWN_METHODS) short names in the bundle. That is safe only for
// a name that is never data (kept, sent, or read by the editor): the build refuses a file under
// src/ that uses one other than as a method it declares or calls.
import * as assert from 'node:assert/strict';
import { transformSync } from 'esbuild';
import { readFileSync } from 'node:fs';
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

describe("esbuild.js's check of the fields the bundle renames (OWN_FIELDS: never kept or sent)", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { ownFieldMisuses } = require(path.join(root, 'esbuild.js')) as { ownFieldMisuses: (file: string, text: string) => string[] };
  const engine = path.join(root, 'src/core/tasks/engine.ts');
  const manager = path.join(root, 'src/core/servers/serverManager.ts');

  it("lets a field be declared in its owner, which its file keeps to itself, and read and written there", () => {
    const text = [
      'class Rec { resultCall: Promise<void> | undefined = undefined; seenIn = 0; }',
      'interface ServerFollow { byList: boolean; probeAfter: number }',
      'const f: ServerFollow = { byList: false, probeAfter: Infinity };',
      'const r = new Rec(); r.seenIn = f.probeAfter; const { resultCall } = r;',
    ].join('\n');
    assert.deepEqual(ownFieldMisuses(engine, text), []);
  });

  it('refuses one named in another file, declared in another type or an exported owner, or a key of a zod schema', () => {
    assert.deepEqual(ownFieldMisuses(manager, 'const x = rec.resultCall; // seenIn in a comment is no use'), [
      `${manager}:1 names resultCall outside ${engine}, the file of its owner Rec`,
    ]);
    const text = [
      'interface Saved { retryAt: number }',
      'export interface Entry { retryAt: number; lastFailure?: string }',
      'const S = z.object({ waitsFor: z.number() });',
    ].join('\n');
    assert.deepEqual(ownFieldMisuses(manager, text), [
      `${manager}:1 declares retryAt in Saved, not in Entry`,
      `${manager}:2 declares retryAt in Entry, which its file exports`,
      `${manager}:2 declares lastFailure in Entry, which its file exports`,
      `${manager}:3 names waitsFor in a zod schema`,
    ]);
  });
});

describe("esbuild.js's bundle leaves out what only tests read", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { options } = require(path.join(root, 'esbuild.js')) as { options: (o: { production: boolean }) => { dropLabels?: string[] } };
  const { dropLabels } = options({ production: true });

  for (const [file, name] of [['engine', 'followedCount'], ['scheduler', 'heapLength'], ['scheduler', 'size']]) {
    it(`the ${file}'s ${name} (a statement labelled TESTS), which the tests' own build keeps`, () => {
      const ts = readFileSync(path.join(root, `src/core/tasks/${file}.ts`), 'utf8');
      const seam = new RegExp(`TESTS: Object\\.defineProperty\\(this, '${name}'`);
      assert.match(ts, seam);
      assert.doesNotMatch(transformSync(ts, { loader: 'ts', dropLabels }).code, new RegExp(`defineProperty\\(this, "${name}"`));
      assert.match(readFileSync(path.join(__dirname, `../../../src/core/tasks/${file}.js`), 'utf8'), seam);
    });
  }
});
