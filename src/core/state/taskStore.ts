import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod/mini';
import type { InitializeResult } from '../protocol/schemas';
import { CallToolResultSchema, InitializeResultSchema } from '../protocol/schemas';
import type { TaskEngine } from '../tasks/engine';
import { isLocalTaskStatus, isTerminal, needsSession } from '../tasks/status';
import type { RemovedTask, TaskOutcome, TaskSnapshot } from '../tasks/types';
import { errorMessage, sleep } from '../util/abort';
import type { Disposable } from '../util/event';
import { DisposableStore } from '../util/event';
import type { Logger } from '../util/log';
import { fromJson, isNumber, isObjectLike, isString, safeStringify, stringify, TOO_DEEP } from '../util/json';
import { isArray, keysOf, now, parseDate } from '../util/builtins';
import { DIRECT, SERVER_LIST, TASK } from '../tasks/types';
import { noop } from '../util/promise';
import { randomUUID, sha256 } from '../util/crypto';
import { OptionalNumber, OptionalString } from '../util/zod';

/** A Streamable HTTP session kept open across a window reload because it had live tasks. */
export interface SavedSession {
  serverId: string;
  /** The server's configuration fingerprint when the session was saved: a changed server starts anew. */
  fingerprint: string;
  /** Its URL's print (see endpointPrint): a server with new headers at the same URL resumes it too. */
  endpoint?: string;
  sessionId: string;
  initializeResult: InitializeResult;
  /** When a live connection last kept it (ms since the epoch); an entry without it counts from when it is first read. */
  keptAt?: number;
  /** Its server's new configuration waits for its live tasks: the name its endpoint is kept under in secret storage (see ServerManager). */
  kept?: string;
}

/** A saved session, checked when read back: a damaged entry is not resumed (the server starts a new session). */
const SavedSessionSchema = z.object({
  serverId: z.string(),
  fingerprint: z.string(),
  endpoint: OptionalString,
  sessionId: z.string(),
  initializeResult: InitializeResultSchema,
  keptAt: OptionalNumber,
  kept: OptionalString,
});

/** The saved sessions of an index that can be resumed. */
const savedSessions = (v: unknown): IndexFile['sessions'] => (isArray(v) ? v.filter((s): s is IndexFile['sessions'][number] => SavedSessionSchema.safeParse(s).success) : []);

/** A stored outcome file, checked when read back: a damaged file is no result, not a crash later. */
const StoredOutcomeSchema = z.union([
  z.object({ kind: z.literal('result'), result: CallToolResultSchema }),
  z.object({ kind: z.literal('error'), error: z.looseObject({ code: z.number(), message: z.string() }) }),
]);

/**
 * Who follows a live task, or resumes a kept session, of a shared store: one window (a store
 * instance) of one process, as `<pid>-<random id>`. See `TaskStore` for what a claim means.
 */
type Owner = string;

interface IndexFile {
  version: 1;
  tasks: Array<{ snap: TaskSnapshot; progressToken?: string; owner?: Owner }>;
  sessions: Array<SavedSession & { owner?: Owner }>;
  /** Tasks the user removed (an index of an older version has none). */
  removed?: RemovedTask[];
}

export interface LoadedState {
  tasks: TaskSnapshot[];
  progressTokens: Map<string, string>;
  sessions: SavedSession[];
  /** Kept sessions that no task needs any more: not resumed, and what they kept is forgotten. */
  dropped?: SavedSession[];
  /** Tasks the user removed within the retention period: Refresh does not bring them back. */
  removed: RemovedTask[];
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The kept sessions that a task may still use: those of servers with a live task, or an ended one
 * whose result is still to fetch, whose ttl (and an hour's grace) has not ended (see
 * needsSession), and kept by a live connection within the retention period (a task with no ttl
 * on a server that never comes back does not hold its session for ever). The server manager
 * holds its own copy, so a session dropped here while its server comes back is still resumed in
 * this window; the live connection keeps it again at shutdown if a task needs it.
 */
const neededSessions = <S extends SavedSession>(sessions: S[], tasks: TaskSnapshot[], retentionMs: number): S[] => {
  const at = now();
  // A createdAt that cannot be read (NaN) ends nothing: the retention period bounds the session.
  const live = new Set(tasks.filter((t) => needsSession(t, at)).map((t) => t.serverId));
  // An entry of an older version is as old as the first time it is read.
  return sessions.filter((s) => live.has(s.serverId) && (s.keptAt ??= at) + retentionMs > at);
};

export interface TaskStoreOptions {
  /** How long finished tasks and their results are kept. */
  retentionDays: () => number;
  /**
   * How long changes wait before the index is written (default 500 ms); ten times as long when
   * they only touch live tasks' status messages, progress or poll times (see `minorChange`).
   */
  debounceMs?: number;
  /** How long after `load()` unreferenced result files are swept (default a minute). */
  sweepDelayMs?: number;
  /**
   * Other windows write the same index (windows without a folder share one store): each save
   * keeps the tasks and sessions on disk that this window does not own, instead of overwriting
   * them with its own list.
   */
  shared?: boolean;
  /** The process whose life this window's claims on a shared store last (default this one; tests give another). */
  pid?: number;
  /** The first time in this window that the tasks or results cannot be saved (a full or read-only disk): to tell the user. */
  onSaveError?: (err: unknown) => void;
  /** The stored tasks could not be read and were kept aside there (the window starts with none): to tell the user. */
  onUnread?: (keptAs: string) => void;
}

/** How long a lock file may stand before it counts as left by a window that died holding it. */
const LOCK_STALE_MS = 10_000;
/** How long a shared write waits for the lock before it writes anyway (better twice followed than lost). */
const LOCK_WAIT_MS = 2_000;

/**
 * Keeps tracked tasks and fetched results across window reloads: a small index (snapshots
 * without outcomes) read at activation, and one file per outcome, read only when a result is
 * opened. Writes are debounced and atomic (temporary file, then rename).
 *
 * A shared store (windows without a folder) is read and written by several windows, each with
 * its own connections. Each live task is followed, and each kept session resumed, by one window
 * only: otherwise two windows resume one session, follow the same task, may both ask the user the
 * server's question and both write its result. So `load` claims what it takes: the live tasks and
 * kept sessions that no other window holds, marked in the index with this window's owner, and
 * written back at once, under a lock file, so that a window starting at the same moment sees the
 * claims (or waits for them) and takes the rest. Every later write of a shared index is a read,
 * merge and atomic rename under the same lock, so no window's claim or task is lost to another's
 * write. A window that closes writes its tasks and sessions without an owner: they are handed
 * back, and the next window to load takes them. A claim is tied to its process: a window that
 * died without writing (a crashed extension host) leaves claims whose process no longer runs, and
 * those count as none. Finished tasks are not claimed: every window shows them, as before.
 */
export class TaskStore implements Disposable {
  readonly #indexPath: string;
  /** Shared store: held while a window reads, changes and writes the index (see `tryLocked`). */
  readonly #lock: string;
  readonly #resultsDir: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The pending write waits ten debounces: only minor changes are in it. */
  #slow?: boolean;
  /** A write of new tasks is in flight, or pausing after it (see `#writeNew`); `#again`: new tasks came meanwhile, written when it ends. */
  #busy?: boolean;
  #again?: boolean;
  /** The tasks loaded or told since: one not among them is new (see `attach`). */
  readonly #known = new Set<string>();
  /** Each live task's snapshot as last told, to tell what its next change touches. */
  readonly #seen = new Map<string, TaskSnapshot>();
  /** Tasks whose outcome has its file (or is being written): a removal deletes it. */
  readonly #written = new Set<string>();
  /** Outcomes whose file is being written, or could not be: written at once, synchronously, if the window closes meanwhile. */
  readonly #pending = new Map<string, TaskOutcome>();
  /** What could not be saved (a full or read-only disk): the index (its path) and outcomes (their keys), tried again by `#retry`. */
  readonly #unsaved = new Set<string>();
  #retry?: ReturnType<typeof setTimeout>;
  #told?: boolean;
  #closed = false;
  /** Index writes started, and the newest one renamed into place: an older write never lands after a newer one. */
  #writes = 0;
  #landed = 0;
  readonly #subs = new DisposableStore();
  #engine?: TaskEngine;
  #sessions: SavedSession[] = [];
  /** Shared store: tasks this window removed, which a save must not carry over from disk. */
  readonly #removed = new Set<string>();
  readonly #log: Logger;
  readonly #options: TaskStoreOptions;
  /** Shared store: this window, as its claims name it. */
  readonly #owner: Owner;

  declare readonly dir: string;

  constructor(dir: string, log: Logger, options: TaskStoreOptions) {
    this.dir = dir;
    this.#log = log;
    this.#options = options;
    this.#indexPath = path.join(dir, 'tasks.json');
    this.#resultsDir = path.join(dir, 'results');
    this.#lock = `${this.#indexPath}.lock`;
    this.#owner = `${options.pid ?? process.pid}-${randomUUID()}`;
  }

  /**
   * Reads the index; drops finished tasks older than the retention period, and later (away from
   * the window's start) result files nothing points to. Never throws.
   */
  async load(): Promise<LoadedState> {
    const cutoff = this.#cutoff();
    const state = await this.#read(cutoff);
    setTimeout(() => void this.#sweep(state.tasks, cutoff), this.#options.sweepDelayMs ?? 60_000).unref();
    return state;
  }

  #retentionMs(): number {
    return this.#options.retentionDays() * DAY;
  }

  /** Finished tasks last updated before then are past the retention period. */
  #cutoff(): number {
    return now() - this.#retentionMs();
  }

  async #read(cutoff: number): Promise<LoadedState> {
    try {
      // A shared index is read, and what it holds claimed, in one turn under its lock (see the class comment).
      if (this.#options.shared) return await this.#locked(() => this.#parse(fs.readFileSync(this.#indexPath, 'utf8'), cutoff, true));
      return this.#parse(await fs.promises.readFile(this.#indexPath, 'utf8'), cutoff);
    } catch (err) {
      return this.#unread(err);
    }
  }

  /** No stored state: an index that cannot be read (`err`, said and the file kept aside, unless there is none yet), or none at all. */
  #unread(err?: unknown): LoadedState {
    if (err && !/^ENO(ENT|TDIR)$/.test((err as NodeJS.ErrnoException).code!)) this.#log.warn(`Could not read the stored tasks (${errorMessage(err)}): ${this.#aside(fs.renameSync, this.#options.onUnread)}; starting with none`);
    return { tasks: [], progressTokens: new Map(), sessions: [], removed: [] };
  }

  /** Keeps the index as it is (`how`: moved or copied) where the next save cannot overwrite it, the user's to restore: where (told to `tell`). */
  #aside(how: (from: string, to: string) => void, tell?: (to: string) => void): string {
    const to = `${this.#indexPath}.${now()}.damaged`;
    try {
      how(this.#indexPath, to);
      tell?.(to);
      return `kept as ${to}`;
    } catch (err) {
      return `not kept (${errorMessage(err)})`;
    }
  }

  /** Whether `owner` is another window that still runs: what it claimed is its own. */
  #othersClaim(owner: Owner | undefined): boolean {
    // A damaged owner (no pid: NaN) names no process that runs: it claims nothing.
    return owner !== undefined && owner !== this.#owner && processRuns(parseInt(owner));
  }

  /**
   * The state in an index's text. `claim` (a shared store, under its lock): without the live tasks
   * and sessions that other live windows claimed; the rest are claimed, written back at once.
   * A window closed before it follows them (flushSync writes nothing then) leaves its claims
   * until its process ends, which at a window's shutdown is at once.
   */
  #parse(text: string, cutoff: number, claim = false): LoadedState {
    const data = parseIndex(text);
    if (!data) return this.#unread(new Error(`${this.#indexPath} is not a task list of this version`));
    const state = this.#unread();
    let invalid = 0;
    let claimed = false;
    state.removed = keptRemoved(data.removed, cutoff);
    // A task one window removed, which another window that still showed it saved again, stays removed.
    const removed = new Set(state.removed.map((r) => r.key));
    for (const entry of data.tasks as unknown[]) {
      if (!isStoredTask(entry)) {
        invalid++;
        continue;
      }
      const { snap, progressToken } = entry;
      if (removed.has(snap.key)) continue;
      if (claim && !isTerminal(snap.status)) {
        if (this.#othersClaim(entry.owner)) continue;
        entry.owner = this.#owner;
        claimed = true;
      }
      if (pastRetention(snap, cutoff)) {
        void this.#deleteOutcome(snap.key);
        continue;
      }
      state.tasks.push(snap);
      this.#known.add(snap.key);
      if (snap.outcomeFetchedAt) this.#written.add(snap.key);
      if (isString(progressToken) && progressToken) state.progressTokens.set(snap.key, progressToken);
    }
    if (invalid) this.#log.warn(`Skipped ${invalid} stored task${invalid === 1 ? '' : 's'} that could not be read (not a task, or an unknown status): ${this.#aside(fs.copyFileSync)}`);
    // Sessions no task needs any more are not resumed.
    const sessions = savedSessions(data.sessions).filter((s) => !claim || !this.#othersClaim(s.owner));
    const needed = neededSessions(sessions, state.tasks, this.#retentionMs());
    this.#sessions = state.sessions = needed;
    state.dropped = sessions.filter((s) => !needed.includes(s));
    // Claims are written at once; with no live task to take (a session needs one), nothing is.
    if (claimed) {
      for (const s of needed) s.owner = this.#owner;
      this.#writeSync(() => stringify(data));
    }
    return state;
  }

  /** Follows the engine: every change is written (debounced); every new outcome gets its file. */
  attach(engine: TaskEngine): void {
    this.#engine = engine;
    this.#subs.add(
      engine.onDidChange((t) => {
        if (t.outcome && !this.#written.has(t.key)) {
          this.#written.add(t.key);
          void this.#writeOutcome(t.key, t.outcome);
        }
        // A task started here, whose id only this window knows, is written at once: a host killed within the debounce lost it.
        // Not one found through tasks/list (its server lists it again), nor a direct call (gone with the host anyway).
        const known = this.#known.has(t.key);
        this.#known.add(t.key);
        if (known) this.#schedule(minorChange(this.#seen.get(t.key), t));
        else if (t.kind === TASK && t.origin !== SERVER_LIST) this.#writeNew();
        else this.#schedule();
        // Live tasks alone: an ended task's snapshot holds its result, which the engine lets leave memory.
        if (isTerminal(t.status)) this.#seen.delete(t.key);
        else this.#seen.set(t.key, t);
      }),
    );
    this.#subs.add(
      engine.onDidRemove((key) => {
        if (this.#options.shared) this.#removed.add(key);
        if (this.#written.delete(key)) void this.#deleteOutcome(key);
        this.#seen.delete(key);
        this.#known.delete(key);
        this.#schedule();
      }),
    );
  }

  /** The outcome kept for a task: one still being written (the engine may have let it leave memory already), else its file's. */
  async readOutcome(key: string): Promise<TaskOutcome | undefined> {
    return this.#pending.get(key) ?? this.loadOutcome(key);
  }

  /** The outcome stored for a task, if any (none when its file is missing or damaged). */
  async loadOutcome(key: string): Promise<TaskOutcome | undefined> {
    let data: unknown;
    try {
      data = fromJson(await fs.promises.readFile(this.#outcomePath(key), 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.#log.warn(`Could not read a stored result (${errorMessage(err)})`);
      return this.#unwritten(key);
    }
    const parsed = StoredOutcomeSchema.safeParse(data);
    if (parsed.success) return parsed.data as TaskOutcome;
    this.#log.warn(`A stored result is damaged (${this.#outcomePath(key)}): it is not shown`);
    return this.#unwritten(key);
  }

  /** A result whose file is missing or damaged has none: the one its server gives again is written (see attach). */
  #unwritten(key: string): undefined {
    if (!this.#pending.has(key)) this.#written.delete(key);
  }

  /** Records sessions to resume after a reload (written with the index, synchronously on dispose). */
  saveSessions(sessions: SavedSession[]): void {
    this.#sessions = sessions;
    this.flushSync();
  }

  /** How many results are kept on disk (what clearResults would delete). */
  get storedResults(): number {
    return this.#written.size;
  }

  /**
   * Deletes the result files of this window's tasks; tasks stay, without their results. Returns
   * how many. Not the whole folder: windows without a folder share it with their results.
   */
  async clearResults(): Promise<number> {
    const keys = [...this.#written];
    this.#written.clear();
    await Promise.all(keys.map((key) => this.#deleteOutcome(key)));
    return keys.length;
  }

  /** Writes the index soon: a change that is not `slow` brings a slow write forward. */
  #schedule(slow?: boolean): void {
    if (this.#timer && (slow || !this.#slow)) return;
    clearTimeout(this.#timer);
    this.#slow = slow;
    this.#timer = setTimeout(
      () => {
        this.#timer = undefined;
        void this.#writeIndex();
      },
      (this.#options.debounceMs ?? 500) * (slow ? 10 : 1),
    );
  }

  /**
   * Writes the index now. New tasks that come while it is in flight, and for as long again after
   * it, are written together when that ends: a burst of them (an agent starting hundreds) keeps
   * the host at most half busy writing a large index.
   */
  #writeNew(): void {
    if (this.#busy) return void (this.#again = true);
    const start = now();
    this.#busy = true;
    void this.#writeIndex().finally(() =>
      setTimeout(() => {
        this.#busy = false;
        if (this.#again && !this.#closed) {
          this.#again = false;
          this.#writeNew();
        }
      }, now() - start).unref(),
    );
  }

  /** The index to write; `onDisk` is the index as read just before, for a shared store. */
  #indexText(onDisk?: string): string {
    // A shared store's live tasks and sessions are this window's while it is open (see the class comment).
    const owner = this.#options.shared && !this.#closed ? this.#owner : undefined;
    const tasks: IndexFile['tasks'] = (this.#engine?.list() ?? []).map((snap) => {
      const { outcome: _outcome, ...rest } = snap;
      // A result not saved is fetched again by the next window (while its server keeps it).
      if (this.#unsaved.has(snap.key)) delete rest.outcomeFetchedAt;
      return { snap: rest as TaskSnapshot, progressToken: this.#engine?.progressToken(snap.key), owner };
    });
    const sessions: IndexFile['sessions'] = this.#sessions.map((s) => ({ ...s, owner }));
    const cutoff = this.#cutoff();
    const removed = keptRemoved(this.#engine?.removedTasks(), cutoff);
    const theirs = onDisk === undefined ? undefined : parseIndex(onDisk);
    if (theirs) {
      // Other windows' tasks stay as they wrote them: the ones this window neither tracks nor removed.
      const mine = new Set([...tasks.map((t) => t.snap.key), ...this.#removed]);
      const known = new Set(removed.map((r) => r.key));
      removed.push(...keptRemoved(theirs.removed, cutoff).filter((r) => !known.has(r.key)));
      for (const entry of theirs.tasks as unknown[]) {
        if (isStoredTask(entry) && !mine.has(entry.snap.key) && !pastRetention(entry.snap, cutoff)) tasks.push(entry);
      }
      const servers = new Set(sessions.map((s) => s.serverId));
      sessions.push(...savedSessions(theirs.sessions).filter((s) => !servers.has(s.serverId)));
    }
    // A session stays on disk only while a task may still use it (see neededSessions).
    const needed = neededSessions(sessions, tasks.map((t) => t.snap), this.#retentionMs());
    return stringify({ version: 1, tasks, sessions: needed, removed } satisfies IndexFile);
  }

  async #writeIndex(): Promise<void> {
    // Shared: read, merged and renamed in one turn under the lock, so no other window writes between.
    if (this.#options.shared) return this.#locked(() => this.#merge());
    const seq = ++this.#writes;
    const tmp = `${this.#indexPath}.${process.pid}.${seq}.tmp`;
    try {
      // The tasks as they are when the timer fires.
      const text = this.#indexText();
      await fs.promises.mkdir(this.dir, { recursive: true });
      await fs.promises.writeFile(tmp, text);
      // Checked and renamed in one turn: a newer write (flushSync at shutdown) cannot slip between.
      if (seq < this.#landed) removeQuietly(tmp);
      else {
        fs.renameSync(tmp, this.#indexPath);
        this.#landed = seq;
      }
      this.#saved(this.#indexPath);
    } catch (err) {
      removeQuietly(tmp);
      this.#failed(this.#indexPath, err);
    }
  }

  /**
   * Writes the index now (at shutdown, when an async write might not finish). Not before
   * `attach`: the tasks on disk are not loaded yet, and a list written then would erase them.
   */
  flushSync(): void {
    if (!this.#engine) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#options.shared) lockedSync(this.#lock, () => this.#merge());
    else this.#writeSync(() => this.#indexText());
  }

  /** Shared store, under its lock: this window's tasks merged into the index on disk. */
  #merge(): void {
    if (this.#engine) this.#writeSync(() => this.#indexText(readQuietly(this.#indexPath)));
  }

  /** Writes the index at once: a temporary file, then rename. Never throws. */
  #writeSync(text: () => string): void {
    const seq = ++this.#writes;
    const tmp = `${this.#indexPath}.${process.pid}.${seq}.tmp`;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      fs.writeFileSync(tmp, text());
      fs.renameSync(tmp, this.#indexPath);
      this.#landed = seq;
      this.#saved(this.#indexPath);
    } catch (err) {
      removeQuietly(tmp);
      this.#failed(this.#indexPath, err);
    }
  }

  /**
   * `what` (see #unsaved) could not be saved: logged when the first thing is not saved, told to
   * the user once a window (they can free space), and tried again every minute. Outcomes stay in
   * memory meanwhile (the engine may let them go).
   */
  #failed(what: string, err: unknown): void {
    if (!this.#unsaved.size) this.#log.error(`Could not save the tasks and results: ${errorMessage(err)}. They are kept in memory and saved when they can be`);
    this.#unsaved.add(what);
    if (!this.#told) this.#options.onSaveError?.(err);
    this.#told = true;
    this.#retry ??= setTimeout(() => {
      this.#retry = undefined;
      // Not before attach: a list written then would erase the tasks on disk (see flushSync).
      if (this.#closed || !this.#engine) return;
      for (const key of this.#unsaved) {
        const outcome = this.#pending.get(key);
        if (outcome) void this.#writeOutcome(key, outcome);
      }
      this.#schedule();
    }, (this.#options.debounceMs ?? 500) * 120).unref();
  }

  /** `what` is saved: the log says when all is again; a saved outcome is written in the index as fetched. */
  #saved(what: string): void {
    if (!this.#unsaved.delete(what)) return;
    if (!this.#unsaved.size) this.#log.info('The tasks and results are saved again');
    if (what !== this.#indexPath && !this.#closed) this.#schedule();
  }

  /** Runs `fn` under the shared store's lock, waiting for it a while (see `tryLocked`); its value. */
  async #locked<T>(fn: () => T): Promise<T> {
    let value!: T;
    const run = () => void (value = fn());
    const deadline = now() + LOCK_WAIT_MS;
    while (!tryLocked(this.#lock, run)) {
      if (now() > deadline) {
        run();
        break;
      }
      await sleep(10);
    }
    return value;
  }

  #outcomePath(key: string): string {
    return path.join(this.#resultsDir, `${sha256(key).slice(0, 32)}.json`);
  }

  #outcomeText(outcome: TaskOutcome): string {
    try {
      return stringify(outcome);
    } catch (err) {
      // A result nested too deeply for the stack: saved with its deepest parts replaced, rather than not at all.
      this.#log.warn(`A task result is nested too deeply to save whole (${errorMessage(err)}): saved with its deepest parts replaced by "${TOO_DEEP}"`);
      return safeStringify(outcome);
    }
  }

  async #writeOutcome(key: string, outcome: TaskOutcome): Promise<void> {
    const file = this.#outcomePath(key);
    const tmp = `${file}.${process.pid}.tmp`;
    this.#pending.set(key, outcome);
    try {
      await fs.promises.mkdir(this.#resultsDir, { recursive: true });
      await fs.promises.writeFile(tmp, this.#outcomeText(outcome));
      // Checked and renamed in one turn: a task removed (or results cleared) meanwhile leaves no file behind.
      // After dispose, the file was written synchronously at shutdown.
      if (this.#written.has(key) && !this.#closed) fs.renameSync(tmp, file);
      else removeQuietly(tmp);
    } catch (err) {
      removeQuietly(tmp);
      // Kept (see #failed), unless no longer wanted (results cleared meanwhile) or written at shutdown meanwhile.
      if (this.#written.has(key) && !this.#closed) return this.#failed(key, err);
    }
    // After dispose nothing here was saved (see above).
    if (!this.#closed) this.#saved(key);
    if (this.#pending.get(key) === outcome) this.#pending.delete(key);
  }

  /** At shutdown: the result files still being written are written now, or the index would point to none. */
  #flushOutcomesSync(): void {
    for (const [key, outcome] of this.#pending) {
      this.#pending.delete(key);
      if (!this.#written.has(key)) continue;
      const file = this.#outcomePath(key);
      const tmp = `${file}.${process.pid}.sync.tmp`;
      try {
        fs.mkdirSync(this.#resultsDir, { recursive: true });
        fs.writeFileSync(tmp, this.#outcomeText(outcome));
        fs.renameSync(tmp, file);
      } catch (err) {
        removeQuietly(tmp);
        this.#failed(key, err);
      }
    }
  }

  /**
   * Deletes result files that no kept task points to and that are older than the retention
   * period (left by a crash, or by entries that could not be read). A window without a folder
   * shares its store with other such windows, whose recent results are left alone.
   */
  async #sweep(kept: readonly TaskSnapshot[], cutoff: number): Promise<void> {
    const wanted = new Set(kept.filter((t) => t.outcomeFetchedAt).map((t) => path.basename(this.#outcomePath(t.key))));
    for (const dir of [this.dir, this.#resultsDir]) {
      for (const name of await fs.promises.readdir(dir).catch(() => [])) {
        const file = path.join(dir, name);
        // A temporary file (see #writeIndex, #writeOutcome) of a window that died while saving.
        const pid = /\.(\d+)(\.\w+)?\.tmp$/.exec(name)?.[1];
        const old = async () => dir === this.#resultsDir && !wanted.has(name) && ((await fs.promises.stat(file).catch(noop))?.mtimeMs ?? cutoff) < cutoff;
        if (pid ? !processRuns(+pid) : await old()) await fs.promises.rm(file, { force: true }).catch(noop);
      }
    }
  }

  async #deleteOutcome(key: string): Promise<void> {
    await fs.promises.rm(this.#outcomePath(key), { force: true }).catch(noop);
  }

  dispose(): void {
    this.#subs.dispose();
    this.#closed = true;
    this.#flushOutcomesSync();
    this.flushSync();
    clearTimeout(this.#retry);
  }
}

/** What changes at every poll of a live task whose server reports as it goes. */
const MINOR = new Set(['statusMessage', 'progress', 'pollInterval', 'lastUpdatedAt']);

/**
 * Whether `b`, the next snapshot of the live task `a`, changes only what MINOR names: a crash
 * loses a few seconds of such text, while 1,000 tasks reporting every second rewrite the index
 * (1.5 MB) every 5 s, not every second. New tasks, statuses, ends and results are written promptly.
 */
const minorChange = (a: TaskSnapshot | undefined, b: TaskSnapshot): boolean =>
  !!a && !isTerminal(b.status) && keysOf({ ...a, ...b }).every((k) => MINOR.has(k) || a[k as keyof TaskSnapshot] === b[k as keyof TaskSnapshot]);

/** A task that finished before `cutoff` (see `#cutoff`): it is neither loaded nor kept. */
const pastRetention = (snap: TaskSnapshot, cutoff: number): boolean => isTerminal(snap.status) && parseDate(snap.lastUpdatedAt) < cutoff;

/**
 * The sound entries of an index's removed tasks (`v`) that were removed within the retention
 * period, and that their server may still list: not past their `until` (see serverForgetsAt).
 */
const keptRemoved = (v: unknown, cutoff: number): RemovedTask[] => {
  return isArray(v) ? v.filter((r: Partial<RemovedTask> | null) => isString(r?.key) && isString(r.createdAt) && isNumber(r.removedAt) && r.removedAt >= cutoff && !((r.until ?? Infinity) < now())) : [];
};

/** An entry of the index that can be restored: an object whose snapshot names its task and has a known status and kind. */
const isStoredTask = (entry: unknown): entry is IndexFile['tasks'][number] => {
  if (!isObjectLike(entry)) return false;
  const snap = (entry as { snap?: unknown }).snap as Partial<Record<keyof TaskSnapshot, unknown>> | null | undefined;
  return (
    isObjectLike(snap) &&
    isString(snap.key) &&
    isString(snap.serverId) &&
    isString(snap.taskId) &&
    (snap.kind === TASK || snap.kind === DIRECT) &&
    isLocalTaskStatus(snap.status)
  );
};

/** The index in a file's text, if it is one. */
const parseIndex = (text: string): IndexFile | undefined => {
  try {
    const data = fromJson(text) as IndexFile | null;
    return data?.version === 1 && isArray(data.tasks) ? data : undefined;
  } catch {
    return undefined;
  }
};

/** A file's text, or undefined when it cannot be read. */
const readQuietly = (file: string): string | undefined => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
};

/**
 * Whether a process of this user runs (on this machine: a shared store lives in the extension
 * host's own storage). Another user's (EPERM) took the number of a window that ended.
 */
const processRuns = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Runs `fn`, which must not wait for anything, holding a lock file created exclusively: of the
 * windows sharing a store, one at a time reads, changes and writes its index. False when another
 * holds it. A lock older than LOCK_STALE_MS was left by a window that died holding it (the work
 * under it takes milliseconds) and is broken. Where no lock can be made at all (a read-only or
 * odd file system), `fn` runs unlocked: a task followed twice is better than one not saved.
 */
const tryLocked = (lock: string, fn: () => void): boolean => {
  let fd: number | undefined;
  try {
    fd = fs.openSync(lock, 'wx');
  } catch (err) {
    // Held by another. Otherwise no folder yet (nothing to claim in it), or no lock to be had: unlocked.
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      try {
        if (now() - fs.statSync(lock).mtimeMs > LOCK_STALE_MS) removeQuietly(lock);
      } catch {
        // Released meanwhile: tried again.
      }
      return false;
    }
  }
  try {
    fn();
  } finally {
    if (fd !== undefined) {
      fs.closeSync(fd);
      removeQuietly(lock);
    }
  }
  return true;
};

/**
 * `tryLocked` at shutdown, when nothing can wait for a timer: tried again at once (the lock is
 * held for milliseconds), for a second at most, then unlocked.
 */
const lockedSync = (lock: string, fn: () => void): void => {
  const deadline = now() + LOCK_WAIT_MS / 2;
  while (!tryLocked(lock, fn)) if (now() > deadline) return fn();
};

/** Deletes a file if it is there, saying nothing when it cannot (it is only a temporary file). */
const removeQuietly = (file: string): void => {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // A locked file (Windows) stays; the next write uses another name.
  }
};
