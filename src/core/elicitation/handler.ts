import * as z from 'zod/mini';
import { ErrorCode, RpcError } from '../jsonrpc/errors';
import { describeIssues } from '../jsonrpc/messages';
import type { McpSession } from '../protocol/session';
import type { ServerRequestContext, ServerRequestHandler } from '../tasks/engine';
import { requestAbout } from '../tasks/types';
import type { TaskSnapshot } from '../tasks/types';
import type { Disposable, Event } from '../util/event';
import { abortWith, anySignal, errorMessage, newController } from '../util/abort';
import type { Logger } from '../util/log';
import { prefixed, truncate } from '../util/log';
import type { Turn } from '../util/turns';
import { Turns } from '../util/turns';
import type { ElicitResult, FlowEvent, FlowState } from './flow';
import { ACCEPT, answerOf, CANCEL, DECLINE, initialValue, isReview, nextState, startFlow } from './flow';
import type { FieldValue, FormPlan, UrlPlan } from './plan';
import { invalidRequest, planElicitation } from './plan';
import { checkValue, countRule, formatValue, inputHint, listRule, validateContent, validateField } from './validate';
import { isArray, keysOf } from '../util/builtins';
import { isString, stringify } from '../util/json';
import { noop } from '../util/promise';
import { BOOLEAN, INTEGER, LIST, MULTI_SELECT, NUMBER, STRING } from './fieldKinds';
import { CIRCLE_SLASH } from '../tasks/presentation';
import { serverWithdrew } from '../tasks/incoming';
import { ELICITATION_COMPLETE, ELICITATION_CREATE } from '../protocol/schemas';

/** Leaving a step without answering it. */
export type Nav = 'back' | 'decline' | 'cancel';
/** What a prompt gives back: the answer, or where the user went instead. */
export type Answer<T> = { value: T } | { nav: Nav };

export interface PickItem<T> {
  label: string;
  /** A codicon id shown before the label (the row's icon, not read out). */
  icon?: string;
  description?: string;
  detail?: string;
  value: T;
  /** Focused first (single select) or checked (multi-select). */
  picked?: boolean;
}

export interface PromptOptions {
  /** Names the server, and the task when there is one. */
  title: string;
  step?: number;
  totalSteps?: number;
  /** Offer Back to the previous step. */
  canGoBack?: boolean;
  /** Offer a Decline button (steps where Decline is not one of the items). */
  canDecline?: boolean;
  /** Aborts when the request is withdrawn: the prompt closes and the call rejects. */
  signal: AbortSignal;
}

export interface PickOptions<T> extends PromptOptions {
  placeholder: string;
  /** Shown whole under the input where the editor can, the placeholder then only says what to do; else after it. */
  prompt?: string;
  canSelectMany?: boolean;
  /** Single select: focus no item, so Enter answers nothing until the user chooses one. */
  unfocused?: boolean;
  /** Multi-select: why the checked items cannot be accepted, shown instead of accepting. */
  validate?(values: T[]): string | undefined;
}

export interface InputOptions extends PromptOptions {
  prompt: string;
  placeholder?: string;
  value: string;
  /** While typing: what to fix (Enter is refused while there is one), or a note Enter takes (`{ note }`). */
  validate(text: string): string | { note: string } | undefined;
}

/**
 * The seam between the dialog logic and the editor: one prompt at a time, each closed when the
 * next shows (tests replace it with scripted answers). Cancel answers `{ nav: 'cancel' }` (in
 * the editor, a server's question hidden by Escape or another quick input answers nothing and
 * waits to be reopened).
 */
export interface FormPrompter {
  pick<T>(items: readonly PickItem<T>[], options: PickOptions<T>): Promise<Answer<T[]>>;
  input(options: InputOptions): Promise<Answer<string>>;
  /** Opens a URL outside the editor, after the user consented; false when it could not. */
  openExternal(url: string): Promise<boolean>;
  /** The dialog is over: close whatever is still shown. */
  close(): void;
  /** The step shown (or hidden) is retitled: its task's row was renamed. */
  retitle?(title: string): void;
}

export interface DialogContext {
  title: string;
  signal: AbortSignal;
}

const SKIP = Symbol('skip');

/**
 * The dialog's title: the task the request belongs to, named by `name` as its row names it, on
 * its server, as the other messages say it (`deploy (4:47 PM) on demo`: one pair of parentheses,
 * not `deploy (4:47 PM) (server "demo")`); a task not followed here by its id
 * (`MCP server "demo", task 7c2f…`).
 */
export const dialogTitle = <T extends { toolName: string }>(serverLabel: string, ctx: Pick<ServerRequestContext, 'relatedTaskId'> & { task?: T }, name = (t: T) => t.toolName): string => {
  const id = ctx.relatedTaskId;
  return ctx.task ? `${name(ctx.task)} on ${serverLabel}` : `MCP server "${serverLabel}"${id ? `, task ${id.length > 8 ? `${id.slice(0, 4)}…` : id}` : ''}`;
};

const stepText = (plan: FormPlan, index: number): string => {
  const s = plan.steps[index];
  const head = `${s.title}${s.required ? '' : ' (optional)'}${s.description ? `: ${s.description}` : ''}`;
  // The server's message leads the first step, so the user reads why before answering.
  return index === 0 ? `${plan.message} — ${head}` : head;
};

/** Shows the step `state` is on; resolves with what the user did (undefined: ask again). */
const askField = async (plan: FormPlan, state: FlowState, p: FormPrompter, ui: DialogContext): Promise<FlowEvent | undefined> => {
  const step = plan.steps[state.index];
  const initial = initialValue(state, step);
  const o = { title: ui.title, step: state.index + 1, totalSteps: plan.steps.length + 1, canGoBack: state.index > 0 || state.editing, canDecline: true, signal: ui.signal };
  const text = stepText(plan, state.index);
  if (step.kind === STRING || step.kind === NUMBER || step.kind === INTEGER || step.kind === LIST) {
    const check = (t: string) => validateField(step, t);
    // A list's values comma-joined, unless one would not read back so (a comma, spaces at its ends, empty, a leading bracket).
    const shown = isArray(initial) ? (initial.some((v) => /^$|^[\s[]|,|\s$/.test(String(v))) ? stringify(initial) : initial.join(', ')) : initial;
    const prompt = step.kind === LIST ? `${text} (${listRule(step)})` : text;
    const a = await p.input({ ...o, prompt, placeholder: inputHint(step), value: shown === undefined ? '' : String(shown), validate: (t) => {
        const r = check(t);
        // A URI typed as the address bar shows it is sent percent-encoded: say so before the review shows it.
        return 'error' in r ? r.error : isString(r.value) && r.value !== t ? { note: `Sent as ${r.value}` } : undefined;
      },
    });
    if ('nav' in a) return { type: a.nav };
    const r = check(a.value);
    return 'error' in r ? undefined : { type: 'answer', value: r.value };
  }
  if (step.kind === MULTI_SELECT) {
    const chosen = new Set(isArray(initial) ? initial : []);
    const items = step.options!.map((opt) => ({ label: opt.label, value: opt.value as string, picked: chosen.has(opt.value as string) }));
    // An optional multi-select with nothing checked is left out.
    const empty = (v: string[]) => v.length === 0 && !step.required;
    const hint = `${countRule(step)}${step.required ? '' : ', or none to skip'}`;
    const a = await p.pick(items, { ...o, placeholder: `${text} (${hint})`, canSelectMany: true, validate: (v) => (empty(v) ? undefined : checkValue(step, v)) });
    if ('nav' in a) return { type: a.nav };
    return { type: 'answer', value: empty(a.value) ? undefined : a.value };
  }
  const items: Array<PickItem<FieldValue | typeof SKIP>> =
    step.kind === BOOLEAN
      ? [
          { label: 'Yes', value: true, picked: initial === true },
          { label: 'No', value: false, picked: initial === false },
        ]
      : step.options!.map((opt) => ({ label: opt.label, value: opt.value, picked: opt.value === initial }));
  // Without an answer or a default, Enter leaves an optional field out, as in an empty input box.
  if (!step.required) items.push({ label: 'Skip', icon: 'debug-step-over', description: 'leave this field out', value: SKIP, picked: initial === undefined });
  // Required, without an answer or a default: Enter on the first item (Yes) would answer for the user.
  const a = await p.pick(items, { ...o, placeholder: text, unfocused: step.required && initial === undefined });
  if ('nav' in a) return { type: a.nav };
  if (a.value.length !== 1) return undefined;
  return { type: 'answer', value: a.value[0] === SKIP ? undefined : (a.value[0] as FieldValue) };
};

/** The last step: a summary of the answers with Accept, Decline, Cancel, and a way to change each answer. */
const askReview = async (plan: FormPlan, state: FlowState, p: FormPrompter, ui: DialogContext): Promise<FlowEvent | undefined> => {
  const n = plan.steps.length;
  const summary = plan.steps.map((s) => `${s.title}: ${formatValue(s, answerOf(state, s.key))}`).join(' · ');
  const items: Array<PickItem<FlowEvent>> = [
    { icon: 'check', label: 'Accept', description: n ? 'send these answers' : 'answer yes', detail: summary || undefined, value: { type: ACCEPT }, picked: true },
    { icon: CIRCLE_SLASH, label: 'Decline', description: 'tell the server no', value: { type: DECLINE } },
    { icon: 'close', label: 'Cancel', description: 'dismiss without answering', value: { type: CANCEL } },
    ...plan.steps.map((s): PickItem<FlowEvent> => ({ icon: 'edit', label: `Change ${s.title}`, description: formatValue(s, answerOf(state, s.key)), value: { type: 'edit', key: s.key } })),
  ];
  // The question once: under the input, where the placeholder says what this step is for.
  const [placeholder, prompt] = n ? ['Review and send your answers', plan.message] : [plan.message];
  const a = await p.pick(items, { title: ui.title, step: n + 1, totalSteps: n + 1, canGoBack: n > 0, placeholder, prompt, signal: ui.signal });
  if ('nav' in a) return { type: a.nav };
  return a.value.length === 1 ? a.value[0] : undefined;
};

/**
 * Runs a form dialog to its end: every field, then the review step; or, given content it
 * accepted before, from its review step. Rejects when `ui.signal` aborts.
 */
export const runForm = async (plan: FormPlan, p: FormPrompter, ui: DialogContext, accepted?: Readonly<Record<string, FieldValue>>): Promise<ElicitResult> => {
  let state = startFlow(plan, accepted);
  try {
    while (!state.result) {
      ui.signal.throwIfAborted();
      const event = isReview(plan, state) ? await askReview(plan, state, p, ui) : await askField(plan, state, p, ui);
      if (event) state = nextState(plan, state, event);
    }
    return state.result;
  } finally {
    p.close();
  }
};

/**
 * Runs a URL consent: the message, the full URL and its domain, Open or Decline. The URL is
 * opened only after the user chose Open (the spec forbids opening or fetching it before), and
 * the answer is then `accept`, though the interaction itself goes on in the browser.
 */
export const runUrl = async (plan: UrlPlan, p: FormPrompter, ui: DialogContext): Promise<ElicitResult> => {
  try {
    for (;;) {
      const warn = plan.warnings.length ? `⚠ ${plan.warnings.join('; ')}` : 'in your browser';
      const items: Array<PickItem<'open' | 'show' | 'decline'>> = [
        { icon: 'link-external', label: `Open ${plan.domain}`, description: warn, detail: plan.url, value: 'open' },
        { icon: CIRCLE_SLASH, label: 'Decline', description: 'do not open it', value: DECLINE },
      ];
      // A long URL is cut in the list: it must be readable in full before consent.
      if (plan.url.length > 80) items.splice(1, 0, { icon: 'eye', label: 'Show the full URL', value: 'show' });
      const a = await p.pick(items, { title: ui.title, placeholder: `${plan.message} (${plan.domain})`, signal: ui.signal });
      if ('nav' in a) return { action: a.nav === DECLINE ? DECLINE : CANCEL };
      if (a.value[0] === DECLINE) return { action: DECLINE };
      if (a.value[0] === 'show') {
        await p.input({ title: ui.title, prompt: `The full URL, on ${plan.domain} (not opened yet). Enter goes back.`, value: plan.url, validate: noop, signal: ui.signal });
        continue;
      }
      if (a.value[0] === 'open') return (await p.openExternal(plan.url)) ? { action: ACCEPT } : { action: CANCEL };
    }
  } finally {
    p.close();
  }
};

export interface ElicitationHandlerOptions {
  /**
   * The dialog; or, given each request's turn, one dialog per request (so a dialog hidden
   * without an answer gives up its own turn, whichever step it is on).
   */
  prompter: FormPrompter | ((turn: Turn) => FormPrompter);
  log: Logger;
  serverLabel(serverId: string): string;
  /** Whether the client declared URL mode (default true); if not, URL requests are refused. */
  url?: boolean;
  /** Where the dialogs wait for their turn; share one with every other dialog servers open. */
  turns?: Turns;
  /** A task's name as its row shows it (runTitle), for the dialog's title; else its tool's. */
  taskTitle?(task: TaskSnapshot): string;
  /** A task changed, or was removed (its key): another run of a tool may rename its runs' rows, and their open dialogs follow. */
  renamed?: Event<TaskSnapshot | string>;
  /** A question its server withdrew (notifications/cancelled) unanswered: its message as a row names it, and its server's label (see serverWithdrew). */
  withdrawn?(title: string, server: string): void;
}

/** The answer to a URL question its server reports complete before the user answered here: dismissed, but not by the user (see noteRefusal). */
export const COMPLETED_ELSEWHERE = Object.freeze({ action: CANCEL });

/** The `elicitation/create` handler, and the receiver of `notifications/elicitation/complete`. */
export type ElicitationHandler = ServerRequestHandler & {
  /** Closes a still-open URL prompt for `params.elicitationId` of `serverId`; ignores unknown ids. */
  complete(serverId: string, params: unknown): void;
};

const CompleteParamsSchema = z.looseObject({ elicitationId: z.string() });

/**
 * Answers servers' `elicitation/create` requests: validates them (a bad request is logged and
 * answered -32602), shows one dialog at a time (a second request waits for the first, and for
 * any other dialog of `turns`: the editor shows one quick input at a time), checks the content
 * against the schema, and answers with an `ElicitResult`. An abort of `ctx.signal` closes the dialog and rejects.
 */
export const createElicitationHandler = (options: ElicitationHandlerOptions): ElicitationHandler => {
  const { prompter, log: root } = options;
  /** URL elicitations not answered yet, by server and id: aborting one closes its prompt. */
  const pending = new Map<string, AbortController>();
  /** URL elicitations accepted lately, so a completion is logged as such (bounded). */
  const accepted = new Set<string>();
  const turns = options.turns ?? new Turns();

  const handle = async (params: Record<string, unknown> | undefined, ctx: ServerRequestContext): Promise<Record<string, unknown>> => {
    const label = options.serverLabel(ctx.serverId);
    const log = prefixed(root, label);
    const plan = planElicitation(params, { url: options.url ?? true });
    if (!plan.ok) {
      log.warn(`Refused ${ELICITATION_CREATE}: ${plan.error.message}`);
      throw plan.error;
    }
    const title = dialogTitle(label, ctx, options.taskTitle);
    // The log names the task by its whole id as well, as the engine's lines do (T-LOG-1).
    const logged = ctx.task && ctx.relatedTaskId ? `${title}, task ${ctx.relatedTaskId}` : title;
    const key = plan.mode === 'url' ? `${ctx.serverId}\n${plan.elicitationId}` : undefined;
    if (key && pending.has(key)) {
      const error = invalidRequest(`elicitationId "${plan.mode === 'url' && plan.elicitationId}" is already pending`);
      log.warn(`Refused ${ELICITATION_CREATE}: ${error.message}`);
      throw error;
    }
    log.info(`${logged} asks: ${truncate(plan.message, 300)} (${plan.mode === 'url' ? `to open ${plan.url}` : `${plan.steps.length} field${plan.steps.length === 1 ? '' : 's'}`})`);
    const completed = newController();
    if (key) pending.set(key, completed);
    const signal = key ? anySignal([ctx.signal, completed.signal]) : ctx.signal;
    try {
      const result = await turns.take((turn) => {
        const p = typeof prompter === 'function' ? prompter(turn) : prompter;
        const ui = { title, signal };
        const task = ctx.task;
        // Only a run of its tool on its server can rename it (or a removal: rare).
        const follow = task && options.renamed?.((t) => {
          if (isString(t) || (t.serverId === task.serverId && t.toolName === task.toolName)) {
            const now = dialogTitle(label, ctx, options.taskTitle);
            if (now !== ui.title) p.retitle?.((ui.title = now));
          }
        });
        return (plan.mode === 'form' ? runForm(plan, p, ui) : runUrl(plan, p, ui)).finally(() => follow?.dispose());
      }, signal, requestAbout(ctx));
      if (plan.mode === 'form' && result.action === ACCEPT) {
        const problem = validateContent(plan, result.content ?? {});
        if (problem) {
          log.error(`Did not send answers that break the requested schema: ${problem}`);
          throw new RpcError(ErrorCode.InternalError, `The client produced invalid content: ${problem}`);
        }
      }
      if (key && result.action === ACCEPT) {
        accepted.add(key);
        if (accepted.size > 100) accepted.delete(accepted.values().next().value!);
      }
      // Run as a task here, it completed either way: its row says the user's no (see ServerRequestContext.tells).
      if (result.action !== ACCEPT) ctx.tells?.(`${result.action === DECLINE ? 'Declined' : 'Dismissed'} by the user`);
      const fields = result.action === ACCEPT && result.content ? ` (fields: ${keysOf(result.content).join(', ') || 'none'})` : '';
      log.info(`Answered ${logged}: ${result.action}${fields}`);
      return result;
    } catch (err) {
      if (completed.signal.aborted && !ctx.signal.aborted) {
        // The server says the interaction finished elsewhere: no consent was given here, so
        // the honest answer is that the prompt was dismissed.
        log.info(`Closed the prompt of elicitation ${key!.split('\n')[1]}: the server reports it complete`);
        // Its row, if run as a task here: completed, but by no answer given here (nor "Dismissed by the user").
        ctx.tells?.('Finished elsewhere');
        return COMPLETED_ELSEWHERE;
      }
      const why = errorMessage(ctx.signal.reason);
      // A hosted task's reasons come from the task host and say who ended it.
      if (ctx.signal.aborted) log.info(`Closed ${logged}: ${serverWithdrew(ELICITATION_CREATE, params!, ctx, label, options.withdrawn) ? `the server withdrew its request (${why})` : why}`);
      else log.error(`Elicitation dialog failed: ${errorMessage(err)}`);
      throw err;
    } finally {
      if (key) pending.delete(key);
    }
  };

  return Object.assign(handle, {
    complete(serverId: string, params: unknown): void {
      const log = prefixed(root, options.serverLabel(serverId));
      const p = CompleteParamsSchema.safeParse(params);
      if (!p.success) return log.warn(`Ignored an invalid ${ELICITATION_COMPLETE}: ${describeIssues(p.error)}`);
      const key = `${serverId}\n${p.data.elicitationId}`;
      const open = pending.get(key);
      if (open) abortWith(open, 'the server reports the elicitation complete');
      else if (accepted.delete(key)) log.info(`The server reports elicitation ${p.data.elicitationId} complete`);
      // The spec says to ignore unknown and already completed ids.
      else log.debug(`Ignored ${ELICITATION_COMPLETE} for unknown elicitation ${p.data.elicitationId}`);
    },
  });
};

/**
 * Routes a session's `notifications/elicitation/complete` to `handler.complete`; register it on
 * each new session (it ends with the session's connection, or when disposed).
 */
export const listenForElicitationComplete = (session: Pick<McpSession, 'connection'>, serverId: string, handler: Pick<ElicitationHandler, 'complete'>): Disposable => {
  return session.connection.onNotification(ELICITATION_COMPLETE, (params) => handler.complete(serverId, params));
};
