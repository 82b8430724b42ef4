// Which model answers a sampling request: the user's setting, then the server's hints in order
// (substrings of id, family or name), then the editor's first model.
import * as assert from 'node:assert/strict';
import type { ModelInfo } from '../../../src/core/sampling/models';
import { chooseModel } from '../../../src/core/sampling/models';

const m = (id: string, family: string, name = id, vendor = 'v'): ModelInfo => ({ id, family, name, vendor });
const GPT = m('gpt-4o-2024-11-20', 'gpt-4o', 'GPT-4o', 'copilot');
const SONNET = m('claude-3-5-sonnet-20241022', 'claude-3.5-sonnet', 'Claude 3.5 Sonnet', 'copilot');
const HAIKU = m('claude-3-haiku-20240307', 'claude-3-haiku', 'Claude 3 Haiku', 'anthropic');
const MODELS = [GPT, SONNET, HAIKU];

describe('sampling: chooseModel', () => {
  it('takes the first hint that matches, in the server\'s order (spec MUST), as a substring', () => {
    assert.deepEqual(chooseModel(MODELS, ['claude-3-5-sonnet']), { model: SONNET, reason: 'hint "claude-3-5-sonnet"' });
    assert.equal(chooseModel(MODELS, ['sonnet'])?.model, SONNET);
    assert.equal(chooseModel(MODELS, ['haiku', 'sonnet'])?.model, HAIKU, 'first hint wins even if a later one matches an earlier model');
    assert.equal(chooseModel(MODELS, ['gemini-1.5-pro', 'claude'])?.model, SONNET, 'an unmatched hint falls through; "claude" matches the first Claude listed');
  });

  it('matches hints against id, family and name, ignoring case', () => {
    assert.equal(chooseModel(MODELS, ['3-HAIKU'])?.model, HAIKU, 'family/id');
    assert.equal(chooseModel(MODELS, ['claude 3 haiku'])?.model, HAIKU, 'name');
    assert.equal(chooseModel(MODELS, ['GPT-4O'])?.model, GPT);
  });

  it('falls back to the first model when no hint matches or none is given', () => {
    assert.deepEqual(chooseModel(MODELS, ['gemini']), { model: GPT, reason: 'default' });
    assert.deepEqual(chooseModel(MODELS, []), { model: GPT, reason: 'default' });
  });

  it('the user setting (an id or a family) wins over hints when that model is available', () => {
    assert.deepEqual(chooseModel(MODELS, ['sonnet'], 'claude-3-haiku'), { model: HAIKU, reason: 'setting' }, 'family');
    assert.deepEqual(chooseModel(MODELS, ['sonnet'], 'GPT-4O-2024-11-20'), { model: GPT, reason: 'setting' }, 'id, any case');
    // A substring is not enough for the setting: the user named one model.
    assert.equal(chooseModel(MODELS, ['sonnet'], 'claude')?.reason, 'hint "sonnet"');
  });

  it('ignores a setting naming a model that is not available (hints and default apply)', () => {
    assert.deepEqual(chooseModel(MODELS, ['sonnet'], 'o3-mini'), { model: SONNET, reason: 'hint "sonnet"' });
    assert.deepEqual(chooseModel(MODELS, [], '  '), { model: GPT, reason: 'default' }, 'a blank setting is unset');
  });

  it('gives nothing when the editor has no model', () => {
    assert.equal(chooseModel([], ['sonnet'], 'gpt-4o'), undefined);
  });
});
