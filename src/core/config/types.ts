import { join } from 'node:path';
/** The kind of a folder's `.vscode/mcp.json` source, and its variable `${workspaceFolder}`: one string in the bundle for its 13 uses. */
export const WORKSPACE_FOLDER = 'workspaceFolder';
/** The variables `${workspaceFolderBasename}` and `${pathSeparator}`: one string each in the bundle. */
export const FOLDER_BASENAME = 'workspaceFolderBasename';
export const PATH_SEPARATOR = 'pathSeparator';
/** The type of a server run as a local process: one string in the bundle for its 20 uses. */
export const STDIO = 'stdio';
/** The type of a Streamable HTTP server, likewise. */
export const HTTP = 'http';
/** The kind of the settings' source (and its sourceKey), likewise. */
export const SETTINGS = 'settings';

/** Where a server's configuration came from. */
export type ConfigSource =
  | { kind: 'settings' }
  /** The user's own `mcp.json` (VS Code's "MCP: Open User Configuration"), in the profile's folder. */
  | { kind: 'user'; file: string }
  | {
      kind: 'workspaceFolder';
      /** The folder's name as the editor shows it. */
      folderName: string;
      /** The folder's file-system path; part of server ids, so same-named servers stay apart. */
      folderPath: string;
      /** Absolute path of the folder's `.vscode/mcp.json`. */
      file: string;
    };

export const SETTINGS_SOURCE: ConfigSource = { kind: SETTINGS };

/** The setting that holds servers configured outside `.vscode/mcp.json`. */
export const SERVERS_SETTING = 'mcpTasks.servers';

/**
 * A value asked of the user when a server that uses `${input:ID}` starts: typed (`promptString`)
 * or picked (`pickString`); or the string an editor command returns (`command`).
 */
export type InputDef = PromptStringInput | PickStringInput | CommandInput;

/** The types of input asked by a prompt and by a pick: one string each in the bundle. */
export const PROMPT_STRING = 'promptString' as const;
export const PICK_STRING = 'pickString' as const;

export interface PromptStringInput {
  type: 'promptString';
  id: string;
  /** The prompt shown to the user. */
  description: string;
  /** Mask what the user types, and treat the value as a secret. */
  password: boolean;
  default?: string;
}

/** A choice among fixed values (VS Code's `pickString`). */
export interface PickStringInput {
  type: 'pickString';
  id: string;
  description: string;
  options: Array<{ label: string; value: string }>;
  default?: string;
}

/** The string an editor command returns, run with `args` each time the input is resolved (VS Code's `command` input). */
export interface CommandInput {
  type: 'command';
  id: string;
  command: string;
  /** Passed to the command as its one argument, as VS Code does. */
  args?: unknown;
}

export type ServerType = 'stdio' | 'http' | 'sse' | 'ws';

interface ServerBase {
  /** Stable across reloads: `settings:NAME`, `user:NAME` or `folder:<folderPath>:NAME`. */
  id: string;
  /** The key under "servers". */
  name: string;
  /** What users see: the name, plus where it comes from when another server has the same name. */
  label: string;
  source: ConfigSource;
  /** The inputs of the same source that this server refers to with `${input:ID}`. */
  inputs: InputDef[];
}

/** A server started as a child process, speaking newline-delimited JSON-RPC on stdin/stdout. */
export interface StdioServerConfig extends ServerBase {
  type: 'stdio';
  command: string;
  args: string[];
  /** A `null` value removes the variable from the environment the server inherits (as in VS Code). */
  env: Record<string, string | null>;
  envFile?: string;
  cwd?: string;
}

/** A remote server: Streamable HTTP (`http`), the older HTTP+SSE transport (`sse`), or WebSocket (`ws`). */
export interface RemoteServerConfig extends ServerBase {
  type: 'http' | 'sse' | 'ws';
  url: string;
  headers: Record<string, string>;
}

/** One configured server, variables not yet resolved. Discriminated on `type`. */
export type ServerConfig = StdioServerConfig | RemoteServerConfig;

/** A configuration problem, ready to show to the user. */
export interface ConfigError {
  /** `syntax`: the file is not valid JSONC, or could not be read (nothing in it was used); `invalid`: a value is wrong. */
  kind: 'syntax' | 'invalid';
  /** The file path, or `'settings'`. */
  source: string;
  /** The server the problem is in, when it is in one. */
  server?: string;
  /** A full sentence naming the file, the server and what is wrong. */
  message: string;
  /** How `message` names the source, which it starts with (see describeSource); set on `invalid` errors, the only ones a file may have several of. */
  where?: string;
  /** What is wrong in `server` (the end of `message`), set with it: its row in the view, whose label names the server, says this only. */
  problem?: string;
  /** 1-based position in the file, when known. */
  line?: number;
  column?: number;
}

export interface ParseResult {
  servers: ServerConfig[];
  inputs: InputDef[];
  errors: ConfigError[];
}

/** A stdio server ready to start: every variable replaced, the env file merged in. */
export interface ResolvedStdioServer extends Omit<StdioServerConfig, 'env' | 'envFile' | 'inputs'> {
  env: Record<string, string>;
  /** Variables set to `null` in the configuration: remove them from the inherited environment. */
  unsetEnv: string[];
}

export type ResolvedRemoteServer = Omit<RemoteServerConfig, 'inputs'>;

export type ResolvedServer = ResolvedStdioServer | ResolvedRemoteServer;

/** How a source is named in messages, e.g. `.vscode/mcp.json (folder "app")`. */
export const describeSource = (source: ConfigSource): string =>
  source.kind === SETTINGS ? `Setting "${SERVERS_SETTING}"` : source.kind === 'user' ? 'User mcp.json' : `.vscode/mcp.json (folder "${source.folderName}")`;

/** Where a server is configured, as the view and the server pick show it: `setting mcpTasks.servers`, or its file. */
export const sourcePlace = (source: ConfigSource): string => (source.kind === SETTINGS ? `setting ${SERVERS_SETTING}` : source.file);

/**
 * Where the server of `id` is configured, as sourcePlace says it, from the id alone: a sampling
 * grant may name a server of another workspace. `name` ends the id (a name may hold a colon).
 */
export const placeOfId = (id: string, name: string): string =>
  id.startsWith('folder:')
    ? join(id.slice(7, id.endsWith(`:${name}`) ? -name.length - 1 : id.lastIndexOf(':')), '.vscode', 'mcp.json')
    : id.startsWith(SETTINGS)
      ? sourcePlace(SETTINGS_SOURCE)
      : 'User mcp.json';

/** The `source` field of a `ConfigError`. */
export const sourceKey = (source: ConfigSource): string => (source.kind === SETTINGS ? SETTINGS : source.file);

/**
 * The name inside a server id (see `serverId`), for a server no longer configured. A folder path
 * may hold ':' (a Windows drive, C:) and so may a name: the open folders' paths say where the name starts;
 * otherwise the name is taken as what follows the last ':'.
 */
export const serverNameOfId = (id: string, folderPaths: readonly string[] = []): string => {
  const own = /^(settings|user):/.exec(id);
  if (own) return id.slice(own[0].length);
  const folder = folderPaths.find((p) => id.startsWith(`folder:${p}:`));
  if (folder !== undefined) return id.slice(`folder:${folder}:`.length);
  return id.slice(id.lastIndexOf(':') + 1) || id;
};

/**
 * The stable id of a server: two folders may each have a server with the same name, and so may the
 * settings and the user's mcp.json (one per profile: the id leaves its path out, so tasks and
 * permissions stay with the server when the profile's folder moves).
 */
export const serverId = (source: ConfigSource, name: string): string => (source.kind === WORKSPACE_FOLDER ? `folder:${source.folderPath}:${name}` : `${source.kind}:${name}`);
