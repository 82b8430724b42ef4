// The API other extensions get from activate(): api/mcp-tasks.d.ts, version 1. Its type is that
// file, so what is built here is checked against what is promised. Callers are code we do not
// know: their input is checked and a mistake rejects with a clear message.
import type * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import type { TasksService } from '../core/api/service';
import { isNumber, isObject, isString } from '../core/util/json';
import { minOf } from '../core/util/builtins';
import { UnknownTaskError } from '../core/api/service';
import { UnknownToolError } from '../core/tasks/engine';

/** The longest `getResult` waits, in seconds. */
export const API_MAX_WAIT_SECONDS = 3600;

export interface ApiDeps<T> {
  service: TasksService;
  /** Settles once the first configuration load (after the restored tasks) has, even when it failed; never rejects. */
  ready: Promise<void>;
  /** The extension's own test hooks, kept on the same object. */
  testing: T;
}

/** Refuses a caller's mistake with a message that names the method and the argument. */
const need = (ok: boolean, method: string, what: string): void => {
  if (!ok) throw new TypeError(`MCP Tasks API: ${method}: ${what}`);
};

/** An unknown task or tool is refused with the method that lists what there is. */
const hinted = <T>(p: Promise<T>): Promise<T> => {
  return p.catch((err: unknown) => {
    if (err instanceof UnknownTaskError) err.message += ' getTasks() lists the tracked tasks.';
    if (err instanceof UnknownToolError) err.message += ' getTools() lists its tools.';
    throw err;
  });
};

const isText = (v: unknown): v is string => isString(v) && v !== '';
const SERVER_ID = 'serverId must be the id of a server from getServers()';
const TASK_ID = 'id must be the id of a task';

export const createApi = <T>({ service, ready, testing }: ApiDeps<T>): McpTasksApi & { readonly testing: T } => {
  const onDidChangeTask: vscode.Event<ReturnType<TasksService['tasks']>[number]> = (listener, thisArgs, disposables) => {
    const d = service.onDidChangeTask((t) => listener.call(thisArgs, t));
    disposables?.push(d);
    return d;
  };
  return {
    apiVersion: 1,
    whenReady: () => ready,
    getServers: () => service.servers(),
    // The async members wait for the configuration and the restored tasks: called at once after activate(), they would find none.
    getTools: async (serverId) => {
      await ready;
      need(isText(serverId), 'getTools', SERVER_ID);
      return service.tools(service.resolveServer(serverId).id);
    },
    runTool: async (serverId, toolName, options = {}) => {
      await ready;
      need(isText(serverId), 'runTool', SERVER_ID);
      need(isText(toolName), 'runTool', 'toolName must be the name of a tool from getTools()');
      const { arguments: args, ttlSeconds: ttl } = options ?? {};
      need(args === undefined || isObject(args), 'runTool', 'options.arguments must be an object');
      need(ttl === undefined || (isNumber(ttl) && ttl > 0 && ttl < Infinity), 'runTool', 'options.ttlSeconds must be a positive number');
      return hinted(service.start(service.resolveServer(serverId).id, toolName, { arguments: args, ttlSeconds: ttl, origin: 'api' }));
    },
    getTask: (id) => (isString(id) ? service.task(id) : undefined),
    getTasks: () => service.tasks(),
    getResult: async (id, options) => {
      await ready;
      need(isText(id), 'getResult', TASK_ID);
      const wait = options?.waitSeconds ?? 0;
      need(isNumber(wait) && wait >= 0, 'getResult', 'options.waitSeconds must be a number, 0 or more');
      return hinted(service.result(id, minOf(wait, API_MAX_WAIT_SECONDS) * 1000));
    },
    cancelTask: async (id) => {
      await ready;
      need(isText(id), 'cancelTask', TASK_ID);
      return hinted(service.cancel(id, undefined, 'by another extension'));
    },
    onDidChangeTask,
    testing,
  };
};
