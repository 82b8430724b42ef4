import { isBlankJsonc, parseJsonc } from './jsonc';
import * as z from 'zod/mini';
import type { ConfigError, ConfigSource, InputDef, ParseResult, ServerConfig, ServerType } from './types';
import { describeSource, HTTP, PICK_STRING, PROMPT_STRING, serverId, SERVERS_SETTING, SETTINGS, SETTINGS_SOURCE, sourceKey, STDIO, WORKSPACE_FOLDER } from './types';
import { checkUrl, findVariables, formatPath, stringFields } from './variables';
import { isNumber, isObject, isString, stringify } from '../util/json';
import { entriesOf, isArray } from '../util/builtins';
import { noop } from '../util/promise';

type Path = (string | number)[];
/** Finds the 1-based position of a JSON path in the file, when there is a file. */
type Locate = (path: Path) => { line: number; column: number } | undefined;

// ---- Schemas. Each carries the words shown to the user; the field name is prefixed when reported.

const required = (what: string) =>
  z.string({ error: (iss) => (iss.input === undefined ? 'is missing' : `must be ${what}`) }).check(z.minLength(1, 'must not be empty'));
const optionalString = (what: string) => z.optional(z.string({ error: `must be ${what}` }));
// Shared by several fields: a schema does not change, so one serves them all.
const aString = z.string({ error: 'must be a string' });
const requiredString = required('a string');
const optionalText = optionalString('a string');
const stringMap = (what: string) => z.optional(z.record(z.string(), aString, { error: `must be an object of ${what}` }));

// Loose objects: VS Code allows more keys ("dev", "gallery", "version"...) that we ignore.
const StdioSchema = z.looseObject({
  command: requiredString,
  args: z.optional(z.array(aString, { error: 'must be a list of strings' })),
  // VS Code's schema allows numbers and null (null: do not pass the variable on).
  env: z.optional(
    z.record(z.string(), z.union([z.string(), z.number(), z.literal(null)], { error: 'must be a string, a number or null' }), {
      error: 'must be an object of variable names to values',
    }),
  ),
  envFile: optionalString('a string (the path of a .env file)'),
  cwd: optionalString('a string (a folder path)'),
});

const RemoteSchema = z.looseObject({
  url: required('a string (the server\'s URL)'),
  headers: stringMap('header names to values'),
});

const InputSchema = z.looseObject({
  id: requiredString,
  description: optionalText,
  password: z.optional(z.boolean({ error: 'must be true or false' })),
  default: optionalText,
});

const PickSchema = z.looseObject({
  id: requiredString,
  description: optionalText,
  options: z
    .array(z.union([z.string(), z.looseObject({ label: optionalText, value: aString })], { error: 'must be a string or { "label": "...", "value": "..." }' }), {
      error: (iss) => (iss.input === undefined ? 'is missing' : 'must be a list of strings or { "label", "value" } objects'),
    })
    .check(z.minLength(1, 'must not be empty')),
  default: optionalText,
});

const CommandSchema = z.looseObject({ id: requiredString, command: required('a string (the id of an editor command)') });

const FILE_TYPES: readonly ServerType[] = [STDIO, HTTP, 'sse'];
const SETTING_TYPES: readonly ServerType[] = [STDIO, HTTP, 'sse', 'ws'];


/**
 * Parses a workspace folder's `.vscode/mcp.json` or the user's `mcp.json` (JSONC: comments and trailing commas allowed).
 * On a syntax error nothing in the file is used (a half-read server could start the wrong
 * command), so callers may keep the previous result while the user is typing. Otherwise each
 * server stands alone: an invalid one is reported and left out, the others are returned.
 */
export const parseMcpJson = (text: string, source: ConfigSource): ParseResult => {
  const result: ParseResult = { servers: [], inputs: [], errors: [] };
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  // An empty file (or one with only comments) is an empty configuration, not an error.
  if (isBlankJsonc(text)) return result;

  const parsed = parseJsonc(text);
  if (parsed.error) {
    const pos = lineColumn(text, parsed.error.offset);
    result.errors.push({
      kind: 'syntax',
      source: sourceKey(source),
      message: `${describeSource(source)}, line ${pos.line}, column ${pos.column}: ${parsed.error.message}.`,
      ...pos,
    });
    return result;
  }
  const doc = parsed.value;
  const locate: Locate = (path) => {
    const offset = parsed.locate(path);
    return offset === undefined ? undefined : lineColumn(text, offset);
  };
  const report = (path: Path, message: string, server?: string) =>
    result.errors.push(invalid(source, message, locate(path), server));

  if (!isObject(doc)) {
    report([], `: the file must contain an object, e.g. { "servers": { ... } }.`);
    return result;
  }
  // Inputs defined but unusable: servers that use them say so rather than "not defined".
  const rejected = new Set<string>();
  if (doc.inputs !== undefined && !isArray(doc.inputs)) {
    report(['inputs'], `: "inputs" must be a list.`);
  } else if (isArray(doc.inputs)) {
    result.inputs = parseInputs(doc.inputs, source, result.errors, locate, rejected);
  }
  if (doc.servers === undefined) {
    // Pasted from another client's file (Claude Desktop, Cursor) or from the old settings: VS Code
    // reads nothing of it, and without a word the servers would just not be there.
    const other = ['mcpServers', 'mcp'].find((k) => isObject(doc[k]));
    if (other) report([other], `: VS Code reads servers from a top-level "servers" object, not from "${other}": move them there.`);
    return result;
  }
  if (!isObject(doc.servers)) {
    report(['servers'], `: "servers" must be an object that maps server names to servers.`);
    return result;
  }
  // JSON objects may repeat a key; the last one wins, which users rarely mean.
  const seen = new Set<string>();
  for (const name of parsed.keys(['servers'])) {
    if (seen.has(name)) report(['servers', name], 'defined more than once; the last definition is used.', name);
    seen.add(name);
  }
  parseServers(doc.servers, source, result, (path) => locate(['servers', ...path]), rejected);
  return result;
};

/**
 * Parses the value of the `mcpTasks.servers` setting (an object: name -> server). Same rules as
 * `.vscode/mcp.json`, plus `"type": "ws"`, which VS Code's own schema for mcp.json rejects.
 */
export const parseSettingServers = (value: unknown, source: ConfigSource = SETTINGS_SOURCE): ParseResult => {
  const result: ParseResult = { servers: [], inputs: [], errors: [] };
  if (value === undefined || value === null) return result;
  if (!isObject(value)) {
    result.errors.push(invalid(source, ' must be an object that maps server names to servers.'));
    return result;
  }
  parseServers(value, source, result, noop);
  return result;
};

/**
 * Joins the results of every source and sets labels: a server keeps its name unless another
 * server has the same one, then the folder (or "settings", or "user" for the user's mcp.json) is added to tell them apart.
 */
export const combineConfigs = (results: readonly ParseResult[]): ParseResult => {
  const servers = results.flatMap((r) => r.servers);
  const count = (f: (s: ServerConfig) => string) => {
    const m = new Map<string, number>();
    for (const s of servers) m.set(f(s), (m.get(f(s)) ?? 0) + 1);
    return m;
  };
  const byName = count((s) => s.name);
  const where = (s: ServerConfig) => (s.source.kind === WORKSPACE_FOLDER ? s.source.folderName : s.source.kind);
  const byNameAndFolder = count((s) => `${s.name}\0${where(s)}`);
  return {
    servers: servers.map((s) => {
      if (byName.get(s.name) === 1) return { ...s, label: s.name };
      // Two folders may share a name (multi-root workspaces); their paths always differ.
      const place = byNameAndFolder.get(`${s.name}\0${where(s)}`) === 1 || s.source.kind !== WORKSPACE_FOLDER ? where(s) : s.source.folderPath;
      return { ...s, label: `${s.name} (${place})` };
    }),
    inputs: results.flatMap((r) => r.inputs),
    errors: results.flatMap((r) => r.errors),
  };
};

/**
 * What to use of a `.vscode/mcp.json` just read, given what was used before: on a syntax error
 * (a save in the middle of an edit) or a failed read, the servers and inputs of the last
 * readable version stay, so running servers are not stopped while the user types; the error is
 * still reported.
 */
export const keepLastReadable = (previous: ParseResult | undefined, current: ParseResult): ParseResult => {
  if (!previous || !unreadable(current)) return current;
  return {
    servers: previous.servers,
    inputs: previous.inputs,
    errors: current.errors.map((e) => (e.kind === 'syntax' ? { ...e, message: `${e.message} Its servers stay as they were until it can be read.` } : e)),
  };
};

/** A result of a file that could not be read as JSONC, or at all: nothing in it is used. */
export const unreadable = (result: ParseResult): boolean => result.errors.some((e) => e.kind === 'syntax');

/**
 * The errors to notify, one list per file (or the settings) that has a problem it did not have
 * at the last call: a problem that stays is not notified again on each reload, one that goes and
 * comes back is. A file that does not parse has one problem wherever the error moves as the user
 * types. A file being edited (`editing`: open in an editor, where auto save saves each state the
 * user types through) is notified as it breaks, then not until it has been valid again. `shown`
 * holds each source's problems from one call to the next.
 */
export const newProblems = (shown: Map<string, string[]>, errors: readonly ConfigError[], editing?: (source: string) => boolean): ConfigError[][] => {
  const now = new Map<string, ConfigError[]>();
  for (const e of errors) now.set(e.source, [...(now.get(e.source) ?? []), e]);
  const key = (e: ConfigError) => (e.kind === 'syntax' ? '' : e.message);
  const fresh = [...now].filter(([source, list]) => (editing?.(source) ? !shown.has(source) : list.some((e) => !shown.get(source)?.includes(key(e))))).map(([, list]) => list);
  shown.clear();
  for (const [source, list] of now) shown.set(source, list.map(key));
  return fresh;
};

const parseServers = (map: Record<string, unknown>, source: ConfigSource, result: ParseResult, locate: Locate, rejected: ReadonlySet<string> = new Set()): void => {
  for (const [name, raw] of entriesOf(map)) {
    const errors: { path: Path; message: string }[] = [];
    const server = parseServer(name, raw, source, result.inputs, rejected, errors);
    for (const e of errors) {
      result.errors.push(invalid(source, `${e.message}.`, locate([name, ...e.path]) ?? locate([name]), name));
    }
    if (server) result.servers.push(server);
  }
};

/**
 * Validates one server. Returns it when usable: one whose variables cannot be replaced is left
 * out, as other invalid servers are, so the view shows it once, as its error (not also as a
 * server to connect, which could only fail).
 */
const parseServer = (
  name: string,
  raw: unknown,
  source: ConfigSource,
  inputs: readonly InputDef[],
  rejected: ReadonlySet<string>,
  errors: { path: Path; message: string }[],
): ServerConfig | undefined => {
  if (name.trim() === '') {
    errors.push({ path: [], message: 'a server name must not be empty' });
    return undefined;
  }
  if (!isObject(raw)) {
    errors.push({ path: [], message: 'must be an object, e.g. { "command": "node", "args": ["server.js"] }' });
    return undefined;
  }
  const type = serverType(raw, source, errors);
  if (!type) return undefined;

  const base = { id: serverId(source, name), name, label: name, source, inputs: [] as InputDef[] };
  let server: ServerConfig;
  if (type === STDIO) {
    const r = StdioSchema.safeParse(raw);
    if (!r.success) {
      errors.push(...zodErrors(r.error));
      return undefined;
    }
    const env: Record<string, string | null> = {};
    for (const [k, v] of entriesOf(r.data.env ?? {})) env[k] = isNumber(v) ? String(v) : v;
    server = { ...base, type, command: r.data.command, args: r.data.args ?? [], env, envFile: r.data.envFile, cwd: r.data.cwd };
  } else {
    const r = RemoteSchema.safeParse(raw);
    if (!r.success) {
      errors.push(...zodErrors(r.error));
      return undefined;
    }
    // A URL with variables is checked once they are replaced.
    const bad = r.data.url.includes('${') ? undefined : checkUrl(type, r.data.url);
    if (bad) {
      errors.push({ path: ['url'], message: bad });
      return undefined;
    }
    server = { ...base, type, url: r.data.url, headers: r.data.headers ?? {} };
  }

  const used = new Set<string>();
  for (const field of stringFields(server)) {
    for (const v of findVariables(field.value)) {
      if (v.kind === 'unknown') {
        errors.push({ path: field.path, message: `${formatPath(field.path)} uses the unknown variable "${v.text}"` });
      } else if (v.kind === 'input' && !inputs.some((i) => i.id === v.id)) {
        const why = rejected.has(v.id) ? `but input "${v.id}" could not be read (see its error)` : missingInput(source);
        errors.push({ path: field.path, message: `${formatPath(field.path)} uses "${v.text}", ${why}` });
      } else if (v.kind === 'input') {
        used.add(v.id);
      }
    }
  }
  server.inputs = inputs.filter((i) => used.has(i.id));
  return errors.length ? undefined : server;
};

/** The explicit `type`, or the one implied by `command` / `url`. */
const serverType = (raw: Record<string, unknown>, source: ConfigSource, errors: { path: Path; message: string }[]): ServerType | undefined => {
  const allowed = source.kind === SETTINGS ? SETTING_TYPES : FILE_TYPES;
  const t = raw.type;
  if (t === undefined) {
    if (raw.command !== undefined) return STDIO;
    if (raw.url !== undefined) return HTTP;
    errors.push({ path: [], message: 'needs "command" (to start a local server) or "url" (to connect to a remote one)' });
    return undefined;
  }
  if (t === 'ws' && source.kind !== SETTINGS) {
    errors.push({
      path: ['type'],
      message: `"type": "ws" is not allowed in mcp.json (VS Code would reject the file); move this server to the "${SERVERS_SETTING}" setting`,
    });
    return undefined;
  }
  if (isString(t) && (allowed as readonly string[]).includes(t)) return t as ServerType;
  errors.push({
    path: ['type'],
    message: `"type" must be ${allowed.map((a) => `"${a}"`).join(', ').replace(/, (?=[^,]*$)/, ' or ')}, not ${stringify(t)}`,
  });
  return undefined;
};

const parseInputs = (raw: unknown[], source: ConfigSource, errors: ConfigError[], locate: Locate, rejected: Set<string>): InputDef[] => {
  const out: InputDef[] = [];
  raw.forEach((item, index) => {
    const id = isObject(item) && isString(item.id) ? item.id : undefined;
    const fail = (path: Path, what: string) => {
      if (id !== undefined && !out.some((i) => i.id === id)) rejected.add(id);
      errors.push(invalid(source, `, ${id ? `input "${id}"` : `input #${index + 1}`}: ${what}.`, locate(['inputs', index, ...path]) ?? locate(['inputs', index])));
    };
    /** The input as `schema` reads it; undefined once each of its problems is reported. */
    const read = <S extends z.ZodMiniType>(schema: S): z.output<S> | undefined => {
      const r = schema.safeParse(item);
      if (r.success) return r.data;
      for (const e of zodErrors(r.error)) fail(e.path, e.message);
      return undefined;
    };
    if (!isObject(item)) return fail([], 'must be an object, e.g. { "type": "promptString", "id": "api-key", "description": "API key" }');
    if (item.type !== PROMPT_STRING && item.type !== PICK_STRING && item.type !== 'command') {
      const kinds = '"promptString", "pickString" or "command"';
      return fail(['type'], item.type === undefined ? `"type" is missing (use ${kinds})` : `"type" must be ${kinds}, not ${stringify(item.type)}`);
    }
    if (out.some((i) => i.id === id)) return fail(['id'], 'defined more than once; the first definition is used');
    if (item.type === PICK_STRING) {
      const pick = read(PickSchema);
      if (!pick) return;
      const options = pick.options.map((o) => (isString(o) ? { label: o, value: o } : { label: o.label ?? o.value, value: o.value }));
      if (pick.default !== undefined && !options.some((o) => o.value === pick.default)) {
        return fail(['default'], `"default" ${stringify(pick.default)} is not one of the options`);
      }
      const { id: pickId, description, default: dflt } = pick;
      return void out.push({ type: PICK_STRING, id: pickId, description: description ?? pickId, options, ...(dflt !== undefined ? { default: dflt } : {}) });
    }
    if (item.type === 'command') {
      const command = read(CommandSchema);
      if (!command) return;
      return void out.push({ type: 'command', id: command.id, command: command.command, ...(item.args !== undefined ? { args: item.args } : {}) });
    }
    const prompt = read(InputSchema);
    if (!prompt) return;
    out.push({
      type: PROMPT_STRING,
      id: prompt.id,
      description: prompt.description ?? prompt.id,
      password: prompt.password ?? false,
      ...(prompt.default !== undefined ? { default: prompt.default } : {}),
    });
  });
  return out;
};

/**
 * An error of a source's servers or inputs, `at` where in its file: its message is the source's
 * name then `message`; in a server, `message` is what is wrong there and follows the server's name too.
 */
const invalid = (source: ConfigSource, message: string, at?: { line: number; column: number }, server?: string): ConfigError => {
  const where = describeSource(source);
  const problem = server === undefined ? undefined : message;
  return { kind: 'invalid', source: sourceKey(source), server, where, problem, message: where + (problem === undefined ? message : `, server "${server}": ${problem}`), ...at };
};

const missingInput = (source: ConfigSource): string => {
  return source.kind === SETTINGS
    ? `but inputs can only be defined in .vscode/mcp.json (use "\${env:NAME}" in settings)`
    : 'but no input with that id is defined in "inputs"';
};

const zodErrors = ({ issues }: { issues: readonly { path: PropertyKey[]; message: string }[] }): { path: Path; message: string }[] => {
  return issues.map((i) => {
    const path = i.path.filter((p): p is string | number => typeof p !== 'symbol');
    return { path, message: `${formatPath(path)} ${i.message}` };
  });
};

/**
 * Where the property name at `path` is in a JSONC text (a server's entry: `["servers", name]`),
 * 1-based, read as far as the text parses; undefined when it is not there.
 */
export const keyPosition = (text: string, path: Path): { line: number; column: number } | undefined => {
  const doc = parseJsonc(text);
  return doc.keys(path.slice(0, -1)).includes(String(path.at(-1))) ? lineColumn(text, doc.locate(path, true)!) : undefined;
};

const lineColumn = (text: string, offset: number): { line: number; column: number } => {
  let line = 1;
  let start = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    start = i + 1;
  }
  return { line, column: offset - start + 1 };
};
