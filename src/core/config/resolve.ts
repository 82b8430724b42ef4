import * as path from 'node:path';
import { errorMessage } from '../util/abort';
import { parseDotenv } from './dotenv';
import type { InputDef, ResolvedServer, ServerConfig } from './types';
import { checkUrl, findVariables, formatPath, stringFields, substituteVariables } from './variables';
import { isString } from '../util/json';
import { entriesOf, fromEntries, hasOwn, keysOf } from '../util/builtins';
import { FOLDER_BASENAME, PATH_SEPARATOR, STDIO, WORKSPACE_FOLDER } from './types';

/** What variable resolution may look at. Every effect comes in through here, so tests stay pure. */
export interface ResolveContext {
  /** The workspace's folders by name, for `${workspaceFolder:name}`. */
  folders: Readonly<Record<string, string>>;
  /** Every folder of the workspace, in order (two may share a name): a server of the settings takes the only one. */
  folderPaths: readonly string[];
  userHome: string;
  env: Record<string, string | undefined>;
  /**
   * Asks the user for an input's value, or runs its command; `undefined` means the user cancelled.
   * What a command returns is checked here: the editor passes it on as it is.
   */
  promptInput: (input: InputDef) => Promise<string | undefined>;
  readFile: (path: string) => Promise<string>;
}

export type ResolveResult =
  | { ok: true; server: ResolvedServer }
  /** `cancelled`: the user dismissed a prompt; no need to show an error. */
  | { ok: false; message: string; cancelled?: boolean };

/**
 * Replaces the variables of a server's configuration (`${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${env:NAME}`, `${input:ID}`, `${pathSeparator}`
 * and `${/}`) in command, args, env values, envFile, cwd, url and header values; merges the env
 * file under `env`; makes `cwd` absolute. Every variable is checked before the first prompt, so
 * the user is never asked for a value of a configuration that cannot work. Never throws.
 */
export const resolveServer = async (config: ServerConfig, ctx: ResolveContext): Promise<ResolveResult> => {
  // Not named here: the notification ("Could not connect to MCP server "x": …"), the server's row
  // and the log line each name the server already.
  const fail = (what: string): ResolveResult => ({ ok: false, message: `${what}.` });
  // A server of the settings or of the user's mcp.json takes the workspace's folder when it has
  // exactly one; in a multi-root workspace it must name one, as VS Code's variable resolver says.
  // (VS Code itself resolves a user mcp.json server's `${workspaceFolder}` with no folder at all,
  // so it fails even with one folder open: microsoft/vscode#245905, #264535, still open.)
  const open = ctx.folderPaths;
  const folder = config.source.kind === WORKSPACE_FOLDER ? config.source.folderPath : open.length === 1 ? open[0] : undefined;
  const fields = stringFields(config);
  // `${workspaceFolder}` is the server's own folder; `${workspaceFolder:name}` the folder named so.
  const folderOf = (v: { name?: string }) => (v.name === undefined ? folder : hasOwn(ctx.folders, v.name) ? ctx.folders[v.name] : undefined);

  // 1. Check every variable, and list the inputs in order of first use.
  const inputs: InputDef[] = [];
  for (const field of fields) {
    for (const v of findVariables(field.value)) {
      const where = `${formatPath(field.path)} uses`;
      if (v.kind === 'unknown') return fail(`${where} the unknown variable "${v.text}"`);
      if ((v.kind === WORKSPACE_FOLDER || v.kind === FOLDER_BASENAME) && folderOf(v) === undefined) {
        const why =
          v.name !== undefined
            ? `no workspace folder is named "${v.name}"`
            : open.length > 1
              ? `the workspace has ${open.length} folders: name one, as in "\${workspaceFolder:${keysOf(ctx.folders)[0]}}"`
              : 'there is no workspace folder to take it from';
        return fail(`${where} "${v.text}", but ${why}`);
      }
      if (v.kind === 'input' && !inputs.some((i) => i.id === v.id)) {
        const def = config.inputs.find((i) => i.id === v.id);
        if (!def) return fail(`${where} "${v.text}", but no input "${v.id}" is defined`);
        inputs.push(def);
      }
    }
  }

  // 2. Ask for each input once, one prompt at a time.
  const answers = new Map<string, string>();
  for (const input of inputs) {
    let answer: unknown; // a command may return anything, whatever its type says
    // A command input names its command: VS Code's words, plus the server's name.
    const of = input.type === 'command' ? `input "${input.id}" from command "${input.command}"` : `input "${input.id}"`;
    try {
      answer = await ctx.promptInput(input);
    } catch (err) {
      return fail(`could not ${input.type === 'command' ? 'get' : 'ask for'} ${of}: ${errorMessage(err) || 'it failed without saying why'}`);
    }
    // As in VS Code: a command that returns undefined or null is the user cancelling; another non-string, an error.
    if (answer != null && !isString(answer)) return fail(`could not get ${of}: it returned ${typeof answer}, not a string`);
    if (answer == null) return { ok: false, cancelled: true, message: `No value was given for ${of}.` };
    answers.set(input.id, answer);
  }

  // 3. Substitute. Every reference was checked above, so nothing here can be unknown.
  const sub = (s: string): string =>
    substituteVariables(s, (v) => {
      switch (v.kind) {
        case WORKSPACE_FOLDER:
          return folderOf(v) ?? '';
        case FOLDER_BASENAME:
          return path.basename(folderOf(v) ?? '');
        case 'userHome':
          return ctx.userHome;
        case PATH_SEPARATOR:
          return path.sep;
        case 'env':
          return ctx.env[v.name] ?? ''; // as VS Code: an unset variable is empty
        case 'input':
          return answers.get(v.id) ?? '';
        case 'unknown':
          return v.text;
      }
    });
  const subMap = <T extends string | null>(m: Record<string, T>) => fromEntries(entriesOf(m).map(([k, v]) => [k, v === null ? v : sub(v)])) as Record<string, T>;

  const { id, name, label, source } = config;
  if (config.type !== STDIO) {
    const url = sub(config.url);
    const bad = checkUrl(config.type, url);
    if (bad) return fail(bad);
    return { ok: true, server: { id, name, label, source, type: config.type, url, headers: subMap(config.headers) } };
  }

  const command = sub(config.command);
  if (command.trim() === '') return fail('"command" is empty once its variables are replaced');
  const absolute = (p: string, field: string): string | Error => {
    if (path.isAbsolute(p)) return p;
    if (folder === undefined) return new Error(`"${field}" is the relative path "${p}", but there is no workspace folder it could be relative to; use an absolute path`);
    return path.resolve(folder, p);
  };

  const env: Record<string, string> = {};
  if (config.envFile !== undefined) {
    const file = absolute(sub(config.envFile), 'envFile');
    if (file instanceof Error) return fail(file.message);
    try {
      Object.assign(env, parseDotenv(await ctx.readFile(file)));
    } catch (err) {
      // The editor's FileSystemError, or Node's: a path to correct, not a failure to read.
      const code = (err as { code?: unknown } | undefined)?.code;
      if (code === 'FileNotFound' || code === 'ENOENT') return fail(`"envFile" ${file} does not exist: create it, or correct the path`);
      return fail(`could not read "envFile" ${file}: ${errorMessage(err)}`);
    }
  }
  // Explicit env wins over the file; null removes a variable (also one from the file).
  const unsetEnv: string[] = [];
  for (const [k, v] of entriesOf(subMap(config.env))) {
    if (v === null) {
      delete env[k];
      unsetEnv.push(k);
    } else {
      env[k] = v;
    }
  }

  // A folder's server starts in that folder (as in VS Code); another where the editor starts.
  let cwd = config.source.kind === WORKSPACE_FOLDER ? folder : undefined;
  if (config.cwd !== undefined) {
    const c = absolute(sub(config.cwd), 'cwd');
    if (c instanceof Error) return fail(c.message);
    cwd = c;
  }
  return { ok: true, server: { id, name, label, source, type: STDIO, command, args: config.args.map(sub), env, unsetEnv, cwd } };
};
