import { describe, expect, it } from 'vitest';
import { buildLegacy } from '../../src/payload/legacy.js';
import { normalizeLegacyObject, normalizeStandardNode } from '../../src/payload/normalize.js';
import { buildStandardEnvelope, buildStandardProduct } from '../../src/payload/standard.js';
import { getValidator } from '../../src/schema/schemas.js';

const full = {
  sku: 'GS-1',
  name: [
    { language: 'ko', value: '가방' },
    { language: 'en', value: 'Bag' },
  ],
  brand_id: 'BR-1',
  brand_name: [{ language: 'ko', value: '브랜드' }],
  category_name: [
    { language: 'ko', items: ['가방', '토트'] },
    { language: 'en', items: ['Bags'] },
  ],
  category_code: ['BAG', 'BAG-TOTE'],
  description: [{ language: 'ko', value: '설명' }],
  price: 89000,
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2025-12-31T15:00:00Z',
  availability_ends: '2027-12-31T14:59:59Z',
  gtin: '8800000010373',
  mpn: 'MPN-1',
  image_urls: ['https://cdn.example.com/a.jpg'],
  url: [{ language: 'ko', value: 'https://shop.example.com/p/1' }],
  hs_code: '4202.22',
  sustainability_tags: ['recycled', 'vegan'],
};

describe('standard builder', () => {
  it('builds the JSON-LD node with the sample keys (codeValue, @id, availabilityEnds)', () => {
    const node = buildStandardProduct(full);
    expect(node).toEqual({
      '@type': 'Product',
      sku: 'GS-1',
      name: [
        { '@value': '가방', '@language': 'ko' },
        { '@value': 'Bag', '@language': 'en' },
      ],
      category: [
        {
          '@type': 'CategoryCode',
          name: [
            { '@value': '가방', '@language': 'ko' },
            { '@value': 'Bags', '@language': 'en' },
          ],
          codeValue: 'BAG',
        },
        { '@type': 'CategoryCode', name: { '@value': '토트', '@language': 'ko' }, codeValue: 'BAG-TOTE' },
      ],
      brand: { '@type': 'Brand', '@id': 'BR-1', name: { '@value': '브랜드', '@language': 'ko' } },
      description: [{ '@type': 'TextObject', text: '설명', inLanguage: 'ko' }],
      offers: {
        '@type': 'Offer',
        sku: 'GS-1',
        gtin: '8800000010373',
        mpn: 'MPN-1',
        price: 89000,
        priceCurrency: 'KRW',
        availability: 'InStock',
        availabilityStarts: '2025-12-31T15:00:00Z',
        availabilityEnds: '2027-12-31T14:59:59Z',
        image: [{ '@type': 'ImageObject', contentUrl: 'https://cdn.example.com/a.jpg' }],
      },
      url: { '@value': 'https://shop.example.com/p/1', '@language': 'ko' },
      additionalProperty: [
        { '@type': 'PropertyValue', propertyID: 'hsCode', value: '4202.22' },
        { '@type': 'PropertyValue', propertyID: 'sustainabilityTags', value: 'recycled, vegan' },
      ],
    });
    expect(getValidator('standard-product')(node)).toBe(true);
  });

  it('offer_sku overrides offers.sku; missing values stay absent so the schema names them', () => {
    const node = buildStandardProduct({ sku: 'A', offer_sku: 'A-OFFER' });
    expect(node).toEqual({ '@type': 'Product', sku: 'A', offers: { '@type': 'Offer', sku: 'A-OFFER' } });
  });

  it('wraps products in the request envelope that the envelope schema accepts', () => {
    const env = buildStandardEnvelope([buildStandardProduct(full)], {
      id: '6f1c2d8e-4b7a-4c1e-9a53-0d2f7e8b9c10',
      type: 'create_product',
      agentName: 'shop',
    });
    expect(env).toMatchObject({
      '@context': 'https://schema.org/',
      specversion: '1.0',
      type: 'create_product',
      agent: { '@type': 'Organization', name: 'shop' },
    });
    const validate = getValidator('standard-envelope');
    expect(validate(env)).toBe(true);
    expect(validate({ ...env, '@graph': [] })).toBe(false);
  });
});

describe('legacy builder', () => {
  it('nests dotted paths, zips categories, builds customs and derives createdAtEpochMilli', () => {
    const obj = buildLegacy(
      {
        code: 'L1',
        name: '가방',
        'brand.code': 'B',
        'brand.name': '브랜드',
        'categories.largeCode': ['BAG', 'SALE'],
        'categories.largeName': ['가방', '세일'],
        'categories.midCode': ['BAG-TOTE'],
        'image.mainUrl': 'https://cdn.example.com/a.jpg',
        'image.detailUrls': ['https://cdn.example.com/b.jpg'],
        'priceInfo.currency': 'KRW',
        'priceInfo.price': 10000,
        'priceInfo.salePrice': 9000,
        createdAt: '2025-11-01T01:00:00Z',
        isInStock: true,
        'attribute.colors': ['black'],
        'customs.season': ['FW'],
      },
      'products',
    );
    expect(obj).toEqual({
      code: 'L1',
      name: '가방',
      brand: { code: 'B', name: '브랜드' },
      categories: [
        { largeCode: 'BAG', largeName: '가방', midCode: 'BAG-TOTE' },
        { largeCode: 'SALE', largeName: '세일' },
      ],
      image: { mainUrl: 'https://cdn.example.com/a.jpg', detailUrls: ['https://cdn.example.com/b.jpg'] },
      priceInfo: { currency: 'KRW', price: 10000, salePrice: 9000 },
      createdAt: '2025-11-01T01:00:00Z',
      createdAtEpochMilli: Date.parse('2025-11-01T01:00:00Z'),
      isInStock: true,
      attribute: { colors: ['black'] },
      customs: [{ name: 'season', values: ['FW'] }],
    });
    expect(getValidator('legacy-product')(obj)).toBe(true);
  });

  it('builds filters', () => {
    const f = buildLegacy({ name: 'color', values: ['black', 'white'] }, 'filters');
    expect(f).toEqual({ name: 'color', values: ['black', 'white'] });
    expect(getValidator('legacy-filter')(f)).toBe(true);
  });
});

describe('ready-made payloads', () => {
  it('accepts the contract table spellings and the sample misspelling, reporting each', () => {
    const node: Record<string, unknown> = {
      category: [{ name: 'x', code: 'C' }],
      brand: { id: 'B', name: 'b' },
      offers: { availabliltyEnds: '2027-01-01T00:00:00Z' },
    };
    expect(normalizeStandardNode(node).map((r) => r.to)).toEqual([
      'category.codeValue',
      'brand.@id',
      'offers.availabilityEnds',
    ]);
    expect(node).toEqual({
      category: [{ name: 'x', codeValue: 'C' }],
      brand: { '@id': 'B', name: 'b' },
      offers: { availabilityEnds: '2027-01-01T00:00:00Z' },
    });
    const legacy: Record<string, unknown> = { createAt: '2025-01-01' };
    expect(normalizeLegacyObject(legacy)).toEqual([{ from: 'createAt', to: 'createdAt' }]);
    expect(legacy).toEqual({ createdAt: '2025-01-01' });
  });
});
