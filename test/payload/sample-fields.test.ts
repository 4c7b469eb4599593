import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { asReads, rowsRecords } from '../map/csv-records.js';

/** The sample-only fields of contract 2.7, from canonical columns (#31 item 7, docs/feeds.md). */
const opts: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

const row = {
  sku: 'A-1',
  name: '면 티셔츠',
  brand_id: 'b',
  brand_name: '브랜드',
  category_name: '의류|상의',
  category_code: 'CLO|CLO-TOP',
  description: '부드러운 면',
  price: '12000',
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2026-01-01',
  availability_ends: '2027-01-01',
  gtin: '8801234567893',
  mpn: 'A-1',
  image_urls: 'https://cdn.example.kr/a.jpg|https://cdn.example.kr/b.jpg',
  url: 'https://shop.example.kr/a-1',
  item_condition: 'NewCondition',
  has_adult_consideration: 'AlcoholConsideration',
  country_of_origin: 'kr',
  brand_logo: 'https://cdn.example.kr/logo.png',
  category_position: '1|2',
  shipping_weight: '0.35',
  shipping_weight_unit: 'KGM',
  image_content_size: '120 KB|98 KB',
  image_width: '800|640',
  image_height: '800',
};

async function one(fields: Record<string, string>) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of processReads(['f.csv'], () => asReads(rowsRecords([fields])), opts)) {
    items.push(item);
    tally(stats, item);
  }
  return items.find((i) => i.row > 0)!;
}

describe('sample-only fields have columns', () => {
  it('builds each in its documented shape, valid against the schema', async () => {
    const item = await one(row);
    expect(item.issues).toEqual([]);
    const p = item.payload as Record<string, any>;
    expect(p.itemCondition).toBe('NewCondition');
    expect(p.hasAdultConsideration).toBe('AlcoholConsideration');
    expect(p.countryOfOrigin).toEqual({ '@type': 'Country', name: 'KR' });
    expect(p.brand.logo).toBe('https://cdn.example.kr/logo.png');
    expect(p.category.map((c: { position: number }) => c.position)).toEqual([1, 2]);
    expect(p.offers.shippingDetails).toEqual({
      '@type': 'OfferShippingDetails',
      weight: { '@type': 'QuantitativeValue', value: 0.35, unitCode: 'KGM' },
    });
    expect(p.offers.image).toEqual([
      {
        '@type': 'ImageObject',
        contentUrl: 'https://cdn.example.kr/a.jpg',
        contentSize: '120 KB',
        width: 800,
        height: 800,
      },
      {
        '@type': 'ImageObject',
        contentUrl: 'https://cdn.example.kr/b.jpg',
        contentSize: '98 KB',
        width: 640,
      },
    ]);
  });

  it('a weight that is not a number is named at its column', async () => {
    const item = await one({ ...row, shipping_weight: 'heavy' });
    expect(item.issues.map((i) => [i.code, i.column, i.field])).toEqual([
      ['type', 'shipping_weight', 'offers.shippingDetails.weight.value'],
    ]);
  });
});
