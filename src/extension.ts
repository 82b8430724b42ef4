import * as os from 'node:os';
import * as vscode from 'vscode';
import { trustBlocker } from './core/config/trust';
import { ServerManager } from './core/servers/serverManager';
import { TaskEngine } from './core/tasks/engine';
import { followChatReach } from './core/tasks/chatReach';
import { TaskStore } from './core/state/taskStore';
import { serverWork, TaskHost } from './core/host/taskHost';
import { fingerprint } from './core/config/fingerprint';
import { focusConsent } from './vscode/sampling/consent';
import { createElicitationHandler, focusQuestion, listenForElicitationComplete, registerQuestionKeys } from './vscode/elicitation/handler';
import type { ElicitationHandler } from './vscode/elicitation/handler';
import type { ServerRequestContext } from './core/tasks/engine';
import { noteRefusal, requestAbout } from './core/tasks/types';
import type { TaskSnapshot } from './core/tasks/types';
import { ACCEPT } from './core/elicitation/flow';
import { COMPLETED_ELSEWHERE } from './core/elicitation/handler';
import { runTitle } from './core/tasks/presentation';
import { createSamplingHandler } from './vscode/sampling/handler';
import { loadSamplingPermissions, revokeSamplingPermissions } from './vscode/sampling/permissions';
import { createTransport } from './core/transports/factory';
import { errorMessage } from './core/util/abort';
import { InFlight } from './core/util/inFlight';
import { Turns } from './core/util/turns';
import { registerCommands } from './vscode/commands';
import { ConfigurationReader, configErrorNotifier, defaultTtlMs, newConfigNotifier, onSettingChange, setting, userMcpJson } from './vscode/configuration';
import { cancelledByServer, TaskIndicators } from './vscode/indicators';
import { HiddenDialogs } from './vscode/hiddenDialogs';
import { ResultDocuments } from './vscode/results';
import { registerTaskCommands } from './vscode/taskCommands';
import { channelLogger } from './vscode/log';
import { tellUnread, tellUnsaved } from './vscode/storageNotices';
import type { RowSnapshot } from './vscode/tree/tasksTree';
import { TasksTreeProvider } from './vscode/tree/tasksTree';
import type { McpTasksApi as PublicApi } from '../api/mcp-tasks';
import { TasksService } from './core/api/service';
import { createApi } from './vscode/api';
import { registerLmTools } from './vscode/lmTools';
import { InputPrompter } from './vscode/inputs';
import { failuresTo, registerCommand, setContext, TASKS_VIEW } from './vscode/editorCommands';
import { ELICITATION_CREATE, SAMPLING_CREATE } from './core/protocol/schemas';
import { fromEntries } from './core/util/builtins';

/** What `activate` returns: the public API (api/mcp-tasks.d.ts), and `testing` for our tests. */
export interface McpTasksApi extends PublicApi {
  /** Internal hooks for the extension's own tests; not a stable API. */
  readonly testing: {
    getTreeSnapshot(): RowSnapshot[];
    whenConfigurationLoaded(): Promise<void>;
    /** Servers' dialogs hidden without an answer, waiting to be reopened. */
    hiddenDialogs(): number;
    /** Where the server's question about this task is (shown, waiting, deferred, hidden), if any. */
    questionPlace(key: string): string | undefined;
    /** What the status bar item and the view's badge say. */
    indicators(): { statusBar?: string; tooltip?: string; badge?: number };
  };
}

export const activate = (context: vscode.ExtensionContext): McpTasksApi => {
  const activateStart = performance.now();
  // Every registration goes here: the editor disposes of them when the extension deactivates.
  const { subscriptions } = context;
  const channel = vscode.window.createOutputChannel('MCP Tasks', { log: true });
  subscriptions.push(channel);
  const logger = channelLogger(channel);
  const manifest = context.extension.packageJSON as { version?: string; contributes: { commands: { command: string; title: string }[] } };
  const version = manifest.version ?? '0.0.0';
  // A command's failure that it does not tell itself is logged and shown, named by its title.
  failuresTo(channel, manifest.contributes.commands);

  // Read at each request (a changed setting applies at once), from a copy kept up to date: at
  // thousands of polls a second, reading the configuration each time would cost more than they do.
  const readRequestTimeout = () => setting('requestTimeoutSeconds', 60) * 1000;
  let requestTimeoutMs = readRequestTimeout();
  const requestTimeout = () => requestTimeoutMs;
  subscriptions.push(onSettingChange('requestTimeoutSeconds', () => (requestTimeoutMs = readRequestTimeout())));
  // Tasks and results of this workspace survive reloads here; windows without a folder share one store.
  const storage = (context.storageUri ?? context.globalStorageUri).fsPath;
  const store = new TaskStore(storage, logger, {
    shared: !context.storageUri,
    retentionDays: () => setting('retentionDays', 30),
    onSaveError: tellUnsaved(storage),
    onUnread: tellUnread,
  });
  // Answers to servers: questions through quick input, sampling through the editor's models
  // after consent; task-augmented requests run as tasks the client hosts.
  const label = (id: string) => servers.label(id);
  // Per task: its questions and sampling consent prompts open (or queued) in a dialog, and its
  // sampling requests a model is answering (nothing is asked of the user then).
  const asking = new InFlight();
  const answering = new InFlight();
  // Tasks and calls whose failure the user caused or was told of: a request denied, a question declined or cancelled, or no model for it.
  const untold = new Set<string>();
  // Questions and sampling consent take turns: a quick input shown over another hides it. One
  // hidden without an answer stays pending until reopened; those waiting then wait for the user.
  const dialogs = new Turns();
  const hidden = new HiddenDialogs(dialogs);
  subscriptions.push(hidden, ...registerQuestionKeys());
  // A question's title names its task as the task's row does (a screen reader read "task 7c2f…" as "7c2f dot dot dot"),
  // and follows it when another run renames it (or its direct call becomes a task, kept under the call's key too).
  const renamed = (l: (e: TaskSnapshot | string) => void) => {
    const subs = [engine.onDidChange(l), engine.onDidRemove(l)];
    return { dispose: () => subs.forEach((d) => d.dispose()) };
  };
  const questions = createElicitationHandler({ log: logger, serverLabel: label, turns: dialogs, hidden, taskTitle: (t) => runTitle(engine.list(), engine.get(t.key) ?? t), renamed, withdrawn: cancelledByServer, call: (k) => engine.get(k) });
  const elicitation: ElicitationHandler = Object.assign(async (params: Record<string, unknown> | undefined, ctx: ServerRequestContext) => {
    const answer = await asking.during(requestAbout(ctx), () => questions(params, ctx));
    // Declined or cancelled (dismissed without answering): the user's doing, as a sampling request denied is.
    noteRefusal(untold, ctx, answer.action !== ACCEPT && answer !== COMPLETED_ELSEWHERE);
    return answer;
  }, {
    complete: questions.complete,
  });
  const samplingPermissions = loadSamplingPermissions(context.globalState);
  const sampling = createSamplingHandler({
    log: logger,
    serverLabel: label,
    serverFingerprint: (id) => {
      const c = servers.config(id);
      return c && fingerprint(c);
    },
    permissions: samplingPermissions,
    turns: dialogs,
    hidden,
    answering,
    asking,
    untold,
    // A request its server withdrew before the user answered is said as its prompt closes, as a question is.
    withdrawn: cancelledByServer,
  });
  const hostLimits = () => {
    const c = vscode.workspace.getConfiguration('mcpTasks.hostedTasks');
    return {
      maxTtlMs: c.get<number>('maxTtlSeconds', 3600) * 1000,
      maxConcurrentPerServer: c.get<number>('maxConcurrentPerServer', 10),
      ratePerSecond: c.get<number>('maxOperationsPerSecond', 50),
    };
  };
  const host = new TaskHost({ logger, label, ...hostLimits() });
  subscriptions.push(
    samplingPermissions,
    sampling,
    host,
    onSettingChange('hostedTasks', () => host.configure(hostLimits())),
  );

  const inputs = new InputPrompter(context);
  const folders = () => vscode.workspace.workspaceFolders ?? [];
  const servers: ServerManager = new ServerManager({
    logger,
    clientInfo: { name: 'mcp-tasks-vscode', title: 'MCP Tasks for VS Code', version },
    roots: () => folders().map((f) => ({ uri: f.uri.toString(), name: f.name })),
    resolveContext: () => ({
      userHome: os.homedir(),
      env: process.env,
      folders: fromEntries(folders().map((f) => [f.name, f.uri.fsPath])),
      folderPaths: folders().map((f) => f.uri.fsPath),
      readFile: async (p) => new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(p))),
    }),
    promptInput: (input, server, signal) => inputs.prompt(input, server, signal),
    savedInput: (input, server) => inputs.saved(input, server),
    forgetInput: (input, server) => inputs.forget(input, server),
    startBlocker: (config) => trustBlocker(config, vscode.workspace.isTrusted),
    createTransport,
    capabilities: () => ({ ...engine.clientCapabilities(), ...host.capabilities() }),
    onSession: (session, config) => {
      engine.attachSession(config.id, session);
      host.attachSession(config.id, session);
      listenForElicitationComplete(session, config.id, elicitation);
    },
    keepSessionAtShutdown: (id) => engine.holdsSession(id),
    liveTasks: (id) => serverWork(engine, host, id),
    drop: (id, why, moved) => engine.drop(id, why, moved),
    saveSessions: (sessions) => store.saveSessions(sessions),
    secrets: context.secrets,
    sessionOptions: { requestTimeoutMs: requestTimeout },
  });
  // The engine reaches servers through the manager (made first), and registers its handlers on
  // each new session the manager opens.
  const engine: TaskEngine = new TaskEngine({
    logger,
    handlers: {
      elicitation: { handle: host.wrap(ELICITATION_CREATE, elicitation), url: true },
      sampling: { handle: host.wrap(SAMPLING_CREATE, sampling.handle) },
    },
    sessions: servers,
    defaultTtlMs,
    autoFetchResults: () => setting('autoFetchResults', true),
    requestTimeoutMs: requestTimeout,
    loadOutcome: (key) => store.readOutcome(key),
  });
  // A hosted question about a tool task closes when that task ends.
  host.followRelatedTasks(engine);

  // A stdio server whose new configuration (or removal) waits for its live tasks goes on when they end,
  // or when the results of its ended ones are no longer fetched (see liveCount), and its hosted ones.
  for (const source of [engine, host]) subscriptions.push(source.onDidChange((t: { serverId: string }) => servers.liveTasksChanged(t.serverId)), source.onDidRemove(() => servers.liveTasksChanged()));
  subscriptions.push(onSettingChange('autoFetchResults', () => servers.liveTasksChanged()), {
    // Shutdown in order: save the tasks, stop following them, then close the connections (which
    // keeps the HTTP sessions of live tasks for the next window).
    dispose: () => {
      store.dispose();
      engine.dispose();
      servers.dispose();
    },
  });

  // Tasks of the previous window first, so their servers are known when the configuration loads.
  // The store follows the engine even when restoring fails: a store that follows nothing saves an
  // empty task list with the sessions at shutdown, and the next window would start with no tasks.
  const restored = store
    .load()
    .then(async (state) => {
      engine.restore(state.tasks, state.progressTokens, state.removed);
      await servers.addSavedSessions(state.sessions, state.dropped);
      if (state.tasks.length) channel.info(`Restored ${state.tasks.length} tasks of the previous window`);
    })
    .catch((err: unknown) => channel.error(`Could not restore tasks: ${errorMessage(err)}`))
    .finally(() => store.attach(engine));
  const reader = new ConfigurationReader(userMcpJson(context.globalStorageUri));
  const notifyErrors = configErrorNotifier(channel);
  subscriptions.push(reader, newConfigNotifier(servers));
  // The chat tools' `when` (and the empty view's welcome): a server, a configuration error, or a tracked task.
  const chatReach = followChatReach(servers, engine, (has) => setContext('mcpTasks.hasServers', has));
  subscriptions.push(chatReach);
  // One reload after another, so a slow read never lands after a newer one.
  let loaded: Promise<void> = restored;
  const reload = () =>
    (loaded = loaded.then(async () => {
      try {
        const config = await reader.read();
        servers.setConfiguration(config.servers, config.errors);
        notifyErrors(servers.errors);
        engine.serversChanged();
      } catch (err) {
        channel.error(`Could not read the MCP configuration: ${errorMessage(err)}`);
      }
      // Failed, the servers are those of the last read: the view shows them (not "Loading") and the chat tools reach them.
      // hasServers first: set after ready, the welcome "No MCP servers are configured" showed for a moment where there are servers.
      chatReach.now();
      void setContext('mcpTasks.ready', true);
    }));
  subscriptions.push(
    reader.onDidChange(() => void reload()),
    vscode.workspace.onDidChangeWorkspaceFolders(() => servers.notifyRootsChanged()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void reload()),
  );

  const tree = new TasksTreeProvider(servers, engine, host);
  const view = vscode.window.createTreeView(TASKS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  const results = new ResultDocuments(engine, label);
  const indicators = new TaskIndicators(engine, host, view, label, { dialogs: hidden, answering, untold, shown: () => tree.shownHosted() });
  subscriptions.push(tree, view, results, indicators);
  const endByUser = <T>(keys: readonly string[], end: () => Promise<T>, cancel?: boolean) => indicators.endByUser(keys, end, cancel);
  // Ages in the rows' descriptions: refreshed while the view is visible, and when it shows again.
  // Every 30 s, not every second (10,000 rows may be tracked): ages are shown in minutes ("now"
  // under one, see formatRowAge), which a redraw twice a minute keeps true to the half minute.
  const ageTimer = setInterval(() => view.visible && tree.refreshAll(), 30_000);
  subscriptions.push(
    { dispose: () => clearInterval(ageTimer) },
    view.onDidChangeVisibility((e) => e.visible && tree.refreshAll()),
    ...registerCommands({ servers, log: channel, reloadConfiguration: () => reload(), userMcpJson: reader.userFile, refreshTasks: (id) => engine.refreshList(id), tasks: () => engine.list(), pendingCalls: (id) => engine.pendingCalls(id), endByUser }),
    ...registerTaskCommands({ servers, engine, host, store, asking, isAnswering: (key) => answering.has(key), isConsenting: sampling.consenting, reopenDialog: (key) => hidden.reopen(key) || (!!key && hidden.whereIs(key) === 'shown' && (focusQuestion() || focusConsent())), results, tree, view, endByUser }),
    registerCommand('mcpTasks.revokeSamplingPermissions', () => revokeSamplingPermissions(samplingPermissions)),
    inputs.registerForgetCommand(() => servers.list().flatMap((x) => servers.config(x.id) ?? [])),
  );

  // Reading configuration touches the disk: after activation returns, never before. The API and
  // the chat tools wait for this first load (reload never rejects).
  const ready = reload();

  // Chat agents (language-model tools) and other extensions (the API) reach tasks through one service.
  const service = new TasksService({ engine, servers, logger, endByUser });
  subscriptions.push(service, ...registerLmTools(service, ready));

  // MCP_TASKS_TIMING=1 logs how long activation took (the benchmarks read it).
  if (process.env.MCP_TASKS_TIMING) channel.info(`activate() took ${(performance.now() - activateStart).toFixed(1)} ms`);
  return createApi({
    service,
    ready,
    testing: {
      getTreeSnapshot: () => tree.snapshot(),
      whenConfigurationLoaded: () => loaded,
      hiddenDialogs: () => hidden.size,
      questionPlace: (key) => hidden.whereIs(key),
      indicators: () => indicators.snapshot(),
    },
  });
};

export const deactivate = (): void => {
  // Everything is in context.subscriptions.
};
