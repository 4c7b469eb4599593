import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyStats, type FeedRow, feedRows, tally } from '../../src/feed/index.js';
import { parseMapping } from '../../src/map/mapping-file.js';
import { resolveFeedMapping } from '../../src/map/presets.js';
import { UsageError } from '../../src/shared/errors.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { GtinSet, gtinHashes, gtinNumber, gtinText } from '../../src/validate/duplicate-gtins.js';
import { hashA } from '../../src/validate/duplicates.js';
import { workerFromSource } from '../helpers/workers.js';

const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  runDate: '2026-02-01T00:00:00Z',
  ...over,
});

const product = (sku: string, gtin: string, mpn = sku, brand = 'b') => ({
  sku,
  name: '면 티셔츠',
  brand_id: brand,
  brand_name: brand,
  category_name: '의류',
  category_code: 'CLO',
  description: '부드러운 면',
  price: '12000',
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2026-01-01',
  availability_ends: '2027-01-01',
  gtin,
  mpn,
  image_urls: 'https://cdn.example.kr/a.jpg',
  url: `https://shop.example.kr/${sku}`,
});

/** The rows as a CSV file (same columns in every row), read by the feed on this thread. */
async function run(rows: Record<string, string>[], options = opts()) {
  const header = Object.keys(rows[0]);
  const cell = (v: string | undefined) => `"${(v ?? '').replace(/"/g, '""')}"`;
  const file = join(mkdtempSync(join(tmpdir(), 'genser-ids-')), 'mem.csv');
  writeFileSync(
    file,
    `${[header.join(','), ...rows.map((r) => header.map((h) => cell(r[h])).join(','))].join('\n')}\n`,
  );
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of feedRows([file], options, memoryLogger(), undefined, {
    serialize: false,
    workers: 0,
  })) {
    items.push(item);
    tally(stats, item);
  }
  return { items: items.filter((i) => i.row > 0), stats };
}

const errors = (item: FeedItem | FeedRow) => item.issues.filter((i) => i.severity === 'error');

describe('a per-product identifier is never one value for every row', () => {
  it.each(['sku', 'offer_sku', 'gtin', 'mpn', 'offers.gtin'])(
    '--set %s=... is refused with why',
    (target) => {
      const run = () => resolveFeedMapping(opts({ set: [`${target}=8801234567893`] }));
      expect(run).toThrow(UsageError);
      expect(run).toThrow(/cannot be one value for every row/);
      try {
        run();
      } catch (err) {
        expect((err as UsageError).message).toMatch(new RegExp(`^--set ${target}=8801234567893: `));
        expect((err as UsageError).hint).toContain('map the column that has it');
      }
    },
  );

  it('the GTIN message says why: every product would be the same item', () => {
    expect(() => resolveFeedMapping(opts({ set: ['gtin=8801234567893'] }))).toThrow(
      /names one trade item: the same number on every row tells the service that every product is the same item/,
    );
  });

  it('a mapping constant, default or "defaults" entry is refused with the pointer', () => {
    const std = { format: 'standard', kind: 'products' } as const;
    expect(() => parseMapping('{"fields": {"gtin": {"const": "8801234567893"}}}', 'm.json', std)).toThrow(
      /m\.json: \/fields\/gtin\/const gtin cannot be one value for every row/,
    );
    expect(() =>
      parseMapping('{"fields": {"mpn": {"column": "Model", "default": "X"}}}', 'm.json', std),
    ).toThrow(/\/fields\/mpn\/default mpn cannot be one value/);
    expect(() =>
      parseMapping('{"defaults": {"sku": "A"}, "fields": {"name": "Title"}}', 'm.json', std),
    ).toThrow(/\/defaults\/sku sku cannot be one value/);
    expect(() =>
      parseMapping('{"fields": {"code": {"const": "A"}}}', 'm.json', { format: 'legacy', kind: 'products' }),
    ).toThrow(/\/fields\/code\/const code cannot be one value/);
    // Other fields take constants as before.
    expect(
      parseMapping('{"defaults": {"currency": "KRW"}, "fields": {"brand_id": {"const": "b"}}}', 'm.json', std)
        .defaults,
    ).toHaveLength(1);
  });
});

describe('the same GTIN on different SKUs', () => {
  it('is an error on the later row naming both rows; the first row stays valid', async () => {
    const { items } = await run([
      product('TEE-S', '8801234567893'),
      product('TEE-M', '8800000010373'),
      product('TEE-L', '8801234567893'),
    ]);
    expect(items.map((i) => i.valid)).toEqual([true, true, false]);
    const [issue] = errors(items[2]);
    expect(issue).toMatchObject({ code: 'duplicate_gtin', field: 'offers.gtin', row: 3, sku: 'TEE-L' });
    expect(issue.message).toContain(
      'offers.gtin 8801234567893 of SKU TEE-L (row 3) is also the GTIN of another SKU at row 1',
    );
    expect(issue.hint).toContain('each variant (size, colour) needs its own');
  });

  it('is the same item in any length: a UPC-12 and its EAN-13 with a leading zero', async () => {
    const { items } = await run([product('A', '036000291452'), product('B', '0036000291452')]);
    expect(errors(items[1]).map((i) => i.code)).toEqual(['duplicate_gtin']);
  });

  it('a repeated SKU is one duplicate SKU, not a duplicate GTIN too', async () => {
    const { items } = await run([product('A', '8801234567893'), product('A', '8801234567893')]);
    expect(errors(items[1]).map((i) => i.code)).toEqual(['duplicate_sku']);
  });

  it('the same MPN with different brands (or the same) is fine', async () => {
    const { items } = await run([
      product('A', '8801234567893', 'MODEL-1', 'acme'),
      product('B', '8800000010373', 'MODEL-1', 'other'),
    ]);
    expect(items.every((i) => i.valid)).toBe(true);
  });

  it('GtinSet remembers many GTINs and which SKU had each', () => {
    const set = new GtinSet();
    const add = (gtin: string, sku: string, file: number, row: number) =>
      set.add(...gtinHashes(gtin), hashA(sku), file, row);
    let repeats = 0;
    for (let i = 0; i < 20_000; i++) if (add(String(10_000_000 + i), `S${i}`, 0, i + 1)) repeats++;
    expect(repeats).toBe(0);
    expect(add('10000005', 'S5', 0, 30_000)).toBeUndefined();
    expect(add('00000010000005', 'other', 1, 30_001)).toEqual({
      fileIndex: 0,
      row: 6,
      tag: expect.any(Number),
    });
  });

  it('a GTIN crosses from a worker as one number and comes back as the same text', () => {
    const texts = [
      '12345670',
      '00000000',
      '012345678905',
      '4006381333931',
      '0012345678905',
      '00012345600012',
      '99999999999999',
    ];
    const numbers = texts.map(gtinNumber);
    expect(numbers.map(gtinText)).toEqual(texts);
    expect(new Set(numbers).size).toBe(texts.length);
    expect(numbers).not.toContain(0);
    expect(gtinNumber(undefined)).toBe(0);
  });

  it('is found whatever runs the rows: this thread, record batches on a worker, byte ranges on two', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-gtin-'));
    const header = Object.keys(product('x', 'y'));
    const line = (p: Record<string, string>) => header.map((h) => `"${p[h]}"`).join(',');
    const rows = Array.from({ length: 40 }, (_, i) =>
      line(
        product(`P-${i}`, i === 37 ? '8800000010373' : i === 5 ? '8800000010373' : `${8800000000000 + i}`),
      ),
    );
    // The others' check digits are mostly wrong (their own issue): only the repeat is looked at.
    const file = join(dir, 'feed.csv');
    writeFileSync(file, `${header.join(',')}\n${rows.join('\n')}\n`);
    const workerUrl = await workerFromSource('feed/worker.ts');
    for (const options of [
      { serialize: false, workers: 0 },
      { serialize: false, workers: 1, workerUrl },
      { serialize: false, workers: 2, workerUrl, chunkBytes: 300 },
    ]) {
      const out: FeedRow[] = [];
      for await (const r of feedRows([file], opts(), memoryLogger(), undefined, options)) out.push(r);
      const gtinIssues = out.flatMap((r) => r.issues.filter((i) => i.code === 'duplicate_gtin'));
      expect(
        gtinIssues.map((i) => [i.row, i.sku]),
        JSON.stringify(options),
      ).toEqual([[38, 'P-37']]);
      expect(gtinIssues[0].message).toContain('offers.gtin 8800000010373 of SKU P-37 (row 38)');
      expect(gtinIssues[0].message).toContain('at row 6');
      expect(gtinIssues[0].value).toBe('8800000010373');
    }
  });
});
