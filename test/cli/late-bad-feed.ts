import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gtinCheckDigit } from '../../src/schema/checks.js';

const root = join(import.meta.dirname, '..', '..');

/**
 * A CSV feed that goes wrong late: fixtures/catalog.csv's header, then `lead(rows)` (its rows as
 * given), then its rows again with unique SKUs and GTINs up to `total` rows (8,000 rows are ~4 MB, well past
 * the 64 KiB encoding sample and the thread threshold), then a line holding a byte that is not UTF-8.
 */
export function lateBadFeed(
  dir: string,
  total: number,
  lead: (rows: string[]) => string[] = () => [],
): string {
  const [header, ...rows] = readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8')
    .trim()
    .split('\n');
  const out = lead(rows);
  for (let i = 0; out.length < total; i++) {
    for (const row of rows) {
      if (out.length >= total) break;
      const body = `881${String(out.length).padStart(9, '0')}`;
      out.push(
        row.replace(/^GS-(\d+)/, `GS-$1-${i}`).replace(/,8800000\d{6},/, `,${body}${gtinCheckDigit(body)},`),
      );
    }
  }
  const file = join(dir, 'late-bad.csv');
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`${header}\n${out.join('\n')}\n`), Buffer.from([0xff, 0x0a])]),
  );
  return file;
}
