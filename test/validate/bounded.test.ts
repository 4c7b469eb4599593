import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { boundedView, checkSchema, DETAIL_LIMITS } from '../../src/schema/bounded.js';
import type { FeedItem, FeedOptions, ReadItem } from '../../src/shared/types.js';

// Hostile inputs (issue 19.1): however many errors a value holds, validating it costs linear
// time, and the problems listed are capped and say so.

const opts: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

async function validateRows(rows: Record<string, string>[]) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  const reads: ReadItem[] = rows.map((fields, i) => ({
    type: 'record',
    record: { file: 'feed.csv', row: i + 1, line: i + 2, fields, shape: 'rows' },
  }));
  async function* read() {
    yield* reads;
  }
  for await (const item of processReads(['feed.csv'], read, opts)) {
    items.push(item);
    tally(stats, item);
  }
  return { items, stats };
}

const row = (over: Record<string, string> = {}) => ({
  sku: 'A-1',
  name: 'Name',
  brand_id: 'B1',
  brand_name: 'Brand',
  category_name: 'Cat',
  description: 'Desc',
  price: '100',
  currency: 'KRW',
  availability: 'InStock',
  gtin: '8800000010373',
  mpn: 'M1',
  availability_starts: '2026-01-01',
  availability_ends: '2027-01-01',
  image_urls: 'https://cdn.example.com/a.jpg',
  url: 'https://shop.example.com/a',
  ...over,
});

describe('bounded validation', () => {
  it('validates a row whose image_urls holds 65,536 bad values fast, listing a capped few', async () => {
    const images = Array.from({ length: 65_536 }, (_, i) => `x${i}`).join('|');
    // Was about a minute (ajv allErrors copied its error list on every failing $ref): the
    // test's own timeout catches that; speed itself is the bench's (BENCHMARKS.md).
    const { items, stats } = await validateRows([row({ image_urls: images })]);
    expect(stats.invalid).toBe(1);
    const issues = items[0].issues;
    const urls = issues.filter((i) => i.code === 'url');
    expect(urls.length).toBe(DETAIL_LIMITS.listItems);
    expect(urls[0].field).toBe('offers.image[0].contentUrl');
    const capped = issues.find((i) => i.code === 'problems_capped');
    expect(capped?.severity).toBe('warning');
    expect(capped?.message).toContain('only the first 100 entries of offers.image were checked in detail');
  });

  it('keeps the first error even when it lies past the part listed in detail', () => {
    const image = Array.from({ length: 500 }, (_, i) => ({
      '@type': 'ImageObject',
      contentUrl: i === 400 ? 'not-a-url' : `https://cdn.example.com/${i}.jpg`,
    }));
    const product = {
      '@type': 'Product',
      sku: 'A',
      name: 'n',
      category: { '@type': 'CategoryCode', name: 'c' },
      brand: { '@id': 'b', name: { '@value': 'b', '@language': 'ko' } },
      description: { '@type': 'TextObject', text: 'd', inLanguage: 'ko' },
      offers: {
        '@type': 'Offer',
        sku: 'A',
        gtin: '8800000010373',
        mpn: 'M',
        price: 1,
        priceCurrency: 'KRW',
        availability: 'InStock',
        availabilityStarts: '2026-01-01T00:00:00Z',
        availabilityEnds: '2027-01-01T00:00:00Z',
        image,
      },
    };
    const bad = checkSchema('standard-product', product);
    expect(bad.valid).toBe(false);
    expect(bad.errors.map((e) => e.instancePath)).toContain('/offers/image/400/contentUrl');
    expect(bad.capped?.lists).toEqual(['/offers/image']);
  });

  it('lists at most DETAIL_LIMITS.errors errors, and only the first one of a value too large to view', () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`k${i}`, 1]));
    const r = checkSchema('legacy-filter', { name: 'f', values: ['a'], ...many });
    expect(r.errors.length).toBe(DETAIL_LIMITS.errors);
    expect(r.capped?.moreErrors).toBe(true);
    const huge = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, 1]));
    const h = checkSchema('legacy-filter', { name: 'f', values: ['a'], ...huge });
    expect(h.errors.length).toBe(1);
    expect(h.capped?.tooLarge).toBe(true);
  });

  it('views a key "__proto__" as an ordinary key, as JSON.parse reads it', () => {
    const data = JSON.parse('{"__proto__": {"x": 1}, "a": [1,2,3]}');
    const view = boundedView(data, { listItems: 2, values: 100 }).value as Record<string, unknown>;
    expect(Object.keys(view)).toEqual(['__proto__', 'a']);
    expect(view.a).toEqual([1, 2]);
  });
});
