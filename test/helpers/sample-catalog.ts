import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';

/** The shipped fixtures/catalog.csv, by row (1-based): the nights of a test are made from it. */
const root = join(import.meta.dirname, '..', '..');
const [header, ...sample] = Papa.parse<string[]>(
  readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'),
  {
    skipEmptyLines: true,
  },
).data;
const PRICE = header.indexOf('price');
const SKU = header.indexOf('sku');

export const catalogHeader: readonly string[] = header;
/** The catalog's rows as parsed (values in header order). */
export const catalogRows: readonly (readonly string[])[] = sample;
export const catalogSku = (i: number): string => sample[i - 1][SKU];
export const catalogPrice = (i: number): number => Number(sample[i - 1][PRICE]);

/** The CSV text of the catalog's rows `keep` (1-based, in order), some given another price. */
export function catalogCsv(keep: readonly number[], reprice: Record<number, string> = {}): string {
  const rows = keep.map((i) => {
    const row = [...sample[i - 1]];
    if (reprice[i] !== undefined) row[PRICE] = reprice[i];
    return row;
  });
  return `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`;
}
