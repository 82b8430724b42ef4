import * as z from 'zod/mini';
import { isNumber, isObject, isString } from '../util/json';
import { JsonObject, OptionalJsonObject, OptionalUnknown, SafeInt } from '../util/zod';
import { isInteger, isSafeInteger } from '../util/builtins';

/** Ids are strings or integers; servers may not send null ids in requests. */
export const RequestIdSchema = z.union([z.string(), SafeInt]);
export type RequestId = z.infer<typeof RequestIdSchema>;

const Params = OptionalJsonObject;

export const JsonRpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  method: z.string(),
  params: Params,
});
export type JsonRpcRequest = z.infer<typeof JsonRpcRequestSchema>;

export const JsonRpcNotificationSchema = z.object({
  jsonrpc: z.literal('2.0'),
  method: z.string(),
  params: Params,
});
export type JsonRpcNotification = z.infer<typeof JsonRpcNotificationSchema>;

export const JsonRpcResultResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: RequestIdSchema,
  result: JsonObject,
});

export const JsonRpcErrorObjectSchema = z.object({
  code: SafeInt,
  message: z.string(),
  data: OptionalUnknown,
});

export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  // null or absent (schema.ts: `id?`) when the peer could not read our id (parse error).
  id: z.optional(z.nullable(RequestIdSchema)),
  error: JsonRpcErrorObjectSchema,
});

export type JsonRpcResponse =
  | z.infer<typeof JsonRpcResultResponseSchema>
  | z.infer<typeof JsonRpcErrorResponseSchema>;

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What kind of message a value is, decided by its keys before the shape is validated. */
export type Classified =
  | { kind: 'request'; msg: JsonRpcRequest }
  | { kind: 'notification'; msg: JsonRpcNotification }
  | { kind: 'result'; id: RequestId; result: Record<string, unknown> }
  | { kind: 'error'; id: RequestId | null; error: { code: number; message: string; data?: unknown } }
  /** `response`: it was meant as an answer (it has `result` or `error`), so the request it names is answered, badly. */
  | { kind: 'invalid'; id: RequestId | null; problem: string; response?: boolean };

/** A value that is not a valid message; `response`: it was meant as an answer (see Classified). */
const invalid = (id: RequestId | null, problem: string, response?: true): Classified =>
  response ? { kind: 'invalid', id, problem, response } : { kind: 'invalid', id, problem };

/** Validates one incoming value as a JSON-RPC message. Never throws. */
export const classify = (value: unknown): Classified => {
  if (!isObject(value)) return invalid(null, 'message is not a JSON object');
  // The common case, checked by hand: a well-formed result. For every value JSON.parse makes (all
  // a transport delivers) it accepts exactly what JsonRpcResultResponseSchema accepts (an object
  // result, a string or safe-integer id: messages.test.ts holds the two side by side), and returns
  // the same result (zod drops a `__proto__` key: such a result takes the schema). Anything else
  // takes the schema below, which decides and words the problem.
  const r = value.result;
  if (
    value.jsonrpc === '2.0' &&
    isObject(r) &&
    !Object.prototype.hasOwnProperty.call(r, '__proto__') &&
    !('method' in value) &&
    !('error' in value) &&
    (isString(value.id) || isSafeInteger(value.id))
  ) {
    return { kind: 'result', id: value.id as RequestId, result: r };
  }
  const rawId = value.id;
  const id = isString(rawId) || (isNumber(rawId) && isInteger(rawId)) ? rawId : null;
  if ('method' in value) {
    if ('id' in value) {
      const r = JsonRpcRequestSchema.safeParse(value);
      return r.success
        ? { kind: 'request', msg: r.data }
        : invalid(id, `invalid request: ${describeIssues(r.error)}`);
    }
    const n = JsonRpcNotificationSchema.safeParse(value);
    return n.success
      ? { kind: 'notification', msg: n.data }
      : invalid(null, `invalid notification: ${describeIssues(n.error)}`);
  }
  // JSON-RPC 2.0 §5: "Either the result member or error member MUST be included, but both members MUST NOT be included."
  if ('result' in value && 'error' in value) return invalid(id, 'a response with both result and error', true);
  if ('result' in value) {
    const r = JsonRpcResultResponseSchema.safeParse(value);
    return r.success
      ? { kind: 'result', id: r.data.id, result: r.data.result }
      : invalid(id, `invalid response: ${describeIssues(r.error)}`, true);
  }
  if ('error' in value) {
    const r = JsonRpcErrorResponseSchema.safeParse(value);
    return r.success
      ? { kind: 'error', id: r.data.id ?? null, error: r.data.error }
      : invalid(id, `invalid error response: ${describeIssues(r.error)}`, true);
  }
  return invalid(id, 'message has neither method, result nor error');
};

interface Issue {
  path: PropertyKey[];
  message: string;
  code?: string;
  expected?: unknown;
}

/** A zod error's issues in one readable line: `params.task.ttl: expected number; id: invalid`. */
export const describeIssues = ({ issues }: { issues: readonly Issue[] }, max = 3): string => {
  const parts = issues.slice(0, max).map((i) => {
    const where = i.path.length ? i.path.map(String).join('.') : '(root)';
    const what =
      i.code === 'invalid_type' && i.expected ? `expected ${String(i.expected)}` : i.message.toLowerCase();
    return `${where}: ${what}`;
  });
  if (issues.length > max) parts.push(`and ${issues.length - max} more`);
  return parts.join('; ');
};
