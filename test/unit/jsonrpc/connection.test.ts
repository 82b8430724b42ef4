import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import * as z from 'zod/mini';
import type { UndeliveredAnswer } from '../../../src/core/jsonrpc/connection';
import { JsonRpcConnection } from '../../../src/core/jsonrpc/connection';
import { detailOf, ErrorCode, reasonOf, RequestTimeoutError, RpcError } from '../../../src/core/jsonrpc/errors';
import { describeIssues } from '../../../src/core/jsonrpc/messages';
import { InMemoryTransport } from '../../../src/core/transports/inMemory';
import { TransportParseError } from '../../../src/core/transports/transport';
import { CallToolResultSchema } from '../../../src/core/protocol/schemas';
import { MemoryLogger, waitFor } from '../helpers/logger';

/** Our connection on one end; on the other, a raw peer whose messages the test reads and writes. */
function setup(options: { defaultTimeoutMs?: number | (() => number); maxConcurrentIncoming?: number; peer?: string } = {}) {
  const [ours, theirs] = InMemoryTransport.createLinkedPair();
  const log = new MemoryLogger();
  const conn = new JsonRpcConnection(ours, { logger: log, ...options });
  const received: Array<Record<string, unknown>> = [];
  theirs.onmessage = (m) => received.push(m as Record<string, unknown>);
  const send = (m: unknown) => theirs.send(m as object);
  return { conn, theirs, ours, received, send, log };
}

const Any = z.record(z.string(), z.unknown());

describe('JsonRpcConnection', () => {
  it('matches responses to requests by id, out of order', async () => {
    const { conn, received, send } = setup();
    await conn.start();
    const a = conn.request('a', undefined, Any);
    const b = conn.request('b', { x: 1 }, Any);
    await waitFor(() => received.length === 2, 'two requests');
    assert.deepEqual(received[1], { jsonrpc: '2.0', id: 2, method: 'b', params: { x: 1 } });
    await send({ jsonrpc: '2.0', id: 2, result: { which: 'b' } });
    await send({ jsonrpc: '2.0', id: 1, result: { which: 'a' } });
    assert.deepEqual(await b, { which: 'b' });
    assert.deepEqual(await a, { which: 'a' });
  });

  it('rejects with an RpcError carrying code, message and data', async () => {
    const { conn, received, send } = setup();
    const p = conn.request('x', undefined, Any);
    await waitFor(() => received.length === 1, 'request');
    await send({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'bad', data: { why: 1 } } });
    await assert.rejects(p, (e: unknown) => e instanceof RpcError && e.code === -32602 && e.message === 'bad' && (e.data as { why: number }).why === 1);
  });

  it('a server error with an empty message is kept as sent, and told to the user as no reason given, with its code', async () => {
    const { conn, received, send } = setup();
    const p = conn.request('tasks/cancel', undefined, Any);
    await waitFor(() => received.length === 1, 'request');
    await send({ jsonrpc: '2.0', id: 1, error: { code: -32603, message: '' } });
    const err = await p.then(
      () => assert.fail('resolved'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof RpcError);
    assert.deepEqual(err.toJSON(), { code: -32603, message: '' });
    assert.equal(reasonOf(err), 'the server gave no reason (error -32603)');
    assert.equal(detailOf(err), 'the server gave no reason (error -32603)');
    // Only whitespace is no reason either.
    assert.equal(reasonOf(new RpcError(-32602, ' \n')), 'the server gave no reason (error -32602)');
    // An error with a message, or one of ours, is told as it is.
    assert.equal(reasonOf(new RpcError(-32602, 'bad')), 'bad');
    assert.equal(reasonOf(new RequestTimeoutError('x', 5)), 'Request x timed out after 5 ms without an answer');
  });

  it('rejects a result that fails its schema with a message naming the method and field', async () => {
    const { conn, received, send } = setup();
    const p = conn.request('tasks/get', undefined, z.object({ status: z.string() }));
    await waitFor(() => received.length === 1, 'request');
    await send({ jsonrpc: '2.0', id: 1, result: { status: 5 } });
    await assert.rejects(p, /Invalid result for tasks\/get from server: status: expected string/);
  });

  it('a malformed answer to a pending request fails that request at once (it has no timeout here), not never', async () => {
    const { conn, received, send, log } = setup();
    const answers = [
      { jsonrpc: '2.0', id: 1, result: null },
      { jsonrpc: '2.0', id: 2, result: 'done' },
      { jsonrpc: '2.0', id: 3, error: { code: 'E1', message: 'm' } },
      { jsonrpc: '2.0', id: 4, error: { code: -1 } },
      { jsonrpc: '2.0', id: 5, result: { ok: true }, error: { code: -1, message: 'both' } },
    ];
    const pending = answers.map((_, i) => conn.request(`m${i + 1}`, undefined, Any, { timeoutMs: Infinity }));
    await waitFor(() => received.length === answers.length, 'the requests');
    for (const a of answers) await send(a);
    const outcomes = await Promise.allSettled(pending);
    assert.deepEqual(
      outcomes.map((o) => (o.status === 'rejected' ? String((o.reason as Error).message).replace(/:.*$/s, '') : 'resolved')),
      ['Invalid result for m1 from server', 'Invalid result for m2 from server', 'Invalid result for m3 from server', 'Invalid result for m4 from server', 'Invalid result for m5 from server'],
    );
    assert.match(String((outcomes[4] as PromiseRejectedResult).reason.message), /a response with both result and error/);
    assert.ok(log.has('warn', /Ignored an invalid message from the server \(invalid response: result: /), log.text());
  });

  it('times out, tells the peer with notifications/cancelled, and ignores the late answer', async () => {
    const { conn, received, send, log } = setup({ defaultTimeoutMs: 30 });
    await assert.rejects(conn.request('slow', undefined, Any), /Request slow timed out after 30 ms/);
    await waitFor(() => received.length === 2, 'cancellation');
    assert.equal(received[1].method, 'notifications/cancelled');
    assert.deepEqual((received[1].params as Record<string, unknown>).requestId, 1);
    await send({ jsonrpc: '2.0', id: 1, result: {} });
    await waitFor(() => log.has('warn', /not pending/), 'log of the late response');
  });

  it('a request that times out names the server when the connection knows it (its message may reach the user far from the server), and keeps a detail without it for messages that name it', async () => {
    const { conn } = setup({ defaultTimeoutMs: 30, peer: 'demo' });
    const err = await conn.request('tasks/get', undefined, Any).catch((e: unknown) => e);
    assert.ok(err instanceof RequestTimeoutError, String(err));
    assert.equal(err.message, 'Server "demo" did not answer tasks/get within 0.03 s');
    assert.equal(err.code, ErrorCode.RequestTimeout);
    assert.equal(err.detail, 'Request tasks/get timed out after 30 ms without an answer');
    assert.equal(new RequestTimeoutError('tools/call', 1500, 'demo').message, 'Server "demo" did not answer tools/call within 1.5 s');
    assert.equal(new RequestTimeoutError('tools/call', 60_000).message, 'Request tools/call timed out after 60000 ms without an answer', 'a connection that knows no server says what it can');
  });

  it('a default timeout given as a function is read at each request (a changed setting applies at once)', async () => {
    let timeout = 30;
    const { conn } = setup({ defaultTimeoutMs: () => timeout });
    await assert.rejects(conn.request('slow', undefined, Any), /Request slow timed out after 30 ms/);
    timeout = 60;
    await assert.rejects(conn.request('slow', undefined, Any), /Request slow timed out after 60 ms/);
  });

  it('aborting a request rejects it and sends notifications/cancelled with the reason', async () => {
    const { conn, received } = setup();
    const ac = new AbortController();
    const p = conn.request('long', undefined, Any, { signal: ac.signal });
    ac.abort(new Error('user cancelled'));
    await assert.rejects(p, /user cancelled/);
    await waitFor(() => received.length === 2, 'cancellation');
    assert.deepEqual(received[1], { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: 'user cancelled' } });
  });

  it('never cancels initialize, whether it times out or is aborted', async () => {
    const { conn, received, send } = setup({ defaultTimeoutMs: 30 });
    await assert.rejects(conn.requestRaw('initialize', {}), /Request initialize timed out after 30 ms/);
    const ac = new AbortController();
    const aborted = conn.requestRaw('initialize', {}, { signal: ac.signal, timeoutMs: 0 });
    ac.abort(new Error('user cancelled'));
    await assert.rejects(aborted, /user cancelled/);
    // A request sent after both: once it arrives, anything sent before it has arrived too.
    const ping = conn.requestRaw('ping', undefined);
    await waitFor(() => received.some((m) => m.method === 'ping'), 'the ping');
    assert.deepEqual(received.map((m) => m.method), ['initialize', 'initialize', 'ping']);
    await send({ jsonrpc: '2.0', id: 3, result: {} });
    await ping;
  });

  it('an already aborted signal sends nothing', async () => {
    const { conn, received, send } = setup();
    await assert.rejects(conn.request('x', undefined, Any, { signal: AbortSignal.abort() }));
    // A request sent after it: once it arrives, the aborted one would have arrived too.
    const ping = conn.requestRaw('ping', undefined);
    await waitFor(() => received.length > 0, 'the ping');
    assert.deepEqual(received.map((m) => m.method), ['ping']);
    await send({ jsonrpc: '2.0', id: received[0].id, result: {} });
    await ping;
  });

  it('answers an unknown method with -32601', async () => {
    const { received, send } = setup();
    await send({ jsonrpc: '2.0', id: 'q1', method: 'nope/unknown' });
    await waitFor(() => received.length === 1, 'error response');
    assert.deepEqual(received[0], { jsonrpc: '2.0', id: 'q1', error: { code: ErrorCode.MethodNotFound, message: 'Method not found: nope/unknown' } });
  });

  it('dispatches requests to handlers; a thrown RpcError is sent as is, other errors as -32603', async () => {
    const { conn, received, send } = setup();
    conn.onRequest('ok', (params) => ({ echo: params?.v }));
    conn.onRequest('bad', () => {
      throw new RpcError(-32602, 'no such task');
    });
    conn.onRequest('boom', () => {
      throw new Error('kaput');
    });
    await send({ jsonrpc: '2.0', id: 1, method: 'ok', params: { v: 7 } });
    await send({ jsonrpc: '2.0', id: 2, method: 'bad' });
    await send({ jsonrpc: '2.0', id: 3, method: 'boom' });
    await waitFor(() => received.length === 3, 'three responses');
    const byId = new Map(received.map((m) => [m.id, m]));
    assert.deepEqual(byId.get(1)?.result, { echo: 7 });
    assert.deepEqual(byId.get(2)?.error, { code: -32602, message: 'no such task' });
    assert.deepEqual(byId.get(3)?.error, { code: -32603, message: 'kaput' });
  });

  describe('answers that fail to send (they may carry the user\'s work), with fake timers', () => {
    let clock: ReturnType<typeof FakeTimers.install> | undefined;
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });
    /** A connection whose answers to id 7 fail to go out while `failing` says so (a server frozen, or gone). */
    const failingAnswers = () => {
      clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout'] });
      const t = setup();
      const deliver = t.ours.send.bind(t.ours);
      const state = { failing: true, tries: 0 };
      t.ours.send = (m) => ((m as { id?: unknown }).id === 7 && (state.tries++, state.failing) ? Promise.reject(new Error('Server "peer" did not accept the response to id 7 within 30 s')) : deliver(m));
      const undelivered: UndeliveredAnswer[] = [];
      t.conn.onUndelivered((u) => undelivered.push(u));
      t.conn.onRequest('elicitation/create', () => ({ action: 'accept', content: { name: 'Ada' } }));
      return { ...t, c: clock, state, undelivered };
    };
    const answer = { jsonrpc: '2.0', id: 7, result: { action: 'accept', content: { name: 'Ada' } } };

    it('is tried again 1 s, 2 s and 4 s later while the connection is open; sent at a new try, nothing is reported and no second answer (an error) follows', async () => {
      const { c, send, received, state, undelivered, log } = failingAnswers();
      await send({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} });
      await c.tickAsync(0);
      assert.equal(state.tries, 1);
      await c.tickAsync(999);
      assert.equal(state.tries, 1, 'not before 1 s');
      await c.tickAsync(1);
      assert.equal(state.tries, 2);
      await c.tickAsync(1999);
      assert.equal(state.tries, 2, 'not before 2 s more');
      state.failing = false; // the server is back
      await c.tickAsync(1);
      assert.equal(state.tries, 3);
      assert.deepEqual(received, [answer], 'the same answer, once delivered');
      await c.tickAsync(10_000);
      assert.deepEqual(received, [answer], 'nothing else: no error for id 7');
      assert.deepEqual(undelivered, []);
      assert.equal(log.lines.filter((l) => l.level === 'warn' && l.message === 'Could not send the answer to elicitation/create: Server "peer" did not accept the response to id 7 within 30 s').length, 2, log.text());
      assert.equal(log.has('error', /Handler for elicitation\/create failed/), false, 'the handler did not fail');
    });

    it('that failed at every try is reported once, with the request and why; resend sends the same answer to the same id, and reports again if that fails too', async () => {
      const { c, send, received, state, undelivered, log } = failingAnswers();
      await send({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: { message: 'Name?' } });
      await c.tickAsync(7000);
      assert.equal(state.tries, 4, 'the first try and three more');
      assert.equal(undelivered.length, 1);
      const [u] = undelivered;
      assert.deepEqual({ ...u, resend: typeof u.resend }, { method: 'elicitation/create', params: { message: 'Name?' }, reason: 'Server "peer" did not accept the response to id 7 within 30 s', resend: 'function' });
      assert.ok(log.has('warn', /^Could not send the answer to elicitation\/create: Server "peer" did not accept the response to id 7 within 30 s$/), log.text());
      assert.deepEqual(received, []);
      // Send Again while the server still fails: tried as the first was, and reported again.
      const again = u.resend!();
      await c.tickAsync(7000);
      assert.equal(await again, false);
      assert.equal(state.tries, 8);
      assert.equal(undelivered.length, 2);
      // The server is back: the kept answer goes to the id the server waits on.
      state.failing = false;
      assert.equal(await undelivered[1].resend!(), true);
      await c.tickAsync(0);
      assert.deepEqual(received, [answer]);
      assert.equal(undelivered.length, 2);
    });

    it('an error answer (a refusal the user chose, a request found invalid) is tried again and reported as a result is: the peer waits on it as much', async () => {
      const { c, conn, send, received, state, undelivered } = failingAnswers();
      conn.onRequest('sampling/createMessage', () => {
        throw new RpcError(-1, 'User rejected sampling request');
      });
      await send({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: { maxTokens: 5 } });
      await c.tickAsync(7000);
      assert.equal(state.tries, 4, 'the first try and three more');
      assert.deepEqual(
        undelivered.map((u) => [u.method, u.params, u.reason]),
        [['sampling/createMessage', { maxTokens: 5 }, 'Server "peer" did not accept the response to id 7 within 30 s']],
      );
      state.failing = false;
      assert.equal(await undelivered[0].resend!(), true);
      await c.tickAsync(0);
      assert.deepEqual(received, [{ jsonrpc: '2.0', id: 7, error: { code: -1, message: 'User rejected sampling request' } }]);
    });

    it('cut short by the connection closing is reported at once, as lost with the connection, with no resend; one ready after the close too', async () => {
      const { c, conn, send, state, undelivered } = failingAnswers();
      let late!: (v: unknown) => void;
      conn.onRequest('sampling/createMessage', () => new Promise((r) => (late = r)));
      await send({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} });
      await send({ jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: {} });
      await c.tickAsync(1500);
      assert.equal(state.tries, 2);
      await conn.close('the server went away');
      await c.tickAsync(0);
      assert.deepEqual(undelivered.map((u) => [u.method, u.reason, u.resend]), [['elicitation/create', 'the connection closed (the server went away)', undefined]]);
      // A handler that answers after the close (its signal aborted): its answer is not dropped unseen.
      late({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
      await c.tickAsync(0);
      assert.deepEqual(undelivered.map((u) => u.method), ['elicitation/create', 'sampling/createMessage']);
      assert.equal(undelivered[1].resend, undefined);
      assert.equal(state.tries, 2, 'not tried after the close');
      assert.equal(c.countTimers(), 0, 'no pause left running');
    });

    it('none is reported for a handler that fails once the close aborted it: its error is the close\'s (a dialog closed unanswered), nothing the user gave', async () => {
      const { c, conn, send, undelivered } = failingAnswers();
      conn.onRequest('sampling/createMessage', (_p, ctx) => new Promise((_r, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))));
      await send({ jsonrpc: '2.0', id: 8, method: 'sampling/createMessage', params: {} });
      await c.tickAsync(0);
      await conn.close('the server went away');
      await c.tickAsync(0);
      assert.deepEqual(undelivered, []);
    });
  });

  it('a request repeated with an id this session used before (a resumed stream\'s replay; MCP forbids reusing an id) gets no answer of its own, while handled or after: the first\'s answer is the only one', async () => {
    const { conn, received, send, log } = setup();
    let release!: () => void;
    let calls = 0;
    conn.onRequest('elicitation/create', () => (calls++, new Promise((r) => (release = () => r({ action: 'accept' })))));
    conn.onRequest('ok', () => ({}));
    const repeats = () => log.lines.filter((l) => l.level === 'warn' && l.message === 'Ignored a repeat of request id 1 (elicitation/create)').length;
    await send({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} });
    await send({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} });
    await waitFor(() => repeats() === 1, 'the repeat while handled ignored');
    release();
    // An answer to the repeat would have gone out before this one.
    await waitFor(() => received.some((m) => 'result' in m), 'the answer');
    assert.deepEqual(received, [{ jsonrpc: '2.0', id: 1, result: { action: 'accept' } }]);
    // Replayed once more, after its answer: not asked again.
    await send({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} });
    await send({ jsonrpc: '2.0', id: 2, method: 'ok' });
    await waitFor(() => received.some((m) => m.id === 2), 'a later answer');
    assert.equal(repeats(), 2);
    assert.deepEqual(received.map((m) => m.id), [1, 2]);
    assert.equal(calls, 1, 'the question was asked once');
  });

  it('remembers the last 1000 request ids it received: a replay of a recent one is still a repeat after a thousand more requests, the oldest are forgotten', async () => {
    const { conn, received, send } = setup();
    conn.onRequest('ok', () => ({}));
    for (let id = 1; id <= 1001; id++) await send({ jsonrpc: '2.0', id, method: 'ok' });
    await waitFor(() => received.length === 1001, 'every answer');
    await send({ jsonrpc: '2.0', id: 1000, method: 'ok' }); // recent: a repeat
    await send({ jsonrpc: '2.0', id: 1, method: 'ok' }); // forgotten: answered again
    await send({ jsonrpc: '2.0', id: 1002, method: 'ok' });
    await waitFor(() => received.some((m) => m.id === 1002), 'a later answer');
    assert.deepEqual(received.slice(1001).map((m) => m.id), [1, 1002]);
  });

  it('a server cancellation aborts the handler signal and no answer is sent', async () => {
    const { conn, received, send } = setup();
    let aborted = false;
    let handling = false;
    conn.onRequest('wait', (_p, ctx) => ((handling = true), new Promise((resolve) => ctx.signal.addEventListener('abort', () => ((aborted = true), resolve({}))))));
    conn.onRequest('ok', () => ({}));
    await send({ jsonrpc: '2.0', id: 9, method: 'wait' });
    await waitFor(() => handling, 'the handler to start');
    await send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } });
    await waitFor(() => aborted, 'handler abort');
    // A request handled after it: its answer comes once an answer to the cancelled one would have.
    await send({ jsonrpc: '2.0', id: 10, method: 'ok' });
    await waitFor(() => received.length > 0, 'a later answer');
    assert.deepEqual(received.map((m) => m.id), [10]);
  });

  it('routes progress by token for the request lifetime, and through onProgress after it', async () => {
    const { conn, received, send } = setup();
    const seen: number[] = [];
    const p = conn.request('work', { a: 1 }, Any, { onprogress: (pr) => seen.push(pr.progress) });
    await waitFor(() => received.length === 1, 'request');
    assert.deepEqual((received[0].params as Record<string, unknown>)._meta, { progressToken: 1 });
    await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5, total: 10 } });
    await send({ jsonrpc: '2.0', id: 1, result: {} });
    await p;
    const later: number[] = [];
    const sub = conn.onProgress('task-token', (pr) => later.push(pr.progress));
    await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'task-token', progress: 9 } });
    await waitFor(() => later.length === 1, 'late progress');
    sub.dispose();
    // A listener of another token hears its progress, sent after the one no one listens to any more.
    const other: number[] = [];
    conn.onProgress('other-token', (pr) => other.push(pr.progress));
    await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'task-token', progress: 10 } });
    await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'other-token', progress: 1 } });
    await waitFor(() => other.length === 1, 'the other progress');
    assert.deepEqual(seen, [5]);
    assert.deepEqual(later, [9]);
  });

  it('progress of 1e400 (Infinity once parsed) is no progress and is ignored with a warning; a total of 1e400 is left out (found by the fuzzer, seed 24615)', async () => {
    const { conn, theirs, log } = setup();
    const seen: Array<{ progress: number; total?: number }> = [];
    conn.onProgress('t', (p) => seen.push({ progress: p.progress, total: p.total }));
    // As a transport hands it over: JSON.parse reads 1e400 as Infinity (it cannot read NaN at all).
    for (const text of ['{"progress":1e400,"total":100}', '{"progress":-1e400}', '{"progress":3,"total":1e400}', '{"progress":4,"total":8}']) {
      theirs.injectToPeer(JSON.parse(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t",${text.slice(1)}}`));
    }
    await waitFor(() => seen.some((p) => p.progress === 4), 'the last progress notification');
    assert.deepEqual(seen, [{ progress: 3, total: undefined }, { progress: 4, total: 8 }]);
    assert.equal(log.lines.filter((l) => l.level === 'warn' && /Ignored a progress notification/.test(l.message)).length, 2);
  });

  it('malformed messages are logged, answered when they carry an id, and never throw', async () => {
    const { conn, theirs, received, log } = setup();
    const values: unknown[] = [42, 'str', null, [], { jsonrpc: '1.0', id: 5, method: 'x' }, { jsonrpc: '2.0', id: {}, result: {} }, { jsonrpc: '2.0', id: 3, method: 7 }, { foo: 1 }, { jsonrpc: '2.0', id: 1, result: 'not-an-object' }];
    for (const v of values) theirs.injectToPeer(v);
    await waitFor(() => log.lines.filter((l) => /^Ignored/.test(l.message)).length >= values.length, 'a line per message');
    // id 5 and 3 were request-shaped with a usable id: answered with -32600.
    await waitFor(() => received.length === 2, 'two error answers');
    assert.ok(received.every((m) => (m.error as { code: number }).code === -32600));
    assert.equal(conn.isClosed, false);
  });

  it('a server that sends bad messages all day (not JSON, invalid, answers to no request) warns once of each kind, then counts them at debug level: the log is not flooded', async () => {
    const { ours, theirs, log } = setup();
    for (let i = 1; i <= 50; i++) {
      ours.onerror?.(new TransportParseError('Unexpected token', `garbage ${i}`));
      theirs.injectToPeer({ foo: i });
      theirs.injectToPeer({ jsonrpc: '2.0', id: 900 + i, result: {} });
    }
    await waitFor(() => log.lines.length >= 150, 'a line per message');
    assert.deepEqual(
      log.lines.filter((l) => l.level === 'warn').map((l) => l.message.replace(/:.*|\(.*/, '')),
      ['Ignored a message that is not JSON', 'Ignored an invalid message from the server ', 'Ignored a response to request id 901, which is not pending '],
    );
    const debug = log.lines.filter((l) => l.level === 'debug').map((l) => l.message);
    assert.equal(debug.length, 147, log.text());
    assert.ok(debug.includes('Ignored a message that is not JSON: Unexpected token: garbage 50 (50 times so far)'), log.text());
    assert.ok(debug.includes('Ignored an invalid message from the server (message has neither method, result nor error): {"foo":50} (50 times so far)'), log.text());
    assert.ok(debug.includes('Ignored a response to request id 950, which is not pending (never sent, already answered, or cancelled) (50 times so far)'), log.text());
  });

  it('a duplicated response resolves once; the second is logged', async () => {
    const { conn, received, send, log } = setup();
    const p = conn.request('x', undefined, Any);
    await waitFor(() => received.length === 1, 'request');
    await send({ jsonrpc: '2.0', id: 1, result: { n: 1 } });
    await send({ jsonrpc: '2.0', id: 1, result: { n: 2 } });
    assert.deepEqual(await p, { n: 1 });
    await waitFor(() => log.has('warn', /not pending/), 'warning');
  });

  it('closing fails pending requests with the reason and refuses new ones', async () => {
    const { conn, theirs } = setup();
    const p = conn.request('x', undefined, Any);
    const closed: string[] = [];
    conn.onClose((i) => closed.push(i.reason));
    await theirs.close();
    await assert.rejects(p, /Connection closed: the other side closed/);
    await assert.rejects(conn.request('y', undefined, Any), /Connection closed/);
    assert.deepEqual(closed, ['the other side closed']);
  });

  it('refuses incoming requests over the concurrency limit with -32603', async () => {
    const { conn, received, send } = setup({ maxConcurrentIncoming: 2 });
    const release: Array<() => void> = [];
    conn.onRequest('hold', () => new Promise((r) => release.push(() => r({}))));
    for (let i = 1; i <= 3; i++) await send({ jsonrpc: '2.0', id: i, method: 'hold' });
    await waitFor(() => received.length === 1, 'refusal');
    assert.equal(received[0].id, 3);
    assert.match((received[0].error as { message: string }).message, /Too many concurrent requests/);
    release.forEach((r) => r());
    await waitFor(() => received.length === 3, 'answers');
  });

  it('leaves no timers or listeners behind when requests end', async () => {
    const c = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
    try {
      const { conn, received, send } = setup({ defaultTimeoutMs: 60_000 });
      const ac = new AbortController();
      const p = conn.request('x', undefined, Any, { signal: ac.signal });
      await c.tickAsync(0);
      assert.equal(received.length, 1, 'request');
      assert.equal(c.countTimers(), 1, 'the deadline of the pending request');
      await send({ jsonrpc: '2.0', id: 1, result: {} });
      await p;
      await c.tickAsync(0);
      assert.equal(c.countTimers(), 0, 'no 60 s timer left armed once it is answered');
      ac.abort(); // no effect, no cancellation sent for a finished request
      await c.tickAsync(10);
      assert.equal(received.length, 1);
    } finally {
      c.uninstall();
    }
  });
  it('validates results whose schema has a hand check exactly as zod would, with zod\'s words for garbage', async () => {
    const { conn, received, send } = setup();
    const good = conn.request('tools/call', undefined, CallToolResultSchema);
    const bad = conn.request('tools/call', undefined, CallToolResultSchema);
    const proto = conn.request('tools/call', undefined, CallToolResultSchema);
    await waitFor(() => received.length === 3, 'requests');
    await send({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'hi' }], extra: 1 } });
    await send({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 7 }], isError: 'yes' } });
    assert.deepEqual(await good, { content: [{ type: 'text', text: 'hi' }], extra: 1 });
    const expected = CallToolResultSchema.safeParse({ content: [{ type: 7 }], isError: 'yes' });
    assert.equal(expected.success, false);
    await assert.rejects(bad, (e: unknown) => e instanceof Error && e.name === 'InvalidResultError' && e.message === `Invalid result for tools/call from server: ${describeIssues(expected.error!)}`);
    // A `__proto__` key (JSON.parse makes it an own key): zod drops it, and so does the answer.
    await send(JSON.parse('{"jsonrpc":"2.0","id":3,"result":{"__proto__":{"polluted":true},"content":[]}}'));
    const answer = await proto;
    assert.equal(Object.prototype.hasOwnProperty.call(answer, '__proto__'), false);
    assert.equal((answer as Record<string, unknown>).polluted, undefined);
  });

  describe('timeouts, with fake timers', () => {
    let clock: ReturnType<typeof FakeTimers.install> | undefined;
    afterEach(() => {
      clock?.uninstall();
      clock = undefined;
    });
    const install = () => (clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] }));
    const settled = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);

    it('one timer for every pending request, at the earliest deadline; none once nothing is pending', async () => {
      const c = install();
      const { conn, received, send } = setup({ defaultTimeoutMs: 1000 });
      const a = settled(conn.request('a', undefined, Any));
      const b = settled(conn.request('b', undefined, Any, { timeoutMs: 300 })); // earlier: moves the timer
      const d = settled(conn.request('d', undefined, Any, { timeoutMs: Infinity }));
      await c.tickAsync(0);
      assert.equal(c.countTimers(), 1, 'one timer');
      await c.tickAsync(299);
      assert.equal(received.length, 3, 'nothing cancelled yet');
      await c.tickAsync(1);
      assert.equal(await b, 'Request b timed out after 300 ms without an answer');
      await c.tickAsync(0);
      assert.deepEqual(received[3], { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 2, reason: 'timed out after 300 ms' } });
      await c.tickAsync(600);
      const e = settled(conn.request('e', undefined, Any, { timeoutMs: 500 })); // sent at 900: due at 1400
      await c.tickAsync(100);
      assert.equal(await a, 'Request a timed out after 1000 ms without an answer');
      assert.equal(c.countTimers(), 1, 'armed for e');
      await c.tickAsync(399);
      await send({ jsonrpc: '2.0', id: 4, result: {} });
      assert.equal(await e, 'resolved');
      await send({ jsonrpc: '2.0', id: 3, result: {} });
      assert.equal(await d, 'resolved');
      await c.tickAsync(0);
      assert.equal(c.countTimers(), 0, 'no timer left once nothing is pending');
    });

    it('a request sent as the previous one settles keeps the timer; progress restarts the clock', async () => {
      const c = install();
      const { conn, received, send } = setup({ defaultTimeoutMs: 1000 });
      const first = conn.request('x', undefined, Any);
      await c.tickAsync(0);
      assert.equal(c.countTimers(), 1);
      // Sent from the microtask the answer sets off (a caller awaiting it): the same timer, neither
      // cleared nor set again.
      const calls: string[] = [];
      const g = globalThis as unknown as Record<'setTimeout' | 'clearTimeout', (...a: unknown[]) => unknown>;
      const [set, clear] = [g.setTimeout, g.clearTimeout];
      g.setTimeout = (...a) => (calls.push('setTimeout'), set(...a));
      g.clearTimeout = (...a) => (calls.push('clearTimeout'), clear(...a));
      let second!: Promise<string>;
      try {
        const chained = first.then(() => {
          second = settled(conn.request('y', undefined, Any, { onprogress: () => undefined, resetTimeoutOnProgress: true }));
        });
        await send({ jsonrpc: '2.0', id: 1, result: {} });
        await chained;
        await c.tickAsync(0);
      } finally {
        [g.setTimeout, g.clearTimeout] = [set, clear];
      }
      assert.deepEqual(calls, [], 'the timer was kept');
      assert.equal(c.countTimers(), 1);
      await c.tickAsync(900);
      await send({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 2, progress: 1 } });
      await c.tickAsync(900); // 1800 after sending, 900 after the progress
      assert.equal(received.length, 2, 'not timed out');
      await c.tickAsync(100);
      assert.equal(await second, 'Request y timed out after 1000 ms without an answer');
    });

    it('no request times out while held (the user answers the peer\'s question); the last release starts every clock over', async () => {
      const c = install();
      const { conn, received } = setup({ defaultTimeoutMs: 1000 });
      const a = settled(conn.request('a', undefined, Any));
      await c.tickAsync(500);
      const first = conn.hold();
      const second = conn.hold();
      const b = settled(conn.request('b', undefined, Any, { timeoutMs: 100 })); // sent while held
      await c.tickAsync(10_000);
      first();
      first(); // once per hold: this one does not release the other
      await c.tickAsync(10_000);
      assert.equal(received.length, 2, 'nothing timed out, no cancel sent');
      second();
      await c.tickAsync(99);
      assert.equal(received.length, 2);
      await c.tickAsync(1);
      assert.equal(await b, 'Request b timed out after 100 ms without an answer');
      await c.tickAsync(899);
      assert.equal(received.length, 3, 'a started over at the release: not due yet');
      await c.tickAsync(1);
      assert.equal(await a, 'Request a timed out after 1000 ms without an answer');
      await c.tickAsync(0);
      assert.equal(c.countTimers(), 0, 'no timer left');
    });

    it('a hold with a tag stops only the clocks of the requests sent with it: the others still time out; its release starts them over', async () => {
      const c = install();
      const { conn, received } = setup({ defaultTimeoutMs: 1000 });
      const tag = {};
      const a = settled(conn.request('a', undefined, Any, { tag }));
      const b = settled(conn.request('b', undefined, Any));
      await c.tickAsync(500);
      const release = conn.hold(tag);
      await c.tickAsync(500);
      assert.equal(received.length, 3, 'b timed out (its cancel sent): it is not held');
      assert.equal(await b, 'Request b timed out after 1000 ms without an answer');
      await c.tickAsync(10_000);
      assert.equal(received.length, 3, 'a did not time out: only b was cancelled');
      const whole = conn.hold();
      release();
      await c.tickAsync(10_000);
      assert.equal(received.length, 3, 'a hold of every request is left');
      whole();
      await c.tickAsync(999);
      assert.equal(received.length, 3, 'a started over at the last release');
      await c.tickAsync(1);
      assert.equal(await a, 'Request a timed out after 1000 ms without an answer');
    });
  });

  it('listens once per signal, however many requests share it, and stops listening when they settle', async () => {
    const { conn, received, send } = setup();
    const ac = new AbortController();
    let added = 0;
    let removed = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    const remove = ac.signal.removeEventListener.bind(ac.signal);
    ac.signal.addEventListener = ((...args: Parameters<typeof add>) => (added++, add(...args))) as typeof add;
    ac.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (removed++, remove(...args))) as typeof remove;
    const calls = Array.from({ length: 20 }, (_, i) => conn.request(`m${i}`, undefined, Any, { signal: ac.signal }));
    await waitFor(() => received.length === 20, 'requests');
    for (let i = 1; i <= 20; i++) await send({ jsonrpc: '2.0', id: i, result: {} });
    await Promise.all(calls);
    // One listener for the twenty (twenty would warn of a leak past ten), removed with the last.
    assert.deepEqual([added, removed], [1, 1]);
    const aborted = conn.request('late', undefined, Any, { signal: ac.signal });
    const other = conn.request('other', undefined, Any, { signal: ac.signal });
    ac.abort(new Error('stop'));
    await assert.rejects(aborted, /stop/);
    await assert.rejects(other, /stop/);
    await waitFor(() => received.length === 24, 'two cancellations');
    assert.deepEqual(received.slice(22).map((m) => (m.params as { requestId: number }).requestId), [21, 22]);
    assert.deepEqual([added, removed], [2, 2]);
  });
});
