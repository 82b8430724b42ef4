// Whether the chat tools have anything to work on: the context key mcpTasks.hasServers, their `when`.
import type { Disposable, Event } from '../util/event';
import { syncedFlag } from '../util/flag';

/**
 * Calls `set` with whether there is a server, a configuration error or a tracked task (one
 * restored from the last window whose server was removed since can still be listed, cancelled or
 * fetched), when that changes: setting a context key is a message to the workbench. A task that
 * changes says there is one (the list is not read: changes come by the thousand); removals (and
 * `check()`) work it out once per burst; `now()` at once: after a configuration read, before
 * mcpTasks.ready is set (the view's welcome reads both).
 */
export const followChatReach = (
  servers: { list(): readonly unknown[]; readonly errors: readonly unknown[] },
  tasks: { list(): readonly unknown[]; onDidChange: Event<unknown>; onDidRemove: Event<unknown> },
  set: (has: boolean) => unknown,
): Disposable & { check(): void; now(): void } => {
  const flag = syncedFlag(() => servers.list().length > 0 || servers.errors.length > 0 || tasks.list().length > 0, set);
  const subs = [tasks.onDidChange(() => flag.put(true)), tasks.onDidRemove(flag.check)];
  return { ...flag, dispose: () => subs.forEach((d) => d.dispose()) };
};
