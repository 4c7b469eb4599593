import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../src/events/check.js';
import { exampleFor } from '../../src/events/examples.js';
import { processReads } from '../../src/feed/inline.js';
import { getValidator } from '../../src/schema/schemas.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { asReads, rowsRecords } from '../map/csv-records.js';
import {
  envelope,
  event,
  type Loose,
  postEvent,
  postStandard,
  product as sandboxProductOf,
  start,
} from '../sandbox/helpers.js';

const sandboxProduct = (sku: string) => sandboxProductOf(sku) as Loose;

/**
 * The schema decisions of docs/feeds.md ("Where the schemas and the contract differ") and
 * docs/events.md: one test per decision. The sandbox validates with the same schemas
 * (test/sandbox/products.test.ts covers one product request through HTTP).
 */

const opts: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

const base = {
  sku: 'D-1',
  name: '데님 자켓',
  brand_id: 'B-1',
  brand_name: '브랜드',
  category_name: '의류',
  category_code: 'C-1',
  description: '설명',
  price: '59000',
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2026-01-01T00:00:00Z',
  availability_ends: '2026-12-31T00:00:00Z',
  gtin: '4006381333931',
  mpn: 'MPN-1',
  image_urls: 'https://cdn.example.com/d1.jpg',
  url: 'https://shop.example.com/d1',
};

async function build(row: Record<string, unknown>): Promise<FeedItem> {
  const items: FeedItem[] = [];
  for await (const item of processReads(['mem.csv'], () => asReads(rowsRecords([{ ...base, ...row }])), opts))
    items.push(item);
  return items[items.length - 1];
}

const product = () => ({
  '@type': 'Product',
  sku: 'D-1',
  name: 'Denim',
  category: [{ '@type': 'CategoryCode', name: 'Apparel', codeValue: 'C-1' }],
  brand: { '@type': 'Brand', '@id': 'B-1', name: { '@value': 'Acme', '@language': 'en' } },
  description: [{ '@type': 'TextObject', text: 'Text', inLanguage: 'en' }],
  offers: {
    '@type': 'Offer',
    sku: 'D-1',
    gtin: '4006381333931',
    mpn: 'M',
    price: 10,
    priceCurrency: 'USD',
    availability: 'InStock',
    availabilityStarts: '2026-01-01T00:00:00Z',
    availabilityEnds: '2026-12-31T00:00:00Z',
    image: [{ '@type': 'ImageObject', contentUrl: 'https://cdn.example.com/1.jpg' }],
  } as Record<string, unknown>,
  additionalProperty: [] as unknown[],
});
const valid = (node: unknown) => getValidator('standard-product')(node);

describe('product schema decisions', () => {
  it('additionalProperty: propertyID and value optional; propertyID one of the four the contract lists', () => {
    const p = product();
    p.additionalProperty = [{ '@type': 'PropertyValue', propertyID: 'hsCode' }, { value: 'x' }];
    expect(valid(p)).toBe(true);
    p.additionalProperty = [{ propertyID: 'color', value: 'red' }];
    expect(valid(p)).toBe(false);
  });

  it('offers.price 0 is a price (a free item); a negative one is not', () => {
    const p = product();
    p.offers.price = 0;
    expect(valid(p)).toBe(true);
    p.offers.price = -1;
    expect(valid(p)).toBe(false);
  });

  it('dates in UTC end in Z or +00:00 for products as for event times; other offsets are refused', () => {
    const p = product();
    p.offers.availabilityStarts = '2026-01-01T00:00:00+00:00';
    expect(valid(p)).toBe(true);
    p.offers.availabilityStarts = '2026-01-01T09:00:00+09:00';
    expect(valid(p)).toBe(false);
    const e = exampleFor('view_product') as Record<string, unknown>;
    e.time = '2026-11-23T09:00:00+00:00';
    expect(checkEvent(e).ok).toBe(true);
    e.time = '2026-11-23T09:00:00-00:00';
    expect(checkEvent(e)).toMatchObject({
      ok: false,
      problems: [{ pointer: '/time', message: 'must be in UTC (end with Z or +00:00)' }],
    });
  });

  it('brand.name is an object with its language (or an array of them), not a plain string', () => {
    const p = product();
    (p.brand as Record<string, unknown>).name = 'Acme';
    expect(valid(p)).toBe(false);
    (p.brand as Record<string, unknown>).name = [
      { '@value': 'Acme', '@language': 'en' },
      { '@value': '아크메', '@language': 'ko' },
    ];
    expect(valid(p)).toBe(true);
  });

  it('priceCurrency: one ISO 4217 check for products and events', () => {
    const p = product();
    p.offers.priceCurrency = 'ABC';
    expect(valid(p)).toBe(false);
    const e = exampleFor('add_to_cart') as Record<string, any>;
    e.data.object.orderedItem.offers.priceCurrency = 'ABC';
    expect(checkEvent(e)).toMatchObject({
      ok: false,
      problems: [
        {
          pointer: '/data/object/orderedItem/offers/priceCurrency',
          message: 'must be an ISO 4217 currency code such as KRW, USD or JPY',
        },
      ],
    });
  });
});

describe('canonical columns for the sample-only fields whose shape the contract gives', () => {
  it('positive_notes, material, unit_price/unit_code, inventory_level, seo_description', async () => {
    const item = await build({
      positive_notes: '가볍다',
      'material@en': 'Cotton',
      'material@ko': '면',
      unit_price: '5900',
      unit_code: 'GRM',
      inventory_level: '12',
      seo_description: '데님 자켓 SEO',
    });
    expect(item.issues.filter((i) => i.severity === 'error')).toEqual([]);
    const node = item.payload!;
    expect(node.positiveNotes).toEqual({ '@value': '가볍다', '@language': 'ko' });
    expect(node.material).toEqual([
      { '@value': 'Cotton', '@language': 'en' },
      { '@value': '면', '@language': 'ko' },
    ]);
    expect((node.offers as Record<string, unknown>).priceSpecification).toEqual({
      '@type': 'UnitPriceSpecification',
      price: 5900,
      unitCode: 'GRM',
    });
    expect((node.offers as Record<string, unknown>).inventoryLevel).toEqual({
      '@type': 'QuantitativeValue',
      value: 12,
    });
    expect(node.description).toEqual([
      {
        '@type': 'TextObject',
        text: '설명',
        inLanguage: 'ko',
        additionalProperty: [
          { '@type': 'PropertyValue', propertyID: 'seo_description', value: '데님 자켓 SEO' },
        ],
      },
    ]);
  });

  it('an seo_description without a description in its language is an error, not dropped', async () => {
    const item = await build({ 'seo_description@en': 'Denim jacket' });
    expect(item.valid).toBe(false);
    expect(item.issues.some((i) => i.severity === 'error' && /description/.test(i.field ?? i.message))).toBe(
      true,
    );
  });
});

describe('the sandbox applies the same decisions (it validates with the same schemas)', () => {
  it('takes price 0 and +00:00 in products and events; refuses a plain brand name and a made-up currency', async () => {
    const sb = await start();
    try {
      const ok = sandboxProduct('Z-1');
      ok.offers.price = 0;
      ok.offers.availabilityStarts = '2026-01-01T00:00:00+00:00';
      expect((await postStandard(sb.url, envelope([ok]))).status).toBe(200);
      const plainBrand = sandboxProduct('Z-2');
      plainBrand.brand.name = 'Brand';
      const refused = await postStandard(sb.url, envelope([plainBrand]));
      expect(refused.status).toBe(400);
      expect(refused.json().errors[0]).toMatchObject({
        sku: 'Z-2',
        pointer: expect.stringContaining('/brand/name'),
      });

      const cart = event('add_to_cart');
      cart.time = '2026-11-23T09:00:00+00:00';
      cart.data.object.orderedItem.offers.price = 0;
      expect((await postEvent(sb.url, 'add_to_cart', cart)).status).toBe(200);
      cart.data.object.orderedItem.offers.priceCurrency = 'ABC';
      const bad = await postEvent(sb.url, 'add_to_cart', cart);
      expect(bad.status).toBe(400);
      expect(bad.json().errors[0].message).toBe('must be an ISO 4217 currency code such as KRW, USD or JPY');
    } finally {
      await sb.close();
    }
  });
});
