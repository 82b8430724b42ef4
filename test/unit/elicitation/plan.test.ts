import * as assert from 'node:assert/strict';
import { ErrorCode, RpcError } from '../../../src/core/jsonrpc/errors';
import type { FieldStep, FormPlan, PlanResult, UrlPlan } from '../../../src/core/elicitation/plan';
import { MAX_FIELDS, planElicitation } from '../../../src/core/elicitation/plan';
import { checkValue } from '../../../src/core/elicitation/validate';

function form(properties: Record<string, unknown>, required?: string[], extra: Record<string, unknown> = {}): PlanResult {
  return planElicitation({ message: 'Please answer', requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) }, ...extra });
}

function steps(r: PlanResult): FieldStep[] {
  assert.ok(r.ok, `expected a plan, got ${!r.ok && r.error.message}`);
  assert.equal(r.mode, 'form');
  return (r as FormPlan).steps;
}

function one(property: Record<string, unknown>, required = false): FieldStep {
  return steps(form({ f: property }, required ? ['f'] : undefined))[0];
}

/** Asserts a -32602 RpcError whose message matches `pattern`. */
function refused(r: PlanResult, pattern: RegExp): void {
  assert.equal(r.ok, false, 'expected the request to be refused');
  if (r.ok) return;
  assert.ok(r.error instanceof RpcError);
  assert.equal(r.error.code, ErrorCode.InvalidParams);
  assert.match(r.error.message, /^Invalid elicitation request: /);
  assert.match(r.error.message, pattern);
}

describe('elicitation plan: form mode', () => {
  it('treats a request without mode as form mode and keeps the message and the property order', () => {
    const r = form({ b: { type: 'string' }, a: { type: 'boolean' } });
    assert.ok(r.ok && r.mode === 'form');
    assert.equal(r.message, 'Please answer');
    assert.deepEqual(r.steps.map((s) => s.key), ['b', 'a']);
    assert.ok(planElicitation({ mode: 'form', message: 'm', requestedSchema: { type: 'object', properties: {} } }).ok);
  });

  it('plans a string with title, description, length bounds and each format', () => {
    const s = one({ type: 'string', title: 'Name', description: 'Your name', minLength: 3, maxLength: 50, default: 'octocat' }, true);
    assert.deepEqual(s, { key: 'f', title: 'Name', description: 'Your name', required: true, kind: 'string', default: 'octocat', constraints: { minLength: 3, maxLength: 50 } });
    for (const format of ['email', 'uri', 'date', 'date-time'] as const) assert.equal(one({ type: 'string', format }).constraints.format, format);
    assert.equal(one({ type: 'string', pattern: '^[a-z]+$' }).constraints.pattern, '^[a-z]+$');
  });

  it('uses the property name when there is no title, and marks fields not in required as optional', () => {
    const [a, b] = steps(form({ alpha: { type: 'string' }, beta: { type: 'number' } }, ['beta']));
    assert.equal(a.title, 'alpha');
    assert.equal(a.required, false);
    assert.equal(a.description, undefined);
    assert.equal(b.required, true);
    assert.equal('default' in a, false);
  });

  it('plans numbers and integers with bounds and defaults', () => {
    assert.deepEqual(one({ type: 'number', minimum: 0, maximum: 1000, default: 3.14 }), { key: 'f', title: 'f', description: undefined, required: false, kind: 'number', default: 3.14, constraints: { minimum: 0, maximum: 1000 } });
    const i = one({ type: 'integer', minimum: 1, default: 42 });
    assert.equal(i.kind, 'integer');
    assert.deepEqual(i.constraints, { minimum: 1 });
    assert.equal(i.default, 42);
  });

  it('keeps the number constraints of tool input schemas: exclusive bounds (zod\'s .positive() is exclusiveMinimum 0) and multipleOf', () => {
    assert.deepEqual(one({ type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 }).constraints, { exclusiveMinimum: 0, exclusiveMaximum: 1, multipleOf: 0.25 });
  });

  it('draft 4\'s boolean exclusiveMinimum/exclusiveMaximum: with { tool: true } (a tool\'s input schema) true makes minimum/maximum exclusive and false leaves them inclusive; a server\'s question (the spec\'s NumberSchema has neither) still refuses it', () => {
    const tool = (property: Record<string, unknown>) => steps(planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { f: property } } }, { tool: true }))[0];
    assert.deepEqual(tool({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true }).constraints, { exclusiveMinimum: 0, exclusiveMaximum: 1 });
    assert.deepEqual(tool({ type: 'integer', minimum: 1, exclusiveMinimum: false, maximum: 9, exclusiveMaximum: false }).constraints, { minimum: 1, maximum: 9 });
    const schema = { type: 'integer', minimum: 0, exclusiveMinimum: true };
    assert.equal(checkValue(tool(schema), 0), 'Enter a whole number greater than 0');
    assert.equal(checkValue(tool(schema), 1), undefined);
    assert.deepEqual(schema, { type: 'integer', minimum: 0, exclusiveMinimum: true }, 'the schema itself is left as it was');
    // A list's items too (Run Tool as Task's form, not the JSON box).
    const counts = tool({ type: 'array', items: schema });
    assert.equal(counts.kind, 'list');
    assert.deepEqual(counts.item?.constraints, { exclusiveMinimum: 0 });
    assert.equal(checkValue(counts, [1, 0]), 'Value 2: Enter a whole number greater than 0');
    refused(form({ f: { type: 'number', minimum: 0, exclusiveMinimum: true } }), /property "f"\.exclusiveMinimum: expected number/);
  });

  it('offers a number enum, and a const, as a single pick of those values, sent as they are (numbers as numbers)', () => {
    const prio = one({ type: 'integer', enum: [1, 2, 3], default: 2 });
    assert.equal(prio.kind, 'single-select');
    assert.deepEqual(prio.options, [{ value: 1, label: '1' }, { value: 2, label: '2' }, { value: 3, label: '3' }]);
    assert.equal(prio.default, 2);
    assert.deepEqual(one({ type: 'number', const: 2.5 }).options, [{ value: 2.5, label: '2.5' }]);
    const kind = { type: 'string', const: 'x' };
    assert.deepEqual(one(kind).options, [{ value: 'x', label: 'x' }]);
    assert.deepEqual(kind, { type: 'string', const: 'x' }, 'the schema itself is left as it was');
    refused(form({ f: { type: 'integer', enum: [1, 2], default: 7 } }), /the default 7 does not fit its own schema/);
    // A const that a form would not keep to: left to the JSON box (tools) or refused (a server's question).
    refused(form({ f: { type: 'boolean', const: true } }), /property "f" has a "const" this form cannot offer/);
    refused(form({ f: { type: 'array', items: { enum: ['a'] }, const: ['a'] } }), /property "f" has a "const" this form cannot offer/);
  });

  it('plans a boolean with its default', () => {
    const b = one({ type: 'boolean', title: 'Agree', default: false });
    assert.equal(b.kind, 'boolean');
    assert.equal(b.default, false);
  });

  it('plans all three single-select enum styles with value and label', () => {
    const plain = one({ type: 'string', enum: ['Red', 'Green'], default: 'Red' });
    assert.equal(plain.kind, 'single-select');
    assert.deepEqual(plain.options, [{ value: 'Red', label: 'Red' }, { value: 'Green', label: 'Green' }]);
    assert.equal(plain.default, 'Red');
    const titled = one({ type: 'string', oneOf: [{ const: '#f00', title: 'Red' }, { const: '#0f0', title: 'Green' }], default: '#0f0' });
    assert.deepEqual(titled.options, [{ value: '#f00', label: 'Red' }, { value: '#0f0', label: 'Green' }]);
    assert.equal(titled.default, '#0f0');
    const legacy = one({ type: 'string', enum: ['pet-1', 'pet-2'], enumNames: ['Cats', 'Dogs'] });
    assert.deepEqual(legacy.options, [{ value: 'pet-1', label: 'Cats' }, { value: 'pet-2', label: 'Dogs' }]);
    assert.equal(legacy.kind, 'single-select');
  });

  it('a multi-select of 120,000 choices, all of them defaults, is checked in one pass over each (a search per value took over 30 s of the host)', () => {
    const values = Array.from({ length: 120_000 }, (_, i) => `choice-${i}`);
    const step = one({ type: 'array', items: { type: 'string', enum: values }, default: [...values].reverse() });
    assert.equal(step.options!.length, 120_000);
    assert.equal((step.default as string[]).length, 120_000);
    // A default outside the choices is still refused, and the message names twenty of them.
    const r = form({ f: { type: 'array', items: { type: 'string', enum: values }, default: ['choice-1', 'nope'] } });
    refused(r, /the default \["choice-1","nope"\] does not fit its own schema \(Choose from: choice-0, choice-1, .*choice-19, … \(119980 more\)\)$/);
  });

  it('plans both multi-select styles with item bounds and defaults', () => {
    const untitled = one({ type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['Guitar', 'Piano', 'Drums'] }, default: ['Guitar'] });
    assert.equal(untitled.kind, 'multi-select');
    assert.deepEqual(untitled.options?.map((o) => o.value), ['Guitar', 'Piano', 'Drums']);
    assert.deepEqual(untitled.constraints, { minItems: 1, maxItems: 2 });
    assert.deepEqual(untitled.default, ['Guitar']);
    const titled = one({ type: 'array', items: { anyOf: [{ const: 'fish-1', title: 'Tuna' }, { const: 'fish-2', title: 'Salmon' }] } });
    assert.deepEqual(titled.options, [{ value: 'fish-1', label: 'Tuna' }, { value: 'fish-2', label: 'Salmon' }]);
    assert.deepEqual(titled.constraints, {});
  });

  it('ignores keywords it does not use ($schema, additionalProperties, the task field)', () => {
    const r = planElicitation({
      message: 'm',
      task: { ttl: 1000 },
      requestedSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false, properties: { a: { type: 'string', examples: ['x'] } } },
    });
    assert.ok(r.ok);
  });
});

describe('elicitation plan: malformed requests are refused with -32602 saying why', () => {
  it('refuses params without a message or with a bad mode', () => {
    refused(planElicitation(undefined), /message/);
    refused(planElicitation({ requestedSchema: { type: 'object', properties: {} } }), /params\.message: expected string/);
    refused(planElicitation({ mode: 'chat', message: 'm' }), /unknown mode "chat"/);
  });

  it('refuses a property whose type is nested 20,000 deep (JSON.parse reads it) by naming the type, cut, not with a stack overflow (found by the fuzzer, seed 9100688)', () => {
    const type: unknown = JSON.parse(`${'['.repeat(20_000)}${']'.repeat(20_000)}`);
    refused(form({ x: { type } }), /^Invalid elicitation request: property "x" has the unsupported type \[{64}"<nested too deeply to show>"\]{64} \(a form shows: /);
  });

  it('refuses a form without a flat object schema', () => {
    refused(planElicitation({ message: 'm' }), /requestedSchema is required/);
    refused(planElicitation({ message: 'm', requestedSchema: { type: 'array', properties: {} } }), /requestedSchema\.type: expected "object"/);
    refused(planElicitation({ message: 'm', requestedSchema: { type: 'object' } }), /requestedSchema\.properties: expected an object/);
    refused(planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: [] } }), /requestedSchema\.properties: expected an object/);
  });

  it('refuses nested objects, unknown types, missing types and non-schema properties, saying what a form shows (the words the JSON box of Run Tool as Task gives as its reason)', () => {
    refused(form({ address: { type: 'object', properties: { street: { type: 'string' } } } }), /property "address" is a nested object: a form shows only flat objects of primitive properties$/);
    refused(form({ x: { type: 'null' } }), /property "x" has the unsupported type "null"/);
    refused(form({ x: { title: 'no type' } }), /property "x" has no type/);
    refused(form({ x: 'string' }), /property "x" is not a schema object/);
    refused(form({ x: { type: 'array', items: { type: 'string' } } }), /property "x" is an array whose items list no choices/);
    refused(form({ x: { type: 'array', items: { type: 'object', properties: {} } } }), /property "x" is an array whose items list no choices \(enum or anyOf\): a form shows an array only as a multi-select of listed choices$/);
  });

  it('lists: with { tool: true } (a tool\'s input schema), an array of free strings, numbers or integers is one field of typed values; a server\'s question still refuses it', () => {
    const tool = (properties: Record<string, unknown>, required?: string[]) => planElicitation({ message: 'm', requestedSchema: { type: 'object', properties, required } }, { tool: true });
    const [paths, counts] = steps(tool({ paths: { type: 'array', items: { type: 'string' }, minItems: 1, default: ['a', 'b'] }, counts: { type: 'array', items: { type: 'integer', minimum: 0 } } }, ['paths']));
    assert.equal(paths.kind, 'list');
    assert.equal(paths.required, true);
    assert.deepEqual(paths.default, ['a', 'b']);
    assert.deepEqual(paths.constraints, { minItems: 1 });
    assert.equal(paths.item?.kind, 'string');
    assert.equal(counts.item?.kind, 'integer');
    assert.deepEqual(counts.item?.constraints, { minimum: 0 });
    refused(form({ paths: { type: 'array', items: { type: 'string' } } }), /property "paths" is an array whose items list no choices/);
    // Objects and nested arrays are still left to the JSON box.
    refused(tool({ x: { type: 'array', items: { type: 'object', properties: {} } } }), /property "x.items" is a nested object/);
    refused(tool({ x: { type: 'array', items: { type: 'array', items: { type: 'string' } } } }), /property "x.items"/);
    refused(tool({ x: { type: 'array' } }), /property "x.items" is not a schema object/);
    refused(tool({ x: { type: 'array', items: { type: 'integer' }, default: [1.5] } }), /the default \[1\.5\] does not fit/);
    // Choices stay a multi-select.
    assert.equal(steps(tool({ m: { type: 'array', items: { enum: ['a', 'b'] } } }))[0].kind, 'multi-select');
  });

  it('a tool\'s default that repeats a choice or a value is its own where the schema allows repeats (no uniqueItems); with uniqueItems, or in a server\'s question, it is refused', () => {
    const tool = (properties: Record<string, unknown>) => planElicitation({ message: 'm', requestedSchema: { type: 'object', properties } }, { tool: true });
    const [tags, paths] = steps(tool({ tags: { type: 'array', items: { enum: ['a', 'b'] }, default: ['a', 'a'] }, paths: { type: 'array', items: { type: 'string' }, default: ['x', 'x'] } }));
    assert.deepEqual(tags.default, ['a', 'a']);
    assert.deepEqual(paths.default, ['x', 'x']);
    refused(tool({ tags: { type: 'array', uniqueItems: true, items: { enum: ['a', 'b'] }, default: ['a', 'a'] } }), /property "tags": the default \["a","a"\] does not fit its own schema \(Choose each option at most once\)/);
    refused(tool({ paths: { type: 'array', uniqueItems: true, items: { type: 'string' }, default: ['x', 'x'] } }), /property "paths": the default \["x","x"\] does not fit its own schema \(Enter each value at most once\)/);
    refused(form({ tags: { type: 'array', items: { enum: ['a', 'b'] }, default: ['a', 'a'] } }), /the default \["a","a"\] does not fit its own schema \(Choose each option at most once\)/);
  });

  it('refuses required naming a missing property', () => {
    refused(form({ a: { type: 'string' } }, ['a', 'b']), /required names "b", which is not a property/);
  });

  it('refuses bad keyword values with the property and keyword named', () => {
    refused(form({ n: { type: 'number', minimum: 'one' } }), /property "n"\.minimum: expected number/);
    refused(form({ s: { type: 'string', minLength: -1 } }), /property "s"\.minLength: expected a number of at least 0/);
    refused(form({ s: { type: 'string', maxLength: 1.5 } }), /property "s"\.maxLength: expected a whole number/);
    refused(form({ s: { type: 'string', format: 'phone' } }), /property "s"\.format: expected "email" or "uri" or "date" or "date-time"/);
    refused(form({ s: { type: 'string', pattern: '([a-z' } }), /pattern "\(\[a-z" is not a valid regular expression/);
    refused(form({ b: { type: 'boolean', default: 'yes' } }), /property "b"\.default: expected boolean/);
  });

  it('refuses min greater than max', () => {
    refused(form({ s: { type: 'string', minLength: 5, maxLength: 2 } }), /minLength 5 is greater than maxLength 2/);
    refused(form({ n: { type: 'integer', minimum: 10, maximum: 1 } }), /minimum 10 is greater than maximum 1/);
    refused(form({ m: { type: 'array', minItems: 3, maxItems: 1, items: { enum: ['a', 'b', 'c'] } } }), /minItems 3 is greater than maxItems 1/);
    refused(form({ m: { type: 'array', minItems: 3, items: { enum: ['a', 'b'] } } }), /at least 3 of only 2 choices/);
  });

  it('refuses bad enums', () => {
    refused(form({ e: { type: 'string', enum: [] } }), /property "e"\.enum: expected at least 1 item/);
    refused(form({ e: { type: 'string', enum: ['a', 1] } }), /property "e"\.enum\.1: expected string/);
    refused(form({ e: { type: 'string', enum: ['a', 'a'] } }), /lists the choice "a" twice/);
    refused(form({ e: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } }), /1 enumNames for 2 enum values/);
    refused(form({ e: { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] } }), /both enum and oneOf/);
    refused(form({ e: { type: 'string', oneOf: [{ const: 'a' }] } }), /property "e"\.oneOf\.0\.title: expected string/);
    refused(form({ m: { type: 'array', items: { anyOf: [{ const: 'x', title: 'X' }, { const: 'x', title: 'Y' }] } } }), /lists the choice "x" twice/);
  });

  it('refuses defaults that break their own schema', () => {
    refused(form({ e: { type: 'string', enum: ['a', 'b'], default: 'c' } }), /property "e": the default "c" does not fit/);
    refused(form({ n: { type: 'integer', maximum: 100, default: 200 } }), /default 200 does not fit its own schema \(Enter a whole number of at most 100\)/);
    refused(form({ n: { type: 'integer', default: 1.5 } }), /default 1.5/);
    refused(form({ s: { type: 'string', format: 'email', default: 'nope' } }), /default "nope"/);
    refused(form({ m: { type: 'array', maxItems: 1, items: { enum: ['a', 'b'] }, default: ['a', 'b'] } }), /default \["a","b"\]/);
  });

  it('refuses a property named __proto__ and forms with too many fields', () => {
    refused(planElicitation(JSON.parse('{"message":"m","requestedSchema":{"type":"object","properties":{"__proto__":{"type":"string"}}}}')), /"__proto__" is not allowed/);
    const many = Object.fromEntries(Array.from({ length: MAX_FIELDS + 1 }, (_, i) => [`f${i}`, { type: 'string' }]));
    refused(form(many), new RegExp(`${MAX_FIELDS + 1} properties; at most ${MAX_FIELDS}`));
  });
});

describe('elicitation plan: URL mode', () => {
  const url = (u: unknown, extra: Record<string, unknown> = {}) => planElicitation({ mode: 'url', message: 'Sign in to Example', elicitationId: 'e-1', url: u, ...extra });

  it('plans the message, url, id and the full host as the domain', () => {
    const r = url('https://auth.example.com:8443/connect?elicitationId=e-1');
    assert.ok(r.ok && r.mode === 'url');
    assert.deepEqual(r as UrlPlan, { ok: true, mode: 'url', message: 'Sign in to Example', url: 'https://auth.example.com:8443/connect?elicitationId=e-1', elicitationId: 'e-1', domain: 'auth.example.com:8443', warnings: [] });
  });

  it('shows internationalized domains in punycode and warns about them', () => {
    const r = url('https://exаmple.com/login'); // Cyrillic "а"
    assert.ok(r.ok && r.mode === 'url');
    assert.equal(r.domain, 'xn--exmple-4nf.com');
    assert.match(r.warnings.join(), /punycode/);
  });

  it('warns about plain http except on loopback', () => {
    const r = url('http://example.com/x');
    assert.ok(r.ok && r.mode === 'url');
    assert.match(r.warnings.join(), /not encrypted/);
    const local = url('http://127.0.0.1:3000/x');
    assert.ok(local.ok && local.mode === 'url');
    assert.deepEqual(local.warnings, []);
  });

  it('refuses non-http(s) urls, unparsable urls, credentials, and a missing url or id', () => {
    refused(url('javascript:alert(1)'), /url must be http or https, not javascript/);
    refused(url('file:///etc/passwd'), /not file/);
    refused(url('not a url'), /url "not a url" is not a valid URL/);
    refused(url('https://bank.example@evil.example/'), /must not carry a user name or password/);
    refused(url(undefined), /url is required in url mode/);
    refused(url('https://example.com', { elicitationId: undefined }), /elicitationId is required/);
    refused(url('https://example.com', { elicitationId: '' }), /params\.elicitationId: must not be empty/);
  });

  it('refuses URL mode when the client did not declare it', () => {
    refused(planElicitation({ mode: 'url', message: 'm', elicitationId: 'e', url: 'https://example.com' }, { url: false }), /mode "url" is not supported/);
  });
});
