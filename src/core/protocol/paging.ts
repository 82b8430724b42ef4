import type { Logger } from '../util/log';
import { stringify } from '../util/json';

/**
 * Pages through a paginated list (`tools/list`, `tasks/list`: T-REQ-6): `page` asks for the page
 * after `cursor` (none for the first), whose items go to `onItem`; cursors go back verbatim. A
 * repeated cursor or more than `maxPages` pages stop it with an error in the log, which `method`
 * heads; `enough(pagesSent)` stops it before a further page. Returns the pages sent.
 */
export const pageThrough = async (
  method: string,
  log: Logger,
  maxPages: number,
  page: (cursor: string | undefined) => Promise<{ items: readonly unknown[]; nextCursor?: string | null }>,
  onItem: (raw: unknown) => void,
  enough?: (pages: number) => boolean,
): Promise<number> => {
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; ; n++) {
    if (n >= maxPages) {
      log.error(`${method}: stopped after ${maxPages} pages, the limit; later pages are left out`);
      return n;
    }
    if (n > 0 && enough?.(n)) return n;
    const result = await page(cursor);
    for (const raw of result.items) onItem(raw);
    cursor = result.nextCursor ?? undefined;
    if (cursor === undefined) return n + 1;
    if (seen.has(cursor)) {
      log.error(`${method}: the server repeated the cursor ${stringify(cursor)}; stopped paging`);
      return n + 1;
    }
    seen.add(cursor);
  }
};
