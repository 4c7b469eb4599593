import type { FeedRow } from '../feed/index.js';
import type { Delta } from '../upload/state/delta.js';
import type { NightlyRow } from './rows.js';

/** Rows whose hashes are asked at once: one query a page on a database server. */
export const ASK_PAGE = 500;
/** Rows held at most while a page fills (the unchanged ones between the changed ones). */
const HELD_MOST = 8192;

/**
 * The feed's rows, marked `feed`, with the hashes the state compares them with asked a page at a
 * time (`Delta.askAhead`): by the guard's pass (./guard.ts) and by an upload streamed with every
 * guard off, which both take their rows one by one, and a PostgreSQL state answered each changed
 * or new row with a round trip (BENCHMARKS.md, "Stop 48" and "Stop 49"). Rows are read ahead
 * until `page` of them need a hash (8,192 rows at most), then handed on in the feed's order. An
 * iterator object, as `withOrigin` (./rows.ts): no generator's steps per row.
 */
export function askedAhead(
  items: AsyncIterable<FeedRow>,
  delta: Pick<Delta, 'askAhead'>,
  page = ASK_PAGE,
): AsyncIterableIterator<NightlyRow> {
  const it = items[Symbol.asyncIterator]();
  let held: NightlyRow[] = [];
  let at = 0;
  let ended = false;
  const fill = async () => {
    held = [];
    at = 0;
    const skus: string[] = [];
    while (skus.length < page && held.length < HELD_MOST) {
      const next = await it.next();
      if (next.done) {
        ended = true;
        break;
      }
      const row = next.value as NightlyRow;
      row.origin = 'feed';
      held.push(row);
      // A row skipped by its source key has no bytes to compare; one without a SKU is sent anyway.
      if (row.valid && !row.unchanged && row.sku !== undefined) skus.push(row.sku);
    }
    if (skus.length > 0) await delta.askAhead(skus);
  };
  const done: IteratorResult<NightlyRow> = { done: true, value: undefined };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      if (at === held.length) {
        if (ended) return done;
        await fill();
        if (held.length === 0) return done;
      }
      return { done: false, value: held[at++] };
    },
    return: async () => {
      held = [];
      at = 0;
      ended = true;
      await it.return?.();
      return done;
    },
  };
}
