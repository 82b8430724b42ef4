import type { TaskSnapshot } from '../../../src/core/tasks/types';

/** A task as the engine keeps it: working, created 2025-01-01, with `over` changed. */
export const snapshot = (over: Partial<TaskSnapshot> = {}): TaskSnapshot => ({
  key: 's\u0000t',
  serverId: 's',
  taskId: 't',
  kind: 'task',
  toolName: 'tool',
  status: 'working',
  createdAt: '2025-01-01T00:00:00.000Z',
  lastUpdatedAt: '2025-01-01T00:00:00.000Z',
  ttl: null,
  origin: 'user',
  ...over,
});
