import * as z from 'zod/mini';
import { ErrorCode, RpcError } from '../jsonrpc/errors';
import { describeIssues } from '../jsonrpc/messages';
import { SAMPLING_CREATE } from '../protocol/schemas';
import { isObject, stringify } from '../util/json';
import { floor, isArray, maxOf, minOf } from '../util/builtins';
import { OptionalJsonObject, OptionalNumber, OptionalString, OptionalStrings, OptionalUnknown, atLeast, base64, fallback } from '../util/zod';
import { head, oneLine } from '../util/text';

// The params of `sampling/createMessage` (2025-11-25), validated at the boundary. Content may be
// one block or an array of blocks; both read as an array. Unknown keys are kept out of the plan.

const Base64 = base64('expected base64-encoded data');
const Mime = z.string().check(z.minLength(1, { error: 'expected a MIME type' }));
// The blocks of each type, as the spec has them.
const Blocks = {
  text: z.looseObject({ type: z.literal('text'), text: z.string() }),
  image: z.looseObject({ type: z.literal('image'), data: Base64, mimeType: Mime }),
  audio: z.looseObject({ type: z.literal('audio'), data: Base64, mimeType: Mime }),
  // Read only to refuse them with a clear message: this client does not declare sampling.tools.
  tool_use: z.looseObject({ type: z.literal('tool_use') }),
  tool_result: z.looseObject({ type: z.literal('tool_result') }),
};
type ContentBlock = z.output<(typeof Blocks)[keyof typeof Blocks]>;

/**
 * A block of a known type, checked by its type's schema: what z.discriminatedUnion does, in the
 * same words (an unknown type is a problem at `type`; a block's own problems at their field),
 * without zod's discriminated unions.
 */
const ContentBlockSchema = z
  .looseObject({
    type: z.literal(['text', 'image', 'audio', 'tool_use', 'tool_result'], { error: 'expected a content block of type text, image, audio, tool_use or tool_result' }),
  })
  .check(
    z.check((ctx) => {
      const r = Blocks[ctx.value.type].safeParse(ctx.value);
      if (!r.success) ctx.issues.push(...(r.error.issues as z.core.$ZodRawIssue[]));
    }),
  ) as z.ZodMiniType<ContentBlock>;

export const SamplingMessageSchema = z.looseObject({
  role: z.literal(['user', 'assistant'], { error: 'expected "user" or "assistant"' }),
  // One block is made an array of it before (withContentArrays).
  content: z.array(ContentBlockSchema),
});

export const CreateMessageParamsSchema = z.looseObject({
  messages: z.array(SamplingMessageSchema).check(z.minLength(1, { error: 'at least one message is required' })),
  // Advisory: a malformed preference is dropped, never a reason to refuse.
  modelPreferences: z.optional(
    fallback(z.looseObject({ hints: z.optional(z.array(fallback(z.looseObject({ name: OptionalString }), {}))) }), {}),
  ),
  systemPrompt: OptionalString,
  includeContext: z.optional(z.literal(['none', 'thisServer', 'allServers'], { error: 'expected "none", "thisServer" or "allServers"' })),
  temperature: OptionalNumber,
  // Any positive number: a fraction is rounded down, a huge one means no limit worth counting.
  maxTokens: z.number().check(atLeast(1, 'expected a positive number of tokens')),
  stopSequences: OptionalStrings,
  metadata: OptionalJsonObject,
  tools: OptionalUnknown,
  toolChoice: OptionalUnknown,
});

/** One part of a message, in the shape the editor side converts to its language model parts. */
export type PlanPart = { kind: 'text'; text: string } | { kind: 'image' | 'audio'; mimeType: string; data: string };

export interface PlanMessage {
  role: 'user' | 'assistant';
  parts: PlanPart[];
}

/** A validated sampling request, free of protocol details. */
export interface SamplingPlan {
  /** The conversation as the server sent it (the system prompt is not folded in here). */
  messages: PlanMessage[];
  systemPrompt?: string;
  maxTokens: number;
  stopSequences: string[];
  /** `modelPreferences.hints[].name`, in the server's order. */
  hints: string[];
  temperature?: number;
  /** Set when the server asked for context other than `none` (this client never adds any). */
  includeContext?: string;
}

export type ParseResult = { ok: true; plan: SamplingPlan } | { ok: false; error: RpcError };

const invalid = (message: string): ParseResult => ({ ok: false, error: new RpcError(ErrorCode.InvalidParams, message) });

/**
 * `params` with each message's content that is one block (an object) made an array of it, the
 * rest as it is: the schema reads arrays alone (a transform in it would ship zod's pipes).
 */
const withContentArrays = (params: unknown): unknown =>
  isObject(params) && isArray(params.messages)
    ? { ...params, messages: params.messages.map((m: unknown) => (isObject(m) && isObject(m.content) ? { ...m, content: [m.content] } : m)) }
    : params;

/**
 * Validates `sampling/createMessage` params and turns them into a plan. Bad params give an
 * `InvalidParams` (-32602) error saying what is wrong; nothing here throws.
 */
export const parseCreateMessage = (params: unknown): ParseResult => {
  const parsed = CreateMessageParamsSchema.safeParse(withContentArrays(params ?? {}));
  if (!parsed.success) return invalid(`Invalid ${SAMPLING_CREATE} params: ${describeIssues(parsed.error)}`);
  const p = parsed.data;
  // The spec: a client MUST return an error for tools/toolChoice unless it declares sampling.tools.
  if (p.tools !== undefined || p.toolChoice !== undefined) {
    return invalid('This client does not support tool use in sampling (it does not declare the sampling.tools capability): remove tools and toolChoice.');
  }
  const messages: PlanMessage[] = [];
  for (const [i, m] of p.messages.entries()) {
    const parts: PlanPart[] = [];
    for (const block of m.content) {
      if (block.type === 'text') parts.push({ kind: 'text', text: block.text });
      else if (block.type === 'image' || block.type === 'audio') parts.push({ kind: block.type, mimeType: block.mimeType, data: block.data });
      else return invalid(`messages.${i}: ${block.type} content is not supported: this client does not declare the sampling.tools capability.`);
    }
    if (parts.length === 0) return invalid(`messages.${i}.content: a message needs at least one content block`);
    messages.push({ role: m.role, parts });
  }
  const hints = (p.modelPreferences?.hints ?? []).map((h) => h.name?.trim()).filter((n): n is string => !!n);
  return {
    ok: true,
    plan: {
      messages,
      systemPrompt: p.systemPrompt || undefined,
      maxTokens: minOf(floor(p.maxTokens), Number.MAX_SAFE_INTEGER),
      stopSequences: (p.stopSequences ?? []).filter((s) => s.length > 0),
      hints,
      temperature: p.temperature,
      includeContext: p.includeContext && p.includeContext !== 'none' ? p.includeContext : undefined,
    },
  };
};

/**
 * The messages to send to a model that has no system role (the editor's language model API):
 * the system prompt becomes the first text part of the first user message, or a user message of
 * its own when the conversation starts with the assistant.
 */
export const chatMessages = (plan: SamplingPlan): PlanMessage[] => {
  if (!plan.systemPrompt) return plan.messages;
  const system: PlanPart = { kind: 'text', text: plan.systemPrompt };
  const [first, ...rest] = plan.messages;
  if (first?.role === 'user') return [{ role: 'user', parts: [system, ...first.parts] }, ...rest];
  return [{ role: 'user', parts: [system] }, ...plan.messages];
};

// ── Preview for the consent prompt ─────────────────────────────────────────────────────────────

export interface SamplingPreview {
  /** One line: what the server wants answered (the last user text), for the prompt's placeholder. */
  summary: string;
  /** The request shortened for the log: server, system prompt, the latest messages (each part cut), max tokens. */
  text: string;
  /**
   * The whole request, nothing cut: every message and the full system prompt, so the user can
   * read all that would reach the model before allowing it ("Show Full Request").
   */
  full: string;
}

export interface PreviewOptions {
  serverLabel: string;
  /** The task the request belongs to, if any, and the tool it runs. */
  taskId?: string;
  toolName?: string;
}

/** Cuts text to `max` characters, saying how much was left out. */
export const shorten = (text: string, max: number, h = head(text, max)): string => (text.length <= max ? text : `${h}… (${text.length - h.length} more characters)`);

const describePart = (part: PlanPart, max: number): string => {
  if (part.kind === 'text') return shorten(part.text, max);
  // base64: 4 characters carry 3 bytes.
  const bytes = floor((part.data.length * 3) / 4) - (part.data.endsWith('==') ? 2 : part.data.endsWith('=') ? 1 : 0);
  return `[${part.kind} ${part.mimeType}, ${bytes < 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KB`}]`;
};

/** The request as a person reads it; each part cut to `maxChars`, only the last `maxMessages` messages. */
const describeRequest = (plan: SamplingPlan, o: PreviewOptions, maxChars: number, maxMessages: number): string => {
  const lines = [`MCP server "${o.serverLabel}" asks to use a language model${o.taskId ? ` for its task ${o.taskId}${o.toolName ? ` (tool ${o.toolName})` : ''}` : ''}.`];
  lines.push(`Max tokens: ${plan.maxTokens}`);
  if (plan.hints.length) lines.push(`Model hints: ${plan.hints.join(', ')}`);
  if (plan.stopSequences.length) lines.push(`Stop sequences: ${plan.stopSequences.map((s) => stringify(s)).join(', ')}`);
  if (plan.temperature !== undefined) lines.push(`Temperature: ${plan.temperature} (not passed on: the editor's language models take no portable temperature)`);
  if (plan.includeContext) lines.push(`Include context: ${plan.includeContext} (ignored: this client adds no context)`);
  if (plan.systemPrompt) lines.push('', 'System prompt:', shorten(plan.systemPrompt, maxChars));
  lines.push('', `Messages (${plan.messages.length}):`);
  const hidden = maxOf(0, plan.messages.length - maxMessages);
  if (hidden) lines.push(`(${hidden} earlier message${hidden === 1 ? '' : 's'} not shown)`);
  for (const m of plan.messages.slice(hidden)) lines.push(`[${m.role}] ${m.parts.map((p) => describePart(p, maxChars)).join(' ')}`);
  return lines.join('\n');
};

/** What the consent prompt shows of a request: its gist, a shortened text for the log, and the whole of it. */
export const previewSampling = (plan: SamplingPlan, o: PreviewOptions): SamplingPreview => {
  const lastUser = [...plan.messages].reverse().find((m) => m.role === 'user');
  const lastText = lastUser?.parts.find((p) => p.kind === 'text');
  // One line (the consent pick's placeholder shows it as sent): a bidi override would turn it around.
  // So is a part's MIME type, where the last user message has no text.
  const asked = lastText?.kind === 'text' ? oneLine(lastText.text).replace(/\s+/g, ' ').trim() : '';
  const summary = asked ? shorten(asked, 120) : lastUser ? oneLine(describePart(lastUser.parts[0]!, 120)) : '(no user message)';
  return {
    summary,
    // Each part cut to 500 characters, and the last 20 messages (earlier ones counted, not shown).
    text: describeRequest(plan, o, 500, 20),
    full: describeRequest(plan, o, Infinity, Infinity),
  };
};
