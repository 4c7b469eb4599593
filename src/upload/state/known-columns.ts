import type { KnownColumns } from '../../feed/index.js';

/**
 * Entries per page of the source-key table: each page is one query whose texts stay a few
 * megabytes, however many SKUs the state holds (KnownSourcesBuilder); 100k SKUs are one page.
 */
export const KNOWN_PAGE = 100_000;

/** A page of the table as a database aggregates it: its entries, and the last of its order. */
export interface KnownPageRow {
  n: number | string;
  last: string | null;
  keys: string | null;
  skus: string | null;
  lengths: string | null;
}

/**
 * The pages of one table in its key's order (`read(after)`: the page of `page` entries after that
 * key, from the start when undefined), until a page is not full.
 */
export async function* knownPages(
  page: number,
  read: (after: string | undefined) => KnownPageRow | undefined | Promise<KnownPageRow | undefined>,
): AsyncGenerator<KnownColumns> {
  let after: string | undefined;
  for (;;) {
    const row = await read(after);
    yield knownColumns(row);
    if (!row || Number(row.n) < page || row.last === null) return;
    after = row.last;
  }
}

/**
 * The source-key table's columns as a database aggregates them in one pass (no row object per
 * SKU): every key joined, every SKU with its warnings joined, and `skuBytes:warningBytes` pairs
 * joined by commas, all in one order.
 */
export function knownColumns(
  row: { keys: string | null; skus: string | null; lengths: string | null } | undefined,
): KnownColumns {
  if (!row?.lengths) return { keys: '', skus: '', skuBytes: [], warningBytes: [] };
  // Lengths that are not such pairs: none, which the keys then do not add up to (no table).
  const { skuBytes, warningBytes } = lengthPairs(row.lengths) ?? { skuBytes: [], warningBytes: [] };
  return { keys: row.keys ?? '', skus: row.skus ?? '', skuBytes, warningBytes };
}

/**
 * `a:b,c:d` as [a, c] and [b, d], digit by digit: a split and two slices per SKU cost 0.6 us
 * each on the nightly run's main thread. Undefined when the text is not such pairs.
 */
export function lengthPairs(text: string): { skuBytes: number[]; warningBytes: number[] } | undefined {
  const skuBytes: number[] = [];
  const warningBytes: number[] = [];
  let n = 0;
  let digits = 0;
  let first = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 44;
    if (c >= 48 && c <= 57 && digits < 10) {
      n = n * 10 + (c - 48);
      digits++;
    } else if (c === 58 && first === -1 && digits > 0) {
      first = n;
      n = digits = 0;
    } else if (c === 44 && first !== -1 && digits > 0) {
      skuBytes.push(first);
      warningBytes.push(n);
      first = -1;
      n = digits = 0;
    } else return undefined;
  }
  return { skuBytes, warningBytes };
}
