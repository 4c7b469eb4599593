import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { emptyStats, feedItems, tally } from '../../src/feed/pipeline.js';
import { targetByValues } from '../../src/init/guess.js';
import { initMapping, initSummaryLines } from '../../src/init/index.js';
import { gtinCheckDigit } from '../../src/schema/checks.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = (name: string) => join(root, 'fixtures', name);
const dir = mkdtempSync(join(tmpdir(), 'genser-init-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  runDate: '2026-03-01T00:00:00Z',
  ...over,
});

/** init, write the mapping, validate the file with it as it is. */
async function roundTrip(file: string, over: Partial<FeedOptions>) {
  const result = await initMapping(file, { encoding: 'auto', country: over.country }, memoryLogger());
  const written = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(written, JSON.stringify(result.mapping, null, 2));
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of feedItems([file], opts({ mapping: written, ...over }), memoryLogger())) {
    items.push(item);
    tally(stats, item);
  }
  return { result, items, stats, written };
}

const targets = (mapped: { column: string; target: string }[]) =>
  Object.fromEntries(mapped.map((m) => [m.column, m.target]));

describe('genser init', () => {
  it('guesses a Korean export from names and values; validate then runs with the mapping as is', async () => {
    const { result, items, stats } = await roundTrip(fixture('init/korean.csv'), {
      set: ['currency=KRW', 'availability_ends=+1y'],
    });
    expect(targets(result.mapped)).toEqual({
      상품코드: 'sku',
      상품명: 'name',
      브랜드: 'brand_name',
      카테고리: 'category_name',
      판매가: 'price',
      대표이미지: 'image_urls',
      바코드: 'gtin',
      상품설명: 'description',
      판매시작일: 'availability_starts',
    });
    expect(result.unmapped).toEqual(['비고']);
    expect(result.mapping.language).toBe('ko');
    // "12,000원": the number format is declared, never guessed per row.
    expect(result.mapping.fields.price).toEqual({ column: '판매가', thousands: ',', currencySymbols: true });
    expect(result.missing.map((m) => m.target)).toEqual(['currency', 'availability', 'availability_ends']);
    expect(result.missing[0].hint).toMatch(/^--set currency=KRW/);
    // With the two flags the summary named, every row is valid but for the availability it lacks.
    expect(stats.rows).toBe(3);
    const errors = new Set(
      items.flatMap((i) => i.issues.filter((x) => x.severity === 'error').map((x) => x.field)),
    );
    expect(errors).toEqual(new Set(['offers.availability']));
    const first = items.find((i) => i.sku === 'KR-001')!.payload as Record<string, any>;
    expect(first.offers).toMatchObject({ price: 12000, priceCurrency: 'KRW', gtin: '8801234567893' });
    expect(first.name).toEqual({ '@value': '면 티셔츠', '@language': 'ko' });
    const lines = initSummaryLines(result, 'genser.mapping.json');
    expect(lines).toContain('  상품명 -> name');
    expect(lines).toContain('Not mapped (1): 비고');
  });

  it('guesses a Japanese export; the stock count is left unmapped, the URL column read from its values', async () => {
    const { result, stats } = await roundTrip(fixture('init/japanese.csv'), {
      country: 'JP',
      language: 'ja',
      set: ['availability=InStock', 'availability_starts=today', 'availability_ends=+1y'],
    });
    expect(targets(result.mapped)).toMatchObject({
      商品番号: 'sku',
      商品名: 'name',
      メーカー: 'brand_name',
      価格: 'price',
      通貨: 'currency',
      画像URL: 'image_urls',
      JANコード: 'gtin',
      商品説明: 'description',
      リンク: 'url',
    });
    expect(result.unmapped).toEqual(['在庫数']);
    expect(result.mapping.language).toBe('ja');
    expect(stats).toMatchObject({ rows: 2, valid: 2, invalid: 0 });
  });

  it('recognises a shop export, writes its preset and what the export cannot hold, with notes', async () => {
    const { result, items } = await roundTrip(fixture('real/shopify-product-data.csv'), {
      language: 'en',
      country: 'US',
    });
    expect(result.preset).toBe('shopify');
    expect(result.mapping.transform).toBe('shopify');
    // Currency and sale window are in the file now: nothing left to --set.
    expect(result.mapping.defaults).toEqual({
      currency: 'USD',
      availability_starts: 'today',
      availability_ends: '+1y',
    });
    expect(result.missing).toEqual([]);
    expect(result.mapping.notes?.join('\n')).toMatch(
      /defaults\.currency is USD, the currency of --country US/,
    );
    expect(result.mapping.notes?.join('\n')).toMatch(/no sale window/);
    const rows = items.filter((i) => i.row > 0);
    expect(rows).toHaveLength(21);
    // The export has no barcodes: that, and only that, is left.
    const errors = new Set(
      rows.flatMap((r) => r.issues.filter((i) => i.severity === 'error').map((i) => i.field)),
    );
    expect([...errors]).toEqual(['offers.gtin']);
  });

  it('init then validate on the real Shopify export with made-up barcodes: every product valid, no --set', async () => {
    const Papa = (await import('papaparse')).default;
    const parsed = Papa.parse<Record<string, string>>(
      readFileSync(fixture('real/shopify-product-data.csv'), 'utf8'),
      { header: true },
    );
    let n = 0;
    for (const r of parsed.data) {
      if (r['Variant SKU'] === undefined || (r['Variant Price'] ?? '') === '') continue;
      const body = `2${String(++n).padStart(11, '0')}`;
      r['Variant Barcode'] = body + gtinCheckDigit(body);
    }
    const file = join(dir, 'shopify-barcodes.csv');
    writeFileSync(file, Papa.unparse({ fields: parsed.meta.fields ?? [], data: parsed.data }));
    const { items, stats } = await roundTrip(file, { language: 'en', country: 'US' });
    const bad = items.filter((i) => !i.valid).flatMap((i) => i.issues.map((x) => x.message));
    expect(bad).toEqual([]);
    expect(stats).toMatchObject({ rows: 21, valid: 21, invalid: 0 });
  });

  it("writes Magento's image URL prefix with a note to replace it", async () => {
    const result = await initMapping(
      fixture('real/magento-configurable-products.csv'),
      { encoding: 'auto' },
      memoryLogger(),
    );
    expect(result.preset).toBe('magento');
    expect(result.mapping.fields.image_urls).toMatchObject({
      prefix: 'https://shop.example.com/media/catalog/product',
    });
    expect(result.mapping.notes?.join('\n')).toMatch(
      /fields\.image_urls\.prefix: .*replace https:\/\/shop\.example\.com/,
    );
    expect(result.mapping.defaults).toMatchObject({ currency: 'KRW' });
  });

  it('reads values: URLs, GTINs with a valid check digit, currency codes, money, dated columns', () => {
    expect(targetByValues('x', ['https://a.example/p.jpg', 'https://a.example/q.png'])?.target).toBe(
      'image_urls',
    );
    expect(targetByValues('x', ['https://a.example/p', 'https://a.example/q'])?.target).toBe('url');
    expect(targetByValues('x', ['4006381333931', '8801234567893'])?.target).toBe('gtin');
    expect(targetByValues('x', ['4006381333932'])).toBeUndefined();
    expect(targetByValues('x', ['KRW', 'usd'])?.target).toBe('currency');
    expect(targetByValues('x', ['₩12,000', '₩9,900'])?.target).toBe('price');
    expect(targetByValues('x', ['12', '0', '7'])).toBeUndefined();
    expect(targetByValues('sale_end', ['2026-01-01'])?.target).toBe('availability_ends');
    expect(targetByValues('updated', ['2026-01-01'])).toBeUndefined();
  });
});
