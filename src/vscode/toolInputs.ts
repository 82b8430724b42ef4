// The arguments and ttl steps of "Run Tool as Task...". Arguments are asked field by field with
// the elicitation dialog (the same plan, flow and quick inputs as a server's questions), and as a
// JSON object where a flat form cannot express the tool's inputSchema.
import * as vscode from 'vscode';
import type { FlowEvent } from '../core/elicitation/flow';
import type { Answer, FormPrompter, InputOptions, PickItem, PickOptions, PromptOptions } from '../core/elicitation/handler';
import { runForm } from '../core/elicitation/handler';
import type { FieldStep, FieldValue } from '../core/elicitation/plan';
import type { FormPlan } from '../core/elicitation/plan';
import { INVALID_REQUEST, planElicitation, toStep } from '../core/elicitation/plan';
import { validateContent } from '../core/elicitation/validate';
import type { Tool } from '../core/protocol/schemas';
import { formatDuration } from '../core/tasks/presentation';
import { errorMessage } from '../core/util/abort';
import { fromJson, isObject, isObjectLike, isString, stringify } from '../core/util/json';
import { entriesOf, round } from '../core/util/builtins';
import { defaultTtlMs } from './configuration';
import { NEVER } from './cancellation';
import type { QuickInputPrompter } from './elicitation/quickInputPrompter';
import { ACCEPT, CANCEL } from '../core/elicitation/flow';
import { BOOLEAN, INTEGER, NUMBER } from '../core/elicitation/fieldKinds';

/** Top-level keywords that constrain the object beyond its listed properties: a form would hide them. */
const UNUSUAL = ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref', 'patternProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'minProperties', 'maxProperties'];
const AS_JSON = Symbol('as JSON');
/**
 * The command's title counts its steps ("Run Tool as Task (3/4)"): the form's own field counter
 * is not shown beside it, which would read "1/3" under "3/4".
 */
const ONE_COUNTER = { step: undefined, totalSteps: undefined };
/** The user pressed Back on the first screen of a step: show the step before it. */
export const BACK = Symbol('back');

/** Why a form cannot show this schema (then the arguments are asked as JSON), or undefined. */
const unusual = (schema: Tool['inputSchema']): string | undefined => {
  const s = schema as Record<string, unknown>;
  const keyword = UNUSUAL.find((k) => k in s);
  if (keyword) return vscode.l10n.t('the schema uses "{0}"', keyword);
  if (isObjectLike(s.additionalProperties)) return vscode.l10n.t('the schema describes additional properties');
  return undefined;
};

/**
 * The elicitation dialog, worded for a tool: no Decline (Escape cancels the command), a review
 * step that runs the tool or switches to editing the answers as JSON, and Back on the first
 * field leaving the form for the command's previous step.
 */
class ToolFormPrompter implements FormPrompter {
  /** The user chose "Edit as JSON…" on the review step. */
  asJson = false;
  /** The user pressed Back on the first field. */
  back = false;
  readonly #toolName: string;
  readonly #inner: QuickInputPrompter;

  constructor(toolName: string, inner: QuickInputPrompter) {
    this.#toolName = toolName;
    this.#inner = inner;
  }

  /**
   * The form has no step before its first field: Back there ends it, as cancel, with `back` set
   * (unless the field is being changed from the review step, where Back returns).
   */
  async #leaving<A>(o: PromptOptions, ask: (o: PromptOptions) => Promise<Answer<A>>): Promise<Answer<A>> {
    const first = o.step === 1 && !o.canGoBack;
    const a = await ask({ ...o, ...ONE_COUNTER, canDecline: false, canGoBack: o.canGoBack || first });
    if (first && 'nav' in a && a.nav === 'back') {
      this.back = true;
      return { nav: CANCEL };
    }
    return a;
  }

  async pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    const event = (v: unknown) => (isObjectLike(v) && 'type' in v ? (v as FlowEvent).type : undefined);
    if (!items.some((i) => event(i.value) === ACCEPT)) return this.#leaving(o, (p) => this.#inner.pick(items, { ...o, ...p }));
    const review: Array<PickItem<T | typeof AS_JSON>> = [];
    let cancel: PickItem<T> | undefined;
    for (const i of items) {
      const type = event(i.value);
      if (type === ACCEPT) review.push({ ...i, icon: 'play', label: vscode.l10n.t('Run {0}', this.#toolName), description: vscode.l10n.t('with these arguments') });
      else if (type === CANCEL) cancel = { ...i, label: vscode.l10n.t('Cancel'), description: vscode.l10n.t('run nothing') };
      else if (type === 'edit') review.push(i);
    }
    review.splice(1, 0, { icon: 'json', label: vscode.l10n.t('Edit as JSON…'), description: vscode.l10n.t('change the arguments as a JSON object'), value: AS_JSON });
    // Cancel last, below the changes: the item that does nothing ends the list, not splits the actions from the edits.
    if (cancel) review.push(cancel);
    const a = await this.#inner.pick(review, { ...o, ...ONE_COUNTER, canDecline: false, placeholder: vscode.l10n.t('Review the arguments of {0}', this.#toolName), prompt: undefined } as PickOptions<T | typeof AS_JSON>);
    if ('nav' in a || a.value[0] !== AS_JSON) return a as Answer<T[]>;
    // Accept ends the form with its content, which the JSON box then starts from.
    this.asJson = true;
    return { value: items.filter((i) => event(i.value) === ACCEPT).map((i) => i.value) };
  }

  input(o: InputOptions): Promise<Answer<string>> {
    return this.#leaving(o, (p) => this.#inner.input({ ...o, ...p }));
  }

  openExternal(): Promise<boolean> {
    return Promise.resolve(false);
  }

  close(): void {
    // The command's next step replaces this input; the command closes it when it ends.
  }
}

/** A tool's arguments, and whether they were typed as JSON (no form fits, or "Edit as JSON…"). */
export interface ToolArguments {
  value: Record<string, unknown>;
  json: boolean;
}

/** A tool's input properties, each with its schema. */
export const inputsOf = (tool: Tool) => entriesOf(tool.inputSchema.properties ?? {});

/**
 * Asks a tool's arguments: `{}` at once when it takes none, a form built from its inputSchema,
 * or a JSON object when no form fits. Given the arguments asked before (the user came back from
 * a later step), shows them again: the form at its review step, or the JSON box holding them.
 * Undefined when the user cancelled; BACK when they went back from the first screen.
 */
export const askArguments = async (tool: Tool, title: string, ui: QuickInputPrompter, before?: ToolArguments): Promise<ToolArguments | typeof BACK | undefined> => {
  if (!inputsOf(tool).length) return { value: {}, json: false };
  let why = unusual(tool.inputSchema);
  const label = tool.title ?? tool.annotations?.title ?? tool.name;
  // The spec's inputSchema is always an object; some servers leave `type` out.
  const plan = why ? undefined : planElicitation({ message: label, requestedSchema: { ...tool.inputSchema, type: 'object' } }, { url: false, tool: true });
  const form = plan?.ok && plan.mode === 'form' ? plan : undefined;
  const json = async (start: Record<string, unknown>, why?: string) => {
    const value = await askJson(tool, title, ui, start, why, form ?? flatForm(tool));
    return value === undefined || value === BACK ? value : { value, json: true };
  };
  if (before?.json) return json(before.value);
  if (plan) {
    if (form) {
      const prompter = new ToolFormPrompter(tool.name, ui);
      const result = await runForm(form, prompter, { title, signal: NEVER }, before?.value as Record<string, FieldValue> | undefined);
      if (prompter.back) return BACK;
      if (result.action !== ACCEPT) return undefined;
      return prompter.asJson ? json(result.content ?? {}) : { value: result.content ?? {}, json: false };
    }
    if (!plan.ok) why = plan.error.message.replace(`${INVALID_REQUEST}: `, '');
  }
  return json(template(tool), why);
};

/**
 * Where no form shows the tool's schema (a nested property, a top-level anyOf), the form each of its
 * properties would have alone: the JSON box checks those as a form would, and that the others it
 * requires are there (a required property as a step of its own, else of none).
 */
const flatForm = (tool: Tool): FormPlan =>
  ({
    steps: inputsOf(tool).flatMap(([key, schema]) => {
      const required = !!tool.inputSchema.required?.includes(key);
      try {
        return [toStep(key, schema, required, true)];
      } catch {
        // validateContent only needs a step's key, title and whether it is required to check that it is there.
        return required ? [{ key, title: key, required } as FieldStep] : [];
      }
    }),
  }) as FormPlan;

/** A starting point for the JSON box: defaults, and empty values of the right type for required properties. */
const template = (tool: Tool): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of inputsOf(tool)) {
    // A property's schema may be `true` (any value), or not a schema at all (a server's `null`).
    const s: { default?: unknown; const?: unknown; type?: unknown } = isObject(schema) ? schema : {};
    if ('const' in s) out[name] = s.const;
    else if (s.default !== undefined) out[name] = s.default;
    else if (tool.inputSchema.required?.includes(name)) out[name] = s.type === NUMBER || s.type === INTEGER ? 0 : s.type === BOOLEAN ? false : s.type === 'array' ? [] : s.type === 'object' ? {} : '';
  }
  return out;
};

/**
 * The arguments as one JSON object (the fallback, and "Edit as JSON…"); Back leaves the arguments step.
 * With the tool's `form`, its fields are checked as the form checks them (keys it has not are sent as typed).
 */
const askJson = async (tool: Tool, title: string, ui: QuickInputPrompter, start: Record<string, unknown>, why?: string, form?: FormPlan): Promise<Record<string, unknown> | typeof BACK | undefined> => {
  // Each with its type and whether it is required: the box is all the user has to go by.
  const required = tool.inputSchema.required ?? [];
  const props = inputsOf(tool)
    .map(([name, schema]) => {
      const about = [isObject(schema) && schema.type, required.includes(name) && 'required'].filter(isString);
      return about.length ? `${name} (${about.join(', ')})` : name;
    })
    .join(', ');
  const a = await ui.input({
    title,
    prompt: why
      ? vscode.l10n.t('Arguments as a JSON object (no form for this tool: {0}). Properties: {1}', why, props)
      : vscode.l10n.t('Arguments as a JSON object. Properties: {0}', props),
    value: stringify(start),
    canGoBack: true,
    signal: NEVER,
    validate: (v) => {
      try {
        const parsed: unknown = fromJson(v);
        if (!isObject(parsed)) return vscode.l10n.t('Enter a JSON object, e.g. {"name": "value"}');
        return form && validateContent(form, parsed, true);
      } catch (err) {
        return vscode.l10n.t('Not valid JSON: {0}', errorMessage(err));
      }
    },
  });
  if ('nav' in a) return a.nav === 'back' ? BACK : undefined;
  return fromJson(a.value) as Record<string, unknown>;
};

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** No server keeps a task for longer than a year; longer asks are typos. */
const MAX_TTL_MS = 365 * UNITS.d;

/** A typed duration in ms ("90s", "45m", "2h", "7d"; a bare number is minutes), or why it is not one. */
export const parseDuration = (text: string): { ms: number } | { error: string } => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/i.exec(text);
  if (!m) return { error: vscode.l10n.t('Enter a number of minutes, or a number with a unit: 90s, 45m, 2h, 7d') };
  const ms = round(Number(m[1]) * UNITS[(m[2] || 'm').toLowerCase()]);
  if (ms < 1000) return { error: vscode.l10n.t('Enter at least one second') };
  if (ms > MAX_TTL_MS) return { error: vscode.l10n.t('Enter at most 365 days') };
  return { ms };
};

/**
 * Asks how long the server should keep the task: the default (the mcpTasks.defaultTtlSeconds
 * setting, or the server's choice) first, so Enter keeps it. `{ ttlMs: undefined }` is the
 * default; undefined means cancelled, BACK that the user went back to the arguments.
 */
export const askTtl = async (title: string, ui: QuickInputPrompter): Promise<{ ttlMs?: number } | typeof BACK | undefined> => {
  const defaultMs = defaultTtlMs();
  type Choice = { ttlMs?: number } | 'custom';
  // Each with its icon, as Default and Custom… have theirs: the labels line up. Written as
  // Default's and the rest of the UI's durations are ("10 min", "1 h"), not "10 minutes" beside "1 h".
  const choices: Array<PickItem<{ ttlMs: number }>> = [10 * UNITS.m, UNITS.h, UNITS.d].map((ttlMs) => ({ icon: 'clock', label: formatDuration(ttlMs), value: { ttlMs } }));
  const items: Array<PickItem<Choice>> = [
    {
      icon: 'history',
      label: vscode.l10n.t('Default'),
      description: defaultMs ? vscode.l10n.t('{0}, from the setting mcpTasks.defaultTtlSeconds', formatDuration(defaultMs)) : vscode.l10n.t('the server decides'),
      value: {},
      picked: true,
    },
    ...choices.filter((c) => c.value.ttlMs !== defaultMs),
    { icon: 'edit', label: vscode.l10n.t('Custom…'), description: vscode.l10n.t('type a duration'), value: 'custom' },
  ];
  for (;;) {
    const picked = await ui.pick(items, {
      title,
      placeholder: vscode.l10n.t('How long should the server keep the task and its result?'),
      // It may keep them for less (T-RCV-7): the demo keeps a scan 30 s whatever is asked.
      prompt: vscode.l10n.t('The server may keep them for less.'),
      canGoBack: true,
      signal: NEVER,
    });
    if ('nav' in picked) return picked.nav === 'back' ? BACK : undefined;
    const choice = picked.value[0];
    if (choice !== 'custom') return choice;
    const typed = await ui.input({
      title,
      prompt: vscode.l10n.t('How long the server should keep the task (it may keep it for less): minutes, or a number with a unit (90s, 45m, 2h, 7d)'),
      placeholder: vscode.l10n.t('e.g. 30m'),
      value: '',
      canGoBack: true,
      signal: NEVER,
      validate: (v) => {
        const r = parseDuration(v);
        return 'error' in r ? r.error : undefined;
      },
    });
    if ('nav' in typed && typed.nav === 'back') continue;
    if ('nav' in typed) return undefined;
    const r = parseDuration(typed.value);
    return 'ms' in r ? { ttlMs: r.ms } : undefined;
  }
};
