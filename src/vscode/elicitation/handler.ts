import type { ElicitationHandler, ElicitationHandlerOptions } from '../../core/elicitation/handler';
import { createElicitationHandler as createCoreHandler } from '../../core/elicitation/handler';
import { QuickInputPrompter } from './quickInputPrompter';
import type { HiddenDialogs } from '../hiddenDialogs';

export type { ElicitationHandler } from '../../core/elicitation/handler';
export { listenForElicitationComplete } from '../../core/elicitation/handler';
export { focusQuestion, registerQuestionKeys } from './quickInputPrompter';

/**
 * The `elicitation/create` handler for the task engine (`handlers.elicitation = { handle, url: true }`),
 * asking through quick inputs unless a `prompter` is given (in-host tests swap in answers). A
 * question hidden without an answer waits in `hidden` until reopened; each question has its own
 * quick inputs, so hiding one gives up that question's turn and no other's.
 */
export const createElicitationHandler = (options: Omit<ElicitationHandlerOptions, 'prompter'> & { prompter?: ElicitationHandlerOptions['prompter']; hidden: HiddenDialogs }): ElicitationHandler => {
  const { hidden, ...rest } = options;
  return createCoreHandler({ ...rest, prompter: options.prompter ?? ((turn) => new QuickInputPrompter({ hidden, turn })) });
};
