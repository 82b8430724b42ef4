/**
 * Pieces shared by the two HTTP transports (Streamable HTTP and legacy HTTP+SSE): reading a
 * Server-Sent Events body, turning event data into messages, and wording HTTP failures so the
 * user can act on them.
 */
import type { EventSourceMessage } from 'eventsource-parser';
import { createParser } from 'eventsource-parser';
import { authChallengeHint, invalidToken } from './authChallenge';
import type { Logger } from '../util/log';
import { errorMessage } from '../util/abort';
import type { Transport } from './transport';
import { messagesIn, TransportHttpError, TransportParseError } from './transport';
import { fromJson, isString } from '../util/json';
import { entriesOf } from '../util/builtins';
import { noop } from '../util/promise';
import { serverNamed } from '../util/text';

/**
 * Most characters one message may take (an SSE event, a JSON body); a server that streams more
 * without an event boundary, or a JSON body that grows past it, is cut off.
 */
export const MAX_MESSAGE_CHARS = 16 * 1024 * 1024;

/** What to do about an event over the limit, which is lost: it may have been a task's question. */
export const LOST_EVENT_HINT = 'if it asked for input, cancel the task';

export type FetchBody = NonNullable<Response['body']>;

export interface SseHandlers {
  onEvent(event: EventSourceMessage): void;
  /** The server's `retry` field: how long to wait before reconnecting. */
  onRetry?(ms: number): void;
  /** The last event id, at the end of each event that set one, even without data ('' resets it). */
  onId?(id: string): void;
}

/**
 * Reads an SSE body to its end, calling back per event. Resolves when the server ends the
 * stream; rejects when it is cut (network error, abort) or an event grows past the limit.
 * The body is always released, so the socket is not left half-read.
 */
export const readSseStream = async (body: FetchBody, handlers: SseHandlers): Promise<void> => {
  let overflow = false;
  const parser = createParser({
    // maxBufferSize is checked at the end of each chunk, after the events it completed: an event is checked too.
    onEvent: (e) => {
      if (!(overflow ||= e.data.length > MAX_MESSAGE_CHARS)) handlers.onEvent(e);
    },
    onRetry: (ms) => handlers.onRetry?.(ms),
    // Unknown fields and bad `retry` values are ignored, as the SSE standard says.
    onError: (e) => {
      if (e.type === 'max-buffer-size-exceeded') overflow = true;
    },
    // It counts an unfinished line whole (`data: `, a CR): an event within the limit may be cut there.
    maxBufferSize: MAX_MESSAGE_CHARS + 7,
  });
  const scanIds = handlers.onId && idScanner(handlers.onId);
  const decoder = new TextDecoder();
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) break;
      const text = decoder.decode(chunk.value, { stream: true });
      scanIds?.(text);
      parser.feed(text);
      // A TransportParseError: a stream resumed would send the same event again.
      if (overflow) throw new TransportParseError(`an event longer than ${MAX_MESSAGE_CHARS} characters (not read further)`, '');
    }
    done = true;
  } finally {
    if (!done) reader.cancel().catch(noop);
  }
};

/**
 * Follows the `id` fields of an SSE stream as the SSE standard does: an event sets the last event
 * id even when it has no data (a priming event), which eventsource-parser does not report at all.
 */
const idScanner = (onId: (id: string) => void): (text: string) => void => {
  // The current line so far while it may be an `id` field; undefined once it cannot be one.
  let line: string | undefined = '';
  let id: string | undefined;
  let afterCr = false;
  return (text) => {
    // A CR LF split between two chunks is one line break.
    if (afterCr && text.startsWith('\n')) text = text.slice(1);
    afterCr = text.endsWith('\r');
    const pieces = text.split(/\r\n|\r|\n/);
    for (let i = 0; ; i++) {
      if (line !== undefined) line = /^(i(d(:.*)?)?)?$/s.test(line + pieces[i].slice(0, 3)) ? line + pieces[i] : undefined;
      if (i === pieces.length - 1) return; // the line goes on in the next chunk
      if (line === '' && id !== undefined) onId(id);
      else if (line?.startsWith('id') && !line.includes('\0')) id = line.slice(line[3] === ' ' ? 4 : 3);
      line = '';
    }
  };
};

/** What {@link readBodyText} read: the text, and whether the body passed the limit or was cut. */
export interface BodyText {
  text: string;
  /** The body went past the limit and was not read further. */
  over: boolean;
  /** Why the body ended before it was whole (a dropped connection...). */
  cut?: unknown;
}

/**
 * A body as text, read until it ends or passes `max` characters; never rejects, and always
 * releases the body. A body cut on the way keeps what arrived.
 */
export const readBodyText = async (body: FetchBody, max = MAX_MESSAGE_CHARS): Promise<BodyText> => {
  const decoder = new TextDecoder();
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  let text = '';
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return { text: text + decoder.decode(), over: false };
      text += decoder.decode(chunk.value, { stream: true });
      if (text.length > max) return { text, over: true };
    }
  } catch (cut) {
    return { text, over: false, cut };
  } finally {
    reader.cancel().catch(noop);
  }
};

/**
 * The messages carried by the data of one `message` event (a JSON-RPC batch is split), or a
 * parse error when the data is not JSON, saying what the server did (`what`: a JSON body is no
 * event). Shapes are not checked here: the connection does that.
 */
export const parseEventData = (data: string, serverName: string, what = 'sent an event'): unknown[] | TransportParseError => {
  try {
    const value: unknown = fromJson(data);
    return messagesIn(value);
  } catch (err) {
    return new TransportParseError(`${serverNamed(serverName)} ${what} that is not JSON (${(err as Error).message})`, data);
  }
};

/** Hands a message from the server to `transport.onmessage`; a handler that throws is logged, not thrown into the stream. */
export const deliver = (transport: Pick<Transport, 'onmessage'>, value: unknown, log: Logger, related?: string | number): void => {
  try {
    transport.onmessage?.(value, related);
  } catch (err) {
    log.error(`Handling a message from the server failed: ${errorMessage(err)}`);
  }
};

/** The error of a transport used after it closed. */
export const closedError = (serverName: string): TransportHttpError => new TransportHttpError(`The connection to server "${serverName}" is closed`);

/** The media type of a response without parameters, e.g. `text/event-stream`. */
/** The media types the HTTP transports send and read. */
export const EVENT_STREAM = 'text/event-stream';
export const JSON_TYPE = 'application/json';

/** The media type of a response's body (`text/html`), without parameters. */
export const mediaType = (response: Response): string => (response.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();

/**
 * Up to `max` characters of a body that is not read any further (an error page may be huge), on
 * one line. An HTML page (a proxy's error or sign-in page) gives its title, which names it, or
 * else its text (a page's text often opens with menus and banners); a one-word title is followed
 * by the text.
 */
export const readBodySnippet = async (response: Response, max = 200): Promise<string> => {
  const html = mediaType(response) === 'text/html';
  let text = response.body ? (await readBodyText(response.body, html ? 4000 : max)).text : '';
  if (html) {
    const title = (/<title[^>]*>([^<]*)/i.exec(text)?.[1] ?? '').trim();
    text = text.replace(/<(head|script|style)\b[\s\S]*?(<\/\1>|$)/gi, '').replace(/<[^>]*>/g, ' ').trim();
    // A one-word title ("Error", Express's) says little: its text follows ("Error: Cannot POST /mcp").
    if (title) text = /\s/.test(title) || !text || text.startsWith(title) ? title : `${title}: ${text}`;
  }
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
};

/** What to do about a configured url that leads nowhere. */
export const CHECK_URL = 'check "url" in its configuration';

/**
 * How a token is configured, after a sentence that says to. `settings`: the server is configured
 * in settings (every WebSocket server is), where a token comes from the environment: inputs are
 * mcp.json's.
 */
const bearerExample = (settings?: boolean): string => `, e.g. "Authorization": "Bearer \${${settings ? 'env:MCP_TOKEN' : 'input:token'}}"`;

/**
 * A web page answered instead of MCP (a proxy's sign-in page, a wrong url): what it is (`page`,
 * from readBodySnippet), what was expected, and what to do.
 */
export const webPageAnswer = (page: string, expected: string, settings?: boolean): string => {
  return `a web page${page ? ` ("${page}")` : ''} instead of ${expected}: ${CHECK_URL}; if the page is a sign-in page, give the server its credentials under "headers" there${bearerExample(settings)}`;
};

/**
 * What follows "refused …" for a 401 or 403, to its end, for every transport: a challenge's OAuth
 * sign-in or missing scope, or else the start of the body (`body`, from readBodySnippet) and that
 * the token sent (in the `Authorization` header of `headers`, the request's own) was refused, or
 * else how to configure one. `settings` as for bearerExample.
 */
export const authRefusal = (status: number, challenge: string | null | undefined, headers: Record<string, string>, body: string, settings?: boolean): string => {
  const sent = new Headers(headers).has('authorization');
  // A token sent was refused: an OAuth sign-in is not the answer (a scope it lacks still is).
  const hint = sent && status === 401 ? undefined : authChallengeHint(status, challenge);
  // A token refused: also one elsewhere (the url) that the challenge calls invalid. The manager
  // forgets the inputs a refused connection used (forgetInput): the wording says so, but in
  // settings, which have no inputs.
  const advice =
    sent || invalidToken(challenge)
      ? `The token${sent ? ' sent in its "Authorization" header' : ''} was refused: check it${settings ? '' : ' (a saved ${input:…} value is asked again on the next connect)'}`
      : `If it needs a token, add it under "headers" in its configuration${bearerExample(settings)}`;
  // A bare "Unauthorized" (ws's, Express's sendStatus) repeats the status line.
  return hint ? `: ${hint}${bearerExample(settings)}.` : `${body && !/^(unauthorized|forbidden)$/i.test(body) ? `: "${body}"` : ''}. ${advice}.`;
};

/**
 * A 407: the editor sends requests through the user's proxy (it patches node:http and https) and
 * hands a proxy's 407 to us as the server's answer, for a forwarded request or a refused CONNECT.
 * The editor sends the credentials of an `http.proxy` url, not `http.proxyAuthorization`
 * (code-server 4.139.1).
 */
export const PROXY_AUTH = 'the proxy between the editor and the server asks for credentials (HTTP 407): put them in the editor\'s "http.proxy" setting, as http://user:password@host:port';

/** Releases a body that is not read, so its connection is not left half-read; never rejects. */
export const discardBody = (response: Response): Promise<void> | undefined => response.body?.cancel().catch(noop);

const statusLine = (response: Response): string => `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;

/**
 * The error for an answer that is not 2xx. 401/403 quote the start of the body and say that the
 * token sent (in the `Authorization` header of `headers`, the request's own) was refused, or else
 * how to configure one (`settings` as for bearerExample); a challenge's OAuth sign-in or missing
 * scope is said instead. A redirect that reaches here (one to another origin, which credentials
 * must not follow; see transportFetch) tells which URL to configure; a 404 at the configured url
 * says to check it; anything else shows the status and the start of the body. `configured` is false for a url the server named.
 */
export const httpStatusError = async (serverName: string, url: string, response: Response, headers: Record<string, string>, configured = true, settings?: boolean): Promise<TransportHttpError> => {
  const status = response.status;
  if (status === 407) {
    await discardBody(response);
    return new TransportHttpError(`Could not reach server "${serverName}" at ${url}: ${PROXY_AUTH}`, status);
  }
  if (status === 401 || status === 403) {
    const why = authRefusal(status, response.headers.get('www-authenticate'), headers, await readBodySnippet(response), settings);
    return new TransportHttpError(`${serverNamed(serverName)} refused the request (${statusLine(response)})${why}`, status);
  }
  if (status >= 300 && status < 400) {
    await discardBody(response);
    const target = redirectTarget(response.headers.get('location'), url);
    return new TransportHttpError(
      `${serverNamed(serverName)} redirected the request${target} (${statusLine(response)}); it was not followed: put the final URL in its configuration.`,
      status,
    );
  }
  const body = await readBodySnippet(response);
  const hint = status === 404 && configured ? ` (${CHECK_URL})` : '';
  // A body that only repeats the status ("Not Found", nginx's "502 Bad Gateway", Go's "404 page
  // not found", FastAPI's {"detail":"Not Found"}, Tomcat's "HTTP Status 404 – Not Found") is not said twice.
  // Letters of any script count: a body in Russian is not "nothing but the status" of an empty reason phrase.
  const bare = (t: string) => t.toLowerCase().replace(/\b(\d+|http|status|page|detail|error|message)\b|[^\p{L}\p{N}]/gu, '');
  return new TransportHttpError(`${serverNamed(serverName)} answered ${statusLine(response)} at ${url}${hint}${body && bare(body) !== bare(response.statusText) ? `: ${body}` : ''}`, status);
};

/** Where a redirect leads, in words; a `Location` that is no URL is said to be invalid, not thrown. */
const redirectTarget = (location: string | null, url: string): string => {
  if (!location) return '';
  let target: URL;
  try {
    target = new URL(location, url);
  } catch {
    // Not the URL error: it carries the configured URL, which may hold a token.
    return ' to an invalid location';
  }
  // A relative location inherits the configured URL's credentials: they are not shown.
  target.username = '';
  target.password = '';
  return ` to ${target.href}`;
};

/**
 * Node's codes for a certificate whose issuer is not trusted here: a self-signed one, a company's,
 * a TLS-inspecting proxy's. The editor adds the system's trusted certificates to Node's
 * (`http.systemCertificates`), and Node reads NODE_EXTRA_CA_CERTS at its start.
 */
const UNTRUSTED = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|UNABLE_TO_VERIFY_LEAF_SIGNATURE)$/;

/**
 * The origins that answered over HTTP or WebSocket in this session, whichever transport asked: a
 * reset there later is a server gone (restarting, a port-forward whose server stopped), not one
 * that expects TLS, though the new connection (a reconnect) has had no answer yet. Kept by
 * {@link originOf}: a WebSocket's host and port answer HTTP too (its upgrade is a request).
 */
export const answeredOrigins = new Set<string>();

/** The origin of `url` with ws: and wss: read as http: and https:, for {@link answeredOrigins}. */
export const originOf = (url: string | URL): string => new URL(String(url).replace(/^ws/i, 'http')).origin;

/** For each of Node's error codes a user can do something about: what happened, and what to do. */
const RUNNING = 'is the server running?';
const CLOSED_UNANSWERED = 'the connection closed before any answer';
const HINTS = new Map([
  ['ECONNREFUSED', ['connection refused', RUNNING]],
  // A reset where a server answered before (a proxy or port-forward whose server is gone, a server that crashed): see PLAIN.
  ['RESET', [CLOSED_UNANSWERED, RUNNING]],
  ['ENOTFOUND', ['its host name was not found', CHECK_URL]],
  ['EAI_AGAIN', ['its host name could not be resolved right now', 'check the network connection']],
  [
    'UNTRUSTED',
    ['its TLS certificate is not trusted', "if it is self-signed or your organization's, add its certificate authority to the system's trusted certificates, or name its file in NODE_EXTRA_CA_CERTS and restart the editor"],
  ],
  ['CERT_HAS_EXPIRED', ['its TLS certificate has expired', "check the server's certificate, and this computer's date and time"]],
  ['ERR_TLS_CERT_ALTNAME_INVALID', ['its TLS certificate is for another host name', 'check that the host name in "url" is one the certificate names']],
  // OpenSSL's words ("wrong version number") for an answer that is no TLS: plain HTTP, most likely.
  ['EPROTO', ['the TLS handshake failed', 'if the server speaks plain HTTP, use http:// (or ws://) in "url"']],
  // The other way round: a TLS server closes a plain HTTP request unanswered (Node: "socket hang up").
  ['PLAIN', [CLOSED_UNANSWERED, 'if the server expects TLS, use https:// (or wss://) in "url"']],
]);

/**
 * What to do about a connection to `url` that failed with Node's error `code` (or the editor's
 * `message`), for the causes a user can fix: "what happened (CODE): what to do". The editor's
 * proxy support says "Failed to establish a socket connection to proxies: PROXY host:port" (no
 * code) when the proxy it was given does not answer.
 */
export const unreachableHint = (code: unknown, message: unknown, url: string): string | undefined => {
  if (isString(message) && message.includes('to proxies:')) return `${message}: check the editor's "http.proxy" setting, and that the proxy (or VPN) is up`;
  if (!isString(code)) return undefined;
  const reset = code === 'ECONNRESET' && (answeredOrigins.has(originOf(url)) ? 'RESET' : /^(http|ws):/i.test(url) && 'PLAIN');
  const hint = HINTS.get(UNTRUSTED.test(code) ? 'UNTRUSTED' : reset || code);
  return hint && `${hint[0]} (${code}): ${hint[1]}`;
};

/** The error for a request that got no answer at all (refused, unreachable, DNS, TLS...). */
export const networkError = (serverName: string, url: string, err: unknown): TransportHttpError => {
  const cause = (err as { cause?: unknown } | undefined)?.cause as { code?: unknown; message?: unknown; errors?: Array<{ code?: unknown }> } | undefined;
  const code = isString(cause?.code) ? cause.code : isString(cause?.errors?.[0]?.code) ? cause.errors[0].code : undefined;
  const detail =
    unreachableHint(code, cause?.message, url) ??
    (isString(cause?.message) && cause.message
      ? `${cause.message}${code && !cause.message.includes(code) ? ` (${code})` : ''}`
      : err instanceof Error
        ? err.message
        : String(err));
  return new TransportHttpError(`Could not reach server "${serverName}" at ${url}: ${detail}`);
};

/** Checks a remote server's url and headers before any request; throws what is wrong, in words. */
export const checkHttpConfig = (serverName: string, rawUrl: string, headers: Record<string, string>): URL => {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new TransportHttpError(`${serverNamed(serverName)} has an invalid url: ${rawUrl}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new TransportHttpError(`${serverNamed(serverName)} has url ${rawUrl}, which is not http: or https:`);
  }
  for (const [name, value] of entriesOf(headers)) {
    try {
      new Headers([[name, value]]);
    } catch {
      // Not the fetch error: it quotes the value, which is often a token.
      throw new TransportHttpError(
        `${serverNamed(serverName)} has invalid "headers" in its configuration: header "${name}" has an invalid name or value (values may not contain control characters such as line breaks; the value is not shown, it may be a secret).`,
      );
    }
  }
  return url;
};
