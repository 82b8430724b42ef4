/**
 * Builtins that src/ calls often, each bound once: the bundle spells `Math.min(` once, where the
 * minifier shortens each use to a one-letter name (none of them needs a `this`). The JSON ones,
 * `stringify` and `fromJson`, live in ./json.
 */

/** Array.isArray (24 uses). */
export const { isArray } = Array;
/** Object.entries and Object.keys (33 uses). */
export const { entries: entriesOf, keys: keysOf } = Object;
/** Object.fromEntries (5 uses). */
export const { fromEntries } = Object;
/** Math.min and Math.max (47 uses). */
export const { min: minOf, max: maxOf } = Math;
/** Math.round and Math.floor (14 uses). */
export const { round, floor } = Math;
/** Number.isInteger and Number.isSafeInteger (4 and 3 uses). */
export const { isInteger, isSafeInteger } = Number;
/** Object.hasOwn (5 uses). */
export const { hasOwn } = Object;
/** Number.isFinite (a number, and finite: no coercion, unlike the global isFinite; 9 uses). */
export const { isFinite: isFiniteNumber } = Number;
/** Date.parse (16 uses; its milliseconds, NaN for a date it cannot read). */
export const { parse: parseDate } = Date;
/**
 * Date.now() (20 calls), read at each call, not bound: a test's fake clock replaces Date after
 * this module loads.
 */
export const now = (): number => Date.now();
/** Whether the extension host runs on Windows (6 uses), read at each call: a test may set process.platform. */
export const isWindows = (): boolean => process.platform === 'win32';
