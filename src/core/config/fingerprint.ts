import type { ServerConfig } from './types';
import { isObjectLike, stringify } from '../util/json';
import { entriesOf, isArray } from '../util/builtins';
import { HTTP } from './types';
import { sha256 } from '../util/crypto';

/**
 * A stable digest of what decides how a server is reached: type, transport fields and the
 * definitions of the inputs it uses. Label, id and key order do not count, so the editor
 * reconnects only servers whose configuration really changed. Hashed, because header values
 * and env values may be secrets and a fingerprint may end up in a log. `context` is what else
 * the server's variables resolve from (the workspace folders of a server of the settings).
 */
export const fingerprint = (config: ServerConfig, context?: unknown): string => {
  const { id: _id, name: _name, label: _label, source: _source, inputs, ...transport } = config;
  const canonical = canonicalJson({ ...transport, inputs: [...inputs].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)), context });
  return sha256(canonical);
};

/**
 * What a kept Streamable HTTP session belongs to: its server's URL, hashed as the fingerprint is
 * (a URL may carry a key). New headers (a new token) at the same URL still resume the session, in
 * the next window as in this one.
 */
export const endpointPrint = (config: ServerConfig): string | undefined => (config.type === HTTP ? sha256(config.url) : undefined);

/** JSON with object keys sorted at every level and undefined members left out. */
const canonicalJson = (v: unknown): string => {
  if (isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (isObjectLike(v)) {
    const entries = entriesOf(v)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return stringify(v);
};
