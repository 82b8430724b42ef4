#!/usr/bin/env node
// The view benchmark's process: the real TasksTreeProvider (src/vscode/tree/tasksTree.ts, with a
// stub `vscode` module) over a real TaskEngine holding `count` tasks of one server. A model of
// the editor's tree reacts to onDidChangeTreeData as VS Code does: a task node gets getTreeItem
// again; a server node gets getTreeItem and its children re-resolved (getChildren, then
// getTreeItem for each); `undefined` re-renders everything. We count events, the nodes they
// carry, and the getTreeItem calls (`items`) each change causes.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildDir, benchDir } from '../lib/common.mjs';
import { serveWorker } from '../lib/worker.mjs';

const require = createRequire(import.meta.url);
require(join(benchDir, 'lib', 'vscode-stub.cjs')).install();
const { TaskEngine, McpSession, JsonRpcConnection, InMemoryTransport, Emitter } = require(join(buildDir, 'core.cjs'));
const { TasksTreeProvider } = require(join(buildDir, 'tree.cjs'));
const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, traceEnabled: false };
const SERVER = 'srv';

function snapshot(i, now) {
  const at = new Date(now - i * 1000).toISOString();
  const taskId = `task-${String(i).padStart(6, '0')}`;
  return { key: `${SERVER}\u0000${taskId}`, serverId: SERVER, taskId, kind: 'task', toolName: 'build-project', arguments: { target: `t${i}` }, status: 'working', createdAt: at, lastUpdatedAt: at, ttl: 3_600_000, pollInterval: 1000, origin: 'user' };
}

/**
 * The refreshes the editor makes of `times`' events: the extension host's tree view merges a
 * provider's events with a 200 ms debounce that fires on the first and again once 200 ms pass
 * without one (VS Code's Event.debounce, leading). Also the longest time between two refreshes.
 */
function editorRefreshes(times) {
  const at = [];
  times.forEach((t, i) => {
    if (i === 0 || t - times[i - 1] >= 200) at.push(t); // leading: no timer pending
    if (i === times.length - 1 || times[i + 1] - t >= 200) if (at.at(-1) !== t) at.push(t + 200); // trailing
  });
  return { editorRefreshes: at.length, longestWithoutRefreshMs: Math.max(0, ...at.slice(1).map((t, i) => t - at[i])) };
}

serveWorker({
  async run({ count }) {
    const now = Date.now();
    // Polls never reach a server here: the change under test comes as a status notification.
    const engine = new TaskEngine({ logger: quiet, sessions: { getSession: () => new Promise(() => {}), label: () => SERVER, tasksOutliveConnection: () => true } });
    const snaps = Array.from({ length: count }, (_, i) => snapshot(i, now));
    const target = snaps[Math.floor(count / 2)];
    // A completed task whose result is in hand: forgetting it changes nothing its row shows.
    const kept = { ...snapshot(count + 1, now), status: 'completed', outcome: { kind: 'result', result: { content: [] } }, outcomeFetchedAt: new Date(now).toISOString() };
    engine.restore([...snaps, kept], new Map([[target.key, 'progress-1']]));
    const serverChanged = new Emitter();
    const serverSnap = { id: SERVER, name: SERVER, label: 'Bench server', type: 'stdio', source: { kind: 'settings' }, state: { kind: 'connected' }, serverInfo: { name: 'bench', version: '1' }, protocolVersion: '2025-11-25', tasks: 'tools/call, list, cancel' };
    const servers = { onDidChange: serverChanged.event, errors: [], list: () => [serverSnap], get: (id) => (id === SERVER ? serverSnap : undefined), peekSession: () => undefined, label: () => serverSnap.label, isConfigured: (id) => id === SERVER, leavingWith: () => undefined, tasksOutliveConnection: () => true, heldWhy: () => undefined };
    // The provider's whole work on a change (telling whether its row changed, then the redraw):
    // engine listeners run in the order added, so these two bracket the provider's.
    let viewMs = 0;
    let t0 = 0;
    const start = () => (t0 = performance.now());
    const stop = () => (viewMs += performance.now() - t0);
    engine.onDidChange(start);
    engine.onDidRemove(start);
    const tree = new TasksTreeProvider(servers, engine);
    engine.onDidChange(stop);
    engine.onDidRemove(stop);

    // The editor's side, modelled.
    const events = [];
    let renderMs = 0;
    let items = 0; // getTreeItem calls: the rows computed
    const render = (node) => {
      items++;
      tree.getTreeItem(node);
      for (const child of tree.getChildren(node)) render(child);
    };
    const times = []; // when each event fired
    tree.onDidChangeTreeData((e) => {
      const nodes = e === undefined ? [undefined] : Array.isArray(e) ? e : [e];
      events.push(nodes.map((n) => n?.kind ?? 'all'));
      times.push(performance.now());
      const t0 = performance.now();
      for (const n of nodes) {
        if (n === undefined) for (const root of tree.getChildren()) render(root);
        else render(n);
      }
      renderMs += performance.now() - t0;
    });
    for (const root of tree.getChildren()) render(root);
    const initialItems = items;

    // A session whose other end is a server connection in this process.
    const [clientEnd, serverEnd] = InMemoryTransport.createLinkedPair();
    const session = new McpSession(clientEnd, { logger: quiet, clientInfo: { name: 'bench-view', version: '1' } });
    const peer = new JsonRpcConnection(serverEnd, { logger: quiet });
    engine.attachSession(SERVER, session);
    await session.connection.start();
    await peer.start();

    // Past the view's 250 ms wait after a redraw of a task row (see TasksTreeProvider#redraw).
    const settle = () => new Promise((r) => setTimeout(r, 300));
    const measure = async (name, act) => {
      await settle();
      events.length = 0;
      times.length = 0;
      renderMs = 0;
      viewMs = 0;
      const before = items;
      await act();
      await settle();
      return { scenario: name, events: events.length, nodes: events.flat().length, nodeKinds: [...new Set(events.flat())], itemsRecomputed: items - before, ms: renderMs, viewMs, ...editorRefreshes(times) };
    };
    const scenarios = [];
    scenarios.push(
      await measure('one task changes status (notification)', () =>
        peer.notify('notifications/tasks/status', { taskId: target.taskId, status: 'input_required', createdAt: target.createdAt, lastUpdatedAt: new Date().toISOString(), ttl: target.ttl, pollInterval: 1000 }),
      ),
    );
    scenarios.push(await measure('one task reports progress', () => peer.notify('notifications/progress', { progressToken: 'progress-1', progress: 3, total: 10 })));
    // A server reporting progress fast: 1,000 changes of one drawn row, each redrawn.
    scenarios.push(
      await measure('one task reports progress 1,000 times', async () => {
        for (let i = 1; i <= 1000; i++) {
          peer.notify('notifications/progress', { progressToken: 'progress-1', progress: 3 + i });
          await new Promise(setImmediate);
        }
      }),
    );
    // The same at a pace, 1,000 a second for a second: how often the editor would redraw the row meanwhile.
    scenarios.push(
      await measure('one task reports progress 1,000 a second for 1 s', async () => {
        const t0 = performance.now();
        for (let i = 1; i <= 1000; i++) {
          peer.notify('notifications/progress', { progressToken: 'progress-1', progress: 2000 + i });
          while (performance.now() - t0 < i) await new Promise(setImmediate);
        }
      }),
    );
    scenarios.push(await measure('one task added', async () => engine.restore([{ ...snapshot(count, now + 5000), status: 'completed' }])));
    scenarios.push(await measure('one task removed', async () => engine.remove(snaps[0].key)));
    scenarios.push(await measure('a kept result forgotten (nothing on its row changes)', async () => engine.forgetOutcomes()));
    // The 30 s refresh of ages, 30 s on: the tasks were created a second apart, so some ages now read otherwise.
    const realNow = Date.now;
    Date.now = () => realNow() + 30_000;
    try {
      scenarios.push(await measure('the 30 s refresh of ages (tasks 1 s apart, 30 s on)', async () => {
        start();
        tree.refreshAll();
        stop();
      }));
    } finally {
      Date.now = realNow;
    }
    engine.dispose();
    tree.dispose();
    await session.close();
    return { count, initialItems, scenarios };
  },
  stop() {},
});
