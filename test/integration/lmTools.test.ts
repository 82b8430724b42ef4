// The language-model tools inside a real extension host, called through vscode.lm.invokeTool as
// an agent's tool calls are, against the workspace's stdio servers `everything`
// (server-everything) and `demo` (demo/server.mjs). In this test mode the editor skips the
// confirmation of prepareInvocation and takes it as yes.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpTasksApi } from '../../api/mcp-tasks';
import { getExtension, waitFor } from './helpers';
import { QuickInputSpy, accept } from './quickInputs';
import type { ToolAnswer } from './taskApiHelpers';
import { cleanUp, invoke, labWithHeldTasks, publicApi } from './taskApiHelpers';
import type { TasksServiceDeps } from '../../src/core/api/service';
import { TasksService } from '../../src/core/api/service';
import { nullLogger } from '../../src/core/util/log';
import type { Harness } from '../unit/helpers/fakeTaskServer';
import { createHarness } from '../unit/helpers/fakeTaskServer';
import { toolsOf } from './lmToolsOf';

const TOOLS = ['mcpTasks_listTools', 'mcpTasks_startTask', 'mcpTasks_getTask', 'mcpTasks_getResult', 'mcpTasks_cancelTask'];

suite('Language-model tools', () => {
  let api: McpTasksApi;
  const started: string[] = [];

  /** The API's id of a task the model knows by its taskId (for cleanup and origin checks). */
  const track = (taskId: string) => {
    const t = api.getTasks().find((x) => x.taskId === taskId);
    assert.ok(t, `task ${taskId} is tracked`);
    started.push(t.id);
    return t;
  };

  suiteSetup(async () => {
    api = await publicApi();
    // Earlier suites disconnect the servers they used; listing every server leaves those so.
    for (const s of api.getServers().filter((x) => x.label === 'everything' || x.label === 'demo')) {
      await vscode.commands.executeCommand('mcpTasks.connectServer', { kind: 'server', id: s.id });
    }
  });

  suiteTeardown(async () => {
    if (api) await cleanUp(api, started);
  });

  test('the five tools are contributed and registered, each with a model description and an input schema', () => {
    const contributed: Array<Record<string, unknown>> = getExtension().packageJSON.contributes?.languageModelTools ?? [];
    assert.deepEqual(contributed.map((t) => t.name), TOOLS);
    for (const c of contributed) {
      for (const key of ['displayName', 'toolReferenceName', 'modelDescription', 'inputSchema']) assert.ok(c[key], `${String(c.name)} has ${key}`);
      assert.equal(c.canBeReferencedInPrompt, true);
    }
    for (const name of TOOLS) {
      const info = vscode.lm.tools.find((t) => t.name === name);
      assert.ok(info, `${name} is in vscode.lm.tools`);
      assert.ok(info.description.length > 80, `${name} tells the model what it does`);
      assert.equal((info.inputSchema as { type?: string }).type, 'object');
    }
  });

  /**
   * "picky" as a new window finds it: not connected, no input saved, and not held by a Disconnect
   * (listing every server leaves a server the user disconnected so), whatever earlier tests did
   * with it. Forget Saved Inputs, then the server out of the workspace's mcp.json (renamed) and
   * back: a new server.
   */
  const freshPicky = async () => {
    await vscode.commands.executeCommand('mcpTasks.forgetSavedInputs');
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'mcp.json');
    const original = fs.readFileSync(file, 'utf8');
    const labels = () => api.getServers().map((s) => s.label);
    try {
      fs.writeFileSync(file, original.replace('"picky": {', '"picky-away": {'));
      await waitFor(() => labels().includes('picky-away') && !labels().includes('picky'), 'picky to leave the configuration');
    } finally {
      fs.writeFileSync(file, original);
    }
    await waitFor(() => labels().includes('picky') && !labels().includes('picky-away'), 'picky to be back');
  };

  test('mcpTasks_listTools lists the task tools of the servers, with their inputs, leaves out plain tools, and asks the user nothing', async function () {
    this.timeout(30_000);
    await freshPicky();
    const spy = new QuickInputSpy();
    let a: ToolAnswer;
    try {
      // "picky" needs inputs (a pickString and a password, none saved, see freshPicky):
      // listing every server does not put up its prompts, it names what the server needs.
      a = await invoke('mcpTasks_listTools', {});
      assert.deepEqual(spy.shown, [], 'no quick input while listing every server');
      assert.match(a.text, /Server "picky" was not connected: it needs input "pollInterval" from the user\. To list its tools, call mcpTasks_listTools with server "picky"/);
      const picky = (a.data.servers as Array<Record<string, unknown>>).find((s) => s.server === 'picky');
      assert.deepEqual([picky?.state, picky?.needsInput], ['needsInput', 'pollInterval']);
      assert.equal(api.getServers().find((s) => s.label === 'picky')?.state, 'idle', 'not an error');
      // Naming the server connects it, asking for its pollInterval (the default is taken) and password.
      const named = invoke('mcpTasks_listTools', { server: 'picky' });
      const input = await spy.next('the pick of the pollInterval input of "picky"');
      assert.equal(input.title, 'MCP server "picky"');
      spy.type('s3cret');
      await accept();
      const password = await spy.next('the password input of "picky"');
      assert.deepEqual([password.kind, password.text], ['input', 'Token for picky']);
      await accept();
      const p = await named;
      assert.match(p.text, /server "picky", tool "build-project" \(taskSupport required\)/);
    } finally {
      spy.dispose();
    }
    assert.match(a.text, /tools can run as tasks:/);
    assert.match(a.text, /server "everything", tool "simulate-research-query" \(taskSupport required\)/);
    assert.match(a.text, /server "demo", tool "build-project" \(taskSupport required\)/);
    assert.match(a.text, /server "demo", tool "quick-echo" \(taskSupport optional\)/);
    const tools = a.data.tools as Array<{ server: string; tool: string; inputSchema: { required: string[] } }>;
    assert.ok(!tools.some((t) => t.tool === 'get-time' || t.tool === 'echo'), 'tools that cannot run as tasks are left out');
    const research = tools.find((t) => t.tool === 'simulate-research-query');
    assert.ok(research?.inputSchema.required.includes('topic'), 'its input schema, whole');
    const only = await invoke('mcpTasks_listTools', { server: 'demo' });
    assert.ok((only.data.tools as Array<{ server: string }>).every((t) => t.server === 'demo'));
  });

  test('mcpTasks_listTools of every server does not connect a server the user disconnected, and says so; naming it connects it', async () => {
    const demo = api.getServers().find((s) => s.label === 'demo')!;
    await vscode.commands.executeCommand('mcpTasks.disconnectServer', { kind: 'server', id: demo.id, confirmed: true });
    const a = await invoke('mcpTasks_listTools', {});
    assert.equal(api.getServers().find((s) => s.id === demo.id)?.state, 'idle', 'still disconnected');
    assert.match(a.text, /Server "demo" was not connected: the user disconnected it \(or dismissed its input\)\. Name it \(mcpTasks_listTools with server "demo"\) only if the user wants it connected again\./);
    assert.ok(!(a.data.tools as Array<{ server: string }>).some((t) => t.server === 'demo'));
    assert.equal((a.data.servers as Array<Record<string, unknown>>).find((s) => s.server === 'demo')?.state, 'disconnected');
    const named = await invoke('mcpTasks_listTools', { server: 'demo' });
    assert.match(named.text, /server "demo", tool "build-project"/);
    assert.equal(api.getServers().find((s) => s.id === demo.id)?.state, 'connected');
  });

  test('an agent starts a task, gets control back while it works, and later reads the completed result', async function () {
    this.timeout(60_000);
    // task-lab's task is held until the test releases it: working when checked, however slow the machine.
    const lab = await labWithHeldTasks(api);
    try {
      const start = await invoke('mcpTasks_startTask', { server: 'lab', tool: 'work', arguments: { tag: 'tide pools', held: true, durationMs: 0 } });
      const task = start.data.task as { taskId: string; status: string; startedBy: string; server: string };
      assert.equal(task.status, 'working', 'control comes back before the task ends');
      assert.equal(task.startedBy, 'chat');
      assert.equal(task.server, 'lab');
      assert.match(start.text, new RegExp(`^Started task "${task.taskId}"\\.`));
      assert.match(start.text, /mcpTasks_getResult/);
      assert.equal(track(task.taskId).origin, 'chat', 'the task is tracked as started by chat (the view\'s tooltip says so)');

      const check = await invoke('mcpTasks_getTask', { taskId: task.taskId });
      assert.equal((check.data.task as { status: string }).status, 'working');
      assert.match(check.text, /is working/);

      const early = await invoke('mcpTasks_getResult', { taskId: task.taskId });
      assert.equal(early.data.done, false);
      assert.match(early.text, /^The task has not ended yet\./);

      lab.release();
      const result = await invoke('mcpTasks_getResult', { taskId: task.taskId, server: 'lab', waitSeconds: 30 });
      assert.equal(result.data.done, true, result.text);
      assert.equal((result.data.task as { status: string }).status, 'completed');
      assert.match(result.text, /The result:\n[\s\S]*done: tide pools/);
    } finally {
      await lab.dispose();
    }
  });

  test('an agent runs server-everything\'s simulate-research-query and reads its report', async () => {
    const start = await invoke('mcpTasks_startTask', { server: 'everything', tool: 'simulate-research-query', arguments: { topic: 'tide pools' } });
    const task = start.data.task as { taskId: string; startedBy: string; server: string };
    assert.deepEqual([task.startedBy, task.server], ['chat', 'everything']);
    assert.match(start.text, new RegExp(`^Started task "${task.taskId}"\\.`));
    track(task.taskId);
    const result = await invoke('mcpTasks_getResult', { taskId: task.taskId, server: 'everything', waitSeconds: 30 });
    assert.equal(result.data.done, true, result.text);
    assert.equal((result.data.task as { status: string }).status, 'completed');
    assert.match(result.text, /The result:\n[\s\S]*Research Report: tide pools/);
  });

  test('a bounded wait returns the status of a task that has not ended; mcpTasks_cancelTask cancels one', async function () {
    this.timeout(60_000);
    // task-lab's held tasks: only the release ends them, however slow the machine.
    const lab = await labWithHeldTasks(api);
    try {
      const start = await invoke('mcpTasks_startTask', { server: 'lab', tool: 'work', arguments: { tag: 'bounded', held: true, durationMs: 0 }, ttlSeconds: 120 });
      const taskId = (start.data.task as { taskId: string }).taskId;
      track(taskId);
      // Bounded: it returns though the task cannot end.
      const waited = await invoke('mcpTasks_getResult', { taskId, waitSeconds: 1 });
      assert.equal(waited.data.done, false);
      assert.equal((waited.data.task as { status: string }).status, 'working');
      assert.match(waited.text, /^The task has not ended after waiting 1 s\./);
      // It waited: for the task's end, through tasks/result (which blocks until then), not a look at the status only.
      await waitFor(() => lab.requests().includes(`tasks/result ${taskId}`), "the wait's tasks/result").catch((err: Error) => assert.fail(`${err.message}; asked: ${JSON.stringify(lab.requests())}`));
      lab.release();
      assert.equal((await invoke('mcpTasks_getResult', { taskId, waitSeconds: 30 })).data.done, true, 'released, it ends');

      // Another held task (no tasks/result in flight): cancelled, it has no result.
      const other = await invoke('mcpTasks_startTask', { server: 'lab', tool: 'work', arguments: { tag: 'cancelled', held: true, durationMs: 0 } });
      const otherId = (other.data.task as { taskId: string }).taskId;
      track(otherId);
      const cancelled = await invoke('mcpTasks_cancelTask', { taskId: otherId });
      assert.equal((cancelled.data.task as { status: string }).status, 'cancelled');
      assert.match(cancelled.text, /Cancellation of task .* was requested\.\n.*is cancelled/);
      const after = await invoke('mcpTasks_getResult', { taskId: otherId });
      assert.match(after.text, /No result: The task was cancelled; it has no result\./);
      // Cancelling it again: no error, the task as it stands (the user is not asked to confirm a cancel that does nothing).
      const again = await invoke('mcpTasks_cancelTask', { taskId: otherId });
      assert.match(again.text, new RegExp(`^Task "${otherId}" had already ended: nothing was cancelled\\.\n.*is cancelled`));
      assert.equal((again.data.task as { status: string }).status, 'cancelled');
      // One that ends as the cancel reaches its server (refused: -32602): the model learns it ended, and how, not an error.
      const late = await invoke('mcpTasks_startTask', { server: 'lab', tool: 'work', arguments: { tag: 'too late', held: true, endsOnCancel: true } });
      const lateId = (late.data.task as { taskId: string }).taskId;
      track(lateId);
      const refused = await invoke('mcpTasks_cancelTask', { taskId: lateId });
      assert.match(refused.text, new RegExp(`^Task "${lateId}" had already ended: nothing was cancelled\\.\n.*is completed`));
      assert.equal((refused.data.task as { status: string }).status, 'completed');
    } finally {
      await lab.dispose();
    }
  });

  test('a wait ends when the task does, with its result: the task ended during the wait, released once the wait had begun', async function () {
    this.timeout(60_000);
    const lab = await labWithHeldTasks(api);
    try {
      const start = await invoke('mcpTasks_startTask', { server: 'lab', tool: 'work', arguments: { tag: 'awaited', held: true, durationMs: 0 } });
      const taskId = (start.data.task as { taskId: string }).taskId;
      track(taskId);
      const waiting = invoke('mcpTasks_getResult', { taskId, waitSeconds: 60 });
      await waitFor(() => lab.requests().includes(`tasks/result ${taskId}`), 'the wait to begin (its tasks/result)').catch((err: Error) => assert.fail(`${err.message}; asked: ${JSON.stringify(lab.requests())}`));
      lab.release();
      const r = await waiting;
      assert.equal(r.data.done, true, r.text);
      assert.equal((r.data.task as { status: string }).status, 'completed');
      assert.match(r.text, /The result:\n[\s\S]*done: awaited/);
    } finally {
      await lab.dispose();
    }
  });

  test('a failing task\'s error output reaches the model, marked as an error', async () => {
    const start = await invoke('mcpTasks_startTask', { server: 'demo', tool: 'failing-job', arguments: { failAfterMs: 200 } });
    const taskId = (start.data.task as { taskId: string }).taskId;
    track(taskId);
    const r = await invoke('mcpTasks_getResult', { taskId, waitSeconds: 20 });
    assert.equal((r.data.task as { status: string }).status, 'failed');
    assert.equal(r.data.isError, true);
    assert.match(r.text, /The tool reported an error \(isError\)\. Its output:\nStep 2\/3 failed/);
  });

  test('mcpTasks_getTask without a task id lists the tracked tasks', async () => {
    // Tasks of its own on two servers, so that it runs alone too.
    for (const [server, tool, args] of [['everything', 'simulate-research-query', { topic: 'kelp' }], ['demo', 'build-project', { project: 'listed', durationMs: 200 }]] as const) {
      const start = await invoke('mcpTasks_startTask', { server, tool, arguments: args });
      track((start.data.task as { taskId: string }).taskId);
    }
    const a = await invoke('mcpTasks_getTask', {});
    assert.match(a.text, /tasks? (is|are) tracked/);
    assert.ok((a.data.tasks as Array<{ tool?: string }>).some((t) => t.tool === 'simulate-research-query'));
    // With a server, that server's tasks only, as its schema says (it read "needed only when two servers have a task with this id").
    const only = await invoke('mcpTasks_getTask', { server: 'demo' });
    const servers = (only.data.tasks as Array<{ server: string }>).map((t) => t.server);
    assert.ok(servers.length > 0 && servers.every((s) => s === 'demo'), servers.join());
    assert.match(only.text, /^\d+ tasks? (is|are) tracked for server "demo"/, 'the answer names the server it lists: none there is not none anywhere');
    const tool = (getExtension().packageJSON.contributes.languageModelTools as Array<{ name: string; modelDescription: string; inputSchema: { properties: Record<string, { description: string }> } }>).find((t) => t.name === 'mcpTasks_getTask')!;
    assert.match(tool.inputSchema.properties.server.description, /Without taskId: list only this server's tasks\./);
    assert.match(tool.modelDescription, /\(the newest 20\)/);
  });

  test('wrong input is refused with an error the model can act on (an unknown task or tool names the tool that lists what there is)', async () => {
    const call = (name: string, input: object) => Promise.resolve(vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }));
    await assert.rejects(call('mcpTasks_startTask', { server: 'demo' }), /mcpTasks_startTask: "tool" is required/);
    await assert.rejects(call('mcpTasks_startTask', { server: 'demo', tool: 'build-project', args: {} }), /unknown property "args"; allowed: server, tool, arguments, ttlSeconds/);
    await assert.rejects(call('mcpTasks_startTask', { server: 'nope', tool: 'x' }), /No MCP server "nope" is configured; the servers are/);
    await assert.rejects(call('mcpTasks_startTask', { server: 'demo', tool: 'get-time' }), /does not support running as a task/);
    await assert.rejects(call('mcpTasks_getResult', { taskId: 'no-such-task' }), /No task "no-such-task" is tracked\. mcpTasks_getTask without a taskId lists the tracked tasks\./);
    await assert.rejects(call('mcpTasks_getTask', { taskId: 'no-such-task', server: 'demo' }), /No task "no-such-task" is tracked for server "demo"\. mcpTasks_getTask without a taskId lists the tracked tasks\./);
    await assert.rejects(call('mcpTasks_startTask', { server: 'demo', tool: 'no-such-tool' }), /Server "demo" has no tool named "no-such-tool"\. mcpTasks_listTools with that server lists its tools\./);
    await assert.rejects(call('mcpTasks_getResult', { taskId: 'x', waitSeconds: -5 }), /"waitSeconds" must be a number of seconds, 0 or more/);
  });

  /** The tools registered again, on a service of the test's own over the fake server of `h` ("fake", connected). */
  const toolsOver = (h: Harness) => {
    const servers = { list: () => [], label: () => 'fake', isConfigured: () => true, peekSession: () => h.session };
    return toolsOf(new TasksService({ engine: h.engine, servers: servers as unknown as TasksServiceDeps['servers'], logger: nullLogger }));
  };

  test('mcpTasks_cancelTask on a task removed as its server refuses the cancel (it ended meanwhile) answers the refusal, not that the task is unknown', async () => {
    const h = await createHarness();
    const tools = toolsOver(h);
    try {
      const t = await h.engine.callTool('fake', 'required-tool');
      // The task completes as its cancel arrives (refused: -32602), and is removed from the list once it has.
      h.server.override('tasks/cancel', (_p, _c, builtin) => (h.server.setStatus(t.taskId, 'completed'), builtin()));
      h.engine.onDidChange((x) => x.status === 'completed' && h.engine.remove(x.key));
      const asked = tools.invoke('mcpTasks_cancelTask', { taskId: t.taskId });
      await assert.rejects(asked, (err: Error) => (assert.match(err.message, /^The server refused to cancel task /), true));
    } finally {
      await h.close();
    }
  });

  test('mcpTasks_cancelTask on a task whose server declares no tasks/cancel asks the user nothing, and the call refuses saying so, sending nothing (ux14 F5)', async () => {
    const h = await createHarness({ server: { tasks: { cancel: false } } });
    const tools = toolsOver(h);
    try {
      const t = await h.engine.callTool('fake', 'required-tool');
      assert.equal((await tools.prepare('mcpTasks_cancelTask', { taskId: t.taskId }))?.confirmationMessages, undefined, 'no "Stop the task?" for a cancel that cannot be sent');
      await assert.rejects(tools.invoke('mcpTasks_cancelTask', { taskId: t.taskId }), /^Error: Server "fake" does not support cancelling tasks\.$/);
      assert.deepEqual([h.server.requestsOf('tasks/cancel').length, h.engine.get(t.key)?.status], [0, 'working']);
    } finally {
      await h.close();
    }
  });
});
