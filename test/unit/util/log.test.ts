// Joining a reason to more text in one log line or message.
import * as assert from 'node:assert/strict';
import { sentence } from '../../../src/core/util/log';

describe('sentence', () => {
  it('ends a reason with one full stop, so the next sentence can follow it: never ".;" or ".."', () => {
    assert.equal(sentence('Server process was killed by SIGKILL'), 'Server process was killed by SIGKILL.');
    assert.equal(sentence('command not found. Check "command" in the server\'s configuration, and that it is on the PATH.'), 'command not found. Check "command" in the server\'s configuration, and that it is on the PATH.');
    assert.equal(sentence('Is it running? '), 'Is it running?');
    assert.equal(sentence('a line cut short…'), 'a line cut short…');
    assert.equal(sentence('it answered (HTTP 400)'), 'it answered (HTTP 400).');
  });
});
