import * as z from 'zod/mini';
import { isInteger, isSafeInteger } from './builtins';

/**
 * `z.catch(innerType, value)`: the value when `innerType` refuses what it is given. Built from the
 * class because zod/mini's `z.catch` reaches one helper through the `core.util` namespace, which
 * makes esbuild bundle every zod utility (9 KB) instead of the few used.
 */
export const fallback = <T extends z.ZodMiniType>(innerType: T, value: z.output<T>): z.ZodMiniCatch<T> => {
  return new z.ZodMiniCatch({ type: 'catch', innerType, catchValue: () => value }) as z.ZodMiniCatch<T>;
};

/**
 * Field schemas that many messages share: one instance each, where every `z.optional(z.string())`
 * would build (and ship) its own. A zod schema is never changed by its uses.
 */
export const OptionalString = z.optional(z.string());
export const OptionalNumber = z.optional(z.number());
export const OptionalBoolean = z.optional(z.boolean());
export const OptionalUnknown = z.optional(z.unknown());
export const OptionalStrings = z.optional(z.array(z.string()));
export const JsonObject = z.record(z.string(), z.unknown());
export const OptionalJsonObject = z.optional(JsonObject);

/**
 * `z.int()`, with the same issues (zod.test.ts holds the two side by side), as a check on
 * `z.number()`: `z.int()` brings zod's number formats (every float and int range, 1.4 KB), of
 * which it reads one.
 */
export const SafeInt = z.number().check(
  z.check<number>((ctx) => {
    const input = ctx.value;
    if (!isInteger(input)) {
      ctx.issues.push({ expected: 'int', format: 'safeint', code: 'invalid_type', continue: false, input });
    } else if (!isSafeInteger(input)) {
      const range = { input, note: 'Integers must be within the safe integer range.', origin: 'int', inclusive: true, continue: true } as const;
      ctx.issues.push(input > 0 ? { code: 'too_big', maximum: Number.MAX_SAFE_INTEGER, ...range } : { code: 'too_small', minimum: Number.MIN_SAFE_INTEGER, ...range });
    }
  }),
);

/**
 * `z.gte(minimum, { error })` (`z.nonnegative()` is `atLeast(0)`) on a number, with the same issue
 * (zod.test.ts holds the two side by side): zod's class for it is 0.3 KB more.
 */
export const atLeast = (minimum: number, error?: string): z.core.$ZodCheck<number> => {
  const check: z.core.$ZodCheck<number> = z.check<number>(
    (ctx) => {
      if (!(ctx.value >= minimum)) ctx.issues.push({ origin: 'number', code: 'too_small', minimum, input: ctx.value, inclusive: true, inst: check, continue: true });
    },
    error === undefined ? undefined : { error },
  );
  return check;
};

/** zod's isValidBase64: padded base64 that atob reads, no whitespace (which atob would skip). */
const isBase64 = (data: string): boolean => {
  if (data === '') return true;
  if (/\s/.test(data) || data.length % 4 !== 0) return false;
  try {
    atob(data);
    return true;
  } catch {
    return false;
  }
};

/**
 * `z.base64({ error })`, with the same issues (zod.test.ts holds the two side by side), as a check
 * on `z.string()`: zod's string formats (1 KB) come with `z.base64()` alone here.
 */
export const base64 = (error: string): z.ZodMiniString =>
  z.string({ error }).check(
    z.check<string>((ctx) => {
      if (!isBase64(ctx.value)) ctx.issues.push({ code: 'invalid_format', format: 'base64', input: ctx.value, continue: true });
    }),
  );
