// The context key mcpTasks.hasServers, the `when` of the five chat tools (and of the view's
// welcome): true while they have something to work on, set only when that changes.
import * as assert from 'node:assert/strict';
import { parseSettingServers } from '../../../src/core/config/parse';
import { followChatReach } from '../../../src/core/tasks/chatReach';
import { TaskEngine } from '../../../src/core/tasks/engine';
import { nullLogger } from '../../../src/core/util/log';
import { bareServerManager } from '../helpers/servers';
import { snapshot } from '../helpers/snapshots';

describe('the chat tools\' reach (the key mcpTasks.hasServers)', () => {
  const tick = () => new Promise<void>((r) => setImmediate(r));
  let servers: ReturnType<typeof bareServerManager>;
  let engine: TaskEngine;
  let set: boolean[];
  let reach: ReturnType<typeof followChatReach>;

  beforeEach(() => {
    servers = bareServerManager({ logger: nullLogger });
    engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: (id) => servers.getSession(id), label: (id) => servers.label(id), tasksOutliveConnection: () => true } });
    set = [];
    reach = followChatReach(servers, engine, (has) => set.push(has));
  });

  afterEach(() => {
    reach.dispose();
    engine.dispose();
    servers.dispose();
  });

  it('now(), after a configuration read, sets the key before it returns: mcpTasks.ready, set next, never shows the empty view\'s welcome ("No MCP servers are configured") for a moment where there are servers', () => {
    const keys: string[] = [];
    reach.dispose();
    reach = followChatReach(servers, engine, (has) => keys.push(`hasServers=${has}`));
    servers.setConfiguration(parseSettingServers({ a: { type: 'stdio', command: 'node' } }).servers, []);
    reach.now();
    keys.push('ready'); // as activate's reload does
    assert.deepEqual(keys, ['hasServers=true', 'ready']);
  });

  it('is false with no server, no configuration error and no task; true with a server, or with a configuration error alone', async () => {
    reach.check();
    await tick();
    assert.deepEqual(set, [false]);
    servers.setConfiguration(parseSettingServers({ a: { type: 'stdio', command: 'node' } }).servers, []);
    reach.check();
    await tick();
    const bad = parseSettingServers({ b: { type: 'stdio', command: 42 } });
    servers.setConfiguration(bad.servers, bad.errors);
    reach.check();
    await tick();
    assert.deepEqual(set, [false, true], 'set again only when it changes');
    servers.setConfiguration([], []);
    reach.check();
    await tick();
    assert.deepEqual(set, [false, true, false]);
  });

  it('is true while tasks are tracked with no server left (restored from the last window, their servers removed since): the chat tools can list, cancel and fetch them; false once the last one is removed', async () => {
    reach.check();
    await tick();
    engine.restore([snapshot({ status: 'completed' }), snapshot({ key: 's\u0000t2', taskId: 't2', status: 'failed' })]);
    reach.check();
    await tick();
    assert.deepEqual(set, [false, true]);
    engine.remove('s\u0000t');
    await tick();
    assert.deepEqual(set, [false, true], 'one task is left');
    engine.remove('s\u0000t2');
    await tick();
    assert.deepEqual(set, [false, true, false], 'the last task removed');
  });

  it('follows the task list by itself: a task that appears makes it true; many changes and removals in a row are worked out once, and set only when the value changes', async () => {
    reach.check();
    await tick();
    let lists = 0;
    const list = engine.list.bind(engine);
    engine.list = () => (lists++, list());
    engine.restore(Array.from({ length: 100 }, (_, i) => snapshot({ key: `s\u0000t${i}`, taskId: `t${i}`, status: 'completed' })));
    await tick();
    assert.deepEqual(set, [false, true], 'true once the tasks are there');
    assert.equal(lists, 0, 'a task that changes says there is one: the list is not read');
    engine.clearFinished();
    await tick();
    assert.deepEqual(set, [false, true, false]);
    assert.equal(lists, 1, '100 removals, one look at the list');
  });
});
