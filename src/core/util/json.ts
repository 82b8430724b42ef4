import { entriesOf, isArray } from './builtins';

/** JSON.stringify, which needs no `this`: the bundle spells `JSON.stringify(` once, not at each of its 47 uses. */
export const { stringify } = JSON;
/** JSON.parse, bound once likewise (15 uses): the value a JSON text holds; throws a SyntaxError for what is not JSON. */
export const { parse: fromJson } = JSON;

/** The value a JSON text holds, or the text itself when it is not JSON. */
export const jsonOrText = (s: string): unknown => {
  try {
    return fromJson(s);
  } catch {
    return s;
  }
};

/** An object, arrays included: not null (a type guard, shorter in the bundle than `typeof v === 'object' && v !== null`). */
export const isObjectLike = (v: unknown): v is object => typeof v === 'object' && v !== null;

/** A JSON object: not null, not an array. */
export const isObject = (v: unknown): v is Record<string, unknown> => isObjectLike(v) && !isArray(v);

/** A string (a type guard: shorter in the bundle than `typeof v === 'string'` at each of its 60 uses). */
export const isString = (v: unknown): v is string => typeof v === 'string';

/** A number (a type guard, shorter in the bundle than `typeof v === 'number'`). */
export const isNumber = (v: unknown): v is number => typeof v === 'number';

/** How deep `pruneDeep` keeps a value: far beyond any real result, far below the stack's limit. */
const MAX_DEPTH = 64;
/** What stands for a part nested deeper than MAX_DEPTH. */
export const TOO_DEEP = '<nested too deeply to show>';

/**
 * A copy of a JSON value with everything nested deeper than `maxDepth` replaced by TOO_DEEP. The
 * recursion stops at `maxDepth`, so it never overflows the stack, whatever it is given.
 */
export const pruneDeep = (value: unknown, maxDepth = MAX_DEPTH): unknown => {
  if (!isObjectLike(value)) return value;
  if (maxDepth <= 0) return TOO_DEEP;
  if (isArray(value)) return value.map((v) => pruneDeep(v, maxDepth - 1));
  // Without a prototype, a "__proto__" key stays a key like any other.
  const out: Record<string, unknown> = Object.create(null);
  for (const [k, v] of entriesOf(value)) out[k] = pruneDeep(v, maxDepth - 1);
  return out;
};

/** About how many characters a JSON value holds: its strings' lengths, one for each other value (as deep as pruneDeep keeps). */
export const charsOf = (value: unknown, maxDepth = MAX_DEPTH): number =>
  isString(value) ? value.length : isObjectLike(value) && maxDepth > 0 ? Object.values(value).reduce((n: number, v) => n + charsOf(v, maxDepth - 1), 1) : 1;

/**
 * JSON.stringify that never throws: a value nested too deeply for the stack (a server may send
 * 10,000 levels, which JSON.parse reads fine) is written with its deepest parts replaced by
 * TOO_DEEP; anything else that cannot be written becomes TOO_DEEP as a JSON string.
 */
export const safeStringify = (value: unknown, space?: number): string => {
  try {
    return stringify(value, null, space) ?? String(value);
  } catch {
    try {
      return stringify(pruneDeep(value), null, space) ?? String(value);
    } catch {
      return stringify(TOO_DEEP);
    }
  }
};
