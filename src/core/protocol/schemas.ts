import * as z from 'zod/mini';
import { OptionalBoolean, OptionalJsonObject, OptionalNumber, OptionalString, OptionalStrings, OptionalUnknown, fallback } from '../util/zod';

/** Revisions this client speaks, newest first. Tasks exist only in 2025-11-25. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

export const RELATED_TASK_META = 'io.modelcontextprotocol/related-task';
export const MODEL_IMMEDIATE_RESPONSE_META = 'io.modelcontextprotocol/model-immediate-response';

/**
 * Whether a capability flag says supported: present, but not `false` or `null` (a server that
 * writes `"cancel": false` does not offer it). The spec says `object`; some servers send `true`,
 * so the schemas below read a flag as any value (`OptionalUnknown`).
 */
export const declared = (flag: unknown): boolean => flag !== undefined && flag !== null && flag !== false;

export const ServerTasksCapabilitySchema = z.looseObject({
  list: OptionalUnknown,
  cancel: OptionalUnknown,
  requests: z.optional(
    z.looseObject({
      tools: z.optional(z.looseObject({ call: OptionalUnknown })),
    }),
  ),
});

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: OptionalJsonObject,
  logging: OptionalUnknown,
  completions: OptionalUnknown,
  prompts: z.optional(z.looseObject({ listChanged: OptionalBoolean })),
  resources: z.optional(z.looseObject({ subscribe: OptionalBoolean, listChanged: OptionalBoolean })),
  tools: z.optional(z.looseObject({ listChanged: OptionalBoolean })),
  tasks: z.optional(ServerTasksCapabilitySchema),
});
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: OptionalString,
});
export type Implementation = z.infer<typeof ImplementationSchema>;

export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: OptionalString,
});
export type InitializeResult = z.infer<typeof InitializeResultSchema>;

export const TaskSupportSchema = z.literal(['forbidden', 'optional', 'required']);
export type TaskSupport = z.infer<typeof TaskSupportSchema>;

export const ToolSchema = z.looseObject({
  name: z.string(),
  title: OptionalString,
  description: OptionalString,
  inputSchema: z.looseObject({ type: OptionalString, properties: OptionalJsonObject, required: OptionalStrings }),
  outputSchema: OptionalJsonObject,
  annotations: z.optional(z.looseObject({ title: OptionalString })),
  // An unknown taskSupport value is read as absent (forbidden), never as permission.
  execution: z.optional(z.looseObject({ taskSupport: z.optional(fallback(z.optional(TaskSupportSchema), undefined)) })),
  _meta: OptionalJsonObject,
});
export type Tool = z.infer<typeof ToolSchema>;

/** A page's `nextCursor`: `null`, which some servers send for the last page, ends the list as its absence does. */
const NextCursorSchema = z.optional(z.nullable(z.string()));

export const ListToolsResultSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: NextCursorSchema,
});

/** The method of a server's question to the user: one string in the bundle for its 7 uses. */
export const ELICITATION_CREATE = 'elicitation/create';
/** The notification of a URL-mode elicitation the server saw completed (its dialog closes). */
export const ELICITATION_COMPLETE = 'notifications/elicitation/complete';
/** The method of a server's sampling request, likewise. */
export const SAMPLING_CREATE = 'sampling/createMessage';
/** The methods of tools and tasks that both sides use, likewise one string each in the bundle. */
export const TOOLS_CALL = 'tools/call';
export const TOOLS_LIST = 'tools/list';
export const TASKS_GET = 'tasks/get';
export const TASKS_RESULT = 'tasks/result';
export const TASKS_LIST = 'tasks/list';
export const TASKS_CANCEL = 'tasks/cancel';
export const TASKS_STATUS = 'notifications/tasks/status';
/** The status of a task that waits for its requestor (T-REQ-3): one string in the bundle, not one at each of its 22 uses. */
export const INPUT_REQUIRED = 'input_required';
/** The other statuses of a task (T-LIFE), likewise one string each in the bundle. */
export const WORKING = 'working';
export const COMPLETED = 'completed';
export const FAILED = 'failed';
export const CANCELLED = 'cancelled';
export const TaskStatusSchema = z.literal([WORKING, INPUT_REQUIRED, COMPLETED, FAILED, CANCELLED]);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

export const TaskSchema = z.looseObject({
  // Ids are a UUID or so (T-RCV-3 has ours random); 1,000 UTF-16 units leave room for one that
  // encodes state, while forty of 15 MB made the saved index longer than a string can be. A check
  // of ours (esbuild.js's ZOD_FIXED holds for no size cap of zod's); fastCheck reads its maximum.
  taskId: z.string().check(
    z.minLength(1),
    z.check<string>(
      (ctx) => {
        if (ctx.value.length > 1000) ctx.issues.push({ code: 'custom', message: 'longer than 1,000 characters', input: ctx.value });
      },
      { maximum: 1000 } as never,
    ),
  ),
  status: TaskStatusSchema,
  // A message that is not text (null, from a server that writes its empty fields) reads as none,
  // as advice that is not a finite number does (a string, 1e400): the answer stays valid, so the
  // task still moves.
  statusMessage: fallback(OptionalString, undefined),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  ttl: fallback(z.nullable(z.number()), null),
  pollInterval: fallback(OptionalNumber, undefined),
});
export type Task = z.infer<typeof TaskSchema>;

export const CreateTaskResultSchema = z.looseObject({
  task: TaskSchema,
  _meta: OptionalJsonObject,
});
export type CreateTaskResult = z.infer<typeof CreateTaskResultSchema>;

export const ListTasksResultSchema = z.looseObject({
  tasks: z.array(z.unknown()),
  nextCursor: NextCursorSchema,
});

export const ContentBlockSchema = z.looseObject({ type: z.string() });

export const CallToolResultSchema = z.looseObject({
  content: z.array(ContentBlockSchema),
  structuredContent: OptionalJsonObject,
  isError: OptionalBoolean,
  _meta: OptionalJsonObject,
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

export const EmptyResultSchema = z.looseObject({});

export const LoggingMessageParamsSchema = z.looseObject({
  level: z.string(),
  logger: OptionalString,
  data: z.unknown(),
});
