// A result the engine could not fetch when its task ended (the server unreachable, the connection
// lost) is tried again until it is in hand: "never lose a user's result". Under fake timers, so
// the retry delays are exact; the in-memory transport delivers on microtasks for real.
import * as assert from 'node:assert/strict';
import FakeTimers from '@sinonjs/fake-timers';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import type { Harness, HarnessOptions } from '../helpers/fakeTaskServer';
import { createHarness } from '../helpers/fakeTaskServer';
import { HeldByUserError } from '../../../src/core/tasks/engine';
import { taskKey } from '../../../src/core/tasks/types';
import { describeTask } from '../../../src/core/tasks/presentation';

describe('TaskEngine: results fetched again after a failed fetch', () => {
  let clock: ReturnType<typeof FakeTimers.install> | undefined;
  let h: Harness | undefined;
  let reachable: boolean | Error = true;
  afterEach(async () => {
    await h?.close();
    h = undefined;
    clock?.uninstall();
    clock = undefined;
    reachable = true;
  });

  /** A task of the fake server whose completion arrives as a status notification. */
  async function start(options: HarnessOptions = {}) {
    clock = FakeTimers.install({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    h = await createHarness({ ...options, server: { notify: 'once', pollInterval: 60_000, ...options.server }, engine: { random: () => 0, ...options.engine }, reachable: () => reachable });
    const t = await h.engine.callTool('fake', 'required-tool');
    return t;
  }

  const results = () => h!.server.requestsOf('tasks/result').length;

  it('the server unreachable when the task completed: tried again after 5 s, 10 s, 20 s..., and kept once it answers', async () => {
    const t = await start();
    reachable = false;
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'the answer' }] });
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'completed', 'the notification says it ended');
    assert.equal(h!.snap(t.taskId).outcome, undefined);
    await clock!.tickAsync(4_900);
    assert.equal(results(), 0);
    reachable = true;
    await clock!.tickAsync(200);
    assert.equal(results(), 1, 'tasks/result sent 5 s after the failed fetch');
    const outcome = h!.snap(t.taskId).outcome;
    assert.equal(outcome?.kind, 'result');
    assert.deepEqual(outcome.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'the answer' }]);
    await clock!.tickAsync(600_000);
    assert.equal(results(), 1, 'nothing more once the result is in hand');
  });

  it('the delay doubles up to five minutes, and a new session of the server tries at once', async () => {
    const t = await start();
    reachable = false;
    h!.server.complete(t.taskId);
    const tries = () => h!.log.lines.filter((l) => /Cannot reach the server to follow its tasks/.test(l.message)).length;
    await clock!.tickAsync(0);
    const first = tries();
    assert.ok(first >= 1, h!.log.text());
    // 5 + 10 + 20 + 40 + 80 + 160 = 315 s: six more tries; then one every 300 s.
    await clock!.tickAsync(315_500);
    assert.equal(tries() - first, 6);
    await clock!.tickAsync(600_000);
    assert.equal(tries() - first, 8);
    reachable = true;
    h!.engine.attachSession('fake', h!.session);
    await clock!.tickAsync(0);
    assert.equal(results(), 1, 'at once, without waiting for the next try');
    assert.notEqual(h!.snap(t.taskId).outcome, undefined);
  });

  it('a server that stays unreachable for the same reason is warned about once; the tries after that go to the debug level', async () => {
    await start();
    reachable = false;
    const said = (level: string) => h!.log.lines.filter((l) => l.level === level && /Cannot reach the server to follow its tasks: Could not reach server "fake"/.test(l.message)).length;
    await clock!.tickAsync(600_000);
    assert.equal(said('warn'), 1, h!.log.text());
    assert.ok(said('debug') >= 3, h!.log.text());
  });

  it('a server its polls cannot reach is unreachable (since when, why) until a poll reaches it again, each change told by onDidChangeReach; not one the user disconnected', async () => {
    await start({ server: { pollInterval: 1_000 } });
    const told: string[] = [];
    h!.engine.onDidChangeReach((id) => told.push(id));
    assert.equal(h!.engine.unreachable('fake'), undefined);
    reachable = false;
    const since = Date.now();
    await clock!.tickAsync(5_000);
    const down = h!.engine.unreachable('fake');
    assert.ok(down && down.since >= since, 'unreachable since its first failed poll');
    assert.match(down.why, /Could not reach server "fake"/);
    await clock!.tickAsync(120_000);
    assert.deepEqual(told, ['fake'], 'told once, not at each failed poll');
    assert.equal(h!.engine.unreachable('fake')?.since, down.since, 'since the first failure');
    reachable = true;
    await clock!.tickAsync(300_000);
    assert.equal(h!.engine.unreachable('fake'), undefined, 'reached again');
    assert.deepEqual(told, ['fake', 'fake']);
    reachable = new HeldByUserError('Server "fake" was disconnected by the user: connect it to follow its tasks again.');
    await clock!.tickAsync(300_000);
    assert.equal(h!.engine.unreachable('fake'), undefined, 'disconnected by the user, not unreachable');
  });

  it('a server that stops answering (tasks/get times out) is unreachable like a closed port, backs off, and is reached again by its next answer', async () => {
    await start({ server: { pollInterval: 1_000 }, engine: { requestTimeoutMs: 2_000 } });
    const told: string[] = [];
    h!.engine.onDidChangeReach((id) => told.push(id));
    let hung = true;
    const waiting: Array<() => void> = [];
    h!.server.override('tasks/get', (_p, _ctx, builtin) => (hung ? new Promise((r) => waiting.push(() => r(builtin()))) : builtin()));
    const gets = () => h!.server.requestsOf('tasks/get').length;
    await clock!.tickAsync(5_000);
    const down = h!.engine.unreachable('fake');
    assert.ok(down, h!.log.text());
    assert.equal(down.why, 'The server did not answer tasks/get within 2 s.');
    assert.deepEqual(told, ['fake']);
    assert.ok(h!.log.has('warn', /^\[fake\] Cannot reach the server to follow its tasks: The server did not answer tasks\/get within 2 s\. Retrying in 1 s\.$/), h!.log.text());
    assert.ok(!h!.log.has('warn', /tasks\/get \S+ failed/), h!.log.text());
    // Backing off: over ten minutes, far fewer polls than one a second (each timing out after 2 s).
    const before = gets();
    await clock!.tickAsync(600_000);
    assert.ok(gets() - before < 20, `${gets() - before} polls in ten minutes`);
    hung = false;
    for (const answer of waiting.splice(0)) answer();
    await clock!.tickAsync(600_000);
    assert.equal(h!.engine.unreachable('fake'), undefined, 'reached again');
    assert.deepEqual(told, ['fake', 'fake']);
  });

  it('a server back after a restart that forgot its task (tasks/get: -32602, the task is lost) is reached: it is no longer "unreachable · retrying", though no task is left to poll it', async () => {
    const t = await start({ server: { pollInterval: 1_000 } });
    reachable = false;
    await clock!.tickAsync(5_000);
    assert.ok(h!.engine.unreachable('fake'), h!.log.text());
    h!.server.forget();
    reachable = true;
    await clock!.tickAsync(300_000);
    assert.equal(h!.snap(t.taskId).status, 'lost', h!.log.text());
    assert.equal(h!.engine.unreachable('fake'), undefined, 'its answer, a denial, reached it');
  });

  it('a server the user disconnected is not "unreachable, retrying": its tasks are not followed until the user connects it, said once at info', async () => {
    await start();
    reachable = new HeldByUserError('Server "fake" was disconnected by the user: connect it to follow its tasks again.');
    await clock!.tickAsync(600_000);
    const lines = h!.log.lines.filter((l) => /follow its tasks/.test(l.message));
    assert.deepEqual(lines.filter((l) => l.level !== 'debug').map((l) => `${l.level}: ${l.message}`), ['info: [fake] Not following its tasks: Server "fake" was disconnected by the user: connect it to follow its tasks again.'], h!.log.text());
    assert.ok(!lines.some((l) => /Retrying|Cannot reach/.test(l.message)), h!.log.text());
  });

  it('T-RCV-7: stops once the ttl has run out (the server may have deleted the task), and says so', async () => {
    const t = await start({ server: { ttl: 30_000 } });
    reachable = false;
    h!.server.complete(t.taskId);
    await clock!.tickAsync(120_000);
    assert.equal(results(), 0);
    assert.ok(h!.log.has('warn', new RegExp(`^\\[fake\\] The result of task ${t.taskId} could not be fetched before its ttl ran out`)), h!.log.text());
    reachable = true;
    await clock!.tickAsync(600_000);
    assert.equal(results(), 0, 'no more automatic tries');
  });

  it('after a reload, an ended task restored without its result has it fetched; one whose result is stored does not', async () => {
    await start();
    const unfetched = h!.server.createTask('seeded', { status: 'completed' });
    h!.server.complete(unfetched.taskId, { content: [{ type: 'text', text: 'kept by the server' }] });
    const base = { serverId: 'fake', kind: 'task' as const, toolName: 'seeded', status: 'completed' as const, createdAt: unfetched.createdAt, lastUpdatedAt: unfetched.createdAt, ttl: null, origin: 'user' as const };
    h!.engine.restore([
      { ...base, key: taskKey('fake', unfetched.taskId), taskId: unfetched.taskId },
      { ...base, key: taskKey('fake', 'stored'), taskId: 'stored', outcomeFetchedAt: unfetched.createdAt },
    ]);
    await clock!.tickAsync(100);
    assert.deepEqual(h!.server.requestsOf('tasks/result').map((r) => r.params?.taskId), [unfetched.taskId]);
    assert.equal(h!.snap(unfetched.taskId).outcome?.kind, 'result');
  });

  it('T-REQ-3: a task waiting for input whose tasks/result call failed is asked again after 5 s, 10 s..., not at every poll', async () => {
    const t = await start({ server: { pollInterval: 1_000 } });
    reachable = false;
    h!.server.setStatus(t.taskId, 'input_required', 'Which file?');
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'input_required');
    reachable = true;
    await clock!.tickAsync(4_900);
    assert.ok(h!.server.requestsOf('tasks/get').length >= 3, 'polls went on');
    assert.equal(results(), 0, 'polls do not bypass the backoff');
    await clock!.tickAsync(200);
    assert.equal(results(), 1, 'tasks/result sent 5 s after the failed call');
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'answered' }] });
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).outcome?.kind, 'result');
  });

  it('T-REQ-4: a failed task\'s error from the server is its outcome, not a reason to try again; a removed task is not tried', async () => {
    const t = await start();
    h!.server.fail(t.taskId, { code: -32603, message: 'storage failed' });
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).outcome?.kind, 'error');
    await clock!.tickAsync(600_000);
    assert.equal(results(), 1);

    const u = await h!.engine.callTool('fake', 'required-tool');
    reachable = false;
    h!.server.complete(u.taskId);
    await clock!.tickAsync(0);
    h!.engine.remove(u.key);
    reachable = true;
    await clock!.tickAsync(600_000);
    assert.equal(h!.server.requestsOf('tasks/result').filter((r) => r.params?.taskId === u.taskId).length, 0);
  });

  it('T-REQ-4: a completed task whose tasks/result fails once (-32603, busy): the error is no outcome; fetched again 5 s later, and Fetch Task Result gets the real result', async () => {
    const t = await start();
    let failures = 1;
    h!.server.override('tasks/result', (_p, _c, builtin) => {
      if (failures-- > 0) throw new RpcError(-32603, 'Internal error: result store busy, try again');
      return builtin();
    });
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'THE REAL RESULT' }] });
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.equal(results(), 1);
    const s = h!.snap(t.taskId);
    assert.equal(s.status, 'completed');
    assert.equal(s.outcome, undefined, 'a completed task has a result, never an error');
    assert.equal(s.outcomeFetchedAt, undefined, 'not marked fetched');
    assert.ok(h!.log.has('warn', new RegExp(`^\\[fake\\] tasks/result ${t.taskId} failed though the task completed \\(error -32603: Internal error: result store busy, try again\\); trying again later$`)), h!.log.text());
    await clock!.tickAsync(5_100);
    assert.equal(results(), 2, 'tried again 5 s later');
    const outcome = await h!.engine.fetchResult(t.key);
    assert.deepEqual(outcome.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'THE REAL RESULT' }]);
    assert.equal(results(), 2, 'kept, not fetched again');
  });

  it('T-REQ-4: a completed task whose tasks/result keeps failing (-32603): its row says the result is not fetched and why, Fetch Task Result gives the server\'s error (not "see the log"), and the note goes once the result comes', async () => {
    const t = await start();
    let failing = true;
    h!.server.override('tasks/result', (_p, _c, builtin) => {
      if (failing) throw new RpcError(-32603, 'result storage backend unavailable');
      return builtin();
    });
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'THE REAL RESULT' }] }, 'finished');
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    const why = 'the server answered tasks/result with error -32603: result storage backend unavailable.';
    const s = h!.snap(t.taskId);
    assert.equal(s.note, `Result not fetched yet: ${why}`);
    assert.equal(describeTask(s, Date.parse(s.createdAt)), `Completed · Result not fetched yet: ${why} · now`);
    // The failed fetch set a try in 5 s; this one fails too and sets the next in 10 s.
    await assert.rejects(h!.engine.fetchResult(t.key), (e: Error) => e.message === `${why} It is tried again in 10 s.`);
    failing = false;
    await clock!.tickAsync(10_100);
    assert.equal(h!.snap(t.taskId).outcome?.kind, 'result');
    assert.equal(h!.snap(t.taskId).note, undefined);
    assert.equal(describeTask(h!.snap(t.taskId), Date.parse(s.createdAt)), 'Completed · finished · now');
  });

  it('T-REQ-4: Fetch Task Result of a completed task whose tasks/result failed (-32603) asks the server again instead of returning the error', async () => {
    const t = await start({ engine: { autoFetchResults: () => false } });
    let failures = 1;
    h!.server.override('tasks/result', (_p, _c, builtin) => {
      if (failures-- > 0) throw new RpcError(-32603, 'busy');
      return builtin();
    });
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'THE REAL RESULT' }] });
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'completed');
    // Not tried again on its own (autoFetchResults is off): the error does not say it is.
    await assert.rejects(h!.engine.fetchResult(t.key), (e: Error) => e.message === 'the server answered tasks/result with error -32603: busy.');
    const outcome = await h!.engine.fetchResult(t.key);
    assert.equal(outcome.kind, 'result');
    assert.equal(results(), 2);
  });

  it('T-REQ-4: a failed task the server no longer knows (-32602 on tasks/result, confirmed by tasks/get): lost, with no "task not found" kept as its tool\'s error', async () => {
    const t = await start({ engine: { autoFetchResults: () => false } });
    h!.server.fail(t.taskId, { code: -32603, message: 'the tool crashed' }, 'Crashed');
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'failed');
    h!.server.forget(t.taskId);
    await assert.rejects(h!.engine.fetchResult(t.key), /^Error: The task is lost and no result was fetched before: The server no longer knows the task/);
    const s = h!.snap(t.taskId);
    assert.equal(s.lastServerStatus, 'failed');
    assert.equal(s.outcome, undefined);
    assert.equal(s.outcomeFetchedAt, undefined);
    assert.deepEqual(h!.server.requestsOf('tasks/get').map((r) => r.params), [{ taskId: t.taskId }], 'confirmed by tasks/get');
  });

  it('T-REQ-4: a failed task whose tool\'s own error is -32602 (the server still knows the task): that error is its outcome', async () => {
    const t = await start();
    h!.server.fail(t.taskId, { code: -32602, message: 'Invalid params: path must be absolute' });
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.deepEqual(h!.snap(t.taskId).outcome, { kind: 'error', error: { code: -32602, message: 'Invalid params: path must be absolute' } });
    assert.equal(h!.snap(t.taskId).status, 'failed');
    await clock!.tickAsync(600_000);
    assert.equal(results(), 1);
  });

  it('T-REQ-4: a transient error (-32603) from tasks/result that arrives before a poll sees the task completed: tasks/get confirms it completed, so the error is a failed fetch, tried again', async () => {
    const t = await start({ server: { notify: 'none' } });
    let failures = 1;
    h!.server.override('tasks/result', async (_p, _c, builtin) => {
      const answer = (await builtin()) as unknown; // blocks until the task ends
      if (failures-- > 0) throw new RpcError(-32603, 'busy');
      return answer;
    });
    h!.server.setStatus(t.taskId, 'input_required', 'Which file?');
    await clock!.tickAsync(60_000); // a poll sees it waiting: tasks/result is called and blocks
    assert.equal(results(), 1);
    assert.equal(h!.snap(t.taskId).status, 'input_required');
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'THE REAL RESULT' }] });
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'completed', 'tasks/get, asked at once, says it completed');
    assert.equal(h!.snap(t.taskId).outcome, undefined, 'the error is no outcome of a completed task');
    await clock!.tickAsync(5_100);
    assert.equal(results(), 2, 'tried again 5 s later');
    const outcome = h!.snap(t.taskId).outcome;
    assert.deepEqual(outcome?.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'THE REAL RESULT' }]);
  });

  it('a tasks/result refused (-32602) for a task its server still says waits for input: the first refusal is logged at debug level (a poll tells whether the task is lost, which is warned); refused again 5 s later, it is warned', async () => {
    const t = await start();
    h!.server.override('tasks/result', () => {
      throw new RpcError(-32602, 'Task not found');
    });
    h!.server.setStatus(t.taskId, 'input_required', 'Which file?');
    await clock!.tickAsync(0);
    await clock!.tickAsync(0);
    assert.equal(results(), 1);
    assert.equal(h!.snap(t.taskId).status, 'input_required', 'the poll finds it waiting');
    const refused = (level: string) => h!.log.lines.filter((l) => l.level === level && l.message === `[fake] tasks/result ${t.taskId} was refused: Task not found`).length;
    assert.deepEqual([refused('debug'), refused('warn')], [1, 0]);
    await clock!.tickAsync(5_100);
    assert.equal(results(), 2, 'tried again 5 s later');
    assert.deepEqual([refused('debug'), refused('warn')], [1, 1]);
  });

  it('T-REQ-4: a tasks/result asked while the task waited for input, which its server leaves unanswered once the task ended: given up after the request timeout (the server is told), asked again, and the result kept', async () => {
    const t = await start({ engine: { requestTimeoutMs: 1_000 } });
    h!.server.override('tasks/result', () => new Promise(() => undefined));
    h!.server.setStatus(t.taskId, 'input_required');
    await clock!.tickAsync(0);
    assert.equal(results(), 1, 'asked at once for the input');
    h!.server.override('tasks/result', undefined);
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'the answer' }] });
    await clock!.tickAsync(0);
    assert.equal(h!.snap(t.taskId).status, 'completed');
    await clock!.tickAsync(60_000);
    const first = h!.server.requestsOf('tasks/result')[0];
    assert.deepEqual(h!.server.notifications.filter((n) => n.method === 'notifications/cancelled').map((n) => n.params?.requestId), [first.id], 'the first call given up, and the server told');
    assert.equal(results(), 2, 'asked again');
    const outcome = h!.snap(t.taskId).outcome;
    assert.deepEqual(outcome?.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'the answer' }]);
    assert.ok(h!.log.has('warn', /^\[fake\] Cannot reach the server to follow its tasks: The server did not answer tasks\/result within 1 s\./), h!.log.text());
  });

  it('T-REQ-4: Fetch Task Result of a completed task whose server never answers tasks/result ends after the request timeout, saying so, instead of waiting for ever; Fetch again gets the result', async () => {
    const t = await start({ engine: { requestTimeoutMs: 1_000, autoFetchResults: () => false } });
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'the answer' }] });
    await clock!.tickAsync(0);
    h!.server.override('tasks/result', () => new Promise(() => undefined));
    const fetched = h!.engine.fetchResult(t.key).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    await clock!.tickAsync(1_000);
    assert.equal(await fetched, 'Request tasks/result timed out after 1000 ms without an answer.');
    h!.server.override('tasks/result', undefined);
    const outcome = await h!.engine.fetchResult(t.key);
    assert.deepEqual(outcome.kind === 'result' && outcome.result.content, [{ type: 'text', text: 'the answer' }]);
    assert.equal(results(), 2);
  });

  it('T-REQ-4: a server that leaves tasks/result unanswered once the task ended is unreachable, as one whose polls time out: tried again, and reached again by its answer', async () => {
    const t = await start({ engine: { requestTimeoutMs: 1_000 } });
    const told: string[] = [];
    h!.engine.onDidChangeReach((id) => told.push(id));
    h!.server.override('tasks/result', () => new Promise(() => undefined));
    h!.server.complete(t.taskId, { content: [{ type: 'text', text: 'the answer' }] });
    await clock!.tickAsync(1_000);
    assert.equal(h!.engine.unreachable('fake')?.why, 'The server did not answer tasks/result within 1 s.', h!.log.text());
    assert.deepEqual(told, ['fake']);
    assert.ok(!h!.log.has('warn', /tasks\/result \S+ failed/), h!.log.text());
    h!.server.override('tasks/result', undefined);
    await clock!.tickAsync(5_000);
    assert.equal(results(), 2, 'tried again 5 s later');
    assert.equal(h!.snap(t.taskId).outcome?.kind, 'result');
    assert.equal(h!.engine.unreachable('fake'), undefined, 'reached again by its answer');
    assert.deepEqual(told, ['fake', 'fake']);
  });

  it('T-REQ-4: the tasks/get that checks an early tasks/result answer, timed out, makes the server unreachable as a poll would; asked again later', async () => {
    const t = await start({ engine: { requestTimeoutMs: 1_000 } });
    // A sloppy server: an answer to tasks/result while the task waits for input, and no answer to tasks/get.
    h!.server.override('tasks/result', () => ({ content: [{ type: 'text', text: 'too soon' }] }));
    h!.server.override('tasks/get', () => new Promise(() => undefined));
    h!.server.setStatus(t.taskId, 'input_required');
    await clock!.tickAsync(1_000);
    assert.equal(h!.server.requestsOf('tasks/get').length, 1, 'the check, not a poll');
    assert.equal(h!.engine.unreachable('fake')?.why, 'The server did not answer tasks/get within 1 s.', h!.log.text());
    assert.ok(!h!.log.has('warn', /tasks\/get \S+ failed/), h!.log.text());
    assert.equal(h!.snap(t.taskId).outcome, undefined);
    await clock!.tickAsync(5_000);
    assert.equal(results(), 2, 'tasks/result asked again 5 s later');
  });
});
