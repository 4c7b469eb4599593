import type { FeedRow } from '../feed/index.js';
import type { PayloadFormat } from '../shared/types.js';
import type { UploadState } from '../upload/state/store.js';

/**
 * Products gone from the feed (`--missing out-of-stock`): every SKU the service accepted before
 * and absent from this complete feed is sent again from its last accepted payload, marked out
 * of stock. Only after a feed read to its end with no file error: a truncated or broken feed
 * must never take the catalog out of stock.
 */
export type MissingMode = 'ignore' | 'out-of-stock';

export const MISSING_FILE = '(gone from the feed)';

/** The payload with availability OutOfStock (standard) or isInStock false (legacy). */
export function outOfStock(format: PayloadFormat, payload: Uint8Array): Uint8Array {
  const product = JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>;
  if (format === 'legacy') product.isInStock = false;
  else {
    const offers = product.offers;
    for (const offer of Array.isArray(offers) ? offers : offers ? [offers] : [])
      if (offer && typeof offer === 'object') (offer as Record<string, unknown>).availability = 'OutOfStock';
  }
  return Buffer.from(JSON.stringify(product));
}

/**
 * The feed's rows, then (when the feed ended cleanly) one row per SKU gone from it, numbered
 * after the feed's last row. `seen` holds the SKUs the feed named, filled as its rows pass.
 */
export async function* withMissing(
  items: AsyncIterable<FeedRow>,
  state: UploadState,
  seen: ReadonlySet<string>,
  format: PayloadFormat,
  onMissing: (count: number) => void,
): AsyncGenerator<FeedRow> {
  let lastRow = 0;
  let broken = false;
  for await (const item of items) {
    // A file error, or a row read without its SKU (a broken line): the feed is not complete.
    if ((item.row === 0 && !item.valid) || (item.row > 0 && item.sku === undefined)) broken = true;
    lastRow = Math.max(lastRow, item.row);
    yield item;
  }
  if (broken) return onMissing(0);
  let count = 0;
  for (const { sku, payload } of state.absent((sku) => seen.has(sku))) {
    count++;
    yield {
      file: MISSING_FILE,
      row: lastRow + count,
      line: 0,
      sku,
      issues: [],
      valid: true,
      json: outOfStock(format, payload),
    };
  }
  onMissing(count);
}
