// What the language-model tools ask the user before they run (prepareInvocation), read from the
// tools as registerLmTools builds them: this test mode skips their dialogs (EDITOR-TESTS.md).
import * as assert from 'node:assert/strict';
import type { TasksServiceDeps } from '../../src/core/api/service';
import { TasksService } from '../../src/core/api/service';
import { nullLogger } from '../../src/core/util/log';
import { toolsOf } from './lmToolsOf';
import { storedTask } from './viewParts';

suite('Language-model tools: what the user is asked', () => {
  // Three servers named "lab", in two folders and the setting: "lab" alone names none of them.
  const labels: Record<string, string> = { 'app:lab': 'lab (app)', 'docs:lab': 'lab (docs)', 'settings:lab': 'lab (settings)' };
  const servers = Object.entries(labels).map(([id, label]) => ({ id, name: 'lab', label, type: 'stdio', state: { kind: 'idle' } }));
  // A server removed from the configuration, whose task is still listed.
  labels['gone:lab'] = 'lab (gone)';
  // Two runs of work on one server: the view names each by when it started.
  const task = storedTask('docs:lab', 't1', { toolName: 'work', status: 'working', createdAt: '2026-01-01T16:47:00Z' });
  const other = storedTask('docs:lab', 't2', { toolName: 'work', status: 'working', createdAt: '2026-01-01T17:02:00Z' });
  // Live tasks of a server that declares no tasks/cancel, and of the removed one.
  const uncancelable = storedTask('settings:lab', 't3', { toolName: 'work', status: 'working' });
  const orphan = storedTask('gone:lab', 't4', { toolName: 'work', status: 'working' });
  const all = [task, other, uncancelable, orphan];
  const docs = {
    protocolVersion: '2025-11-25',
    serverCapabilities: { tasks: { requests: { tools: { call: {} } }, cancel: {} } },
    knownTools: [{ name: 'work', execution: { taskSupport: 'optional' } }, { name: 'plain' }],
  };
  const settings = { ...docs, serverCapabilities: { tasks: { requests: { tools: { call: {} } } } } };
  /** What reached the engine: a start that the user was not asked about must not. */
  const calls: string[] = [];
  const deps = {
    engine: {
      list: () => all,
      get: (key: string) => all.find((t) => t.key === key),
      callTool: async (serverId: string, tool: string) => (calls.push(`start ${serverId} ${tool}`), task),
    },
    // lab (docs) is connected and has listed its tools: work may run as a task, plain may not; lab (app)'s are not known.
    servers: {
      list: () => servers,
      get: (id: string) => servers.find((s) => s.id === id),
      isConfigured: (id: string) => servers.some((s) => s.id === id),
      peekSession: (id: string) => ({ 'docs:lab': docs, 'settings:lab': settings })[id],
      label: (id: string) => labels[id],
    },
    logger: nullLogger,
  };
  const tools = toolsOf(new TasksService(deps as unknown as TasksServiceDeps));
  const { prepare, invoke } = tools;

  test('Start asks to run the tool on the server as the view names it, and asks nothing for a server or tool it cannot start (the call fails, saying why)', async () => {
    const start = 'mcpTasks_startTask';
    const named = await prepare(start, { server: 'lab (docs)', tool: 'work', arguments: { tag: 'x' } });
    assert.match(named?.confirmationMessages?.message.value ?? '', /^Run `work` on the MCP server `lab \(docs\)` as a task\./);
    const ambiguous = await prepare(start, { server: 'lab', tool: 'work' });
    assert.equal(ambiguous?.confirmationMessages, undefined, 'no "Run work on lab?" for a server that is not one');
    // Nor for a tool that its server's listed tools say cannot start as a task; where they are not known yet, the user is asked.
    for (const tool of ['nope', 'plain']) assert.equal((await prepare(start, { server: 'lab (docs)', tool }))?.confirmationMessages, undefined, tool);
    assert.notEqual((await prepare(start, { server: 'lab (app)', tool: 'nope' }))?.confirmationMessages, undefined);
  });

  test('Cancel asks "Stop", so that its Cancel button plainly keeps the task, and names the task as its row does, its id last', async () => {
    const asked = await prepare('mcpTasks_cancelTask', { taskId: 't1' });
    assert.equal(asked?.confirmationMessages?.title, 'Stop an MCP task?');
    const row = `work (${new Date(task.createdAt).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' })})`;
    // tasks/cancel is a request: the server may finish the work all the same.
    assert.equal(asked?.confirmationMessages?.message.value, `Stop \`${row}\` on \`lab (docs)\`? The server is asked to stop its work. Its task id: \`t1\`.`);
  });

  test('Start refuses, as prepare found, a tool that the listed tools say cannot start as a task, without starting it unasked (ux14 F4)', async () => {
    const start = 'mcpTasks_startTask';
    calls.length = 0;
    await assert.rejects(invoke(start, { server: 'lab (docs)', tool: 'plain' }), /^Error: Cannot call "plain" on "lab \(docs\)": the tool does not support running as a task\.$/);
    await assert.rejects(invoke(start, { server: 'lab (docs)', tool: 'nope' }), /Server "lab \(docs\)" has no tool named "nope"\. mcpTasks_listTools with that server lists its tools\.$/);
    assert.deepEqual(calls, [], 'nothing started without the user being asked');
    await invoke(start, { server: 'lab (docs)', tool: 'work' });
    assert.deepEqual(calls, ['start docs:lab work'], 'a tool that may start as a task starts');
  });

  test('Start and Cancel prepared before the servers and the restored tasks have loaded ask once they have: a call that activates the extension does not run unasked', async () => {
    let loaded = false;
    let load!: () => void;
    const ready = new Promise<void>((r) => (load = r)).then(() => void (loaded = true));
    const early = toolsOf(
      new TasksService({
        ...deps,
        engine: { ...deps.engine, list: () => (loaded ? all : []), get: (key: string) => (loaded ? deps.engine.get(key) : undefined) },
        servers: { ...deps.servers, list: () => (loaded ? servers : []) },
      } as unknown as TasksServiceDeps),
      ready,
    );
    const start = early.prepare('mcpTasks_startTask', { server: 'lab (docs)', tool: 'work' });
    const cancel = early.prepare('mcpTasks_cancelTask', { taskId: 't1' });
    load();
    assert.match((await start)?.confirmationMessages?.message.value ?? '', /^Run `work` on the MCP server `lab \(docs\)` as a task\./);
    assert.equal((await cancel)?.confirmationMessages?.title, 'Stop an MCP task?');
  });

  test('Cancel asks nothing for a task its server cannot cancel: one that declares no tasks/cancel, or was removed (ux14 F5; the call refuses, see lmTools.test.ts)', async () => {
    const cancel = 'mcpTasks_cancelTask';
    for (const taskId of ['t3', 't4']) assert.equal((await prepare(cancel, { taskId }))?.confirmationMessages, undefined, taskId);
  });
});
