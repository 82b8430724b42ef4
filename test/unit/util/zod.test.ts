// fallback(), the z.catch the bundle can afford: it must answer as z.catch does.
import * as assert from 'node:assert/strict';
import * as z from 'zod/mini';
import { fallback } from '../../../src/core/util/zod';

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
