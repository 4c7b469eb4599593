import type { ReadItem } from '../../shared/types.js';
import { DERIVED, finalPrice, recordItem, type TransformContext, text } from './common.js';

/**
 * Google Merchant Center product data (docs/presets.md, "google-merchant"), TSV or CSV with its
 * attribute names. Prices come as `15.00 USD`; the sale price applies inside
 * `sale_price_effective_date` (`start/end`, ISO 8601). Derived columns:
 *   genser:price     sale_price while its window includes the run (or has none), else price; the number only
 *   genser:currency  the currency code written after the price
 * Column names are matched in any case and with spaces for underscores (`image link`), as
 * Merchant Center accepts them.
 */
/** The columns this transform reads to make its rows, as Merchant Center names them (`genser init` lists them as read). */
export const GOOGLE_MERCHANT_READS = ['price', 'sale_price', 'sale_price_effective_date'] as const;

const PRICE = /^\s*([0-9][0-9.,]*)\s*([A-Za-z]{3})?\s*$/;

export function splitPrice(raw: string): { amount: string; currency: string } {
  const m = PRICE.exec(raw);
  if (!m) return { amount: raw.trim(), currency: '' };
  return { amount: m[1], currency: (m[2] ?? '').toUpperCase() };
}

/** A column as Merchant Center names it: any case, spaces for underscores (`Image link`: `image_link`). */
export const merchantCenterName = (column: string) => column.trim().toLowerCase().replace(/\s+/g, '_');

export async function* googleMerchant(
  reads: AsyncIterable<ReadItem>,
  ctx: TransformContext,
): AsyncGenerator<ReadItem> {
  for await (const item of reads) {
    if (item.type === 'issue' || item.record.shape !== 'rows') {
      yield item;
      continue;
    }
    const f: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(item.record.fields)) {
      const key = merchantCenterName(k);
      if (!(key in f) || text(f, key) === '') f[key] = v;
    }
    const regular = splitPrice(text(f, 'price'));
    const sale = splitPrice(text(f, 'sale_price'));
    const [from = '', to = ''] = text(f, 'sale_price_effective_date').split('/');
    const chosen = finalPrice(regular.amount, sale.amount, from, to, ctx.runDate);
    f[`${DERIVED}price`] = chosen;
    f[`${DERIVED}currency`] =
      (chosen === sale.amount && sale.amount !== '' ? sale.currency : '') || regular.currency;
    yield recordItem({ ...item.record, fields: f });
  }
}
