import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { InitializeResult } from '../protocol/schemas';
import type { TaskEngine } from '../tasks/engine';
import { isLocalTaskStatus, isTerminal } from '../tasks/status';
import type { TaskOutcome, TaskSnapshot } from '../tasks/types';
import { errorMessage } from '../util/abort';
import type { Disposable } from '../util/event';
import { DisposableStore } from '../util/event';
import type { Logger } from '../util/log';

/** A Streamable HTTP session kept open across a window reload because it had live tasks. */
export interface SavedSession {
  serverId: string;
  /** The server's configuration fingerprint when the session was saved: a changed server starts anew. */
  fingerprint: string;
  sessionId: string;
  initializeResult: InitializeResult;
}

interface IndexFile {
  version: 1;
  tasks: Array<{ snap: TaskSnapshot; progressToken?: string }>;
  sessions: SavedSession[];
}

export interface LoadedState {
  tasks: TaskSnapshot[];
  progressTokens: Map<string, string>;
  sessions: SavedSession[];
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * Keeps tracked tasks and fetched results across window reloads: a small index (snapshots
 * without outcomes) read at activation, and one file per outcome, read only when a result is
 * opened. Writes are debounced and atomic (temporary file, then rename).
 */
export class TaskStore implements Disposable {
  readonly #indexPath: string;
  readonly #resultsDir: string;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #written = new Set<string>();
  readonly #subs = new DisposableStore();
  #engine?: TaskEngine;
  #sessions: SavedSession[] = [];
  readonly #log: Logger;
  readonly #options: { retentionDays: () => number; debounceMs?: number };

  constructor(readonly dir: string, log: Logger, options: { retentionDays: () => number; debounceMs?: number }) {
    this.#log = log;
    this.#options = options;
    this.#indexPath = path.join(dir, 'tasks.json');
    this.#resultsDir = path.join(dir, 'results');
  }

  /** Reads the index; drops finished tasks older than the retention period. Never throws. */
  async load(): Promise<LoadedState> {
    const empty: LoadedState = { tasks: [], progressTokens: new Map(), sessions: [] };
    let data: IndexFile;
    try {
      data = JSON.parse(await fs.promises.readFile(this.#indexPath, 'utf8')) as IndexFile;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.#log.warn(`Could not read the stored tasks (${errorMessage(err)}); starting with none`);
      return empty;
    }
    if (data?.version !== 1 || !Array.isArray(data.tasks)) return empty;
    const cutoff = Date.now() - this.#options.retentionDays() * DAY;
    const state: LoadedState = { tasks: [], progressTokens: new Map(), sessions: Array.isArray(data.sessions) ? data.sessions : [] };
    let invalid = 0;
    for (const entry of data.tasks as unknown[]) {
      if (!isStoredTask(entry)) {
        invalid++;
        continue;
      }
      const { snap, progressToken } = entry;
      if (isTerminal(snap.status) && Date.parse(snap.lastUpdatedAt) < cutoff) {
        void this.#deleteOutcome(snap.key);
        continue;
      }
      state.tasks.push(snap);
      if (snap.outcomeFetchedAt) this.#written.add(snap.key);
      if (typeof progressToken === 'string' && progressToken) state.progressTokens.set(snap.key, progressToken);
    }
    if (invalid) this.#log.warn(`Skipped ${invalid} stored task${invalid === 1 ? '' : 's'} that could not be read (not a task, or an unknown status)`);
    this.#sessions = state.sessions;
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
        this.#schedule();
      }),
    );
    this.#subs.add(
      engine.onDidRemove((key) => {
        if (this.#written.delete(key)) void this.#deleteOutcome(key);
        this.#schedule();
      }),
    );
  }

  /** The outcome stored for a task, if any. */
  async loadOutcome(key: string): Promise<TaskOutcome | undefined> {
    try {
      return JSON.parse(await fs.promises.readFile(this.#outcomePath(key), 'utf8')) as TaskOutcome;
    } catch {
      return undefined;
    }
  }

  /** Sessions saved for resuming; each is handed out once. */
  takeSessions(): SavedSession[] {
    const s = this.#sessions;
    this.#sessions = [];
    return s;
  }

  /** Records sessions to resume after a reload (written with the index, synchronously on dispose). */
  saveSessions(sessions: SavedSession[]): void {
    this.#sessions = sessions;
    this.flushSync();
  }

  /** Deletes every stored result file; tasks stay, without their results. Returns how many. */
  async clearResults(): Promise<number> {
    const n = this.#written.size;
    this.#written.clear();
    await fs.promises.rm(this.#resultsDir, { recursive: true, force: true });
    return n;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#writeIndex();
    }, this.#options.debounceMs ?? 500);
  }

  #indexText(): string {
    const tasks = (this.#engine?.list() ?? []).map((snap) => {
      const { outcome: _outcome, ...rest } = snap;
      return { snap: rest as TaskSnapshot, progressToken: this.#engine?.progressToken(snap.key) };
    });
    return JSON.stringify({ version: 1, tasks, sessions: this.#sessions } satisfies IndexFile);
  }

  async #writeIndex(): Promise<void> {
    try {
      await fs.promises.mkdir(this.dir, { recursive: true });
      const tmp = `${this.#indexPath}.${process.pid}.tmp`;
      await fs.promises.writeFile(tmp, this.#indexText());
      await fs.promises.rename(tmp, this.#indexPath);
    } catch (err) {
      this.#log.error(`Could not save the task list: ${errorMessage(err)}`);
    }
  }

  /** Writes the index now (at shutdown, when an async write might not finish). */
  flushSync(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    try {
      fs.mkdirSync(this.dir, { recursive: true });
      const tmp = `${this.#indexPath}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, this.#indexText());
      fs.renameSync(tmp, this.#indexPath);
    } catch (err) {
      this.#log.error(`Could not save the task list: ${errorMessage(err)}`);
    }
  }

  #outcomePath(key: string): string {
    return path.join(this.#resultsDir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
  }

  async #writeOutcome(key: string, outcome: TaskOutcome): Promise<void> {
    try {
      await fs.promises.mkdir(this.#resultsDir, { recursive: true });
      const file = this.#outcomePath(key);
      await fs.promises.writeFile(`${file}.tmp`, JSON.stringify(outcome));
      await fs.promises.rename(`${file}.tmp`, file);
    } catch (err) {
      this.#written.delete(key);
      this.#log.error(`Could not save a task result: ${errorMessage(err)}`);
    }
  }

  async #deleteOutcome(key: string): Promise<void> {
    await fs.promises.rm(this.#outcomePath(key), { force: true }).catch(() => undefined);
  }

  dispose(): void {
    this.#subs.dispose();
    if (this.#engine) this.flushSync();
  }
}

/** An entry of the index that can be restored: an object whose snapshot names its task and has a known status and kind. */
function isStoredTask(entry: unknown): entry is IndexFile['tasks'][number] {
  if (typeof entry !== 'object' || entry === null) return false;
  const snap = (entry as { snap?: unknown }).snap as Partial<Record<keyof TaskSnapshot, unknown>> | null | undefined;
  return (
    typeof snap === 'object' &&
    snap !== null &&
    typeof snap.key === 'string' &&
    typeof snap.serverId === 'string' &&
    typeof snap.taskId === 'string' &&
    (snap.kind === 'task' || snap.kind === 'direct') &&
    isLocalTaskStatus(snap.status)
  );
}
