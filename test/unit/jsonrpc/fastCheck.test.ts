import * as assert from 'node:assert/strict';
import * as z from 'zod/mini';
import { fastCheck } from '../../../src/core/jsonrpc/fastCheck';
import * as schemas from '../../../src/core/protocol/schemas';

/** Values JSON can carry, the bricks of the corpus below. */
const LEAVES: unknown[] = [null, true, false, 0, -0, 1, 1.5, -7, 2 ** 53, '', 'text', 'working', 'required', [], [1, 'a'], {}, { a: 1 }];

/**
 * Every value reachable from `seed` by one change at one place: a key removed, a value replaced
 * by each leaf, an unknown key added, a `__proto__` key added (as JSON.parse makes it).
 */
function mutants(seed: unknown): unknown[] {
  const out: unknown[] = [seed];
  const walk = (value: unknown, rebuild: (v: unknown) => unknown): void => {
    for (const leaf of LEAVES) out.push(rebuild(leaf));
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, (v) => rebuild(value.map((x, j) => (j === i ? v : x)))));
      out.push(rebuild([...value, ...LEAVES]));
    } else if (typeof value === 'object' && value !== null) {
      const obj = value as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        walk(obj[key], (v) => rebuild({ ...obj, [key]: v }));
        const { [key]: _removed, ...rest } = obj;
        out.push(rebuild(rest));
      }
      out.push(rebuild({ ...obj, extra: 'x' }));
      out.push(rebuild(JSON.parse(`{"__proto__":{"polluted":true},${JSON.stringify(obj).slice(1)}`.replace(',}', '}'))));
    }
  };
  walk(seed, (v) => v);
  // What a transport hands over: parsed JSON, never shared objects.
  return out.map((v) => JSON.parse(JSON.stringify(v) ?? 'null'));
}

/** For every value: the fast check says yes only where zod accepts it and returns it unchanged. */
function assertAgrees(schema: z.ZodMiniType, seeds: unknown[]): { fast: number; total: number } {
  const check = fastCheck(schema);
  assert.ok(check, 'the schema has a fast check');
  let fast = 0;
  let total = 0;
  for (const seed of seeds) {
    for (const value of mutants(seed)) {
      total++;
      if (!check(value)) continue;
      fast++;
      const parsed = schema.safeParse(value);
      assert.ok(parsed.success, `fast check accepted what zod refuses: ${JSON.stringify(value)}`);
      assert.deepEqual(parsed.data, value, `zod would change ${JSON.stringify(value)}`);
      assert.equal(Object.prototype.hasOwnProperty.call(value, '__proto__'), false);
    }
  }
  return { fast, total };
}

describe('fastCheck: the hand check of result schemas', () => {
  it('accepts only what the schema accepts and leaves unchanged (tools/call results)', () => {
    const seeds = [
      { content: [{ type: 'text', text: 'hello' }] },
      { content: [], isError: true, structuredContent: { n: 1 }, _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't' } } },
      { content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }, { type: 'text', text: '' }], other: [1] },
    ];
    const { fast, total } = assertAgrees(schemas.CallToolResultSchema, seeds);
    assert.ok(fast > 20 && fast < total, `the fast path is taken for valid results only (${fast} of ${total})`);
    const check = fastCheck(schemas.CallToolResultSchema)!;
    for (const s of seeds) assert.equal(check(s), true);
  });

  it('agrees with the other result schemas it supports', () => {
    const cases: Array<[z.ZodMiniType, unknown[]]> = [
      [schemas.EmptyResultSchema, [{}, { _meta: {} }]],
      [schemas.ListToolsResultSchema, [{ tools: [{ name: 'a' }], nextCursor: 'c' }, { tools: [] }]],
      [schemas.ListTasksResultSchema, [{ tasks: [{ taskId: 't' }], nextCursor: 'c' }]],
      [schemas.InitializeResultSchema, [{ protocolVersion: '2025-11-25', capabilities: { tools: {}, tasks: { list: {}, requests: { tools: { call: {} } } } }, serverInfo: { name: 's', version: '1' }, instructions: 'hi' }]],
      // z.catch: an unknown taskSupport is zod's to replace.
      [schemas.ToolSchema, [{ name: 't', inputSchema: { type: 'object', properties: {} }, execution: { taskSupport: 'optional' } }]],
    ];
    for (const [schema, seeds] of cases) assertAgrees(schema, seeds);
  });

  it('agrees on every kind it compiles: strip and loose objects, optional, nullable, literal (one value or several), record, array, number, catch', () => {
    const schema = z.object({
      id: z.string(),
      every: z.catch(z.optional(z.number()), undefined),
      limit: z.catch(z.nullable(z.number()), null),
      n: z.number(),
      flag: z.optional(z.boolean()),
      kind: z.literal(['a', 'b']),
      version: z.literal('2.0'),
      ttl: z.nullable(z.number()),
      anything: z.unknown(),
      tags: z.array(z.string()),
      meta: z.optional(z.record(z.string(), z.number())),
      nested: z.looseObject({ x: z.optional(z.nullable(z.string())) }),
    });
    const seed = { id: 'i', every: 5, limit: 9, n: 1, flag: false, kind: 'a', version: '2.0', ttl: null, anything: { deep: [1] }, tags: ['x'], meta: { m: 2 }, nested: { x: null, more: 1 } };
    const { fast } = assertAgrees(schema, [seed, { ...seed, flag: undefined, meta: undefined, ttl: 5, nested: {} }]);
    assert.ok(fast > 10);
    const check = fastCheck(schema)!;
    // A strip object with an unknown key: zod accepts but drops it, so the fast check defers.
    assert.equal(check({ ...seed, extra: 1 }), false);
    assert.equal(schema.safeParse({ ...seed, extra: 1 }).success, true);
    // A required z.unknown() that is absent is refused by zod (nonoptional): not fast either.
    const { anything: _a, ...without } = seed;
    assert.equal(check(without), false);
    assert.equal(schema.safeParse(without).success, false);
  });

  it('leaves z.enum to zod (src uses z.literal([...]) instead, a lint rule says so): a schema with one is not compiled, and zod decides', () => {
    const schema = z.object({ kind: z.enum(['a', 'b']) });
    assert.equal(fastCheck(schema), undefined);
    assert.equal(fastCheck(z.object({ kind: z.literal(['a', 'b']) }))!({ kind: 'b' }), true);
  });

  it('agrees on tasks (T-REQ-2 polls): taskId has a minLength and a maxLength, which zod counts in code points', () => {
    const task = { taskId: 't-1', status: 'working', createdAt: '2026-12-02T00:00:00Z', lastUpdatedAt: '2026-12-02T00:00:01Z', ttl: 60000, pollInterval: 1000 };
    const { fast } = assertAgrees(schemas.TaskSchema, [task, { ...task, ttl: null, statusMessage: 'm', pollInterval: undefined, extra: { kept: 1 } }]);
    assert.ok(fast > 10, `the fast path is taken for valid tasks (${fast})`);
    assertAgrees(schemas.CreateTaskResultSchema, [{ task }, { task, _meta: { m: 1 } }]);
    const check = fastCheck(schemas.TaskSchema)!;
    assert.equal(check({ ...task, taskId: '' }), false);
    assert.equal(schemas.TaskSchema.safeParse({ ...task, taskId: '' }).success, false, 'an empty task id is refused by zod');
    // Two units, one code point: sure for a minimum of 1, left to zod for a minimum of 2.
    const min2 = z.string().check(z.minLength(2));
    assert.equal(fastCheck(min2)!('😀'), false);
    assert.equal(min2.safeParse('😀').success, false, 'zod counts one code point');
    assert.equal(fastCheck(min2)!('abcd'), true);
    assert.equal(fastCheck(min2)!('abc'), false, 'between min and 2 * min: zod decides');
    assert.equal(min2.safeParse('abc').success, true);
    // A task id has a maximum too (1,000 UTF-16 units, a check of ours): up to it is sure; beyond, zod refuses.
    const long = 'x'.repeat(1000);
    assertAgrees(schemas.TaskSchema, [{ ...task, taskId: long }, { ...task, taskId: long + 'x' }, { ...task, taskId: '😀'.repeat(999) }]);
    assert.equal(check({ ...task, taskId: long }), true, 'the fast path stays for the longest id');
    assert.equal(check({ ...task, taskId: long + 'x' }), false);
    assert.equal(schemas.TaskSchema.safeParse({ ...task, taskId: long + 'x' }).success, false, 'a longer id is refused by zod');
    assert.equal(check({ ...task, taskId: '😀'.repeat(501) }), false);
    assert.equal(schemas.TaskSchema.safeParse({ ...task, taskId: '😀'.repeat(501) }).success, false, 'the maximum counts units');
    assert.equal(fastCheck(z.string().check(z.check(() => undefined))), undefined, 'a check of ours without a maximum: no fast path');
    // zod's maxLength counts code points, never more than units: up to it in units is sure too.
    const max2 = z.string().check(z.maxLength(2));
    assert.equal(fastCheck(max2)!('ab'), true);
    assert.equal(fastCheck(max2)!('😀😀'), false, 'over it in units: zod decides');
    assert.equal(max2.safeParse('😀😀').success, true);
  });

  it('has no fast check for schemas beyond plain shapes: checks, unions, strict objects, typed catchalls', () => {
    for (const s of [
      z.catch(z.string().check(z.length(3)), ''), // a catch is as what it wraps
      z.string().check(z.length(3)),
      z.string().check(z.minLength(1), z.regex(/a/)),
      z.union([z.string(), z.number()]),
      z.strictObject({ a: z.string() }),
      z.object({ a: z.string() }).check(z.refine(() => true)),
      z.catchall(z.object({}), z.string()),
      z.array(z.string()).check(z.minLength(1)),
      z.object({ constructor: z.string() }), // a key Object.prototype has
    ]) {
      assert.equal(fastCheck(s), undefined);
    }
  });

  it('results that fail the check are still refused by the schema with its own words', () => {
    const check = fastCheck(schemas.CallToolResultSchema)!;
    const bad = JSON.parse('{"content":[{"type":5}]}');
    assert.equal(check(bad), false);
    const parsed = schemas.CallToolResultSchema.safeParse(bad);
    assert.equal(parsed.success, false);
  });
});
