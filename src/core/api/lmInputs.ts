// Inputs of the language-model tools. The editor does not check a tool's input against its
// declared schema, and a model may send anything: each input is read here, and a mistake is
// reported in words a model can act on.
import { isNumber, isObject, isString, jsonOrText } from '../util/json';
import { isFiniteNumber, keysOf, minOf } from '../util/builtins';

/** The longest a tool call may wait for a task to end, in seconds. */
export const MAX_WAIT_SECONDS = 120;
/** The longest ttl a tool call may ask for, in seconds (a week). */
export const MAX_TTL_SECONDS = 7 * 24 * 3600;

/** A mistake in a tool's input; its message says what to send instead. */
export class ToolInputError extends Error {
  override readonly name = 'ToolInputError';
}

export interface StartTaskInput {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
  ttlSeconds?: number;
}
export interface TaskRefInput {
  taskId: string;
  server?: string;
}
export interface GetResultInput extends TaskRefInput {
  waitSeconds: number;
  /** The model asked for a longer wait than allowed (it was shortened). */
  waitCapped: boolean;
}

/** `text!`: a required string; `text`: an optional one; `object`: a JSON object; `seconds`: a number >= 0. */
type Kind = 'text!' | 'text' | 'object' | 'seconds';

const HINTS: Record<string, string> = {
  server: 'the server name as mcpTasks_listTools shows it',
  tool: 'the tool name as mcpTasks_listTools shows it',
  taskId: 'the taskId that mcpTasks_startTask returned',
  arguments: 'the tool\'s arguments, e.g. {"topic": "tides"}',
};

/** Reads `input` against `spec`: unknown properties, missing required ones and wrong types are refused. */
const read = (tool: string, input: unknown, spec: Record<string, Kind>): Record<string, unknown> => {
  const keys = keysOf(spec);
  const fail = (why: string) => new ToolInputError(`${tool}: ${why}.`);
  const o = input ?? {};
  if (!isObject(o)) throw fail(`the input must be a JSON object with the properties ${keys.join(', ')}`);
  const extra = keysOf(o).filter((k) => !keys.includes(k));
  if (extra.length) throw fail(`unknown propert${extra.length === 1 ? 'y' : 'ies'} ${extra.map((k) => `"${k}"`).join(', ')}; allowed: ${keys.join(', ')}${spec.arguments ? ` (the tool's own inputs go inside "arguments")` : ''}`);
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const kind = spec[key];
    let v = o[key];
    // Models often fill an optional text with "": that is leaving it out.
    if (kind === 'text' && isString(v) && v.trim() === '') v = undefined;
    if (v === undefined || v === null) {
      if (kind === 'text!') throw fail(`"${key}" is required: ${HINTS[key]}`);
      continue;
    }
    if (kind === 'seconds') {
      if (!isNumber(v) || !isFiniteNumber(v) || v < 0) throw fail(`"${key}" must be a number of seconds, 0 or more`);
    } else if (kind === 'object') {
      // Models now and then send an object as a JSON string: accepted when it parses to one.
      if (isString(v)) v = jsonOrText(v);
      if (!isObject(v)) throw fail(`"${key}" must be a JSON object: ${HINTS[key]}`);
    } else {
      // A task id such as "42" now and then comes as a number.
      if (key === 'taskId' && isFiniteNumber(v)) v = `${v}`;
      if (!isString(v) || v.trim() === '' || v.length > 1000) throw fail(`"${key}" must be a non-empty string (at most 1000 characters): ${HINTS[key]}`);
      v = v.trim();
    }
    out[key] = v;
  }
  return out;
};

export const readListToolsInput = (input: unknown): { server?: string } => read('mcpTasks_listTools', input, { server: 'text' });

export const readStartTaskInput = (input: unknown): StartTaskInput => {
  const tool = 'mcpTasks_startTask';
  const o = read(tool, input, { server: 'text!', tool: 'text!', arguments: 'object', ttlSeconds: 'seconds' }) as Partial<StartTaskInput>;
  const ttl = o.ttlSeconds;
  if (ttl !== undefined && (ttl < 1 || ttl > MAX_TTL_SECONDS)) throw new ToolInputError(`${tool}: "ttlSeconds" must be from 1 to ${MAX_TTL_SECONDS} (a week).`);
  return { ...o, arguments: o.arguments ?? {} } as StartTaskInput;
};

export const readGetTaskInput = (input: unknown): { taskId?: string; server?: string } => read('mcpTasks_getTask', input, { taskId: 'text', server: 'text' });

export const readGetResultInput = (input: unknown): GetResultInput => {
  const o = read('mcpTasks_getResult', input, { taskId: 'text!', server: 'text', waitSeconds: 'seconds' });
  const wait = (o.waitSeconds as number | undefined) ?? 0;
  return { ...(o as unknown as TaskRefInput), waitSeconds: minOf(wait, MAX_WAIT_SECONDS), waitCapped: wait > MAX_WAIT_SECONDS };
};

export const readCancelTaskInput = (input: unknown): TaskRefInput => read('mcpTasks_cancelTask', input, { taskId: 'text!', server: 'text' }) as unknown as TaskRefInput;
