import type { MapProblem } from '../map/map-row.js';
import { isObject } from '../shared/is-object.js';
import { hashA, hashB, SkuSet, SPILL_AT } from './duplicates.js';

/**
 * The same GTIN on two different SKUs across a run (docs/feeds.md, "Identifiers"): a GTIN names
 * one trade item, so variants of one product (sizes, colours) need their own. Kept as the SKU
 * set keeps SKUs (hashes and first rows, no strings), each GTIN tagged with its first SKU's hash
 * so that a repeated SKU, already reported as a duplicate SKU, is not reported twice. The same
 * MPN on different brands is fine, and the same MPN is not checked at all.
 */
export class GtinSet {
  private readonly set: SkuSet;

  constructor(spillAt = SPILL_AT) {
    this.set = new SkuSet(1 << 12, true, spillAt);
  }

  /**
   * The first row of a GTIN (its `gtinHashes`, a and b) when another SKU (not the one of
   * `skuHash`, its `hashA`) had it, and records it otherwise.
   */
  add(
    a: number,
    b: number,
    skuHash: number,
    fileIndex: number,
    row: number,
  ): { fileIndex: number; row: number } | undefined {
    const first = this.set.addHashed(a, b, fileIndex, row, skuHash);
    if (!first || first.tag === skuHash) return undefined;
    return first;
  }

  close(): void {
    this.set.close();
  }
}

const GTIN_SPAN = 1e14;

/**
 * A GTIN as one number (0: none), for a worker's answer: a text per row, cloned to the main
 * thread, cost 34 MiB of peak RSS at 1M short rows on two workers (BENCHMARKS.md, "Stop
 * 42"). Its digits (at most 14, so exact in a double) and its length, for leading zeros:
 * length * 1e14 + value. The text is made again only for a duplicate's message.
 */
export function gtinNumber(gtin: string | undefined): number {
  if (gtin === undefined) return 0;
  // Digit by digit: `Number` of a 13-digit text took 0.37 us, on the worker's every row.
  let value = 0;
  for (let i = 0; i < gtin.length; i++) value = value * 10 + (gtin.charCodeAt(i) - 48);
  return gtin.length * GTIN_SPAN + value;
}

/** The GTIN text of a `gtinNumber`, exactly as the feed had it. */
export function gtinText(n: number): string {
  return String(n % GTIN_SPAN).padStart(Math.floor(n / GTIN_SPAN), '0');
}

/** A GTIN's two hashes for the set: GTIN-8, -12 and -13 are GTIN-14 with leading zeros, the same item. */
export function gtinHashes(gtin: string): [number, number] {
  const key = gtin.padStart(14, '0');
  return [hashA(key), hashB(key)];
}

const GTIN_DIGITS = /^(\d{8}|\d{12,14})$/;

/** A standard payload's GTIN when it has the shape of one (other values have their own issue). */
export function gtinOf(payload: Record<string, unknown> | undefined): string | undefined {
  const offers = payload && isObject(payload.offers) ? payload.offers : undefined;
  const gtin = offers?.gtin;
  return typeof gtin === 'string' && GTIN_DIGITS.test(gtin) ? gtin : undefined;
}

/** The `duplicate_gtin` problem when another SKU had `gtin` before in the run. */
export function duplicateGtinProblem(
  gtins: GtinSet,
  sources: readonly string[],
  /** The GTIN as its `gtinNumber` (made into text only when it is a duplicate). */
  gtin: number,
  sku: string,
  /** The row's hashes from `at`: its SKU's two, then its GTIN's two (src/feed/settle.ts, `duplicateHashes`). */
  hashes: ArrayLike<number>,
  at: number,
  fileIndex: number,
  row: number,
): MapProblem | undefined {
  const first = gtins.add(hashes[at + 2], hashes[at + 3], hashes[at], fileIndex, row);
  if (!first) return undefined;
  const text = gtinText(gtin);
  const where =
    first.fileIndex === fileIndex ? `row ${first.row}` : `row ${first.row} of ${sources[first.fileIndex]}`;
  return {
    code: 'duplicate_gtin',
    field: 'offers.gtin',
    value: text,
    message: `offers.gtin ${text} of SKU ${sku} (row ${row}) is also the GTIN of another SKU at ${where}`,
    hint: 'a GTIN names one trade item: each variant (size, colour) needs its own; check for a barcode copied from another row',
  };
}
