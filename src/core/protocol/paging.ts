import type { Logger } from '../util/log';
import { stringify } from '../util/json';

/**
 * Pages through a paginated list (`tools/list`, `tasks/list`: T-REQ-6): `page` asks for the page
 * after `cursor` (none for the first), whose items go to `onItem`; cursors go back verbatim. A
 * repeated cursor, more than `maxPages` pages or `limit[0]` items taken (those `onItem` says it
 * kept; `limit[1]` says how many of what: "10,000 tools"; `limit[2]`, what the user can do about
 * the rest, else that they are left out) stop it with an error in the log,
 * which `method` heads: a server may send endless pages of 16 MB, which would fill the
 * extension host's memory.
 * `enough(pagesSent)` stops it before a further page. Returns the pages sent.
 */
export const pageThrough = async (
  method: string,
  log: Logger,
  maxPages: number,
  page: (cursor: string | undefined) => Promise<{ items: readonly unknown[]; nextCursor?: string | null }>,
  onItem: (raw: unknown) => unknown,
  enough?: (pages: number) => boolean,
  limit?: [number, string, string?],
): Promise<number> => {
  const seen = new Set<string>();
  const stop = (what: string, then = 'later ones are left out') => log.error(`${method}: stopped after ${what}, the limit; ${then}`);
  let cursor: string | undefined;
  let taken = 0;
  for (let n = 0; ; n++) {
    if (n >= maxPages) {
      stop(`${maxPages} pages`);
      return n;
    }
    if (n > 0 && enough?.(n)) return n;
    const result = await page(cursor);
    for (const raw of result.items) {
      if (onItem(raw) && limit && ++taken >= limit[0]) {
        // Not where it was the list's last: nothing is left out.
        if (raw !== result.items.at(-1) || result.nextCursor != null) stop(limit[1], limit[2]);
        return n + 1;
      }
    }
    cursor = result.nextCursor ?? undefined;
    if (cursor === undefined) return n + 1;
    if (seen.has(cursor)) {
      log.error(`${method}: the server repeated the cursor ${stringify(cursor)}; stopped paging`);
      return n + 1;
    }
    seen.add(cursor);
  }
};
