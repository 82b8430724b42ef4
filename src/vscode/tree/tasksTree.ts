import * as vscode from 'vscode';
import type { ConfigError } from '../../core/config/types';
import { sourcePlace } from '../../core/config/types';
import type { ServerManager, ServerSnapshot } from '../../core/servers/serverManager';
import { BLOCKED, CONNECTED, CONNECTING, InputDismissedError, restarts } from '../../core/servers/serverManager';
import type { TaskEngine, Unreachable } from '../../core/tasks/engine';
import type { HostedTaskSnapshot, TaskHost } from '../../core/host/taskHost';
import { STATUS_PRESENTATION, asSeen, askedTitle, describeHosted, describeTask, formatAge, formatDuration, localTime, newestFirstOf, runTitles, taskTitle, ttlRow, WARNING_COLOR } from '../../core/tasks/presentation';
import { EXPIRED, isTerminal, LOST } from '../../core/tasks/status';
import { hasResult as resultOf, isCancelable } from '../../core/tasks/policy';
import type { TaskSnapshot } from '../../core/tasks/types';
import { DisposableBase } from '../../core/util/event';
import { syncedFlag } from '../../core/util/flag';
import { afterServerName, unnamedReason } from '../../core/transports/transport';
import { itsTasksEnd, liveWork } from '../../core/util/log';
import type { LiveWork } from '../../core/tasks/types';
import { REMOVED_SERVER_ICON, SERVER_STATE_ICON, asThemeIcon } from './icons';
import { OPEN_CONFIGURATION, OPEN_RESULT, RESPOND_TO_TASK, setContext } from '../editorCommands';
import { isObjectLike, isString, stringify } from '../../core/util/json';
import { isArray, keysOf, now, parseDate } from '../../core/util/builtins';
import { COMPLETED, ELICITATION_CREATE, INPUT_REQUIRED, TASKS_GET, TASKS_LIST, TOOLS_CALL } from '../../core/protocol/schemas';
import { DIRECT, SERVER_LIST, TASK } from '../../core/tasks/types';
import { formatCount, inert, oneLine } from '../../core/util/text';

/** The kinds of row besides a task's (TASK): one string each in the bundle; also the first word of their `contextValue`. */
export const SERVER = 'server' as const;
export const HOSTED = 'hosted' as const;
const CONFIG_ERROR = 'configError';

export type Node =
  | { kind: 'server'; id: string }
  | { kind: 'task'; key: string; serverId: string }
  /** A task the server asked the client to run (elicitation or sampling), hosted here. */
  | { kind: 'hosted'; taskId: string; serverId: string }
  | { kind: 'configError'; index: number };

/** A plain view of a row, for tests and diagnostics. */
export interface RowSnapshot {
  id?: string;
  label: string;
  description?: string;
  tooltip?: string;
  /** What a screen reader says. */
  accessibility?: string;
  contextValue?: string;
  icon?: string;
  /** What a click or Enter on the row runs. */
  command?: string;
  children?: RowSnapshot[];
}

/**
 * Describes a server's state in a few words. A `row`'s error is its message alone: the row's
 * icon says it is an error, as the editor's views do (the tooltip and accessible label say it).
 */
export const describeServer = (s: ServerSnapshot, row?: boolean, down?: Unreachable): string => {
  return s.newConfigWaitsFor ? `${describeState(s, row, down)} · new configuration waits for ${liveWork(s.newConfigWaitsFor)}` : describeState(s, row, down);
};

/** `down`: its polls cannot reach it (see TaskEngine.unreachable), which a live connection does not tell; a row says only that. */
const describeState = (s: ServerSnapshot, row?: boolean, down?: Unreachable): string => {
  switch (s.state.kind) {
    case 'idle':
      // Disconnected by the user, it stays so until the user connects it: not one never started.
      return s.heldByUser ? 'disconnected' : 'not connected';
    case CONNECTING:
      return 'connecting…';
    case CONNECTED:
      return down ? `unreachable · retrying${row ? '' : ` (since ${new Date(down.since).toLocaleString()}${afterServerName(down.why, s.label)})`}`
        : // In words on the row; what the server declared (method names) in the tooltip. Declared tasks
          // without tools/call (only list, cancel): none of its tools runs as a task (T-TOOL-1).
          `connected · ${s.tasks ? `runs ${s.tasks.includes(TOOLS_CALL) ? '' : 'no '}tools as tasks` : 'no task support'}${!row && s.tasks ? ` (tasks: ${s.tasks})` : ''}`;
    case 'error':
      // The row sits under the server's name: its reason without the name and url ("connection refused…"), which the tooltip gives.
      return row ? unnamedReason(s.state.message ?? 'unknown', s.label).why : `error${afterServerName(s.state.message ?? 'unknown', s.label)}`;
    case BLOCKED:
      return `not started: ${s.state.message ?? ''}`;
  }
};


/**
 * The Tasks view: servers, and under each its tasks, newest first. Node objects are kept per id,
 * so a change refreshes exactly the row that changed (a new or removed task: its server's row).
 */
export class TasksTreeProvider extends DisposableBase implements vscode.TreeDataProvider<Node> {
  readonly #onDidChangeTreeData = this._register(new vscode.EventEmitter<Node | Node[] | undefined>());
  readonly onDidChangeTreeData = this.#onDidChangeTreeData.event;
  readonly #serverNodes = new Map<string, Node & { kind: 'server' }>();
  readonly #taskNodes = new Map<string, Node & { kind: 'task' }>();
  readonly #hostedNodes = new Map<string, Node & { kind: 'hosted' }>();
  /** By server, the titles of its runs of one tool (see runTitles), as its rows were last listed. */
  readonly #runTitles = new Map<string, Map<string, string>>();
  /**
   * Ended hosted tasks cleared from the view (Clear Finished Tasks). The host keeps them until
   * their ttl, so the server that asked can still fetch their outcome; the view no longer shows them.
   */
  readonly #clearedHosted = new Set<string>();
  /** The item VS Code last read for each row (getTreeItem), its tooltip set once hovered: see #changed. */
  readonly #drawn = new WeakMap<Node, vscode.TreeItem>();
  /** The item #changed built for a task row it found changed, which VS Code reads next (getTreeItem): built once a change. Dropped when rows are listed again (a run's title may change). */
  #built = new WeakMap<Node, vscode.TreeItem>();
  /** The look of an item #changed compared, kept while it shows so (its tooltip set on hover changes it): one look built a change, not two. */
  readonly #looks = new WeakMap<vscode.TreeItem, string>();
  readonly #servers: ServerManager;
  readonly #engine: TaskEngine;
  readonly #host: TaskHost | undefined;
  /** The context key mcpTasks.hasFinished (it enables Clear Finished Tasks): whether a finished row is shown (a task, or a hosted task, that it would clear); checked once per burst of changes. */
  readonly #hasFinished = syncedFlag(
    () => this.#engine.list().some((t) => isTerminal(t.status)) || this.endedHosted().length > 0,
    (has) => setContext('mcpTasks.hasFinished', has),
  );
  /** By server, whether its row as VS Code last had it listed tasks (its id says so: see #item). */
  readonly #rowHasTasks = new Map<string, boolean>();
  /** While task rows redrawn in the last 250 ms wait (see #redraw), the timer that ends the wait; the rows changed since. */
  #held?: ReturnType<typeof setTimeout>;
  readonly #again = new Set<Node>();

  constructor(servers: ServerManager, engine: TaskEngine, host?: TaskHost) {
    super();
    this.#servers = servers;
    this.#engine = engine;
    this.#host = host;
    // A live row changed in place (progress, a message) cannot change the answer: an ended task
    // does not start again (T-LIFE-3). Checked for everything else, not for each progress report.
    this._register(this.onDidChangeTreeData((node) => (!isArray(node) && node?.kind === TASK && !isTerminal(this.#engine.get(node.key)?.status ?? COMPLETED)) || this.#hasFinished.check()));
    this.#hasFinished.check();
    if (host) {
      this._register(host.onDidChange((h) => this.#fire(this.#hostedNodes.get(h.taskId), h.serverId)));
      this._register(
        host.onDidRemove((id) => {
          const node = this.#hostedNodes.get(id);
          this.#hostedNodes.delete(id);
          this.#clearedHosted.delete(id);
          if (node) this.#fire(undefined, node.serverId);
        }),
      );
    }
    this._register(
      servers.onDidChange((snapshot) => {
        const node = snapshot && this.#serverNodes.get(snapshot.id);
        this.#onDidChangeTreeData.fire(node);
      }),
    );
    this._register(
      engine.onDidChange((task) => {
        const node = this.#taskNodes.get(task.key);
        // A known row changed in place, if it shows it; a new task changes its server's children.
        if (node) this.#redraw(node);
        else this.#fire(undefined, task.serverId);
      }),
    );
    this._register({ dispose: () => clearTimeout(this.#held) });
    this._register(engine.onDidChangeReach((id) => this.#onDidChangeTreeData.fire(this.#serverNodes.get(id))));
    this._register(
      engine.onDidRemove((key) => {
        const node = this.#taskNodes.get(key);
        this.#taskNodes.delete(key);
        // A server no longer configured has a row only while it has tasks: the root is read again.
        if (node) this.#fire(undefined, node.serverId);
      }),
    );
  }

  /**
   * Redraws `node`, or else the row of server `serverId` (with its children). A server's row whose
   * id changes (its first task or its last: see #item), or whose server is no longer configured
   * (it has a row only while it has tasks), is redrawn with the whole view: VS Code reads again
   * the children of a row whose id changed through its parent, and a server's row has none, so
   * its old rows stayed under it (1,000 tasks of two servers cleared at once: 700 stayed listed).
   */
  #fire(node: Node | undefined, serverId: string): void {
    // A known row's change (most of them: every message and progress) reads no other task.
    if (node) return this.#onDidChangeTreeData.fire(node);
    const server = this.#serverNodes.get(serverId);
    const hasTasks = this.#hasTasks(serverId);
    const moved = !this.#servers.get(serverId) || (server && this.#rowHasTasks.get(serverId) !== hasTasks);
    if (moved) this.#rowHasTasks.set(serverId, hasTasks);
    this.#onDidChangeTreeData.fire(moved ? undefined : server);
  }

  /**
   * Redraws task rows that show otherwise, the view's at most once in 250 ms, their last state last:
   * a server may report progress 1,000 times a second. VS Code redraws a view's rows once its changes
   * pause for 200 ms, so rows changed more often, one task's or several tasks' in turn, showed none
   * of the changes until they stopped.
   */
  #redraw(...nodes: Node[]): void {
    if (this.#held) return void nodes.forEach((n) => this.#again.add(n));
    // A row removed meanwhile is no longer VS Code's: its redraw is ignored.
    const changed = nodes.filter((n) => this.#changed(n));
    if (!changed.length) return;
    this.#onDidChangeTreeData.fire(changed);
    this.#held = setTimeout(() => {
      this.#held = undefined;
      const again = [...this.#again];
      this.#again.clear();
      this.#redraw(...again);
    }, 250);
  }

  #hasTasks(serverId: string): boolean {
    return this.#engine.list().some((t) => t.serverId === serverId) || this.shownHosted().some((h) => h.serverId === serverId);
  }

  /** Redraws the rows that have changed since VS Code read them: ages grow, and so do a ttl's in a tooltip. */
  refreshAll(): void {
    const changed = [...this.#taskNodes.values(), ...this.#hostedNodes.values()].filter((node) => this.#drawn.has(node) && this.#changed(node));
    if (changed.length) this.#onDidChangeTreeData.fire(changed);
  }

  /**
   * Whether a row would show otherwise than when VS Code last read it, its tooltip included once
   * hovered. Only such rows are redrawn: VS Code drops the command of a row redrawn under the
   * pointer, so a click in that moment would be lost (a result fetched shows nothing new, and it
   * is often fetched as the user clicks the row that has just completed).
   */
  #changed(node: Node): boolean {
    const drawn = this.#drawn.get(node);
    if (!drawn) return true;
    const item = this.#item(node);
    if (drawn.tooltip) this.resolveTreeItem(item, node);
    const now = look(item);
    const changed = now !== (this.#looks.get(drawn) ?? look(drawn));
    this.#looks.set(changed ? item : drawn, now);
    // Only a task row is redrawn solely through here (a hosted one also on its host's change).
    if (changed && node.kind === TASK) this.#built.set(node, item);
    else this.#built.delete(node);
    return changed;
  }

  /** The ended hosted tasks the view shows (Clear Finished Tasks clears them with the tasks). */
  endedHosted(): HostedTaskSnapshot[] {
    return this.shownHosted().filter((h) => isTerminal(h.status));
  }

  /** Takes the ended hosted tasks (or the one of `taskId`) out of the view. Returns how many. */
  clearEndedHosted(taskId?: string): number {
    const ended = this.endedHosted().filter((h) => taskId === undefined || h.taskId === taskId);
    for (const h of ended) this.#clearedHosted.add(h.taskId);
    if (ended.length) this.#onDidChangeTreeData.fire(undefined);
    return ended.length;
  }

  /** The hosted tasks the view shows: not those cleared from it. Each is named among these (see askedTitle), as runs of one tool are among the tasks shown. */
  shownHosted(): HostedTaskSnapshot[] {
    return (this.#host?.list() ?? []).filter((h) => !this.#clearedHosted.has(h.taskId));
  }

  getParent(node: Node): Node | undefined {
    return node.kind === TASK || node.kind === HOSTED ? this.#serverNodes.get(node.serverId) : undefined;
  }

  /** The name of a server no longer configured: its last label, else the name in its id. */
  #removedLabel(id: string): string {
    return this.#servers.label(id, vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath));
  }

  getChildren(element?: Node): Node[] {
    if (!element) {
      const errors: Node[] = this.#servers.errors.map((_, index) => ({ kind: CONFIG_ERROR, index }));
      const live = new Set<string>();
      const serverNode = (id: string) => {
        live.add(id);
        return kept(this.#serverNodes, id, () => ({ kind: SERVER, id }));
      };
      const servers = this.#servers.list().map((s) => serverNode(s.id));
      // Tasks of servers no longer configured are still tracked (palette, API, store): a row
      // per such server, after the configured ones, keeps them in sight until cleared.
      const removed = [...new Set([...this.#engine.list().map((t) => t.serverId), ...this.shownHosted().map((h) => h.serverId)])]
        .filter((id) => !live.has(id))
        .sort((a, b) => this.#removedLabel(a).localeCompare(this.#removedLabel(b)))
        .map(serverNode);
      for (const id of this.#serverNodes.keys()) if (!live.has(id)) this.#serverNodes.delete(id);
      return [...servers, ...removed, ...errors];
    }
    if (element.kind !== SERVER) return [];
    // Newest first, as tasks are (the host lists them oldest first).
    const hosted = this.shownHosted()
      .filter((h) => h.serverId === element.id)
      .reverse()
      .map((h) => kept(this.#hostedNodes, h.taskId, () => ({ kind: HOSTED, taskId: h.taskId, serverId: h.serverId })));
    // Tracked in the order they started: named so (see runTitles), then listed newest first.
    const tasks = this.#engine.list().filter((t) => t.serverId === element.id);
    // A new run or one removed changes its server's children: VS Code then reads each row again.
    this.#runTitles.set(element.id, runTitles(tasks));
    this.#built = new WeakMap();
    return [...hosted, ...newestFirstOf(tasks).map((t) => kept(this.#taskNodes, t.key, () => asTaskNode(t)))];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    // Not the row built for a redraw if it changed since (its next redraw is held): the demo's build read "Compiling 3/3… · 2/6" for 250 ms more.
    const item = (!this.#again.has(node) && this.#built.get(node)) || this.#item(node);
    this.#built.delete(node);
    this.#drawn.set(node, item);
    if (node.kind === SERVER) this.#rowHasTasks.set(node.id, item.id?.startsWith('server+') === true);
    return item;
  }

  #item(node: Node): vscode.TreeItem {
    if (node.kind === CONFIG_ERROR) return configErrorItem(this.#servers.errors[node.index]);
    if (node.kind === TASK) {
      const t = this.#engine.get(node.key);
      return t ? this.#taskItem(t) : new vscode.TreeItem('(removed)');
    }
    if (node.kind === HOSTED) {
      const hosted = this.shownHosted();
      const h = hosted.find((x) => x.taskId === node.taskId);
      return h ? hostedItem(h, hosted) : new vscode.TreeItem('(removed)');
    }
    const s = this.#servers.get(node.id);
    if (!s) return this.#servers.isConfigured(node.id) === undefined ? unloadedServerItem(node.id, this.#removedLabel(node.id), this.#servers.errors.length > 0) : removedServerItem(node.id, this.#removedLabel(node.id), this.#servers.leavingWith(node.id), this.#servers.tasksOutliveConnection(node.id) === false);
    const hasTasks = this.#hasTasks(s.id);
    const item = new vscode.TreeItem(s.label, hasTasks ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    // VS Code reads a row's collapsible state only when it first draws the row: a row drawn
    // without tasks stayed collapsed over its first task unless something revealed it (a chat
    // tool, the API, Refresh do not). With tasks it is another row to VS Code (its id says so),
    // drawn expanded, and it keeps the user's collapse while it keeps tasks. (Always Expanded
    // would put an open chevron on every row without tasks.)
    item.id = `server${hasTasks ? '+' : ''}:${s.id}`;
    // Disconnected by the user (or its input dismissed), a remote server's live tasks go on there, unfollowed: say so.
    const unfollowed = this.#servers.heldWhy(s.id) ? this.#engine.list().filter((t) => t.serverId === s.id && t.kind === TASK && !isTerminal(t.status)).length : 0;
    const held = unfollowed === 1 ? ' · 1 live task not followed' : unfollowed ? ` · ${formatCount(unfollowed)} live tasks not followed` : '';
    const down = this.#engine.unreachable(s.id);
    item.description = oneLine(describeServer(s, true, down) + held);
    item.iconPath = asThemeIcon(SERVER_STATE_ICON[s.state.kind]);
    const up = s.state.kind === CONNECTED || s.state.kind === CONNECTING;
    // Restart, not connected, is Connect (a failed server too: Connect tries at once), unless a
    // new configuration waits for its tasks: Restart applies it now (its tooltip says so).
    item.contextValue = capabilities(SERVER, up ? 'disconnectable' : 'connectable', (up || !!s.newConfigWaitsFor) && 'restartable');
    const n = s.newConfigWaitsFor;
    item.tooltip = markdown(
      `**${escapeMd(s.label)}** · ${s.type}\n\n` +
        `State: ${escapeMd(describeServer(s, false, down) + held)}${held ? ': connect it to follow its tasks again' : s.heldByUser ? ': it stays so until you connect it' : ''}\n\n` +
        (n ? `Its configuration changed; it ${restarts(s.type)} with the new one when ${itsTasksEnd(n)}. Restart it to apply it now, losing ${liveWork(n)}.\n\n` : '') +
        (s.serverInfo ? `Server: ${escapeMd(`${s.serverInfo.name} ${s.serverInfo.version}`)}, MCP ${escapeMd(s.protocolVersion ?? '')}\n\n` : '') +
        `Source: ${escapeMd(sourcePlace(s.source))}`,
    );
    heardAs(item, `Server ${s.label}, ${describeServer(s, false, down) + held}`);
    return item;
  }

  #taskItem(t: TaskSnapshot): vscode.TreeItem {
    const p = STATUS_PRESENTATION[t.status];
    const title = this.#title(t);
    const item = new vscode.TreeItem(oneLine(title));
    item.id = `task:${t.key}`;
    const said = describeTask(t, now());
    item.description = oneLine(said);
    item.iconPath = asThemeIcon({ id: p.icon, color: p.color });
    const live = !isTerminal(t.status);
    const cancelable = isCancelable(t, this.#servers);
    const hasResult = resultOf(t);
    item.contextValue = capabilities(TASK, t.kind, cancelable && 'cancelable', t.status === INPUT_REQUIRED && 'respondable', hasResult && 'hasResult', live ? 'live' : 'finished', !live && t.toolName && 'rerunnable');
    if (hasResult) item.command = { command: OPEN_RESULT, title: 'Open Result', arguments: [asTaskNode(t)] };
    // A click or Enter on a row that waits for you shows its question (a keyboard user has no inline button).
    else if (t.status === INPUT_REQUIRED) item.command = { command: RESPOND_TO_TASK, title: 'Respond', arguments: [asTaskNode(t)] };
    // The tooltip is built on hover (resolveTreeItem): rendering 10,000 rows builds none.
    // "Task NAME, STATUS, the rest": the description leads with the status when it has no message of its own, not said twice.
    const rest = said.startsWith(`${p.label} · `) ? said.slice(p.label.length + 3) : said;
    // Not "Task Task 3f2a…": a task found on the server is titled by its id.
    heardAs(item, `${t.toolName ? 'Task ' : ''}${title}, ${p.label}, ${rest}`);
    return item;
  }

  resolveTreeItem(item: vscode.TreeItem, node: Node): vscode.TreeItem {
    if (node.kind === TASK && !item.tooltip) {
      const t = this.#engine.get(node.key);
      if (t) item.tooltip = taskTooltip(t, this.#title(t), now(), this.#checks(t));
      this.#looks.delete(item);
    }
    return item;
  }

  #title(t: TaskSnapshot): string {
    return this.#runTitles.get(t.serverId)?.get(t.key) ?? taskTitle(t);
  }

  /** The whole tree as plain rows (for tests and diagnostics). */
  snapshot(): RowSnapshot[] {
    const walk = (nodes: Node[]): RowSnapshot[] =>
      nodes.map((n) => {
        const item = this.resolveTreeItem(this.#item(n), n);
        const kids = this.getChildren(n);
        return {
          id: item.id,
          label: isString(item.label) ? item.label : (item.label?.label ?? ''),
          description: isString(item.description) ? item.description : undefined,
          tooltip: isString(item.tooltip) ? item.tooltip : item.tooltip?.value,
          accessibility: item.accessibilityInformation?.label,
          contextValue: item.contextValue,
          icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
          command: item.command?.command,
          children: kids.length ? walk(kids) : undefined,
        };
      });
    return walk(this.getChildren());
  }

  /** How the engine checks a live task now, for its tooltip. */
  #checks(t: TaskSnapshot): string | undefined {
    if (t.kind !== TASK || isTerminal(t.status)) return undefined;
    const held = this.#servers.heldWhy(t.serverId);
    if (held) return held instanceof InputDismissedError ? 'not at all until its server is connected (its input was dismissed)' : 'not at all while its server is disconnected: connect it to follow the task again';
    if (this.#engine.followsByList(t.serverId)) return `through ${TASKS_LIST} pages, with the other live tasks of its server`;
    const every = this.#engine.effectivePollInterval(t.key);
    if (every === undefined) return undefined;
    const asked = t.pollInterval !== undefined && t.pollInterval !== every ? ` (the server suggests ${t.pollInterval} ms)` : '';
    return `about every ${every < 1000 ? `${every} ms` : `${+(every / 1000).toFixed(1)} s`}, by ${TASKS_GET}${asked}`;
  }

  /** The node of a task, for reveal(). */
  taskNode(key: string): Node | undefined {
    const t = this.#engine.get(key);
    return t && kept(this.#taskNodes, key, () => ({ kind: TASK, key, serverId: t.serverId }));
  }
}

/** The node of a row, made the first time: the same object at every refresh, so the row is refreshed alone. */
const kept = <N>(nodes: Map<string, N>, id: string, make: () => N): N => {
  let node = nodes.get(id);
  if (!node) nodes.set(id, (node = make()));
  return node;
};

/** A tooltip's markdown, whose `$(icon)`s show as icons. */
const markdown = (value: string): vscode.MarkdownString => new vscode.MarkdownString(value, true);

const taskTooltip = (t: TaskSnapshot, title: string, now: number, checks?: string): vscode.MarkdownString => {
  const p = STATUS_PRESENTATION[t.status];
  // A lost task's message says how it was, not how it is (T-LIFE-5): it goes on its last known status's row.
  const gone = t.status === LOST || t.status === EXPIRED;
  // Cut: a server's 100 KB message pushed the task's id and dates a hundred screens down.
  const message = t.statusMessage && escapeMd(truncate(t.statusMessage, 2000));
  const rows: Array<[string, string]> = [
    // Text, not a code span: a server's id with a backtick ended the span, and an image after it loaded at a hover.
    // None for a direct call: its id is a local one (direct-…) that no server knows.
    ...(t.kind === DIRECT ? [] : [['Task id', escapeMd(t.taskId)] as [string, string]]),
    ['Created', localTime(t.createdAt)],
    ['Updated', localTime(t.lastUpdatedAt)],
  ];
  const ttl = ttlRow(t, now);
  if (ttl) rows.push(ttl);
  if (checks) rows.push(['Checked', checks]);
  else if (t.pollInterval !== undefined && !isTerminal(t.status)) rows.push(['Poll interval', `${t.pollInterval} ms`]);
  if (gone && t.lastServerStatus) rows.push(['Last known status', [t.lastServerStatus, oneLine(message)].filter(Boolean).join(' · ')]);
  else if (gone && message) rows.push(['Last status message', oneLine(message)]);
  if (t.origin !== 'user') rows.push(['Started by', t.origin === SERVER_LIST ? `found on the server (${TASKS_LIST})` : t.origin]);
  const md = markdown(
    `$(${p.icon.replace('~spin', '')}) **${escapeMd(title)}**: ${p.label}${t.kind === DIRECT ? ' (direct call, not a task)' : ''}\n\n` +
      (message && !gone ? `${message}\n\n` : '') +
      (t.note ? `_${escapeMd(t.note)}_\n\n` : '') +
      rows.map(([k, v]) => `${k}: ${v}`).join('  \n'),
  );
  if (t.arguments && keysOf(t.arguments).length) {
    md.appendMarkdown('\n\nArguments:\n');
    md.appendCodeblock(truncate(stringify(t.arguments, null, 2), 1500), 'json');
  }
  return md;
};

/**
 * The row a command was run on, if it is one of `kind` (from the palette, a command has none;
 * another caller may pass anything): one without the string that names its server, task or
 * hosted task is none, and the command asks as from the palette.
 */
export const rowOf = <K extends Node['kind']>(arg: unknown, kind: K): Extract<Node, { kind: K }> | undefined => {
  const n = arg as { kind?: unknown; id?: unknown; key?: unknown; taskId?: unknown } | undefined;
  return isObjectLike(n) && n.kind === kind && isString(n.id ?? n.key ?? n.taskId) ? (n as Extract<Node, { kind: K }>) : undefined;
};

/** The tree's node of a task, as the commands that act on a task take it. */
export const asTaskNode = (t: Pick<TaskSnapshot, 'key' | 'serverId'>): Extract<Node, { kind: 'task' }> => ({ kind: TASK, key: t.key, serverId: t.serverId });

/** What a task the server asked the client to run is: a question or a sampling request. */
const hostedKind = (h: HostedTaskSnapshot): string => (h.method === ELICITATION_CREATE ? vscode.l10n.t('Question asked by the server') : vscode.l10n.t('Sampling asked by the server'));

/**
 * What a task the server asked the client to run is called (what it asks, see askedTitle; with
 * when, among those in `hosted` asked alike), what it is (`what`), and its codicon in `color` (the view's
 * row, its status's color; the Cancel Task pick, none).
 */
export const hostedTitle = (h: HostedTaskSnapshot, hosted: readonly HostedTaskSnapshot[], color?: string): { label: string; what: string; iconPath: vscode.ThemeIcon } => ({
  label: askedTitle(hosted, h, hostedKind),
  what: hostedKind(h),
  iconPath: asThemeIcon({ id: h.method === ELICITATION_CREATE ? 'comment-discussion' : 'sparkle', color }),
});

const hostedItem = (h: HostedTaskSnapshot, hosted: readonly HostedTaskSnapshot[]): vscode.TreeItem => {
  const p = STATUS_PRESENTATION[asSeen(h).status];
  const { label, what, iconPath } = hostedTitle(h, hosted, p.color);
  const item = new vscode.TreeItem(oneLine(label));
  item.id = `hosted:${h.serverId}:${h.taskId}`;
  item.description = oneLine(describeHosted(h, now()));
  const live = !isTerminal(h.status);
  // Ended, its icon says how, as a task's row does, not its colour alone; what it is, its tooltip and screen reader say.
  item.iconPath = live ? iconPath : asThemeIcon({ id: p.icon, color: p.color });
  // A live question is hidden, open or waiting its turn: Respond shows it if hidden.
  const respondable = live && h.method === ELICITATION_CREATE;
  item.contextValue = capabilities(HOSTED, live ? 'cancelable live' : 'finished', respondable && 'respondable');
  if (respondable) item.command = { command: RESPOND_TO_TASK, title: 'Respond', arguments: [{ kind: HOSTED, taskId: h.taskId, serverId: h.serverId }] };
  item.tooltip = markdown(
    `**${what}**, run as a task here: ${p.label}\n\n${escapeMd(h.summary)}\n\n` +
      `Task id: \`${h.taskId}\`  \nCreated: ${localTime(h.createdAt)}  \nTime allowed: ${formatDuration(h.ttl)}${live ? `, ${formatAge(parseDate(h.createdAt) + h.ttl - now())} left (then it closes unanswered)` : ''}${h.model ? `  \nLanguage model: ${escapeMd(h.model)}` : ''}`,
  );
  // Heard as seen: what it is (as its icon shows), then the status, why it ended and the age, not the status alone.
  heardAs(item, `${what}: ${label}, ${item.description}`);
  return item;
};

/**
 * A server no longer in the configuration whose tasks are still tracked. `running`: the live tasks
 * and calls its connection (`stdio`: its process) stays for until they end.
 */
const removedServerItem = (id: string, label: string, running?: LiveWork, stdio?: boolean): vscode.TreeItem => {
  const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
  // Always with tasks: the id of a configured server's row with tasks (see #item).
  item.id = `server+:${id}`;
  const runs = running ? ` · ${stdio ? 'runs' : 'kept'} until ${itsTasksEnd(running, false)}` : '';
  item.description = `no longer in the configuration${runs}`;
  item.iconPath = asThemeIcon(REMOVED_SERVER_ICON);
  // Not "server": nothing connects to it, runs tools on it or restarts it; it may be stopped before its tasks end.
  item.contextValue = running ? 'removedServer stoppable' : 'removedServer';
  const process = running ? ` Its ${stdio ? 'process runs' : 'connection stays'} until ${itsTasksEnd(running)}, then ${stdio ? 'stops' : 'closes'}.` : '';
  item.tooltip = new vscode.MarkdownString(`**${escapeMd(label)}** is no longer in the configuration (${escapeMd(id)}).${process} Its tasks stay listed until cleared (Clear Finished Tasks).`);
  heardAs(item, `Server ${label}, ${item.description}`);
  return item;
};

/**
 * A server whose tasks were restored before the configuration that names it has been read, or
 * (`broken`) that a configuration error may hide: its tasks wait for the fix (see isConfigured).
 */
const unloadedServerItem = (id: string, label: string, broken: boolean): vscode.TreeItem => {
  const item = removedServerItem(id, label);
  item.description = broken ? 'its tasks wait for a configuration error to be fixed' : 'reading the configuration…';
  if (!broken) item.iconPath = new vscode.ThemeIcon('loading~spin');
  item.tooltip = new vscode.MarkdownString(`**${escapeMd(String(item.label))}** (${escapeMd(id)}): its tasks were restored; ${item.description}`);
  heardAs(item, `Server ${String(item.label)}, ${item.description}`);
  return item;
};

const configErrorItem = (e: ConfigError | undefined): vscode.TreeItem => {
  const item = new vscode.TreeItem(e?.server ? `${e.server}: configuration error` : 'Configuration error');
  // The label names the server: the row says what is wrong at once (the tooltip has it all).
  item.description = e?.problem ?? e?.message;
  item.tooltip = e?.message;
  item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor(WARNING_COLOR));
  item.contextValue = CONFIG_ERROR;
  item.command = { command: OPEN_CONFIGURATION, title: 'Open MCP Configuration', arguments: [e?.source, e?.line, e?.column, e?.server] };
  return item;
};

/** A row's `contextValue`: the words of its capabilities, those given as false or empty left out. */
const capabilities = (...words: (string | false | undefined)[]): string => words.filter(Boolean).join(' ');

/** What a screen reader says for a row. */
const heardAs = (item: vscode.TreeItem, label: string): void => {
  // Commas, not the middle dots the eye skims, and progress as "2 of 6", not "2 slash 6": in the
  // locale's digits ("٢/٦", "2,5/6"), first after the status when no message is (see `rest`).
  item.accessibilityInformation = { label: label.replaceAll(' · ', ', ').replace(/, (\p{Nd}[^ /]*)\/(\p{Nd}[^ /]*)(?=, )/gu, ', $1 of $2') };
};

/** What a row shows, as one string to compare (the tooltip by its text: a MarkdownString's is a getter). */
const look = (item: vscode.TreeItem): string => stringify({ ...item, tooltip: isString(item.tooltip) ? item.tooltip : item.tooltip?.value });

const truncate = (s: string, max: number): string => (s.length > max ? `${s.slice(0, max)}\n…` : s);

// `:` too: a server's bare http:// URL stays text (GFM autolinks it: a link the server chose, with the escapes inside it shown).
const escapeMd = (s: string): string => inert(s).replace(/[\\`*_{}[\]()#+\-.!|<>:]/g, '\\$&');
