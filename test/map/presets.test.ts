import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FeedRow, feedRows, payloadJson } from '../../src/feed/index.js';
import { feedItems, processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { loadPreset, presetNames, resolveFeedMapping } from '../../src/map/presets.js';
import { suggestPreset } from '../../src/map/suggest-preset.js';
import { transformReads } from '../../src/map/transforms/index.js';
import { readFeed } from '../../src/read/index.js';
import { UsageError } from '../../src/shared/errors.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { workerFromSource } from '../helpers/workers.js';

const root = join(import.meta.dirname, '..', '..');
const real = (name: string) => join(root, 'fixtures', 'real', name);
const own = (name: string) => join(root, 'fixtures', 'presets', name);
// The shops' exports lack these; the tests fill them as a merchant would, with --set.
const FILL = ['currency=USD', 'availability_starts=2026-01-01', 'availability_ends=+1y'];

const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'en',
  strict: false,
  country: 'US',
  runDate: '2026-11-23T12:00:00Z',
  ...over,
});

async function run(file: string, over: Partial<FeedOptions>) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of feedItems([file], opts(over), memoryLogger())) {
    items.push(item);
    tally(stats, item);
  }
  const rows = items.filter((i) => i.row > 0);
  const fileIssues = items.filter((i) => i.row === 0).flatMap((i) => i.issues);
  const bySku = (sku: string) => rows.find((i) => i.sku === sku)?.payload as Record<string, any>;
  return { items, rows, stats, fileIssues, bySku };
}

const codes = (item: FeedItem | undefined) =>
  new Set(item?.issues.filter((i) => i.severity === 'error').map((i) => `${i.code} ${i.field}`));

describe('presets are shipped mapping files', () => {
  it('names the four shops, loads each, and are in the published package', () => {
    expect(presetNames()).toEqual(['google-merchant', 'magento', 'shopify', 'woocommerce']);
    for (const name of presetNames()) {
      expect(loadPreset(name, { format: 'standard', kind: 'products' }).transform).toBe(name);
    }
    // npm pack publishes what package.json's "files" lists.
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('presets');
    for (const name of presetNames()) expect(existsSync(join(root, 'presets', `${name}.json`))).toBe(true);
  });

  it('refuses an unknown name, and --mapping with --preset, naming what to do', () => {
    expect(() => loadPreset('prestashop', { format: 'standard', kind: 'products' })).toThrow(
      /unknown preset "prestashop"/,
    );
    expect(() => resolveFeedMapping(opts({ preset: 'shopify', mapping: 'm.json' }))).toThrow(UsageError);
    expect(() => resolveFeedMapping(opts({ set: ['colour=red'] }))).toThrow(
      /--set colour=red: colour is not a standard field/,
    );
  });

  it('suggests the preset from a header alone', async () => {
    const header = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n', 1)[0]
        .trim()
        .split(file.endsWith('.tsv') ? '\t' : ',');
    expect(suggestPreset(header(real('shopify-product-data.csv')))).toBe('shopify');
    expect(
      suggestPreset(header(real('woocommerce-sample-products.csv')).map((h) => h.replace(/^\uFEFF/, ''))),
    ).toBe('woocommerce');
    expect(suggestPreset(header(real('magento-configurable-products.csv')))).toBe('magento');
    expect(suggestPreset(header(own('google-merchant.tsv')))).toBe('google-merchant');
    expect(suggestPreset(['sku', 'name', 'price', 'currency'])).toBeUndefined();
    // And the run says it when no mapping was given.
    const { fileIssues } = await run(real('shopify-product-data.csv'), {});
    expect(fileIssues.find((i) => i.code === 'preset_suggested')?.message).toContain('--preset shopify');
  });
});

describe('shopify', () => {
  it('reads the real export: one product per variant, product fields carried down', async () => {
    const { rows, bySku } = await run(real('shopify-product-data.csv'), { preset: 'shopify', set: FILL });
    // 21 records: 20 products, one of them (gardening-gloves) with two variants.
    expect(rows).toHaveLength(21);
    const yellow = bySku('gardening-gloves-yellow');
    expect(yellow.name['@value']).toBe('Gardening Gloves - Yellow');
    // Carried down from the product's row: the variant row has no Vendor, Type or body.
    expect(yellow.brand.name['@value']).toBe('Company 123');
    expect(yellow.category[0].name['@value']).toBe('Outdoor');
    expect(yellow.description[0].text).toBeTruthy();
    expect(yellow.offers).toMatchObject({ price: 15.99, priceCurrency: 'USD', availability: 'InStock' });
    expect(bySku('gardening-gloves-green').offers.price).toBe(9.99);
    // Quantity 0 with policy deny: out of stock.
    expect(bySku('watering-can').offers.availability).toBe('OutOfStock');
    // The export has no barcodes: that, and only that, is left to fix.
    expect(codes(rows.find((r) => r.sku === 'floor-lamp'))).toEqual(new Set(['required offers.gtin']));
  });

  it('variant SKUs, barcodes without the quote, image rows, availability and drafts counted', async () => {
    const { rows, bySku, fileIssues, stats } = await run(own('shopify-variants.csv'), {
      preset: 'shopify',
      set: FILL,
    });
    expect(rows.map((r) => r.sku)).toEqual(['LS-S', 'LS-M', 'LS-L', 'plain-mug']);
    const m = bySku('LS-M');
    expect(m.offers.gtin).toBe('08801234567800');
    expect(m.brand['@id']).toBe('Hanbok Lab');
    // Its own image first, then the product's images by position, the image-only row's too.
    expect(m.offers.image.map((i: { contentUrl: string }) => i.contentUrl)).toEqual([
      'https://cdn.example.com/ls-m.jpg',
      'https://cdn.example.com/ls-front.jpg',
      'https://cdn.example.com/ls-back.jpg',
      'https://cdn.example.com/ls-side.jpg',
    ]);
    expect(bySku('LS-S').offers.availability).toBe('InStock');
    expect(m.offers.availability).toBe('OutOfStock');
    // Sold on when out: policy continue.
    expect(bySku('LS-L').offers.availability).toBe('InStock');
    // LS-L has no barcode: the one error of the file.
    expect(rows.filter((r) => !r.valid).map((r) => [r.sku, [...codes(r)]])).toEqual([
      ['LS-L', ['required offers.gtin']],
    ]);
    const leftOut = fileIssues.filter((i) => i.code === 'left_out');
    expect(leftOut.map((i) => i.message)).toEqual([
      'left out on purpose, not an error: draft products (Status draft): 1 (row 5)',
      'left out on purpose, not an error: archived products (Status archived): 1 (row 6)',
    ]);
    expect(leftOut.every((i) => i.severity === 'warning')).toBe(true);
    expect(stats.invalid).toBe(1);
  });
});

describe('woocommerce', () => {
  it('reads the real export: variations take their parent fields; variable and grouped left out', async () => {
    const { rows, bySku, fileIssues } = await run(real('woocommerce-sample-products.csv'), {
      preset: 'woocommerce',
      set: [...FILL, 'brand_id=woo', 'brand_name=WooCommerce'],
    });
    // 25 records - 2 variable parents - 1 grouped.
    expect(rows).toHaveLength(22);
    expect(rows.some((r) => r.sku === 'woo-vneck-tee' || r.sku === 'logo-collection')).toBe(false);
    const red = bySku('woo-vneck-tee-red');
    expect(red.category[0]).toMatchObject({ name: { '@value': 'Tshirts' }, codeValue: 'Clothing > Tshirts' });
    // Its own description stays; what it lacks (categories, above) comes from the parent.
    expect(red.description[0].text).toMatch(/^Lorem ipsum/);
    expect(red.offers).toMatchObject({ price: 20, availability: 'InStock' });
    // Sale price without dates is the price.
    expect(bySku('woo-hoodie-red').offers.price).toBe(42);
    expect(bySku('woo-beanie').offers.price).toBe(18);
    // External products are sold elsewhere: that is their URL.
    expect(bySku('wp-pennant').url['@value']).toMatch(/^https:\/\/mercantile\.wordpress\.org\//);
    expect(bySku('woo-album').offers.image.length).toBeGreaterThan(0);
    expect(fileIssues.filter((i) => i.code === 'left_out').map((i) => i.value)).toEqual([
      'variable products (their variations are the products)',
      'grouped products (a list of other products, no price of their own)',
    ]);
    expect(codes(rows.find((r) => r.sku === 'woo-vneck-tee-red'))).toEqual(new Set(['required offers.gtin']));
  });
});

describe('magento', () => {
  it('reads the real export: 1,847 simples sold, 147 configurable parents counted', async () => {
    let records = 0;
    const left: string[] = [];
    const reads = readFeed(real('magento-configurable-products.csv'), { encoding: 'auto' }, memoryLogger());
    for await (const item of transformReads('magento', reads, {
      runDate: new Date('2026-11-23T12:00:00Z'),
    })) {
      if (item.type === 'record') records++;
      else if (item.issue.code === 'left_out') left.push(item.issue.message);
    }
    expect(records).toBe(1847);
    expect(left).toEqual([
      expect.stringMatching(
        /^left out on purpose, not an error: configurable products \(their simples are the products\): 147 \(rows 16, 32/,
      ),
    ]);
  });

  it('gives simples their parent fields and reads additional_attributes as columns', async () => {
    // The first products of the real export (whole configurable groups), mapped and validated.
    const file = real('magento-configurable-products.csv');
    const read = async function* () {
      for await (const item of readFeed(file, { encoding: 'auto' }, memoryLogger())) {
        if (item.type === 'record' && item.record.row > 160) return;
        yield item;
      }
    };
    const o = opts({ preset: 'magento', set: [...FILL, 'brand_id=luma', 'brand_name=Luma'] });
    const rows: FeedItem[] = [];
    for await (const item of processReads([file], read, o, resolveFeedMapping(o)))
      if (item.row > 0) rows.push(item);
    expect(rows).toHaveLength(150);
    const gray = rows.find((r) => r.sku === 'MH01-XS-Gray')!;
    const p = gray.payload as Record<string, any>;
    expect(p.name['@value']).toBe('Chaz Kangeroo Hoodie-XS-Gray');
    expect(p.offers).toMatchObject({
      price: 52,
      priceCurrency: 'USD',
      availability: 'InStock',
      mpn: 'MH01-XS-Gray',
    });
    expect(p.category.map((c: any) => c.name['@value'])).toEqual(['Hoodies & Sweatshirts', 'Eco Friendly']);
    // Image paths are relative to the store: the preset says to set the prefix, the run says where.
    expect(codes(gray)).toEqual(
      new Set([
        'required offers.gtin',
        'url offers.image[0].contentUrl',
        'url offers.image[1].contentUrl',
        'url offers.image[2].contentUrl',
      ]),
    );
  });
});

describe('google-merchant', () => {
  it('reads a TSV: price and currency split, the sale price inside its window, backorder', async () => {
    const { rows, bySku } = await run(own('google-merchant.tsv'), {
      preset: 'google-merchant',
      set: ['availability_starts=today'],
    });
    expect(rows.map((r) => r.sku)).toEqual(['GM-1', 'GM-2', 'GM-3']);
    expect(rows.every((r) => r.valid)).toBe(true);
    const mug = bySku('GM-1');
    expect(mug.offers).toMatchObject({
      price: 12,
      priceCurrency: 'USD',
      gtin: '4006381333931',
      mpn: 'TM-100',
    });
    expect(mug.offers.image).toHaveLength(3);
    expect(mug.category[0]).toMatchObject({ name: { '@value': 'Mugs' }, codeValue: '2951' });
    expect(mug.offers.availabilityEnds).toBe('2027-06-30T04:00:00Z');
    // The pot's sale ended in 2025: the regular price.
    expect(bySku('GM-2').offers).toMatchObject({ price: 30, availability: 'PreOrder' });
    expect(bySku('GM-3').offers.availability).toBe('OutOfStock');
  });

  it('reads the same product data saved as CSV (commas, quoted where needed)', async () => {
    const tsv = await run(own('google-merchant.tsv'), {
      preset: 'google-merchant',
      set: ['availability_starts=today'],
    });
    const lines = readFileSync(own('google-merchant.tsv'), 'utf8').trimEnd().split('\n');
    const quote = (cell: string) => (/[",\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell);
    const csv = join(mkdtempSync(join(tmpdir(), 'genser-gmc-')), 'products.csv');
    writeFileSync(csv, `${lines.map((l) => l.split('\t').map(quote).join(',')).join('\n')}\n`);
    const fromCsv = await run(csv, { preset: 'google-merchant', set: ['availability_starts=today'] });
    expect(fromCsv.rows.map((r) => r.sku)).toEqual(['GM-1', 'GM-2', 'GM-3']);
    expect(fromCsv.rows.map((r) => r.valid)).toEqual(tsv.rows.map((r) => r.valid));
    expect(fromCsv.bySku('GM-1').offers).toEqual(tsv.bySku('GM-1').offers);
  });
});

describe('shop edge cases, on small exports of our own', () => {
  it('woocommerce: sale windows, parents by id or SKU, escaped commas, drafts, backorders, orphans', async () => {
    const { rows, bySku, items, fileIssues } = await run(own('woocommerce-edge.csv'), {
      preset: 'woocommerce',
      set: [...FILL, 'brand_id=shop', 'brand_name=Shop'],
    });
    expect(rows.map((r) => r.sku)).toEqual(['TEE-S', 'TEE-M', 'MUG', 'SOCK-S']);
    const s = bySku('TEE-S');
    // Inside its sale window (1-30 November): the sale price. Parent `id:10`'s fields filled in.
    expect(s.offers).toMatchObject({ price: 15, availability: 'InStock', gtin: '4006381333931' });
    expect(s.category.map((c: any) => c.name['@value'])).toEqual(['Tees', 'Sale, Outlet']);
    expect(s.description[0].text).toBe('A tee');
    expect(s.offers.image[0].contentUrl).toBe('https://shop.example.com/tee.jpg');
    // Its sale starts in December; parent named by SKU; stock 0 without backorders.
    const m = bySku('TEE-M');
    expect(m.offers).toMatchObject({ price: 20, availability: 'OutOfStock' });
    expect(m.offers.image[0].contentUrl).toBe('https://shop.example.com/tee-m.jpg');
    expect(bySku('MUG').offers.availability).toBe('PreOrder');
    const orphan = items.flatMap((i) => i.issues).find((i) => i.code === 'parent_not_found');
    expect(orphan).toMatchObject({ severity: 'warning', row: 7, column: 'Parent', value: 'id:99' });
    expect(fileIssues.filter((i) => i.code === 'left_out').map((i) => i.message)).toEqual([
      'left out on purpose, not an error: variable products (their variations are the products): 1 (row 1)',
      'left out on purpose, not an error: disabled variations (Published 0): 1 (row 4)',
      'left out on purpose, not an error: draft products (Published -1): 1 (row 5)',
    ]);
  });

  it('magento: store views as languages, simples after their parent, special price, disabled products', async () => {
    // A copy of the preset with the store's URLs, as docs/presets.md tells a merchant to make.
    const preset = JSON.parse(readFileSync(join(root, 'presets', 'magento.json'), 'utf8'));
    preset.fields.image_urls.prefix = 'https://shop.example.com/media/catalog/product';
    preset.fields.url = { column: 'url_key', prefix: 'https://shop.example.com/', suffix: '.html' };
    const dir = mkdtempSync(join(tmpdir(), 'genser-preset-'));
    const copy = join(dir, 'my-magento.json');
    writeFileSync(copy, JSON.stringify(preset));
    try {
      const { rows, bySku, fileIssues } = await run(own('magento-edge.csv'), {
        preset: copy,
        set: ['currency=USD', 'availability_starts=2026-01-01', 'availability_ends=+1y'],
      });
      expect(rows.map((r) => r.sku)).toEqual(['BAG-1', 'TEE-S', 'TEE-M']);
      const bag = bySku('BAG-1');
      expect(bag.name).toEqual([
        { '@value': 'Tote Bag', '@language': 'en' },
        { '@value': 'トートバッグ', '@language': 'ja' },
      ]);
      expect(bag.offers).toMatchObject({ price: 25, gtin: '4006381333931' });
      expect(bag.brand.name['@value']).toBe('Luma');
      expect(rows[0].valid).toBe(true);
      const fr = fileIssues.find((i) => i.code === 'store_view_ignored');
      expect(fr).toMatchObject({ severity: 'warning', line: 4, value: 'fr' });
      expect(fr?.message).toMatch(/^row 3: store view "fr"/);
      // Listed after their parent: its description, categories, image, brand and page.
      const small = bySku('TEE-S');
      expect(small.description[0].text).toBe('Tee parent');
      expect(small.category[0].name['@value']).toBe('Tees');
      expect(small.offers.image[0].contentUrl).toBe(
        'https://shop.example.com/media/catalog/product/t/e/tee.jpg',
      );
      expect(small.url['@value']).toBe('https://shop.example.com/tee.html');
      expect(small.offers).toMatchObject({ price: 20, gtin: '8801234567893' });
      expect(rows[1].valid).toBe(true);
      expect(bySku('TEE-M').offers).toMatchObject({ price: 20, availability: 'OutOfStock' });
      expect(fileIssues.filter((i) => i.code === 'left_out').map((i) => i.value)).toEqual([
        'disabled products (product_online 2)',
        'configurable products (their simples are the products)',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('magento attribute columns', () => {
  it('a column named for a known attribute (gtin, brand) is read as attr.gtin, attr.brand; additional_attributes win', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-preset-'));
    const file = join(dir, 'magento-columns.csv');
    writeFileSync(
      file,
      [
        'sku,product_type,name,price,is_in_stock,base_image,gtin,brand,additional_attributes',
        'A-1,simple,Tote,25,1,https://img.example/a.jpg,4006381333931,Luma,',
        'A-2,simple,Cap,10,1,https://img.example/b.jpg,4006381333931,Luma,"gtin=8801234567893,brand=Ana"',
      ].join('\n'),
    );
    try {
      const { bySku } = await run(file, { preset: 'magento', set: FILL });
      expect(bySku('A-1').offers.gtin).toBe('4006381333931');
      expect(bySku('A-1').brand.name['@value']).toBe('Luma');
      expect(bySku('A-2').offers.gtin).toBe('8801234567893');
      expect(bySku('A-2').brand.name['@value']).toBe('Ana');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('presets on the feed worker', () => {
  it('give the same rows on two threads as in one (the transform runs where the mapping does)', async () => {
    // The worker is built from these sources; its run date and --set entries cross with the options.
    const workerUrl = await workerFromSource('feed/worker.ts');
    const feed = opts({ preset: 'shopify', set: FILL });
    const outcome = async (workers: number) => {
      const rows: FeedRow[] = [];
      for await (const row of feedRows([own('shopify-variants.csv')], feed, memoryLogger(), undefined, {
        serialize: true,
        workers,
        workerUrl,
      }))
        rows.push(row);
      return rows.map((r) => [
        r.row,
        r.sku,
        r.valid,
        r.issues,
        r.valid ? Buffer.from(payloadJson(r) ?? []).toString() : null,
      ]);
    };
    const [threaded, inThread] = await Promise.all([outcome(2), outcome(0)]);
    expect(threaded).toEqual(inThread);
    expect(threaded.filter((r) => r[0] !== 0).map((r) => r[1])).toEqual([
      'LS-S',
      'LS-M',
      'LS-L',
      'plain-mug',
    ]);
  });
});
