// The arguments and ttl steps of "Run Tool as Task...". Arguments are asked field by field with
// the elicitation dialog (the same plan, flow and quick inputs as a server's questions), and as a
// JSON object where a flat form cannot express the tool's inputSchema.
import * as vscode from 'vscode';
import type { FlowEvent } from '../core/elicitation/flow';
import type { Answer, FormPrompter, InputOptions, PickItem, PickOptions } from '../core/elicitation/handler';
import { runForm } from '../core/elicitation/handler';
import { planElicitation } from '../core/elicitation/plan';
import type { Tool } from '../core/protocol/schemas';
import { formatAge } from '../core/tasks/presentation';
import { errorMessage } from '../core/util/abort';
import { QuickInputPrompter } from './elicitation/quickInputPrompter';

/** Top-level keywords that constrain the object beyond its listed properties: a form would hide them. */
const UNUSUAL = ['anyOf', 'oneOf', 'allOf', 'not', 'if', '$ref', 'patternProperties', 'dependentRequired', 'dependentSchemas', 'dependencies', 'propertyNames', 'minProperties', 'maxProperties'];
const AS_JSON = Symbol('as JSON');
const NEVER = new AbortController().signal;

/** Why a form cannot show this schema (then the arguments are asked as JSON), or undefined. */
function unusual(schema: Tool['inputSchema']): string | undefined {
  const s = schema as Record<string, unknown>;
  const keyword = UNUSUAL.find((k) => k in s);
  if (keyword) return vscode.l10n.t('the schema uses "{0}"', keyword);
  if (typeof s.additionalProperties === 'object' && s.additionalProperties !== null) return vscode.l10n.t('the schema describes additional properties');
  return undefined;
}

/**
 * The elicitation dialog, worded for a tool: no Decline (Escape cancels the command), and a
 * review step that runs the tool or switches to editing the answers as JSON.
 */
class ToolFormPrompter implements FormPrompter {
  /** The user chose "Edit as JSON…" on the review step. */
  asJson = false;
  private readonly inner = new QuickInputPrompter();

  constructor(private readonly toolName: string) {}

  async pick<T>(items: readonly PickItem<T>[], o: PickOptions<T>): Promise<Answer<T[]>> {
    const event = (v: unknown) => (typeof v === 'object' && v !== null && 'type' in v ? (v as FlowEvent).type : undefined);
    if (!items.some((i) => event(i.value) === 'accept')) return this.inner.pick(items, { ...o, canDecline: false });
    const review: Array<PickItem<T | typeof AS_JSON>> = [];
    for (const i of items) {
      const type = event(i.value);
      if (type === 'accept') review.push({ ...i, icon: 'play', label: vscode.l10n.t('Run {0}', this.toolName), description: vscode.l10n.t('with these arguments') });
      else if (type === 'cancel') review.push({ ...i, label: vscode.l10n.t('Cancel'), description: vscode.l10n.t('run nothing') });
      else if (type === 'edit') review.push(i);
    }
    review.splice(1, 0, { icon: 'json', label: vscode.l10n.t('Edit as JSON…'), description: vscode.l10n.t('change the arguments as a JSON object'), value: AS_JSON });
    const a = await this.inner.pick(review, { ...o, canDecline: false, placeholder: vscode.l10n.t('Review the arguments of {0}', this.toolName) } as PickOptions<T | typeof AS_JSON>);
    if ('nav' in a || a.value[0] !== AS_JSON) return a as Answer<T[]>;
    // Accept ends the form with its content, which the JSON box then starts from.
    this.asJson = true;
    return { value: items.filter((i) => event(i.value) === 'accept').map((i) => i.value) };
  }

  input(o: InputOptions): Promise<Answer<string>> {
    return this.inner.input({ ...o, canDecline: false });
  }

  openExternal(): Promise<boolean> {
    return Promise.resolve(false);
  }

  close(): void {
    this.inner.close();
  }
}

/**
 * Asks a tool's arguments: `{}` at once when it takes none, a form built from its inputSchema,
 * or a JSON object when no form fits. Undefined when the user cancelled.
 */
export async function askArguments(tool: Tool, title: string): Promise<Record<string, unknown> | undefined> {
  const props = tool.inputSchema.properties ?? {};
  if (!Object.keys(props).length) return {};
  let why = unusual(tool.inputSchema);
  if (!why) {
    const label = tool.title ?? tool.annotations?.title ?? tool.name;
    // The spec's inputSchema is always an object; some servers leave `type` out.
    const plan = planElicitation({ message: label, requestedSchema: { ...tool.inputSchema, type: 'object' } }, { url: false });
    if (plan.ok && plan.mode === 'form') {
      const prompter = new ToolFormPrompter(tool.name);
      const result = await runForm(plan, prompter, { title, signal: NEVER });
      if (result.action !== 'accept') return undefined;
      return prompter.asJson ? askJson(tool, title, result.content ?? {}) : (result.content ?? {});
    }
    if (!plan.ok) why = plan.error.message.replace(/^Invalid elicitation request: /, '');
  }
  return askJson(tool, title, template(tool), why);
}

/** A starting point for the JSON box: defaults, and empty values of the right type for required properties. */
function template(tool: Tool): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
    const s = schema as { default?: unknown; type?: string };
    if (s.default !== undefined) out[name] = s.default;
    else if (tool.inputSchema.required?.includes(name)) out[name] = s.type === 'number' || s.type === 'integer' ? 0 : s.type === 'boolean' ? false : s.type === 'array' ? [] : s.type === 'object' ? {} : '';
  }
  return out;
}

/** The arguments as one JSON object (the fallback, and "Edit as JSON…"). */
async function askJson(tool: Tool, title: string, start: Record<string, unknown>, why?: string): Promise<Record<string, unknown> | undefined> {
  const props = Object.keys(tool.inputSchema.properties ?? {}).join(', ');
  const value = await vscode.window.showInputBox({
    title,
    prompt: why
      ? vscode.l10n.t('Arguments as a JSON object (no form for this tool: {0}). Properties: {1}', why, props)
      : vscode.l10n.t('Arguments as a JSON object. Properties: {0}', props),
    value: JSON.stringify(start),
    ignoreFocusOut: true,
    validateInput: (v) => {
      try {
        const parsed: unknown = JSON.parse(v);
        return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? undefined : vscode.l10n.t('Enter a JSON object, e.g. {"name": "value"}');
      } catch (err) {
        return vscode.l10n.t('Not valid JSON: {0}', errorMessage(err));
      }
    },
  });
  return value === undefined ? undefined : (JSON.parse(value) as Record<string, unknown>);
}

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** No server keeps a task for longer than a year; longer asks are typos. */
const MAX_TTL_MS = 365 * UNITS.d;

/** A typed duration in ms ("90s", "45m", "2h", "7d"; a bare number is minutes), or why it is not one. */
export function parseDuration(text: string): { ms: number } | { error: string } {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*$/i.exec(text);
  if (!m) return { error: vscode.l10n.t('Enter a number of minutes, or a number with a unit: 90s, 45m, 2h, 7d') };
  const ms = Math.round(Number(m[1]) * UNITS[(m[2] || 'm').toLowerCase()]);
  if (ms < 1000) return { error: vscode.l10n.t('Enter at least one second') };
  if (ms > MAX_TTL_MS) return { error: vscode.l10n.t('Enter at most 365 days') };
  return { ms };
}

/**
 * Asks how long the server should keep the task: the default (the mcpTasks.defaultTtlSeconds
 * setting, or the server's choice) first, so Enter keeps it. `{ ttlMs: undefined }` is the
 * default; undefined means cancelled.
 */
export async function askTtl(title: string): Promise<{ ttlMs?: number } | undefined> {
  const seconds = vscode.workspace.getConfiguration('mcpTasks').get<number>('defaultTtlSeconds', 3600);
  const defaultMs = seconds > 0 ? seconds * 1000 : undefined;
  type Item = vscode.QuickPickItem & { ttlMs?: number; custom?: true };
  const choices: Item[] = [
    { label: vscode.l10n.t('10 minutes'), ttlMs: 10 * UNITS.m },
    { label: vscode.l10n.t('1 hour'), ttlMs: UNITS.h },
    { label: vscode.l10n.t('1 day'), ttlMs: UNITS.d },
  ];
  const items: Item[] = [
    {
      label: `$(history) ${vscode.l10n.t('Default')}`,
      description: defaultMs ? vscode.l10n.t('{0}, from the setting mcpTasks.defaultTtlSeconds', formatAge(defaultMs)) : vscode.l10n.t('the server decides'),
    },
    ...choices.filter((c) => c.ttlMs !== defaultMs),
    { label: `$(edit) ${vscode.l10n.t('Custom…')}`, description: vscode.l10n.t('type a duration'), custom: true },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title,
    placeHolder: vscode.l10n.t('How long should the server keep the task and its result? (It may keep it for less.)'),
    ignoreFocusOut: true,
  });
  if (!picked) return undefined;
  if (!picked.custom) return { ttlMs: picked.ttlMs };
  const text = await vscode.window.showInputBox({
    title,
    prompt: vscode.l10n.t('How long the server should keep the task: minutes, or a number with a unit (90s, 45m, 2h, 7d)'),
    placeHolder: vscode.l10n.t('e.g. 30m'),
    ignoreFocusOut: true,
    validateInput: (v) => {
      const r = parseDuration(v);
      return 'error' in r ? r.error : undefined;
    },
  });
  if (text === undefined) return undefined;
  const r = parseDuration(text);
  return 'ms' in r ? { ttlMs: r.ms } : undefined;
}
