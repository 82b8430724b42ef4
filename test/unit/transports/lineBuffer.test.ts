import * as assert from 'node:assert/strict';
import { LineBuffer } from '../../../src/core/transports/lineBuffer';

function feed(buf: LineBuffer, ...chunks: Array<string | Buffer>): { lines: string[]; overflows: number[] } {
  const lines: string[] = [];
  const overflows: number[] = [];
  for (const c of chunks) buf.push(typeof c === 'string' ? Buffer.from(c) : c, (l) => lines.push(l), (n) => overflows.push(n));
  return { lines, overflows };
}

describe('LineBuffer (stdio framing)', () => {
  it('joins a message split across chunks', () => {
    const { lines } = feed(new LineBuffer(), '{"a":', '1', '}\n');
    assert.deepEqual(lines, ['{"a":1}']);
  });

  it('splits several messages joined in one chunk, keeping the unfinished tail', () => {
    const b = new LineBuffer();
    const { lines } = feed(b, '{"a":1}\n{"b":2}\n{"c"');
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
    // The tail, and nothing but the tail, was kept for the line it starts.
    const more = feed(b, ':3}\n');
    assert.deepEqual(more.lines, ['{"c":3}']);
  });

  it('accepts CRLF and skips empty lines', () => {
    const { lines } = feed(new LineBuffer(), '{"a":1}\r\n\n\r\n{"b":2}\n');
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}']);
  });

  it('keeps a multi-byte UTF-8 character split between chunks intact', () => {
    const bytes = Buffer.from('{"t":"héllo €"}\n');
    const cut = bytes.indexOf(0xe2) + 1; // inside the euro sign
    const { lines } = feed(new LineBuffer(), bytes.subarray(0, cut), bytes.subarray(cut));
    assert.deepEqual(lines, ['{"t":"héllo €"}']);
  });

  it('turns invalid UTF-8 into U+FFFD instead of throwing', () => {
    const { lines } = feed(new LineBuffer(), Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]));
    assert.equal(lines.length, 1);
    assert.ok(lines[0].includes('\ufffd'));
  });

  it('reads a huge line (8 MB) delivered in 64 KB chunks', () => {
    const payload = 'x'.repeat(8 * 1024 * 1024);
    const whole = Buffer.from(`{"p":"${payload}"}\n`);
    const b = new LineBuffer();
    const lines: string[] = [];
    for (let i = 0; i < whole.length; i += 65536) b.push(whole.subarray(i, i + 65536), (l) => lines.push(l));
    assert.equal(lines.length, 1);
    assert.equal(lines[0].length, payload.length + 8);
  });

  it('drops a line over the limit without holding it, and reads the next one', () => {
    const b = new LineBuffer(1024);
    const { lines, overflows } = feed(b, 'y'.repeat(800), 'y'.repeat(800), 'y'.repeat(800), '\n{"ok":true}\n');
    assert.deepEqual(lines, ['{"ok":true}']);
    assert.equal(overflows.length, 1);
    // Nothing of the dropped line is held: a line split after it is read whole, with nothing before it.
    assert.deepEqual(feed(b, '{"next"', ':1}\n').lines, ['{"next":1}']);
  });
  it('reads many lines in one chunk, with CRLF, empty lines, multi-byte text and a held start, as line by line', () => {
    const lines = ['{"a":1}', '{"t":"héllo €"}', '', '{"b":2}\r', '{"c":"\u00e9"}'];
    const whole = Buffer.from(lines.join('\n') + '\n{"tail":');
    const expected = ['{"a":1}', '{"t":"héllo €"}', '{"b":2}', '{"c":"\u00e9"}'];
    // Every cut of the stream into two chunks gives the same lines.
    for (let cut = 0; cut <= whole.length; cut++) {
      const b = new LineBuffer();
      const { lines: got } = feed(b, whole.subarray(0, cut), whole.subarray(cut));
      assert.deepEqual(got, expected, `cut at ${cut}`);
      assert.deepEqual(feed(b, '1}\n').lines, ['{"tail":1}']);
    }
  });

  it('drops a line over the limit among others in one chunk, and keeps its neighbours', () => {
    const b = new LineBuffer(16);
    const { lines, overflows } = feed(b, `{"a":1}\n${'z'.repeat(40)}\n{"b":2}\n{"c":`, '3}\n');
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
    assert.deepEqual(overflows, [40]);
  });

  it('turns invalid UTF-8 into U+FFFD alike whether a line comes alone or with others', () => {
    const bad = Buffer.from([0x7b, 0xe2, 0x82, 0x0a]); // a cut euro sign, then the newline
    const alone = feed(new LineBuffer(), bad).lines;
    const together = feed(new LineBuffer(), Buffer.concat([Buffer.from('{}\n'), bad, bad])).lines;
    assert.deepEqual(together, ['{}', alone[0], alone[0]]);
  });
});
