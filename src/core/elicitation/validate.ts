import type { FieldStep, FieldValue, FormPlan } from './plan';
import { fromJson, isNumber, isString } from '../util/json';
import { hasOwn, isArray, isFiniteNumber, isInteger, isSafeInteger, keysOf, round } from '../util/builtins';
import { head } from '../util/text';
import { BOOLEAN, INTEGER, LIST, MULTI_SELECT, NUMBER, SINGLE_SELECT, STRING } from './fieldKinds';

/** What typed text means for a field: its value (`undefined`: left out), or what to fix. */
export type FieldCheck = { value: FieldValue | undefined } | { error: string };

// The email shape of JSON Schema validators (ajv's "fast" format): what servers check against.
const EMAIL = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const URI = /^[a-z][a-z0-9+.-]*:(?:[\w.~:/?#[\]@!$&'()*+,;=-]|%[\da-f]{2})*$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const NUMBER_TEXT = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;

const FORMAT_RULE = {
  email: 'Enter an email address, like name@example.com',
  uri: 'Enter a full URI, like https://example.com/page',
  date: 'Enter a date as YYYY-MM-DD',
  'date-time': 'Enter a date and time as YYYY-MM-DDTHH:MM:SSZ',
} as const;

const isDate = (s: string): boolean => {
  const m = DATE.exec(s);
  if (!m) return false;
  // 400 years on: the same calendar, and Date.UTC reads years 0-99 as 1900-1999.
  const [y, mo, d] = [Number(m[1]) + 400, Number(m[2]), Number(m[3])];
  const t = new Date(Date.UTC(y, mo - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d;
};

const isDateTime = (s: string): boolean => {
  const m = DATE_TIME.exec(s);
  if (!m || !isDate(m[1])) return false;
  // Second 60 is a leap second, allowed by RFC 3339.
  return Number(m[2]) < 24 && Number(m[3]) < 60 && Number(m[4]) <= 60 && (m[6] === undefined || (Number(m[6]) < 24 && Number(m[7]) < 60));
};

const isUri = (s: string): boolean => {
  if (!URI.test(s)) return false;
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
};

/**
 * A URI as a browser's address bar gives it (`https://de.wikipedia.org/wiki/Köln`, a path with
 * spaces) in the ASCII of RFC 3986 that the server checks: percent-encoded, the host in punycode.
 * What the URL parser leaves outside RFC 3986 (`a|b`, `%zz`) stays as typed, and is refused, as
 * is a backslash, which the parser would silently turn into a slash.
 */
const asciiUri = (s: string): string => {
  if (URI.test(s) || s.includes('\\')) return s;
  try {
    return new URL(s).href;
  } catch {
    return s;
  }
};

const FORMAT_CHECK: Record<keyof typeof FORMAT_RULE, (s: string) => boolean> = { email: (s) => EMAIL.test(s), uri: isUri, date: isDate, 'date-time': isDateTime };

/** " between 1 and 10", " of at least 3 characters"...; the unit agrees with the last number. */
const range = (lo: number | undefined, hi: number | undefined, unit?: [string, string]): string => {
  const u = (n: number) => (unit ? ` ${n === 1 ? unit[0] : unit[1]}` : '');
  if (lo !== undefined && hi !== undefined) return lo === hi ? ` of exactly ${lo}${u(lo)}` : ` between ${lo} and ${hi}${u(hi)}`;
  if (lo !== undefined) return ` of at least ${lo}${u(lo)}`;
  if (hi !== undefined) return ` of at most ${hi}${u(hi)}`;
  return '';
};

/** The rule a number field follows, as the input box says it: "Enter a whole number between 1 and 10", "Enter a number greater than 0". */
export const numberRule = (step: FieldStep): string => {
  const { minimum: lo, maximum: hi, exclusiveMinimum: xlo, exclusiveMaximum: xhi, multipleOf } = step.constraints;
  // Of an inclusive and an exclusive bound on one side, the tighter (both are checked); "between
  // 1 and 10" while both named are inclusive, else each as it is.
  const inLo = xlo === undefined || (lo ?? -Infinity) > xlo;
  const inHi = xhi === undefined || (hi ?? Infinity) < xhi;
  const bounds = inLo && inHi ? range(lo, hi) : ` ${[inLo ? lo !== undefined && `at least ${lo}` : `greater than ${xlo}`, inHi ? hi !== undefined && `at most ${hi}` : `less than ${xhi}`].filter(Boolean).join(' and ')}`;
  return `Enter a ${step.kind === INTEGER ? 'whole number' : 'number'}${bounds}${multipleOf ? `, a multiple of ${multipleOf}` : ''}`;
};

const lengthRule = (step: FieldStep): string => {
  const { minLength: lo, maxLength: hi } = step.constraints;
  return `Enter text${range(lo, hi, ['character', 'characters'])}`;
};

/** The count a multi-select or a list asks for: "Choose between 1 and 3 options", "Enter at least 2 values". */
export const countRule = (step: FieldStep): string => {
  const { minItems: lo, maxItems: hi } = step.constraints;
  const list = step.kind === LIST;
  return `${list ? 'Enter' : 'Choose'}${range(lo, hi, list ? ['value', 'values'] : ['option', 'options']).replace(/^ of/, '')}`;
};

/** How a list is typed, as its prompt says it: "Values separated by commas, or a JSON array of at least 1 value". */
export const listRule = (step: FieldStep): string => `Values separated by commas, or a JSON array${range(step.constraints.minItems, step.constraints.maxItems, ['value', 'values'])}`;

/**
 * A hint for an empty input box: the format or bounds the answer must meet. A `pattern` is only
 * named here, never enforced: a server's regular expression run on the extension host can
 * backtrack for hours (`^(a+)+$`), so the server checks it.
 */
export const inputHint = (step: FieldStep): string => {
  const c = step.constraints;
  let hint = '';
  if (step.kind === NUMBER || step.kind === INTEGER) hint = numberRule(step);
  else if (c.format) hint = FORMAT_RULE[c.format];
  else if (c.minLength !== undefined || c.maxLength !== undefined) hint = lengthRule(step);
  if (c.pattern !== undefined) hint = hint ? `${hint}; the server expects text matching ${c.pattern}` : `The server expects text matching ${c.pattern}`;
  return step.required ? hint : `${hint ? `${hint} ` : ''}(optional: leave empty to skip)`.trim();
};

/**
 * Checks a value of the right JSON type against the field's constraints; the message says what to
 * fix. `typed` (a tool's JSON box): a choice may repeat unless the schema says `uniqueItems`, as a
 * typed value of a list may.
 */
export const checkValue = (step: FieldStep, value: unknown, typed?: boolean): string | undefined => {
  const c = step.constraints;
  switch (step.kind) {
    case STRING: {
      if (!isString(value)) return 'Expected text';
      const length = [...value].length; // JSON Schema counts code points, not UTF-16 units
      if ((c.minLength !== undefined && length < c.minLength) || (c.maxLength !== undefined && length > c.maxLength)) return lengthRule(step);
      if (c.format && !FORMAT_CHECK[c.format](value)) return FORMAT_RULE[c.format];
      return undefined;
    }
    case NUMBER:
    case INTEGER: {
      if (!isNumber(value) || !isFiniteNumber(value)) return numberRule(step);
      if (step.kind === INTEGER && !isInteger(value)) return numberRule(step);
      const { minimum: lo, maximum: hi, exclusiveMinimum: xlo, exclusiveMaximum: xhi, multipleOf: m } = c;
      // A multiple within rounding: 0.3 is one of 0.1, though 0.3 / 0.1 is 2.9999999999999996.
      const off = m ? Math.abs(value / m - round(value / m)) : 0;
      if (value < (lo ?? -Infinity) || value > (hi ?? Infinity) || value <= (xlo ?? -Infinity) || value >= (xhi ?? Infinity) || off > 1e-9) return numberRule(step);
      return undefined;
    }
    case BOOLEAN:
      return typeof value === 'boolean' ? undefined : 'Expected yes or no';
    case SINGLE_SELECT:
      return choices(step).has(value) ? undefined : `Choose one of: ${labels(step)}`;
    case MULTI_SELECT: {
      if (!isArray(value) || value.some((v) => !isString(v) || !choices(step).has(v))) return `Choose from: ${labels(step)}`;
      if ((!typed || c.uniqueItems) && new Set(value).size < value.length) return 'Choose each option at most once';
      return count(step, value.length);
    }
    case LIST: {
      if (!isArray(value)) return listRule(step);
      for (const [i, v] of value.entries()) {
        const bad = checkValue(step.item!, v);
        if (bad) return `Value ${i + 1}: ${bad}`;
      }
      if (c.uniqueItems && new Set(value).size < value.length) return 'Enter each value at most once';
      return count(step, value.length);
    }
  }
};

/** Whether `n` values are as many as the field asks; else its countRule. */
const count = (step: FieldStep, n: number): string | undefined => (n < (step.constraints.minItems ?? 0) || n > (step.constraints.maxItems ?? Infinity) ? countRule(step) : undefined);

/** The choices named in a message: the first twenty, and how many more. */
const labels = (step: FieldStep): string => {
  const all = step.options!;
  const named = all.slice(0, 20).map((o) => o.label).join(', ');
  return all.length > 20 ? `${named}, … (${all.length - 20} more)` : named;
};

const choiceIndex = new WeakMap<FieldStep, Map<unknown, string>>();

/**
 * A step's choices, value to label, built once per step: a server's form of 60,000 choices with
 * as many defaults took seconds of the extension host's time when each value searched the list.
 */
const choices = (step: FieldStep): Map<unknown, string> => {
  let index = choiceIndex.get(step);
  if (!index) choiceIndex.set(step, (index = new Map((step.options ?? []).map((o) => [o.value, o.label]))));
  return index;
};

const option = (step: FieldStep, text: string): string | number | undefined => (step.options!.find((o) => String(o.value) === text) ?? step.options!.find((o) => o.label === text))?.value;

/**
 * What typed text means for a field, checked as the user types: the message is what the input
 * box shows ("Enter a whole number between 1 and 10"). Empty text leaves an optional field out.
 * Selects accept an option's value or its label; multi-selects a comma-separated list; lists
 * (tools only) comma-separated values, each trimmed, or a JSON array (for values with commas).
 */
export const validateField = (step: FieldStep, rawInput: string): FieldCheck => {
  const text = step.kind === STRING ? rawInput : rawInput.trim();
  if (text === '' && step.kind !== MULTI_SELECT) return step.required ? { error: `A value is required${step.kind === STRING ? '' : `: ${rule(step)}`}` } : { value: undefined };
  let value: FieldValue | undefined;
  switch (step.kind) {
    case STRING:
      value = step.constraints.format === 'uri' ? asciiUri(text) : text;
      break;
    case NUMBER:
    case INTEGER:
      if (!NUMBER_TEXT.test(text)) return { error: numberRule(step) };
      value = Number(text);
      break;
    case BOOLEAN:
      if (/^(y|yes|true)$/i.test(text)) value = true;
      else if (/^(n|no|false)$/i.test(text)) value = false;
      else return { error: 'Enter yes or no' };
      break;
    case SINGLE_SELECT:
      value = option(step, text);
      if (value === undefined) return { error: `Choose one of: ${labels(step)}` };
      break;
    case MULTI_SELECT: {
      if (text === '' && !step.required) return { value: undefined };
      const parts = text === '' ? [] : text.split(',').map((t) => t.trim());
      const values = parts.map((t) => option(step, t));
      if (values.some((v) => v === undefined)) return { error: `Choose from: ${labels(step)}` };
      value = values as string[];
      break;
    }
    case LIST: {
      if (text.startsWith('[')) {
        try {
          value = fromJson(text) as FieldValue;
        } catch {
          return { error: listRule(step) };
        }
        break;
      }
      value = [];
      for (const [i, part] of text.split(',').entries()) {
        const r = validateField(step.item!, part.trim());
        if ('error' in r) return { error: `Value ${i + 1}: ${r.error}` };
        value.push(r.value as string | number);
      }
      break;
    }
  }
  const error = checkValue(step, value) ?? (isNumber(value) ? inexact(step, text, value) : undefined);
  return error ? { error } : { value };
};

/**
 * A decimal number as digits and an exponent, without leading or trailing zeros, so that texts
 * of the same value compare equal ("1.50", "15e-1" and "1.5" all give "15e-1").
 */
const decimal = (text: string): string => {
  const m = /^([-+]?)(\d*)\.?(\d*)(?:[eE]([-+]?\d+))?$/.exec(text)!;
  const digits = `${m[2]}${m[3]}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const significant = digits.replace(/0+$/, '');
  const exponent = Number(m[4] ?? 0) - m[3].length + (digits.length - significant.length);
  return `${m[1] === '-' ? '-' : ''}${significant}e${exponent}`;
};

/**
 * Why a finite number typed as `text` cannot be sent as typed: a JSON number here is a double,
 * so "12345678901234567891" would silently reach the server as 12345678901234567000.
 */
const inexact = (step: FieldStep, text: string, value: number): string | undefined => {
  if (decimal(text) !== decimal(String(value))) return `${text} cannot be sent exactly: it would arrive as ${String(value)}`;
  if (step.kind === INTEGER && !isSafeInteger(value)) {
    return `Enter a whole number between ${Number.MIN_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}: beyond that, many JSON readers lose the last digits`;
  }
  return undefined;
};

const rule = (step: FieldStep): string => {
  if (step.kind === NUMBER || step.kind === INTEGER) return numberRule(step);
  if (step.kind === BOOLEAN) return 'yes or no';
  return step.options ? `choose one of: ${labels(step)}` : listRule(step);
};

/**
 * Checks a whole `content` object against the plan before it is sent: every required field
 * present, no unknown field, every value valid. Returns what is wrong, or undefined. `typed`: a
 * tool's arguments typed as JSON, named by their keys; keys the form has not are sent as they are.
 */
export const validateContent = (plan: FormPlan, content: Record<string, unknown>, typed?: boolean): string | undefined => {
  const problems: string[] = [];
  const known = new Set(plan.steps.map((s) => s.key));
  for (const key of keysOf(content)) if (!typed && !known.has(key)) problems.push(`"${key}" is not a field of the form`);
  for (const step of plan.steps) {
    // Typed as JSON, a field is its key (its title is the form's).
    const name = typed ? step.key : step.title;
    if (!hasOwn(content, step.key) || content[step.key] === undefined) {
      if (step.required) problems.push(`"${name}" is required`);
      continue;
    }
    // Typed as JSON, a list is not read from commas (its count is checked once it is an array).
    const error = typed && step.kind === LIST && !isArray(content[step.key]) ? 'Enter a JSON array' : checkValue(step, content[step.key], typed);
    if (error) problems.push(`"${name}": ${error}`);
  }
  return problems.length ? problems.join('; ') : undefined;
};

/** A value as the review step shows it: choices by their labels, booleans as Yes/No. */
export const formatValue = (step: FieldStep, value: FieldValue | undefined): string => {
  if (value === undefined) return '(left out)';
  const label = (v: string | number) => choices(step).get(v) ?? String(v);
  if (isArray(value)) return value.length ? value.map(label).join(', ') : '(none)';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (isNumber(value)) return String(value);
  const shown = step.kind === SINGLE_SELECT ? label(value) : value;
  return shown.length > 80 ? `${head(shown, 79)}…` : shown === '' ? '(empty)' : shown;
};
