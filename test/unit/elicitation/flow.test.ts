import * as assert from 'node:assert/strict';
import type { FlowEvent, FlowState } from '../../../src/core/elicitation/flow';
import { contentOf, initialValue, isReview, nextState, startFlow } from '../../../src/core/elicitation/flow';
import type { FormPlan } from '../../../src/core/elicitation/plan';
import { planElicitation } from '../../../src/core/elicitation/plan';

const r = planElicitation({
  message: 'Deploy?',
  requestedSchema: {
    type: 'object',
    properties: {
      env: { type: 'string', enum: ['staging', 'prod'], default: 'staging' },
      replicas: { type: 'integer', minimum: 1, maximum: 5 },
      note: { type: 'string' },
    },
    required: ['env', 'replicas'],
  },
});
assert.ok(r.ok && r.mode === 'form');
const plan: FormPlan = r;

function run(events: FlowEvent[], from: FlowState = startFlow(plan)): FlowState {
  return events.reduce((s, e) => nextState(plan, s, e), from);
}

describe('elicitation flow: the steps as a pure state machine', () => {
  it('starts on the first field with the defaults as initial values', () => {
    const s = startFlow(plan);
    assert.equal(s.index, 0);
    assert.equal(initialValue(s, plan.steps[0]), 'staging');
    assert.equal(initialValue(s, plan.steps[1]), undefined);
  });

  it('goes field by field to the review step, then accept sends the answers without skipped fields', () => {
    const s = run([{ type: 'answer', value: 'prod' }, { type: 'answer', value: 3 }, { type: 'answer', value: undefined }]);
    assert.ok(isReview(plan, s));
    assert.equal(s.result, undefined);
    const done = nextState(plan, s, { type: 'accept' });
    assert.deepEqual(done.result, { action: 'accept', content: { env: 'prod', replicas: 3 } });
  });

  it('Back returns to the previous field with its answer kept; Back on the first field does nothing', () => {
    const s = run([{ type: 'answer', value: 'prod' }, { type: 'back' }]);
    assert.equal(s.index, 0);
    assert.equal(initialValue(s, plan.steps[0]), 'prod');
    assert.equal(nextState(plan, s, { type: 'back' }), s);
    const fromReview = run([{ type: 'answer', value: 'prod' }, { type: 'answer', value: 2 }, { type: 'answer', value: 'hi' }, { type: 'back' }]);
    assert.equal(fromReview.index, 2);
    assert.equal(initialValue(fromReview, plan.steps[2]), 'hi');
  });

  it('Skip (an undefined answer) is allowed only for optional fields, and a skipped field starts empty after Back', () => {
    const s = run([{ type: 'answer', value: undefined }]);
    assert.equal(s.index, 0, 'a required field cannot be skipped');
    const skipped = run([{ type: 'answer', value: 'prod' }, { type: 'answer', value: 1 }, { type: 'answer', value: undefined }, { type: 'back' }]);
    assert.equal(skipped.index, 2);
    assert.ok(Object.hasOwn(skipped.answers, 'note'));
    assert.equal(initialValue(skipped, plan.steps[2]), undefined);
  });

  it('an answer that breaks the field stays on the field', () => {
    const s = run([{ type: 'answer', value: 'prod' }]);
    for (const value of [9, 1.5, 'three']) assert.equal(nextState(plan, s, { type: 'answer', value }), s);
    assert.equal(nextState(plan, startFlow(plan), { type: 'answer', value: 'dev' }).index, 0);
  });

  it('Edit from the review step changes one field and comes straight back', () => {
    const review = run([{ type: 'answer', value: 'prod' }, { type: 'answer', value: 2 }, { type: 'answer', value: 'x' }]);
    const editing = nextState(plan, review, { type: 'edit', key: 'env' });
    assert.equal(editing.index, 0);
    const back = nextState(plan, editing, { type: 'answer', value: 'staging' });
    assert.ok(isReview(plan, back));
    assert.deepEqual(contentOf(plan, back), { env: 'staging', replicas: 2, note: 'x' });
    assert.equal(nextState(plan, review, { type: 'edit', key: 'nope' }), review);
    assert.equal(nextState(plan, startFlow(plan), { type: 'edit', key: 'note' }).index, 0, 'edit only from the review step');
  });

  it('Back while changing a field from the review step returns to the review step, the answer unchanged', () => {
    const review = run([{ type: 'answer', value: 'prod' }, { type: 'answer', value: 2 }, { type: 'answer', value: 'x' }]);
    for (const key of ['env', 'replicas']) {
      const editing = nextState(plan, review, { type: 'edit', key });
      const back = nextState(plan, editing, { type: 'back' });
      assert.ok(isReview(plan, back), `Back from changing ${key}`);
      assert.equal(back.editing, false);
      assert.deepEqual(contentOf(plan, back), { env: 'prod', replicas: 2, note: 'x' });
    }
  });

  it('decline and cancel end the dialog from any step, and a finished dialog ignores further events', () => {
    assert.deepEqual(run([{ type: 'decline' }]).result, { action: 'decline' });
    assert.deepEqual(run([{ type: 'answer', value: 'prod' }, { type: 'cancel' }]).result, { action: 'cancel' });
    const done = run([{ type: 'cancel' }, { type: 'answer', value: 'prod' }, { type: 'accept' }]);
    assert.deepEqual(done.result, { action: 'cancel' });
  });

  it('accept is refused before the review step', () => {
    const s = run([{ type: 'answer', value: 'prod' }, { type: 'accept' }]);
    assert.equal(s.result, undefined);
    assert.equal(s.index, 1);
  });

  it('resumes at the review step with content it accepted before; Back there returns to the last field with its answer', () => {
    const s = startFlow(plan, { env: 'prod', replicas: 4 });
    assert.ok(isReview(plan, s));
    assert.deepEqual(contentOf(plan, s), { env: 'prod', replicas: 4 });
    assert.deepEqual(nextState(plan, s, { type: 'accept' }).result, { action: 'accept', content: { env: 'prod', replicas: 4 } });
    const back = nextState(plan, nextState(plan, s, { type: 'back' }), { type: 'back' });
    assert.equal(back.index, 1);
    assert.equal(initialValue(back, plan.steps[1]), 4, 'the answer given before');
  });

  it('resumed, an optional field named like a member of Object ("constructor") left out stays out, and Accept sends', () => {
    const odd = planElicitation({ message: 'm', requestedSchema: { type: 'object', properties: { constructor: { type: 'string' }, toString: { type: 'string' }, name: { type: 'string' } } } });
    assert.ok(odd.ok && odd.mode === 'form');
    const s = startFlow(odd, { name: 'x' });
    assert.deepEqual(contentOf(odd, s), { name: 'x' });
    assert.deepEqual(nextState(odd, s, { type: 'accept' }).result, { action: 'accept', content: { name: 'x' } });
  });

  it('a form without fields goes straight to the review step, and accept sends empty content', () => {
    const empty = planElicitation({ message: 'Continue?', requestedSchema: { type: 'object', properties: {} } });
    assert.ok(empty.ok && empty.mode === 'form');
    const s = startFlow(empty);
    assert.ok(isReview(empty, s));
    assert.deepEqual(nextState(empty, s, { type: 'accept' }).result, { action: 'accept', content: {} });
  });
});
