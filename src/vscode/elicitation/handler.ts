import type { ElicitationHandler, ElicitationHandlerOptions } from '../../core/elicitation/handler';
import { createElicitationHandler as createCoreHandler } from '../../core/elicitation/handler';
import type { TaskSnapshot } from '../../core/tasks/types';
import { QuickInputPrompter } from './quickInputPrompter';
import type { HiddenDialogs } from '../hiddenDialogs';

export type { ElicitationHandler } from '../../core/elicitation/handler';
export { listenForElicitationComplete } from '../../core/elicitation/handler';
export { focusQuestion, registerQuestionKeys } from './quickInputPrompter';

/**
 * The `elicitation/create` handler for the task engine (`handlers.elicitation = { handle, url: true }`),
 * asking through quick inputs unless a `prompter` is given (in-host tests swap in answers). A
 * question hidden without an answer waits in `hidden` until reopened; each question has its own
 * quick inputs, so hiding one gives up that question's turn and no other's. One of no task that
 * can be about one direct call only (its answer stream brought it, or the only one of its server
 * running) is titled by that call (`call` finds it by key), as a task's question is by its task.
 */
export const createElicitationHandler = (options: Omit<ElicitationHandlerOptions, 'prompter'> & { prompter?: ElicitationHandlerOptions['prompter']; hidden: HiddenDialogs; call?(key: string): TaskSnapshot | undefined }): ElicitationHandler => {
  const { hidden, call, ...rest } = options;
  const ask = createCoreHandler({ ...rest, prompter: options.prompter ?? ((turn) => new QuickInputPrompter({ hidden, turn })) });
  return Object.assign((params: Record<string, unknown> | undefined, ctx: Parameters<ElicitationHandler>[1]) => ask(params, ctx.task || ctx.calls?.length !== 1 ? ctx : { ...ctx, task: call?.(ctx.calls[0]) }), { complete: ask.complete });
};
