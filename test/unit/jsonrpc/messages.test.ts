import * as assert from 'node:assert/strict';
import { JsonRpcResultResponseSchema, classify, describeIssues } from '../../../src/core/jsonrpc/messages';

const IDS: unknown[] = [1, 0, -3, 2 ** 53 - 1, 2 ** 53, 1e21, 1.5, -0, 'a', '', null, true, {}, [], undefined];
const RESULTS: unknown[] = [{}, { a: 1 }, { content: [] }, [], null, 'x', 0, true, undefined];
const VERSIONS: unknown[] = ['2.0', '1.0', 2, undefined];

/** Result-shaped envelopes as JSON.parse makes them (no method, no error key). */
function envelopes(): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [];
  for (const jsonrpc of VERSIONS) {
    for (const id of IDS) {
      for (const result of RESULTS) {
        const text = JSON.stringify({ jsonrpc, id, result });
        out.push(JSON.parse(text));
        out.push(JSON.parse(text === '{}' ? '{"__proto__":{"x":1}}' : text.replace('{', '{"__proto__":{"x":1},')));
      }
    }
  }
  out.push(JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"__proto__":{"x":1},"ok":true}}'));
  return out;
}

describe('classify: the hand check of responses', () => {
  it('takes as a result exactly what JsonRpcResultResponseSchema accepts, and refuses the rest in its words', () => {
    let results = 0;
    for (const value of envelopes()) {
      const c = classify(value);
      const parsed = JsonRpcResultResponseSchema.safeParse(value);
      assert.equal(c.kind === 'result', parsed.success, `disagree on ${JSON.stringify(value)}`);
      if (parsed.success && c.kind === 'result') {
        results++;
        assert.equal(c.id, parsed.data.id);
        assert.deepEqual({ ...c.result }, { ...parsed.data.result });
      } else if (!parsed.success && 'result' in value) {
        assert.equal(c.kind, 'invalid');
        assert.equal((c as { problem: string }).problem, `invalid response: ${describeIssues(parsed.error)}`);
      }
    }
    assert.ok(results > 10);
  });

  it('sends a response that also has method or error through the schemas', () => {
    assert.equal(classify({ jsonrpc: '2.0', id: 1, result: {}, method: 'x' }).kind, 'request');
    // JSON-RPC 2.0 §5: result and error MUST NOT both be included; such an answer is no answer.
    assert.deepEqual(classify({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'm' } }), {
      kind: 'invalid',
      id: 1,
      problem: 'a response with both result and error',
      response: true,
    });
    // schema.ts: JSONRPCErrorResponse.id is optional (a parse error the peer could not tie to a request).
    assert.deepEqual(classify({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' } }), { kind: 'error', id: null, error: { code: -32700, message: 'Parse error' } });
    const unsafe = classify({ jsonrpc: '2.0', id: 2 ** 53, result: {} });
    assert.equal(unsafe.kind, 'invalid');
  });
});
