import { priceOfJson } from '../../payload/price.js';

/**
 * How an accepted SKU's row keeps its payload's price, for the price-shock guard (docs/nightly.md,
 * "Mass-change guard"): the guard compares a changed product's price with the one accepted, and
 * reading it from the payload meant decompressing its pack (./packs.ts) for each changed product.
 * A number is the price; NO_PRICE says the payload has none (priceOf only finds finite prices);
 * NULL says the row does not know (a row from before the column, or a payload not made from a
 * feed row: a stock change, a product gone), and the payload is read.
 */
export const NO_PRICE = Number.NEGATIVE_INFINITY;

/** The column's value for a row's price (`AcceptedRow.price`). */
export function storedPrice(price: number | null | undefined): number | null {
  return price === undefined ? null : price === null ? NO_PRICE : price;
}

/**
 * The prices the rows keep, by SKU (none for a payload without one); the payloads of the rows that
 * do not know theirs are read, all at once (`payloads`).
 */
export async function keptPrices(
  rows: Iterable<{ sku: string; price: number | null }>,
  payloads: (skus: readonly string[]) => Promise<Map<string, Uint8Array>>,
): Promise<Map<string, number>> {
  const prices = new Map<string, number>();
  const unknown: string[] = [];
  for (const r of rows)
    if (r.price === null) unknown.push(r.sku);
    else if (r.price !== NO_PRICE) prices.set(r.sku, r.price);
  if (unknown.length === 0) return prices;
  for (const [sku, bytes] of await payloads(unknown)) {
    const price = priceOfJson(bytes);
    if (price !== undefined) prices.set(sku, price);
  }
  return prices;
}
