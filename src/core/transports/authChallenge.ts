/**
 * What a server's `WWW-Authenticate` challenge (RFC 6750, RFC 9728) tells the user when it
 * refuses a request with 401 or 403. MCP servers that sign users in with OAuth name their
 * protected resource metadata there (`resource_metadata`), and a token that lacks a scope is
 * refused with `error="insufficient_scope"` and the `scope` it needs. The header is the
 * server's words: only what matches is used, and the scope is cut and kept to printable text.
 */

/** The hint to append after "refused the request (HTTP 401)", or undefined if the challenge says nothing more. */
export const authChallengeHint = (status: number, header: string | null | undefined): string | undefined => {
  if (!header || !/\bBearer\b/i.test(header)) return undefined;
  if (status === 403 && param(header, 'error') === 'insufficient_scope') {
    const scope = param(header, 'scope');
    const needed = scope ? ` ("${scope}")` : '';
    return `the token lacks the scope it needs${needed}: configure a token with that scope under "headers" in its configuration`;
  }
  if (status === 401 && param(header, 'resource_metadata') !== undefined) {
    return 'it asks to sign in with OAuth, which MCP Tasks does not support yet. If the server also accepts a token (an API key or a personal access token), add it under "headers" in its configuration';
  }
  return undefined;
};

/** Whether a challenge says the token sent is invalid (expired, revoked, unknown: RFC 6750 `invalid_token`). */
export const invalidToken = (header: string | null | undefined): boolean => param(header ?? '', 'error') === 'invalid_token';

/** One auth-param's value, quoted or not: printable ASCII only, at most 200 characters. */
const param = (header: string, name: string): string | undefined => {
  const m = new RegExp(`(?:^|[\\s,])${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^\\s,"]+))`, 'i').exec(header.slice(0, 4096));
  if (!m) return undefined;
  return (m[1] ?? m[2]).replace(/\\(.)/g, '$1').replace(/[^\x20-\x7e]/g, '').slice(0, 200);
};
