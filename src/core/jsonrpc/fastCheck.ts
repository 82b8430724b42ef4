import type * as z from 'zod/mini';
import { isNumber, isObject, isString } from '../util/json';
import { isArray, isFiniteNumber, keysOf, maxOf } from '../util/builtins';

/**
 * Says yes only where its schema accepts the value and would return it unchanged; no means "ask
 * the schema", which then decides (and words the problem).
 */
export type FastCheck = (value: unknown) => boolean;

/** What this module reads of a zod schema: its definition, as zod itself reads it. */
interface Node {
  _zod: {
    def: {
      type: string;
      checks?: unknown[];
      coerce?: boolean;
      shape?: Record<string, Node>;
      catchall?: Node;
      element?: Node;
      innerType?: Node;
      keyType?: Node;
      valueType?: Node;
    };
    optin?: string;
    optout?: string;
    values?: Set<unknown>;
  };
}

const cache = new WeakMap<object, FastCheck | null>();

/**
 * A hand-speed check equivalent to `schema` for every value JSON.parse can make (all a transport
 * delivers), or undefined when the schema uses anything beyond plain shapes (checks, refinements,
 * defaults, unions...; a catch checks as its inner schema). Validating a result with zod copies
 * it whole, object by object; a well-formed result is by far the common case and needs no copy.
 * The rules below are zod's
 * own (zod/v4/core schemas.js); fastCheck.test.ts holds the two side by side.
 */
export const fastCheck = (schema: z.ZodMiniType): FastCheck | undefined => {
  if (schema === last) return lastCheck; // calls come in runs of one kind
  let check = cache.get(schema);
  if (check === undefined) {
    check = compile(schema as unknown as Node) ?? null;
    cache.set(schema, check);
  }
  last = schema;
  lastCheck = check ?? undefined;
  return lastCheck;
};

let last: object | undefined;
let lastCheck: FastCheck | undefined;

const hasOwn = (o: object, key: string): boolean => Object.prototype.hasOwnProperty.call(o, key);

/** zod's isPlainObject, which `z.record` requires. */
const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (!isObject(v)) return false;
  const ctor: unknown = v.constructor;
  if (typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  return isObject(proto) && hasOwn(proto, 'isPrototypeOf');
};

const compile = (node: Node): FastCheck | undefined => {
  const { def } = node._zod;
  if (def.coerce) return undefined;
  if (def.checks?.length) return def.type === 'string' ? lengthCheck(def.checks) : undefined;
  switch (def.type) {
    case 'unknown':
      return () => true;
    case 'string':
      return (v) => isString(v);
    case 'boolean':
      return (v) => typeof v === 'boolean';
    case 'number':
      return (v) => isNumber(v) && isFiniteNumber(v); // NaN and ±Infinity are refused
    // Not 'enum': src writes z.literal([...]) (a lint rule), and an enum is zod's to check.
    case 'literal': {
      const values = node._zod.values;
      return values && ((v) => values.has(v));
    }
    case 'optional': {
      const inner = compile(def.innerType!);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'nullable': {
      const inner = compile(def.innerType!);
      return inner && ((v) => v === null || inner(v));
    }
    case 'catch':
      // A value its inner schema takes unchanged is not caught; any other is zod's to replace.
      return compile(def.innerType!);
    case 'array': {
      const element = compile(def.element!);
      return (
        element &&
        ((v) => {
          if (!isArray(v)) return false;
          for (let i = 0; i < v.length; i++) if (!element(v[i])) return false;
          return true;
        })
      );
    }
    case 'record': {
      const key = def.keyType!._zod.def;
      const value = compile(def.valueType!);
      if (key.type !== 'string' || key.checks?.length || key.coerce || !value) return undefined;
      // zod leaves out a `__proto__` key and refuses symbol keys.
      return (v) => {
        if (!isPlainObject(v) || hasOwn(v, '__proto__') || Object.getOwnPropertySymbols(v).length > 0) return false;
        for (const k of keysOf(v)) if (!value(v[k])) return false;
        return true;
      };
    }
    case 'object':
      return compileObject(def.shape!, def.catchall);
  }
  return undefined;
};

/**
 * A string with `minLength` checks (a task id has one): zod counts code points, one or two UTF-16
 * units each, so `length >= 2 * min` always passes, as does any non-empty string for a minimum of
 * 1; in between the answer is zod's. A check with a `maximum` (a task id has one of ours, in
 * UTF-16 units; zod's `max_length` counts code points, never more) passes `length <= maximum`. Any
 * other check: no fast path.
 */
const lengthCheck = (checks: unknown[]): FastCheck | undefined => {
  let min = 0;
  let max = Infinity;
  for (const c of checks) {
    // A `when` that skips the check only makes zod more lenient than this: still safe.
    const d = (c as { _zod?: { def?: { check?: unknown; minimum?: unknown; maximum?: unknown } } })._zod?.def;
    if (isNumber(d?.maximum)) max = d.maximum; // one at most
    else if (d?.check === 'min_length' && isNumber(d.minimum)) min = maxOf(min, d.minimum);
    else return undefined;
  }
  const sure = min <= 1 ? min : 2 * min;
  return (v) => isString(v) && v.length >= sure && v.length <= max;
};

/** `z.object` (strips unknown keys) and `z.looseObject` (keeps them); not strict or typed catchalls. */
const compileObject = (shape: Record<string, Node>, catchall: Node | undefined): FastCheck | undefined => {
  const loose = catchall !== undefined;
  if (loose && (catchall._zod.def.type !== 'unknown' || catchall._zod.def.checks?.length)) return undefined;
  if (Object.getOwnPropertySymbols(shape).length > 0) return undefined;
  const fields = new Map<string, { check: FastCheck; required: boolean }>();
  let required = 0;
  for (const key of keysOf(shape)) {
    // A key Object.prototype has (`constructor`, `__proto__`...) would be read through it.
    if (key in Object.prototype) return undefined;
    const field = shape[key];
    const check = compile(field);
    if (!check) return undefined;
    // zod skips an absent key only when the field is optional both ways; else it is an issue.
    const isRequired = field._zod.optin !== 'optional' || field._zod.optout !== 'optional';
    if (isRequired) required++;
    fields.set(key, { check, required: isRequired });
  }
  // The keys the value has, not those the shape names: optional fields are mostly absent, and
  // `for...in` reads values without a generic lookup per name.
  return (v) => {
    if (!isObject(v)) return false;
    let seen = 0;
    for (const k in v) {
      const field = fields.get(k);
      if (field) {
        if (!field.check(v[k])) return false;
        if (field.required) seen++;
      } else if (!loose || k === '__proto__') {
        // z.object drops unknown keys, and zod never copies `__proto__`: the value would change.
        return false;
      }
    }
    return seen === required;
  };
};
