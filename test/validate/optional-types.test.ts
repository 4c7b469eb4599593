import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { buildStandardProduct } from '../../src/payload/standard.js';
import { getValidator } from '../../src/schema/schemas.js';
import type { FeedItem, FeedOptions, ReadItem } from '../../src/shared/types.js';

/** Contract 2.7 does not require description[].@type nor offers.image[].@type (#31 item 6). */
const opts: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

const node = (over: Record<string, unknown> = {}, offers: Record<string, unknown> = {}) => ({
  '@type': 'Product',
  sku: 'A-1',
  name: { '@value': '면 티셔츠', '@language': 'ko' },
  category: [{ '@type': 'CategoryCode', name: { '@value': '의류', '@language': 'ko' }, codeValue: 'CLO' }],
  brand: { '@type': 'Brand', '@id': 'b', name: { '@value': '브랜드', '@language': 'ko' } },
  description: [{ text: '부드러운 면', inLanguage: 'ko' }],
  url: 'https://shop.example.kr/a-1',
  offers: {
    '@type': 'Offer',
    sku: 'A-1',
    gtin: '8801234567893',
    mpn: 'A-1',
    price: 12000,
    priceCurrency: 'KRW',
    availability: 'InStock',
    availabilityStarts: '2026-01-01T00:00:00Z',
    availabilityEnds: '2027-01-01T00:00:00Z',
    image: [{ contentUrl: 'https://cdn.example.kr/a.jpg' }],
    ...offers,
  },
  ...over,
});

async function issuesOf(record: Record<string, unknown>) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  const reads: ReadItem[] = [
    { type: 'record', record: { file: 'ready.json', row: 1, line: 2, shape: 'graph', fields: record } },
  ];
  async function* read() {
    yield* reads;
  }
  for await (const item of processReads(['ready.json'], read, opts)) {
    items.push(item);
    tally(stats, item);
  }
  return items.flatMap((i) => i.issues);
}

describe('@type of descriptions and images may be absent; an image may be a plain URL', () => {
  it('a ready node without description[].@type and offers.image[].@type is valid', async () => {
    expect(await issuesOf(node())).toEqual([]);
    expect(getValidator('standard-product')(node())).toBe(true);
    // The sandbox checks request bodies with the same schema: it takes them too.
    const body = { agent: { name: 'shop' }, '@graph': [node({}, { image: 'https://cdn.example.kr/a.jpg' })] };
    expect(getValidator('standard-envelope')(body)).toBe(true);
  });

  it('an image given as a plain URL string, alone or in the list, is valid; a bad URL is named', async () => {
    expect(await issuesOf(node({}, { image: 'https://cdn.example.kr/a.jpg' }))).toEqual([]);
    expect(
      await issuesOf(
        node({}, { image: ['https://cdn.example.kr/a.jpg', { contentUrl: 'https://cdn.example.kr/b.jpg' }] }),
      ),
    ).toEqual([]);
    const [bad, ...rest] = await issuesOf(node({}, { image: ['/a.jpg'] }));
    expect(rest).toEqual([]);
    expect(bad).toMatchObject({ code: 'url', field: 'offers.image[0]' });
  });

  it('a wrong @type, when given, is still refused', async () => {
    const issues = await issuesOf(node({ description: [{ '@type': 'Text', text: 'x', inLanguage: 'ko' }] }));
    expect(issues.map((i) => i.code)).toEqual(['const']);
  });

  it('genser builds them with their @type', () => {
    const built = buildStandardProduct({
      description: [{ language: 'ko', value: '부드러운 면' }],
      image_urls: ['https://cdn.example.kr/a.jpg'],
    });
    expect(built.description).toEqual([{ '@type': 'TextObject', text: '부드러운 면', inLanguage: 'ko' }]);
    expect((built.offers as Record<string, unknown>).image).toEqual([
      { '@type': 'ImageObject', contentUrl: 'https://cdn.example.kr/a.jpg' },
    ]);
  });
});
