import * as http from 'node:http';
import * as https from 'node:https';
import { Readable } from 'node:stream';

/** What `streamingGet` takes of `fetch`'s options. */
export interface StreamingGetInit {
  headers: Headers;
  signal: AbortSignal;
  /** How long the answer's status and headers may take (default 300 s, as fetch's). The body has no limit. */
  headersTimeoutMs?: number;
}

/**
 * A GET for event streams that may stay silent for a long time, answered as `fetch` answers, but
 * sent with node:http. Node's `fetch` (undici, and the agent the editor installs in its place for
 * proxy support) ends a body that sends nothing for 300 s: that would end an idle legacy SSE
 * session, or cut a quiet GET stream. node:http has no such timeout, and the editor routes it
 * through the user's proxy too. Redirects are not followed, as with `redirect: 'manual'`.
 * Network errors reject as fetch's do (a TypeError whose `cause` carries the code), and so does
 * a server that accepts the connection but never answers.
 */
export function streamingGet(url: string | URL, init: StreamingGetInit): Promise<Response> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers: Record<string, string> = {};
    init.headers.forEach((value, name) => (headers[name] = value));
    const req = (target.protocol === 'https:' ? https : http).request(target, { method: 'GET', headers, signal: init.signal }, (res) => {
      clearTimeout(timer);
      try {
        const answered = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) answered.append(name, v);
        const status = res.statusCode ?? 0;
        const bodyless = status === 204 || status === 205 || status === 304;
        if (bodyless) res.resume();
        resolve(new Response(bodyless ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>), { status, statusText: res.statusMessage, headers: answered }));
      } catch (err) {
        // A status fetch cannot carry (under 200, over 599), or a header it refuses.
        res.destroy();
        reject(new TypeError('fetch failed', { cause: err }));
      }
    });
    const limit = init.headersTimeoutMs ?? 300_000;
    const timer = setTimeout(() => {
      const err = Object.assign(new Error(`no answer within ${limit / 1000} s`), { code: 'UND_ERR_HEADERS_TIMEOUT' });
      req.destroy(err);
    }, limit);
    timer.unref?.();
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(init.signal.aborted ? init.signal.reason : new TypeError('fetch failed', { cause: err }));
    });
    req.end();
  });
}
