// The public API (api/mcp-tasks.d.ts) inside a real extension host: directly, and from a second
// extension (test/fixtures/extensions/api-consumer, installed before the run) that reaches it
// through vscode.extensions.getExtension('mcp-tasks.mcp-tasks').exports, as other extensions do.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { McpTaskInfo, McpTaskResultInfo, McpTasksApi, McpToolInfo } from '../../api/mcp-tasks';
import { cleanUp, labWithHeldTasks, publicApi } from './taskApiHelpers';

const CONSUMER_ID = 'mcp-tasks-test.api-consumer';

/** What the consumer's activate() returns (see its extension.js). */
interface Consumer {
  startTool(toolName: string, args: Record<string, unknown>): Promise<{ server: { id: string; label: string }; tool: McpToolInfo; task: McpTaskInfo }>;
  waitForResult(id: string, waitSeconds: number): Promise<McpTaskResultInfo>;
  statuses(id: string): string[];
  call(name: string, ...args: unknown[]): Promise<unknown>;
}

suite('Public API', () => {
  let api: McpTasksApi;
  let consumer: Consumer;
  const started: string[] = [];

  suiteSetup(async () => {
    api = await publicApi();
    const ext = vscode.extensions.getExtension<Consumer>(CONSUMER_ID);
    assert.ok(ext, `The test extension ${CONSUMER_ID} is not installed (scripts/editor/package-test-extensions.mjs packages it; run-integration installs it).`);
    consumer = await ext.activate();
  });

  suiteTeardown(async () => {
    if (api) await cleanUp(api, started);
  });

  /** The text of a task's result, read by the other extension once it has completed (within 30 s). */
  const completedText = async (id: string) => {
    const r = await consumer.waitForResult(id, 30);
    assert.deepEqual([r.done, r.task.status, r.task.hasResult, r.outcome?.kind], [true, 'completed', true, 'result']);
    return r.outcome?.kind === 'result' ? r.outcome.result.content.map((b) => b.text).join('\n') : '';
  };

  /** A task of this test's own (a direct call that ends at once), so that it runs alone too. */
  const ownTask = async () => {
    const demo = api.getServers().find((s) => s.label === 'demo')!;
    const t = await api.runTool(demo.id, 'get-time');
    started.push(t.id);
    return t;
  };

  test('activate() returns API version 1 with every documented member, and the package names its types', () => {
    assert.equal(api.apiVersion, 1);
    for (const m of ['whenReady', 'getServers', 'getTools', 'runTool', 'getTask', 'getTasks', 'getResult', 'cancelTask', 'onDidChangeTask'] as const) {
      assert.equal(typeof api[m], 'function', m);
    }
    const pkg = vscode.extensions.getExtension('mcp-tasks.mcp-tasks')!.packageJSON as { types?: string };
    assert.equal(pkg.types, './api/mcp-tasks.d.ts');
  });

  test('whenReady() resolves with the configured servers loaded, and again at once once it has (ux14 F2)', async () => {
    const again = await vscode.extensions.getExtension<McpTasksApi>('mcp-tasks.mcp-tasks')!.activate();
    assert.equal(await again.whenReady(), undefined);
    assert.ok(again.getServers().some((s) => s.label === 'demo'), JSON.stringify(again.getServers()));
  });

  test('getServers lists the workspace servers; getTools tells each tool\'s task support, and connecting fills in the server\'s', async () => {
    const servers = api.getServers();
    const demo = servers.find((s) => s.label === 'demo');
    assert.ok(demo && servers.some((s) => s.label === 'everything'), JSON.stringify(servers));
    assert.equal(demo.type, 'stdio');
    const tools = await api.getTools(demo.id);
    const by = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual([by.get('build-project')?.taskSupport, by.get('build-project')?.runsAsTask], ['required', true]);
    assert.deepEqual([by.get('get-time')?.taskSupport, by.get('get-time')?.runsAsTask], ['forbidden', false]);
    assert.equal(by.get('build-project')?.inputSchema.type, 'object');
    const after = api.getServers().find((s) => s.id === demo.id);
    assert.equal(after?.state, 'connected');
    assert.deepEqual(after?.tasks, { toolCalls: true, list: true, cancel: true });
  });

  test('another extension runs a tool, gets control back while it works, follows it and reads the completed result', async function () {
    this.timeout(60_000);
    // task-lab's task is held until the test releases it: working when checked, however slow the machine.
    const lab = await labWithHeldTasks(api);
    try {
      const { server, task } = await consumer.startTool('work', { tag: 'tide pools', held: true, durationMs: 0 });
      started.push(task.id);
      assert.equal(server.label, 'lab');
      assert.equal(task.status, 'working', 'runTool resolves while the task works');
      assert.equal(task.kind, 'task');
      assert.equal(task.origin, 'api');
      assert.equal(task.toolName, 'work');
      assert.deepEqual(task.arguments, { tag: 'tide pools', held: true, durationMs: 0 });
      assert.equal(api.getTask(task.id)?.origin, 'api');

      const early = await consumer.waitForResult(task.id, 0);
      assert.equal(early.done, false);

      lab.release();
      assert.equal(await completedText(task.id), 'done: tide pools');
      const seen = consumer.statuses(task.id);
      assert.deepEqual(seen, ['working', 'completed'], 'onDidChangeTask reached the other extension');
    } finally {
      await lab.dispose();
    }
  });

  test('another extension runs server-everything\'s simulate-research-query and reads its report', async () => {
    const { server, task } = await consumer.startTool('simulate-research-query', { topic: 'tide pools' });
    started.push(task.id);
    assert.equal(server.label, 'everything');
    assert.deepEqual([task.kind, task.origin, task.toolName], ['task', 'api', 'simulate-research-query']);
    assert.deepEqual(task.arguments, { topic: 'tide pools' });

    assert.match(await completedText(task.id), /Research Report: tide pools/);
    const seen = consumer.statuses(task.id);
    assert.equal(seen[seen.length - 1], 'completed', `onDidChangeTask reached the other extension: ${seen.join(' → ')}`);
  });

  test('a tool that cannot run as a task runs as a tracked direct call', async () => {
    const demo = api.getServers().find((s) => s.label === 'demo')!;
    const t = await api.runTool(demo.id, 'get-time');
    started.push(t.id);
    assert.equal(t.kind, 'direct');
    const r = await api.getResult(t.id, { waitSeconds: 10 });
    assert.equal(r.task.status, 'completed');
    assert.ok(r.outcome?.kind === 'result' && typeof r.outcome.result.structuredContent?.iso === 'string');
  });

  test('cancelTask cancels a running task; its result then says why there is none', async () => {
    const demo = api.getServers().find((s) => s.label === 'demo')!;
    const t = await api.runTool(demo.id, 'long-running-scan', { arguments: { durationMs: 60_000 }, ttlSeconds: 120 });
    started.push(t.id);
    const statuses: string[] = [];
    const sub = api.onDidChangeTask((x) => x.id === t.id && statuses.push(x.status));
    const c = await api.cancelTask(t.id);
    sub.dispose();
    assert.equal(c.status, 'cancelled');
    assert.ok(statuses.includes('cancelled'));
    const r = await api.getResult(t.id);
    assert.deepEqual([r.done, r.outcome, r.fetchError], [true, undefined, 'The task was cancelled; it has no result.']);
  });

  test('cancelTask of a direct call resolves with it cancelled, not still working', async function () {
    this.timeout(60_000);
    // task-lab's work-direct (taskSupport forbidden), held: a plain call that runs until released,
    // which it never is here, so it is live at the cancel however slow the machine.
    const lab = await labWithHeldTasks(api);
    try {
      const t = await api.runTool(lab.id, 'work-direct', { arguments: { tag: 'stopped', held: true } });
      started.push(t.id);
      assert.deepEqual([t.kind, t.status], ['direct', 'working']);
      const c = await api.cancelTask(t.id);
      assert.equal(c.status, 'cancelled');
    } finally {
      await lab.dispose();
    }
  });

  test('what the API returns is a copy: changing it changes nothing', async () => {
    const { id } = await ownTask();
    const t = api.getTasks().find((x) => x.id === id);
    assert.ok(t);
    t.status = 'lost';
    t.arguments = { changed: true };
    assert.notEqual(api.getTask(t.id)?.status, 'lost');
    assert.notDeepEqual(api.getTask(t.id)?.arguments, { changed: true });
  });

  test('wrong input from another extension is refused with a clear message (an unknown task or tool names the method that lists what there is)', async () => {
    await assert.rejects(consumer.call('runTool', '', 'x'), /MCP Tasks API: runTool: serverId must be the id of a server from getServers\(\)/);
    await assert.rejects(consumer.call('runTool', 'demo', 'build-project', { arguments: [1] }), /runTool: options\.arguments must be an object/);
    await assert.rejects(consumer.call('runTool', 'demo', 'build-project', { ttlSeconds: -1 }), /options\.ttlSeconds must be a positive number/);
    await assert.rejects(consumer.call('getTools', 'nope'), /No MCP server "nope" is configured/);
    await assert.rejects(consumer.call('getResult', 'nope'), /No task with id "nope" is tracked\. getTasks\(\) lists the tracked tasks\./);
    await assert.rejects(consumer.call('cancelTask', 'nope'), /No task with id "nope" is tracked\. getTasks\(\) lists the tracked tasks\./);
    await assert.rejects(consumer.call('runTool', 'demo', 'no-such-tool'), /Server "demo" has no tool named "no-such-tool"\. getTools\(\) lists its tools\./);
    const own = await ownTask();
    await assert.rejects(consumer.call('getResult', own.id, { waitSeconds: -1 }), /getResult: options\.waitSeconds must be a number, 0 or more/);
    assert.equal(await consumer.call('getTask', 42), undefined);
  });
});
