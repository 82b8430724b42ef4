// What the language-model tools answer: a few sentences that tell the model where a task stands
// and what to do next, and a compact JSON object with the same facts for exact reading. Pure, so
// every answer is unit-tested.
import { STATUS_PRESENTATION, formatProgress } from '../tasks/presentation';
import type { ResultInfo, ServerInfo, TaskInfo, ToolInfo } from './service';
import { isObjectLike, isString, jsonOrText, safeStringify } from '../util/json';
import { entriesOf, isArray, maxOf, round } from '../util/builtins';
import type { UrlPlan } from '../elicitation/plan';
import { urlsRequired } from '../elicitation/urlRequired';
import { COMPLETED, FAILED, INPUT_REQUIRED, WORKING } from '../protocol/schemas';
import { SERVER_LIST } from '../tasks/types';
import { isTerminal } from '../tasks/status';
import { formatCount, head, serverNamed } from '../util/text';

/** A tool's answer: text for the model, and the structured facts (sent as a JSON part). */
export interface ModelAnswer {
  text: string;
  data: Record<string, unknown>;
}

/** Result text beyond this is cut (the full result stays in the MCP Tasks view). */
export const MAX_RESULT_CHARS = 30_000;
const MAX_DESCRIPTION_CHARS = 400;
/** A tool's input schema up to this size (as JSON) is sent whole, a larger one as its summary. */
const MAX_SCHEMA_CHARS = 4000;
/** A server's message about a task (status, progress, error) beyond this is cut: a server may send megabytes. */
const MAX_MESSAGE_CHARS = 2000;

const clip = (s: string, max: number): string => (s.length <= max ? s : `${head(s, max - 1)}…`);

const kb = (base64: unknown) => formatCount(maxOf(1, round(((isString(base64) ? base64.length : 0) * 3) / 4 / 1024)));

/** One input of a tool, in the fewest words a model needs to fill it in. */
export interface InputSummary {
  name: string;
  type?: string;
  required: boolean;
  description?: string;
  enum?: unknown[];
  default?: unknown;
}

/** A tool's JSON Schema, reduced to its top-level properties (for a schema too large to send whole). */
export const summarizeInputs = (schema: Record<string, unknown>): InputSummary[] => {
  const properties = schema.properties;
  if (!isObjectLike(properties)) return [];
  const required = new Set(isArray(schema.required) ? schema.required.filter((r): r is string => isString(r)) : []);
  return entriesOf(properties as Record<string, unknown>).map(([name, raw]) => {
    const p = isObjectLike(raw) ? (raw as Record<string, unknown>) : {};
    const type = isArray(p.type) ? p.type.join(' | ') : isString(p.type) ? p.type : undefined;
    const oneOf = isArray(p.oneOf) ? p.oneOf.map((o: unknown) => (isObjectLike(o) ? (o as Record<string, unknown>).const : undefined)).filter((c) => c !== undefined) : [];
    const values = isArray(p.enum) ? p.enum : oneOf.length ? oneOf : undefined;
    return {
      name,
      type,
      required: required.has(name),
      description: isString(p.description) ? clip(p.description, MAX_DESCRIPTION_CHARS) : undefined,
      enum: values,
      default: p.default,
    };
  });
};

/** A server's tools as listed, or why they could not be. */
export interface ServerTools {
  server: ServerInfo;
  tools?: ToolInfo[];
  error?: string;
  /** Not connected, so as not to ask the user: the id of the input it needs. */
  needsInput?: string;
  /** Not connected: the user disconnected it (or dismissed its input), and only they connect it again. */
  held?: boolean;
}

/** mcpTasks_listTools: the tools that can run as tasks, server by server. */
export const formatToolList = (entries: readonly ServerTools[]): ModelAnswer => {
  const tools = entries.flatMap((e) => (e.tools ?? []).filter((t) => t.runsAsTask).map((t) => ({ server: e.server.label, t })));
  const lines: string[] = [];
  if (entries.length === 0) lines.push('No MCP servers are configured in MCP Tasks.');
  else lines.push(tools.length ? `${formatCount(tools.length)} tool${tools.length === 1 ? '' : 's'} can run as tasks:` : 'No tool can run as a task.');
  for (const { server, t } of tools) {
    lines.push(`- server "${server}", tool "${t.name}" (taskSupport ${t.taskSupport})${t.description ? `: ${clip(t.description, MAX_DESCRIPTION_CHARS)}` : ''}`);
  }
  for (const e of entries) {
    const server = serverNamed(e.server.label);
    if (e.error) lines.push(`${server} could not be reached: ${e.error}`);
    else if (e.needsInput !== undefined) lines.push(`${server} was not connected: it needs input "${e.needsInput}" from the user. To list its tools, call mcpTasks_listTools with server "${e.server.label}" (the user is asked).`);
    else if (e.held) lines.push(`${server} was not connected: the user disconnected it (or dismissed its input). Name it (mcpTasks_listTools with server "${e.server.label}") only if the user wants it connected again.`);
    else if (e.tools && !e.server.tasks?.toolCalls) lines.push(`${server} does not run tools as tasks.`);
  }
  if (tools.length) lines.push('', 'Start one with mcpTasks_startTask (server, tool, arguments). Each tool\'s inputs are in the JSON part.');
  return {
    text: lines.join('\n'),
    data: {
      servers: entries.map((e) => ({ server: e.server.label, state: e.error ? 'error' : e.needsInput !== undefined ? 'needsInput' : e.held ? 'disconnected' : e.server.state, error: e.error, needsInput: e.needsInput, tasks: e.server.tasks?.toolCalls ?? false })),
      tools: tools.map(({ server, t }) => ({
        server,
        tool: t.name,
        title: t.title,
        taskSupport: t.taskSupport,
        description: t.description && clip(t.description, MAX_DESCRIPTION_CHARS),
        // The schema itself, as models read every tool's (its anyOf, $ref and items included); only one too large for the context is summarized.
        ...(safeStringify(t.inputSchema).length <= MAX_SCHEMA_CHARS ? { inputSchema: t.inputSchema } : { inputs: summarizeInputs(t.inputSchema) }),
      })),
    },
  };
};

/**
 * The task with the server's strings cut to MAX_MESSAGE_CHARS, as every answer gives it. Its
 * immediate response ("started, about 5 minutes") is news while it runs, not once it has ended.
 */
const bounded = (t: TaskInfo): TaskInfo => {
  const c = (s?: string) => s && clip(s, MAX_MESSAGE_CHARS);
  return { ...t, statusMessage: c(t.statusMessage), immediateResponse: isTerminal(t.status) ? undefined : c(t.immediateResponse), note: c(t.note), progress: t.progress && { ...t.progress, message: c(t.progress.message) } };
};

/** The facts of a task a model needs, without the editor's ids. */
export const modelTask = (t: TaskInfo): Record<string, unknown> => {
  return {
    taskId: t.taskId,
    server: t.serverLabel,
    tool: t.toolName || undefined,
    status: t.status,
    statusMessage: t.statusMessage,
    progress: t.progress,
    createdAt: t.createdAt,
    lastUpdatedAt: t.lastUpdatedAt,
    ttlSeconds: t.ttl === null ? null : round(t.ttl / 1000),
    startedBy: t.origin,
    immediateResponse: t.immediateResponse,
    hasResult: t.hasResult,
    note: t.note,
  };
};

/** What to do next with a task in this status. */
const nextStep = (t: TaskInfo): string => {
  switch (t.status) {
    case WORKING:
      return 'It runs in the background: check it with mcpTasks_getTask, or wait for its result with mcpTasks_getResult (waitSeconds up to 120).';
    case INPUT_REQUIRED:
      return 'It waits for the user, who is asked a question in the editor; it goes on once answered.';
    case COMPLETED:
    case FAILED:
      return 'Read its result with mcpTasks_getResult.';
    default:
      // A lost or expired task keeps a result fetched before it was lost.
      return t.hasResult ? 'It has ended; read the result it had with mcpTasks_getResult.' : 'It has ended and has no result.';
  }
};

/** One sentence on where a task stands. */
export const describeTaskForModel = (t: TaskInfo): string => {
  const progress = t.status === WORKING || t.status === INPUT_REQUIRED ? formatProgress(t.progress) : undefined;
  const details = [t.statusMessage, progress && `progress ${progress}`, t.note].filter(Boolean).join('; ');
  const what = t.toolName ? `"${t.toolName}" on server "${t.serverLabel}"` : `on server "${t.serverLabel}"`;
  return `Task "${t.taskId}" (${what}) is ${STATUS_PRESENTATION[t.status].label.toLowerCase()}${details ? ` (${details})` : ''}. Created ${t.createdAt}, last updated ${t.lastUpdatedAt}.`;
};

/** mcpTasks_startTask, mcpTasks_getTask and mcpTasks_cancelTask: a task as it stands. */
export const formatTask = (task: TaskInfo, lead?: string): ModelAnswer => {
  const t = bounded(task);
  const lines = [lead, describeTaskForModel(t)].filter((l): l is string => !!l);
  if (t.immediateResponse) lines.push(`The server said: ${t.immediateResponse}`);
  lines.push(nextStep(t));
  return { text: lines.join('\n'), data: { task: modelTask(t) } };
};

/** mcpTasks_getTask without a task id: the tracked tasks (of `server`, when given), newest first. */
export const formatTaskList = (tasks: readonly TaskInfo[], server?: string, max = 20): ModelAnswer => {
  const shown = tasks.slice(0, max).map(bounded);
  const of = server ? ` for server "${server}"` : '';
  const lines = [tasks.length ? `${formatCount(tasks.length)} task${tasks.length === 1 ? ' is' : 's are'} tracked${of}${tasks.length > max ? ` (the newest ${max} shown)` : ''}:` : `No tasks are tracked${of}.`];
  for (const t of shown) lines.push(`- ${describeTaskForModel(t)}`);
  return { text: lines.join('\n'), data: { tasks: shown.map(modelTask) } };
};

type Block = Record<string, unknown> & { type: string };

/** One content block as text; binary content is described, never pasted. */
const blockText = (b: Block): string => {
  const s = (v: unknown) => (isString(v) ? v : '');
  switch (b.type) {
    case 'text':
      return s(b.text);
    case 'image':
    case 'audio':
      return `[${b.type} (${s(b.mimeType)}, ${kb(b.data)} KB), not included]`;
    case 'resource_link':
      return `[resource link: ${s(b.title) || s(b.name) || s(b.uri)} <${s(b.uri)}>${b.description ? ` ${s(b.description)}` : ''}]`;
    case 'resource': {
      const r = isObjectLike(b.resource) ? (b.resource as Record<string, unknown>) : {};
      if (isString(r.text)) return `[embedded resource ${s(r.uri)}]\n${r.text}`;
      return `[embedded resource ${s(r.uri)} (${s(r.mimeType)}, ${kb(r.blob)} KB), not included]`;
    }
    default:
      return `[content of type "${b.type}"]\n${safeStringify(b)}`;
  }
};

/** mcpTasks_getResult: the outcome when the task ended, else where it stands. */
export const formatResult = (r: ResultInfo, waited: { seconds: number; capped: boolean }): ModelAnswer => {
  const t = bounded(r.task);
  const data: Record<string, unknown> = { task: modelTask(t), done: r.done };
  if (!r.done) {
    const lead = r.fetchError ? 'The task had not ended when last checked.' : waited.seconds > 0 ? `The task has not ended after waiting ${waited.seconds} s${waited.capped ? ' (the longest wait allowed)' : ''}.` : 'The task has not ended yet.';
    if (r.fetchError) data.error = clip(r.fetchError, MAX_MESSAGE_CHARS);
    return { text: [lead, describeTaskForModel(t), data.error ?? nextStep(t)].join('\n'), data };
  }
  const lines = [describeTaskForModel(t)];
  const o = r.outcome;
  if (!o) {
    data.error = r.fetchError && clip(r.fetchError, MAX_MESSAGE_CHARS);
    lines.push(`No result: ${data.error ?? 'the server kept none.'}`);
  } else if (o.kind === 'error') {
    const message = clip(o.error.message, MAX_MESSAGE_CHARS);
    lines.push(`The server answered with JSON-RPC error ${o.error.code}: ${message}`);
    const required = urlsRequired(o.error);
    // A -32042 error's data holds URLs, which the model is not given (the text names the steps).
    const json = required || o.error.data === undefined ? undefined : safeStringify(o.error.data);
    // The Open Result of a task found through tasks/list offers nothing: its call is unknown.
    if (required?.ok) lines.push(browserSteps(required.plans, t.origin === SERVER_LIST ? 'Run Tool as Task' : 'Open Result on this task'));
    else if (json !== undefined) lines.push(`Error data: ${clip(json, MAX_MESSAGE_CHARS)}`);
    data.error = { code: o.error.code, message, data: json === undefined ? undefined : json.length > MAX_MESSAGE_CHARS ? clip(json, MAX_MESSAGE_CHARS) : o.error.data };
  } else {
    const res = o.result;
    lines.push(res.isError ? 'The tool reported an error (isError). Its output:' : 'The result:');
    const body = (res.content as Block[]).map(blockText).join('\n\n') || '(the result has no content)';
    const kept = head(body, MAX_RESULT_CHARS);
    lines.push(body.length > MAX_RESULT_CHARS ? `${kept}\n[… ${formatCount(body.length - kept.length)} more characters cut; the full result is in the MCP Tasks view]` : body);
    data.isError = res.isError === true;
    const json = res.structuredContent && safeStringify(res.structuredContent);
    // A tool SHOULD send its structured content as JSON text too (2025-06-18): whole in the text part, it is not sent again.
    if (json && (body.length > MAX_RESULT_CHARS || safeStringify(jsonOrText(body)) !== json)) {
      data.structuredContent = json.length > MAX_RESULT_CHARS ? `[${formatCount(json.length)} characters of structured content cut; open the result in the MCP Tasks view]` : res.structuredContent;
    }
  }
  return { text: lines.join('\n'), data };
};

/**
 * What a -32042 error (URLElicitationRequiredError) asks of the user, for the model: each step by
 * the server's message and the URL's domain. Never the URL: it opens only with the user's consent
 * (`where`, in the view), which a model that opened it itself would skip.
 */
const browserSteps = (plans: readonly UrlPlan[], where: string): string => {
  return `The user must first complete in their browser: ${plans.map((p) => `${p.message} (${p.domain})`).join('; ')}. ${where} in the MCP Tasks view opens the URL with their consent, then runs the tool again.`;
};

/** Why mcpTasks_startTask failed when the server refused the call until the user completes a step in the browser (-32042). */
export const browserRefusal = (message: string, plans: readonly UrlPlan[]): string => `${message} No task was started. ${browserSteps(plans, 'Run Tool as Task')}`;
