// Language-model tools: chat agents list the tools that run as tasks, start one and get control
// back at once, check on it, read its result (waiting a bounded time) and cancel it. Tasks they
// start are tagged `chat`; a question such a task asks comes through the same quick input as any.
import * as vscode from 'vscode';
import type { ModelAnswer, ServerTools } from '../core/api/lmFormat';
import { browserRefusal, formatResult, formatTask, formatTaskList, formatToolList } from '../core/api/lmFormat';
import { MAX_WAIT_SECONDS, readCancelTaskInput, readGetResultInput, readGetTaskInput, readListToolsInput, readStartTaskInput } from '../core/api/lmInputs';
import type { TaskInfo, TasksService } from '../core/api/service';
import { UnknownTaskError } from '../core/api/service';
import { NeedsInputError } from '../core/servers/serverManager';
import { HeldByUserError, UnknownToolError } from '../core/tasks/engine';
import { errorMessage } from '../core/util/abort';
import { reasonOf } from '../core/jsonrpc/errors';
import { urlsRequired } from '../core/elicitation/urlRequired';
import { isServerTerminal, isTerminal } from '../core/tasks/status';
import { toAbortSignal } from './cancellation';
import { isNumber, stringify } from '../core/util/json';
import { entriesOf, minOf } from '../core/util/builtins';
import { TASK } from '../core/tasks/types';
import { inert } from '../core/util/text';

/** Text for the model, then the same facts as JSON (a text part: data parts need a newer editor). */
const answer = (a: ModelAnswer): vscode.LanguageModelToolResult => {
  return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(a.text), new vscode.LanguageModelTextPart(stringify(a.data))]);
};

const code = (s: string): string => `\`${inert(s).replace(/`/g, "'")}\``;

/**
 * Registers the five tools; each validates its input, since the editor does not. A call waits for
 * `ready` (the first configuration load): one that activates the extension would find no servers.
 */
export const registerLmTools = (service: TasksService, ready: Promise<void>): vscode.Disposable[] => {
  /**
   * Runs `fn` with an AbortSignal for the call's token; errors reach the model as their message,
   * an unknown task or tool with the tool that lists what there is.
   */
  const run = async (token: vscode.CancellationToken, fn: (signal: AbortSignal) => Promise<ModelAnswer>): Promise<vscode.LanguageModelToolResult> => {
    const bridge = toAbortSignal(token);
    try {
      await ready;
      return answer(await fn(bridge.signal));
    } catch (err) {
      if (err instanceof UnknownTaskError) err.message += ' mcpTasks_getTask without a taskId lists the tracked tasks.';
      if (err instanceof UnknownToolError) err.message += ' mcpTasks_listTools with that server lists its tools.';
      throw err;
    } finally {
      bridge.dispose();
    }
  };

  const listTools: vscode.LanguageModelTool<unknown> = {
    prepareInvocation: () => ({ invocationMessage: vscode.l10n.t('Listing MCP tools that run as tasks') }),
    invoke: (options, token) =>
      run(token, async (signal) => {
        const { server } = readListToolsInput(options.input);
        const servers = server ? [service.resolveServer(server)] : service.servers();
        // Listing every server asks the user nothing, nor undoes a Disconnect: such servers are named, not connected.
        const quiet = server === undefined;
        const entries: ServerTools[] = await Promise.all(
          servers.map((s) =>
            service.tools(s.id, signal, { quiet }).then(
              // Read again: connecting taught us what the server declares about tasks.
              (tools): ServerTools => ({ server: service.resolveServer(s.id), tools }),
              (err: unknown): ServerTools =>
                err instanceof NeedsInputError ? { server: s, needsInput: err.input } : err instanceof HeldByUserError ? { server: s, held: true } : { server: s, error: reasonOf(err) },
            ),
          ),
        );
        return formatToolList(entries);
      }),
  };

  const startTask: vscode.LanguageModelTool<unknown> = {
    // Asked once the servers have loaded: before, none would be found, nothing asked, and the call (which waits for them) would run.
    prepareInvocation: async (options) => {
      await ready;
      const starting = { invocationMessage: vscode.l10n.t('Starting an MCP task') };
      let input, server;
      try {
        input = readStartTaskInput(options.input);
        // Named as the view names it. One that names no server, or a tool its listed tools say cannot start as a task, starts nothing (the call says why): nothing to ask.
        server = service.resolveServer(input.server);
      } catch {
        return starting;
      }
      if (service.cannotStart(server.id, input.tool)) return starting;
      const args = stringify(input.arguments, null, 2);
      return {
        invocationMessage: vscode.l10n.t('Starting {0} on {1} as a task', input.tool, server.label),
        confirmationMessages: {
          title: vscode.l10n.t('Run an MCP tool as a background task?'),
          message: new vscode.MarkdownString(
            vscode.l10n.t('Run {0} on the MCP server {1} as a task. It keeps running in the background; see it in the MCP Tasks view.', code(input.tool), code(server.label)) +
              `\n\n\`\`\`json\n${args.length > 2000 ? `${args.slice(0, 2000)}…` : args}\n\`\`\``,
          ),
        },
      };
    },
    invoke: (options, token) =>
      run(token, async (signal) => {
        const input = readStartTaskInput(options.input);
        const server = service.resolveServer(input.server);
        // What prepareInvocation found cannot start was not confirmed: refused here too, never started (the server's tools may have changed since).
        const refused = service.cannotStart(server.id, input.tool);
        if (refused) throw refused;
        try {
          const task = await service.start(server.id, input.tool, { arguments: input.arguments, ttlSeconds: input.ttlSeconds, origin: 'chat', preference: TASK, signal });
          return formatTask(task, `Started task "${task.taskId}".`);
        } catch (err) {
          // A step in the browser first: said plainly, never with its URL (see browserRefusal).
          const required = urlsRequired(err);
          throw required?.ok ? new Error(browserRefusal(errorMessage(err), required.plans)) : err;
        }
      }),
  };

  const getTask: vscode.LanguageModelTool<unknown> = {
    prepareInvocation: () => ({ invocationMessage: vscode.l10n.t('Checking MCP tasks') }),
    invoke: (options, token) =>
      run(token, async () => {
        const input = readGetTaskInput(options.input);
        if (input.taskId === undefined) {
          const server = input.server === undefined ? undefined : service.resolveServer(input.server);
          return formatTaskList(service.tasks().filter((t) => !server || t.serverId === server.id), server?.label);
        }
        return formatTask(service.findTask(input.taskId, input.server));
      }),
  };

  const getResult: vscode.LanguageModelTool<unknown> = {
    prepareInvocation: (options) => {
      const wait = (options.input as { waitSeconds?: unknown } | undefined)?.waitSeconds;
      return {
        invocationMessage:
          isNumber(wait) && wait > 0 ? vscode.l10n.t('Waiting up to {0} s for an MCP task to end', minOf(wait, MAX_WAIT_SECONDS)) : vscode.l10n.t('Reading the result of an MCP task'),
      };
    },
    invoke: (options, token) =>
      run(token, async (signal) => {
        const input = readGetResultInput(options.input);
        const task = service.findTask(input.taskId, input.server);
        const r = await service.result(task.id, input.waitSeconds * 1000, signal);
        return formatResult(r, { seconds: input.waitSeconds, capped: input.waitCapped });
      }),
  };

  const cancelTask: vscode.LanguageModelTool<unknown> = {
    prepareInvocation: async (options) => {
      await ready; // the restored tasks too, as for start
      const invocationMessage = vscode.l10n.t('Cancelling an MCP task');
      let t;
      try {
        const input = readCancelTaskInput(options.input);
        t = service.findTask(input.taskId, input.server);
      } catch {
        return { invocationMessage };
      }
      // An ended task is not cancelled, nor one its server cannot cancel (the answer says so): nothing to ask the user.
      if (!service.cancelable(t.id)) return { invocationMessage };
      // "Stop", not "Cancel": the dialog's Cancel button keeps the task. "Asked": tasks/cancel is a request, the work may end all the same.
      // Named as its row names it; the id, which the model gave, last.
      const what = vscode.l10n.t('Stop {0} on {1}? The server is asked to stop its work. Its task id: {2}.', code(service.title(t.id)), code(t.serverLabel), code(t.taskId));
      return { invocationMessage, confirmationMessages: { title: vscode.l10n.t('Stop an MCP task?'), message: new vscode.MarkdownString(what) } };
    },
    invoke: (options, token) =>
      run(token, async (signal) => {
        const input = readCancelTaskInput(options.input);
        const t = service.findTask(input.taskId, input.server);
        const ended = (x: TaskInfo) => formatTask(x, `Task "${x.taskId}" had already ended: nothing was cancelled.`);
        if (isTerminal(t.status)) return ended(t);
        try {
          const task = await service.cancel(t.id, signal, 'through a chat tool');
          return formatTask(task, `Cancellation of task "${task.taskId}" was requested.`);
        } catch (err) {
          // It ended as the cancel reached its server, which refused it (-32602): how it ended, as above. Gone meanwhile (removed), t is live: the refusal.
          const now = service.task(t.id) ?? t;
          if (isServerTerminal(now.status)) return ended(now);
          throw err;
        }
      }),
  };

  // Each named as package.json names it (lmTools.test.ts calls each by that name); listTools is a method name the bundle shortens (esbuild.js's OWN_METHODS).
  return [
    vscode.lm.registerTool('mcpTasks_listTools', listTools),
    ...entriesOf({ startTask, getTask, getResult, cancelTask }).map(([name, tool]) => vscode.lm.registerTool(`mcpTasks_${name}`, tool)),
  ];
};
