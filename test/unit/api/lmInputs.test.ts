import * as assert from 'node:assert/strict';
import {
  MAX_TTL_SECONDS,
  MAX_WAIT_SECONDS,
  ToolInputError,
  readCancelTaskInput,
  readGetResultInput,
  readGetTaskInput,
  readListToolsInput,
  readStartTaskInput,
} from '../../../src/core/api/lmInputs';

/** Asserts that reading fails with a ToolInputError whose message matches. */
function refuses(read: () => unknown, message: RegExp): void {
  assert.throws(read, (err: unknown) => err instanceof ToolInputError && message.test(err.message));
}

describe('language-model tool inputs', () => {
  it('mcpTasks_listTools takes nothing or a server name', () => {
    assert.deepEqual(readListToolsInput(undefined), {});
    assert.deepEqual(readListToolsInput({ server: null }), {});
    assert.deepEqual(readListToolsInput({ server: ' demo ' }), { server: 'demo' });
    refuses(() => readListToolsInput({ server: 3 }), /"server" must be a non-empty string/);
    // Models often fill an optional text with an empty string: it is left out.
    assert.deepEqual(readListToolsInput({ server: '  ' }), {});
    assert.deepEqual(readListToolsInput({ server: '' }), {});
    refuses(() => readListToolsInput('demo'), /the input must be a JSON object with the properties server/);
    refuses(() => readListToolsInput([]), /must be a JSON object/);
  });

  it('mcpTasks_startTask needs server and tool; arguments default to {} and may come as a JSON string', () => {
    assert.deepEqual(readStartTaskInput({ server: 'everything', tool: 'simulate-research-query', arguments: { topic: 'tides' } }), {
      server: 'everything',
      tool: 'simulate-research-query',
      arguments: { topic: 'tides' },
    });
    assert.deepEqual(readStartTaskInput({ server: 's', tool: 't' }).arguments, {});
    assert.deepEqual(readStartTaskInput({ server: 's', tool: 't', arguments: '{"a":1}' }).arguments, { a: 1 });
    assert.equal(readStartTaskInput({ server: 's', tool: 't', ttlSeconds: 90 }).ttlSeconds, 90);
    refuses(() => readStartTaskInput({ tool: 't' }), /mcpTasks_startTask: "server" is required/);
    refuses(() => readStartTaskInput({ server: 's' }), /"tool" is required/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', arguments: [1] }), /"arguments" must be a JSON object/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', arguments: 'topic=tides' }), /"arguments" must be a JSON object: the tool's arguments/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', arguments: '[1]' }), /"arguments" must be a JSON object/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', ttlSeconds: 0 }), /"ttlSeconds" must be from 1 to 604800/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', ttlSeconds: '60' }), /"ttlSeconds" must be a number/);
    refuses(() => readStartTaskInput({ server: 's', tool: 't', ttlSeconds: MAX_TTL_SECONDS + 1 }), /must be from 1 to 604800 \(a week\)/);
  });

  it('an unknown property is named, with the allowed ones (a typo like "args" is caught)', () => {
    refuses(() => readStartTaskInput({ server: 's', tool: 't', args: {} }), /unknown property "args"; allowed: server, tool, arguments, ttlSeconds/);
    // A model that puts the tool's inputs beside server and tool is told where they go.
    refuses(() => readStartTaskInput({ server: 's', tool: 't', topic: 'tides' }), /^mcpTasks_startTask: unknown property "topic"; allowed: server, tool, arguments, ttlSeconds \(the tool's own inputs go inside "arguments"\)\.$/);
    refuses(() => readGetResultInput({ taskId: 'x', topic: 'tides' }), /^mcpTasks_getResult: unknown property "topic"; allowed: taskId, server, waitSeconds\.$/);
    refuses(() => readGetResultInput({ taskId: 'x', wait: 5, timeout: 1 }), /unknown properties "wait", "timeout"/);
  });

  it('mcpTasks_getTask: the task id is optional (without it, the tasks are listed)', () => {
    assert.deepEqual(readGetTaskInput({}), {});
    assert.deepEqual(readGetTaskInput({ taskId: 'abc', server: 'demo' }), { taskId: 'abc', server: 'demo' });
    // A task id that looks like a number ("42") is now and then sent as one: read as its string.
    assert.deepEqual(readGetTaskInput({ taskId: 42 }), { taskId: '42' });
    assert.deepEqual(readCancelTaskInput({ taskId: 0 }), { taskId: '0' });
    refuses(() => readGetResultInput({ taskId: Number.POSITIVE_INFINITY }), /"taskId" must be a non-empty string/);
    refuses(() => readGetTaskInput({ taskId: true }), /"taskId" must be a non-empty string/);
    assert.deepEqual(readGetTaskInput({ taskId: '', server: '' }), {}, 'empty optional texts: the tasks are listed');
    assert.deepEqual(readGetResultInput({ taskId: 'abc', server: '' }), { taskId: 'abc', waitSeconds: 0, waitCapped: false });
    refuses(() => readGetResultInput({ taskId: '' }), /"taskId" must be a non-empty string/);
  });

  it('mcpTasks_getResult: waitSeconds defaults to 0 and is capped', () => {
    assert.deepEqual(readGetResultInput({ taskId: 'abc' }), { taskId: 'abc', waitSeconds: 0, waitCapped: false });
    assert.deepEqual(readGetResultInput({ taskId: 'abc', waitSeconds: 30 }).waitSeconds, 30);
    const long = readGetResultInput({ taskId: 'abc', waitSeconds: 100_000 });
    assert.equal(long.waitSeconds, MAX_WAIT_SECONDS);
    assert.equal(long.waitCapped, true);
    refuses(() => readGetResultInput({ waitSeconds: 5 }), /"taskId" is required: the taskId that mcpTasks_startTask returned/);
    refuses(() => readGetResultInput({ taskId: 'abc', waitSeconds: -1 }), /"waitSeconds" must be a number of seconds, 0 or more/);
    refuses(() => readGetResultInput({ taskId: 'abc', waitSeconds: Number.NaN }), /"waitSeconds"/);
  });

  it('mcpTasks_cancelTask needs a task id', () => {
    assert.deepEqual(readCancelTaskInput({ taskId: ' t1 ' }), { taskId: 't1' });
    refuses(() => readCancelTaskInput({}), /mcpTasks_cancelTask: "taskId" is required/);
    refuses(() => readCancelTaskInput(null), /"taskId" is required/);
  });
});
