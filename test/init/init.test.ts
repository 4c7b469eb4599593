import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { feedItems } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { targetByValues } from '../../src/init/guess.js';
import { type InitResult, initMapping, initSummaryLines } from '../../src/init/index.js';
import { exportSettings } from '../../src/init/settings.js';
import type { FieldSpecJson, TransformName } from '../../src/map/mapping-file.js';
import { TRANSFORM_READS } from '../../src/map/transforms/index.js';
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

/** What a merchant does to init's draft before the second run: fills in its placeholders. */
type Fill = (mapping: InitResult['mapping']) => void;

/** init, let the user edit the mapping (`fill`), write it, validate the file with it. */
async function roundTrip(file: string, over: Partial<FeedOptions>, fill?: Fill) {
  const result = await initMapping(file, { encoding: 'auto', country: over.country }, memoryLogger());
  const written = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  const edited = structuredClone(result.mapping);
  fill?.(edited);
  writeFileSync(written, JSON.stringify(edited, null, 2));
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of feedItems([file], opts({ mapping: written, ...over }), memoryLogger())) {
    items.push(item);
    tally(stats, item);
  }
  return { result, items, stats, written };
}

const inStock: Fill = (m) => {
  m.defaults = { ...m.defaults, availability: 'InStock' };
};

/** A one-brand shop's brand, written where init left its placeholder. */
const oneBrand: Fill = (m) => {
  m.defaults = { ...m.defaults, brand_id: 'luma', brand_name: 'Luma' };
};

/**
 * The real exports (fixtures/real/SOURCE.md), each as a merchant would bring it: with made-up
 * barcodes where its shop keeps them (none of them has any), and the placeholders init wrote
 * filled in by editing the mapping file.
 */
const REAL_EXPORTS: {
  file: string;
  preset?: string;
  /** Adds a barcode (and what else the file lacks) to one record, as the shop would export it. */
  add: (r: Record<string, string>, barcode: () => string) => void;
  fill?: Fill;
  records: number;
  products: number;
  /** The summary's accounting line, when not every record became a product of its own. */
  accounted?: string;
  leftOut: string[];
}[] = [
  {
    file: 'shopify-product-data.csv',
    preset: 'shopify',
    // Shopify keeps the barcode on the variant's row (the one with a price).
    add: (r, barcode) => {
      if ((r['Variant Price'] ?? '') !== '') r['Variant Barcode'] = barcode();
    },
    records: 21,
    products: 21,
    leftOut: [],
  },
  {
    file: 'woocommerce-sample-products.csv',
    preset: 'woocommerce',
    // WooCommerce (9.2 and later) exports its GTIN field as this column.
    add: (r, barcode) => {
      r['GTIN, UPC, EAN, or ISBN'] = barcode();
    },
    fill: oneBrand,
    records: 25,
    products: 22,
    accounted: '25 records read: 22 became products, 3 left out on purpose (above)',
    leftOut: [
      'variable products (their variations are the products): 2 (rows 1, 2)',
      'grouped products (a list of other products, no price of their own): 1 (row 23)',
    ],
  },
  {
    file: 'magento-configurable-products.csv',
    preset: 'magento',
    // A Magento attribute of the shop's own (gtin) is exported in additional_attributes.
    add: (r, barcode) => {
      if (r.store_view_code !== '') return;
      r.additional_attributes = [r.additional_attributes, `gtin=${barcode()}`].filter(Boolean).join(',');
    },
    fill: (m) => {
      oneBrand(m);
      (m.fields.image_urls as FieldSpecJson).prefix = 'https://luma.example/media/catalog/product';
    },
    records: 1994,
    products: 1847,
    accounted: '1994 records read: 1847 became products, 147 left out on purpose (above)',
    leftOut: ['configurable products (their simples are the products): 147 (rows 16, 32, 48, 64, 80, ...)'],
  },
  {
    // Magento's sample-data fixture for simple products, not an export: no preset, guessed.
    file: 'magento-simple-products-bags.csv',
    // It has no images either (the sample data keeps them apart): the merchant adds that column too.
    add: (r, barcode) => {
      r.gtin = barcode();
      r.image = `https://luma.example/media/catalog/product/${r.sku.toLowerCase()}.jpg`;
    },
    fill: (m) => {
      oneBrand(m);
      inStock(m);
    },
    records: 14,
    products: 14,
    leftOut: [],
  },
];

const targets = (mapped: { column: string; target: string }[]) =>
  Object.fromEntries(mapped.map((m) => [m.column, m.target]));

describe('genser init', () => {
  it('guesses a Korean export from names and values; validate then runs with the mapping as is', async () => {
    const { result, items, stats } = await roundTrip(fixture('init/korean.csv'), {}, inStock);
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
    // What the export cannot say is in the file: the country's currency, the end of the sale
    // window (its start is a column), and a placeholder for the stock the merchant fills in.
    expect(result.missing).toEqual([]);
    expect(result.mapping.defaults).toEqual({
      currency: 'KRW',
      availability: 'FILL IN: InStock if every product of this file is in stock',
      availability_ends: '+1y',
    });
    expect(result.mapping.notes?.join('\n')).toMatch(/defaults\.availability: .*Write InStock/);
    // The SKU column is the part number too, both written out (a column a mapping reads is not
    // also read as a canonical column).
    expect(result.mapping.fields).toMatchObject({ sku: '상품코드', mpn: '상품코드' });
    // With the placeholder filled in, every row is valid with no --set.
    expect(stats).toMatchObject({ rows: 3, valid: 3, invalid: 0 });
    const first = items.find((i) => i.sku === 'KR-001')!.payload as Record<string, any>;
    expect(first.offers).toMatchObject({ price: 12000, priceCurrency: 'KRW', gtin: '8801234567893' });
    expect(first.name).toEqual({ '@value': '면 티셔츠', '@language': 'ko' });
    const lines = initSummaryLines(result, 'genser.mapping.json');
    expect(lines).toContain('  상품명 -> name');
    expect(lines).toContain('Not mapped (1): 비고');
  });

  it('guesses a Japanese export; the stock count is left unmapped, the URL column read from its values', async () => {
    const { result, stats } = await roundTrip(
      fixture('init/japanese.csv'),
      { country: 'JP', language: 'ja' },
      inStock,
    );
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

  it("a currency without cents (--country KR's KRW) against prices with cents is a placeholder, not a guess", async () => {
    const shopify = fixture('real/shopify-product-data.csv');
    const kr = await initMapping(shopify, { encoding: 'auto' }, memoryLogger());
    expect(kr.mapping.defaults?.currency).toBe("FILL IN: your shop's currency (ISO 4217, e.g. USD)");
    expect(kr.mapping.notes?.join('\n')).toMatch(
      /defaults\.currency: the export does not say, and it is not KRW \(the currency of --country KR\): its prices have cents \(69\.99\), which KRW has not/,
    );
    // Whole prices say nothing against KRW: the country's currency, with its note.
    const korean = await initMapping(fixture('init/korean.csv'), { encoding: 'auto' }, memoryLogger());
    expect(korean.mapping.defaults?.currency).toBe('KRW');
    const currency = (prices: string[], country = 'KR') =>
      exportSettings((t) => t !== 'currency', {}, { country, prices }).defaults.currency;
    for (const whole of [['52.0000', '85.00', '12,000', '₩9,900', '']]) expect(currency(whole)).toBe('KRW');
    for (const cents of [['12000', '69.9900'], ['$1,299.50'], ['35.5']])
      expect(currency(cents)).toMatch(/^FILL IN: /);
    // Cents are what USD has.
    expect(currency(['69.99'], 'US')).toBe('USD');
  });

  it('reads a Merchant Center header as its transform does (any case, spaces): its brand column is held, no placeholder', async () => {
    const [head, ...body] = readFileSync(fixture('presets/google-merchant.tsv'), 'utf8').split('\n');
    const spaced = head
      .split('\t')
      .map((c) => c.replace(/_/g, ' ').replace(/^./, (x) => x.toUpperCase()))
      .join('\t');
    expect(spaced).toMatch(/^Id\tTitle\t.*\tImage link\t.*\tBrand\t/);
    const file = join(dir, 'merchant-center.tsv');
    writeFileSync(file, [spaced, ...body].join('\n'));
    const result = await initMapping(file, { encoding: 'auto', country: 'US' }, memoryLogger());
    expect(result.preset).toBe('google-merchant');
    expect(result.mapping.fields).toMatchObject({ brand_id: 'brand', brand_name: 'brand' });
    expect(result.mapping.defaults).not.toHaveProperty('brand_id');
    expect(result.readByTransform).toEqual(['Price', 'Sale price', 'Sale price effective date']);
    expect(result.unmapped).toEqual([]);
    expect(result.missing).toEqual([]);
  });

  it('every real export has a row in the table below (a new one must say how it becomes valid)', () => {
    const csvs = readdirSync(join(root, 'fixtures', 'real')).filter((f) => f.endsWith('.csv'));
    expect(csvs.sort()).toEqual(REAL_EXPORTS.map((e) => e.file).sort());
  });

  it.each(REAL_EXPORTS)(
    'init then validate on the real $file with made-up barcodes: placeholders filled, every product valid, no --set, every record accounted for',
    async (e) => {
      const Papa = (await import('papaparse')).default;
      const parsed = Papa.parse<Record<string, string>>(readFileSync(fixture(`real/${e.file}`), 'utf8'), {
        header: true,
        skipEmptyLines: true,
      });
      expect(parsed.errors).toEqual([]);
      let n = 0;
      const barcode = () => {
        const body = `2${String(++n).padStart(11, '0')}`;
        return body + gtinCheckDigit(body);
      };
      for (const r of parsed.data) e.add(r, barcode);
      const fields = [...new Set([...(parsed.meta.fields ?? []), ...parsed.data.flatMap(Object.keys)])];
      const file = join(dir, `barcodes-${e.file}`);
      writeFileSync(file, Papa.unparse({ fields, data: parsed.data }));

      const { result, items, stats } = await roundTrip(file, { language: 'en', country: 'US' }, e.fill);
      expect(result.preset).toBe(e.preset);
      // The columns the shop's transform reads are all in the real export, and said to be read.
      const reads = e.preset ? TRANSFORM_READS[e.preset as TransformName] : [];
      expect(new Set(result.readByTransform)).toEqual(new Set(reads));
      for (const c of reads) expect(result.unmapped).not.toContain(c);
      // Everything a product needs comes from a column or from the mapping file.
      expect(result.missing).toEqual([]);
      const bad = items.filter((i) => !i.valid).flatMap((i) => i.issues.map((x) => x.message));
      expect(bad).toEqual([]);
      expect(stats).toMatchObject({ rows: e.products, valid: e.products, invalid: 0 });
      // The summary accounts for each record read: as a product, merged, or left out and why.
      const said = (code: string) =>
        items.flatMap((i) => i.issues.filter((x) => x.code === code).map((x) => x.message));
      expect(parsed.data.length).toBe(e.records);
      expect(said('records')).toEqual(
        e.accounted ? [`every record accounted for, not an error: ${e.accounted}`] : [],
      );
      expect(said('left_out')).toEqual(e.leftOut.map((l) => `left out on purpose, not an error: ${l}`));
      if (!e.accounted) expect(stats.rows).toBe(e.records);
    },
  );

  it('a placeholder left in the mapping stops validate with the file and the setting, before any row', async () => {
    const woo = fixture('real/woocommerce-sample-products.csv');
    await expect(roundTrip(woo, { language: 'en', country: 'US' })).rejects.toThrow(
      /^mapping file .*\.json: \/defaults\/brand_id is still the placeholder genser init wrote \("FILL IN: your brand's id, e\.g\. my-brand"\), and 1 more: \/defaults\/brand_name; nothing is read or sent until they are filled in$/,
    );
    // One filled, the next is named: Magento's media URL.
    const magento = fixture('real/magento-configurable-products.csv');
    await expect(roundTrip(magento, { language: 'en', country: 'US' }, oneBrand)).rejects.toThrow(
      /: \/fields\/image_urls\/prefix is still the placeholder genser init wrote \("FILL IN: your store's media URL, e\.g\. https:\/\/shop\.example\.com\/media\/catalog\/product"\); nothing is read or sent until it is filled in$/,
    );
    const lines = initSummaryLines(
      await initMapping(woo, { encoding: 'auto', country: 'US' }, memoryLogger()),
      'genser.mapping.json',
    );
    expect(lines).toContain(
      'What the export cannot say, written into genser.mapping.json ("notes"; replace each "FILL IN:" value before the first run):',
    );
    expect(
      lines.some((l) => /^ {2}defaults\.brand_id\/brand_name: the export names no brand\./.test(l)),
    ).toBe(true);
  });

  it("writes a placeholder for Magento's image URL prefix, with a note saying what to write", async () => {
    const result = await initMapping(
      fixture('real/magento-configurable-products.csv'),
      { encoding: 'auto' },
      memoryLogger(),
    );
    expect(result.preset).toBe('magento');
    // A placeholder, not an example address: a store's images must never be sent under example.com.
    expect(result.mapping.fields.image_urls).toMatchObject({
      prefix: "FILL IN: your store's media URL, e.g. https://shop.example.com/media/catalog/product",
    });
    expect(result.mapping.notes?.join('\n')).toMatch(
      /fields\.image_urls\.prefix: Magento's image paths .* are relative to your store's media URL/,
    );
    expect(result.mapping.defaults).toMatchObject({ currency: 'KRW' });
    // The preset's own description tells --set users what to add: init's copy says what it did.
    expect(result.mapping.description).toMatch(/^Written by genser init with genser's magento preset/);
    expect(result.mapping.description).not.toContain('--set');
    // No barcodes: the hint says where a Magento shop keeps them.
    expect(result.missing).toEqual([
      {
        target: 'gtin',
        hint: expect.stringMatching(
          /^the magento preset reads it from additional_attributes \(gtin=, ean=, upc=, barcode=\), and this export has none: add it there, or map the column that has it/,
        ),
      },
    ]);
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
