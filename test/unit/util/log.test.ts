// Joining a reason to more text in one log line or message.
import * as assert from 'node:assert/strict';
import { itsTasksEnd, liveWork, sentence, truncate } from '../../../src/core/util/log';
import { shorten } from '../../../src/core/sampling/request';
import { summarizeInputs } from '../../../src/core/api/lmFormat';

describe('cutting text for a row, a tooltip, a prompt or a model', () => {
  it('never splits an emoji (a surrogate pair): it goes whole, and the count of what is left out says so', () => {
    const text = `${'x'.repeat(9)}😀 and more`;
    assert.equal(truncate(text, 10), `${'x'.repeat(9)}… (11 more chars)`);
    assert.equal(truncate(text, 11), `${'x'.repeat(9)}😀… (9 more chars)`);
    assert.equal(shorten(text, 10), `${'x'.repeat(9)}… (11 more characters)`);
    // A tool's input description as the chat tools give it to a model: 400 characters, the last an ellipsis.
    assert.equal(summarizeInputs({ properties: { a: { description: `${'x'.repeat(398)}😀😀` } } })[0]?.description, `${'x'.repeat(398)}…`);
  });
});

describe('sentence', () => {
  it('ends a reason with one full stop, so the next sentence can follow it: never ".;" or ".."', () => {
    assert.equal(sentence('Server process was killed by SIGKILL'), 'Server process was killed by SIGKILL.');
    assert.equal(sentence('command not found. Check "command" in the server\'s configuration, and that it is on the PATH.'), 'command not found. Check "command" in the server\'s configuration, and that it is on the PATH.');
    assert.equal(sentence('Is it running? '), 'Is it running?');
    assert.equal(sentence('a line cut short…'), 'a line cut short…');
    assert.equal(sentence('it answered (HTTP 400)'), 'it answered (HTTP 400).');
  });
});

describe('liveWork, itsTasksEnd: what a server waits for', () => {
  const w = (tasks: number, calls: number, results = 0) => ({ tasks, calls, results });
  it('names direct calls as calls, not tasks (the view\'s "new configuration waits for ...", a removed server\'s row)', () => {
    assert.deepEqual(
      [w(1, 0), w(2, 0), w(0, 1), w(0, 2), w(2, 1)].map((x) => liveWork(x)),
      ['1 task', '2 tasks', '1 call', '2 calls', '2 tasks and 1 call'],
    );
    assert.equal(liveWork(w(1, 2), true), '1 live task and 2 running calls');
  });

  it('"its ... ends": one thing without its number, more with theirs', () => {
    assert.deepEqual(
      [w(1, 0), w(3, 0), w(0, 1), w(1, 1), w(2, 1)].map((x) => itsTasksEnd(x)),
      ['its live task ends', 'its 3 live tasks end', 'its running call ends', 'its 1 live task and 1 running call end', 'its 2 live tasks and 1 running call end'],
    );
    assert.deepEqual([itsTasksEnd(w(1, 0), false), itsTasksEnd(w(0, 2), false)], ['its task ends', 'its 2 calls end']);
  });

  it("an ended task whose result is still to fetch is waited for as a task's result, not as a task that ends", () => {
    assert.deepEqual(
      [w(0, 0, 1), w(0, 0, 2), w(1, 0, 1), w(2, 1, 1)].map((x) => liveWork(x)),
      ["1 task's result", "2 tasks' results", "1 task and 1 task's result", "2 tasks, 1 call and 1 task's result"],
    );
    assert.deepEqual(
      [w(0, 0, 1), w(0, 0, 2), w(1, 0, 1), w(2, 1, 2)].map((x) => itsTasksEnd(x)),
      ["its task's result is fetched", "its 2 tasks' results are fetched", "its 1 live task ends, and 1 task's result is fetched", "its 2 live tasks and 1 running call end, and 2 tasks' results are fetched"],
    );
    assert.equal(itsTasksEnd(w(0, 0, 1), false), "its task's result is fetched");
  });

  it('writes its counts as the locale does (a server row\'s "new configuration waits for 1,000 live tasks" and its tooltip)', () => {
    assert.notEqual((1000).toLocaleString(), '1000', 'a locale that groups thousands (else this test cannot fail)');
    const [k, m] = [(1000).toLocaleString(), (2500).toLocaleString()];
    assert.equal(liveWork(w(1000, 2500, 1000), true), `${k} live tasks, ${m} running calls and ${k} tasks' results`);
    assert.equal(itsTasksEnd(w(2500, 0)), `its ${m} live tasks end`);
  });
});
