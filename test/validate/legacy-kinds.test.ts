import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import type { FeedItem, FeedOptions, SourceRecord } from '../../src/shared/types.js';
import { asReads, rowsRecords } from '../map/csv-records.js';

const opts = (kind: FeedOptions['kind']): FeedOptions => ({
  format: 'legacy',
  kind,
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
});

async function run(records: SourceRecord[], options: FeedOptions) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of processReads(['feed'], () => asReads(records), options)) {
    items.push(item);
    tally(stats, item);
  }
  return { items, stats };
}

const content = {
  code: 'C-1',
  name: '요가 클래스',
  'categories.largeCode': 'CLS',
  'categories.largeName': '클래스',
  'image.mainUrl': 'https://cdn.example.com/c.jpg',
  'image.detailUrls': 'https://cdn.example.com/c2.jpg',
  'priceInfo.currency': 'KRW',
  'priceInfo.price': '30000',
  'priceInfo.salePrice': '25000',
  createdAt: '2026-01-05 10:00',
  languageCode: 'ko',
  'display.isYn': 'Y',
  'display.start': '2026-02-01',
  'display.end': '2026-03-01',
  'attribute.sessionCount': '8',
  'attribute.menuName': '기초|심화',
};

describe('legacy contents and filters', () => {
  it('contents: display dates become epoch milliseconds; start after end is an error', async () => {
    const { items } = await run(
      rowsRecords([content, { ...content, code: 'C-2', 'display.start': '2026-04-01' }]),
      opts('contents'),
    );
    expect(items[0].issues).toEqual([]);
    expect(items[0].payload).toMatchObject({
      code: 'C-1',
      display: {
        isYn: true,
        start: Date.parse('2026-01-31T15:00:00Z'),
        end: Date.parse('2026-02-28T15:00:00Z'),
      },
      attribute: { sessionCount: 8, menuName: ['기초', '심화'] },
      createdAt: '2026-01-05T01:00:00Z',
    });
    expect(items[1].issues.map((i) => i.code)).toEqual(['date_order']);
  });

  it('filters: name and values; a duplicate filter name is reported', async () => {
    const { items, stats } = await run(
      rowsRecords([
        { name: 'color', values: 'black|white' },
        { name: 'color', values: 'red' },
        { name: '', values: 'x' },
      ]),
      opts('filters'),
    );
    expect(items[0].payload).toEqual({ name: 'color', values: ['black', 'white'] });
    expect(items[1].issues.map((i) => i.code)).toEqual(['duplicate_sku']);
    expect(items[1].issues[0].message).toContain('filter color appears again');
    expect(items[2].issues.map((i) => [i.code, i.field])).toEqual([['required', 'name']]);
    expect(stats).toMatchObject({ rows: 3, valid: 1, invalid: 2 });
  });

  it('ready-made legacy objects: createAt is read as createdAt; unknown keys are errors', async () => {
    const ready = {
      code: 'L-1',
      name: '가방',
      brand: { code: 'B', name: '브랜드' },
      categories: [{ largeCode: 'BAG', largeName: '가방' }],
      image: {
        mainUrl: 'https://cdn.example.com/a.jpg',
        detailUrls: [],
        productUrl: 'https://shop.example.com/l1',
      },
      priceInfo: { currency: 'KRW', price: 1000, salePrice: 900 },
      createAt: '2026-01-01T00:00:00Z',
      isInStock: true,
    };
    const { items } = await run(
      [
        { file: 'l.json', row: 1, line: 1, fields: ready, shape: 'legacy' },
        {
          file: 'l.json',
          row: 2,
          line: 1,
          fields: { ...structuredClone(ready), code: 'L-2', colour: 'red' },
          shape: 'rows',
        },
      ],
      opts('products'),
    );
    expect(items[0]).toMatchObject({ valid: true, issues: [{ code: 'respelled', severity: 'warning' }] });
    expect(items[1].issues.map((i) => [i.code, i.field, i.column])).toEqual([
      ['respelled', 'createdAt', 'createAt'],
      ['unknown_field', 'colour', 'colour'],
    ]);
  });
});
