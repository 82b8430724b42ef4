// fallback(), the z.catch the bundle can afford: it must answer as z.catch does.
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Plugin } from 'esbuild';
import { build } from 'esbuild';
import * as z from 'zod/mini';
import { atLeast, base64, fallback, SafeInt } from '../../../src/core/util/zod';

describe('fallback (z.catch without the rest of zod)', () => {
  it('parses every value as z.catch does: kept when valid, the fallback when not, optional where its schema is', () => {
    const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
      [fallback(z.nullable(z.number()), null), z.catch(z.nullable(z.number()), null)],
      [fallback(z.optional(z.enum(['a', 'b'])), undefined), z.catch(z.optional(z.enum(['a', 'b'])), undefined)],
      [fallback(z.looseObject({ name: z.optional(z.string()) }), {}), z.catch(z.looseObject({ name: z.optional(z.string()) }), {})],
    ];
    const values = [undefined, null, 0, 1.5, Infinity, NaN, 'a', 'c', '', {}, { name: 'm' }, { name: 3, other: true }, [1]];
    for (const [ours, zods] of pairs) {
      for (const value of values) assert.deepEqual(ours.safeParse(value), zods.safeParse(value), `for ${String(value)}`);
      const inObject = (s: z.ZodMiniType) => z.object({ field: s }).safeParse({});
      assert.deepEqual(inObject(ours), inObject(zods), 'an absent field');
    }
  });
});

describe('SafeInt (z.int() without zod\'s number formats)', () => {
  it('parses every value as z.int() does, with the same issues, alone, in a union and checked further', () => {
    const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
      [SafeInt, z.int()],
      [z.union([z.string(), SafeInt]), z.union([z.string(), z.int()])],
      [z.optional(SafeInt.check(z.nonnegative())), z.optional(z.int().check(z.nonnegative()))],
      [z.object({ code: SafeInt }), z.object({ code: z.int() })],
    ];
    const big = 2 ** 60;
    const values = [undefined, null, 0, -0, 1, -1, 1.5, -1.5, 2 ** 53 - 1, 2 ** 53, -(2 ** 53), big, -big, Infinity, -Infinity, NaN, '1', true, {}, { code: 1.5 }, { code: big }, { code: -big }, { code: 7 }];
    for (const [ours, zods] of pairs) {
      for (const value of values) {
        assert.deepEqual(ours.safeParse(value), zods.safeParse(value), `for ${String(value)}`);
        assert.deepEqual(ours.safeParse(value, { reportInput: true }), zods.safeParse(value, { reportInput: true }), `for ${String(value)}, with its input`);
      }
    }
  });
});

describe('z.literal([...]) in place of z.enum, z.literal(null) of z.null (src/ uses neither: eslint.config.mjs)', () => {
  const error = { error: 'expected "a" or "b"' };
  const values = [undefined, null, 0, 'a', 'b', 'c', '', 'a|b', {}, ['a']];

  it('z.literal([...]) parses every value as z.enum does, with the same issues and custom errors', () => {
    const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
      [z.literal(['a', 'b']), z.enum(['a', 'b'])],
      [z.literal(['a', 'b'], error), z.enum(['a', 'b'], error)],
      [z.optional(z.literal(['a', 'b'])), z.optional(z.enum(['a', 'b']))],
    ];
    for (const [ours, zods] of pairs) {
      for (const value of values) assert.deepEqual(ours.safeParse(value, { reportInput: true }), zods.safeParse(value, { reportInput: true }), `for ${String(value)}`);
    }
  });

  it('z.literal(null) in a union with its own error (config/parse.ts) answers as z.null() there: the same values, issues and words', () => {
    // Only the union's inner `errors`, which nothing reads, tell them apart (invalid_value, not invalid_type).
    const read = (s: z.ZodMiniType, value: unknown) => {
      const r = s.safeParse(value);
      return r.success ? r : r.error.issues.map(({ code, path, message }) => ({ code, path, message }));
    };
    const ours = z.union([z.string(), z.number(), z.literal(null)], error);
    const zods = z.union([z.string(), z.number(), z.null()], error);
    for (const value of values) assert.deepEqual(read(ours, value), read(zods, value), `for ${String(value)}`);
  });
});

describe("base64() (z.base64() without zod's string formats)", () => {
  it('parses every value as z.base64 does, with the same issues and words, alone and in an object', () => {
    const error = 'expected base64-encoded data';
    const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
      [base64(error), z.base64({ error })],
      [z.looseObject({ data: base64(error) }), z.looseObject({ data: z.base64({ error }) })],
    ];
    const values = ['', 'aGk=', 'aGVsbG8=', 'aGVsbG8', 'aGk', 'a===', '====', 'aG k=', 'aGk=\n', '!!!!', 'aGk=aGk=', 'YQ==', 'YR==', 'Y===', 'a-_b', 1, null, undefined, {}, ['aGk=']];
    for (const [ours, zods] of pairs) {
      for (const value of [...values, ...values.map((data) => ({ data }))]) {
        assert.deepEqual(ours.safeParse(value, { reportInput: true }), zods.safeParse(value, { reportInput: true }), `for ${JSON.stringify(value)}`);
      }
    }
  });
});

describe("atLeast() (z.gte() and z.nonnegative() without zod's class for them)", () => {
  it('parses every value as z.gte does, with the same issues and words, with and without its own error', () => {
    const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
      [z.number().check(atLeast(1, 'expected a positive number')), z.number().check(z.gte(1, { error: 'expected a positive number' }))],
      [z.optional(SafeInt.check(atLeast(0))), z.optional(z.int().check(z.nonnegative()))],
      [
        z.optional(z.nullable(z.number({ error: 'expected ms' }).check(atLeast(0, 'must not be negative')))),
        z.optional(z.nullable(z.number({ error: 'expected ms' }).check(z.nonnegative({ error: 'must not be negative' })))),
      ],
    ];
    const values = [undefined, null, 0, -0, 1, 0.5, -1, -0.5, 2, -Infinity, Infinity, NaN, -(2 ** 60), '1', {}];
    for (const [ours, zods] of pairs) {
      for (const value of values) assert.deepEqual(ours.safeParse(value, { reportInput: true }), zods.safeParse(value, { reportInput: true }), `for ${String(value)}`);
    }
  });
});

describe("zod as bundled (esbuild.js's ZOD_FIXED: no memoizer, records keyed by z.string() alone, sync parses)", () => {
  it('validates records, objects, arrays, unions and what holds them as zod does, and refuses an async check as it does', async function () {
    this.timeout(30_000);
    const root = path.resolve(__dirname, '../../../..');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { zodFixed } = require(path.join(root, 'esbuild.js')) as { zodFixed: Plugin };
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'mcp-tasks-zod-')), 'zod.js');
    try {
      const built = await build({ stdin: { contents: "export * from 'zod/mini';", resolveDir: root }, bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent', plugins: [zodFixed] });
      assert.deepEqual(built.errors, []);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const b = require(out) as typeof z;
      assert.notEqual(b.record, z.record);
      // ZOD_MINI_FIXED: the methods src/ never calls are gone, those it calls are there.
      const schema = b.string() as unknown as Record<string, unknown>;
      assert.deepEqual(
        ['safeParse', 'check', 'parse', 'parseAsync', 'safeParseAsync', 'brand', 'register', 'apply', 'with'].map((m) => typeof schema[m]),
        ['function', 'function', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined', 'undefined'],
      );
      // zod/mini's own parse(), which src/ may call, does not need the method.
      assert.equal(b.parse(b.string(), 'x'), 'x');
      assert.throws(() => b.parse(b.string(), 1), (e: Error) => e.constructor.name === '$ZodError' && /"invalid_type"/.test(e.message));
      const pairs: Array<[z.ZodMiniType, z.ZodMiniType]> = [
        [b.record(b.string(), b.unknown()), z.record(z.string(), z.unknown())],
        [b.optional(b.record(b.string(), b.string({ error: 'must be a string' }), { error: 'must be an object' })), z.optional(z.record(z.string(), z.string({ error: 'must be a string' }), { error: 'must be an object' }))],
        [b.record(b.string(), b.union([b.string(), b.number(), b.literal(null)], { error: 'bad' })), z.record(z.string(), z.union([z.string(), z.number(), z.literal(null)], { error: 'bad' }))],
        [b.object({ r: b.record(b.string(), b.record(b.string(), b.number())) }), z.object({ r: z.record(z.string(), z.record(z.string(), z.number())) })],
        [b.array(b.looseObject({ a: b.optional(b.string()) })), z.array(z.looseObject({ a: z.optional(z.string()) }))],
        [
          b.object({ r: b.optional(b.nullable(b.union([b.string(), b.looseObject({ k: b.number() })]))) }),
          z.object({ r: z.optional(z.nullable(z.union([z.string(), z.looseObject({ k: z.number() })]))) }),
        ],
        [
          b.array(new b.ZodMiniCatch({ type: 'catch', innerType: b.looseObject({ k: b.number() }), catchValue: () => ({ k: 0 }) })),
          z.array(z.catch(z.looseObject({ k: z.number() }), { k: 0 })),
        ],
        [b.object({ n: b.number().check(b.check<number>(() => undefined)) }), z.object({ n: z.number().check(z.check<number>(() => undefined)) })],
        [b.array(b.string().check(b.minLength(2))).check(b.minLength(1, 'not empty')), z.array(z.string().check(z.minLength(2))).check(z.minLength(1, 'not empty'))],
      ];
      const values: unknown[] = [
        undefined, null, 1, 'x', [], ['a'], {}, { a: 'x' }, { a: 1 }, { 1: 'x', 2: 3, '-1.5': 'y', 1e3: null }, { a: null, b: true },
        JSON.parse('{"__proto__": {"x": 1}, "a": "y"}'), Object.create(null), Object.assign(Object.create(null), { k: 'v' }),
        { [Symbol('s')]: 'x', a: 'b' }, new Date(0), new Map(), { r: { a: { b: 1 } } }, { r: { a: { b: 'x' } } }, { r: [] }, [{ a: 'x' }, { a: 1 }, 3],
        ['ab', 'cd'], ['ab', 'c', 1], ['\u{1F600}'],
      ];
      // Two copies of zod: their errors are instances of two classes, compared by what they hold.
      const read = (s: z.ZodMiniType, value: unknown) => {
        const r = s.safeParse(value, { reportInput: true });
        return r.success ? r : { success: false, issues: r.error.issues };
      };
      for (const [ours, zods] of pairs) {
        for (const [i, value] of values.entries()) assert.deepEqual(read(ours, value), read(zods, value), `for values[${i}]`);
      }
      // A check that answers with a promise is refused in a sync parse, as zod refuses it.
      const asyncCheck = (m: typeof z) => m.object({ r: m.record(m.string(), m.string().check(m.check<string>(async () => undefined))) });
      assert.throws(() => asyncCheck(b).safeParse({ r: { a: 'x' } }), (e: Error) => e.constructor.name === '$ZodAsyncError');
      assert.throws(() => asyncCheck(z).safeParse({ r: { a: 'x' } }), (e: Error) => e.constructor.name === '$ZodAsyncError');
    } finally {
      rmSync(path.dirname(out), { recursive: true, force: true });
    }
  });

  it("refuses, when it builds, a zod/mini whose schema class comes above its parent: ZOD_MINI_FIXED's miniSchema takes the parent as the class is made, and bundled, zod's consts are vars (undefined until declared), so only building such a schema would have thrown", async function () {
    this.timeout(30_000);
    const root = path.resolve(__dirname, '../../../..');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { zodFixed } = require(path.join(root, 'esbuild.js')) as { zodFixed: Plugin };
    const file = path.join(root, 'node_modules/zod/v4/mini/schemas.js');
    const text = readFileSync(file, 'utf8');
    // ZodMiniString moved below ZodMiniStringFormat, its child.
    const parent = /^export const ZodMiniString = [^]*?^\}\);\n/m.exec(text)![0];
    const moved = text.replace(parent, '').replace(/^export const ZodMiniEmail = /m, `${parent}export const ZodMiniEmail = `);
    assert.ok(moved.indexOf('export const ZodMiniString = ') > moved.indexOf('export const ZodMiniStringFormat = '));
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const fsp = require('fs').promises as { readFile: (p: string, ...rest: unknown[]) => Promise<string> };
    const readFile = fsp.readFile;
    fsp.readFile = async (p, ...rest) => (path.resolve(p) === file ? moved : readFile.call(fsp, p, ...rest));
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'mcp-tasks-zod-')), 'zod.js');
    try {
      await assert.rejects(
        build({ stdin: { contents: "export * from 'zod/mini';", resolveDir: root }, bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'silent', plugins: [zodFixed] }),
        /ZodMiniStringFormat is declared above its parent ZodMiniString/,
      );
    } finally {
      fsp.readFile = readFile;
      rmSync(path.dirname(out), { recursive: true, force: true });
    }
  });

  it("builds no $ZodError class that nothing uses: zod's errors are $ZodRealError's (its Error subclass, also named $ZodError), and that one is kept", async () => {
    const root = path.resolve(__dirname, '../../../..');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { zodFixed } = require(path.join(root, 'esbuild.js')) as { zodFixed: Plugin };
    const contents = "import * as z from 'zod/mini';\nexport const check = (x: unknown) => z.string().safeParse(x);";
    const built = await build({ stdin: { contents, loader: 'ts', resolveDir: root }, bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent', plugins: [zodFixed] });
    const text = built.outputFiles[0].text;
    assert.equal(text.match(/\$constructor\("\$ZodError"/g)?.length, 1, 'the classes built');
    const module = { exports: {} as { check: (x: unknown) => ReturnType<z.ZodMiniString["safeParse"]> } };
    new Function('module', 'exports', 'require', text)(module, module.exports, require);
    const failed = module.exports.check(1);
    assert.ok(!failed.success && failed.error instanceof Error && failed.error.name === '$ZodError' && failed.error.issues[0].code === 'invalid_type');
  });

  it("refuses src/ that calls a schema's parse(), brand() or register() (which ZOD_MINI_FIXED drops) however it is written (called, read by name, taken out of the schema), saying what to call instead: the bundle alone would fail at run time, and only there; zod/mini's own z.parse() is kept", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ZOD_PREMISES } = require(path.resolve(__dirname, '../../../../esbuild.js')) as { ZOD_PREMISES: Array<[RegExp, string]> };
    const refused = (text: string) => ZOD_PREMISES.some(([premise]) => premise.test(text));
    for (const text of ['S.parse(x)', 'S?.parse(x)', 'S.parse (x)', 'xs.map(S.parse)', 'S\n  .parse(x)', 'S.brand ()', 'xs.map(S.register)']) assert.ok(refused(text), text);
    // Read by name or taken out of the schema.
    for (const text of ["S['parse'](x)", 'S["brand"]()', 'S[`register`](r)', 'S[ "apply" ](f)', 'const { parse } = S;', 'const { check, parse: p } = Schema;', 'let { brand } =\n  S;']) assert.ok(refused(text), text);
    // zod/mini's own parse(S, x) is kept (bundled above), as are JSON's, Date's and URL's, and Reflect.apply(), which the refusal of a function's apply() says to call.
    for (const text of ['JSON.parse(x)', 'vscode.Uri.parse(x)', 'URL.parse(x)', 'Date.parse(x)', 'S.safeParse(x)', "from '../config/parse'", 'z.parse(S, x)', 'export const { parse: parseDate } = Date;', 'const { parse: fromJson } = JSON;', 'Reflect.apply(f, t, xs)', 'const { apply } = Reflect;', 'const { apply: call, ownKeys } =\n  Reflect']) {
      assert.ok(!refused(text), text);
    }
    // Taken out of zod/mini itself or of the editor's API, not of a schema: kept; out of a schema z builds, refused.
    for (const text of ['const { parse } = z;', 'const { parse, safeParse } = z', 'const { parse } = vscode.Uri;', 'const { parse: toUri } = vscode.Uri']) assert.ok(!refused(text), text);
    for (const text of ['const { parse } = z.string();', 'const { apply } = Reflect.x;', 'const { parse } = z\n  .object({});']) assert.ok(refused(text), text);
    const said = (text: string) => ZOD_PREMISES.find(([premise]) => premise.test(text))?.[1];
    // with(), check()'s alias, however written; the word in a sentence is not it.
    for (const text of ['S.with(c)', 'S\n  .with(c)', 'xs.map(S.with)', "S['with'](c)", 'const { with: w } = S;']) assert.ok(refused(text), text);
    for (const text of ['/** ...with bursts of up to this many */', '// e.g. with a check', 'S.check(c)', 'const within = 1;']) assert.ok(!refused(text), text);
    assert.match(said('S.with(c)') ?? '', /: call check\(\)/);
    // What to do instead, as for parse().
    assert.match(said('S.parse(x)') ?? '', /: call safeParse\(\) \(another object's parse\(\), such as path's: let its name through in esbuild\.js's ZOD_PREMISES\)$/);
    assert.match(said('S.brand()') ?? '', /: for brand\(\), brand the type .*; for register\(r, meta\), call r\.add\(S, meta\); for apply\(f\), call f\(S\) /);
  });

  it('refuses src/ that reads a property by a name built from pieces (a sum, a template, a constant) when the name is one ZOD_MINI_FIXED drops, or when the build cannot work the name out; a number, or a name it works out to be harmless, is kept', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { zodMisuse } = require(path.resolve(__dirname, '../../../../esbuild.js')) as { zodMisuse: (file: string, text: string) => string | undefined };
    const said = (text: string) => zodMisuse('src/x.ts', text);
    // Worked out: a name that is dropped, refused as written out would be, with the same advice.
    for (const text of ["S['par' + 'se'](x)", 'S[`par${"se"}`](x)', 'S[`${`bra`}nd`]()', "const k = 'regis' + 'ter';\nS[k](r, m);", "S[(('wi') + 'th')](c)", "S[ok ? 'check' : 'with'](c)", "S['parse' + 'Async'](x)", "const { ['par' + 'se']: p } = S;", "({ [`a${'pply'}`]: f } = S);"]) {
      assert.match(said(text) ?? '', /^src\/x\.ts:\d+ .*(ZOD_MINI_FIXED|ZOD_FIXED) drops|^src\/x\.ts:\d+ .*where esbuild\.js's ZOD_FIXED holds/, text);
    }
    assert.match(said("S['par' + 'se'](x)") ?? '', /^src\/x\.ts:1 reads S\['par' \+ 'se'\], that is 'parse', so it .*: call safeParse\(\)/);
    // Not worked out: refused, saying what to do.
    for (const text of ["S['par' + name](x)", 'S[`${name}`](x)', "S[`p${a}e`]()", "const k = 'p' + process.argv[2];\nS[k]();", "const { [`${m}`]: f } = S;"]) {
      assert.match(said(text) ?? '', /^src\/x\.ts:\d+ reads .* by a name built at run time, .*: write the name out/, text);
    }
    // A const in parentheses or asserted (in a file with no other such read), and one whose name another const of the file also has, with a value not worked out.
    for (const text of ["const k = 'parse';\nS[(k)](x);", "const k = 'parse';\nS[k!](x);", "const k: string = 'parse';\nS[k as 'parse'](x);", "const f = (o: O) => {\n  const k = o.name;\n  return k;\n};\nconst g = () => {\n  const k = 'parse';\n  return S[k](x);\n};"]) {
      assert.match(said(text) ?? '', /^src\/x\.ts:\d+ reads .*, that is 'parse', so it .*: call safeParse\(\)/, text);
    }
    assert.match(said("const k = o.name;\nconst g = () => {\n  const k = 'p' + name;\n  return S[k](x);\n};") ?? '', /^src\/x\.ts:4 reads S\[k\] by a name built at run time/);
    // Harmless: numbers, names worked out to be kept, and what builds no name (an index, a variable's value as before).
    for (const text of ['xs[i + 1]', 'xs[xs.length - 1]', "log[stale ? 'debug' : 'warn'](m)", "o['safe' + 'Parse'](x)", 'o[`key${1 + 1}`]', "const k = 'a' + 'b';\no[k];", 'env[name]', 'const { [key]: v, ...rest } = o;', "const o = { ['a' + b]: 1 };", 'clocks[+!!seconds]']) {
      assert.equal(said(text), undefined, text);
    }
  });
});
