// The raw material of the hostile-server fuzzer (test/unit/reliability/fuzz.test.ts): a seeded
// generator, JSON text that only a hostile peer writes (1e400, -0, duplicate keys, __proto__,
// 20,000 levels of nesting), and mutations of valid messages. Plain data in, plain data out:
// everything a case does follows from its seed.

/** mulberry32 with helpers: the same seed gives the same case. */
export class Rng {
  #a: number;
  constructor(seed: number) {
    this.#a = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    this.#a = (this.#a + 0x6d2b79f5) >>> 0;
    let t = this.#a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }
  /** One of `choices`, by weight. */
  weighted<T>(choices: ReadonlyArray<readonly [number, T]>): T {
    let total = 0;
    for (const [w] of choices) total += w;
    let r = this.next() * total;
    for (const [w, v] of choices) if ((r -= w) < 0) return v;
    return choices[choices.length - 1][1];
  }
}

/** JSON text written as is: what JSON.stringify cannot make (deep nesting, duplicate keys, bad JSON). */
export class Raw {
  constructor(readonly text: string) {}
}

/** An object written with its entries in order, keys repeated as given (JSON.parse keeps the last). */
export class Entries {
  constructor(readonly entries: ReadonlyArray<readonly [string, unknown]>) {}
}

/**
 * JSON text for a value, as a hostile peer may write it: Infinity as 1e400 (JSON.parse reads it
 * back as Infinity), -0 as -0, Raw as its text, Entries with their repeated keys.
 */
export function toText(v: unknown): string {
  if (v instanceof Raw) return v.text;
  if (v instanceof Entries) return `{${v.entries.map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`).join(',')}}`;
  if (typeof v === 'number') {
    if (Object.is(v, -0)) return '-0';
    if (v === Infinity) return '1e400';
    if (v === -Infinity) return '-1e400';
    if (Number.isNaN(v)) return 'null'; // not JSON: a transport never delivers NaN
    return JSON.stringify(v);
  }
  if (v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (typeof v === 'object' && v !== null) {
    return `{${Object.entries(v)
      .filter(([, x]) => x !== undefined)
      .map(([k, x]) => `${JSON.stringify(k)}:${toText(x)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** Nested `depth` levels deep: arrays, or objects under one key. */
export function deep(depth: number, kind: 'array' | 'object' = 'array'): Raw {
  return kind === 'array' ? new Raw('['.repeat(depth) + ']'.repeat(depth)) : new Raw('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

/** A value of the wrong kind, or of the right kind at an edge: what replaces a field in a mutation. */
export function nasty(rng: Rng): unknown {
  return rng.weighted<() => unknown>([
    [3, () => null],
    [1, () => true],
    [1, () => false],
    [1, () => 0],
    [2, () => -0],
    [2, () => -1],
    [1, () => -1000],
    [1, () => 1.5],
    [2, () => 1e308],
    [1, () => -1e308],
    [2, () => Infinity],
    [1, () => -Infinity],
    [1, () => 2 ** 53 + 2],
    [1, () => 2 ** 31],
    [2, () => ''],
    [1, () => ' '],
    [1, () => 'x'],
    [1, () => '\u0000'],
    [1, () => '\ud800'],
    [1, () => 'working'],
    [1, () => 'completed'],
    [1, () => '2025-13-45T99:99:99Z'],
    [1, () => '+275760-09-13T00:00:00.001Z'],
    [1, () => '__proto__'],
    [2, () => 'x'.repeat(rng.pick([1_000, 70_000, 300_000]))],
    [2, () => []],
    [2, () => ({})],
    [1, () => [1, 'a', null]],
    [1, () => ({ a: 1 })],
    [1, () => deep(rng.pick([100, 2_000, 20_000]), rng.pick(['array', 'object'] as const))],
    [1, () => new Raw('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}')],
  ])();
}

/** A path into a JSON value: keys of objects, indexes of arrays. */
type Path = Array<string | number>;

function paths(v: unknown, at: Path = [], out: Path[] = [], depth = 0): Path[] {
  out.push(at);
  if (depth > 6 || typeof v !== 'object' || v === null || v instanceof Raw || v instanceof Entries) return out;
  if (Array.isArray(v)) v.slice(0, 8).forEach((x, i) => paths(x, [...at, i], out, depth + 1));
  else for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out, depth + 1);
  return out;
}

function clone<T>(v: T): T {
  if (typeof v !== 'object' || v === null || v instanceof Raw || v instanceof Entries) return v;
  if (Array.isArray(v)) return v.map(clone) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = clone(x);
  return out as T;
}

function getAt(v: unknown, p: Path): unknown {
  let cur = v;
  for (const k of p) cur = (cur as Record<string | number, unknown>)[k];
  return cur;
}

const EXTRA_KEYS = ['extra', '_meta', 'task', 'status', 'taskId', 'id', 'method', 'result', 'error', 'ttl', 'pollInterval', 'nextCursor', 'isError', 'constructor', 'toString'];

/**
 * `value` with one to `max` fields broken: removed, replaced by a nasty value, joined by an extra
 * key, wrapped in an array or written as a string. Returns the new value and what was done.
 */
export function mutate(value: unknown, rng: Rng, max = 3): { value: unknown; what: string[] } {
  let v = clone(value);
  const what: string[] = [];
  const n = rng.int(1, max);
  for (let i = 0; i < n; i++) {
    const all = paths(v);
    const p = rng.pick(all);
    const name = p.length ? p.join('.') : '(root)';
    const parent = p.length ? (getAt(v, p.slice(0, -1)) as Record<string | number, unknown>) : undefined;
    const key = p[p.length - 1];
    const node = getAt(v, p);
    const set = (x: unknown) => {
      if (parent === undefined) v = x;
      else parent[key] = x;
    };
    const op = rng.weighted<string>([
      [3, 'replace'],
      [parent !== undefined && !Array.isArray(parent) ? 3 : 0, 'delete'],
      [typeof node === 'object' && node !== null && !Array.isArray(node) && !(node instanceof Raw) && !(node instanceof Entries) ? 2 : 0, 'extra'],
      [1, 'wrap'],
      [1, 'stringify'],
      [Array.isArray(node) && node.length > 0 ? 1 : 0, 'repeat'],
      [Array.isArray(node) ? 1 : 0, 'empty'],
      [typeof node === 'number' ? 2 : 0, 'number'],
    ]);
    switch (op) {
      case 'replace': {
        const x = nasty(rng);
        set(x);
        what.push(`${name}=${describe(x)}`);
        break;
      }
      case 'delete':
        delete parent![key];
        what.push(`-${name}`);
        break;
      case 'extra': {
        const k = rng.pick(EXTRA_KEYS);
        const x = nasty(rng);
        (node as Record<string, unknown>)[k] = x;
        what.push(`${name}+${k}=${describe(x)}`);
        break;
      }
      case 'wrap':
        set([node]);
        what.push(`${name}=[…]`);
        break;
      case 'stringify':
        set(node instanceof Raw ? node.text : toText(node));
        what.push(`${name}="…"`);
        break;
      case 'repeat': {
        const arr = node as unknown[];
        set(Array.from({ length: rng.pick([2, 3, 50]) }, () => clone(arr[0])));
        what.push(`${name}×n`);
        break;
      }
      case 'empty':
        set([]);
        what.push(`${name}=[]`);
        break;
      case 'number': {
        const x = rng.pick([-0, -1, -1e308, 1e308, Infinity, 0.5, 2 ** 53 + 2, -(2 ** 31)]);
        set(x);
        what.push(`${name}=${describe(x)}`);
        break;
      }
    }
  }
  return { value: v, what };
}

/** A short description of a value, for the trace of a case. */
export function describe(x: unknown): string {
  if (x instanceof Raw) return x.text.length > 40 ? `raw(${x.text.slice(0, 12)}…${x.text.length})` : `raw(${x.text})`;
  if (typeof x === 'number') return Object.is(x, -0) ? '-0' : String(x);
  if (typeof x === 'string') return x.length > 40 ? `"${x.slice(0, 8)}…"(${x.length})` : JSON.stringify(x);
  const s = toText(x);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}
