import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, isClean, tally } from '../../src/feed/pipeline.js';
import { loadMapping } from '../../src/map/mapping-file.js';
import type { FeedItem, FeedOptions, ReadItem, SourceRecord } from '../../src/shared/types.js';
import { asReads, csvRecords, rowsRecords } from '../map/csv-records.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = (name: string) => join(root, 'fixtures', name);
const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  ...over,
});

async function run(
  records: SourceRecord[] | ReadItem[],
  options = opts(),
  mapping?: ReturnType<typeof loadMapping>,
) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  const reads = (records as (SourceRecord | ReadItem)[]).map((r) =>
    'type' in r && (r.type === 'record' || r.type === 'issue')
      ? r
      : ({ type: 'record', record: r } as ReadItem),
  );
  async function* read() {
    yield* reads;
  }
  for await (const item of processReads(['feed'], read, options, mapping)) {
    items.push(item);
    tally(stats, item);
  }
  return { items, stats };
}

const codes = (item: FeedItem) => item.issues.map((i) => i.code);

describe('the pipeline over the fixtures', () => {
  it('fixtures/catalog.csv is entirely valid, with multi-language names and UTC dates', async () => {
    const { items, stats } = await run(csvRecords(fixture('catalog.csv')));
    expect(stats.rows).toBeGreaterThanOrEqual(20);
    expect(stats.invalid).toBe(0);
    expect(stats.warnings).toBe(0);
    expect(isClean(stats)).toBe(true);
    const first = items[0].payload as Record<string, any>;
    expect(first.name).toHaveLength(3);
    expect(first.offers.availabilityStarts).toBe('2025-12-31T15:00:00Z');
    expect(typeof first.offers.price).toBe('number');
  });

  it('fixtures/catalog-invalid.csv: each bad row gets its own precise issue', async () => {
    const { items, stats } = await run(csvRecords(fixture('catalog-invalid.csv')));
    expect(stats.rows).toBe(10);
    expect(stats.invalid).toBe(9);
    const byRow = new Map(items.map((i) => [i.row, i]));
    expect(codes(byRow.get(1)!)).toEqual([]);
    const price = byRow.get(2)!.issues[0];
    expect(price).toMatchObject({
      code: 'type',
      column: 'price',
      field: 'offers.price',
      value: '12,000원',
      row: 2,
      line: 3,
    });
    expect(price.hint).toMatch(/declare .*thousands/);
    expect(codes(byRow.get(3)!)).toEqual(['currency']);
    expect(codes(byRow.get(4)!)).toEqual(['gtin']);
    expect(codes(byRow.get(5)!)).toEqual(['enum']);
    expect(codes(byRow.get(6)!)).toEqual(['date_order']);
    expect(codes(byRow.get(7)!)).toEqual(['url']);
    expect(byRow.get(7)!.issues[0].hint).toContain('"prefix"');
    const dup = byRow.get(8)!.issues.find((i) => i.code === 'duplicate_sku');
    expect(dup?.message).toContain('first seen at row 1');
    expect(byRow.get(9)!.issues[0]).toMatchObject({ code: 'required', field: 'name' });
    expect(codes(byRow.get(10)!)).toEqual(['date']);
  });

  it('fixtures/legacy-catalog.csv builds valid legacy objects', async () => {
    const { items, stats } = await run(csvRecords(fixture('legacy-catalog.csv')), opts({ format: 'legacy' }));
    expect(stats.invalid).toBe(0);
    expect(items[0].payload).toMatchObject({
      code: 'GS-0001',
      brand: { code: 'BR-SORA' },
      categories: [{ largeCode: 'BAG', midCode: 'BAG-TOTE' }],
      priceInfo: { currency: 'KRW', price: 89000, salePrice: 80100 },
      isInStock: true,
      customs: [{ name: 'season', values: ['FW'] }],
    });
  });

  it('legacy: salePrice above price is an error; missing isInStock a warning, an error with --strict', async () => {
    const row = {
      code: 'X',
      name: 'n',
      'brand.code': 'b',
      'brand.name': 'b',
      'categories.largeCode': 'c',
      'categories.largeName': 'c',
      'image.mainUrl': 'https://x.example/a.jpg',
      'image.detailUrls': 'https://x.example/b.jpg',
      'image.productUrl': 'https://x.example/p',
      'priceInfo.currency': 'KRW',
      'priceInfo.price': '100',
      'priceInfo.salePrice': '120',
      createdAt: '2025-01-01',
    };
    const loose = await run(rowsRecords([row]), opts({ format: 'legacy' }));
    const issues = loose.items[0].issues.map((i) => [i.code, i.severity]);
    expect(issues).toContainEqual(['sale_price', 'error']);
    expect(issues).toContainEqual(['recommended', 'warning']);
    const strict = await run(
      rowsRecords([{ ...row, 'priceInfo.salePrice': '90' }]),
      opts({ format: 'legacy', strict: true }),
    );
    expect(strict.items[0].issues.map((i) => [i.code, i.severity, i.field])).toEqual([
      ['recommended', 'error', 'isInStock'],
    ]);
    expect(strict.stats.invalid).toBe(1);
  });

  it('ready-made standard nodes are validated as they are, alternate spellings warned about', async () => {
    const { items } = await run(csvRecords(fixture('catalog.csv')).slice(0, 1));
    const node = structuredClone(items[0].payload) as Record<string, any>;
    node.brand.id = node.brand['@id'];
    delete node.brand['@id'];
    const again = await run([{ file: 'env.json', row: 1, line: 1, fields: node, shape: 'graph' }]);
    expect(again.items[0].valid).toBe(true);
    expect(again.items[0].issues.map((i) => i.code)).toEqual(['respelled']);
    const wrong = await run(
      [{ file: 'env.json', row: 1, line: 1, fields: node, shape: 'graph' }],
      opts({ format: 'legacy' }),
    );
    expect(wrong.items[0]).toMatchObject({ valid: false, issues: [{ code: 'format_mismatch' }] });
    expect(wrong.items[0].payload).toBeUndefined();
  });

  it('read issues reach the caller: attached to their row, or items of their own', async () => {
    const records = csvRecords(fixture('catalog.csv')).slice(0, 2);
    const reads: ReadItem[] = [
      {
        type: 'issue',
        issue: { severity: 'error', code: 'duplicate_header', file: 'feed', line: 1, message: 'dup' },
      },
      {
        type: 'issue',
        issue: {
          severity: 'error',
          code: 'ragged_row',
          file: records[0].file,
          row: 1,
          line: 2,
          message: 'r',
        },
      },
      { type: 'record', record: records[0] },
      {
        type: 'issue',
        issue: { severity: 'error', code: 'unclosed_quote', file: 'feed', row: 5, line: 9, message: 'q' },
      },
    ];
    const { items, stats } = await run(reads);
    expect(items.map((i) => [i.row, i.valid, codes(i)])).toEqual([
      [0, false, ['duplicate_header']],
      [1, false, ['ragged_row']],
      [5, false, ['unclosed_quote']],
    ]);
    expect(stats).toMatchObject({ rows: 2, invalid: 2, fileErrors: 1 });
  });

  it('duplicate SKUs are found across files', async () => {
    const a = rowsRecords([{ sku: 'S1' }], 'a.csv');
    async function* read(source: string): AsyncGenerator<ReadItem> {
      yield* asReads(source === 'a.csv' ? a : rowsRecords([{ sku: 'S1' }], 'b.csv'));
    }
    const items: FeedItem[] = [];
    for await (const item of processReads(['a.csv', 'b.csv'], read, opts())) items.push(item);
    const dup = items[1].issues.find((i) => i.code === 'duplicate_sku');
    expect(dup?.message).toContain('first seen at row 1 of a.csv');
    expect(dup?.file).toBe('b.csv');
  });
});

// Copies of real shop exports (fixtures/real/SOURCE.md says where each comes from).
const realDir = join(root, 'fixtures', 'real');
const magento = join(realDir, 'magento-configurable-products.csv');

describe('the real Magento export through fixtures/mappings/magento.json', () => {
  it('gives sensible products and says exactly what the export lacks', async () => {
    const mapping = loadMapping(fixture('mappings/magento.json'), { format: 'standard', kind: 'products' });
    const { items, stats } = await run(csvRecords(magento), opts(), mapping);
    expect(stats.rows).toBe(1994);
    const variant = items.find((i) => i.sku === 'MH01-XS-Gray')!;
    const p = variant.payload as Record<string, any>;
    expect(p.name).toEqual({ '@value': 'Chaz Kangeroo Hoodie-XS-Gray', '@language': 'en' });
    expect(p.offers).toMatchObject({
      price: 52,
      priceCurrency: 'USD',
      availability: 'InStock',
      mpn: 'MH01-XS-Gray',
    });
    expect(p.offers.image[0].contentUrl).toBe(
      'https://magento.example.com/media/catalog/product/m/h/mh01-gray_main.jpg',
    );
    expect(p.category.map((c: any) => c.name['@value'])).toEqual(['Hoodies & Sweatshirts', 'Eco Friendly']);
    expect(p.description[0].text).not.toContain('<p>');
    expect(p.url['@value']).toBe('https://magento.example.com/chaz-kangeroo-hoodie-xs-gray.html');
    // What the export lacks, and nothing else.
    expect(new Set(variant.issues.map((i) => `${i.code} ${i.field}`))).toEqual(
      new Set([
        'required offers.gtin',
        'required offers.availabilityStarts',
        'required offers.availabilityEnds',
      ]),
    );
    expect(variant.issues[0].hint).toContain('add a column named gtin');
    // Configurable parents have no url_key: a warning that names the column.
    const parent = items.find((i) => i.sku === 'MH01')!;
    const url = parent.issues.find((i) => i.field === 'url');
    expect(url).toMatchObject({ severity: 'warning', column: 'url_key' });
  });
});
