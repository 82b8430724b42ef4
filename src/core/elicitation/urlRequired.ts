import * as z from 'zod/mini';
import { ErrorCode } from '../jsonrpc/errors';
import type { DialogContext, FormPrompter } from './handler';
import { runUrl } from './handler';
import type { UrlPlan } from './plan';
import { INVALID_REQUEST, planElicitation } from './plan';
import type { TaskSnapshot } from '../tasks/types';
import { SERVER_LIST } from '../tasks/types';
import { ACCEPT } from './flow';

/** At most this many URLs of one error are offered: a server cannot put up dozens of dialogs. */
export const MAX_REQUIRED_URLS = 5;

/** What a -32042 error asks for: the URLs to offer (the first MAX_REQUIRED_URLS), or why its data cannot be used. */
export type UrlsRequired = { ok: true; plans: UrlPlan[] } | { ok: false; problem: string };

const DataSchema = z.looseObject({ elicitations: z.array(z.unknown()).check(z.minLength(1)) });

/**
 * Reads a URLElicitationRequiredError (-32042): a request failed until the user completes the
 * URL-mode elicitations its `data.elicitations` lists, after which the request may be sent again.
 * `error` is what the server sent (an RpcError, or a task's error outcome); undefined when it is
 * another error. Each elicitation offered is checked as an `elicitation/create` request in URL
 * mode is (http or https, no credentials, an elicitationId): one that fails makes the whole list
 * unusable, and the error is then shown as it came.
 */
export const urlsRequired = (error: unknown): UrlsRequired | undefined => {
  const e = error as { code?: unknown; data?: unknown } | null | undefined;
  if (e?.code !== ErrorCode.UrlElicitationRequired) return undefined;
  const d = DataSchema.safeParse(e.data);
  if (!d.success) return { ok: false, problem: 'its error data lists no elicitations' };
  const plans: UrlPlan[] = [];
  for (const [i, params] of d.data.elicitations.slice(0, MAX_REQUIRED_URLS).entries()) {
    const plan = planElicitation(params);
    if (!plan.ok || plan.mode !== 'url') return { ok: false, problem: `elicitation ${i + 1} ${plan.ok ? 'is not in URL mode' : plan.error.message.replace(INVALID_REQUEST, 'is invalid')}` };
    plans.push(plan);
  }
  return { ok: true, plans };
};

/**
 * Offers each URL with the consent of a URL-mode `elicitation/create` (the server's message, the
 * full URL, its domain; nothing is opened before the user chose Open), one after the other, then
 * asks whether to run the request again. True only when every URL was opened and the user chose
 * to run it again; Decline or Escape at any step ends it, with no further URL opened.
 * `ui.title` says what waits for the browser. The Run Again step is left up, so the caller can
 * show the request running there: the caller closes `p`.
 */
export const completeInBrowser = async (plans: readonly UrlPlan[], p: FormPrompter, ui: DialogContext): Promise<boolean> => {
  for (const [i, plan] of plans.entries()) {
    const title = plans.length > 1 ? `${ui.title} (${i + 1}/${plans.length})` : ui.title;
    if ((await runUrl(plan, p, { title, signal: ui.signal })).action !== ACCEPT) return false;
  }
  const a = await p.pick(
    [
      { icon: 'refresh', label: 'Run Again', description: 'with the same arguments', value: true, picked: true },
      { icon: 'close', label: 'Not Now', value: false },
    ],
    { title: ui.title, placeholder: 'Once you have finished in the browser, run the request again', signal: ui.signal },
  );
  return !('nav' in a) && a.value[0] === true;
};

/**
 * The URLs to offer for a task whose outcome is a usable -32042 error, so that its call can run
 * again; undefined for any other outcome, and for a task found through tasks/list (its call,
 * tool and arguments, is not known here).
 */
export const taskBrowserSteps = (t: Pick<TaskSnapshot, 'outcome' | 'origin'>): UrlPlan[] | undefined => {
  const required = t.outcome?.kind === 'error' && t.origin !== SERVER_LIST ? urlsRequired(t.outcome.error) : undefined;
  return required?.ok ? required.plans : undefined;
};
