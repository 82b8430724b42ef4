import * as assert from 'node:assert/strict';
import { answeredOrigins, MAX_MESSAGE_CHARS, networkError, originOf, readSseStream, unreachableHint } from '../../../src/core/transports/sseStream';
import { unnamedReason } from '../../../src/core/transports/transport';

/** A body that arrives in these chunks, then ends. */
const bodyOf = (chunks: string[]): ReadableStream<Uint8Array> => {
  const bytes = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(bytes.encode(c));
      controller.close();
    },
  });
};

/** The last event ids readSseStream reports for a body arriving in these chunks, and the data of its events. */
async function read(...chunks: string[]): Promise<{ ids: string[]; data: string[] }> {
  const ids: string[] = [];
  const data: string[] = [];
  await readSseStream(bodyOf(chunks), { onEvent: (e) => data.push(e.data), onId: (id) => ids.push(id) });
  return { ids, data };
}

describe('readSseStream: the last event id (SSE standard)', () => {
  it('is set by an event without data (a priming event), whatever the line breaks and chunk boundaries', async () => {
    assert.deepEqual(await read('id: 42\nretry: 50\n\n'), { ids: ['42'], data: [] });
    assert.deepEqual(await read('i', 'd: 4', '2\r', '\n\r', '\n'), { ids: ['42'], data: [] });
    assert.deepEqual(await read('id:7\r\rid:8\n\n'), { ids: ['7', '8'], data: [] });
  });

  it('is kept by events without an id field, reset by an empty one, and not taken from an unfinished event or a field that only starts with "id"', async () => {
    const { ids, data } = await read('id: 1\ndata: a\n\ndata: b\n\nid\n\nidx: 2\n\n: id: 3\n\nid: 4\n');
    assert.deepEqual(ids, ['1', '1', '', '', '']);
    assert.deepEqual(data, ['a', 'b']);
  });
});

describe('readSseStream: characters split between chunks', () => {
  it('joins a UTF-8 character whose bytes arrive in two or more chunks, in data and in an id, and drops a byte order mark', async () => {
    const data: string[] = [];
    const ids: string[] = [];
    const bytes = new TextEncoder().encode('\uFEFFid: \u00e9\ndata: caf\u00e9 \u{1F642} \u65e5\n\n');
    // Cut inside the byte order mark, the id's é (2 bytes), the data's é, the emoji (4 bytes, cut twice) and 日 (3 bytes).
    const cuts = [0, 2, 8, 20, 23, 25, 28, bytes.length];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 1; i < cuts.length; i++) controller.enqueue(bytes.slice(cuts[i - 1], cuts[i]));
        controller.close();
      },
    });
    await readSseStream(body, { onEvent: (e) => data.push(e.data), onId: (id) => ids.push(id) });
    assert.deepEqual(data, ['caf\u00e9 \u{1F642} \u65e5']);
    assert.deepEqual(ids, ['\u00e9']);
  });
});

describe('readSseStream: the size of an event', () => {
  /** The data of the events read before the stream was refused, and why it was. */
  const refused = async (...chunks: string[]): Promise<[string[], string]> => {
    const data: string[] = [];
    const why = await readSseStream(bodyOf(chunks), { onEvent: (e) => data.push(e.data.slice(0, 10)) }).then(
      () => 'not refused',
      (err: Error) => err.message,
    );
    return [data, why];
  };
  const over = `an event longer than ${MAX_MESSAGE_CHARS} characters (not read further)`;

  it('refuses an event past the limit however it arrives, also when its last chunk completes it (each chunk alone within the limit) or one chunk holds it whole, delivering nothing of it or after it', async () => {
    const line = `data: ${'a'.repeat(MAX_MESSAGE_CHARS - 6)}\n`;
    // The first line within the limit, the second takes the data past it and ends the event in the same chunk.
    assert.deepEqual(await refused('data: 1\n\n', line, 'data: bbbbbbbbbb\n\ndata: 2\n\n'), [['1'], over]);
    assert.deepEqual(await refused(`data: ${'a'.repeat(MAX_MESSAGE_CHARS + 1)}\n\ndata: 2\n\n`), [[], over]);
    // What the limit lets in: an event of exactly that many characters, in one chunk or two.
    assert.deepEqual(await refused(`data: ${'a'.repeat(MAX_MESSAGE_CHARS)}\n\n`, 'data: 2\n\n'), [['aaaaaaaaaa', '2'], 'not refused']);
    assert.deepEqual(await refused(line, 'data: bbbbb\n\n'), [['aaaaaaaaaa'], 'not refused']);
    // A chunk that ends inside a line of it (the field's name and a CR buffered with it), its first or last.
    assert.deepEqual(await refused(line + 'data: bbb', 'bb\n\n'), [['aaaaaaaaaa'], 'not refused']);
    assert.deepEqual(await refused(`data: ${'a'.repeat(MAX_MESSAGE_CHARS)}\r`, '\n\r\n'), [['aaaaaaaaaa'], 'not refused']);
  });
});

describe('networkError: why a remote server could not be reached, and what to do', () => {
  /** A failed request as nodeFetch rejects it (fetch's shape): a TypeError whose cause is Node's error. */
  const failed = (code: string, message: string) => new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });

  it('a host name that is not found (a typo in the url) says so and to check the url, one not resolved right now (offline) to check the network, as a refused connection asks whether the server runs', () => {
    assert.equal(
      networkError('s', 'http://nonexistent.invalid/mcp', failed('ENOTFOUND', 'getaddrinfo ENOTFOUND nonexistent.invalid')).message,
      'Could not reach server "s" at http://nonexistent.invalid/mcp: its host name was not found (ENOTFOUND): check "url" in its configuration',
    );
    assert.equal(
      networkError('s', 'http://127.0.0.1:1/mcp', failed('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:1')).message,
      'Could not reach server "s" at http://127.0.0.1:1/mcp: connection refused (ECONNREFUSED): is the server running?',
    );
    // Offline, or DNS down for a moment: the name is fine, the network is not.
    assert.equal(
      networkError('s', 'http://mcp.example.com/mcp', failed('EAI_AGAIN', 'getaddrinfo EAI_AGAIN mcp.example.com')).message,
      'Could not reach server "s" at http://mcp.example.com/mcp: its host name could not be resolved right now (EAI_AGAIN): check the network connection',
    );
    // A reset with TLS in use says nothing more: a hint that the server expects https:// is for http:// alone (tls.test.ts).
    assert.equal(networkError('s', 'https://h/mcp', failed('ECONNRESET', 'socket hang up')).message, 'Could not reach server "s" at https://h/mcp: socket hang up (ECONNRESET)');
  });

  it('a proxy that does not answer, in the editor\'s words (its proxy agent, @vscode/proxy-agent 0.45.0, which gives no code), says to check "http.proxy" and the proxy or VPN, over HTTP and WebSocket', () => {
    // The mapping only: the editor's proxy agent cannot be loaded in plain Node. Seen in code-server with "http.proxy" at a closed port.
    const said = 'Failed to establish a socket connection to proxies: PROXY 127.0.0.1:47399';
    const hint = `${said}: check the editor's "http.proxy" setting, and that the proxy (or VPN) is up`;
    assert.equal(networkError('s', 'http://mcp.example.com/mcp', new TypeError('fetch failed', { cause: new Error(said) })).message, `Could not reach server "s" at http://mcp.example.com/mcp: ${hint}`);
    // The WebSocket transport hands ws's error, the agent's own, with its code if any.
    assert.equal(unreachableHint(undefined, said, 'ws://mcp.example.com/ws'), hint);
  });
});

describe('answeredOrigins: each test a new session (the root hook in .mocharc.json)', () => {
  const url = 'http://127.0.0.1:9/mcp';
  // As a server of an earlier test would (run before the root hook's beforeEach), so that each test holds alone (mocha -g).
  before(() => answeredOrigins.add(originOf(url)));

  it('a reset where a server answered in this test asks whether the server runs', () => {
    answeredOrigins.add(originOf(url));
    assert.equal(unreachableHint('ECONNRESET', 'socket hang up', url), 'the connection closed before any answer (ECONNRESET): is the server running?');
  });

  it('a test has no answer from before it (an earlier test\'s server on that port): a reset there asks whether the server expects TLS (tls.test.ts), not whether it runs', () => {
    assert.equal(unreachableHint('ECONNRESET', 'socket hang up', url), 'the connection closed before any answer (ECONNRESET): if the server expects TLS, use https:// (or wss://) in "url"');
  });
});

describe('unnamedReason', () => {
  it('takes the server out of each transport\'s reason for words that name it already, keeping the url, and leaves another reason as it is', () => {
    const url = 'http://127.0.0.1:4000/mcp';
    const cases: Array<[string, [string | undefined, string]]> = [
      [`Could not reach server "s" at ${url}: connection refused (ECONNREFUSED): is the server running?`, [url, 'connection refused (ECONNREFUSED): is the server running?']],
      ['Could not connect to server "s" at ws://[::1]:4000/: connection refused (ECONNREFUSED)', ['ws://[::1]:4000/', 'connection refused (ECONNREFUSED)']],
      ['server "s" at ws://h:1/ws refused the WebSocket connection with HTTP 403 Forbidden', ['ws://h:1/ws', 'it refused the WebSocket connection with HTTP 403 Forbidden']],
      [`Server "s" answered HTTP 404 Not Found at ${url} (check "url" in its configuration)`, [undefined, `it answered HTTP 404 Not Found at ${url} (check "url" in its configuration)`]],
      ['Server "s" refused the request (HTTP 401 Unauthorized)', [undefined, 'it refused the request (HTTP 401 Unauthorized)']],
      ['Server "other" refused the request (HTTP 401 Unauthorized)', [undefined, 'Server "other" refused the request (HTTP 401 Unauthorized)']],
      ['Could not start "npx": command not found', [undefined, 'Could not start "npx": command not found']],
    ];
    for (const [reason, told] of cases) {
      const { at, why } = unnamedReason(reason, 's');
      assert.deepEqual([at, why], told, reason);
    }
  });
});
