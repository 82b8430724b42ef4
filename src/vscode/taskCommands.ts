import * as vscode from 'vscode';
import type { ServerManager, ServerSnapshot } from '../core/servers/serverManager';
import { closedByUser } from '../core/servers/serverManager';
import type { TaskEngine } from '../core/tasks/engine';
import { STATUS_PRESENTATION, describeHosted, describeTask, newestFirstOf, runTitle, runTitles, taskTitle as named, toolRunWords } from '../core/tasks/presentation';
import { isServerTerminal, isTerminal, LOST } from '../core/tasks/status';
import type { TaskSnapshot } from '../core/tasks/types';
import { DIRECT, hostedKey, rerunTtl, TASK } from '../core/tasks/types';
import type { Tool } from '../core/protocol/schemas';
import { decideExecution, hasKeptResult, hasResultToFetch, hasUnfetchedResult, isCancelable, serverAcceptsToolTasks, taskSupportOf } from '../core/tasks/policy';
import { errorMessage, raceAbort } from '../core/util/abort';
import type { UrlPlan } from '../core/elicitation/plan';
import { completeInBrowser, taskBrowserSteps, urlsRequired } from '../core/elicitation/urlRequired';
import { ConnectionClosedError, reasonOf, RequestTimeoutError } from '../core/jsonrpc/errors';
import { unnamedReason } from '../core/transports/transport';
import { NEVER, waitWithProgress } from './cancellation';
import { confirmDestructive, couldNotConnect, flash, inform, isConfirmed, noServerConfigured } from './confirm';
import type { ResultDocuments } from './results';
import type { TaskStore } from '../core/state/taskStore';
import type { InFlight } from '../core/util/inFlight';
import { watchLate } from '../core/util/inFlight';
import type { HostedTaskSnapshot, TaskHost } from '../core/host/taskHost';
import type { Node, TasksTreeProvider } from './tree/tasksTree';
import { asTaskNode, describeServer, HOSTED, hostedTitle, rowOf, SERVER } from './tree/tasksTree';
import { asThemeIcon } from './tree/icons';
import { QuickInputPrompter } from './elicitation/quickInputPrompter';
import type { ToolArguments } from './toolInputs';
import { BACK, askArguments, askTtl, inputsOf } from './toolInputs';
import { CANCEL_TASK, executeCommand, isDismissal, OPEN_CONFIGURATION, OPEN_RESULT, registerCommand, RESPOND_TO_TASK, RUN_AGAIN, SHOW_LOG, TASKS_VIEW } from './editorCommands';
import { maxOf, now as clock } from '../core/util/builtins';
import { CANCELLED, INPUT_REQUIRED } from '../core/protocol/schemas';
import { noop } from '../core/util/promise';
import { formatCount, inert } from '../core/util/text';
import { cancelTaskLabel, openConfigurationLabel, showError, showInfo, showLogLabel, showWarning } from './notify';

export interface TaskCommandDeps {
  servers: ServerManager;
  engine: TaskEngine;
  host: TaskHost;
  /** The tasks whose question or sampling consent prompt is open (or queued) in a dialog now, by key. */
  asking: Pick<InFlight, 'has' | 'onDidChange'>;
  /** Whether a language model is answering a sampling request of this task now (the user allowed it). */
  isAnswering?: (key: string) => boolean;
  /** Whether a sampling consent prompt of this task is open (or queued) now: it waits for the user's permission. */
  isConsenting?: (key: string) => boolean;
  /** Shows again a server's dialog hidden without an answer (with a task's key, that task's; its question on screen takes the keyboard back); false when none is hidden. */
  reopenDialog: (taskKey?: string) => boolean;
  /** The results kept on disk (Clear Stored Results). */
  store: Pick<TaskStore, 'storedResults' | 'clearResults'>;
  results: ResultDocuments;
  tree: TasksTreeProvider;
  view: vscode.TreeView<Node>;
  /** Runs `end`, which ends these tasks at the user's request: their end is not notified (`cancel`: an end `cancelled`, even after `end` returned). */
  endByUser<T>(keys: readonly string[], end: () => Promise<T>, cancel?: boolean): Promise<T>;
}

/** Registers the commands that act on tasks. */
export const registerTaskCommands = (deps: TaskCommandDeps): vscode.Disposable[] => {
  const { servers, engine, results } = deps;

  const taskTitle = (t: TaskSnapshot): string => runTitle(engine.list(), t);

  const taskFromArg = (arg: unknown): TaskSnapshot | undefined => {
    const row = rowOf(arg, TASK);
    return row && engine.get(row.key);
  };

  /** Cancels a task the server asked the client to run (its dialog or model request stops). */
  const cancelHosted = (h: { serverId: string; taskId: string }) => {
    try {
      deps.host.cancel(h.serverId, h.taskId);
    } catch (err) {
      // Cancelled already (a second click, a pick opened before): what the user asked for.
      if (deps.host.list().some((x) => x.serverId === h.serverId && x.taskId === h.taskId && x.status === CANCELLED)) return;
      void showWarning(errorMessage(err));
    }
  };

  const pickTask = async (filter: (t: TaskSnapshot) => boolean, title: string, placeHolder: string, empty: string): Promise<TaskSnapshot | undefined> => {
    const tasks = engine.list().filter(filter);
    if (!tasks.length) {
      inform(empty);
      return undefined;
    }
    const item = taskPickItem(engine, servers);
    return (await pickNewest(tasks.map((t) => ({ ...item(t), task: t })), title, placeHolder))?.task;
  };

  const openResult = async (t: TaskSnapshot) => {
    try {
      if (!t.outcome && !isTerminal(t.status)) {
        const [wait, respond] = [vscode.l10n.t('Wait'), vscode.l10n.t('Respond')];
        const asking = t.status === INPUT_REQUIRED;
        const choice = await showInfo(
          asking
            ? vscode.l10n.t('"{0}" waits for your input: its result comes once you answer. Wait for it?', taskTitle(t))
            : vscode.l10n.t('"{0}" is still working. Wait for its result?', taskTitle(t)),
          ...(asking ? [respond] : []),
          wait,
        );
        if (choice === respond) await executeCommand(RESPOND_TO_TASK, asTaskNode(t));
        if (choice !== wait) return;
      }
      if (!t.outcome) {
        // A live task may take hours: Cancel stops this wait, not the task (the engine still
        // follows it and fetches its result when it ends).
        const fetched = await waitWithProgress(vscode.l10n.t('Fetching the result of "{0}"…', taskTitle(t)), engine.fetchResult(t.key));
        if (!fetched) {
          flash(vscode.l10n.t('MCP Tasks: stopped waiting for "{0}"; the task goes on', taskTitle(t)));
          return;
        }
      }
      const shown = engine.get(t.key) ?? t;
      await results.show(shown);
      // A call the server refused until the user completes steps in the browser: offered over its result.
      const plans = taskBrowserSteps(shown);
      if (plans) await askBrowserSteps(deps, { serverId: shown.serverId, toolName: shown.toolName, args: shown.arguments ?? {} }, plans);
    } catch (err) {
      await showFailure(err, (why) => vscode.l10n.t('Could not fetch the result of "{0}": {1}', taskTitle(t), why));
    }
  };

  const cancel = async (t: TaskSnapshot) => {
    try {
      // The server may take up to requestTimeoutSeconds to answer: the view shows it is on its way.
      await deps.endByUser([t.key], async () => vscode.window.withProgress({ location: { viewId: TASKS_VIEW } }, () => engine.cancel(t.key)), true);
    } catch (err) {
      // The task ended meanwhile (the server refused the cancel of a task it had just finished):
      // its end is told as it is, completed or failed (a cancelled one is what the user asked for).
      // Or the user disconnected or restarted its server meanwhile: the row says what became of it.
      const now = engine.get(t.key);
      const status = now?.status;
      if (isServerTerminal(status) || closedByUser(err)) return;
      // Its server's process ended first (a crash): the task is lost with it, which is not told otherwise (the user asked for its end).
      // Sent, unanswered in time or its answer lost with the connection, the cancel may yet land: the task is still followed.
      // Not sent (its server did not connect in time), it could not cancel.
      void showFailure(
        err,
        (why) =>
          err instanceof ConnectionClosedError && status === LOST
            ? vscode.l10n.t('"{0}" is lost: its server stopped before it answered the cancel ({1}).', taskTitle(t), err.reason)
            : now?.cancelRequested
              ? vscode.l10n.t('"{0}" may still be cancelled by the server (its row will show it): {1}', taskTitle(t), why)
              : vscode.l10n.t('Could not cancel "{0}": {1}', taskTitle(t), why),
        { warn: true },
      );
    }
  };

  // A question sent on a stream that is gone (a window reload) may never be sent again: Respond
  // says so after 10 s, unless the question came or the task moved on.
  const lost = watchLate(deps.asking, 10_000, (key) => {
    const t = engine.get(key);
    if (t?.status !== INPUT_REQUIRED) return;
    const cancel = cancelTaskLabel();
    void showInfo(vscode.l10n.t('{0} has not sent the question of "{1}" again: one open during a window reload can be lost. Cancel the task, or wait.', servers.label(t.serverId), taskTitle(t)), cancel).then((c) => c && executeCommand(CANCEL_TASK, asTaskNode(t)));
  });

  return [
    lost,
    registerCommand('mcpTasks.runToolAsTask', async (arg?: unknown) => {
      const row = rowOf(arg, SERVER);
      if (row && !servers.get(row.id)) return;
      const ui = new QuickInputPrompter();
      try {
        await runTool(deps, ui, row && servers.get(row.id));
      } finally {
        ui.close();
      }
    }),
    // The row's Cancel Task (its own id, titled without "...": it asks nothing) is the same command.
    ...[CANCEL_TASK, 'mcpTasks.cancelTaskRow'].map((id) =>
      registerCommand(id, async (arg?: unknown) => {
        const hosted = rowOf(arg, HOSTED);
        if (hosted) return cancelHosted(hosted);
        const t = taskFromArg(arg);
        if (t) return cancel(t);
        const picked = await pickToCancel(deps);
        if (picked?.kind === TASK) await cancel(picked.task);
        else if (picked) cancelHosted(picked.hosted);
      }),
    ),
    registerCommand('mcpTasks.fetchResult', async (arg?: unknown) => {
      const t =
        taskFromArg(arg) ??
        (await pickTask(hasResultToFetch, vscode.l10n.t('Fetch Task Result'), vscode.l10n.t('Fetch the result of which task?'), vscode.l10n.t('No task has a result to fetch.')));
      if (t) await openResult(t);
    }),
    registerCommand(OPEN_RESULT, async (arg?: unknown) => {
      const t = taskFromArg(arg);
      if (t) await openResult(t);
      // A notification's Open Result outlives the task's row (Clear Finished Tasks, Remove from List).
      else if (rowOf(arg, TASK)) inform(vscode.l10n.t('The task was removed from the list, with its result.'));
    }),
    registerCommand(RESPOND_TO_TASK, async (arg?: unknown) => {
      // Without a task: the dialog hidden without an answer, if there is one.
      if (!arg && deps.reopenDialog()) return;
      const hosted = rowOf(arg, HOSTED);
      if (hosted) {
        // A question the server runs as a task here: hidden, open, or waiting for the dialogs
        // asked before it; or none (answered, cancelled or expired).
        const { serverId, taskId } = hosted;
        if (!deps.host.list().some((h) => h.serverId === serverId && h.taskId === taskId && !isTerminal(h.status))) {
          inform(vscode.l10n.t('No question of task {0} waits for your answer: it may have been answered or have expired.', taskId));
        } else if (!deps.reopenDialog(hostedKey(serverId, taskId))) inform(vscode.l10n.t('The question is open at the top of the window (after any question asked before it).'));
        return;
      }
      const t =
        taskFromArg(arg) ??
        (await pickTask((x) => x.status === INPUT_REQUIRED, vscode.l10n.t('Respond to Task'), vscode.l10n.t('Respond to which task?'), vscode.l10n.t('No task is waiting for your input.')));
      if (!t) return;
      // A direct call works while a language model answers its server: Respond says so below.
      if (t.status !== INPUT_REQUIRED && !deps.isAnswering?.(t.key)) {
        inform(vscode.l10n.t('"{0}" is not waiting for input (it is {1}).', taskTitle(t), STATUS_PRESENTATION[t.status].label.toLowerCase()));
        return;
      }
      // A direct call waits for input only while a dialog of a request it may be about is open (see ServerRequestContext.calls); it works while a model answers.
      // A task's may be about the direct call it was (see TaskEngine.keysOf).
      const open = engine.keysOf(t.key).find((k) => deps.asking.has(k)) ?? (t.kind === DIRECT && !deps.isAnswering?.(t.key) ? t.key : undefined);
      if (open) {
        // This task's question or consent prompt, if hidden; else it is on screen or waits for the dialogs asked before it.
        if (deps.reopenDialog(open)) return;
        inform(
          deps.isConsenting?.(open)
            ? vscode.l10n.t('"{0}" waits for your permission to use a language model: its prompt is open at the top of the window (after any question asked before it).', taskTitle(t))
            : vscode.l10n.t('The question of "{0}" is open at the top of the window (after any question asked before it).', taskTitle(t)),
        );
        return;
      }
      if (deps.isAnswering?.(t.key)) {
        inform(vscode.l10n.t('"{0}" waits for a language model, which is answering its server now: nothing is asked of you.', taskTitle(t)));
        return;
      }
      // The server delivers its questions through tasks/result: make sure one is in flight.
      engine.respond(t.key);
      flash(vscode.l10n.t('MCP Tasks: waiting for the question of "{0}"…', taskTitle(t)));
      lost.watch(t.key);
    }),
    registerCommand('mcpTasks.clearStoredResults', async (arg?: unknown) => {
      const stored = deps.store.storedResults;
      if (!stored) {
        if (!isConfirmed(arg)) inform(vscode.l10n.t('No task results are stored.'));
        return;
      }
      const ask = stored === 1 ? vscode.l10n.t('Delete 1 stored task result?') : vscode.l10n.t('Delete {0} stored task results?', formatCount(stored));
      const detail = vscode.l10n.t("A task's result can be fetched again while its server keeps it; a direct call's result is gone for good.");
      if (!isConfirmed(arg) && !(await confirmDestructive(ask, detail, vscode.l10n.t('Delete')))) return;
      const n = await deps.store.clearResults();
      engine.forgetOutcomes();
      inform(n === 1 ? vscode.l10n.t('Deleted 1 stored task result.') : vscode.l10n.t('Deleted {0} stored task results.', formatCount(n)));
    }),
    registerCommand('mcpTasks.clearFinished', async (arg?: unknown) => {
      const finished = engine.list().filter((t) => isTerminal(t.status));
      // The rows of ended questions and sampling requests a server had the client run go too.
      const hosted = deps.tree.endedHosted().length;
      const count = finished.length + hosted;
      if (!count) {
        if (!isConfirmed(arg)) inform(vscode.l10n.t('There are no finished tasks to clear.'));
        return;
      }
      const [kept, unfetched] = [finished.filter(hasKeptResult).length, finished.filter(hasUnfetchedResult).length];
      const ask = count === 1 ? vscode.l10n.t('Clear 1 finished task?') : vscode.l10n.t('Clear {0} finished tasks?', formatCount(count));
      // One task is "it": kept counts only tasks, so more than one kept means more than one task.
      const detail =
        (count === 1
          ? kept
            ? vscode.l10n.t('It leaves the view, and the result kept for it is deleted.')
            : vscode.l10n.t('It leaves the view.')
          : kept
            ? kept === 1
              ? vscode.l10n.t('They leave the view, and the 1 result kept for them is deleted.')
              : vscode.l10n.t('They leave the view, and the {0} results kept for them are deleted.', formatCount(kept))
            : vscode.l10n.t('They leave the view.')) + (unfetched ? ' ' + notFetched(count === 1 ? 0 : unfetched) : '');
      if (!isConfirmed(arg) && !(await confirmDestructive(ask, detail, vscode.l10n.t('Clear')))) return;
      const n = engine.clearFinished() + deps.tree.clearEndedHosted();
      flash(n === 1 ? vscode.l10n.t('MCP Tasks: cleared 1 finished task') : vscode.l10n.t('MCP Tasks: cleared {0} finished tasks', formatCount(n)), 3000);
    }),
    // A finished task of ours (its row's context menu, or a lost task's warning): its tool on the
    // same server with the same arguments and ttl, as Run Tool as Task runs it.
    registerCommand(RUN_AGAIN, async (arg?: unknown) => {
      const t = taskFromArg(arg);
      if (t?.toolName) await callTool(deps, { serverId: t.serverId, toolName: t.toolName, args: t.arguments, ttlMs: rerunTtl(t) });
    }),
    // One finished row out of the view (its context menu; the view selects one row at a time).
    // The result (or error) kept for it goes too, never without asking, as Clear Finished Tasks asks.
    registerCommand('mcpTasks.removeTask', async (arg?: unknown) => {
      const t = taskFromArg(arg);
      const hosted = rowOf(arg, HOSTED);
      if (t && isTerminal(t.status)) {
        // A result only its server has is lost too: the task was the one handle here to fetch it.
        const detail = hasKeptResult(t) ? vscode.l10n.t('The result kept for it is deleted too.') : hasUnfetchedResult(t) && notFetched(0);
        if (detail && !isConfirmed(arg) && !(await confirmDestructive(vscode.l10n.t('Remove "{0}" from the list?', taskTitle(t)), detail, vscode.l10n.t('Remove')))) return;
        engine.remove(t.key);
      } else if (hosted) deps.tree.clearEndedHosted(hosted.taskId);
    }),
  ];
};

/** What removing tasks whose results only their servers have loses (0: the one task asked about). */
const notFetched = (n: number): string =>
  !n
    ? vscode.l10n.t('Its result was not fetched, and cannot be fetched from here once it is removed.')
    : n === 1
      ? vscode.l10n.t('1 result was not fetched, and cannot be fetched from here once it is removed.')
      : vscode.l10n.t('{0} results were not fetched, and cannot be fetched from here once they are removed.', formatCount(n));

/**
 * A task's row in a quick pick: its status icon and title (as its row in the view: with when it
 * started, among runs of one tool), its server, then what its row says (status or message,
 * progress, age), each once. The icon as iconPath: VS Code reads a `$(icon)` in a label out by name.
 */
const taskPickItem = (engine: TaskEngine, servers: ServerManager): ((t: TaskSnapshot) => vscode.QuickPickItem & { createdAt: string }) => {
  const [titles, now] = [runTitles(engine.list()), clock()];
  return (t) => {
    const { icon, color } = STATUS_PRESENTATION[t.status];
    return { iconPath: asThemeIcon({ id: icon, color }), label: titles.get(t.key) ?? named(t), description: servers.label(t.serverId), detail: describeTask(t, now), createdAt: t.createdAt };
  };
};

/**
 * The live tasks the user can cancel, newest first: tasks and direct calls (not those of a
 * server without `tasks/cancel`), and the questions and sampling requests servers asked the
 * client to run as tasks.
 */
const pickToCancel = async (deps: TaskCommandDeps): Promise<{ kind: 'task'; task: TaskSnapshot } | { kind: 'hosted'; hosted: HostedTaskSnapshot } | undefined> => {
  const { engine, servers, tree } = deps;
  const [now, item, hosted] = [clock(), taskPickItem(engine, servers), tree.shownHosted()];
  type Item = vscode.QuickPickItem & { createdAt: string; target: { kind: 'task'; task: TaskSnapshot } | { kind: 'hosted'; hosted: HostedTaskSnapshot } };
  const items: Item[] = [
    ...engine
      .list()
      .filter((t) => isCancelable(t, servers))
      .map((t): Item => ({ ...item(t), target: { kind: TASK, task: t } })),
    ...hosted
      .filter((h) => !isTerminal(h.status))
      .map((h): Item => {
        const { label, what, iconPath } = hostedTitle(h, hosted);
        // Named as its row in the view; then as its row says: status, why it ended, age; what it is under it.
        return { label, iconPath, description: `${servers.label(h.serverId)} · ${describeHosted(h, now)}`, detail: what, createdAt: h.createdAt, target: { kind: HOSTED, hosted: h } };
      }),
  ];
  if (!items.length) {
    const live = engine.list().some((t) => !isTerminal(t.status));
    inform(live ? vscode.l10n.t('No running task can be cancelled: their servers do not support tasks/cancel or are no longer configured.') : vscode.l10n.t('No task is running.'));
    return undefined;
  }
  return (await pickNewest(items, cancelTaskLabel(), vscode.l10n.t('Cancel which task?')))?.target;
};

/** A quick pick of tasks, newest first as the view lists them, that finds them by their server, status, message and age too. */
const pickNewest = <T extends vscode.QuickPickItem & { createdAt: string }>(items: T[], title: string, placeHolder: string): Thenable<T | undefined> => {
  return vscode.window.showQuickPick(newestFirstOf(items).map((i) => ({ ...i, label: inert(i.label), description: inert(i.description), detail: inert(i.detail) })), { placeHolder, title, matchOnDescription: true, matchOnDetail: true });
};

const pickServer = async (servers: ServerManager, ui: QuickInputPrompter, before: ServerSnapshot | undefined): Promise<ServerSnapshot | undefined> => {
  const list = servers.list();
  if (!list.length) return noServerConfigured();
  const picked = await ui.pick(
    list.map((s) => ({ label: s.label, description: describeServer(s), value: s, picked: s.id === before?.id })),
    { title: vscode.l10n.t('Run Tool as Task (1/4): server'), placeholder: vscode.l10n.t('Pick the MCP server'), signal: NEVER },
  );
  return 'nav' in picked ? undefined : picked.value[0];
};

/**
 * The tools of a server and whether it takes tool calls as tasks; undefined (after saying why)
 * when it cannot be reached, or silently when `signal` aborts or the user cancels the progress.
 */
const serverTools = async (servers: ServerManager, server: ServerSnapshot, signal: AbortSignal): Promise<{ tools: Tool[]; acceptsTasks: boolean } | undefined> => {
  try {
    // The connection goes on when the wait ends (the next command reuses it).
    const session = await waitWithProgress(vscode.l10n.t('Connecting to "{0}"…', server.label), servers.getSession(server.id), signal);
    if (!session) return undefined;
    const tools = await raceAbort(session.listTools(), signal);
    if (!tools.length) {
      inform(vscode.l10n.t('"{0}" offers no tools.', server.label));
      return undefined;
    }
    return { tools, acceptsTasks: serverAcceptsToolTasks(session.serverCapabilities, session.protocolVersion) };
  } catch (err) {
    if (!signal.aborted) void showFailure(err, (why) => couldNotConnect(server.label, why), { namesServer: true, server });
    return undefined;
  }
};

/**
 * Server → tool → arguments → ttl (tasks only) → run, each step a quick input with Back to the
 * step before. Started from a server's row, the tool pick comes first, and its Back shows the
 * server pick: the view's title button passes the focused row too, which the user did not choose.
 * Escape anywhere runs nothing.
 */
const runTool = async (deps: TaskCommandDeps, ui: QuickInputPrompter, server: ServerSnapshot | undefined): Promise<void> => {
  const { servers } = deps;
  let offer: { tools: Tool[]; acceptsTasks: boolean } | undefined;
  let tool: Tool | undefined;
  let args: ToolArguments | undefined;
  let step: 'server' | 'tool' | 'arguments' | 'ttl' = server ? 'tool' : 'server';
  // Steps are counted as the user sees them: from a server's row, the tool is step 1.
  let o = server ? 0 : 1;
  const asTask = (t: Tool) => decideExecution(offer!.acceptsTasks, taskSupportOf(t)).mode === TASK;
  // A tool's steps from its pick: its arguments if it takes any, its ttl as a task. The tool pick
  // counts the most a tool there takes: the count only shrinks once one is picked.
  const stepsOf = (t: Tool) => 1 + (inputsOf(t).length ? 1 : 0) + (asTask(t) ? 1 : 0);
  for (;;) {
    if (step === 'server') {
      const picked = await pickServer(servers, ui, server);
      if (!picked) return;
      if (picked.id !== server?.id) [offer, tool, args] = [undefined, undefined, undefined];
      server = picked;
      step = 'tool';
    } else if (step === 'tool') {
      // Connecting can take seconds: the server pick stays up, busy, meanwhile; Escape there
      // (or Cancel on the progress) stops waiting and runs nothing.
      offer ??= await ui.whileBusy((signal) => serverTools(servers, server!, signal));
      if (!offer) return;
      const { acceptsTasks } = offer;
      const picked = await ui.pick(
        offer.tools.map((t) => {
          const label = t.title ?? t.annotations?.title ?? t.name;
          const [icon, words] = toolRunWords(acceptsTasks, taskSupportOf(t));
          return { label, icon, description: `${t.name !== label ? `${t.name} · ` : ''}${words}`, detail: t.description, value: t, picked: t === tool };
        }),
        { title: vscode.l10n.t('Run Tool as Task ({0}/{1}): tool of {2}', 1 + o, maxOf(...offer.tools.map(stepsOf)) + o, server!.label), placeholder: vscode.l10n.t('Pick the tool'), canGoBack: true, signal: NEVER },
      );
      if ('nav' in picked) {
        if (picked.nav !== 'back') return;
        [step, o] = ['server', 1];
        continue;
      }
      if (picked.value[0] !== tool) args = undefined;
      tool = picked.value[0];
      const refused = decideExecution(acceptsTasks, taskSupportOf(tool));
      if (refused.mode === 'refuse') {
        // Said before its form is filled in, not after; the tool pick shows again.
        void showError(vscode.l10n.t('"{0}" cannot run on {1}: {2}.', tool.name, server!.label, refused.reason));
        continue;
      }
      step = 'arguments';
    } else if (step === 'arguments') {
      // The ttl means something only to a task: a direct call is not asked for one, and has a step less.
      const a = await askArguments(tool!, vscode.l10n.t('Run Tool as Task ({0}/{1}): arguments of {2}', 2 + o, stepsOf(tool!) + o, tool!.name), ui, args);
      if (a === undefined) return;
      if (a === BACK) {
        step = 'tool';
        continue;
      }
      args = a;
      if (!asTask(tool!)) return run(ui, deps, server!, tool!, args.value, undefined);
      step = 'ttl';
    } else {
      // A tool without arguments had no arguments step: the ttl follows its pick, and Back returns there.
      const n = stepsOf(tool!) + o;
      const ttl = await askTtl(vscode.l10n.t('Run Tool as Task ({0}/{0}): how long to keep {1}', n, tool!.name), ui);
      if (ttl === undefined) return;
      if (ttl === BACK) {
        step = n > 2 + o ? 'arguments' : 'tool';
        continue;
      }
      return run(ui, deps, server!, tool!, args!.value, ttl.ttlMs);
    }
  }
};

/**
 * The call goes out from the last step, which stays up, busy and disabled, until the server
 * answers `tools/call` (a task server answers at once; a slow one takes its time). Escape then
 * only closes the step: the call goes on, and its task shows in the view when it starts.
 */
const run = async (ui: QuickInputPrompter, deps: TaskCommandDeps, server: ServerSnapshot, tool: Tool, args: Record<string, unknown>, ttlMs: number | undefined): Promise<void> => {
  const call = callTool(deps, { serverId: server.id, toolName: tool.name, args, ttlMs });
  await ui.whileBusy(() => call);
};

/** A tool call as the user asked for it, to run again as it was. */
interface ToolCall {
  serverId: string;
  toolName: string;
  args?: Record<string, unknown>;
  ttlMs?: number;
}

const callTool = async (deps: TaskCommandDeps, call: ToolCall): Promise<void> => {
  const { toolName } = call;
  try {
    const t = await deps.engine.callTool(call.serverId, toolName, { arguments: call.args, ttlMs: call.ttlMs });
    if (t.kind === DIRECT) {
      flash(vscode.l10n.t('MCP Tasks: "{0}" does not run as a task; called it directly', toolName));
    }
    if (t.immediateResponse) inform(`${toolName}: ${t.immediateResponse}`);
    const node = deps.tree.taskNode(t.key);
    // A row gone meanwhile (the task removed) is nothing to reveal, and no error to report.
    if (node && deps.view.visible) deps.view.reveal(node, { select: true, focus: false }).then(undefined, noop);
  } catch (err) {
    const required = urlsRequired(err);
    if (required?.ok) return askBrowserSteps(deps, call, required.plans);
    // Unusable data: the server's own error, and why its URLs are not offered.
    const more = (why: string) => (required ? vscode.l10n.t('{0} (the server asks for a step in the browser, but {1})', why, required.problem) : why);
    const label = deps.servers.label(call.serverId);
    // The server named once, as couldNotConnect does: "on x at URL: …", not "on x: Could not reach server "x" at URL: …".
    const words = (reason: string) => {
      const { at, why } = unnamedReason(reason, label);
      return at ? vscode.l10n.t('Could not run "{0}" on {1} at {2}: {3}', toolName, label, at, more(why)) : vscode.l10n.t('Could not run "{0}" on {1}: {2}', toolName, label, more(why));
    };
    void showFailure(err, words, { namesServer: true });
  }
};

/**
 * The server refused `call` until the user completes steps in the browser (-32042,
 * URLElicitationRequiredError): each URL is offered with the consent of URL elicitation, then the
 * call can run again as it was (the spec lets the client retry the original request). Decline or
 * Escape ends it quietly, with nothing (more) opened.
 */
const askBrowserSteps = async (deps: TaskCommandDeps, call: ToolCall, plans: readonly UrlPlan[]): Promise<void> => {
  const label = deps.servers.label(call.serverId);
  const p = new QuickInputPrompter();
  try {
    const title = vscode.l10n.t('"{0}" on {1} needs you to complete a step in your browser first', call.toolName, label);
    if (!(await completeInBrowser(plans, p, { title, signal: NEVER }))) return;
    // The Run Again step stays up, busy, until the server answers.
    await p.whileBusy(() => callTool(deps, call));
  } finally {
    p.close();
  }
};

/**
 * Shows why a command failed, with the log a click away. A request that timed out says which
 * setting gives the server longer, and offers to open it; it names its server unless `words`
 * does (`namesServer`). A `server` that could not be reached has its configuration offered, as
 * Connect Server offers it. The user's own Escape on an input of the server, or a cancellation, is no failure: nothing is said.
 */
const showFailure = async (err: unknown, words: (why: string) => string, { warn = false, namesServer = false, server }: { warn?: boolean; namesServer?: boolean; server?: ServerSnapshot } = {}): Promise<void> => {
  if (isDismissal(err)) return;
  const timedOut = err instanceof RequestTimeoutError;
  const why = timedOut && namesServer ? err.detail : reasonOf(err);
  const log = showLogLabel();
  const settings = vscode.l10n.t('Open Settings');
  const config = openConfigurationLabel();
  const text = words(timedOut ? vscode.l10n.t('{0}. If the server needs longer, raise the setting "mcpTasks.requestTimeoutSeconds".', why) : why);
  const chosen = await (warn ? showWarning : showError)(text, log, ...(timedOut ? [settings] : server ? [config] : []));
  if (chosen === log) await executeCommand(SHOW_LOG);
  else if (chosen === settings) await executeCommand('workbench.action.openSettings', 'mcpTasks.requestTimeoutSeconds');
  else if (chosen === config && server) await executeCommand(OPEN_CONFIGURATION, { kind: SERVER, id: server.id });
};
