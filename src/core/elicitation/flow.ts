import type { FieldStep, FieldValue, FormPlan } from './plan';
import { checkValue, validateContent } from './validate';
import { fromEntries, hasOwn } from '../util/builtins';

/** The user's three answers to a question (the actions sent, the dialog's choices and ways out): one string each in the bundle. */
export const ACCEPT = 'accept';
export const DECLINE = 'decline';
export const CANCEL = 'cancel';

/** The answer sent back for `elicitation/create` (spec `ElicitResult`). */
export type ElicitResult =
  | { action: 'accept'; content?: Record<string, FieldValue> }
  | { action: 'decline' }
  | { action: 'cancel' };

/**
 * Where a form dialog stands: the field shown (`index`; `plan.steps.length` is the review step),
 * the answers given so far (a key present with `undefined` was skipped), and, once it is over,
 * the result.
 */
export interface FlowState {
  readonly index: number;
  readonly answers: Readonly<Record<string, FieldValue | undefined>>;
  /** Editing one field from the review step: the next answer returns there. */
  readonly editing: boolean;
  readonly result?: ElicitResult;
}

/** What the user did on the step shown. `answer` with `undefined` skips an optional field. */
export type FlowEvent =
  | { type: 'answer'; value: FieldValue | undefined }
  | { type: 'back' }
  | { type: 'edit'; key: string }
  | { type: 'accept' }
  | { type: 'decline' }
  | { type: 'cancel' };

/**
 * The first field; or, given the content an earlier run of the same form accepted, its review
 * step with those answers (fields it left out show as left out), so going back to a finished
 * form shows what was answered instead of starting over.
 */
export const startFlow = (plan: FormPlan, accepted?: Readonly<Record<string, FieldValue>>): FlowState => {
  return accepted ? { index: plan.steps.length, answers: { ...accepted }, editing: false } : { index: 0, answers: {}, editing: false };
};

export const isReview = (plan: FormPlan, state: FlowState): boolean => state.index >= plan.steps.length;

/** The value a field starts with: the answer already given (also after Back), else the default. */
export const initialValue = (state: FlowState, step: FieldStep): FieldValue | undefined => (hasOwn(state.answers, step.key) ? state.answers[step.key] : step.default);

/** The answer given for a field; own keys only: a field named `constructor` left out is not Object's. */
export const answerOf = (state: FlowState, key: string): FieldValue | undefined => (hasOwn(state.answers, key) ? state.answers[key] : undefined);

/** The content accepting now would send: the answers, skipped fields left out. */
export const contentOf = (plan: FormPlan, state: FlowState): Record<string, FieldValue> => {
  return fromEntries(
    plan.steps.flatMap((s) => {
      const v = answerOf(state, s.key);
      return v === undefined ? [] : [[s.key, v]];
    }),
  );
};

/**
 * The dialog as a pure state machine: the next state after `event`. Decline and cancel end it
 * from any step; Back goes to the step shown before (the review step, for a field changed from
 * there); an answer that does not fit its field, Back on the first step, or Accept with
 * content that fails the schema leave the state as it was (the UI validates before sending
 * events, so these only guard against mistakes).
 */
export const nextState = (plan: FormPlan, state: FlowState, event: FlowEvent): FlowState => {
  if (state.result) return state;
  const review = plan.steps.length;
  switch (event.type) {
    case CANCEL:
      return { ...state, result: { action: CANCEL } };
    case DECLINE:
      return { ...state, result: { action: DECLINE } };
    case 'back':
      // Back while changing one answer from the review step returns there, the answer as it was.
      if (state.editing) return { ...state, index: review, editing: false };
      return state.index > 0 ? { ...state, index: state.index - 1 } : state;
    case 'edit': {
      const index = plan.steps.findIndex((s) => s.key === event.key);
      return index >= 0 && isReview(plan, state) ? { ...state, index, editing: true } : state;
    }
    case 'answer': {
      const step = plan.steps[state.index];
      if (!step) return state;
      if (event.value === undefined ? step.required : checkValue(step, event.value) !== undefined) return state;
      const answers = { ...state.answers, [step.key]: event.value };
      return { ...state, answers, index: state.editing ? review : state.index + 1, editing: false };
    }
    case ACCEPT: {
      if (!isReview(plan, state)) return state;
      const content = contentOf(plan, state);
      return validateContent(plan, content) === undefined ? { ...state, result: { action: ACCEPT, content } } : state;
    }
  }
};
