import { priceOf } from '../payload/price.js';
import { parseJsonBytes } from '../shared/json-bytes.js';
import type { PayloadFormat } from '../shared/types.js';
import type { Availability } from './value.js';

/**
 * A stock change merged into the last payload the service accepted for the SKU (docs/nightly.md,
 * "Stock changes"): legacy sets `isInStock` (true only for InStock), standard sets every offer's
 * `availability`. Nothing else changes, and the keys keep their order. undefined: a standard
 * payload without an offer to carry the availability. With its price (`priceOf`, null for none),
 * read from the object at hand, for the state to keep (src/upload/state/prices.ts).
 */
export function withStock(
  format: PayloadFormat,
  payload: Uint8Array,
  availability: Availability,
): { json: Uint8Array; price: number | null } | undefined {
  const product = parseJsonBytes(payload);
  if (format === 'legacy') product.isInStock = availability === 'InStock';
  else {
    const offers = product.offers;
    const list = (Array.isArray(offers) ? offers : offers ? [offers] : []).filter(
      (o): o is Record<string, unknown> => o !== null && typeof o === 'object',
    );
    if (list.length === 0) return undefined;
    for (const offer of list) offer.availability = availability;
  }
  return { json: Buffer.from(JSON.stringify(product)), price: priceOf(product) ?? null };
}

/** The field a stock change sets, as reports name it. */
export function stockField(format: PayloadFormat): string {
  return format === 'legacy' ? 'isInStock' : 'offers.availability';
}
