import type { FeedRow } from '../feed/index.js';
import { priceOf, priceOfJson } from '../payload/price.js';
import { parseJsonBytes } from '../shared/json-bytes.js';
import type { HasSku } from '../shared/string-set.js';
import type { PayloadFormat } from '../shared/types.js';
import { type Shard, type ShardCounts, shardRows } from '../upload/shard.js';
import type { RetryRow, UploadState } from '../upload/state/store.js';

/**
 * The nightly run's rows (docs/nightly.md): where each comes from is said by its `origin`, never
 * guessed from its file name.
 * - `feed`: a row of the feed (read now, or replayed from the guard's spool);
 * - `gone`: a product the service accepted before and absent from this feed (`--missing out-of-stock`);
 * - `retry`: a row of the last run that was not accepted (`--retry-failed`);
 * - `stock`: a row of a stock file merged into the last accepted payload (`genser stock`).
 */
export type RowOrigin = 'feed' | 'gone' | 'retry' | 'stock';

export interface NightlyRow extends FeedRow {
  origin: RowOrigin;
}

/** The rows of one source, each marked with its origin (set on the row itself: no copy per row). */
export function withOrigin(
  items: AsyncIterable<FeedRow>,
  origin: RowOrigin,
): AsyncIterableIterator<NightlyRow> {
  const it = items[Symbol.asyncIterator]();
  // An iterator object, not a generator: the mark costs no promise of its own per row.
  const mark = (result: IteratorResult<FeedRow>): IteratorResult<NightlyRow> => {
    if (!result.done) (result.value as NightlyRow).origin = origin;
    return result as IteratorResult<NightlyRow>;
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => it.next().then(mark),
    return: async () => mark((await it.return?.()) ?? { done: true, value: undefined }),
  };
}

/**
 * Products gone from the feed (`--missing out-of-stock`): every SKU the service accepted before
 * and absent from this complete feed is sent again from its last accepted payload, marked out
 * of stock. Only after a feed read to its end with no file error: a truncated or broken feed
 * must never take the catalog out of stock.
 */
export type MissingMode = 'ignore' | 'out-of-stock';

/**
 * `--missing-after K` (docs/nightly.md): a product absent from the feed is marked out of stock
 * once it has been missing from K complete runs in a row, this one included (1: at once).
 */
export function markedGone(
  seen: HasSku,
  missingRuns: ReadonlyMap<string, number>,
  after: number,
): (sku: string) => boolean {
  return (sku) => !seen.has(sku) && (missingRuns.get(sku) ?? 0) + 1 >= after;
}

/** How a gone product's row names its place in reports (it has no file of its own). */
const GONE_LABEL = '(gone from the feed)';

/**
 * The payload with availability OutOfStock (standard) or isInStock false (legacy), and its price
 * (`priceOf`, null for none) for the state to keep.
 */
export function outOfStock(
  format: PayloadFormat,
  payload: Uint8Array,
): { json: Uint8Array; price: number | null } {
  const product = parseJsonBytes(payload);
  if (format === 'legacy') product.isInStock = false;
  else {
    const offers = product.offers;
    for (const offer of Array.isArray(offers) ? offers : offers ? [offers] : [])
      if (offer && typeof offer === 'object') (offer as Record<string, unknown>).availability = 'OutOfStock';
  }
  return { json: Buffer.from(JSON.stringify(product)), price: priceOf(product) ?? null };
}

/**
 * The feed's rows, then (when the feed ended cleanly) one `gone` row per SKU gone from it,
 * numbered after the feed's last row. `isGone` is asked at the end, once the feed's SKUs are seen.
 */
async function* goneRows(
  items: AsyncIterable<NightlyRow>,
  state: UploadState,
  isGone: (sku: string) => boolean,
  format: PayloadFormat,
  counted: (count: number) => void,
): AsyncGenerator<NightlyRow> {
  let lastRow = 0;
  let broken = false;
  for await (const item of items) {
    // A file error, or a row read without its SKU (a broken line): the feed is not complete.
    if ((item.row === 0 && !item.valid) || (item.row > 0 && item.sku === undefined)) broken = true;
    lastRow = Math.max(lastRow, item.row);
    yield item;
  }
  if (broken) return counted(0);
  let count = 0;
  for await (const { sku, payload } of state.absent((sku) => !isGone(sku))) {
    count++;
    const { json, price } = outOfStock(format, payload);
    yield {
      origin: 'gone',
      file: GONE_LABEL,
      row: lastRow + count,
      line: 0,
      sku,
      issues: [],
      valid: true,
      json,
      price,
    };
  }
  counted(count);
}

/**
 * `--retry-failed` (docs/nightly.md, "Retrying failed rows"): every row owed by earlier runs
 * (not accepted, and not superseded since), whatever ran in between, with its original file,
 * row and line.
 */
export async function* retryRows(rows: readonly RetryRow[]): AsyncGenerator<NightlyRow> {
  for (const r of rows)
    yield {
      origin: 'retry',
      file: r.file,
      row: r.row,
      line: r.line,
      ...(r.sku !== null ? { sku: r.sku } : {}),
      issues: [],
      valid: true,
      json: r.payload,
      // Not the last accepted payload's: the one this row failed with (read once, few rows).
      price: priceOfJson(r.payload) ?? null,
    };
}

/**
 * The rows a run sends, from one source (the feed, the guard's spool or the retry rows):
 * products gone from the feed follow a feed read to its end (`gone`), then this run's shard is
 * kept. The gone check sees every shard's rows (a broken row stops it in every shard); gone rows
 * are all this shard's (its state holds only its own SKUs) and are not counted as feed rows.
 */
export function nightlyRows(
  source: AsyncIterable<NightlyRow>,
  what: {
    format: PayloadFormat;
    /** `--missing out-of-stock`, with the state that knows the accepted products; undefined: ignore. */
    gone?: { state: UploadState; isGone(sku: string): boolean; counted(n: number): void };
    shard?: { of: Shard; counts: ShardCounts };
  },
): AsyncIterable<NightlyRow> {
  const { gone, shard } = what;
  let rows = source;
  if (gone) rows = goneRows(rows, gone.state, gone.isGone, what.format, gone.counted);
  if (shard) rows = shardRows(rows, shard.of, shard.counts, (row) => row.origin === 'gone');
  return rows;
}

/** What a retry run says it sends, and its label in the run history. */
export function retryLines(rows: readonly RetryRow[]): { info: string; label: string } {
  const n = rows.length;
  const count = `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
  if (n === 0)
    return {
      info: 'retry: 0 rows owed: every row of earlier runs was accepted, or superseded by a newer payload',
      label: '--retry-failed (nothing owed)',
    };
  const runs = [...new Set(rows.map((r) => r.runId))];
  const of = `${runs.length === 1 ? 'run' : 'runs'} ${runs.slice(0, 5).join(', ')}${runs.length > 5 ? ', ...' : ''}`;
  return {
    info: `retry: ${count} owed, not accepted by ${of}; sending them again`,
    label: `--retry-failed (${count} owed by ${of})`,
  };
}
