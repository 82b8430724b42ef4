import * as z from 'zod/mini';
import { ErrorCode, RpcError } from '../jsonrpc/errors';
import { describeIssues } from '../jsonrpc/messages';
import { isObject, isObjectLike, safeStringify, stringify } from '../util/json';
import { keysOf } from '../util/builtins';
import { checkValue } from './validate';
import { BOOLEAN, INTEGER, LIST, MULTI_SELECT, NUMBER, SINGLE_SELECT, STRING } from './fieldKinds';
import { JsonObject, OptionalBoolean, OptionalNumber, OptionalString, OptionalStrings, OptionalUnknown, SafeInt, atLeast } from '../util/zod';

/** What a form field asks for; enums become picks; a list (tools only) is typed values. */
export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'single-select' | 'multi-select' | 'list';
/** What a field may hold in `ElicitResult.content`. */
export type FieldValue = string | number | boolean | Array<string | number>;

export interface FieldOption {
  /** A number for a number field's `enum` (sent as a number), else text. */
  value: string | number;
  label: string;
}

export interface FieldConstraints {
  minLength?: number;
  maxLength?: number;
  format?: 'email' | 'uri' | 'date' | 'date-time';
  /**
   * A regular expression the server checks (it may match anywhere in the text, as in JSON
   * Schema): shown to the user as a hint but never run here, since a server's expression can
   * backtrack for hours on the extension host. The spec's StringSchema has no `pattern`; tool
   * input schemas carry it.
   */
  pattern?: string;
  minimum?: number;
  maximum?: number;
  /** Tool input schemas carry these (zod's `.positive()` is `exclusiveMinimum: 0`); the spec's NumberSchema does not. */
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minItems?: number;
  maxItems?: number;
  /** The schema's own, unchecked: a tool's JSON box refuses a choice typed twice only when it is set (a form's multi-select always does). */
  uniqueItems?: boolean;
}

/** One property of the requested schema, as one step of the dialog. */
export interface FieldStep {
  key: string;
  /** The schema's `title`, else the property name. */
  title: string;
  description?: string;
  kind: FieldKind;
  required: boolean;
  default?: FieldValue;
  /** The choices of single- and multi-select fields, in the server's order. */
  options?: FieldOption[];
  constraints: FieldConstraints;
  /** A list's items: a required string, number or integer step that checks each value. */
  item?: FieldStep;
}

export interface FormPlan {
  ok: true;
  mode: 'form';
  message: string;
  steps: FieldStep[];
}

export interface UrlPlan {
  ok: true;
  mode: 'url';
  message: string;
  url: string;
  elicitationId: string;
  /** `new URL(url).host`: what the user must see before consenting (IDNs in punycode). */
  domain: string;
  /** Reasons to look twice at the URL (punycode, no TLS). */
  warnings: string[];
}

export type ElicitationPlan = FormPlan | UrlPlan;
export type PlanResult = ElicitationPlan | { ok: false; error: RpcError };

/** More fields than anyone will answer one by one: refused rather than shown. */
export const MAX_FIELDS = 100;

const Count = z.optional(SafeInt.check(atLeast(0)));
const Option = z.object({ const: z.string(), title: z.string() });
const Options = z.array(Option).check(z.minLength(1));
const Values = z.array(z.string()).check(z.minLength(1));
const common = { title: OptionalString, description: OptionalString };

const StringProp = z.object({
  ...common,
  minLength: Count,
  maxLength: Count,
  format: z.optional(z.literal(['email', 'uri', 'date', 'date-time'])),
  pattern: OptionalString,
  default: OptionalString,
});
const EnumProp = z.object({ ...common, enum: Values, enumNames: OptionalStrings, default: OptionalString });
const OneOfProp = z.object({ ...common, oneOf: Options, default: OptionalString });
const NumberProp = z.object({
  ...common,
  minimum: OptionalNumber,
  maximum: OptionalNumber,
  exclusiveMinimum: OptionalNumber,
  exclusiveMaximum: OptionalNumber,
  multipleOf: OptionalNumber,
  default: OptionalNumber,
});
const NumberEnumProp = z.object({ ...common, enum: z.array(z.number()).check(z.minLength(1)), default: OptionalNumber });
const BooleanProp = z.object({ ...common, default: OptionalBoolean });
const MultiProp = z.object({ ...common, minItems: Count, maxItems: Count, default: OptionalUnknown });
const UntitledItems = z.object({ type: z.optional(z.literal('string')), enum: Values });
const TitledItems = z.object({ anyOf: Options });

const ParamsSchema = z.looseObject({
  mode: OptionalString,
  message: z.string(),
  requestedSchema: OptionalUnknown,
  url: OptionalString,
  elicitationId: z.optional(z.string().check(z.minLength(1))),
});
const RequestedSchema = z.looseObject({
  $schema: OptionalString,
  type: z.literal('object'),
  properties: JsonObject,
  required: OptionalStrings,
});

class SchemaProblem extends Error {}

/** How an elicitation request the client refuses is answered (-32602): the error's message starts with INVALID_REQUEST. */
export const INVALID_REQUEST = 'Invalid elicitation request';
export const invalidRequest = (why: string): RpcError => new RpcError(ErrorCode.InvalidParams, `${INVALID_REQUEST}: ${why}`);

/** Ends planning: the request breaks the schema rules, as `message` says. */
// eslint-disable-next-line no-restricted-syntax -- never returns: TypeScript narrows after a call to a declaration
function problem(message: string): never {
  throw new SchemaProblem(message);
}

interface Issue {
  path: PropertyKey[];
  code?: string;
  expected?: unknown;
  values?: unknown[];
  minimum?: unknown;
  origin?: string;
  message: string;
}

/** zod/mini carries no messages ("Invalid input"): say what was expected, from the issue itself. */
const describe = (where: string, { issues }: { issues: readonly Issue[] }): string => {
  return issues
    .slice(0, 3)
    .map((i) => {
      const at = [where, ...i.path.map(String)].join('.');
      if (i.code === 'invalid_value' && i.values) return `${at}: expected ${i.values.map((v) => stringify(v)).join(' or ')}`;
      if (i.code === 'too_small' && i.origin === 'array') return `${at}: expected at least ${String(i.minimum)} item(s)`;
      if (i.code === 'too_small' && i.origin === 'string') return `${at}: must not be empty`;
      if (i.code === 'too_small') return `${at}: expected a number of at least ${String(i.minimum)}`;
      if (i.code === 'invalid_type' && i.expected === 'int') return `${at}: expected a whole number`;
      if (i.code === 'invalid_type' && i.expected === 'record') return `${at}: expected an object`;
      return describeIssues({ issues: [i] }).replace(/^[^:]*/, at);
    })
    .join('; ');
};

const parse = <T>(schema: z.ZodMiniType<T>, value: unknown, where: string): T => {
  const r = schema.safeParse(value);
  if (!r.success) problem(describe(where, r.error));
  return r.data;
};

const fromOptions = (where: string, options: FieldOption[]): FieldOption[] => {
  const seen = new Set<unknown>();
  for (const o of options) {
    if (seen.has(o.value)) problem(`${where} lists the choice "${o.value}" twice`);
    seen.add(o.value);
  }
  return options;
};

const untitled = (values: Array<string | number>): FieldOption[] => values.map((v) => ({ value: v, label: String(v) }));

const titled = (options: Array<{ const: string; title: string }>): FieldOption[] => options.map((o) => ({ value: o.const, label: o.title }));

const bounds = (where: string, lo: number | undefined, hi: number | undefined, loName: string, hiName: string): void => {
  if (lo !== undefined && hi !== undefined && lo > hi) problem(`${where}: ${loName} ${lo} is greater than ${hiName} ${hi}`);
};

/** JSON Schema draft 4 (tools only: the spec's NumberSchema has no exclusive bounds): `exclusiveMinimum: true` makes `minimum` exclusive, false leaves it inclusive. */
const draft4 = (p: Record<string, unknown>): Record<string, unknown> => {
  const o = { ...p };
  for (const [x, b] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']]) {
    if (o[x] === false) delete o[x];
    else if (o[x] === true) {
      o[x] = o[b];
      delete o[b];
    }
  }
  return o;
};

/** One property to one step; throws `SchemaProblem` saying what is wrong. */
export const toStep = (key: string, raw: unknown, required: boolean, tool?: boolean): FieldStep => {
  const where = `property "${key}"`;
  if (!isObject(raw)) problem(`${where} is not a schema object`);
  // A `const` is the one choice of a pick (copied: the schema is the server's, or a tool's kept in its list).
  const p = 'const' in raw ? { ...raw, enum: [raw.const] } : raw;
  const base = (s: { title?: string; description?: string }) => ({ key, title: s.title || key, description: s.description || undefined, required });
  const singleSelect = (s: { title?: string; description?: string; default?: FieldValue }, options: FieldOption[]): FieldStep => ({
    ...base(s),
    kind: SINGLE_SELECT,
    default: s.default,
    options: fromOptions(where, options),
    constraints: {},
  });
  let step: FieldStep;
  // A boolean's or an array's: a form would not keep to it.
  if ('const' in raw && p.type !== STRING && p.type !== NUMBER && p.type !== INTEGER) problem(`${where} has a "const" this form cannot offer`);
  switch (p.type) {
    case STRING: {
      if ('enum' in p && 'oneOf' in p) problem(`${where} has both enum and oneOf; send one of them`);
      if ('enum' in p) {
        const s = parse(EnumProp, p, where);
        if (s.enumNames && s.enumNames.length !== s.enum.length) {
          problem(`${where} has ${s.enumNames.length} enumNames for ${s.enum.length} enum values`);
        }
        const options = s.enumNames ? s.enum.map((v, i) => ({ value: v, label: s.enumNames![i] || v })) : untitled(s.enum);
        step = singleSelect(s, options);
      } else if ('oneOf' in p) {
        const s = parse(OneOfProp, p, where);
        step = singleSelect(s, titled(s.oneOf));
      } else {
        const s = parse(StringProp, p, where);
        bounds(where, s.minLength, s.maxLength, 'minLength', 'maxLength');
        // Compiling is safe and catches a malformed pattern early; only matching can backtrack.
        if (s.pattern !== undefined) {
          try {
            new RegExp(s.pattern, 'u');
          } catch {
            problem(`${where}: pattern ${stringify(s.pattern)} is not a valid regular expression`);
          }
        }
        const { minLength, maxLength, format, pattern } = s;
        step = { ...base(s), kind: STRING, default: s.default, constraints: prune({ minLength, maxLength, format, pattern }) };
      }
      break;
    }
    case NUMBER:
    case INTEGER: {
      if ('enum' in p) {
        const s = parse(NumberEnumProp, p, where);
        step = singleSelect(s, untitled(s.enum));
        break;
      }
      const { title, description, default: value, ...constraints } = parse(NumberProp, tool ? draft4(p) : p, where);
      bounds(where, constraints.minimum, constraints.maximum, 'minimum', 'maximum');
      step = { ...base({ title, description }), kind: p.type, default: value, constraints: prune(constraints) };
      break;
    }
    case BOOLEAN: {
      const s = parse(BooleanProp, p, where);
      step = { ...base(s), kind: BOOLEAN, default: s.default, constraints: {} };
      break;
    }
    case 'array': {
      const s = parse(MultiProp, p, where);
      const items = p.items as Record<string, unknown> | undefined;
      bounds(where, s.minItems, s.maxItems, 'minItems', 'maxItems');
      // The default's type is checked with the step, against its choices or its items.
      step = { ...base(s), kind: MULTI_SELECT, default: s.default as FieldValue | undefined, constraints: prune({ minItems: s.minItems, maxItems: s.maxItems, uniqueItems: p.uniqueItems === true || undefined }) };
      if (!isObjectLike(items) || !('anyOf' in items || 'enum' in items)) {
        if (!tool) problem(`${where} is an array whose items list no choices (enum or anyOf): a form shows an array only as a multi-select of listed choices`);
        // A tool's paths, tags or ids: typed into one box, each value checked as its own field
        // (read as a tool's, draft 4 bounds too; a list of lists is not one).
        const item = toStep(`${key}.items`, items, true, items?.type !== 'array');
        if (item.options || item.kind === BOOLEAN) problem(`${where} lists values that are not strings or numbers`);
        step = { ...step, kind: LIST, item };
        break;
      }
      const options = 'anyOf' in items ? titled(parse(TitledItems, items, `${where}.items`).anyOf) : untitled(parse(UntitledItems, items, `${where}.items`).enum);
      if (s.minItems !== undefined && s.minItems > options.length) {
        problem(`${where} asks for at least ${s.minItems} of only ${options.length} choices`);
      }
      step.options = fromOptions(where, options);
      break;
    }
    case 'object':
      return problem(`${where} is a nested object: a form shows only flat objects of primitive properties`);
    case undefined:
      return problem(`${where} has no type`);
    default:
      // safeStringify: a type nested deeper than the stack (JSON.parse reads any depth) is named, cut.
      return problem(`${where} has the unsupported type ${safeStringify(p.type)} (a form shows: string, number, integer, boolean, array of enum)`);
  }
  if (step.default === undefined) delete step.default;
  else {
    const bad = checkValue(step, step.default, tool);
    if (bad) problem(`${where}: the default ${stringify(step.default)} does not fit its own schema (${bad})`);
  }
  return step;
};

const prune = <T extends object>(o: T): T => {
  for (const k of keysOf(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
};

const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/i;

const planUrl = (message: string, url: string | undefined, elicitationId: string | undefined): UrlPlan => {
  if (url === undefined) problem('url is required in url mode');
  if (elicitationId === undefined) problem('elicitationId is required in url mode');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    problem(`url ${stringify(url)} is not a valid URL`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') problem(`url must be http or https, not ${parsed.protocol.slice(0, -1)}`);
  // `https://bank.example@evil.example` shows a trusted name before the real host; and the spec
  // forbids credentials in the URL anyway.
  if (parsed.username || parsed.password) problem('url must not carry a user name or password');
  const domain = parsed.host;
  const warnings: string[] = [];
  if (domain.split('.').some((label) => label.startsWith('xn--'))) warnings.push('the domain uses punycode: it may imitate another name');
  if (parsed.protocol === 'http:' && !LOOPBACK.test(parsed.hostname)) warnings.push('the page is not encrypted (http)');
  return { ok: true, mode: 'url', message, url, elicitationId, domain, warnings };
};

const planForm = (message: string, requestedSchema: unknown, tool?: boolean): FormPlan => {
  if (requestedSchema === undefined) problem('requestedSchema is required in form mode');
  const schema = parse(RequestedSchema, requestedSchema, 'requestedSchema');
  // Keys straight from the parsed JSON: a property named `__proto__` must not reach an object.
  const raw = (requestedSchema as { properties: Record<string, unknown> }).properties;
  const keys = keysOf(raw);
  if (keys.length > MAX_FIELDS) problem(`requestedSchema has ${keys.length} properties; at most ${MAX_FIELDS} are shown`);
  if (keys.includes('__proto__')) problem('the property name "__proto__" is not allowed');
  const required = new Set(schema.required ?? []);
  for (const r of required) if (!keys.includes(r)) problem(`required names "${r}", which is not a property`);
  return { ok: true, mode: 'form', message, steps: keys.map((k) => toStep(k, raw[k], required.has(k), tool)) };
};

/**
 * Validates an `elicitation/create` request's params and turns them into what the dialog shows.
 * Never throws: a request that breaks the spec's schema rules gives a -32602 error saying why.
 * `url: false` when the client did not declare URL mode (then a URL request is refused, as the
 * spec says). `tool: true` plans a tool's input schema rather than a server's question: an array
 * of strings or numbers without choices is one field of typed values (the spec allows arrays
 * only as multi-selects), draft 4's boolean exclusiveMinimum/exclusiveMaximum are read, and a
 * default may repeat a choice unless the schema says `uniqueItems` (as the tool's JSON box checks).
 */
export const planElicitation = (params: unknown, options: { url?: boolean; tool?: boolean } = {}): PlanResult => {
  try {
    const p = parse(ParamsSchema, params ?? {}, 'params');
    if (p.mode === undefined || p.mode === 'form') return planForm(p.message, p.requestedSchema, options.tool);
    if (p.mode === 'url') {
      if (options.url === false) problem('mode "url" is not supported by this client');
      return planUrl(p.message, p.url, p.elicitationId);
    }
    problem(`unknown mode ${stringify(p.mode)} (expected "form" or "url")`);
  } catch (err) {
    const why = err instanceof SchemaProblem ? err.message : `unexpected problem: ${String(err)}`;
    return { ok: false, error: invalidRequest(why) };
  }
};
