import type { ServerConfig, ServerType } from './types';
import { isNumber, stringify } from '../util/json';
import { entriesOf } from '../util/builtins';
import { FOLDER_BASENAME, PATH_SEPARATOR, STDIO, WORKSPACE_FOLDER } from './types';

/** One `${...}` reference in a configuration string. */
export type VariableRef =
  | { kind: 'userHome' | 'pathSeparator'; text: string }
  /** `name`: the folder of a multi-root workspace named so (`${workspaceFolder:api}`); else the server's own. */
  | { kind: 'workspaceFolder' | 'workspaceFolderBasename'; name?: string; text: string }
  | { kind: 'env'; name: string; text: string }
  | { kind: 'input'; id: string; text: string }
  | { kind: 'unknown'; text: string };

// No escape syntax: VS Code has none either, and `$` alone is left as it is.
const VARIABLE = /\$\{([^}]*)\}/g;

/** Classifies one variable body (the text between `${` and `}`). */
const classify = (body: string): VariableRef => {
  const text = `\${${body}}`;
  switch (body) {
    case WORKSPACE_FOLDER:
    case FOLDER_BASENAME:
    case 'userHome':
    case PATH_SEPARATOR:
      return { kind: body, text };
    case '/':
      return { kind: PATH_SEPARATOR, text };
  }
  const colon = body.indexOf(':');
  const prefix = colon < 0 ? '' : body.slice(0, colon);
  const arg = body.slice(colon + 1);
  if (prefix === 'env' && arg) return { kind: 'env', name: arg, text };
  if ((prefix === WORKSPACE_FOLDER || prefix === FOLDER_BASENAME) && arg) return { kind: prefix, name: arg, text };
  if (prefix === 'input' && arg) return { kind: 'input', id: arg, text };
  return { kind: 'unknown', text };
};

/** Every variable reference in `s`, in order. */
export const findVariables = (s: string): VariableRef[] => [...s.matchAll(VARIABLE)].map((m) => classify(m[1]));

/** Replaces every variable in `s` with `value(ref)`. */
export const substituteVariables = (s: string, value: (ref: VariableRef) => string): string => s.replace(VARIABLE, (_m, body: string) => value(classify(body)));

/** A configuration string that may hold variables, and where it sits in the server object. */
export interface StringField {
  path: (string | number)[];
  value: string;
}

/** The server's fields in which variables are replaced (VS Code replaces them in values, not keys). */
export const stringFields = (c: ServerConfig): StringField[] => {
  const out: StringField[] = [];
  const map = (key: string, m: Record<string, string | null>) => {
    for (const [k, v] of entriesOf(m)) if (v !== null) out.push({ path: [key, k], value: v });
  };
  if (c.type === STDIO) {
    out.push({ path: ['command'], value: c.command });
    c.args.forEach((a, i) => out.push({ path: ['args', i], value: a }));
    map('env', c.env);
    if (c.envFile !== undefined) out.push({ path: ['envFile'], value: c.envFile });
    if (c.cwd !== undefined) out.push({ path: ['cwd'], value: c.cwd });
  } else {
    out.push({ path: ['url'], value: c.url });
    map('headers', c.headers);
  }
  return out;
};

/** A field path as users write it: `"command"`, `"args[2]"`, `"env.API_KEY"`. */
export const formatPath = (path: readonly PropertyKey[]): string => {
  let s = '';
  for (const p of path) {
    if (isNumber(p)) s += `[${p}]`;
    else if (s === '') s = String(p);
    else s += /^[A-Za-z_][\w-]*$/.test(String(p)) ? `.${String(p)}` : `[${stringify(String(p))}]`;
  }
  return `"${s}"`;
};

/**
 * A URL as an error may quote it: without its query (`?api_key=…`) nor anything up to its last
 * `@` (`user:pass@`, a password may hold `@` or `/` itself).
 */
const withoutCredentials = (url: string): string => {
  const cut = url.replace(/[?#].*$/s, '?…');
  const at = cut.lastIndexOf('@');
  if (at < 0) return cut;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(cut)?.[0] ?? '';
  return `${scheme}…${cut.slice(at)}`;
};

/** Why `url` cannot be used by a server of this type, or undefined when it can. */
export const checkUrl = (type: ServerType, url: string): string | undefined => {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"url" is not a valid URL: ${stringify(withoutCredentials(url))}`;
  }
  const ok = type === 'ws' ? ['ws:', 'wss:'] : ['http:', 'https:'];
  if (!ok.includes(parsed.protocol)) {
    return `"url" must start with ${ok.map((p) => `${p}//`).join(' or ')} for a server of type "${type}"`;
  }
  return undefined;
};
