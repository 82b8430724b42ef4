import * as http from 'node:http';
import * as https from 'node:https';
import { pipeline, Readable } from 'node:stream';
import * as zlib from 'node:zlib';
import type { Logger } from '../util/log';
import { redactHeaders } from '../util/log';
import { stringify } from '../util/json';
import { entriesOf, fromEntries, isArray } from '../util/builtins';
import { noop } from '../util/promise';
import { anySignal } from '../util/abort';
import { answeredOrigins, originOf } from './sseStream';

/** What `nodeFetch` takes of `fetch`'s options (so `fetch` itself can stand in for it in tests). */
export interface NodeFetchInit {
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Headers;
  body?: string;
  signal: AbortSignal;
  /** Redirects are never followed (fetch is told the same when it stands in). */
  redirect?: 'manual';
  /** How long the answer's status and headers may take (ms); no limit when left out. The body never has one. */
  headersTimeoutMs?: number;
}

/**
 * After this long without traffic, a request's socket is probed (TCP keep-alive). Node's own
 * agent turns keep-alive on too, but an agent put in its place (the editor's proxy support, a
 * user's) may not.
 */
export const KEEPALIVE_MS = 10_000;

/**
 * How long a GET stream may take to start: a server that took the connection and never answers
 * (it hung, and is back) is asked again after that. The spec has a server answer the GET at once
 * (an event stream, primed with an event id, or 405); fetch waited 300 s, so messages of a server
 * back from a hang were not heard for up to 5 minutes.
 */
export const STREAM_HEADERS_TIMEOUT_MS = 60_000;

/**
 * A request of an HTTP transport: its configured `headers` with `extra` set over them (those left
 * undefined are not sent), traced (method, url and headers, those that may carry secrets
 * redacted; then the answer's status and content type). A redirect is followed only within the
 * url's origin (as the SDK's client does: `/mcp` to `/mcp/`), at most 5 in a row, and for a POST
 * only one that keeps the method (307, 308): configured headers (tokens) must not travel to
 * another origin; any other redirect is answered as it came. Resolves to the answer and the url
 * that gave it (the last redirect's, as fetch's `response.url`): a relative URL in the answer is
 * relative to that one.
 */
export const transportFetch = async (
  log: Logger,
  method: 'GET' | 'POST' | 'DELETE',
  url: string | URL,
  headers: Record<string, string>,
  extra: Record<string, string | undefined>,
  init: Pick<NodeFetchInit, 'body' | 'signal' | 'headersTimeoutMs'>,
  hops = 0,
): Promise<{ response: Response; url: URL }> => {
  const all = new Headers(headers);
  for (const [k, v] of entriesOf(extra)) if (v !== undefined) all.set(k, v);
  if (log.traceEnabled !== false) log.trace(`${method} ${url} ${stringify(redactHeaders(fromEntries(all.entries())))}`);
  const response = await nodeFetch(url, { ...init, method, headers: all, redirect: 'manual' });
  const from = new URL(url);
  answeredOrigins.add(originOf(from));
  const { status } = response;
  if (log.traceEnabled !== false) log.trace(`${method} → ${status} ${response.headers.get('content-type') ?? ''}`);
  const location = response.headers.get('location');
  if (location && hops < 5 && (status === 307 || status === 308 || (method === 'GET' && status > 300 && status < 304))) {
    let to: URL | undefined;
    try {
      to = new URL(location, from);
    } catch {
      // Told as the redirect it is (httpStatusError).
    }
    if (to && to.origin === from.origin && to.username === from.username && to.password === from.password) {
      await response.body?.cancel().catch(noop);
      return transportFetch(log, method, to, headers, extra, init, hops + 1);
    }
  }
  return { response, url: from };
};

/**
 * An HTTP request answered as `fetch` answers, but sent with node:http(s). Node's `fetch`
 * (undici, and the agent the editor installs in its place for proxy support) fails a request
 * whose answer does not start within 300 s (headersTimeout) and a body that sends nothing for
 * 300 s (bodyTimeout): that would cut a slow JSON answer, a quiet answer stream, an idle legacy
 * SSE session or the Streamable HTTP GET stream, whatever the request timeout the user set.
 * node:http has no such timeouts (the caller's signal is the only limit), and the editor routes
 * it through the user's proxy too. Redirects are not followed, as with `redirect: 'manual'`
 * (transportFetch follows those within the origin).
 * Network errors reject as fetch's do (a TypeError whose `cause` carries the code), and so does
 * a server that does not answer within `headersTimeoutMs` when one is given. A body the server
 * compresses unasked (no Accept-Encoding is sent) is decompressed, as fetch would.
 */
export const nodeFetch = (url: string | URL, init: NodeFetchInit): Promise<Response> => {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    init.headers.forEach((value, name) => (headers[name] = value));
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    // A signal of its own per request (AbortSignal.any holds no listener on the caller's): node:http
    // listens to it until the request ends, and a dozen requests waiting on a transport's long-lived
    // signal would warn of a leak (MaxListenersExceededWarning).
    const signal = init.signal && anySignal([init.signal]);
    const req = (target.protocol === 'https:' ? https : http).request(target, { method: init.method ?? 'GET', headers, signal }, (res) => {
      clearTimeout(timer);
      try {
        const answered = new Headers();
        for (const [name, value] of entriesOf(res.headers)) for (const v of isArray(value) ? value : value === undefined ? [] : [value]) answered.append(name, v);
        const status = res.statusCode ?? 0;
        // No body to read: drained, so a kept-alive socket goes back to the pool.
        const bodyless = status === 204 || status === 205 || status === 304 || res.headers['content-length'] === '0';
        if (bodyless) res.resume();
        resolve(new Response(bodyless ? null : Readable.toWeb(decoded(res)) as ReadableStream<Uint8Array>, { status, statusText: res.statusMessage, headers: answered }));
      } catch (err) {
        // A status fetch cannot carry (under 200, over 599), or a header it refuses.
        res.destroy();
        reject(new TypeError('fetch failed', { cause: err }));
      }
    });
    const limit = init.headersTimeoutMs;
    const timer =
      limit === undefined
        ? undefined
        : setTimeout(() => {
            const err = Object.assign(new Error(`no answer within ${limit / 1000} s`), { code: 'UND_ERR_HEADERS_TIMEOUT' });
            req.destroy(err);
          }, limit);
    timer?.unref?.();
    // No timeout cuts a slow answer, so a peer that vanished (sleep, a network change) must be
    // found some other way: TCP keep-alive probes a quiet socket, and a dead one errors.
    req.on('socket', (socket) => socket.setKeepAlive(true, KEEPALIVE_MS));
    req.on('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      // A kept-alive connection the server closed (its idle timeout) as this request went out on
      // it: nothing was answered (an answer begun errors on its body, not here), so the request
      // goes again on a new connection, as browsers and curl do.
      if (req.reusedSocket && err.code === 'ECONNRESET') resolve(nodeFetch(url, init));
      else reject(init.signal.aborted ? init.signal.reason : new TypeError('fetch failed', { cause: err }));
    });
    req.end(init.body);
  });
};

/** The body of `res` without its content coding (gzip, deflate, br), as fetch hands it. */
const decoded = (res: http.IncomingMessage): Readable => {
  const coding = res.headers['content-encoding']?.trim().toLowerCase();
  const sync = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const decoder =
    coding === 'gzip' || coding === 'x-gzip'
      ? zlib.createGunzip(sync)
      : coding === 'deflate'
        ? zlib.createInflate(sync)
        : coding === 'br'
          ? zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH })
          : undefined;
  if (!decoder) return res;
  // An error on either side (a cut connection, a corrupt body) ends the other with it.
  return pipeline(res, decoder, noop);
};
