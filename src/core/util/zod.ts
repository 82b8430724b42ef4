import * as z from 'zod/mini';

/**
 * `z.catch(innerType, value)`: the value when `innerType` refuses what it is given. Built from the
 * class because zod/mini's `z.catch` reaches one helper through the `core.util` namespace, which
 * makes esbuild bundle every zod utility (9 KB) instead of the few used.
 */
export const fallback = <T extends z.ZodMiniType>(innerType: T, value: z.output<T>): z.ZodMiniCatch<T> => {
  return new z.ZodMiniCatch({ type: 'catch', innerType, catchValue: () => value }) as z.ZodMiniCatch<T>;
};
