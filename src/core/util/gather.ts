import { minOf, now } from './builtins';

/**
 * Hands on together what comes of one kind one after another over seconds (a reload's tasks,
 * found lost one poll after another, 5 ms apart): the first of a kind, alone, is handed on at
 * once; what comes with others, or while its kind is open (until `quietMs` pass without another
 * of it), is held until then, or `maxMs` after the kind opened or last handed some on, and handed
 * on together.
 */
export const gatherer = <T>(hand: (items: T[]) => void, quietMs: number, maxMs: number): { add(kind: string, items: T[]): void; dispose(): void } => {
  const open = new Map<string, [held: T[], until: number, timer?: ReturnType<typeof setTimeout>]>();
  const wait = (kind: string, g = open.get(kind)!): void => {
    clearTimeout(g[2]);
    // Quiet, or at the latest: what was held goes on, and the kind stays open a while; if nothing was, it closes.
    g[2] = setTimeout(() => (g[0].length ? (hand(g[0].splice(0)), (g[1] = now() + maxMs), wait(kind, g)) : open.delete(kind)), minOf(quietMs, g[1] - now()));
  };
  return {
    add(kind, items) {
      const g = open.get(kind);
      if (g) g[0].push(...items);
      // The first of its kind, alone: handed on at once.
      else open.set(kind, [items.length > 1 ? items : (hand(items), []), now() + maxMs]);
      wait(kind);
    },
    dispose: () => open.forEach((g) => clearTimeout(g[2])),
  };
};
