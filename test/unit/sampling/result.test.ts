// The answer: collected from a stream, cut at a stop sequence or at maxTokens (measured with the
// model's tokenizer), and returned as a CreateMessageResult.
import * as assert from 'node:assert/strict';
import { CompletionCollector, buildCreateMessageResult } from '../../../src/core/sampling/result';

/** A tokenizer where every word is a token, counting its calls. */
function words() {
  const calls: string[] = [];
  const count = (text: string) => {
    calls.push(text);
    return Promise.resolve(text.split(/\s+/).filter(Boolean).length);
  };
  return { calls, count };
}

async function feed(c: CompletionCollector, chunks: string[]): Promise<number> {
  let n = 0;
  for (const chunk of chunks) {
    n++;
    if (await c.add(chunk)) break;
  }
  return n;
}

describe('sampling result: CompletionCollector', () => {
  it('collects the whole answer with stopReason endTurn when nothing stops it', async () => {
    const c = new CompletionCollector({ maxTokens: 100, countTokens: words().count });
    assert.equal(await feed(c, ['The capital ', 'of France ', '', 'is Paris.']), 4);
    assert.equal(c.text, 'The capital of France is Paris.');
    assert.equal(c.stopReason, 'endTurn');
    assert.equal(c.done, false);
  });

  it('cuts at a stop sequence, even one split across chunks, and asks to stop', async () => {
    const c = new CompletionCollector({ maxTokens: 100, stopSequences: ['###', 'never'] });
    assert.equal(await feed(c, ['alpha #', '#', '# beta', 'gamma']), 3, 'stops at the chunk that completes it');
    assert.equal(c.text, 'alpha ');
    assert.equal(c.stopReason, 'stopSequence');
    assert.equal(await c.add('more'), true, 'nothing is added after the stop');
    assert.equal(c.text, 'alpha ');
  });

  it('takes the earliest of several stop sequences within one chunk', async () => {
    const c = new CompletionCollector({ maxTokens: 100, stopSequences: ['B', 'A'] });
    await feed(c, ['xxAyyBzz']);
    assert.equal(c.text, 'xx');
  });

  it('stops at exactly maxTokens and trims an overshooting chunk to fit', async () => {
    const t = words();
    const c = new CompletionCollector({ maxTokens: 5, countTokens: t.count });
    const n = await feed(c, ['one two ', 'three ', 'four five six seven ', 'eight']);
    assert.equal(n, 3);
    assert.equal(c.stopReason, 'maxTokens');
    assert.equal(await t.count(c.text), 5);
    assert.match(c.text, /^one two three four five ?$/);
  });

  it('never cuts at maxTokens inside a code point: an emoji stays whole or goes', async () => {
    // A tokenizer counting UTF-16 units: 3 tokens end inside the emoji's surrogate pair.
    const units = new CompletionCollector({ maxTokens: 3, countTokens: async (t) => t.length });
    await units.add('ab😀cd');
    assert.equal(units.text, 'ab');
    assert.equal(units.stopReason, 'maxTokens');
    const codePoints = new CompletionCollector({ maxTokens: 3, countTokens: async (t) => [...t].length });
    await codePoints.add('ab😀cd');
    assert.equal(codePoints.text, 'ab😀');
    // A chunk that ends inside the pair is counted under budget; the next one overshoots.
    const split = new CompletionCollector({ maxTokens: 3, countTokens: async (t) => (t.length <= 4 ? 2 : 10) });
    await split.add('abc\ud83d');
    await split.add('\ude00d');
    assert.equal(split.text, 'abc');
    // With the u flag only a lone surrogate is in the category Cs.
    for (const c of [units, codePoints, split]) assert.doesNotMatch(c.text, /\p{Cs}/u, JSON.stringify(c.text));
  });

  it('stops with maxTokens when a chunk lands exactly on the budget', async () => {
    const c = new CompletionCollector({ maxTokens: 3, countTokens: words().count });
    assert.equal(await feed(c, ['a ', 'b ', 'c', ' d']), 3);
    assert.equal(c.text, 'a b c');
    assert.equal(c.stopReason, 'maxTokens');
  });

  it('counts tokens rarely: not before the text has as many characters as tokens are left', async () => {
    const t = words();
    const c = new CompletionCollector({ maxTokens: 50, countTokens: t.count });
    for (let i = 0; i < 40; i++) await c.add('w '); // 80 characters, 40 tokens
    assert.equal(c.stopReason, 'endTurn');
    // First count at 50 characters (25 tokens, 25 left), then at 76 (38 tokens).
    assert.deepEqual(t.calls.map((s) => s.length), [50, 76]);
  });

  it('keeps the answer whole when the tokenizer fails, and says why', async () => {
    const c = new CompletionCollector({ maxTokens: 2, countTokens: () => Promise.reject(new Error('no tokenizer')) });
    await feed(c, ['one two three four']);
    assert.equal(c.text, 'one two three four');
    assert.equal(c.stopReason, 'endTurn');
    assert.match(String(c.countError), /no tokenizer/);
  });
});

describe('sampling result: buildCreateMessageResult', () => {
  it('is an assistant text message with the model and the stop reason', () => {
    assert.deepEqual(buildCreateMessageResult('Paris.', 'claude-3-sonnet-20240307', 'endTurn'), {
      role: 'assistant',
      content: { type: 'text', text: 'Paris.' },
      model: 'claude-3-sonnet-20240307',
      stopReason: 'endTurn',
    });
    assert.equal(buildCreateMessageResult('', 'm', 'maxTokens').stopReason, 'maxTokens');
  });
});
