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

/** The price a row keeps; its payload is read (`payload`) only when the row does not know it. */
export async function keptPrice(
  stored: number | null,
  payload: () => Promise<Uint8Array | undefined>,
): Promise<number | undefined> {
  if (stored === null) {
    const bytes = await payload();
    return bytes === undefined ? undefined : priceOfJson(bytes);
  }
  return stored === NO_PRICE ? undefined : stored;
}
