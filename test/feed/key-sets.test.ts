import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';

/**
 * JSON rows whose keys change from row to row each get their own key set's plan (and compiled
 * mapper), kept per key set (src/feed/pipeline.ts, FeedProcessor.plans): a row maps as it would
 * alone, whatever the rows before it.
 */
describe('rows that go back and forth between key sets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genser-key-sets-'));
  /** A GTIN-13 of its own for each row (a GTIN twice is a duplicate). */
  let next = 0;
  const gtin = () => {
    const digits = `880000000${String(++next).padStart(3, '0')}`;
    const sum = [...digits].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
    return `${digits}${(10 - (sum % 10)) % 10}`;
  };
  // A valid row of the canonical columns; A and B add as many keys, with different names.
  const base = (sku: string) => ({
    sku,
    'name@ko': '하늘 방수 백팩',
    brand_id: 'BR-008',
    'brand_name@ko': '하늘',
    'category_name@ko': '생활용품',
    category_code: '600',
    'description@ko': '매일 입기 좋은 편안한 착용감을 제공합니다.',
    price: '58700',
    currency: 'KRW',
    availability: 'InStock',
    availability_starts: '2026-06-08',
    gtin: gtin(),
    mpn: 'MPN-008-07766',
    image_urls: 'https://img.example.com/1.jpg',
    url: 'https://shop.example.com/p/1',
    availability_ends: '2028-07-10',
  });
  const a = (i: number) => ({ ...base(`A${i}`), 'material@ko': '면' });
  const b = (i: number) => ({ ...base(`B${i}`), item_condition: 'NewCondition' });
  const c = (i: number) => base(`C${i}`);
  const rows = [a(1), b(1), a(2), c(1), b(2), a(3), c(2), b(3)];

  const convert = async (name: string, records: object[]) => {
    const file = join(dir, name);
    writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const r = await genser(['convert', file]);
    return r.stdout.trim().split('\n');
  };

  it('maps each row as it maps alone', async () => {
    const together = await convert('all.ndjson', rows);
    const alone = await Promise.all(rows.map((r, i) => convert(`row-${i}.ndjson`, [r])));
    expect(together).toEqual(alone.flat());
    expect(together).toHaveLength(rows.length);
    expect(together.filter((line) => line.includes('"material"'))).toHaveLength(3);
    expect(together.filter((line) => line.includes('"itemCondition"'))).toHaveLength(3);
  });
});
