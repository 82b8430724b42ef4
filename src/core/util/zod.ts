import * as z from 'zod/mini';

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
