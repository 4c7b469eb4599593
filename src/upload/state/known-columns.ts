import type { KnownColumns } from '../../feed/index.js';

/**
 * The source-key table's columns as a database aggregates them in one pass (no row object per
 * SKU): every key joined, every SKU with its warnings joined, and `skuBytes:warningBytes` pairs
 * joined by commas, all in one order.
 */
export function knownColumns(
  row: { keys: string | null; skus: string | null; lengths: string | null } | undefined,
): KnownColumns {
  if (!row?.lengths) return { keys: '', skus: '', skuBytes: [], warningBytes: [] };
  const skuBytes: number[] = [];
  const warningBytes: number[] = [];
  for (const pair of row.lengths.split(',')) {
    const colon = pair.indexOf(':');
    skuBytes.push(Number(pair.slice(0, colon)));
    warningBytes.push(Number(pair.slice(colon + 1)));
  }
  return { keys: row.keys ?? '', skus: row.skus ?? '', skuBytes, warningBytes };
}
