import * as assert from 'node:assert/strict';
import type { FieldStep, FormPlan } from '../../../src/core/elicitation/plan';
import { planElicitation } from '../../../src/core/elicitation/plan';
import { formatValue, inputHint, validateContent, validateField } from '../../../src/core/elicitation/validate';

function plan(properties: Record<string, unknown>, required: string[] = []): FormPlan {
  const r = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties, required } });
  assert.ok(r.ok && r.mode === 'form', !r.ok ? r.error.message : 'not a form');
  return r;
}

function field(property: Record<string, unknown>, required = true): FieldStep {
  return plan({ f: property }, required ? ['f'] : []).steps[0];
}

const ok = (step: FieldStep, raw: string, value: unknown) => assert.deepEqual(validateField(step, raw), { value }, `"${raw}" should give ${JSON.stringify(value)}`);
const bad = (step: FieldStep, raw: string, message: string | RegExp) => {
  const r = validateField(step, raw);
  assert.ok('error' in r, `"${raw}" should be refused, got ${JSON.stringify(r)}`);
  if (typeof message === 'string') assert.equal(r.error, message);
  else assert.match(r.error, message);
};

describe('elicitation validateField: what the input box says while typing', () => {
  it('numbers: whole numbers, bounds, and the message that names them', () => {
    const n = field({ type: 'integer', minimum: 1, maximum: 10 });
    ok(n, '7', 7);
    ok(n, ' 10 ', 10);
    ok(n, '1e0', 1);
    bad(n, '0', 'Enter a whole number between 1 and 10');
    bad(n, '11', 'Enter a whole number between 1 and 10');
    bad(n, '2.5', 'Enter a whole number between 1 and 10');
    bad(n, 'seven', 'Enter a whole number between 1 and 10');
    bad(n, '0x10', 'Enter a whole number between 1 and 10');
    bad(n, '', 'A value is required: Enter a whole number between 1 and 10');
    const x = field({ type: 'number', minimum: 0 });
    ok(x, '3.14', 3.14);
    ok(x, '-0', -0);
    bad(x, '-0.5', 'Enter a number of at least 0');
    bad(x, 'Infinity', 'Enter a number of at least 0');
    bad(field({ type: 'number', maximum: 5 }), '6', 'Enter a number of at most 5');
    bad(field({ type: 'number' }), 'NaN', 'Enter a number');
  });

  it('numbers: exclusive bounds and multipleOf, checked as typed and named in the message', () => {
    const positive = field({ type: 'number', exclusiveMinimum: 0 });
    ok(positive, '0.1', 0.1);
    bad(positive, '0', 'Enter a number greater than 0');
    bad(positive, '-3', 'Enter a number greater than 0');
    const below = field({ type: 'integer', minimum: 1, exclusiveMaximum: 10 });
    ok(below, '9', 9);
    bad(below, '10', 'Enter a whole number at least 1 and less than 10');
    const halves = field({ type: 'number', multipleOf: 0.5 });
    ok(halves, '1.5', 1.5);
    ok(halves, '-2', -2);
    bad(halves, '0.3', 'Enter a number, a multiple of 0.5');
    ok(field({ type: 'number', multipleOf: 0.1 }), '0.3', 0.3); // 0.3 / 0.1 is 2.9999999999999996
    assert.equal(inputHint(field({ type: 'number', exclusiveMinimum: 0, maximum: 1 })), 'Enter a number greater than 0 and at most 1');
  });

  it('numbers with an inclusive and an exclusive bound on one side: the message names the tighter one, which the check applies', () => {
    const lo = field({ type: 'integer', minimum: 5, exclusiveMinimum: 0, maximum: 10 });
    ok(lo, '5', 5);
    bad(lo, '3', 'Enter a whole number between 5 and 10');
    const xlo = field({ type: 'number', minimum: 0, exclusiveMinimum: 0 });
    bad(xlo, '0', 'Enter a number greater than 0');
    const hi = field({ type: 'number', exclusiveMinimum: 0, maximum: 1, exclusiveMaximum: 100 });
    bad(hi, '2', 'Enter a number greater than 0 and at most 1');
    const xhi = field({ type: 'integer', minimum: 1, maximum: 10, exclusiveMaximum: 5 });
    ok(xhi, '4', 4);
    bad(xhi, '5', 'Enter a whole number at least 1 and less than 5');
  });

  it('a number enum: typed as its value, answered with the number', () => {
    const prio = field({ type: 'integer', enum: [1, 2, 3] });
    ok(prio, '2', 2);
    bad(prio, '7', 'Choose one of: 1, 2, 3');
    assert.equal(validateContent(plan({ p: { type: 'integer', enum: [1, 2, 3] } }), { p: 7 }), '"p": Choose one of: 1, 2, 3');
    assert.equal(validateContent(plan({ p: { type: 'integer', enum: [1, 2, 3] } }), { p: '2' }), '"p": Choose one of: 1, 2, 3');
    assert.equal(validateContent(plan({ p: { type: 'integer', enum: [1, 2, 3] } }), { p: 2 }), undefined);
  });

  it('numbers that would not reach the server as typed are refused, saying what would arrive', () => {
    const n = field({ type: 'integer' });
    bad(n, '12345678901234567891', '12345678901234567891 cannot be sent exactly: it would arrive as 12345678901234567000');
    bad(n, '9007199254740993', '9007199254740993 cannot be sent exactly: it would arrive as 9007199254740992');
    bad(n, '9007199254740992', 'Enter a whole number between -9007199254740991 and 9007199254740991: beyond that, many JSON readers lose the last digits');
    ok(n, '9007199254740991', 9007199254740991);
    ok(n, '-9007199254740991', -9007199254740991);
    ok(n, '1200e-2', 12);
    bad(field({ type: 'integer', maximum: 10 }), '12345678901234567891', 'Enter a whole number of at most 10');
    const x = field({ type: 'number' });
    bad(x, '3.14159265358979323846', '3.14159265358979323846 cannot be sent exactly: it would arrive as 3.141592653589793');
    bad(x, '1e-400', '1e-400 cannot be sent exactly: it would arrive as 0');
    for (const [text, value] of [['0.1', 0.1], ['1.50', 1.5], ['.5', 0.5], ['5.', 5], ['-0.000', -0], ['1.2345678901234568e+21', 1.2345678901234568e21], ['1234567890123456800000', 1.2345678901234568e21]] as const) ok(x, text, value);
  });

  it('strings: length in characters (not UTF-16 units), empty required refused, text kept as typed', () => {
    const s = field({ type: 'string', minLength: 2, maxLength: 3 });
    ok(s, '  a', '  a');
    ok(s, '😀😀😀', '😀😀😀');
    bad(s, 'a', 'Enter text between 2 and 3 characters');
    bad(s, 'abcd', 'Enter text between 2 and 3 characters');
    bad(s, '', 'A value is required');
    // Optional: empty text leaves the field out rather than breaking minLength.
    ok(field({ type: 'string', minLength: 1 }, false), '', undefined);
  });

  it('optional fields: empty input leaves the field out', () => {
    ok(field({ type: 'string' }, false), '', undefined);
    ok(field({ type: 'integer' }, false), '  ', undefined);
    ok(field({ type: 'boolean' }, false), '', undefined);
    ok(field({ type: 'string', enum: ['a'] }, false), '', undefined);
    ok(field({ type: 'array', items: { enum: ['a'] } }, false), '', undefined);
  });

  it('email format', () => {
    const e = field({ type: 'string', format: 'email' });
    ok(e, 'octocat@github.com', 'octocat@github.com');
    ok(e, 'first.last+tag@sub.example.co', 'first.last+tag@sub.example.co');
    for (const v of ['octocat', 'a@b', '@example.com', 'a b@example.com', 'a@example..com']) bad(e, v, 'Enter an email address, like name@example.com');
  });

  it('uri format: absolute URIs only', () => {
    const u = field({ type: 'string', format: 'uri' });
    ok(u, 'https://example.com/a?b=c', 'https://example.com/a?b=c');
    ok(u, 'mailto:someone@example.com', 'mailto:someone@example.com');
    ok(u, 'urn:isbn:0451450523', 'urn:isbn:0451450523');
    for (const v of ['example.com', '/relative/path', 'https://exa mple.com', 'http://']) bad(u, v, 'Enter a full URI, like https://example.com/page');
  });

  it('uri format: only the characters of RFC 3986, as the SDK server checks the answer (ajv-formats), so an accepted answer is not refused there with -32602', () => {
    const u = field({ type: 'string', format: 'uri' });
    ok(u, "https://example.com/a_b~c/%C3%B6?q=1&r=(x)*!$',;=@:#frag", "https://example.com/a_b~c/%C3%B6?q=1&r=(x)*!$',;=@:#frag");
    ok(u, 'http://[::1]:8080/x', 'http://[::1]:8080/x');
    for (const v of ['https://example.com/a|b', 'https://example.com/a\\b', 'https://example.com/%zz', 'https://exa mple.com/Köln']) {
      bad(u, v, 'Enter a full URI, like https://example.com/page');
    }
  });

  it('uri format: a URI as an address bar shows it (accented letters, spaces, braces, a non-ASCII host) is sent percent-encoded, as RFC 3986 and the SDK server want it', () => {
    const u = field({ type: 'string', format: 'uri' });
    ok(u, 'https://de.wikipedia.org/wiki/Köln', 'https://de.wikipedia.org/wiki/K%C3%B6ln');
    ok(u, 'https://example.com/a b/{id}?q="x"', 'https://example.com/a%20b/%7Bid%7D?q=%22x%22');
    ok(u, 'https://bücher.example/', 'https://xn--bcher-kva.example/');
    ok(u, 'mailto:jürgen@example.com', 'mailto:j%C3%BCrgen@example.com');
    // An ASCII URI is sent as typed, not normalised by the parser (no slash added, case kept).
    ok(u, 'https://Example.com', 'https://Example.com');
  });

  it('date format: real calendar dates as YYYY-MM-DD', () => {
    const d = field({ type: 'string', format: 'date' });
    ok(d, '2024-02-29', '2024-02-29');
    for (const v of ['2023-02-29', '2024-13-01', '2024-1-01', '24-01-01', '2024-01-01T00:00:00Z', '2024/01/01']) bad(d, v, 'Enter a date as YYYY-MM-DD');
  });

  it('date and date-time formats: years before 100 are dates too (0001-01-01 is .NET\'s DateTime.MinValue), not read as 1900-1999; their leap days as the calendar has them', () => {
    const d = field({ type: 'string', format: 'date' });
    for (const v of ['0001-01-01', '0000-02-29', '0099-12-31', '0004-02-29']) ok(d, v, v);
    for (const v of ['0001-02-29', '0100-02-29']) bad(d, v, 'Enter a date as YYYY-MM-DD');
    ok(field({ type: 'string', format: 'date-time' }), '0001-01-01T00:00:00Z', '0001-01-01T00:00:00Z');
    assert.ok(planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { since: { type: 'string', format: 'date', default: '0001-01-01' } } } }).ok, 'a form whose default is 0001-01-01 is shown, not refused');
  });

  it('date-time format: RFC 3339 with a zone', () => {
    const t = field({ type: 'string', format: 'date-time' });
    for (const v of ['2024-05-01T12:30:00Z', '2024-05-01T12:30:00.123+02:00', '2024-05-01t23:59:60z', '2024-05-01 08:00:00-05:00']) ok(t, v, v);
    for (const v of ['2024-05-01', '2024-05-01T12:30:00', '2024-05-01T24:00:00Z', '2024-02-30T00:00:00Z', '2024-05-01T12:61:00Z', '2024-05-01T12:00:00+25:00']) {
      bad(t, v, 'Enter a date and time as YYYY-MM-DDTHH:MM:SSZ');
    }
  });

  it('pattern: named as a hint, never run on the host: the server checks it', () => {
    const p = field({ type: 'string', pattern: '^[A-Za-z]+$' });
    ok(p, 'Octocat', 'Octocat');
    ok(p, 'octo cat', 'octo cat');
    assert.equal(inputHint(p), 'The server expects text matching ^[A-Za-z]+$');
    assert.equal(inputHint(field({ type: 'string', maxLength: 3, pattern: '[0-9]' }, false)), 'Enter text of at most 3 characters; the server expects text matching [0-9] (optional: leave empty to skip)');
    assert.equal(validateContent(plan({ f: { type: 'string', pattern: '^x$' } }), { f: 'y' }), undefined);
  });

  it('a catastrophic pattern with a default it does not match plans, and the text is accepted (the pattern is never run on the host)', () => {
    // Matching `^(a+)+$` against 28 a's and a "!" backtracks for seconds, a few more a's for
    // hours: before, that ran at plan time (and refused the default) and on every keystroke.
    const text = `${'a'.repeat(28)}!`;
    const p = field({ type: 'string', pattern: '^(a+)+$', default: text });
    assert.equal(p.default, text);
    ok(p, text, text);
  });

  it('booleans accept yes/no and true/false', () => {
    const b = field({ type: 'boolean' });
    ok(b, 'Yes', true);
    ok(b, 'false', false);
    bad(b, 'maybe', 'Enter yes or no');
  });

  it('single-select accepts a value or a label and refuses anything else', () => {
    const s = field({ type: 'string', oneOf: [{ const: 'hero-1', title: 'Superman' }, { const: 'hero-2', title: 'Wonder Woman' }] });
    ok(s, 'hero-2', 'hero-2');
    ok(s, 'Superman', 'hero-1');
    bad(s, 'Batman', 'Choose one of: Superman, Wonder Woman');
  });

  it('multi-select takes a comma-separated list and checks the count', () => {
    const m = field({ type: 'array', minItems: 1, maxItems: 2, items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2', title: 'Salmon' }, { const: 'f3', title: 'Trout' }] } });
    ok(m, 'Tuna, f3', ['f1', 'f3']);
    bad(m, 'Tuna, Salmon, Trout', 'Choose between 1 and 2 options');
    bad(m, '', 'Choose between 1 and 2 options');
    bad(m, 'Tuna, Tuna', 'Choose each option at most once');
    bad(m, 'Cod', 'Choose from: Tuna, Salmon, Trout');
    bad(field({ type: 'array', minItems: 1, items: { enum: ['a', 'b'] } }), '', 'Choose at least 1 option');
    ok(field({ type: 'array', items: { enum: ['a', 'b'] } }), '', []);
  });

  it('lists (tools only): values separated by commas, each trimmed, or a JSON array; numbers parsed; counts checked', () => {
    const list = (property: Record<string, unknown>, required = true) => {
      const r = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { f: property }, required: required ? ['f'] : [] } }, { tool: true });
      assert.ok(r.ok && r.mode === 'form', !r.ok ? r.error.message : 'not a form');
      return r.steps[0];
    };
    const strings = list({ type: 'array', items: { type: 'string' }, minItems: 2 });
    ok(strings, 'a, b ,c', ['a', 'b', 'c']);
    ok(strings, ' ["a,b", "c"] ', ['a,b', 'c']);
    bad(strings, 'a', 'Enter at least 2 values');
    bad(strings, '', /^A value is required: Values separated by commas, or a JSON array of at least 2 values$/);
    bad(strings, 'a,,b', /^Value 2: A value is required/);
    bad(strings, '["a", 1]', /^Value 2: Expected text/);
    bad(strings, '["a", "b"', 'Values separated by commas, or a JSON array of at least 2 values');
    const ints = list({ type: 'array', items: { type: 'integer', maximum: 10 }, maxItems: 3 }, false);
    ok(ints, '1, 2,3', [1, 2, 3]);
    ok(ints, '[4, 5]', [4, 5]);
    ok(ints, '', undefined);
    bad(ints, '1, two', /^Value 2: Enter a whole number/);
    bad(ints, '1.5', /^Value 1: Enter a whole number/);
    bad(ints, '11', /^Value 1: Enter a whole number.*at most 10/);
    bad(ints, '1,2,3,4', 'Enter at most 3 values');
    ok(list({ type: 'array', items: { type: 'number' } }), '0.5, -2e3', [0.5, -2000]);
    assert.equal(formatValue(strings, ['a', 'b']), 'a, b');
    assert.equal(formatValue(ints, [1, 2]), '1, 2');
  });

  it('input hints name the format or bounds, and how to skip optional fields', () => {
    assert.equal(inputHint(field({ type: 'string', format: 'date' })), 'Enter a date as YYYY-MM-DD');
    assert.equal(inputHint(field({ type: 'integer', minimum: 1, maximum: 100 }, false)), 'Enter a whole number between 1 and 100 (optional: leave empty to skip)');
    assert.equal(inputHint(field({ type: 'string' }, false)), '(optional: leave empty to skip)');
    assert.equal(inputHint(field({ type: 'string', maxLength: 1 })), 'Enter text of at most 1 character');
  });
});

describe('elicitation validateContent: the whole answer before it is sent', () => {
  const p = plan(
    {
      name: { type: 'string', title: 'Name' },
      age: { type: 'integer', minimum: 18 },
      agree: { type: 'boolean' },
      color: { type: 'string', enum: ['red', 'green'] },
      tags: { type: 'array', maxItems: 2, items: { enum: ['a', 'b', 'c'] } },
    },
    ['name', 'agree'],
  );

  it('accepts content that fits, with optional fields left out', () => {
    assert.equal(validateContent(p, { name: 'Mona', agree: true }), undefined);
    assert.equal(validateContent(p, { name: 'Mona', agree: false, age: 30, color: 'green', tags: ['a', 'c'] }), undefined);
  });

  it('names every problem: missing required, unknown field, wrong type, out of bounds', () => {
    assert.equal(
      validateContent(p, { agree: 'yes', age: 17, color: 'blue', tags: ['a', 'b', 'c'], extra: 1 }),
      '"extra" is not a field of the form; "Name" is required; "age": Enter a whole number of at least 18; "agree": Expected yes or no; "color": Choose one of: red, green; "tags": Choose at most 2 options',
    );
    assert.equal(validateContent(p, { name: 42, agree: true }), '"Name": Expected text');
  });

  it('of a tool\'s arguments typed as JSON (Edit as JSON…): each field named by the key typed, not by its title ("Name"), and keys the form has not let through', () => {
    assert.equal(validateContent(p, { agree: 'yes', extra: 1 }, true), '"name" is required; "agree": Expected yes or no');
    assert.equal(validateContent(p, { name: 'Mona', agree: true, extra: 1 }, true), undefined);
  });

  it('a list typed as JSON that is no array is asked for as one, not as "values separated by commas" (which the JSON box does not read)', () => {
    const r = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { paths: { type: 'array', minItems: 1, items: { type: 'string' } } } } }, { tool: true });
    assert.ok(r.ok && r.mode === 'form');
    const list = r;
    assert.equal(validateContent(list, { paths: 'a, b' }, true), '"paths": Enter a JSON array');
    assert.equal(validateContent(list, { paths: [] }, true), '"paths": Enter at least 1 value');
    assert.equal(validateContent(list, { paths: 'a, b' }), '"paths": Values separated by commas, or a JSON array of at least 1 value');
  });

  it('pins the JSON box of Run Tool as Task: a choice typed twice is sent unless the tool\'s schema says uniqueItems, as the tool\'s own check would; a form\'s multi-select still takes each choice once', () => {
    const items = { enum: ['a', 'b'] };
    const r = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { tags: { type: 'array', items }, once: { type: 'array', uniqueItems: true, items } } } }, { tool: true });
    assert.ok(r.ok && r.mode === 'form');
    assert.equal(validateContent(r, { tags: ['a', 'a'] }, true), undefined);
    assert.equal(validateContent(r, { once: ['a', 'a'] }, true), '"once": Choose each option at most once');
    assert.equal(validateContent(r, { tags: ['a', 'a'] }), '"tags": Choose each option at most once');
  });

  it('a tool\'s list of typed values (no choices) takes a value twice unless its schema says uniqueItems, in the form\'s box and in the JSON box alike', () => {
    const r = planElicitation(
      { message: 'm', requestedSchema: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } }, ids: { type: 'array', uniqueItems: true, items: { type: 'integer' } } } } },
      { tool: true },
    );
    assert.ok(r.ok && r.mode === 'form');
    const [paths, ids] = r.steps;
    ok(paths, 'a, a', ['a', 'a']);
    bad(ids, '1, 2, 1', 'Enter each value at most once');
    ok(ids, '[1, 2]', [1, 2]);
    assert.equal(validateContent(r, { ids: [3, 3] }, true), '"ids": Enter each value at most once');
    assert.equal(validateContent(r, { paths: ['a', 'a'], ids: [3] }, true), undefined);
  });

  it('only a uniqueItems of JSON true refuses a repeat: "false", "yes", 0 and 1 from a server are not true', () => {
    for (const uniqueItems of ['false', 'yes', 0, 1, null, {}]) {
      const r = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { tags: { type: 'array', uniqueItems, items: { enum: ['a'] } }, ids: { type: 'array', uniqueItems, items: { type: 'integer' } } } } }, { tool: true });
      assert.ok(r.ok && r.mode === 'form');
      assert.equal(validateContent(r, { tags: ['a', 'a'], ids: [3, 3] }, true), undefined, `uniqueItems: ${JSON.stringify(uniqueItems)}`);
      ok(r.steps[1], '3, 3', [3, 3]);
    }
  });
});

describe('elicitation formatValue: answers as the review step shows them', () => {
  it('shows labels, Yes/No, lists, and marks left-out fields', () => {
    const p = plan({
      hero: { type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }] },
      fish: { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }, { const: 'f2', title: 'Salmon' }] } },
      ok: { type: 'boolean' },
      text: { type: 'string' },
    });
    const [hero, fish, yes, text] = p.steps;
    assert.equal(formatValue(hero, 'h1'), 'Superman');
    assert.equal(formatValue(fish, ['f1', 'f2']), 'Tuna, Salmon');
    assert.equal(formatValue(fish, []), '(none)');
    assert.equal(formatValue(yes, false), 'No');
    assert.equal(formatValue(text, undefined), '(left out)');
    assert.equal(formatValue(text, 'x'.repeat(100)), `${'x'.repeat(79)}…`);
    // No half emoji: a surrogate pair goes whole.
    assert.equal(formatValue(text, `${'x'.repeat(78)}${'😀'.repeat(5)}`), `${'x'.repeat(78)}…`);
  });
});
