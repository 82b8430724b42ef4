// The pure rules of the engine: when a tool runs as a task (T-CAP-2, T-TOOL-1..4) and which
// status changes are legal (T-LIFE-2, T-LIFE-3).
import * as assert from 'node:assert/strict';
import type { ServerCapabilities } from '../../../src/core/protocol/schemas';
import { ServerCapabilitiesSchema } from '../../../src/core/protocol/schemas';
import { decideExecution, disconnectCost, hasKeptResult, hasResult, hasResultToFetch, hasUnfetchedResult, isCancelable, mayRetryAsTask, serverAcceptsToolTasks } from '../../../src/core/tasks/policy';
import type { McpSession } from '../../../src/core/protocol/session';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { snapshot } from '../helpers/snapshots';
import { noteRefusal } from '../../../src/core/tasks/types';
import { TRANSITIONS, canTransition, isServerTerminal, isTerminal } from '../../../src/core/tasks/status';

const FULL: ServerCapabilities = { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } };

describe('decideExecution and the task capability', () => {
  it('T-CAP-2: tasks only where the server declared task-augmented tools/call, on 2025-11-25', () => {
    assert.equal(serverAcceptsToolTasks(FULL, '2025-11-25'), true);
    assert.equal(serverAcceptsToolTasks({}, '2025-11-25'), false, 'no tasks capability');
    assert.equal(serverAcceptsToolTasks(undefined, '2025-11-25'), false);
    assert.equal(serverAcceptsToolTasks({ tasks: { list: {}, cancel: {} } }, '2025-11-25'), false, 'tasks without requests');
    assert.equal(serverAcceptsToolTasks({ tasks: { requests: {} } }, '2025-11-25'), false, 'requests without tools.call');
    assert.equal(serverAcceptsToolTasks(FULL, '2025-06-18'), false, 'an older revision has no tasks');
    assert.equal(serverAcceptsToolTasks(FULL, undefined), false, 'not initialized');
    // A flag sent as `true` instead of `{}` still means declared.
    assert.equal(serverAcceptsToolTasks({ tasks: { requests: { tools: { call: true } } } }, '2025-11-25'), true);
  });

  it('T-CAP-2: a capability flag sent as false or null reads as not declared (true, or an object, as declared)', () => {
    const caps = (tasks: unknown) => ServerCapabilitiesSchema.parse({ tasks });
    assert.equal(serverAcceptsToolTasks(caps({ requests: { tools: { call: false } } }), '2025-11-25'), false);
    assert.equal(serverAcceptsToolTasks(caps({ requests: { tools: { call: null } } }), '2025-11-25'), false);
    assert.equal(serverAcceptsToolTasks(caps({ requests: { tools: { call: true } } }), '2025-11-25'), true);
  });

  it('T-TOOL-1: a server without tasks.requests.tools.call never gets a task, whatever the tool says', () => {
    for (const support of [undefined, 'forbidden', 'optional'] as const) {
      assert.deepEqual(decideExecution(false, support), { mode: 'direct' }, String(support));
      assert.deepEqual(decideExecution(false, support, 'direct'), { mode: 'direct' });
      const forced = decideExecution(false, support, 'task');
      assert.equal(forced.mode, 'refuse');
      assert.match((forced as { reason: string }).reason, /server does not declare task support/);
    }
    const required = decideExecution(false, 'required');
    assert.equal(required.mode, 'refuse', 'a required tool cannot be called at all');
    assert.match((required as { reason: string }).reason, /must run as a task, but the server does not declare task support/);
    assert.equal(mayRetryAsTask(false, 'optional'), false);
    assert.equal(mayRetryAsTask(false, 'required'), false);
  });

  it('T-TOOL-2: taskSupport absent or "forbidden" is never a task, even when asked', () => {
    for (const support of [undefined, 'forbidden'] as const) {
      assert.deepEqual(decideExecution(true, support), { mode: 'direct' });
      assert.deepEqual(decideExecution(true, support, 'auto'), { mode: 'direct' });
      assert.deepEqual(decideExecution(true, support, 'direct'), { mode: 'direct' });
      const forced = decideExecution(true, support, 'task');
      assert.equal(forced.mode, 'refuse');
      assert.match((forced as { reason: string }).reason, /tool does not support running as a task/);
      assert.equal(mayRetryAsTask(true, support), false, 'no retry as a task after -32600');
    }
  });

  it('T-TOOL-3: "optional" runs as a task by default and directly when preferred', () => {
    assert.deepEqual(decideExecution(true, 'optional'), { mode: 'task' });
    assert.deepEqual(decideExecution(true, 'optional', 'task'), { mode: 'task' });
    assert.deepEqual(decideExecution(true, 'optional', 'direct'), { mode: 'direct' });
    assert.equal(mayRetryAsTask(true, 'optional'), true);
  });

  it('T-TOOL-4: "required" always runs as a task; a direct call is refused', () => {
    assert.deepEqual(decideExecution(true, 'required'), { mode: 'task' });
    assert.deepEqual(decideExecution(true, 'required', 'task'), { mode: 'task' });
    const direct = decideExecution(true, 'required', 'direct');
    assert.equal(direct.mode, 'refuse');
    assert.match((direct as { reason: string }).reason, /cannot be called directly/);
  });
});

describe('task status table', () => {
  const ALL = ['working', 'input_required', 'completed', 'failed', 'cancelled'] as const;

  it('T-LIFE-2: working and input_required move to each other and to every terminal status', () => {
    for (const to of ALL) assert.equal(canTransition('working', to), true, `working -> ${to}`);
    for (const to of ALL) assert.equal(canTransition('input_required', to), true, `input_required -> ${to}`);
  });

  it('T-LIFE-3: completed, failed and cancelled are terminal: no transition out, not even to themselves', () => {
    for (const from of ['completed', 'failed', 'cancelled'] as const) {
      assert.deepEqual(TRANSITIONS[from], []);
      for (const to of ALL) assert.equal(canTransition(from, to), false, `${from} -> ${to}`);
      assert.equal(isServerTerminal(from), true);
      assert.equal(isTerminal(from), true);
    }
    assert.equal(isServerTerminal('working'), false);
    assert.equal(isServerTerminal('input_required'), false);
    assert.equal(isTerminal('working'), false);
    assert.equal(isTerminal('input_required'), false);
    // The local states end a task too.
    assert.equal(isTerminal('expired'), true);
    assert.equal(isTerminal('lost'), true);
  });
});

describe('isCancelable (the view\'s Cancel and the Cancel Task pick)', () => {
  const task = snapshot;
  const servers = (configured: boolean | undefined, caps?: ServerCapabilities) => ({
    isConfigured: () => configured,
    peekSession: () => (caps ? ({ serverCapabilities: caps } as McpSession) : undefined),
  });

  it('T-CAP-2: no Cancel where the server wrote "cancel": false', () => {
    const caps = (cancel: unknown) => ServerCapabilitiesSchema.parse({ tasks: { cancel, requests: { tools: { call: {} } } } });
    assert.equal(isCancelable(task(), servers(true, caps(false))), false);
    assert.equal(isCancelable(task(), servers(true, caps(null))), false);
    assert.equal(isCancelable(task(), servers(true, caps({}))), true);
  });

  it('offers Cancel for a live task of a configured server that takes tasks/cancel, or is not connected yet; never for an ended one', () => {
    assert.equal(isCancelable(task(), servers(true, FULL)), true);
    assert.equal(isCancelable(task(), servers(true)), true, 'not connected: not known not to');
    assert.equal(isCancelable(task(), servers(undefined)), true, 'configuration not read yet');
    assert.equal(isCancelable(task(), servers(true, { tasks: { list: {} } })), false, 'no tasks/cancel');
    assert.equal(isCancelable(task({ status: 'completed' }), servers(true, FULL)), false);
  });

  it('does not offer Cancel for a live task of a server removed from the configuration (no server to send tasks/cancel to); a direct call still stops here', () => {
    assert.equal(isCancelable(task(), servers(false)), false);
    assert.equal(isCancelable(task({ status: 'input_required' }), servers(false)), false);
    assert.equal(isCancelable(task({ kind: 'direct', taskId: 'direct-1' }), servers(false)), true);
  });

  it('disconnectCost counts what Disconnect or Restart would end (a stdio server\'s live tasks, any server\'s live calls) and what a connection that cannot be resumed may lose (legacy SSE, WebSocket); nothing ended or of another server', () => {
    const tasks = [
      task({ key: 'a', taskId: 'a' }),
      task({ key: 'b', taskId: 'b', status: 'input_required' }),
      task({ key: 'c', taskId: 'c', status: 'completed' }),
      task({ key: 'd', taskId: 'direct-d', kind: 'direct' }),
      task({ key: 'e', taskId: 'e', serverId: 'other' }),
    ];
    assert.deepEqual(disconnectCost(tasks, 's', 'stdio'), { ended: 3, calls: 1, atRisk: 0 }, 'stdio: its two live tasks and its call');
    assert.deepEqual(disconnectCost(tasks, 's', 'http'), { ended: 1, calls: 1, atRisk: 0 }, 'Streamable HTTP: its session is kept, the tasks outlive the connection; the call does not');
    assert.deepEqual(disconnectCost(tasks, 's', 'ws'), { ended: 1, calls: 1, atRisk: 2 }, 'WebSocket: a new connection may not know the tasks');
    assert.deepEqual(disconnectCost(tasks, 's', 'sse'), { ended: 1, calls: 1, atRisk: 2 }, 'legacy SSE: the same');
    assert.deepEqual(disconnectCost(tasks, 's', undefined), { ended: 1, calls: 1, atRisk: 0 }, 'not configured: only the call is known to end');
    assert.deepEqual(disconnectCost([], 's', 'stdio'), { ended: 0, calls: 0, atRisk: 0 });
    assert.deepEqual(disconnectCost(tasks, 's', 'http', true), { ended: 3, calls: 1, atRisk: 0 }, 'moved (removed, or a new url waits): nothing follows its tasks after this connection');
    // A task-augmented call whose CreateTaskResult has not come: no task yet, and its answer ends with the connection.
    assert.deepEqual(disconnectCost(tasks, 's', 'http', false, 2), { ended: 3, calls: 3, atRisk: 0 }, 'Streamable HTTP: its call and two calls not answered yet');
    assert.deepEqual(disconnectCost([], 's', 'http', false, 1), { ended: 1, calls: 1, atRisk: 0 }, 'only a call not answered yet');
  });

  it('hasResultToFetch: Fetch Task Result offers tasks with a kept result or one their server may give, not cancelled, lost or expired ones without, nor calls still running', () => {
    const kept = { kind: 'result' as const, result: { content: [] } };
    const offered = (over: Partial<TaskSnapshot>) => hasResultToFetch(task(over));
    assert.deepEqual(
      [offered({}), offered({ status: 'input_required' }), offered({ status: 'completed' }), offered({ status: 'failed' })],
      [true, true, true, true],
      'a task, live or ended, whose server may have its result',
    );
    // T-REQ-4: a cancelled task's tasks/result is an error saying it has no result (-32603 from the SDK's servers).
    assert.deepEqual([offered({ status: 'cancelled' }), offered({ status: 'cancelled', outcome: kept })], [false, true], 'cancelled: only with a result kept');
    assert.deepEqual([offered({ status: 'lost' }), offered({ status: 'expired' })], [false, false], 'gone without a result in hand');
    assert.deepEqual([offered({ status: 'lost', outcome: kept }), offered({ status: 'expired', outcomeFetchedAt: '2025-01-01T00:00:00.000Z' })], [true, true], 'kept before it went');
    assert.deepEqual([offered({ kind: 'direct', taskId: 'direct-1' }), offered({ kind: 'direct', taskId: 'direct-1', status: 'completed', outcome: kept })], [false, true], 'a call only once its result is in hand');
  });

  it('hasKeptResult: Remove from List asks first exactly when a result or error is kept here (in hand or on disk), not for one only its server has', () => {
    const kept = (over: Partial<TaskSnapshot>) => hasKeptResult(task(over));
    const error = { kind: 'error' as const, error: { code: -32603, message: 'boom' } };
    assert.deepEqual(
      [kept({ status: 'completed', outcome: { kind: 'result', result: { content: [] } } }), kept({ status: 'failed', outcome: error }), kept({ status: 'expired', outcomeFetchedAt: '2025-01-01T00:00:00.000Z' })],
      [true, true, true],
      'a result, an error, one stored on disk',
    );
    assert.deepEqual(
      [kept({ status: 'completed' }), kept({ status: 'cancelled' }), kept({ status: 'lost' }), kept({ status: 'completed', resultDeleted: true })],
      [false, false, false, false],
      'nothing kept: still at its server, none, or deleted',
    );
  });

  it('hasUnfetchedResult: Remove from List also asks first for a task whose result or error only its server has (not fetched, or its kept copy deleted), not for one with nothing to fetch', () => {
    const unfetched = (over: Partial<TaskSnapshot>) => hasUnfetchedResult(task(over));
    assert.deepEqual(
      [unfetched({ status: 'completed' }), unfetched({ status: 'failed' }), unfetched({ status: 'completed', resultDeleted: true })],
      [true, true, true],
      'ended with a result or error at its server only',
    );
    assert.deepEqual(
      [
        unfetched({ status: 'completed', outcome: { kind: 'result', result: { content: [] } } }),
        unfetched({ status: 'expired', outcomeFetchedAt: '2025-01-01T00:00:00.000Z' }),
        unfetched({ status: 'cancelled' }),
        unfetched({ status: 'lost' }),
        unfetched({ status: 'expired' }),
        unfetched({ kind: 'direct', taskId: 'direct-1', status: 'failed' }),
      ],
      [false, false, false, false, false, false],
      'kept here (hasKeptResult asks), or nothing to fetch: cancelled, lost, expired, a direct call',
    );
  });

  it('hasResult: an ended task is in the Fetch Task Result pick exactly when its row offers Open Result', () => {
    const kept = { kind: 'result' as const, result: { content: [] } };
    for (const status of ['completed', 'failed', 'cancelled', 'lost', 'expired'] as const) {
      for (const over of [{}, { outcome: kept }, { kind: 'direct' as const, taskId: 'direct-1' }, { kind: 'direct' as const, taskId: 'direct-1', outcome: kept }]) {
        const t = task({ status, ...over });
        assert.equal(hasResultToFetch(t), hasResult(t), `${status} ${JSON.stringify(over)}`);
      }
    }
  });
});


describe('noteRefusal (a failure the user caused by refusing a request is not told)', () => {
  it('notes the task a refused request is about, else the direct calls it may be about (never the task hosted here); any other answer takes the note back', () => {
    const refused = new Set<string>();
    noteRefusal(refused, { task: { key: 'T' }, calls: ['c1'] }, true);
    noteRefusal(refused, { calls: ['c1', 'c2'] }, true);
    assert.deepEqual([...refused], ['T', 'c1', 'c2']);
    noteRefusal(refused, { task: { key: 'T' } }, false);
    noteRefusal(refused, {}, true);
    assert.deepEqual([...refused], ['c1', 'c2']);
  });
});
