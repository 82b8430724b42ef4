import * as vscode from 'vscode';
import type { ServerManager, ServerSnapshot } from '../core/servers/serverManager';
import type { TaskEngine } from '../core/tasks/engine';
import { STATUS_PRESENTATION, describeTask, formatAge, taskTitle } from '../core/tasks/presentation';
import { isTerminal } from '../core/tasks/status';
import type { TaskSnapshot } from '../core/tasks/types';
import type { Tool } from '../core/protocol/schemas';
import { decideExecution, serverAcceptsToolTasks } from '../core/tasks/policy';
import { errorMessage } from '../core/util/abort';
import type { ResultDocuments } from './results';
import type { TaskHost } from '../core/host/taskHost';
import type { Node, TasksTreeProvider } from './tree/tasksTree';
import { describeServer } from './tree/tasksTree';
import { askArguments, askTtl } from './toolInputs';

export interface TaskCommandDeps {
  servers: ServerManager;
  engine: TaskEngine;
  host: TaskHost;
  /** Whether a question of this task is open (or queued) in a dialog now. */
  isAsking: (key: string) => boolean;
  results: ResultDocuments;
  tree: TasksTreeProvider;
  view: vscode.TreeView<Node>;
}

const TASK_SUPPORT_WORDS: Record<string, string> = {
  required: '$(tasklist) runs as a task',
  optional: '$(tasklist) task optional',
  forbidden: '$(arrow-right) direct call only',
};

/** Registers the commands that act on tasks. */
export function registerTaskCommands(deps: TaskCommandDeps): vscode.Disposable[] {
  const { servers, engine, results } = deps;

  const taskFromArg = (arg: unknown): TaskSnapshot | undefined => {
    const n = arg as Node | undefined;
    return n && typeof n === 'object' && n.kind === 'task' ? engine.get(n.key) : undefined;
  };

  const pickTask = async (filter: (t: TaskSnapshot) => boolean, placeHolder: string, empty: string): Promise<TaskSnapshot | undefined> => {
    const tasks = engine
      .list()
      .filter(filter)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    if (!tasks.length) {
      void vscode.window.showInformationMessage(empty);
      return undefined;
    }
    const now = Date.now();
    const picked = await vscode.window.showQuickPick(
      tasks.map((t) => ({
        label: `$(${STATUS_PRESENTATION[t.status].icon}) ${taskTitle(t)}`,
        description: `${servers.label(t.serverId)} · ${STATUS_PRESENTATION[t.status].label} · ${formatAge(now - Date.parse(t.createdAt))}`,
        detail: describeTask(t, now),
        task: t,
      })),
      { placeHolder, title: 'MCP Tasks', matchOnDescription: true, matchOnDetail: true },
    );
    return picked?.task;
  };

  const openResult = async (t: TaskSnapshot) => {
    try {
      if (!t.outcome && !isTerminal(t.status)) {
        const choice = await vscode.window.showInformationMessage(
          vscode.l10n.t('"{0}" is still {1}. Wait for its result?', taskTitle(t), STATUS_PRESENTATION[t.status].label.toLowerCase()),
          vscode.l10n.t('Wait'),
        );
        if (!choice) return;
      }
      if (!t.outcome) {
        await vscode.window.withProgress(
          { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Fetching the result of "{0}"…', taskTitle(t)) },
          () => engine.fetchResult(t.key),
        );
      }
      await results.show(engine.get(t.key) ?? t);
    } catch (err) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not fetch the result of "{0}": {1}', taskTitle(t), errorMessage(err)));
    }
  };

  const cancel = async (t: TaskSnapshot) => {
    try {
      await engine.cancel(t.key);
    } catch (err) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Could not cancel "{0}": {1}', taskTitle(t), errorMessage(err)));
    }
  };

  return [
    vscode.commands.registerCommand('mcpTasks.runToolAsTask', async (arg?: unknown) => {
      const node = arg as Node | undefined;
      const server = node && typeof node === 'object' && node.kind === 'server' ? servers.get(node.id) : await pickServer(servers);
      if (!server) return;
      await runTool(deps, server);
    }),
    vscode.commands.registerCommand('mcpTasks.cancelTask', async (arg?: unknown) => {
      const n = arg as Node | undefined;
      if (n && typeof n === 'object' && n.kind === 'hosted') {
        try {
          deps.host.cancel(n.serverId, n.taskId);
        } catch (err) {
          void vscode.window.showWarningMessage(errorMessage(err));
        }
        return;
      }
      const t = taskFromArg(arg) ?? (await pickTask((x) => !isTerminal(x.status), vscode.l10n.t('Cancel which task?'), vscode.l10n.t('No task is running.')));
      if (t) await cancel(t);
    }),
    vscode.commands.registerCommand('mcpTasks.fetchResult', async (arg?: unknown) => {
      const t =
        taskFromArg(arg) ??
        (await pickTask((x) => x.kind === 'task' || x.outcome !== undefined, vscode.l10n.t('Fetch the result of which task?'), vscode.l10n.t('There are no tasks yet.')));
      if (t) await openResult(t);
    }),
    vscode.commands.registerCommand('mcpTasks.openResult', async (arg?: unknown) => {
      const t = taskFromArg(arg);
      if (t) await openResult(t);
    }),
    vscode.commands.registerCommand('mcpTasks.respondToTask', async (arg?: unknown) => {
      const t =
        taskFromArg(arg) ??
        (await pickTask((x) => x.status === 'input_required', vscode.l10n.t('Respond to which task?'), vscode.l10n.t('No task is waiting for your input.')));
      if (!t) return;
      if (t.status !== 'input_required') {
        void vscode.window.showInformationMessage(vscode.l10n.t('"{0}" is not waiting for input (it is {1}).', taskTitle(t), STATUS_PRESENTATION[t.status].label.toLowerCase()));
        return;
      }
      if (deps.isAsking(t.key)) {
        void vscode.window.showInformationMessage(vscode.l10n.t('The question of "{0}" is open at the top of the window (after any question asked before it).', taskTitle(t)));
        return;
      }
      // The server delivers its questions through tasks/result: make sure one is in flight.
      engine.respond(t.key);
      void vscode.window.setStatusBarMessage(vscode.l10n.t('MCP Tasks: waiting for the question of "{0}"…', taskTitle(t)), 5000);
    }),
    vscode.commands.registerCommand('mcpTasks.clearFinished', () => {
      const n = engine.clearFinished();
      void vscode.window.setStatusBarMessage(vscode.l10n.t('MCP Tasks: cleared {0} finished tasks', n), 3000);
    }),
  ];
}

async function pickServer(servers: ServerManager): Promise<ServerSnapshot | undefined> {
  const list = servers.list();
  if (!list.length) {
    const open = vscode.l10n.t('Open MCP Configuration');
    if ((await vscode.window.showInformationMessage(vscode.l10n.t('No MCP server is configured.'), open)) === open) {
      await vscode.commands.executeCommand('mcpTasks.openConfiguration');
    }
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    list.map((s) => ({ label: s.label, description: describeServer(s), server: s })),
    { title: vscode.l10n.t('Run Tool as Task (1/4): server'), placeHolder: vscode.l10n.t('Pick the MCP server'), ignoreFocusOut: true },
  );
  return picked?.server;
}

/** Server → tool → arguments → ttl (tasks only) → run, each step a quick input; Escape anywhere runs nothing. */
async function runTool(deps: TaskCommandDeps, server: ServerSnapshot): Promise<void> {
  const { servers, engine } = deps;
  let tools: Tool[];
  let acceptsTasks: boolean;
  try {
    const session = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Connecting to "{0}"…', server.label) },
      () => servers.getSession(server.id),
    );
    tools = await session.listTools();
    acceptsTasks = serverAcceptsToolTasks(session.serverCapabilities, session.protocolVersion);
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not connect to "{0}": {1}', server.label, errorMessage(err)), vscode.l10n.t('Show Log')).then((c) => c && vscode.commands.executeCommand('mcpTasks.showLog'));
    return;
  }
  if (!tools.length) {
    void vscode.window.showInformationMessage(vscode.l10n.t('"{0}" offers no tools.', server.label));
    return;
  }
  const picked = await vscode.window.showQuickPick(
    tools.map((t) => {
      const support = acceptsTasks ? (t.execution?.taskSupport ?? 'forbidden') : 'forbidden';
      return { label: t.title ?? t.annotations?.title ?? t.name, description: `${t.name !== (t.title ?? t.annotations?.title ?? t.name) ? `${t.name} · ` : ''}${TASK_SUPPORT_WORDS[support]}`, detail: t.description, tool: t };
    }),
    { title: vscode.l10n.t('Run Tool as Task (2/4): tool of {0}', server.label), placeHolder: vscode.l10n.t('Pick the tool'), matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true },
  );
  if (!picked) return;
  const args = await askArguments(picked.tool, vscode.l10n.t('Run Tool as Task (3/4): arguments of {0}', picked.tool.name));
  if (args === undefined) return;
  // The ttl means something only to a task: a direct call is not asked for one.
  const asTask = decideExecution(acceptsTasks, picked.tool.execution?.taskSupport).mode === 'task';
  const ttl = asTask ? await askTtl(vscode.l10n.t('Run Tool as Task (4/4): ttl of {0}', picked.tool.name)) : {};
  if (!ttl) return;
  try {
    const t = await engine.callTool(server.id, picked.tool.name, { arguments: args, ttlMs: ttl.ttlMs });
    if (t.kind === 'direct') {
      void vscode.window.setStatusBarMessage(vscode.l10n.t('MCP Tasks: "{0}" does not run as a task; called it directly', picked.tool.name), 5000);
    }
    if (t.immediateResponse) void vscode.window.showInformationMessage(`${picked.tool.name}: ${t.immediateResponse}`);
    const node = deps.tree.taskNode(t.key);
    if (node && deps.view.visible) void deps.view.reveal(node, { select: true, focus: false });
  } catch (err) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not run "{0}": {1}', picked.tool.name, errorMessage(err)));
  }
}
