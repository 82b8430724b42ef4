import * as path from 'node:path';
import * as z from 'zod/mini';
import type { ConfigError, InputDef, ServerConfig } from '../config/types';
import { endpointPrint, fingerprint } from '../config/fingerprint';
import type { ResolveContext } from '../config/resolve';
import { resolveServer } from '../config/resolve';
import { findVariables, stringFields } from '../config/variables';
import type { Root, SessionOptions } from '../protocol/session';
import { McpSession } from '../protocol/session';
import type { Implementation } from '../protocol/schemas';
import type { Transport } from '../transports/transport';
import { afterServerName, TransportHttpError } from '../transports/transport';
import type { RemoteServerConfig, ResolvedServer } from '../config/types';
import { HTTP, PROMPT_STRING, serverNameOfId, sourceKey, STDIO, WORKSPACE_FOLDER } from '../config/types';
import type { Event } from '../util/event';
import { DisposableBase, Emitter } from '../util/event';
import type { Logger } from '../util/log';
import { itsTasksEnd, prefixed, redactSecrets, redacting, sentence } from '../util/log';
import { errorMessage, newController, onAbort, raceAbort } from '../util/abort';
import { randomUUID } from '../util/crypto';
import { ConnectionClosedError, detailOf, reasonOf, RequestTimeoutError } from '../jsonrpc/errors';
import type { TransportCloseInfo } from '../transports/transport';
import type { SessionSource } from '../tasks/engine';
import { HeldByUserError } from '../tasks/engine';
import type { SavedSession } from '../state/taskStore';
import type { SavedHttpSession } from '../transports/factory';
import type { LiveWork } from '../tasks/types';
import { fromJson, isString, stringify } from '../util/json';
import { minOf } from '../util/builtins';
import { noop, rejected } from '../util/promise';
import { serverNamed } from '../util/text';

/** Why a restart closed the connection: the lost tasks and ended calls say so. */
export const RESTARTED = 'restarted by the user';
const DISCONNECTED = 'disconnected by the user';

/** A request that failed because the user disconnected or restarted its server: their doing, not a failure to tell. */
export const closedByUser = (err: unknown): boolean => err instanceof ConnectionClosedError && (err.reason === DISCONNECTED || err.reason === RESTARTED);

/** Where a server stands. `blocked`: not allowed to start (an untrusted workspace, for one). */
export type ServerStateKind = 'idle' | 'connecting' | 'connected' | 'error' | 'blocked';
/** The states that the view, the commands and the manager compare most: one string each in the bundle. */
export const CONNECTING = 'connecting';
export const CONNECTED = 'connected';
export const BLOCKED = 'blocked';

export interface ServerState {
  kind: ServerStateKind;
  /** For `error` and `blocked`: what went wrong and what to do, in a sentence. */
  message?: string;
}

/** One object for every idle server: a state is replaced, never changed. */
const IDLE: ServerState = { kind: 'idle' };

/** A plain snapshot of one configured server, for views and the public API. */
export interface ServerSnapshot {
  id: string;
  name: string;
  label: string;
  type: ServerConfig['type'];
  source: ServerConfig['source'];
  state: ServerState;
  /** e.g. `server-everything 2.0.0` once connected. */
  serverInfo?: Implementation;
  protocolVersion?: string;
  /** What the server declared about tasks, e.g. `tools/call, list, cancel`; empty when none. */
  tasks?: string;
  /** The user disconnected it: its live tasks are not followed until the user connects it again. */
  heldByUser?: boolean;
  /** Its configuration changed: the new one waits for these live tasks and calls of its connection to end (see setConfiguration). */
  newConfigWaitsFor?: LiveWork;
}

export interface ServerManagerOptions {
  logger: Logger;
  clientInfo: Implementation;
  /** Capabilities beyond roots (elicitation, sampling, tasks) declared by the layers that handle them. */
  capabilities?: () => Record<string, unknown>;
  roots: () => Root[];
  /** Variable resolution: everything but `promptInput`, which is `promptInput` below. */
  resolveContext: (config: ServerConfig) => Omit<ResolveContext, 'promptInput'>;
  /** Asks an input's value; `signal` aborts when the server no longer waits for it (removed from the configuration): the prompt closes unless another server waits for it too. */
  promptInput: (input: InputDef, server: ServerConfig, signal: AbortSignal) => Promise<string | undefined>;
  /** An input's saved value, without asking, for quiet connections; undefined if it must be asked. */
  savedInput?: (input: InputDef, server: ServerConfig) => Promise<string | undefined>;
  /**
   * The server refused the credentials (HTTP 401 or 403 while connecting): the saved value of
   * each input it used is forgotten, so that the next connection asks for it again.
   */
  forgetInput?: (input: InputDef, server: ServerConfig) => void;
  /** Why a server may not start now (workspace trust), or undefined when it may. */
  startBlocker?: (config: ServerConfig) => string | undefined;
  createTransport: (server: ResolvedServer, logger: Logger, resume?: SavedHttpSession) => Transport;
  /** At shutdown: whether to keep a server's HTTP session for the next window (it has live tasks). */
  keepSessionAtShutdown?: (serverId: string) => boolean;
  /**
   * How many live tasks and calls a server has, and results of ended tasks still being fetched:
   * its connection (a stdio server's process, which they die with) outlives a
   * change or the removal of its configuration until they end (see setConfiguration and
   * liveTasksChanged).
   */
  liveTasks?: (serverId: string) => LiveWork;
  /** At shutdown: the sessions kept, to be saved (synchronously) for the next window. */
  saveSessions?: (sessions: SavedSession[]) => void;
  /**
   * The editor's secret storage: where the endpoint (url and resolved headers, which may hold a
   * token) of a Streamable HTTP server whose new configuration waits for its live tasks is kept
   * for the next window (see #keep).
   */
  secrets?: { get(key: string): PromiseLike<string | undefined>; store(key: string, value: string): PromiseLike<void>; delete(key: string): PromiseLike<void> };
  /** The user disconnected a server whose connection was the last to its live tasks' endpoint (removed, or `moved`: see disconnect): they are lost now, `why`. */
  drop?: (serverId: string, why: string, moved?: boolean) => void;
  /** Called for each new session so other layers can register their handlers on it. */
  onSession?: (session: McpSession, server: ServerConfig) => void;
  sessionOptions?: Partial<Pick<SessionOptions, 'requestTimeoutMs' | 'initializeTimeoutMs'>>;
  /** The clock, in ms (tests). */
  now?: () => number;
}

interface Entry {
  config: ServerConfig;
  print: string;
  state: ServerState;
  session?: McpSession;
  connecting?: Promise<McpSession>;
  /** The connection under way, or the last one made, asks for no input (see getSession's `quiet`). */
  connectingQuietly?: boolean;
  /** Bumped on every connect/disconnect, so a late result of an old attempt is ignored. */
  generation: number;
  /** The generation of the connection an edit of the configuration cancelled: whoever waited for it waits for the new one (see #session). */
  cancelledByEdit?: number;
  /** Failed starts and unexpected closes in a row; the backoff grows with them. */
  failures: number;
  /** No new connection is made before this time (ms), after a failure. */
  retryAt: number;
  lastFailure?: string;
  connectedAt?: number;
  /** The user dismissed an input of this server: background work does not ask again (see getSession). */
  dismissed?: string;
  /** The user disconnected the server: background work does not connect it again, the user's next action does. */
  userDisconnected?: boolean;
  /** Aborted when the server is removed, edited or disconnected while its connection asks for inputs (see promptInput). */
  asking?: AbortController;
  /** A new configuration, applied when the live tasks of its connection end. */
  pending?: { config: ServerConfig; print: string };
  /** The live tasks and calls (and results to fetch) a new configuration (or a removed server's connection) waits for, as last counted. */
  waitsFor?: LiveWork;
  /** What its configuration resolved to at its last connection: while a new one waits, the endpoint its tasks are at. */
  resolved?: ResolvedServer;
  /** The name its endpoint is kept under in secret storage while a new configuration waits (see #keep). */
  kept?: string;
  /** When a connection to the endpoint kept by the previous window first failed (see getSession). */
  unreached?: number;
  /** The session id last saved for the next window while live tasks need it (see liveTasksChanged). */
  savedId?: string;
}

/** Where secret storage keeps the endpoints of waiting configurations (see #keep). */
const KEPT = 'mcpTasks.endpoint:';
const EndpointSchema = z.object({ url: z.string(), headers: z.record(z.string(), z.string()) });

/** A quiet connection (see getSession) stopped at an input it would have had to ask for. */
export class NeedsInputError extends Error {
  override name = 'NeedsInputError';
  declare readonly server: string;
  declare readonly input: string;
  constructor(server: string, input: string) {
    super(`${serverNamed(server)} is not connected: it needs input "${input}", which is asked when the server is named or connected.`);
    this.server = server;
    this.input = input;
  }
}

/** Why a task of a server the user disconnected is not followed: background work does not connect it again. */
export const disconnectedByUser = (label: string): string => `${serverNamed(label)} was disconnected by the user: connect it to follow its tasks again.`;

/**
 * Why background work does not connect the server, as the error it gets: the user dismissed its
 * input (an InputDismissedError), or disconnected it (see ServerManager.heldWhy).
 */
const held = (e: Entry | undefined): HeldByUserError | undefined =>
  e?.dismissed !== undefined ? new InputDismissedError(e.dismissed) : e?.userDisconnected ? new HeldByUserError(disconnectedByUser(e.config.label)) : undefined;

/**
 * The user dismissed a prompt for one of the server's inputs, or disconnected the server while it
 * connected: not a failure to report, since the user chose it (commands end quietly). Background
 * work gets it too, without asking again.
 */
export class InputDismissedError extends HeldByUserError {
  override name = 'InputDismissedError';
}

/** Whether `err` (or its cause) is the user's dismissal of an input prompt. */
export const isInputDismissed = (err: unknown): boolean => err instanceof InputDismissedError || (err instanceof Error && err.cause instanceof InputDismissedError);

/** What a server does for a new configuration: a stdio server restarts, a remote one reconnects. */
export const restarts = (type: ServerConfig['type']): string => (type === STDIO ? 'restarts' : 'reconnects');

/** Two Streamable HTTP configurations at one url: the session may be resumed with the other's headers. */
const sameUrl = (a: ServerConfig, b?: ServerConfig): boolean => a.type === HTTP && b?.type === HTTP && a.url === b.url;

/** Backoff after a failure: 1 s, doubling to a minute; a connection that lasted a minute resets it. */
const BACKOFF_FIRST_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;
const STABLE_MS = 60_000;
/** A stdio server that fails within this of connecting may be misconfigured (a key it checks once initialized); later, its configuration is not blamed. */
const JUST_STARTED_MS = 5_000;
/** How long the endpoint kept by the previous window is tried (with the backoff) before its new configuration applies. */
const KEPT_GRACE_MS = 5 * 60_000;

/**
 * What to do about a stdio server whose process failed (exited with an error) while connecting or
 * just after (JUST_STARTED_MS): its stderr is in the log, and what it was started with is in its configuration.
 */
const withExitHint = (message: string, config: ServerConfig, closed: TransportCloseInfo | undefined): string => {
  return config.type === STDIO && closed?.code !== undefined && closed.code !== 0
    ? `${sentence(message)} See the server's output in the log, and check its "command", "args" and "env" (or "envFile") in the configuration.`
    : message;
};

/**
 * The configured servers and their connections. Servers connect lazily (`getSession`), so
 * servers that VS Code itself also runs from the same `mcp.json` are not all started twice.
 */
export class ServerManager extends DisposableBase implements SessionSource {
  readonly #entries = new Map<string, Entry>();
  #configErrors: ConfigError[] = [];
  /** setConfiguration has run: a server not in it was removed, not merely not loaded yet. */
  #loaded = false;
  readonly #onDidChange = this._register(new Emitter<ServerSnapshot | undefined>());
  readonly #log: Logger;
  readonly #saved = new Map<string, SavedSession>();
  /** The labels of servers removed from the configuration: their tasks keep telling them apart (`demo (b)`). */
  readonly #removedLabels = new Map<string, string>();
  /** Removed servers whose connection (a stdio server's process) stays until its live tasks end. */
  readonly #leaving = new Map<string, Entry>();
  readonly #now: () => number;
  /** The endpoints kept by the previous window (see #keep), by server id, until the configuration first loads. */
  readonly #kept = new Map<string, z.infer<typeof EndpointSchema> & { kept: string }>();

  /** A server changed state (its snapshot), or the list itself changed (undefined). */
  readonly onDidChange: Event<ServerSnapshot | undefined> = this.#onDidChange.event;
  readonly #options: ServerManagerOptions;

  constructor(options: ServerManagerOptions) {
    super();
    this.#options = options;
    this.#log = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Streamable HTTP sessions kept by the previous window, to resume instead of initializing anew,
   * with the endpoints kept for them (see #keep); those of `dropped` sessions are forgotten.
   */
  async addSavedSessions(sessions: readonly SavedSession[], dropped: readonly SavedSession[] = []): Promise<void> {
    for (const s of dropped) this.#forget(s);
    for (const s of sessions) {
      this.#saved.set(s.serverId, s);
      if (!s.kept) continue;
      try {
        const endpoint = EndpointSchema.safeParse(fromJson((await this.#options.secrets?.get(KEPT + s.kept)) ?? ''));
        if (endpoint.success) this.#kept.set(s.serverId, { ...endpoint.data, kept: s.kept });
      } catch {
        // None (forgotten, or no secret storage) or damaged: its tasks are looked for at the new endpoint.
      }
    }
  }

  /**
   * Replaces the configuration. Servers whose configuration is unchanged keep their connection;
   * changed ones are disconnected (and reconnected if they were connected); removed ones close.
   * A server whose connection has live tasks keeps it until they end: a stdio server's tasks die
   * with its process, and a remote server's live at the endpoint it is connected to (another url,
   * type or name would lose them). Then it reconnects with its new configuration (an edit back
   * cancels that), or closes if removed. A Streamable HTTP server whose url stays (new headers: a
   * rotated token) is the same server: it reconnects at once, resuming its session, in which its
   * tasks are followed by id; a legacy SSE or WebSocket connection cannot be resumed, so waits.
   */
  setConfiguration(servers: readonly ServerConfig[], errors: readonly ConfigError[]): void {
    // A server an edit made invalid (saved mid-typing) stays as it was, with its process and its
    // tasks, until it reads again: as the servers of a file that does not parse.
    const mine = (e: ConfigError, c: ServerConfig) => e.server === c.name && e.source === sourceKey(c.source);
    const stale = [...this.#entries.values()].map((e) => e.pending?.config ?? e.config).filter((c) => !servers.some((s) => s.id === c.id) && errors.some((e) => mine(e, c)));
    servers = [...servers, ...stale];
    errors = errors.map((e) => (stale.some((c) => mine(e, c)) ? { ...e, message: `${e.message} The server stays as it was until this is fixed.` } : e));
    // Logged when found, not again on each reload that still finds it (a save fires several file events).
    const before = this.#configErrors.map((e) => e.message);
    this.#configErrors = [...errors];
    this.#loaded = true;
    const seen = new Set<string>();
    const reconnect: Entry[] = [];
    for (const config of servers) {
      seen.add(config.id);
      const print = this.#print(config);
      const left = this.#leaving.get(config.id);
      const old = this.#entries.get(config.id) ?? left;
      if (left) {
        // Back before its tasks ended: it goes on, as a server whose configuration changed (a
        // remote one still waits for them: they are at its endpoint, connected or not).
        this.#leaving.delete(config.id);
        this.#entries.set(config.id, left);
      }
      if (!old) {
        let entry: Entry = { config, print, state: IDLE, generation: 0, failures: 0, retryAt: 0 };
        // The previous window closed while this configuration waited for live tasks at another
        // endpoint, kept for them (see #keep): it still waits, and they are followed there.
        const k = this.#kept.get(config.id);
        if (k && (config.type !== HTTP || config.url !== k.url)) {
          // The new configuration's name, source and inputs, at the old endpoint.
          const at: RemoteServerConfig = { ...config, type: HTTP, url: k.url, headers: k.headers };
          const waiting: Entry = { ...entry, config: at, print: this.#saved.get(config.id)!.fingerprint, resolved: at, kept: k.kept, pending: { config, print } };
          if ((waiting.waitsFor = this.#liveTasks(waiting))) {
            this.#log.info(`[${config.label}] Its live tasks are at its previous configuration's endpoint: it reconnects with the new one when ${itsTasksEnd(waiting.waitsFor)}`);
            entry = waiting;
          }
        }
        this.#entries.set(config.id, entry);
        continue;
      }
      if (old.print === print) {
        old.config = config; // a label may differ (another server with the same name appeared)
        if (old.pending) this.#log.info(`[${config.label}] Its configuration is back to the one it runs: it no longer restarts when its live tasks end`);
        old.pending = undefined;
        this.#forget(old);
        continue;
      }
      const waits = this.#liveTasks(old, !!left, config);
      if (waits) {
        if (old.pending?.print !== print) this.#log.info(`[${config.label}] Configuration changed: it ${restarts(old.config.type)} with the new one when ${itsTasksEnd(waits)} (Restart Server applies it now)`);
        old.config = { ...old.config, label: config.label };
        old.pending = { config, print };
        old.waitsFor = waits;
        this.#keep(old);
        continue;
      }
      if (this.#reconfigure(old, config, print)) reconnect.push(old);
    }
    // Kept endpoints that no configuration waits on (changed back, removed, or its tasks gone).
    for (const [id, k] of this.#kept) if (this.#entries.get(id)?.kept !== k.kept) this.#forget(k);
    this.#kept.clear();
    for (const [id, entry] of this.#entries) {
      if (!seen.has(id)) {
        this.#removedLabels.set(id, entry.config.label);
        if ((entry.waitsFor = this.#liveTasks(entry))) {
          this.#log.info(`[${entry.config.label}] Removed from the configuration: its ${entry.config.type === STDIO ? 'process runs' : 'connection stays'} until ${itsTasksEnd(entry.waitsFor)}`);
          entry.pending = undefined;
          this.#forget(entry);
          this.#leaving.set(id, entry);
          this.#entries.delete(id);
          continue;
        }
        // Its live tasks wait for it to come back (see the engine's grace period): their session too.
        const kept = this.#keepSession(entry);
        if (kept) this.#saved.set(id, kept);
        this.#teardown(entry, 'it is no longer in the configuration');
        this.#entries.delete(id);
      }
    }
    // Listed as the configuration orders them: a server added back or moved takes its place there.
    const ordered = servers.flatMap((c) => (this.#entries.has(c.id) ? [[c.id, this.#entries.get(c.id)!] as const] : []));
    this.#entries.clear();
    for (const [id, entry] of ordered) this.#entries.set(id, entry);
    // Say at once which servers may not start (an untrusted workspace), not on the first try.
    for (const entry of this.#entries.values()) {
      if (entry.state.kind !== 'idle' && entry.state.kind !== BLOCKED) continue;
      const blocker = this.#options.startBlocker?.(entry.config);
      entry.state = blocker ? { kind: BLOCKED, message: blocker } : IDLE;
    }
    for (const e of errors) if (!before.includes(e.message)) this.#log.error(e.message);
    this.#onDidChange.fire(undefined);
    for (const entry of reconnect) this.#reconnect(entry);
  }

  /**
   * Connects a server again for its new configuration, as quietly as the connection it replaces:
   * nothing is asked that only a quiet caller wanted (an agent listing every server's tools). One
   * made to follow tasks (background work, which asks) asks again.
   */
  #reconnect(entry: Entry): void {
    void this.getSession(entry.config.id, { quiet: entry.connectingQuietly }).catch(noop);
  }

  /** Closes a server's connection for its new configuration; true if it was up (to connect again). */
  #reconfigure(entry: Entry, config: ServerConfig, print: string): boolean {
    const wasUp = entry.state.kind === CONNECTED || entry.state.kind === CONNECTING;
    // Same URL (new headers: a new token): its live tasks may belong to the session, kept for the new connection.
    const kept = sameUrl(entry.config, config) ? (this.#keepSession(entry) ?? this.#saved.get(config.id)) : undefined;
    if (kept?.fingerprint === entry.print) this.#saved.set(config.id, { ...kept, fingerprint: print });
    entry.cancelledByEdit = entry.generation;
    this.#teardown(entry, 'its configuration changed');
    entry.pending = undefined;
    this.#forget(entry);
    entry.config = config;
    entry.print = print;
    entry.state = IDLE;
    entry.failures = entry.retryAt = 0; // a new configuration gets a fresh start
    entry.dismissed = undefined; // and asks for its inputs again
    return wasUp;
  }

  /**
   * The live tasks and calls of the server's connection, which a change of its configuration
   * waits for while it is up. A remote server's tasks live on at its endpoint: once waiting, a
   * connection that drops meanwhile is made again with the configuration they were started with.
   * `left`: it was removed and is back (it waited so while removed). New headers at the same url
   * (`to`) of a Streamable HTTP server: the resumed session has its tasks, not what is to come on
   * the old connection's streams: a call's answer, a question (of a task waiting for input).
   */
  #liveTasks(entry: Entry, left?: boolean, to = entry.pending?.config): LiveWork | undefined {
    const waiting = entry.config.type !== STDIO && (left || this.#waiting(entry));
    let w = (waiting || (entry.session && !entry.session.isClosed)) && this.#options.liveTasks?.(entry.config.id);
    if (w) {
      // Without `asking`: what is shown and compared (see #settle) is tasks, calls and results.
      const { asking, ...work } = w;
      w = sameUrl(entry.config, to) ? { ...work, tasks: asking!, results: 0 } : work;
    }
    return w && w.tasks + w.calls + w.results ? w : undefined;
  }

  /**
   * The live tasks of `serverId` (or of any server) changed: a server that waits for them to end
   * (see setConfiguration) restarts with its new configuration, or closes if it was removed, once
   * none is left. A server whose connection closed is settled by its own close (see #connect).
   */
  liveTasksChanged(serverId?: string): void {
    const some = serverId === undefined ? this.#allEntries() : [this.#entry(serverId)];
    for (const e of some) {
      if (e && this.#waiting(e) && !e.session?.isClosed) this.#settle(e);
      // A session live tasks come to need is saved at once, not only at shutdown: a window that
      // dies (a crashed extension host) saves nothing then, and servers keep tasks per session.
      const id = e?.session?.transport?.sessionId;
      if (id && id !== e.savedId && this.#keepSession(e, false)) {
        e.savedId = id;
        this.#options.saveSessions?.(this.#toSave(false));
      }
    }
  }

  /** A configured server, or a removed one whose connection stays for its live tasks. */
  #entry(id: string): Entry | undefined {
    return this.#entries.get(id) ?? this.#leaving.get(id);
  }

  /** Every server's entry: the configured ones, then those removed whose connection stays for their live tasks. */
  #allEntries(): Entry[] {
    return [...this.#entries.values(), ...this.#leaving.values()];
  }

  /** Whether the server waits for its live tasks to end: for its new configuration, or to close (removed). */
  #waiting(entry: Entry): boolean {
    return entry.pending !== undefined || this.#leaving.get(entry.config.id) === entry;
  }

  #settle(entry: Entry): void {
    const { id } = entry.config;
    const n = this.#liveTasks(entry);
    const leaving = this.#leaving.get(id) === entry;
    if (n) {
      if (stringify(n) === stringify(entry.waitsFor)) return; // the same counts (liveCount)
      entry.waitsFor = n;
      if (leaving) this.#onDidChange.fire(undefined);
      else this.#setState(entry, entry.state);
    } else if (leaving) {
      this.#leaving.delete(id);
      this.#teardown(entry, 'it is no longer in the configuration, and its live tasks have ended');
      this.#onDidChange.fire(undefined);
    } else if (entry.pending) {
      // Its source, which decides whether it may start (workspace trust), is the one it ran from.
      const up = this.#reconfigure(entry, entry.pending.config, entry.pending.print);
      this.#setState(entry, entry.state);
      if (up) this.#reconnect(entry);
    }
  }

  /**
   * The fingerprint that decides whether a server must reconnect. A server of the settings (or of the user's mcp.json) that
   * uses `${workspaceFolder}`, or a relative `cwd` or `envFile`, resolves them from the window's
   * folders: another folder set is another configuration (a `.vscode/mcp.json` server's folder is
   * its own, fixed by its file).
   */
  #print(config: ServerConfig): string {
    const relative = (p: string | undefined) => p !== undefined && !path.isAbsolute(p);
    const fromFolders = stringify(config).includes('${workspaceFolder') || (config.type === STDIO && (relative(config.cwd) || relative(config.envFile)));
    if (config.source.kind === WORKSPACE_FOLDER || !fromFolders) return fingerprint(config);
    const { folders, folderPaths } = this.#options.resolveContext(config);
    return fingerprint(config, { folders, folderPaths });
  }

  get errors(): readonly ConfigError[] {
    return this.#configErrors;
  }

  list(): ServerSnapshot[] {
    return [...this.#entries.values()].map((e) => this.#snapshot(e));
  }

  get(id: string): ServerSnapshot | undefined {
    const e = this.#entries.get(id);
    return e && this.#snapshot(e);
  }

  /**
   * Why background work (following its tasks) does not connect the server, as the error it gets
   * (see #session): the user dismissed its input (an InputDismissedError), or disconnected it.
   */
  heldWhy(id: string): HeldByUserError | undefined {
    return held(this.#entries.get(id));
  }

  config(id: string): ServerConfig | undefined {
    return this.#entries.get(id)?.config;
  }

  /** Where a remote server is reached: its url (see SessionSource). */
  endpoint(id: string): string | undefined {
    return (this.config(id) as { url?: string } | undefined)?.url;
  }

  /**
   * The live session of a server, connecting first if needed. Rejects with a user-readable error.
   * After a server failed to start or its connection dropped, no new connection is made before
   * its backoff ends (1 s, 2 s, 4 s... up to a minute): a server that crashes at once is not
   * respawned in a tight loop by whoever asks for it. `disconnect`/`restart` clear the backoff.
   * `quiet`: nothing is asked; a server that needs an input with no saved value rejects with a
   * NeedsInputError and stays idle (not an error: the user was not asked). `now`: the user asked
   * for this very connection (Connect Server): it is tried at once, whatever the backoff.
   * `signal`: the caller stops waiting when it aborts (a chat request cancelled); the connection
   * goes on for whoever else waits for it.
   */
  getSession(id: string, options?: { background?: boolean; quiet?: boolean; now?: boolean; signal?: AbortSignal }): Promise<McpSession> {
    const p = this.#session(id, options);
    return options?.signal ? raceAbort(p, options.signal) : p;
  }

  #session(id: string, options?: { background?: boolean; quiet?: boolean; now?: boolean }): Promise<McpSession> {
    // A removed server whose connection stays for its live tasks (a remote one's is made again if it dropped).
    const entry = this.#entry(id);
    if (!entry) return rejected(new Error(`No server with id ${id} is configured`));
    if (entry.session && !entry.session.isClosed) return Promise.resolve(entry.session);
    if (entry.connecting && entry.connectingQuietly && !options?.quiet) {
      // A quiet connection may stop at an input; this caller may ask for it.
      return entry.connecting.catch((err: unknown) => {
        if (err instanceof NeedsInputError) return this.#session(id, options);
        throw err;
      });
    }
    if (entry.connecting) return entry.connecting;
    // Background work (following tasks) never brings back a prompt the user dismissed, nor undoes
    // a Disconnect (following a remote server's tasks would connect it again at once); the user's
    // own next action does.
    const why = options?.background && held(entry);
    if (why) return rejected(why);
    if (!options?.quiet) entry.dismissed = undefined; // a quiet connection asks nothing, so brings nothing back
    if (!options?.background) entry.userDisconnected = false;
    if (options?.now) entry.retryAt = 0;
    const wait = entry.retryAt - this.#now();
    // Polls retry on their own: the reason alone, the same while the outage lasts (their log says it
    // once), not the words for a command ("failed 3 times in a row… Restart it to try now.").
    if (wait > 0 && options?.background) return rejected(new Error(entry.lastFailure));
    if (wait > 0) {
      const what = entry.failures > 1 ? `failed ${entry.failures} times in a row` : 'failed';
      // The server is named once: "Server "x" failed at URL: …", not "failed: Could not reach server "x" at URL: …".
      return rejected(
        new Error(`${serverNamed(entry.config.label)} ${what}${sentence(afterServerName(entry.lastFailure ?? '', entry.config.label))} It will not be tried again for ${Math.ceil(wait / 1000)} s. Restart it to try now.`),
      );
    }
    const blocker = this.#options.startBlocker?.(entry.config);
    if (blocker) {
      this.#setState(entry, { kind: BLOCKED, message: blocker });
      return rejected(new Error(blocker));
    }
    const generation = ++entry.generation;
    const quiet = options?.quiet === true;
    const p = this.#connect(entry, generation, quiet)
      .catch((err: unknown) => {
        // An edit of its configuration cancelled it: the connection of the new one serves (not after a Disconnect or its removal).
        if (entry.cancelledByEdit === generation && this.#entries.get(id) === entry && !entry.userDisconnected) return this.#session(id, options);
        throw err;
      })
      .finally(() => {
        if (entry.connecting === p) entry.connecting = undefined;
      });
    entry.connecting = p;
    entry.connectingQuietly = quiet;
    return p;
  }

  /**
   * The name users know a server by. A server removed from the configuration keeps its last
   * label; one not configured yet (a reload restores its tasks first) goes by the name in its id
   * (`folderPaths`: see serverNameOfId).
   */
  label(id: string, folderPaths?: readonly string[]): string {
    return this.#entries.get(id)?.config.label ?? this.#removedLabels.get(id) ?? serverNameOfId(id, folderPaths);
  }

  /**
   * A stdio server's tasks die with its process; a remote server keeps them across connections.
   * Undefined for a server not configured (yet: tasks are restored before the configuration loads).
   */
  tasksOutliveConnection(id: string): boolean | undefined {
    const type = this.#entry(id)?.config.type;
    return type === undefined ? undefined : type !== STDIO;
  }

  /**
   * False for a server the loaded configuration does not name; undefined before it has loaded. A
   * removed stdio server whose process runs its live tasks counts until they end: they are followed.
   * Undefined too while a file does not parse (it may name the server: a window opened on a save
   * mid-edit has read no version of it) or an error names it: its tasks wait, not lost as removed.
   */
  isConfigured(id: string): boolean | undefined {
    return this.#entries.has(id) || this.#leaving.has(id) || (this.#loaded && !this.#configErrors.some((e) => e.kind === 'syntax' || e.server === serverNameOfId(id)) ? false : undefined);
  }

  /** The live tasks and calls of a removed server, whose connection stays until they end; undefined for any other server. */
  leavingWith(id: string): LiveWork | undefined {
    return this.#leaving.get(id)?.waitsFor;
  }

  /**
   * Whether the server's connection is the last to its live tasks' endpoint, so that Disconnect
   * loses them: it was removed, or its new configuration, which waits for them, is at another url
   * (new headers at the same url find them again, where the server keeps them).
   */
  moves(id: string): boolean {
    const e = this.#entries.get(id);
    const to = e?.pending?.config as { url?: string } | undefined;
    return this.#leaving.has(id) || (!!to && to.url !== (e!.config as { url?: string }).url);
  }

  /** A removed server whose connection stays until its live tasks end (see leavingWith). */
  leaving(id: string): ServerSnapshot | undefined {
    const e = this.#leaving.get(id);
    return e && this.#snapshot(e);
  }

  /** The session if connected now, without connecting. */
  peekSession(id: string): McpSession | undefined {
    const s = this.#entry(id)?.session;
    return s && !s.isClosed ? s : undefined;
  }

  /** `reason` reaches what the closed connection ends (a lost task's note, a failed call's error). */
  async disconnect(id: string, reason = DISCONNECTED): Promise<void> {
    const leaving = this.#leaving.get(id);
    if (leaving) {
      // Removed: nothing follows its live tasks after this (the user was told they are lost),
      // connected or not (a dropped connection is made again only while it is leaving).
      this.#leaving.delete(id);
      this.#options.drop?.(id, reason);
      this.#teardown(leaving, reason);
      this.#onDidChange.fire(undefined);
      return;
    }
    const entry = this.#entries.get(id);
    if (!entry) return;
    entry.generation++;
    entry.failures = entry.retryAt = 0; // the user's call: the next connection may start at once
    entry.dismissed = undefined;
    entry.userDisconnected = true;
    entry.asking?.abort(); // a prompt for its inputs closes
    const session = entry.session;
    // Live tasks may belong to the session (servers may scope them to it): kept, not deleted,
    // and resumed by the next connection, as at a window's shutdown.
    const kept = this.#keepSession(entry);
    if (kept) this.#saved.set(id, kept);
    entry.session = undefined;
    entry.connecting = undefined;
    // A new configuration that waited for the live tasks, which end now: the next connection uses
    // it. A remote server's are lost now if it is at another url (the user was told so), as they
    // would be there; a stdio server's end with its process (below). Dropped once it no longer
    // waits (the last one's end would apply it, and connect).
    const { pending, config } = entry;
    const moved = config.type !== STDIO && this.moves(id);
    if (pending) {
      entry.config = pending.config;
      entry.print = pending.print;
      entry.pending = undefined;
      this.#forget(entry);
      if (moved) this.#options.drop?.(id, reason, true);
    }
    this.#setState(entry, IDLE);
    if (session) {
      this.#log.info(`[${entry.config.label}] Disconnecting`);
      // Told at once: a poll meanwhile would see no session and start the server again.
      await session.close(reason);
    }
  }

  /** Tells every connected server that the workspace folders changed. */
  notifyRootsChanged(): void {
    for (const e of this.#entries.values()) void e.session?.notifyRootsChanged();
  }

  async #connect(entry: Entry, generation: number, quiet: boolean): Promise<McpSession> {
    const { config } = entry;
    let log = prefixed(this.#log, () => entry.config.label);
    this.#setState(entry, { kind: CONNECTING });
    let started = false;
    const secrets: string[] = [];
    const given: InputDef[] = []; // inputs that got a value (asked or saved)
    let needed: string | undefined;
    // What a failure adds: its `${env:…}` that are not set, empty as in VS Code (a path or key missing may be why).
    let unset = '';
    // Disconnected, restarted or removed meanwhile (`generation` moved on): nothing more is started.
    const latest = () => generation === entry.generation;
    // By the user's Disconnect: their choice, not a failure (commands end quietly); by a removal: an error that says so, as the call did not run (by an edit: see #session).
    const cancelled = () => {
      const why = `Connection to "${config.label}" was cancelled`;
      return entry.userDisconnected ? new InputDismissedError(why) : new Error(`${why}: the server is no longer in the configuration.`);
    };
    let session: McpSession | undefined;
    const asking = (entry.asking = newController());
    try {
      const context = this.#options.resolveContext(config);
      // Values of environment variables with secret names (API_KEY, GITHUB_TOKEN…) that the
      // configuration puts into a command line, a URL or a header.
      secrets.push(...envSecrets(config, context.env));
      // Each once, however often the configuration uses it; only where variables are replaced (not an input's default); unset or set to "".
      for (const name of new Set(stringFields(config).flatMap((f) => findVariables(f.value).flatMap((v) => (v.kind === 'env' ? v.name : []))))) if (!context.env[name]) unset += ` \${env:${name}} is empty: ${name} is ${context.env[name] === '' ? 'set to ""' : 'not set'} where the editor was started.`;
      // While a new configuration waits, the endpoint its tasks are at, as it was resolved then.
      const resolved = entry.pending && entry.resolved ? ({ ok: true, server: entry.resolved } as const) : await resolveServer(config, {
        ...context,
        promptInput: async (input) => {
          const value = quiet ? await this.#options.savedInput?.(input, config) : await this.#options.promptInput(input, config, asking.signal);
          if (value === undefined && quiet) needed = input.id; // ends the resolution as cancelled
          if (value !== undefined) given.push(input);
          // A command input hands over what an extension gives: a token, as likely as not.
          if (isString(value) && (input.type === 'command' || (input.type === PROMPT_STRING && input.password))) secrets.push(value);
          return value;
        },
      });
      if (!resolved.ok && needed !== undefined) {
        if (latest()) this.#setState(entry, IDLE);
        throw new NeedsInputError(config.label, needed);
      }
      if (!resolved.ok && !latest()) throw cancelled(); // its prompt closed
      if (!resolved.ok && resolved.cancelled) {
        entry.dismissed = `${resolved.message} Connect the server to be asked again.`;
        this.#setState(entry, IDLE);
        throw new InputDismissedError(entry.dismissed);
      }
      if (!resolved.ok) throw new Error(resolved.message);
      if (!latest()) throw cancelled(); // while an input was asked
      entry.resolved = resolved.server;
      // What was typed into password inputs, configured header values (a token, or the token of
      // `Bearer <token>`) and credentials in the URL (`?api_key=…`, `user:pass@`) never reach the log, whatever path they take (a command line, an
      // error, a server that repeats them).
      if (resolved.server.type !== STDIO) {
        for (const v of Object.values(resolved.server.headers)) secrets.push(v, v.replace(/^\S+\s+/, ''));
        secrets.push(...urlSecrets(resolved.server.url));
      }
      log = redacting(log, secrets);
      // Stays saved until connected: a shutdown or Disconnect meanwhile keeps it for its live tasks.
      const saved = this.#saved.get(config.id);
      started = true; // from here on, a failure is the server's and counts for the backoff
      if (saved && resolved.server.type === HTTP && (saved.fingerprint === entry.print || saved.endpoint === endpointPrint(config))) {
        session = await this.#resume(saved, resolved.server, config, log);
      }
      const resumed = session;
      if (!session && !latest()) throw cancelled();
      if (!session) {
        const transport = this.#options.createTransport(resolved.server, log);
        log.info(`Connecting (${transport.description})`);
        session = this.#newSession(transport, config, log);
        // Abandoned meanwhile (edited, disconnected, removed): a server that does not answer is not waited for.
        const off = onAbort(asking.signal, () => void session!.close());
        await session.connect().finally(off);
      }
      if (!latest()) {
        // A resumed session stays open on the server, and saved.
        if (session === resumed) session.transport.keepSessionOnClose = true;
        await session.close();
        throw cancelled();
      }
      // Resumed (the live session holds it now), gone, or of another configuration.
      this.#saved.delete(config.id);
      entry.session = session;
      entry.connectedAt = this.#now();
      const current = session;
      session.onClose((info) => {
        if (entry.session !== current) return;
        entry.session = undefined;
        // A connection that held for a while is not part of a crash loop.
        const lasted = this.#now() - (entry.connectedAt ?? 0);
        const held = lasted >= STABLE_MS;
        if (held) entry.failures = 0;
        const reason = redactSecrets(lasted < JUST_STARTED_MS ? withExitHint(info.reason, config, info) : info.reason, secrets);
        // A session the server forgot after a while (it expired, or the server restarted) is no
        // failure: the next request starts a new one at once. One forgotten at once still backs off.
        if (held && current.expired) {
          log.info(reason);
          this.#setState(entry, IDLE);
        } else {
          log.warn(`Connection closed: ${sentence(reason)} ${this.#backOff(entry, reason)}`);
          this.#setState(entry, { kind: 'error', message: reason });
        }
        // Its process is gone, and the live tasks a new configuration or its removal waited for with it.
        this.#settle(entry);
      });
      entry.dismissed = undefined;
      this.#setState(entry, { kind: CONNECTED });
      return session;
    } catch (e) {
      // Abandoned: whatever ended it (the close above), it was cancelled.
      const err = latest() || e instanceof NeedsInputError ? e : cancelled();
      if (err instanceof NeedsInputError) {
        log.debug(err.message);
        throw err;
      }
      const closed = session?.connection.closeInfo;
      // Said by the error itself, which keeps its kind (a timeout, an HTTP status) for its callers;
      // defined, not set: a DOMException's message is a getter, which strict code cannot set.
      if (unset && latest() && entry.dismissed === undefined && err instanceof Error) Object.defineProperty(err, 'message', { value: sentence(err.message) + unset });
      const message = redactSecrets(withExitHint(reasonOf(err), config, closed), secrets);
      // The endpoint kept by the previous window (see setConfiguration) is out of reach, and has
      // been for KEPT_GRACE_MS (a network that comes up late is waited for): its tasks are lost,
      // as the new endpoint will tell, and the new configuration applies.
      if (entry.pending && !entry.connectedAt && latest() && this.#now() - (entry.unreached ??= this.#now()) >= KEPT_GRACE_MS) {
        log.warn(`Could not reach the endpoint its live tasks are at for ${KEPT_GRACE_MS / 60_000} minutes: ${sentence(message)} It connects with its new configuration.`);
        this.#reconfigure(entry, entry.pending.config, entry.pending.print);
        this.#setState(entry, entry.state);
      }
      // Refused: any value given may be the wrong one (a key typed as plain text, a picked tenant).
      if (given.length && this.#options.forgetInput && err instanceof TransportHttpError && (err.status === 401 || err.status === 403)) {
        for (const input of given) this.#options.forgetInput(input, config);
        log.info(`Forgot the saved value of ${given.map((i) => `input "${i.id}"`).join(', ')}: the next connection asks for it again`);
      }
      if (latest() && entry.dismissed !== undefined) log.info(message);
      else if (latest()) {
        // The line names the server already; a timeout's detail lacks what the error's message was given (unset).
        const logged = redactSecrets(withExitHint(err instanceof RequestTimeoutError ? sentence(err.detail) + unset : detailOf(err), config, closed), secrets);
        log.error(`Could not connect: ${started ? `${sentence(logged)} ${this.#backOff(entry, message)}` : logged}`);
        this.#setState(entry, { kind: 'error', message });
      }
      throw err instanceof Error && err.message === message ? err : new Error(message);
    }
  }

  #newSession(transport: Transport, config: ServerConfig, log: Logger): McpSession {
    const session = new McpSession(transport, {
      logger: log,
      clientInfo: this.#options.clientInfo,
      capabilities: this.#options.capabilities?.(),
      roots: this.#options.roots,
      serverName: config.label,
      ...this.#options.sessionOptions,
    });
    this.#options.onSession?.(session, config);
    return session;
  }

  /**
   * Re-adopts a kept Streamable HTTP session (of the previous window, or of this one before a
   * Disconnect or the server's removal): it had live tasks, and some servers keep tasks per
   * session. A ping tells whether the server still knows it; if not, the caller initializes anew
   * and re-attaches tasks by id.
   */
  async #resume(saved: SavedSession, server: ResolvedServer, config: ServerConfig, log: Logger): Promise<McpSession | undefined> {
    const transport = this.#options.createTransport(server, log, { sessionId: saved.sessionId, protocolVersion: saved.initializeResult.protocolVersion });
    const session = this.#newSession(transport, config, log);
    try {
      await session.resume(saved.initializeResult);
      await session.ping({ timeoutMs: 10_000 });
      log.info(`Resumed session ${saved.sessionId}`);
      return session;
    } catch (err) {
      log.info(`Could not resume the kept session: ${sentence(detailOf(err))} Starting a new one.`);
      transport.keepSessionOnClose = true; // nothing to delete
      await session.close();
      return undefined;
    }
  }

  /** Counts a failure and sets when the next connection may start; says so for the log. */
  #backOff(entry: Entry, why: string): string {
    entry.failures++;
    const delay = minOf(BACKOFF_FIRST_MS * 2 ** (entry.failures - 1), BACKOFF_MAX_MS);
    entry.retryAt = this.#now() + delay;
    entry.lastFailure = why;
    return `It will not be tried again for ${delay / 1000} s.`;
  }

  #teardown(entry: Entry, why: string): void {
    entry.generation++;
    entry.connecting = undefined;
    // A prompt for its inputs closes (removed, or another configuration, which asks anew).
    entry.asking?.abort();
    const session = entry.session;
    entry.session = undefined;
    if (session) {
      this.#log.info(`[${entry.config.label}] Closing: ${why}`);
      void session.close(`closed: ${why}`);
    }
  }

  #setState(entry: Entry, state: ServerState): void {
    entry.state = state;
    if (this.#entries.get(entry.config.id) === entry) this.#onDidChange.fire(this.#snapshot(entry));
  }

  #snapshot(e: Entry): ServerSnapshot {
    const s = e.session;
    return {
      id: e.config.id,
      name: e.config.name,
      label: e.config.label,
      type: e.config.type,
      source: e.config.source,
      state: e.state,
      serverInfo: s?.serverInfo,
      protocolVersion: s?.protocolVersion,
      tasks: s ? s.tasksSummary : undefined,
      heldByUser: e.userDisconnected && e.state.kind === 'idle' ? true : undefined,
      newConfigWaitsFor: e.pending && e.waitsFor,
    };
  }

  /**
   * A Streamable HTTP session with live tasks, about to close: marked to stay open on the server
   * (no DELETE) and returned to be resumed; undefined for any other.
   */
  #keepSession(e: Entry, closing = true): SavedSession | undefined {
    const t = e.session?.transport;
    const init = e.session?.initializeResult;
    if (!t || !init || e.config.type !== HTTP || !t.sessionId || !this.#options.keepSessionAtShutdown?.(e.config.id)) return undefined;
    if (closing) t.keepSessionOnClose = true;
    return { serverId: e.config.id, fingerprint: e.print, endpoint: endpointPrint(e.config), sessionId: t.sessionId, initializeResult: init, keptAt: this.#now(), kept: e.kept };
  }

  /**
   * A Streamable HTTP connection whose new configuration waits for its live tasks: its endpoint
   * (url and resolved headers, which may hold a token) goes to secret storage, under a name its
   * session keeps (SavedSession.kept), so that the next window follows them there too (see
   * setConfiguration). Written now: a write at shutdown might not land.
   */
  #keep(e: Entry): void {
    const r = e.resolved;
    if (!e.kept && r?.type === HTTP && this.#options.secrets) {
      this.#secret((e.kept = randomUUID()), stringify({ url: r.url, headers: r.headers }), this.label(e.config.id));
    }
  }

  /** The wait is over (or no window will use it): the kept endpoint is deleted. */
  #forget(e: { kept?: string }): void {
    if (e.kept) this.#secret(e.kept);
    e.kept = undefined;
  }

  /** Writes (with `value`, for the server `label`) or deletes a kept endpoint; a failure is logged with what it means. */
  #secret(name: string, value?: string, label?: string): void {
    const s = this.#options.secrets;
    if (s) {
      void (value === undefined ? s.delete(KEPT + name) : s.store(KEPT + name, value)).then(undefined, (err: unknown) =>
        this.#log.warn(
          label
            ? `Could not keep the endpoint of ${label} in the editor's secret storage (${errorMessage(err)}): if the window closes before its tasks end, the next window looks for them at its new url`
            : `Could not delete a kept endpoint from the editor's secret storage (${errorMessage(err)})`,
        ),
      );
    }
  }

  /** The sessions to save for the next window: those live tasks need (`closing`: kept open on the server), and those saved at the last shutdown and not used in this window. */
  #toSave(closing?: boolean): SavedSession[] {
    const kept = this.#allEntries().flatMap((e) => this.#keepSession(e, closing) ?? []);
    for (const s of this.#saved.values()) if (!kept.some((k) => k.serverId === s.serverId)) kept.push(s);
    return kept;
  }

  override dispose(): void {
    // A removed server's connection kept for its live tasks too: the window closing ends none of them.
    const all = this.#allEntries();
    this.#options.saveSessions?.(this.#toSave());
    for (const e of all) this.#teardown(e, 'the extension is shutting down');
    this.#entries.clear();
    this.#leaving.clear();
    super.dispose();
  }
}

/** Query parameters that carry a credential by their name: `api_key`, `access_token`, `sig`... */
const SECRET_PARAM = /key|token|secret|pass|auth|sig|cred|session/i;

/** The values of the `${env:NAME}` variables of a server whose names say they hold a secret. */
export const envSecrets = (config: ServerConfig, env: Readonly<Record<string, string | undefined>>): string[] => {
  const out: string[] = [];
  for (const [, name] of stringify(config).matchAll(/\$\{env:([^}]+)\}/g)) {
    const value = env[name];
    if (value && SECRET_NAME.test(name)) out.push(value);
  }
  return out;
};

const SECRET_NAME = /key|token|secret|pass|pwd|auth|cred|session|cookie|private|\bpat\b|_pat$/i;

/**
 * The credentials a server URL carries: its user info, and the values of query parameters named
 * like credentials. Other parameter values stay readable in logs (`?version=2`).
 */
export const urlSecrets = (url: string): string[] => {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return [];
  }
  const out = [u.username, u.password].filter(Boolean).flatMap((v) => [v, safeDecode(v)]);
  for (const [name, value] of u.searchParams) if (value && SECRET_PARAM.test(name)) out.push(value, encodeURIComponent(value));
  return out;
};

const safeDecode = (v: string): string => {
  try {
    return decodeURIComponent(v);
  } catch {
    return v; // a malformed escape stays as it was written
  }
};
