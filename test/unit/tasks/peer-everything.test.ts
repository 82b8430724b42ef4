import * as assert from 'node:assert/strict';
import { StdioTransport } from '../../../src/core/transports/stdio';
import { StreamableHttpTransport } from '../../../src/core/transports/streamableHttp';
import type { Transport } from '../../../src/core/transports/transport';
import type { ServerRequestContext } from '../../../src/core/tasks/engine';
import type { TaskSnapshot } from '../../../src/core/tasks/types';
import { MemoryLogger } from '../helpers/logger';
import type { EngineHarness } from '../helpers/peers';
import { connectEngine, everythingEntry, sdkExamples, startEverything, startHttpPeer } from '../helpers/peers';

function text(s: TaskSnapshot): string {
  assert.equal(s.outcome?.kind, 'result', `outcome: ${JSON.stringify(s.outcome)}`);
  return s.outcome.kind === 'result' ? s.outcome.result.content.map((c) => (c as { text?: string }).text ?? '').join('\n') : '';
}

/** The same scenarios over each transport server-everything speaks. */
const transports: Array<{ name: string; make: () => Promise<{ transport: Transport; stop: () => Promise<void> }> }> = [
  {
    name: 'stdio',
    make: async () => ({ transport: new StdioTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], logger: new MemoryLogger() }), stop: async () => undefined }),
  },
  {
    name: 'Streamable HTTP',
    make: async () => {
      const peer = await startEverything('streamableHttp');
      const transport = new StreamableHttpTransport({ url: `http://127.0.0.1:${peer.port}/mcp`, logger: new MemoryLogger(), serverName: 'everything' });
      return { transport, stop: peer.stop };
    },
  },
];

for (const t of transports) {
  describe(`peer: server-everything simulate-research-query over ${t.name}`, function () {
    this.timeout(60000);
    let h: EngineHarness;
    let stop: () => Promise<void>;
    const asked: ServerRequestContext[] = [];

    before(async () => {
      const made = await t.make();
      stop = made.stop;
      h = await connectEngine(made.transport, {
        elicitation: {
          handle: async (params, ctx) => {
            asked.push(ctx);
            const schema = params?.requestedSchema as { properties: { interpretation: { oneOf: Array<{ const: string }> } } };
            return { action: 'accept', content: { interpretation: schema.properties.interpretation.oneOf[0].const } };
          },
        },
      });
    });
    after(async () => {
      await h?.close();
      await stop?.();
    });

    it('runs as a task through its stages to a completed result, fetched automatically', async () => {
      const first = await h.engine.callTool('peer', 'simulate-research-query', { arguments: { topic: 'tide pools' } });
      assert.equal(first.kind, 'task');
      assert.equal(first.status, 'working');
      const messages = new Set<string>();
      const sub = h.engine.onDidChange((s) => s.key === first.key && s.statusMessage && messages.add(s.statusMessage));
      const done = await h.until(first.key, (s) => s.status === 'completed' && s.outcome !== undefined, 'the completed result');
      sub.dispose();
      assert.match(text(done), /# Research Report: tide pools/);
      assert.ok(messages.size >= 2, `status messages seen: ${[...messages].join(' | ')}`);
      assert.ok(h.log.has('info', /result retrieved/));
    });

    it('with ambiguous: true goes input_required, asks through tasks/result, and completes with the answer', async () => {
      const first = await h.engine.callTool('peer', 'simulate-research-query', { arguments: { topic: 'python', ambiguous: true } });
      let sawInput = false;
      const sub = h.engine.onDidChange((s) => s.key === first.key && s.status === 'input_required' && (sawInput = true));
      const done = await h.until(first.key, (s) => s.status === 'completed' && s.outcome !== undefined, 'the completed result');
      sub.dispose();
      assert.ok(sawInput, 'the task went input_required');
      assert.equal(asked.length, 1);
      assert.equal(asked[0].relatedTaskId, first.taskId, 'the elicitation carried the related-task _meta');
      assert.equal(asked[0].task?.key, first.key, 'the handler received the task it belongs to');
      assert.match(text(done), /Clarification/);
    });
  });
}

describe('peer: SDK example simpleTaskInteractive over Streamable HTTP', function () {
  this.timeout(60000);
  let h: EngineHarness;
  let stop: () => Promise<void>;
  const sampled: Array<Record<string, unknown> | undefined> = [];

  before(async () => {
    const peer = await startHttpPeer([`${sdkExamples}/simpleTaskInteractive.js`], /Starting server on/);
    stop = peer.stop;
    h = await connectEngine(new StreamableHttpTransport({ url: `http://127.0.0.1:${peer.port}/mcp`, logger: new MemoryLogger(), serverName: 'interactive' }), {
      elicitation: { handle: async () => ({ action: 'accept', content: { confirm: true } }) },
      sampling: {
        handle: async (params) => {
          sampled.push(params);
          return { role: 'assistant', content: { type: 'text', text: 'Old pond, a frog jumps' }, model: 'test-model', stopReason: 'endTurn' };
        },
      },
    });
  });
  after(async () => {
    await h?.close();
    await stop?.();
  });

  it('confirm_delete: the elicitation is answered and the task completes', async () => {
    const first = await h.engine.callTool('peer', 'confirm_delete', { arguments: { filename: 'notes.txt' } });
    const done = await h.until(first.key, (s) => s.outcome !== undefined && s.status === 'completed', 'completion');
    assert.equal(text(done), "Deleted 'notes.txt'");
  });

  it('write_haiku: the sampling request is answered and the task completes with the text', async () => {
    const first = await h.engine.callTool('peer', 'write_haiku', { arguments: { topic: 'frogs' } });
    const done = await h.until(first.key, (s) => s.outcome !== undefined && s.status === 'completed', 'completion');
    assert.equal(text(done), 'Haiku:\nOld pond, a frog jumps');
    assert.match(JSON.stringify(sampled[0]), /Write a haiku about frogs/);
  });
});
