// The handshake against a scripted peer: what a server may do between `initialize` and
// `notifications/initialized` that the real peers never do.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { McpSession } from '../../../src/core/protocol/session';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { MemoryLogger, waitFor } from '../helpers/logger';

const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'scripted', version: '1' } };

describe('McpSession handshake', () => {
  it('a connection that closes right after initialize (before notifications/initialized) is a failed handshake, and a late onClose listener still hears of it', async () => {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    theirs.onmessage = (m) => {
      const msg = m as { id?: number; method?: string };
      if (msg.method === 'initialize') void theirs.send({ jsonrpc: '2.0', id: msg.id!, result: INIT_RESULT });
      // A Streamable HTTP server that forgot the session it just made answers 404 here.
      if (msg.method === 'notifications/initialized') void theirs.close();
    };
    const session = new McpSession(ours, { logger: new MemoryLogger(), clientInfo: { name: 'test', version: '0' } });
    await assert.rejects(session.connect(), /^Error: The connection closed during the handshake: the other side closed$/);
    assert.equal(session.isClosed, true);
    const heard: string[] = [];
    session.onClose((info) => heard.push(info.reason));
    await waitFor(() => heard.length === 1, 'the late listener called');
    assert.deepEqual(heard, ['the other side closed']);
  });

  it('a listener added after the close and disposed at once is not called', async () => {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    const session = new McpSession(ours, { logger: new MemoryLogger(), clientInfo: { name: 'test', version: '0' } });
    await theirs.close();
    let called = false;
    session.onClose(() => (called = true)).dispose();
    await new Promise((r) => setImmediate(r));
    assert.equal(called, false);
  });

  /** A connected session whose peer answers tools/list pages by hand (`pages` waits to be released). */
  async function withToolsPeer() {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    const lists: Array<{ id: number; cursor?: string }> = [];
    theirs.onmessage = (m) => {
      const msg = m as { id?: number; method?: string; params?: { cursor?: string } };
      if (msg.method === 'initialize') void theirs.send({ jsonrpc: '2.0', id: msg.id!, result: { ...INIT_RESULT, capabilities: { tools: { listChanged: true } } } });
      if (msg.method === 'tools/list') lists.push({ id: msg.id!, cursor: msg.params?.cursor });
    };
    const session = new McpSession(ours, { logger: new MemoryLogger(), clientInfo: { name: 'test', version: '0' } });
    await session.connect();
    const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });
    const answer = (i: number, names: string[], nextCursor?: string) => theirs.send({ jsonrpc: '2.0', id: lists[i].id, result: { tools: names.map(tool), ...(nextCursor && { nextCursor }) } });
    return { session, theirs, lists, answer };
  }

  it('listTools: one caller\'s abort ends only that caller\'s wait; the others get the list', async () => {
    const { session, lists, answer } = await withToolsPeer();
    const a = new AbortController();
    const first = session.listTools({ signal: a.signal });
    const second = session.listTools();
    await waitFor(() => lists.length === 1, 'one shared tools/list');
    a.abort(new Error('the user closed the picker'));
    await assert.rejects(first, /the user closed the picker/);
    await answer(0, ['a', 'b']);
    assert.deepEqual((await second).map((t) => t.name), ['a', 'b']);
    await session.close();
  });

  it('listTools: a page with nextCursor null (some servers send it on the last page) ends the list, as no nextCursor does', async () => {
    const { session, theirs, lists } = await withToolsPeer();
    const listing = session.listTools();
    await waitFor(() => lists.length === 1, 'page 1');
    await theirs.send({ jsonrpc: '2.0', id: lists[0].id, result: { tools: [{ name: 'only', inputSchema: { type: 'object' } }], nextCursor: null } });
    assert.deepEqual((await listing).map((t) => t.name), ['only']);
    assert.equal(lists.length, 1);
    await session.close();
  });

  /** A session whose server lists `perPage` tools a page, the last page being the one `last(page)` says (none: endless). */
  const pagedTools = async (perPage: number, last: (page: number) => boolean = () => false) => {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    let pages = 0;
    theirs.onmessage = (m) => {
      const msg = m as { id?: number; method?: string };
      if (msg.method === 'initialize') void theirs.send({ jsonrpc: '2.0', id: msg.id!, result: { ...INIT_RESULT, capabilities: { tools: {} } } });
      if (msg.method !== 'tools/list') return;
      const page = pages++;
      const tools = Array.from({ length: perPage }, (_, i) => ({ name: `t${page}-${i}`, inputSchema: { type: 'object' } }));
      void theirs.send({ jsonrpc: '2.0', id: msg.id!, result: { tools, nextCursor: last(page) ? null : `c${page}` } });
    };
    const log = new MemoryLogger();
    const session = new McpSession(ours, { logger: log, clientInfo: { name: 'test', version: '0' } });
    await session.connect();
    return { session, log, pages: () => pages };
  };

  it('listTools: a server that lists endless pages of tools (a page of 16 MB holds some 370,000, 40 MB once read, and 100 pages of them would fill the memory of the extension host) is read for 10,000 tools at most, and the log says the rest are left out', async () => {
    const { session, log, pages } = await pagedTools(3_000);
    const tools = await session.listTools();
    assert.equal(tools.length, 10_000);
    assert.equal(pages(), 4, 'no page after the limit');
    assert.ok(log.has('error', /^tools\/list: stopped after 10,000 tools, the limit; later ones are left out$/), log.text());
    await session.close();
  });

  it('listTools: a list of exactly 10,000 tools is read whole, and the log says nothing is left out (nothing is)', async () => {
    const { session, log } = await pagedTools(2_500, (page) => page === 3);
    assert.equal((await session.listTools()).length, 10_000);
    assert.deepEqual(log.lines.filter((l) => l.level === 'error').map((l) => l.message), []);
    await session.close();
  });

  it('listTools: a list_changed while the pages are fetched is not lost: that list is not cached, the next call fetches anew', async () => {
    const { session, theirs, lists, answer } = await withToolsPeer();
    const paging = session.listTools();
    await waitFor(() => lists.length === 1, 'page 1');
    await answer(0, ['old'], 'p2');
    await waitFor(() => lists.length === 2, 'page 2');
    await theirs.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    await answer(1, ['old2']);
    assert.deepEqual((await paging).map((t) => t.name), ['old', 'old2']);
    const fresh = session.listTools();
    await waitFor(() => lists.length === 3, 'a new tools/list');
    await answer(2, ['new']);
    assert.deepEqual((await fresh).map((t) => t.name), ['new']);
    await session.close();
  });

  /** A session initialized with a server that answers initialize only; `theirs` is that server's end. */
  async function initialized() {
    const [ours, theirs] = InMemoryTransport.createLinkedPair();
    theirs.onmessage = (m) => {
      const msg = m as { id?: number; method?: string };
      if (msg.method === 'initialize') void theirs.send({ jsonrpc: '2.0', id: msg.id!, result: INIT_RESULT });
    };
    const log = new MemoryLogger();
    const session = new McpSession(ours, { logger: log, clientInfo: { name: 'test', version: '0' } });
    await session.connect();
    return { theirs, log, session };
  }

  it('a server log message with a level named like an Object property (constructor) is logged at info', async () => {
    const { theirs, log, session } = await initialized();
    await theirs.send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'constructor', data: 'hello' } });
    await waitFor(() => log.has('info', /server log: hello/), 'the log line');
    assert.ok(!log.has('error', /failed/), log.text());
    await session.close();
  });

  it('a server log message whose data is nested 20,000 deep (JSON.parse reads it; JSON.stringify overflows) is logged, its depths cut, not lost to "Maximum call stack size exceeded" (found by the fuzzer)', async () => {
    const { theirs, log, session } = await initialized();
    const depth = 20_000;
    theirs.injectToPeer(JSON.parse(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":${'['.repeat(depth)}${']'.repeat(depth)}}}`));
    const said = () => log.lines.filter((l) => l.level !== 'trace').map((l) => `${l.level}: ${l.message.slice(0, 200)}`);
    await waitFor(() => said().some((l) => /server log|notifications\/message/.test(l)), 'the log line');
    assert.deepEqual(said().slice(1), [`warn: server log: ${'['.repeat(64)}"<nested too deeply to show>"${']'.repeat(64)}`]);
    await session.close();
  });
  it('initialize waits at least 60 s (a server started through npx), and longer when the request timeout is raised: the timeout warning names that setting', async () => {
    const clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      let seconds = 10;
      // A peer that never answers.
      const connect = () => new McpSession(InMemoryTransport.createLinkedPair()[0], { logger: new MemoryLogger(), clientInfo: { name: 'test', version: '0' }, requestTimeoutMs: () => seconds * 1000, serverName: 'slow' }).connect();
      const failed = (p: Promise<unknown>) => p.then(() => 'answered', (err: Error) => err.message);
      const short = failed(connect());
      await clock.tickAsync(60_000);
      assert.equal(await short, 'Server "slow" did not answer initialize within 60 s', 'never less than 60 s');
      seconds = 300;
      let settled: string | undefined;
      void failed(connect()).then((m) => (settled = m));
      await clock.tickAsync(299_000);
      assert.equal(settled, undefined, 'the raised setting is waited for');
      await clock.tickAsync(1_000);
      assert.equal(settled, 'Server "slow" did not answer initialize within 300 s');
    } finally {
      clock.uninstall();
    }
  });
});
