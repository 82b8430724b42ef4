// The Tasks view redraws a row only when what it shows has changed. VS Code drops the command of a
// row it redraws, so a click on a row redrawn under the pointer is lost ("Actual command not
// found"): a result fetched just as the user clicks the row of a completed task showed nothing new,
// yet took the click. These tests play the editor's part: they read the rows (getTreeItem), hover
// one (resolveTreeItem), and watch which rows the view asks to redraw.
import * as assert from 'node:assert/strict';
import { parseSettingServers } from '../../src/core/config/parse';
import type { Node } from '../../src/vscode/tree/tasksTree';
import { TasksTreeProvider } from '../../src/vscode/tree/tasksTree';
import { JsonRpcConnection } from '../../src/core/jsonrpc/connection';
import { McpSession } from '../../src/core/protocol/session';
import { TaskEngine } from '../../src/core/tasks/engine';
import { taskKey } from '../../src/core/tasks/types';
import { InMemoryTransport } from '../../src/core/transports/inMemory';
import { nullLogger } from '../../src/core/util/log';
import { bareServerManager } from '../unit/helpers/servers';
import { storedTask, withTree } from './viewParts';

const SERVER = 'settings:lab';

/** A task row's task id; for another row, its kind (`*`: the whole view). */
const idOf = (n: Node | undefined) => (n?.kind === 'task' ? n.key.slice(SERVER.length + 1) : (n?.kind ?? '*'));

/** Reads every row as the editor does when it shows the view: each task row's node and item, by task id. */
function draw(tree: TasksTreeProvider) {
  return new Map(tree.getChildren(tree.getChildren()[0]).map((node) => [idOf(node), { node, item: tree.getTreeItem(node) }]));
}

/** The rows the view asks the editor to redraw from now on. */
function redraws(tree: TasksTreeProvider): string[] {
  const asked: string[] = [];
  tree.onDidChangeTreeData((e) => asked.push(...(Array.isArray(e) ? e : [e]).map(idOf)));
  return asked;
}

const outcome = { kind: 'result' as const, result: { content: [{ type: 'text' as const, text: 'done' }] } };

suite('The Tasks view redraws a row only when what it shows changes', () => {
  test('a change that shows nothing (a result fetched or forgotten) leaves the row and its click as drawn; one that shows redraws that row', () =>
    withTree(({ engine, tree }) => {
      const at = new Date().toISOString();
      const task = storedTask(SERVER, 'task', { outcome, outcomeFetchedAt: at });
      engine.restore([
        task,
        // A plain call's stored result cannot be fetched again: its row says it was deleted.
        storedTask(SERVER, 'call', { kind: 'direct', outcome, outcomeFetchedAt: at }),
      ]);
      const rows = draw(tree);
      assert.equal(rows.get('task')?.item.command?.command, 'mcpTasks.openResult', 'a click on the row opens its result');
      const asked = redraws(tree);
      engine.forgetOutcomes();
      assert.equal(engine.get(task.key)?.resultDeleted, true, 'the task has changed');
      assert.deepEqual(asked, ['call'], 'only the row whose description changed is redrawn');
    }));

  test('every 30 s (and when the view shows again) only the rows whose age or hovered tooltip has changed are redrawn', () =>
    withTree(({ engine, tree }) => {
      const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
      const twoHours = 2 * 3600_000;
      engine.restore([
        // 40 s old: its age reads "now", and "1 min" 30 s later.
        storedTask(SERVER, 'young', { outcome, createdAt: ago(40_000) }),
        // Two hours old with 200 s of ttl left: the tooltip reads "3 min", and "2 min" 30 s later.
        storedTask(SERVER, 'hovered', { outcome, createdAt: ago(twoHours), ttl: twoHours + 200_000 }),
        storedTask(SERVER, 'unhovered', { outcome, createdAt: ago(twoHours), ttl: twoHours + 200_000 }),
        storedTask(SERVER, 'steady', { outcome, createdAt: ago(twoHours) }),
      ]);
      const rows = draw(tree);
      const hovered = rows.get('hovered')!;
      tree.resolveTreeItem(hovered.item, hovered.node);
      assert.match((hovered.item.tooltip as { value: string }).value, /Result kept by the server: 3 min more/);
      const asked = redraws(tree);
      tree.refreshAll();
      assert.deepEqual(asked, [], 'nothing has changed yet');
      // The next refresh, 30 s on: the clock moved for that one call (nothing else runs meanwhile).
      const now = Date.now;
      Date.now = () => now() + 30_000;
      try {
        tree.refreshAll();
      } finally {
        Date.now = now;
      }
      assert.deepEqual(asked.sort(), ['hovered', 'young'], 'the row whose age now reads "1 min", and the hovered one whose tooltip counts its ttl down; not the same ttl unhovered, nor an age still "2 h"');
    }));

  // Each row's look is kept from one comparison to the next (one look built a change, not two); a hover changes it.
  test('a row hovered after the view compared it is not redrawn for the tooltip the hover gave it', () =>
    withTree(({ engine, tree }) => {
      engine.restore([storedTask(SERVER, 'steady', { outcome, createdAt: new Date(Date.now() - 7200_000).toISOString() })]);
      const { node, item } = draw(tree).get('steady')!;
      const asked = redraws(tree);
      tree.refreshAll();
      tree.resolveTreeItem(item, node);
      tree.refreshAll();
      assert.deepEqual(asked, [], 'nothing it shows has changed');
    }));

  // At 1,000 changes a second, building each changed row twice (to tell it changed, then as VS Code reads it) cost ~7 ms/s more.
  test('a changed row is built once: VS Code reads the item built to tell that it changed, unless its rows are listed again meanwhile', () =>
    withTree(({ engine, tree }) => {
      engine.restore([storedTask(SERVER, 'call', { kind: 'direct', outcome, outcomeFetchedAt: new Date().toISOString() })]);
      const { node, item } = draw(tree).get('call')!;
      const asked = redraws(tree);
      engine.forgetOutcomes();
      assert.deepEqual(asked, ['call']);
      let reads = 0;
      const get = engine.get.bind(engine);
      engine.get = (...args) => (reads++, get(...args));
      const redrawn = tree.getTreeItem(node);
      assert.notEqual(redrawn.description, item.description, 'it shows the change');
      assert.equal(reads, 0, 'the row was not built again');
      engine.forgetOutcomes();
      engine.restore([storedTask(SERVER, 'later', { createdAt: new Date(Date.now() + 1000).toISOString() })]);
      const again = draw(tree).get('call')!.item;
      assert.notEqual(again.label, 'build', 'a second run of its tool names it by its start, as the rows listed again say');
    }));

  /**
   * Runs `fn` with a view of working tasks restored with these progress tokens (by task id), and a
   * server end that sends progress; polls never reach a server: the changes are the reports alone.
   */
  async function withProgress(tokens: Record<string, string>, fn: (p: { engine: TaskEngine; tree: TasksTreeProvider; peer: JsonRpcConnection }) => Promise<void>): Promise<void> {
    const servers = bareServerManager({ logger: nullLogger });
    const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: () => new Promise(() => {}), label: () => SERVER, tasksOutliveConnection: () => true } });
    const tree = new TasksTreeProvider(servers, engine);
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const session = new McpSession(clientEnd, { logger: nullLogger, clientInfo: { name: 't', version: '0' } });
    const peer = new JsonRpcConnection(serverEnd, { logger: nullLogger });
    try {
      engine.attachSession(SERVER, session);
      await session.connection.start();
      await peer.start();
      const ids = Object.keys(tokens);
      engine.restore(
        ids.map((id) => storedTask(SERVER, id, { status: 'working', ttl: 3_600_000 })),
        new Map(ids.map((id) => [taskKey(SERVER, id), tokens[id]])),
      );
      await fn({ engine, tree, peer });
    } finally {
      tree.dispose();
      engine.dispose();
      await session.close();
      servers.dispose();
    }
  }
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  // T-REQ-8's progress, 1,000 reports a second from a server: VS Code redraws a view's rows once its
  // changes pause for 200 ms, so a row redrawn for each report showed none of them until they stopped.
  test('a flood of progress on one task redraws its row once, then once with the last progress 250 ms on, not once a report', () =>
    withProgress({ busy: 'p-1' }, async ({ engine, tree, peer }) => {
      const { node } = draw(tree).get('busy')!;
      const asked = redraws(tree);
      for (let i = 1; i <= 100; i++) void peer.notify('notifications/progress', { progressToken: 'p-1', progress: 1000 + i });
      await sleep(100);
      assert.equal(engine.get(taskKey(SERVER, 'busy'))?.progress?.progress, 1100, 'every report has reached the task');
      assert.deepEqual(asked, ['busy'], `one redraw for 100 reports, not ${asked.length}`);
      await sleep(300);
      assert.deepEqual(asked, ['busy', 'busy'], 'then one with the last report');
      assert.match(String(tree.getTreeItem(node).description), /1,100/, 'the row shows the last progress');
      await sleep(300);
      assert.equal(asked.length, 2, 'nothing more once the reports stop');
    }));

  // The demo's build sends "Compiling 3/3…", then progress 3/6 at once: its row read "Compiling 3/3… · 2/6"
  // until the held redraw 250 ms on, as VS Code read the row built when the message came.
  test('a row read while its redraw is held shows the last report, not the one its redraw was fired for', () =>
    withProgress({ busy: 'p-1' }, async ({ engine, tree, peer }) => {
      const { node } = draw(tree).get('busy')!;
      const asked = redraws(tree);
      void peer.notify('notifications/progress', { progressToken: 'p-1', progress: 1002 });
      void peer.notify('notifications/progress', { progressToken: 'p-1', progress: 1003 });
      await sleep(100);
      assert.equal(engine.get(taskKey(SERVER, 'busy'))?.progress?.progress, 1003, 'both reports have reached the task');
      assert.deepEqual(asked, ['busy']);
      assert.match(String(tree.getTreeItem(node).description), /1,003/, 'VS Code reads the row after its redraw: it shows the last report');
      await sleep(300);
      assert.deepEqual(asked, ['busy'], 'so no second redraw is needed');
    }));

  test('floods of progress on two tasks at once: one change of the view for both rows in 250 ms, not one a row (VS Code would wait for the changes of all rows to pause)', () =>
    withProgress({ one: 'p-1', two: 'p-2' }, async ({ engine, tree, peer }) => {
      const rows = draw(tree);
      const events: string[][] = [];
      tree.onDidChangeTreeData((e) => events.push((Array.isArray(e) ? e : [e]).map(idOf).sort()));
      for (let i = 1; i <= 50; i++) {
        void peer.notify('notifications/progress', { progressToken: 'p-1', progress: 1000 + i });
        void peer.notify('notifications/progress', { progressToken: 'p-2', progress: 2000 + i });
      }
      await sleep(100);
      assert.equal(engine.get(taskKey(SERVER, 'two'))?.progress?.progress, 2050, 'every report has reached its task');
      assert.deepEqual(events, [['one']], `one change of the view, not ${JSON.stringify(events)}`);
      await sleep(300);
      assert.deepEqual(events, [['one'], ['one', 'two']], 'then one with both rows, each at its last report');
      assert.match(String(tree.getTreeItem(rows.get('one')!.node).description), /1,050/);
      assert.match(String(tree.getTreeItem(rows.get('two')!.node).description), /2,050/);
      await sleep(300);
      assert.equal(events.length, 2, 'nothing more once the reports stop');
    }));

  // VS Code re-reads the children of a row whose id changed through its parent's refresh, and a
  // server's row has none: its old rows stayed under it. Seen with 1,000 tasks of two servers,
  // cleared at once: the view still listed 700 of them until Refresh.
  test("a server row whose id changes (its first task comes, its last one goes) redraws the whole view, not that row alone", () =>
    withTree(({ servers, engine, tree }) => {
      servers.setConfiguration(parseSettingServers({ lab: { command: 'node' } }).servers, []);
      const [server] = tree.getChildren();
      assert.equal(tree.getTreeItem(server).id, `server:${SERVER}`, 'drawn without tasks');
      const asked = redraws(tree);
      engine.restore([storedTask(SERVER, 'one'), storedTask(SERVER, 'two')]);
      assert.equal(tree.getTreeItem(server).id, `server+:${SERVER}`, 'drawn with its tasks: another row to VS Code');
      draw(tree);
      assert.deepEqual(asked, ['*', 'server'], 'the first task changes the id: the whole view; the second one: its server row');
      asked.length = 0;
      engine.clearFinished();
      assert.deepEqual(asked, ['server', '*'], 'one task gone: its server row; the last one: the whole view');
    }));
});
