/**
 * The public API of the MCP Tasks extension (`mcp-tasks.mcp-tasks`), version 1.
 *
 * Copy this file into your extension, then:
 *
 *   const ext = vscode.extensions.getExtension<McpTasksApi>('mcp-tasks.mcp-tasks');
 *   const api = await ext?.activate();
 *   if (api?.apiVersion === 1) { await api.whenReady(); ... }
 *
 * Everything the API returns is plain JSON-like data, copied for you: changing it changes
 * nothing in MCP Tasks. Tasks you start show in the MCP Tasks view as "Started by: api", and a
 * question such a task asks the user is shown by MCP Tasks, as for any task.
 *
 * Errors are told apart by `name`, not by their message, which may change:
 * - `UnknownTaskError`: no task with that id is tracked (`getResult`, `cancelTask`);
 * - `UnknownToolError`: the server has no tool of that name (`runTool`);
 * - `RpcError`: the server answered with a JSON-RPC error; it carries the error's numeric `code`
 *   (for one, -32602 when the server refused the arguments) and its `data` when it sent some;
 * - `TypeError`: an argument that is not what the method takes;
 * - `Error`: anything else (a server that cannot be reached, a tool that cannot run as asked).
 */
import type { Event } from 'vscode';

/** The spec's statuses, plus `expired` (its ttl ended) and `lost` (its server no longer has it). */
export type McpTaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled' | 'expired' | 'lost';

/**
 * `idle`: not connected, not yet or no longer (`disconnectedByUser` tells a Disconnect apart; any
 * other idle server connects when needed). `blocked`: the server may not start now (an untrusted
 * workspace, for one).
 */
export type McpServerState = 'idle' | 'connecting' | 'connected' | 'error' | 'blocked';

/** A tool's `execution.taskSupport`; a tool that declares none is `forbidden`. */
export type McpTaskSupport = 'forbidden' | 'optional' | 'required';

/** Who started a task; `server-list`: found on the server through `tasks/list`. */
export type McpTaskOrigin = 'user' | 'chat' | 'api' | 'server-list';

export interface McpServerInfo {
  /** Stable id of the configured server; what the other methods take. */
  id: string;
  /** Its name in the configuration. */
  name: string;
  /** The name users see (the name, made unique when two folders use the same one). */
  label: string;
  type: 'stdio' | 'http' | 'sse' | 'ws';
  state: McpServerState;
  /** For `error` and `blocked`: why, in a sentence. */
  stateMessage?: string;
  /**
   * `true` when the user disconnected it: its state is `idle`, as for a server not connected yet,
   * but nothing connects it in the background, so its live tasks are not followed until it is
   * connected again (by the user, or by a call that needs it, such as `runTool` or `getTools`).
   * Absent otherwise.
   */
  disconnectedByUser?: boolean;
  /** What the server declared about tasks; absent while it is not connected. */
  tasks?: {
    /** It runs `tools/call` as tasks. */
    toolCalls: boolean;
    list: boolean;
    cancel: boolean;
  };
}

export interface McpToolInfo {
  serverId: string;
  name: string;
  title?: string;
  description?: string;
  taskSupport: McpTaskSupport;
  /** The server accepts task-augmented calls and the tool allows them: `runTool` makes a task. */
  runsAsTask: boolean;
  /** The tool's JSON Schema for its arguments. */
  inputSchema: Record<string, unknown>;
}

export interface McpTaskInfo {
  /** Unique among the tasks MCP Tasks tracks; what the other methods take. Opaque: it may hold any character. */
  id: string;
  serverId: string;
  serverLabel: string;
  /** The server's task id; for a direct call (a tool that cannot run as a task), a local id. */
  taskId: string;
  /** `task`: task-augmented; `direct`: a plain `tools/call`, still tracked. */
  kind: 'task' | 'direct';
  /** Empty for a task found through `tasks/list`. */
  toolName: string;
  arguments?: Record<string, unknown>;
  status: McpTaskStatus;
  /** For `expired` and `lost`: the last status the server reported. */
  lastServerStatus?: string;
  statusMessage?: string;
  progress?: { progress: number; total?: number; message?: string };
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** How long the server keeps the task after `createdAt`, in ms; null: unlimited. */
  ttl: number | null;
  /** Poll interval the server suggested, in ms. `getTask` reads what MCP Tasks last heard: a caller need not poll at it. */
  pollInterval?: number;
  /** The text the server offered a model while the task runs (`model-immediate-response`). */
  immediateResponse?: string;
  origin: McpTaskOrigin;
  /** A result has been fetched and kept. */
  hasResult: boolean;
  /** Why the task ended locally (lost, expired) or a fetch failed. */
  note?: string;
}

/** What the tool call returned (a `CallToolResult`), as the server sent it. */
export interface McpToolResult {
  content: Array<{ type: string; [key: string]: unknown }>;
  structuredContent?: Record<string, unknown>;
  /** The tool reported an error; the task then counts as failed. */
  isError?: boolean;
  [key: string]: unknown;
}

/** A task's outcome: the tool's result, or the JSON-RPC error the server answered with. */
export type McpTaskOutcome = { kind: 'result'; result: McpToolResult } | { kind: 'error'; error: { code: number; message: string; data?: unknown } };

export interface McpTaskResultInfo {
  task: McpTaskInfo;
  /** The task has ended. When false, `task` tells where it stands. */
  done: boolean;
  /** The outcome, when the task ended with one. */
  outcome?: McpTaskOutcome;
  /** Why a task that ended has no outcome (cancelled, expired, the fetch failed), or why one still live is not followed (its server was disconnected by the user). */
  fetchError?: string;
}

export interface McpRunToolOptions {
  /** The tool's arguments, as its `inputSchema` describes them. */
  arguments?: Record<string, unknown>;
  /** How long the server should keep the task and its result (it may shorten it). */
  ttlSeconds?: number;
}

export interface McpTasksApi {
  /** Changes only with incompatible changes; check it before use. */
  readonly apiVersion: 1;
  /**
   * Resolves once the configured servers and the tasks of the previous window have loaded, which
   * happens shortly after activation; until then `getServers`, `getTask` and `getTasks` may find
   * none. It never rejects: a configuration that could not be read resolves it too (with no
   * servers; the log says why). The async members (`getTools`, `runTool`, `getResult`,
   * `cancelTask`) wait for it themselves.
   */
  whenReady(): Promise<void>;
  /** The configured servers (MCP Tasks' settings, the user's `mcp.json` and every folder's `.vscode/mcp.json`). */
  getServers(): McpServerInfo[];
  /** The tools of a server, connecting it first. Rejects when it cannot be reached. */
  getTools(serverId: string): Promise<McpToolInfo[]>;
  /**
   * Runs a tool: as a task where the server and the tool allow it, else as a plain call that is
   * still tracked (`kind: 'direct'`). Resolves as soon as the server accepts the task (a direct
   * call: as soon as it is sent, still `working`), long before it ends; follow it with
   * `onDidChangeTask`, `getTask` or `getResult`.
   */
  runTool(serverId: string, toolName: string, options?: McpRunToolOptions): Promise<McpTaskInfo>;
  /** A tracked task, or undefined. */
  getTask(id: string): McpTaskInfo | undefined;
  /** Every tracked task, newest first. */
  getTasks(): McpTaskInfo[];
  /**
   * The task's outcome once it has ended (fetched from the server if need be). A running task
   * is waited for up to `waitSeconds` (default 0, at most 3600); if it is still running then,
   * the answer has `done: false`. Rejects only for an unknown id, one removed from the list while
   * waited for, or a `waitSeconds` that is not a number, 0 or more.
   */
  getResult(id: string, options?: { waitSeconds?: number }): Promise<McpTaskResultInfo>;
  /**
   * Asks the server to cancel the task (`tasks/cancel`), or stops a direct call; resolves with its
   * new state (`cancelled`). Rejects if it ended or the server refuses. Its end is the user's, as a
   * cancel from the view is: no notification tells it.
   */
  cancelTask(id: string): Promise<McpTaskInfo>;
  /**
   * A task was started or changed (status, progress, result): its new state. Its start is told
   * before `runTool` resolves: subscribe first to hear it. A task removed from the list (Clear,
   * Remove) is not told: `getTask` then returns undefined.
   */
  readonly onDidChangeTask: Event<McpTaskInfo>;
}
