import * as vscode from 'vscode';
import type { TaskEngine, UnsentAnswer } from '../core/tasks/engine';
import type { HostedTaskSnapshot, TaskHost } from '../core/host/taskHost';
import { STATUS_PRESENTATION, formatDuration, runTitle } from '../core/tasks/presentation';
import { EXPIRED, isTerminal, LOST } from '../core/tasks/status';
import type { TaskSnapshot } from '../core/tasks/types';
import { DIRECT, SERVER_LIST } from '../core/tasks/types';
import { taskBrowserSteps } from '../core/elicitation/urlRequired';
import { DisposableBase } from '../core/util/event';
import type { InFlight } from '../core/util/inFlight';
import { formatCount } from '../core/util/text';
import { gatherer } from '../core/util/gather';
import { hasResult, lostWithWindow } from '../core/tasks/policy';
import { setting } from './configuration';
import type { HiddenDialogs } from './hiddenDialogs';
import type { Node } from './tree/tasksTree';
import { asTaskNode, hostedTitle } from './tree/tasksTree';
import { CANCEL_TASK, executeCommand, FOCUS_TASKS_VIEW, OPEN_RESULT, RESPOND_TO_TASK, RUN_AGAIN, SHOW_LOG } from './editorCommands';
import { COMPLETED, ELICITATION_CREATE, FAILED, INPUT_REQUIRED, WORKING } from '../core/protocol/schemas';
import { cancelTaskLabel, showInfo, showLogLabel, showWarning, type Notify } from './notify';

/** How long a task that needs input may wait for its question before it is told anyway (the question may never come). */
const QUESTION_WAIT_MS = 5000;

/** A server's question or sampling request closed unanswered as its server cancelled it (a hosted task's tasks/cancel, a plain question's notifications/cancelled). */
export const cancelledByServer = (title: string, server: string): void => void showInfo(vscode.l10n.t('"{0}" on {1} closed unanswered: its server cancelled it.', title, server));

/**
 * What tells the user about tasks without the view open: a status bar item (running and waiting
 * counts; a click focuses the view), the view's badge (tasks waiting for the user), and
 * notifications when a task needs input or ends (each switchable by a setting; a task that needs
 * input is told only when its question is not in front of the user, and an end the user caused
 * through our commands is not told at all; a task whose
 * result says the server needs a step in the browser first is told so), and a warning
 * when a question or sampling request a server had the client run closes unanswered (its ttl ran
 * out: the dialog and the row go at once; one warning per server for those that close together).
 */
export class TaskIndicators extends DisposableBase {
  readonly #item = this._register(vscode.window.createStatusBarItem('mcpTasks.status', vscode.StatusBarAlignment.Left, 50));
  readonly #last = new Map<string, TaskSnapshot['status']>();
  /** Tasks that ended since the last update: told together, one notification per server and status. */
  readonly #ended: TaskSnapshot[] = [];
  /** Hosted tasks whose ttl ran out since the last update, each named as its row was: told together, one warning per server. */
  readonly #expired: [HostedTaskSnapshot, string][] = [];
  /** Failed tasks whose result fetch has ended since they were held back (see toldNow). */
  readonly #fetched = new Set<string>();
  #disposed = false;
  /** The status bar item is shown (it has no getter for that). */
  #shown = false;
  readonly #engine: TaskEngine;
  #pending: ReturnType<typeof setTimeout> | undefined;
  /**
   * Ended tasks of one kind (server and status) found one after another over seconds (a reload's,
   * poll after poll) are told in one notification: once none has come for 2 s, or 20 s after the
   * first held. One alone is told at once.
   */
  readonly #gathered = gatherer<TaskSnapshot>((tasks) => this.#tellEnded(tasks), 2000, 20_000);
  /** Likewise hosted requests of one server whose ttl runs out one after another (many asked one after another). */
  readonly #gatheredExpired = gatherer<[HostedTaskSnapshot, string]>((expired) => this.#tellExpired(expired), 2000, 20_000);
  readonly #view: vscode.TreeView<Node>;
  readonly #label: (serverId: string) => string;
  readonly #dialogs: Pick<HiddenDialogs, 'whereIs' | 'onDidChange' | 'onDidShow'> | undefined;
  readonly #answering: Pick<InFlight, 'has' | 'onDidChange'> | undefined;
  readonly #untold: Set<string> | undefined;
  /** Tasks that need input whose question has not shown yet, with the timer of the wait for it. */
  readonly #awaiting = new Map<string, ReturnType<typeof setTimeout>>();
  /** Tasks whose question has shown before their status said they need input (it was answered fast). */
  readonly #asked = new Set<string>();
  /** Live tasks the user is ending through our commands (cancel, disconnect, restart): their end is not told; `true` (`'cancel'` for Cancel) once the command has returned (see endByUser). */
  readonly #endingByUser = new Map<string, boolean | 'cancel'>();

  /**
   * `dialogs`: where the servers' questions are, so a task whose question shows is not told as
   * well. `answering`: the tasks whose sampling request a model is answering (the user allowed
   * it): they wait for the model, not for the user, so they are neither told nor counted as
   * waiting for the user. `untold`: the tasks and calls whose failure is not told: their sampling
   * request no model could answer, the user told so then, or the user denied it or declined
   * their question (see noteRefusal): the row and the log say it.
   * `shown`: the hosted tasks the view shows (not those cleared from it), among which one is named.
   */
  constructor(
    engine: TaskEngine,
    host: TaskHost,
    view: vscode.TreeView<Node>,
    label: (serverId: string) => string,
    {
      dialogs,
      answering,
      untold,
      shown = () => host.list(),
    }: { dialogs?: Pick<HiddenDialogs, 'whereIs' | 'onDidChange' | 'onDidShow'>; answering?: Pick<InFlight, 'has' | 'onDidChange'>; untold?: Set<string>; shown?: () => readonly HostedTaskSnapshot[] } = {},
  ) {
    super();
    this.#untold = untold;
    this.#engine = engine;
    this.#view = view;
    this.#label = label;
    this.#dialogs = dialogs;
    this.#answering = answering;
    if (answering) this._register(answering.onDidChange(() => this.#schedule()));
    if (dialogs) {
      this._register(dialogs.onDidShow((about) => about.forEach((key) => this.#questionShown(key))));
      this._register(dialogs.onDidChange(() => [...this.#awaiting.keys()].forEach((key) => this.#questionMoved(key))));
    }
    this.#item.name = 'MCP Tasks';
    this.#item.command = FOCUS_TASKS_VIEW;
    this._register(engine.onDidChange((t) => this.#changed(t)));
    this._register(engine.onDidRemove((key) => (this.#last.delete(key), this.#forget(key), this.#schedule())));
    // Named while the view still shows it among those it asked alike (see askedTitle), as its row was.
    this._register(host.onDidExpire((h) => (this.#expired.push([h, hostedTitle(h, shown()).label]), this.#schedule())));
    // Its dialog closed under the user's eyes (or hidden, waited for): said, as for a ttl that ran out.
    this._register(host.onDidServerCancel((h) => cancelledByServer(hostedTitle(h, shown()).label, this.#label(h.serverId))));
    this._register(engine.onDidNotSend((u) => this.#notSent(u)));
    this._register({ dispose: () => ((this.#disposed = true), clearTimeout(this.#pending), this.#gathered.dispose(), this.#gatheredExpired.dispose(), this.#awaiting.forEach(clearTimeout)) });
    for (const t of engine.list()) this.#last.set(t.key, t.status);
    this.#update();
  }

  /** Counts are recomputed at most every 100 ms, however many tasks change. */
  #schedule(): void {
    this.#pending ??= setTimeout(() => {
      this.#pending = undefined;
      this.#update();
    }, 100);
  }

  /**
   * Runs `end`, a command of the user's that ends these live tasks (cancel, disconnect, restart):
   * the view shows the result, so their end is not told. Marked by the command, not read off the
   * task's note, so no wording decides it. A task that completes anyway (the server finished
   * first) is told; if `end` fails, the tasks go on and their end, whenever it comes, is told,
   * unless the task keeps its cancel (`cancelRequested`): the server may have had it, and may act on it later.
   * A task still live when `end` returns may yet end by it, seen later: lost (its process gone,
   * or its server forgot it once connected again), or any end of a call without a task (aborted).
   * Any other end, or any change that shows it alive after that, means it outlived the command.
   * `cancel`: `end` asked the server to cancel them; a server may answer while the task still
   * works and cancel it later, or forget it (lost, expired), so any end but completed or failed
   * is the user's whenever it comes (T-REQ-7); the row says which it was.
   */
  async endByUser<T>(keys: readonly string[], end: () => Promise<T>, cancel = false): Promise<T> {
    // A cancel ends a task cancelled (or lost, expired), never failed: a failure meanwhile is told.
    for (const key of keys) this.#endingByUser.set(key, cancel && 'cancel');
    try {
      const done = await end();
      for (const key of keys) if (this.#endingByUser.has(key)) this.#endingByUser.set(key, cancel ? 'cancel' : true);
      return done;
    } catch (err) {
      // A tasks/cancel that may have reached the server (unanswered in time, its answer lost with the connection) is kept by the task (cancelRequested).
      for (const key of keys) this.#endingByUser.delete(key);
      throw err;
    }
  }

  /** A task's name as its row shows it (runs of one tool say when each started), so a message about one run is not taken for another's. */
  #title(t: TaskSnapshot): string {
    return runTitle(this.#engine.list(), t);
  }

  #changed(t: TaskSnapshot): void {
    const before = this.#last.get(t.key);
    this.#last.set(t.key, t.status);
    this.#schedule();
    const returned = this.#endingByUser.get(t.key);
    if (returned === true && !isTerminal(t.status)) this.#endingByUser.delete(t.key);
    if (before === t.status) return;
    if (t.status !== INPUT_REQUIRED) {
      this.#stopAwaiting(t.key);
      this.#asked.delete(t.key);
    }
    if (t.status === INPUT_REQUIRED) this.#needsInput(t.key);
    else if (before !== undefined && isTerminal(t.status) && !isTerminal(before)) {
      // A cancel the task keeps (asked for before a window reload, whose mark went with it) counts as the mark of one.
      const byUser =
        (this.#endingByUser.delete(t.key) || t.cancelRequested) && t.status !== COMPLETED && (returned === 'cancel' || t.cancelRequested ? t.status !== FAILED : !returned || t.kind === DIRECT || t.status === LOST);
      // Failed for want of a language model (the user was told so, and what to do, when its server asked for one) or after the user refused its request.
      const told = this.#untold?.delete(t.key) && t.status === FAILED;
      if (!byUser && !told) this.#ended.push(t);
    }
  }

  /**
   * A task needs input: told only when its question is not in front of the user. Hidden or
   * deferred behind a hidden one, it is told now; shown (or shown and answered already), not at
   * all; otherwise the dialogs say what becomes of it (`#questionShown`, `#questionMoved`), and a
   * question that does not come within QUESTION_WAIT_MS is told anyway.
   */
  #needsInput(key: string): void {
    const where = this.#dialogs?.whereIs(key);
    const asked = this.#asked.delete(key);
    if (!this.#dialogs || where === 'hidden' || where === 'deferred') return this.#notifyInput(key);
    if (where === 'shown' || asked || this.#awaiting.has(key)) return;
    const wait = (): void => {
      // Behind another question on screen: it shows (or is deferred) when that one is done. Or a
      // model is answering the server for it: the user has nothing to do until it is done.
      if (this.#dialogs?.whereIs(key) === 'waiting' || this.#answering?.has(key)) return void this.#awaiting.set(key, setTimeout(wait, QUESTION_WAIT_MS));
      this.#awaiting.delete(key);
      this.#notifyInput(key);
    };
    this.#awaiting.set(key, setTimeout(wait, QUESTION_WAIT_MS));
  }

  #questionShown(key: string): void {
    if (!this.#last.has(key)) return;
    if (!this.#stopAwaiting(key)) this.#asked.add(key);
  }

  #questionMoved(key: string): void {
    const where = this.#dialogs?.whereIs(key);
    if (where !== 'hidden' && where !== 'deferred') return;
    this.#stopAwaiting(key);
    this.#notifyInput(key);
  }

  #stopAwaiting(key: string): boolean {
    const timer = this.#awaiting.get(key);
    clearTimeout(timer);
    return this.#awaiting.delete(key);
  }

  #forget(key: string): void {
    this.#stopAwaiting(key);
    this.#asked.delete(key);
    this.#endingByUser.delete(key);
    this.#untold?.delete(key);
  }

  #update(): void {
    this.#notifyEnded(this.#ended.splice(0).flatMap((t) => this.#toldNow(t)));
    this.#notifyExpired(this.#expired.splice(0));
    let running = 0;
    let waiting = 0;
    for (const [key, s] of this.#last) {
      if (s === WORKING || (s === INPUT_REQUIRED && this.#answering?.has(key))) running++;
      // One whose answer could not be sent waits for it at the server: nothing is asked of the user here.
      else if (s === INPUT_REQUIRED && !this.#engine.get(key)?.unsent) waiting++;
    }
    this.#shown = running + waiting > 0;
    if (!this.#shown) {
      this.#item.hide();
    } else {
      this.#item.text = [running && `$(sync~spin) ${formatCount(running)}`, waiting && `$(bell-dot) ${formatCount(waiting)}`].filter(Boolean).join('  ');
      // Only the counts there are, as the text shows them: "1 waiting for you", not "0 running, 1 waiting for you".
      const label = vscode.l10n.t('MCP Tasks: {0}', [running && vscode.l10n.t('{0} running', formatCount(running)), waiting && vscode.l10n.t('{0} waiting for you', formatCount(waiting))].filter(Boolean).join(', '));
      // What a click does, as the editor's own items say it.
      this.#item.tooltip = vscode.l10n.t('{0} — Click to show the MCP Tasks view', label);
      this.#item.accessibilityInformation = { label };
      this.#item.show();
    }
    const tooltip = waiting === 1 ? vscode.l10n.t('1 MCP task needs your input') : vscode.l10n.t('{0} MCP tasks need your input', formatCount(waiting));
    this.#view.badge = waiting ? { value: waiting, tooltip } : undefined;
  }

  /** What the status bar item (its text and tooltip) and the view's badge say now (for tests). */
  snapshot(): { statusBar?: string; tooltip?: string; badge?: number } {
    return { statusBar: this.#shown ? this.#item.text : undefined, tooltip: this.#shown ? (this.#item.tooltip as string) : undefined, badge: this.#view.badge?.value };
  }

  #notifyInput(key: string): void {
    const t = this.#engine.get(key);
    if (this.#disposed || t?.status !== INPUT_REQUIRED) return;
    if (!setting('notifications.inputRequired', true)) return;
    const respond = vscode.l10n.t('Respond');
    const text = t.statusMessage
      ? vscode.l10n.t('"{0}" on {1} needs your input: {2}', this.#title(t), this.#label(t.serverId), t.statusMessage)
      : vscode.l10n.t('"{0}" on {1} needs your input.', this.#title(t), this.#label(t.serverId));
    void showInfo(text, respond).then((c) => c === respond && executeCommand(RESPOND_TO_TASK, asTaskNode(t)));
  }

  /**
   * The task as it is now, to be told now; none while the result of a failed task is being
   * fetched (the engine fetches it as the task ends): it is told once that fetch ends, with the
   * tasks that ended meanwhile, so the notification says what its result says, whether the status
   * or the result came first.
   */
  #toldNow(ended: TaskSnapshot): TaskSnapshot[] {
    const t = this.#engine.get(ended.key, ended.createdAt) ?? ended;
    const fetch = !this.#fetched.delete(t.key) && t.status === FAILED && !t.outcome ? this.#engine.resultInFlight(t.key) : undefined;
    if (!fetch) return [t];
    void fetch.then(() => this.#disposed || (this.#fetched.add(t.key), this.#ended.push(t), this.#schedule()));
    return [];
  }

  /** One notification per server and status: a server that ends many tasks at once (its process gone), or one after another (a reload's, found lost poll after poll), says so once. */
  #notifyEnded(ended: readonly TaskSnapshot[]): void {
    if (!ended.length || !setting('notifications.taskEnded', true)) return;
    const groups = new Map<string, TaskSnapshot[]>();
    for (const t of ended) {
      const plans = taskBrowserSteps(t);
      if (plans) {
        // Told on its own, as what it is to the user: not a failure, a step in the browser first.
        const go = vscode.l10n.t('Continue…');
        // Every step Continue… goes through, each with its domain.
        const steps = plans.map((p) => `${p.message} (${p.domain})`).join('; ');
        const text = plans.length > 1
          ? vscode.l10n.t('"{0}" on {1} needs {2} steps in your browser first: {3}.', this.#title(t), this.#label(t.serverId), plans.length, steps)
          : vscode.l10n.t('"{0}" on {1} needs a step in your browser first: {2}.', this.#title(t), this.#label(t.serverId), steps);
        void showInfo(text, go).then((c) => c === go && executeCommand(OPEN_RESULT, asTaskNode(t)));
        continue;
      }
      // Lost with the window, they are told apart from any lost otherwise: their reason is said once, for all.
      const key = `${t.serverId}\n${t.status}\n${lostWithWindow(t)}`;
      const group = groups.get(key);
      if (group) group.push(t);
      else groups.set(key, [t]);
    }
    groups.forEach((tasks, key) => this.#gathered.add(key, tasks));
  }

  /** Tasks of one server that ended alike: one notification, of those the user has not removed from the list while they were gathered. */
  #tellEnded(ended: TaskSnapshot[]): void {
    const [t, ...more] = ended.filter((x) => this.#engine.get(x.key, x.createdAt));
    if (!t) return;
    const status = STATUS_PRESENTATION[t.status].label.toLowerCase();
    const server = this.#label(t.serverId);
    const show = t.status === FAILED || t.status === LOST ? showWarning : showInfo;
    if (more.length) {
      return showTasks(
        show,
        lostWithWindow(t)
          ? vscode.l10n.t("{0} tasks on {1} were lost when the window closed: a stdio server's process ends with the window, and a new one does not know its tasks. Run them again if you still need them.", formatCount(more.length + 1), server)
          : vscode.l10n.t('{0} tasks on {1}: {2}', formatCount(more.length + 1), server, status),
      );
    }
    const open = vscode.l10n.t('Open Result');
    const again = vscode.l10n.t('Run Again');
    const canOpen = hasResult(t);
    // A lost call of ours can run again as it was asked for; one found through tasks/list has no arguments known.
    const canRun = !canOpen && t.status === LOST && t.origin !== SERVER_LIST;
    // A task that went wrong says why, as its row does (for lost and expired, the note is the reason).
    const why = t.status === FAILED ? t.statusMessage || t.note : t.status === LOST || t.status === EXPIRED ? t.note || t.statusMessage : undefined;
    const text = why ? vscode.l10n.t('"{0}" on {1}: {2}. {3}', this.#title(t), server, status, why) : vscode.l10n.t('"{0}" on {1}: {2}', this.#title(t), server, status);
    void show(text, ...(canOpen ? [open] : canRun ? [again] : [])).then((c) =>
      c === open
        ? executeCommand(OPEN_RESULT, asTaskNode(t))
        : c === again && executeCommand(RUN_AGAIN, asTaskNode(t)),
    );
  }

  /**
   * An answer to a server's question or sampling request could not be sent (tried again first):
   * one warning, with Send Again while the server may still wait for it, else Cancel Task.
   */
  #notSent({ serverId, method, task, reason, resend }: UnsentAnswer): void {
    const again = vscode.l10n.t('Send Again');
    const cancel = cancelTaskLabel();
    const server = this.#label(serverId);
    const text = vscode.l10n.t(
      'The answer to the {0} of {1} was not sent: {2}.',
      method === ELICITATION_CREATE ? vscode.l10n.t('question') : vscode.l10n.t('sampling request'),
      task ? `"${this.#title(task)}" on ${server}` : server,
      reason,
    );
    void showWarning(text, ...(resend ? [again] : task ? [cancel] : []), showLogLabel()).then((c) => (c === again ? resend?.() : c === cancel ? executeCommand(CANCEL_TASK, asTaskNode(task!)) : c && executeCommand(SHOW_LOG)));
  }

  /** One warning per server: a server whose questions' ttl runs out together, or one after another, says so once. */
  #notifyExpired(expired: readonly [HostedTaskSnapshot, string][]): void {
    for (const id of new Set(expired.map(([h]) => h.serverId))) this.#gatheredExpired.add(id, expired.filter(([x]) => x.serverId === id));
  }

  #tellExpired([[h, title], ...more]: [HostedTaskSnapshot, string][]): void {
    const server = this.#label(h.serverId);
    // Not Show Tasks: closed, they left the view. The log has each (what it asked when created, then its ttl's end).
    const log = showLogLabel();
    void (more.length
      ? showWarning(vscode.l10n.t('{0} requests on {1} closed unanswered: the time the server allowed for them ran out.', formatCount(more.length + 1), server), log)
      : showWarning(vscode.l10n.t('"{0}" on {1} closed unanswered: the server allowed {2} for an answer.', title, server, formatDuration(h.ttl)))
    ).then((c) => c && executeCommand(SHOW_LOG));
  }
}

/** A notification about several tasks, with Show Tasks, which focuses the view. */
const showTasks = (show: Notify, text: string): void => {
  const view = vscode.l10n.t('Show Tasks');
  void show(text, view).then((c) => c === view && executeCommand(FOCUS_TASKS_VIEW));
};
