// The Tasks view's provider over a server manager and an engine that reach no server, as the
// extension wires them: for tests that play the editor's part (getTreeItem, resolveTreeItem).
import { ServerManager } from '../../src/core/servers/serverManager';
import { TaskEngine } from '../../src/core/tasks/engine';
import { taskKey } from '../../src/core/tasks/types';
import type { TaskSnapshot } from '../../src/core/tasks/types';
import { createTransport } from '../../src/core/transports/factory';
import { nullLogger } from '../../src/core/util/log';
import { TasksTreeProvider } from '../../src/vscode/tree/tasksTree';

export interface ViewParts {
  servers: ServerManager;
  engine: TaskEngine;
  tree: TasksTreeProvider;
}

/** Runs `test` with a view of its own, disposed of after. */
export async function withTree(test: (parts: ViewParts) => void | Promise<void>): Promise<void> {
  const servers = new ServerManager({
    logger: nullLogger,
    clientInfo: { name: 't', version: '0' },
    roots: () => [],
    resolveContext: () => ({ folders: {}, folderPaths: [], userHome: '/', env: {}, readFile: async () => '' }),
    promptInput: async () => undefined,
    createTransport,
  });
  const engine = new TaskEngine({ logger: nullLogger, sessions: { getSession: (id) => servers.getSession(id), label: (id) => servers.label(id), tasksOutliveConnection: () => true } });
  const tree = new TasksTreeProvider(servers, engine);
  try {
    await test({ servers, engine, tree });
  } finally {
    tree.dispose();
    engine.dispose();
    servers.dispose();
  }
}

/** A task as a store restores it: `build` on `serverId`, completed now, kept without limit, unless `changes` say otherwise. */
export function storedTask(serverId: string, taskId: string, changes: Partial<TaskSnapshot> = {}): TaskSnapshot {
  const at = new Date().toISOString();
  return { key: taskKey(serverId, taskId), serverId, taskId, kind: 'task', toolName: 'build', status: 'completed', createdAt: at, lastUpdatedAt: at, ttl: null, origin: 'user', ...changes };
}
