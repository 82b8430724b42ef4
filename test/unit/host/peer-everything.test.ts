// The TaskHost against a real requestor: server-everything's trigger-*-async tools send
// task-augmented elicitation and sampling to the client, poll its tasks/get and fetch its
// tasks/result, then report what they got.
import * as assert from 'node:assert/strict';
import type { HostedTaskSnapshot } from '../../../src/core/host/taskHost';
import { TaskHost } from '../../../src/core/host/taskHost';
import { CallToolResultSchema, RELATED_TASK_META } from '../../../src/core/protocol/schemas';
import { McpSession } from '../../../src/core/protocol/session';
import type { ServerRequestContext } from '../../../src/core/tasks/engine';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { StdioTransport } from '../../../src/core/transports/stdio';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import type { Transport } from '../../../src/core/transports/transport';
import { MemoryLogger } from '../helpers/logger';
import { everythingEntry, startEverything } from '../helpers/peers';

const transports: Array<{ name: string; make: (log: MemoryLogger) => Promise<{ transport: Transport; stop: () => Promise<void> }> }> = [
  {
    name: 'stdio',
    make: async (log) => ({ transport: new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], logger: log }), stop: async () => undefined }),
  },
  {
    name: 'Streamable HTTP',
    make: async (log) => {
      const peer = await startEverything('streamableHttp');
      return { transport: new StreamableHttpTransport({ url: `http://127.0.0.1:${peer.port}/mcp`, logger: log, serverName: 'everything' }), stop: peer.stop };
    },
  },
];

for (const t of transports) {
  describe(`peer: server-everything polls tasks hosted by the client, over ${t.name}`, function () {
    this.timeout(30000);
    const log = new MemoryLogger();
    const asked: Array<{ method: string; params: Record<string, unknown> | undefined; ctx: ServerRequestContext }> = [];
    const snapshots: HostedTaskSnapshot[] = [];
    let host: TaskHost;
    let engine: TaskEngine;
    let session: McpSession;
    let stop: () => Promise<void>;

    before(async () => {
      host = new TaskHost({ logger: log, label: () => 'everything' });
      host.onDidChange((s) => snapshots.push(s));
      engine = new TaskEngine({
        logger: log,
        handlers: {
          elicitation: {
            handle: host.wrap('elicitation/create', async (params, ctx) => {
              asked.push({ method: 'elicitation/create', params, ctx });
              return { action: 'accept', content: { name: 'Ada Lovelace', favoriteColor: 'Purple', agreeToTerms: true } };
            }),
          },
          sampling: {
            handle: host.wrap('sampling/createMessage', async (params, ctx) => {
              asked.push({ method: 'sampling/createMessage', params, ctx });
              return { role: 'assistant', content: { type: 'text', text: 'Answer from the hosted task' }, model: 'test-model', stopReason: 'endTurn' };
            }),
          },
        },
        sessions: { getSession: async () => session, label: () => 'everything', tasksOutliveConnection: () => false },
      });
      const made = await t.make(log);
      stop = made.stop;
      session = new McpSession(made.transport, {
        logger: log,
        clientInfo: { name: 'mcp-tasks-test', version: '0.0.0' },
        capabilities: { ...engine.clientCapabilities(), ...host.capabilities() },
      });
      engine.attachSession('everything', session);
      host.attachSession('everything', session);
      await session.connect();
    });
    after(async () => {
      host?.dispose();
      engine?.dispose();
      await session?.close();
      await stop?.();
    });

    /** Calls a tool and returns its text. */
    async function call(name: string, args: Record<string, unknown>): Promise<string> {
      const result = await session.request('tools/call', { name, arguments: args }, CallToolResultSchema, { timeoutMs: 25000 });
      return result.content.map((c) => (c as { text?: string }).text ?? '').join('\n');
    }

    /** The requests the server sent us about one task, read off the trace. */
    function incoming(method: string, taskId: string): number {
      return log.lines.filter((l) => l.level === 'trace' && l.message.startsWith('← ') && l.message.includes(`"method":"${method}"`) && l.message.includes(taskId)).length;
    }

    it('T-RCV-1: the async trigger tools exist because the client declared tasks.requests', async () => {
      const names = (await session.listTools()).map((x) => x.name);
      assert.ok(names.includes('trigger-elicitation-request-async'), names.join(', '));
      assert.ok(names.includes('trigger-sampling-request-async'), names.join(', '));
    });

    it('T-RCV-2/4: task-augmented elicitation: the server polls tasks/get, fetches tasks/result and reports our answer', async () => {
      const text = await call('trigger-elicitation-request-async', {});
      const ask = asked.find((a) => a.method === 'elicitation/create');
      assert.ok(ask, 'the elicitation reached the handler');
      assert.equal(ask.params?.task, undefined, 'task stripped before the handler');
      assert.match(String(ask.params?.message), /async task demo/);
      const snap = snapshots.find((s) => s.method === 'elicitation/create' && s.resultRetrievedAt)!;
      assert.ok(snap, 'the server fetched the result');
      assert.equal(snap.ttl, 600_000);
      assert.match(text, new RegExp(`Task created: ${snap.taskId}`));
      assert.match(text, /Poll 1: completed/);
      assert.match(text, /\[COMPLETED\] User provided the requested information!/);
      assert.match(text, /- Name: Ada Lovelace\n- Favorite Color: Purple\n- Agreed to terms: true/);
      assert.ok(text.includes(RELATED_TASK_META), 'the raw result carries related-task _meta');
      assert.ok(incoming('tasks/get', snap.taskId) >= 1, 'the server polled tasks/get');
      assert.equal(incoming('tasks/result', snap.taskId), 1);
      assert.ok(log.has('info', new RegExp(`\\[everything\\] Hosted task ${snap.taskId}: result retrieved by the server \\(result\\)`)));
    });

    it('T-RCV-2/4: task-augmented sampling: the server polls, fetches and reports our model answer', async () => {
      const text = await call('trigger-sampling-request-async', { prompt: 'Say hi', maxTokens: 20 });
      const ask = asked.find((a) => a.method === 'sampling/createMessage');
      assert.ok(ask);
      assert.equal(ask.params?.maxTokens, 20);
      const snap = snapshots.find((s) => s.method === 'sampling/createMessage' && s.resultRetrievedAt)!;
      assert.ok(snap);
      assert.match(snap.summary, /Say hi/);
      assert.equal(snap.ttl, 300_000);
      assert.match(text, /\[COMPLETED\] Async sampling completed!/);
      assert.match(text, /Poll 1: completed/);
      assert.match(text, /Answer from the hosted task/);
      assert.ok(text.includes(`"taskId": "${snap.taskId}"`), 'related-task _meta names our task');
      assert.ok(incoming('tasks/get', snap.taskId) >= 1);
      assert.equal(incoming('tasks/result', snap.taskId), 1);
    });
  });
}
