// The public API object (src/vscode/api.ts) over a stand-in service: what a caller sees before
// the configuration and the restored tasks have loaded. Plain Node: the module takes only types
// from `vscode`.
import * as assert from 'node:assert/strict';
import type { TasksService } from '../../../src/core/api/service';
import { UnknownTaskError } from '../../../src/core/api/service';
import { UnknownToolError } from '../../../src/core/tasks/engine';
import { RpcError } from '../../../src/core/jsonrpc/errors';
import { createApi } from '../../../src/vscode/api';

/** A service whose servers and tasks appear when `load()` runs, as the extension's configuration does. */
function lateService() {
  let loaded = false;
  const server = { id: 'settings:lab', name: 'lab', label: 'lab', type: 'stdio', state: 'idle' };
  const task = { id: 'settings:lab/t1', taskId: 't1', status: 'working' };
  const unknown = () => new Error('No MCP server "settings:lab" is configured (there are no servers).');
  const service = {
    servers: () => (loaded ? [server] : []),
    resolveServer: (ref: string) => {
      if (!loaded || ref !== server.id) throw unknown();
      return server;
    },
    tools: async () => [{ serverId: server.id, name: 'work' }],
    start: async () => task,
    task: () => (loaded ? task : undefined),
    tasks: () => (loaded ? [task] : []),
    result: async () => {
      if (!loaded) throw new Error('No task with id "settings:lab/t1" is tracked.');
      return { task, done: false };
    },
    cancel: async () => {
      if (!loaded) throw new Error('No task with id "settings:lab/t1" is tracked.');
      return { ...task, status: 'cancelled' };
    },
    onDidChangeTask: () => ({ dispose: () => undefined }),
  };
  return { service: service as unknown as TasksService, load: () => (loaded = true) };
}

describe('The public API object (src/vscode/api.ts)', () => {
  it('before the configuration has loaded (ux14 F2), an async member called before whenReady() resolves waits for the load instead of failing, and whenReady() resolves once it has', async () => {
    const { service, load } = lateService();
    let ready!: () => void;
    const api = createApi({ service, ready: new Promise<void>((r) => (ready = r)), testing: {} });
    assert.deepEqual(api.getServers(), [], 'a synchronous member reads what there is');
    let settled = false;
    const whenReady = api.whenReady().then(() => (settled = true));
    const early = Promise.all([api.getTools('settings:lab'), api.runTool('settings:lab', 'work'), api.getResult('settings:lab/t1'), api.cancelTask('settings:lab/t1')]);
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'not ready before the load');
    load();
    ready();
    await whenReady;
    assert.deepEqual(api.getServers().map((s) => s.id), ['settings:lab']);
    const [tools, started, result, cancelled] = await early;
    assert.deepEqual([tools.map((t) => t.name), started.id, result.done, cancelled.status], [['work'], 'settings:lab/t1', false, 'cancelled']);
  });

  it('a caller\'s mistake is still refused, after the wait', async () => {
    const { service } = lateService();
    const api = createApi({ service, ready: Promise.resolve(), testing: {} });
    await api.whenReady();
    await assert.rejects(api.getTools(''), /^TypeError: MCP Tasks API: getTools: serverId must be/);
  });

  it('an unknown task or tool is refused with an error named for it, and a server\'s error with its JSON-RPC code, as the d.ts says (ux14 F8)', async () => {
    const service = {
      resolveServer: (id: string) => ({ id }),
      start: async (_id: string, tool: string) => {
        throw tool === 'nope' ? new UnknownToolError('Server "lab" has no tool named "nope".') : new RpcError(-32602, 'Invalid arguments');
      },
      result: async () => {
        throw new UnknownTaskError('No task with id "x" is tracked.');
      },
    } as unknown as TasksService;
    const api = createApi({ service, ready: Promise.resolve(), testing: {} });
    await assert.rejects(api.runTool('lab', 'nope'), { name: 'UnknownToolError', message: 'Server "lab" has no tool named "nope". getTools() lists its tools.' });
    await assert.rejects(api.runTool('lab', 'work'), { name: 'RpcError', code: -32602, message: 'Invalid arguments' });
    await assert.rejects(api.getResult('x'), { name: 'UnknownTaskError', message: 'No task with id "x" is tracked. getTasks() lists the tracked tasks.' });
    assert.equal(String(new UnknownTaskError('m')), 'UnknownTaskError: m');
  });
});
