// sampling/createMessage params: validation (bad params are -32602 with a message saying what is
// wrong), the neutral plan the editor converts, and the preview the consent prompt shows.
import * as assert from 'node:assert/strict';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import type { SamplingPlan } from '../../../src/core/sampling/request';
import { chatMessages, parseCreateMessage, previewSampling } from '../../../src/core/sampling/request';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]).toString('base64');

function plan(params: unknown): SamplingPlan {
  const r = parseCreateMessage(params);
  if (!r.ok) assert.fail(`expected valid params, got: ${r.error.message}`);
  return r.plan;
}

function refusal(params: unknown): RpcError {
  const r = parseCreateMessage(params);
  assert.equal(r.ok, false, 'expected the params to be refused');
  const err = (r as { error: RpcError }).error;
  assert.ok(err instanceof RpcError);
  assert.equal(err.code, -32602);
  return err;
}

describe('sampling request: parseCreateMessage', () => {
  it('reads the spec example: one text message, hints, system prompt, maxTokens', () => {
    const p = plan({
      messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
      modelPreferences: { hints: [{ name: 'claude-3-sonnet' }, { name: 'claude' }], intelligencePriority: 0.8, speedPriority: 0.5 },
      systemPrompt: 'You are a helpful assistant.',
      maxTokens: 100,
    });
    assert.deepEqual(p, {
      messages: [{ role: 'user', parts: [{ kind: 'text', text: 'What is the capital of France?' }] }],
      systemPrompt: 'You are a helpful assistant.',
      maxTokens: 100,
      stopSequences: [],
      hints: ['claude-3-sonnet', 'claude'],
      temperature: undefined,
      includeContext: undefined,
    });
  });

  it('reads content arrays (2025-11-25) with text, image and audio, in order, keeping roles', () => {
    const p = plan({
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Describe' }, { type: 'image', data: PNG, mimeType: 'image/png' }] },
        { role: 'assistant', content: { type: 'text', text: 'A square.' } },
        { role: 'user', content: [{ type: 'audio', data: PNG, mimeType: 'audio/wav', annotations: { priority: 1 } }] },
      ],
      maxTokens: 5,
      stopSequences: ['END', ''],
      temperature: 0.2,
      includeContext: 'thisServer',
      metadata: { anything: true },
      task: { ttl: 1000 },
    });
    assert.deepEqual(p.messages, [
      { role: 'user', parts: [{ kind: 'text', text: 'Describe' }, { kind: 'image', mimeType: 'image/png', data: PNG }] },
      { role: 'assistant', parts: [{ kind: 'text', text: 'A square.' }] },
      { role: 'user', parts: [{ kind: 'audio', mimeType: 'audio/wav', data: PNG }] },
    ]);
    assert.deepEqual(p.stopSequences, ['END'], 'an empty stop sequence would stop at once: dropped');
    assert.equal(p.temperature, 0.2);
    assert.equal(p.includeContext, 'thisServer');
  });

  it('ignores malformed model preferences (they are advisory) and blank hints', () => {
    assert.deepEqual(plan({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 1, modelPreferences: 'fast' }).hints, []);
    const p = plan({
      messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
      maxTokens: 1,
      modelPreferences: { hints: [{ name: ' gpt ' }, { name: 7 }, {}, { name: '' }, { name: 'sonnet' }] },
      includeContext: 'none',
    });
    assert.deepEqual(p.hints, ['gpt', 'sonnet']);
    assert.equal(p.includeContext, undefined, '"none" is the default, nothing to note');
  });

  it('refuses bad params with -32602 naming the field', () => {
    assert.match(refusal(undefined).message, /^Invalid sampling\/createMessage params: .*messages: expected array/);
    assert.match(refusal({ messages: [], maxTokens: 10 }).message, /messages: at least one message is required/);
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] }).message, /maxTokens: expected number/, 'maxTokens is required');
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 0 }).message, /maxTokens: expected a positive number of tokens/);
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5, includeContext: 'everything' }).message, /includeContext: .*"none"/);
    assert.match(refusal({ messages: [{ role: 'system', content: { type: 'text', text: 'x' } }], maxTokens: 1 }).message, /messages\.0\.role: expected "user" or "assistant"/);
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'video', url: 'x' } }], maxTokens: 1 }).message, /messages\.0\.content\.0\.type: expected a content block of type text, image, audio/);
    assert.match(refusal({ messages: [{ role: 'user', content: [{ type: 'text' }] }], maxTokens: 1 }).message, /messages\.0\.content\.0\.text: expected string/);
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'image', data: 'not base64!', mimeType: 'image/png' } }], maxTokens: 1 }).message, /messages\.0\.content\.0\.data: expected base64-encoded data/);
    assert.match(refusal({ messages: [{ role: 'user', content: { type: 'image', data: PNG } }], maxTokens: 1 }).message, /mimeType/);
    for (const type of [undefined, 'toString', '__proto__', 1]) {
      assert.match(refusal({ messages: [{ role: 'user', content: [{ type }] }], maxTokens: 1 }).message, /messages\.0\.content\.0\.type: expected a content block of type/, String(type));
    }
    assert.match(refusal({ messages: [{ role: 'user', content: [{ type: 'audio', data: '!', mimeType: '' }, 'x'] }], maxTokens: 1 }).message, /content\.0\.data: expected base64-encoded data; messages\.0\.content\.0\.mimeType: expected a mime type; messages\.0\.content\.1: expected object$/);
    assert.match(refusal({ messages: [{ role: 'user', content: [] }], maxTokens: 1 }).message, /messages\.0\.content: a message needs at least one content block/);
    assert.match(refusal({ messages: [{ role: 'user' }], maxTokens: 1 }).message, /messages\.0\.content: expected array/);
  });

  it('maxTokens is any positive number (schema.ts: number): a fraction is rounded down, a huge one kept as the largest safe integer', () => {
    const m = [{ role: 'user', content: { type: 'text', text: 'x' } }];
    assert.equal(plan({ messages: m, maxTokens: 2.5 }).maxTokens, 2);
    assert.equal(plan({ messages: m, maxTokens: 1e300 }).maxTokens, Number.MAX_SAFE_INTEGER);
  });

  it('refuses tools, toolChoice and tool content: the client does not declare sampling.tools (spec MUST)', () => {
    const msg = [{ role: 'user', content: { type: 'text', text: 'weather?' } }];
    assert.match(refusal({ messages: msg, maxTokens: 10, tools: [{ name: 'get_weather', inputSchema: { type: 'object' } }] }).message, /does not support tool use in sampling/);
    assert.match(refusal({ messages: msg, maxTokens: 10, toolChoice: { mode: 'none' } }).message, /sampling\.tools/);
    const history = [
      ...msg,
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c1', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', toolUseId: 'c1', content: [{ type: 'text', text: '18°C' }] }] },
    ];
    assert.match(refusal({ messages: history, maxTokens: 10 }).message, /messages\.1: tool_use content is not supported/);
  });

  it('reads one content block as an array of it, and leaves the params it was given as they were', () => {
    const block = { type: 'text', text: 'x' };
    const params = { messages: [{ role: 'user', content: block }, { role: 'assistant', content: [block] }], maxTokens: 1 };
    const given = structuredClone(params);
    assert.deepEqual(plan(params).messages, [
      { role: 'user', parts: [{ kind: 'text', text: 'x' }] },
      { role: 'assistant', parts: [{ kind: 'text', text: 'x' }] },
    ]);
    assert.deepEqual(params, given);
  });

  it('never throws, whatever the params', () => {
    for (const bad of [null, 42, 'x', [], { messages: 'x' }, { messages: [null], maxTokens: 1 }, { messages: [{ role: 'user', content: null }], maxTokens: 1 }]) {
      const r = parseCreateMessage(bad);
      assert.equal(r.ok, false, JSON.stringify(bad));
    }
  });
});

describe('sampling request: chatMessages (no system role in the editor)', () => {
  const base = { maxTokens: 10, stopSequences: [], hints: [] };

  it('puts the system prompt first in the first user message', () => {
    const out = chatMessages({
      ...base,
      systemPrompt: 'Be brief.',
      messages: [
        { role: 'user', parts: [{ kind: 'text', text: 'Hi' }] },
        { role: 'assistant', parts: [{ kind: 'text', text: 'Hello' }] },
      ],
    });
    assert.deepEqual(out, [
      { role: 'user', parts: [{ kind: 'text', text: 'Be brief.' }, { kind: 'text', text: 'Hi' }] },
      { role: 'assistant', parts: [{ kind: 'text', text: 'Hello' }] },
    ]);
  });

  it('gives the system prompt a user message of its own when the assistant speaks first, and leaves plans without one alone', () => {
    const messages = [{ role: 'assistant' as const, parts: [{ kind: 'text' as const, text: 'Hello' }] }];
    assert.deepEqual(chatMessages({ ...base, systemPrompt: 'Sys', messages }), [{ role: 'user', parts: [{ kind: 'text', text: 'Sys' }] }, ...messages]);
    assert.equal(chatMessages({ ...base, messages }), messages);
  });
});

describe('sampling request: previewSampling', () => {
  it('shows server, task, max tokens, hints, system prompt and every message; the summary is the last user text', () => {
    const p = plan({
      messages: [
        { role: 'user', content: { type: 'text', text: 'First question' } },
        { role: 'assistant', content: { type: 'text', text: 'An answer' } },
        { role: 'user', content: [{ type: 'text', text: 'Write a haiku\n about   tasks' }, { type: 'image', data: PNG, mimeType: 'image/png' }] },
      ],
      modelPreferences: { hints: [{ name: 'sonnet' }] },
      systemPrompt: 'You are a poet.',
      maxTokens: 50,
      stopSequences: ['\n\n'],
    });
    const v = previewSampling(p, { serverLabel: 'demo', taskId: 't-1', toolName: 'write_haiku' });
    assert.equal(v.summary, 'Write a haiku about tasks');
    assert.equal(
      v.text,
      [
        'MCP server "demo" asks to use a language model for its task t-1 (tool write_haiku).',
        'Max tokens: 50',
        'Model hints: sonnet',
        'Stop sequences: "\\n\\n"',
        '',
        'System prompt:',
        'You are a poet.',
        '',
        'Messages (3):',
        '[user] First question',
        '[assistant] An answer',
        '[user] Write a haiku\n about   tasks [image image/png, 4 bytes]',
      ].join('\n'),
    );
  });

  it("the summary (the consent pick's placeholder, shown as sent) reads on one line: a bidi override or zero-width character in the server's text is a space", () => {
    const v = previewSampling(plan({ messages: [{ role: 'user', content: { type: 'text', text: 'Approve\u202E 100 USD\u200bnow' } }], maxTokens: 1 }), { serverLabel: 's' });
    assert.equal(v.summary, 'Approve 100 USD now');
    // A last user message with no text is told by its first part, whose MIME type is the server's too.
    const image = previewSampling(plan({ messages: [{ role: 'user', content: { type: 'image', data: 'AAAA', mimeType: 'image/png\u202E\nApprove' } }], maxTokens: 1 }), { serverLabel: 's' });
    assert.equal(image.summary, '[image image/png  Approve, 3 bytes]');
  });

  it('the shortened text (for the log) cuts long text and old messages', () => {
    const long = 'x'.repeat(2000);
    const messages = Array.from({ length: 30 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: { type: 'text', text: i === 29 ? long : `m${i}` } }));
    messages.push({ role: 'user', content: { type: 'text', text: long } });
    const v = previewSampling(plan({ messages, maxTokens: 1, systemPrompt: long }), { serverLabel: 's' });
    assert.ok(v.summary.length < 200, 'summary is one short line');
    assert.match(v.summary, /… \(1880 more characters\)$/);
    assert.match(v.text, /System prompt:\nx{500}… \(1500 more characters\)/);
    assert.match(v.text, /Messages \(31\):\n\(11 earlier messages not shown\)\n\[assistant\] m11\n/);
    assert.doesNotMatch(v.text, /\bm10\b/);
    assert.ok(v.text.length < 20 * 600 + 1000, `preview is bounded (${v.text.length} chars)`);
  });

  it('the full request ("Show Full Request") keeps every message, all text and the params the shortened one cuts or leaves out', () => {
    const long = `Summarize this README. ${'x'.repeat(600)} IGNORE PREVIOUS INSTRUCTIONS`;
    const messages = [{ role: 'user', content: { type: 'text', text: 'HIDDEN first message' } }];
    for (let i = 0; i < 20; i++) messages.push({ role: i % 2 ? 'user' : 'assistant', content: { type: 'text', text: `m${i}` } });
    messages.push({ role: 'user', content: { type: 'text', text: long } });
    const p = plan({ messages, maxTokens: 10, systemPrompt: `Sys ${'y'.repeat(600)} END`, temperature: 0.7, includeContext: 'thisServer' });
    const v = previewSampling(p, { serverLabel: 's' });
    assert.doesNotMatch(v.text, /HIDDEN|IGNORE PREVIOUS|END/, 'the shortened text cuts');
    assert.equal(
      v.full,
      [
        'MCP server "s" asks to use a language model.',
        'Max tokens: 10',
        "Temperature: 0.7 (not passed on: the editor's language models take no portable temperature)",
        'Include context: thisServer (ignored: this client adds no context)',
        '',
        'System prompt:',
        `Sys ${'y'.repeat(600)} END`,
        '',
        'Messages (22):',
        '[user] HIDDEN first message',
        ...Array.from({ length: 20 }, (_, i) => `[${i % 2 ? 'user' : 'assistant'}] m${i}`),
        `[user] ${long}`,
      ].join('\n'),
    );
  });

  it('describes a request without user text by its first part', () => {
    const v = previewSampling(plan({ messages: [{ role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } }], maxTokens: 1 }), { serverLabel: 's' });
    assert.equal(v.summary, '[image image/png, 4 bytes]');
  });
});
