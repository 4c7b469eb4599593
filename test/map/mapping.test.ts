import { describe, expect, it } from 'vitest';
import { mapRow } from '../../src/map/map-row.js';
import { parseMapping } from '../../src/map/mapping-file.js';
import { buildPlan } from '../../src/map/plan.js';
import { UsageError } from '../../src/shared/errors.js';

const std = { format: 'standard', kind: 'products' } as const;
const ctx = { format: 'standard', kind: 'products', language: 'ko', zone: 'Asia/Seoul' } as const;

function usageMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as UsageError).message;
  }
  throw new Error('expected a UsageError');
}

describe('mapping files', () => {
  it('names the file when the JSON is broken', () => {
    expect(usageMessage(() => parseMapping('{"fields": ', 'm.json', std))).toMatch(
      /^mapping file m\.json is not valid JSON/,
    );
  });

  it('names the JSON pointer of a bad entry', () => {
    expect(usageMessage(() => parseMapping('{"fields": {"price": {"colum": "x"}}}', 'm.json', std))).toBe(
      'mapping file m.json: /fields/price/colum is not a known key',
    );
    expect(
      usageMessage(() =>
        parseMapping('{"fields": {"price": {"column": "p", "decimal": ";"}}}', 'm.json', std),
      ),
    ).toMatch(/\/fields\/price\/decimal must be one of/);
    expect(usageMessage(() => parseMapping('{"fields": {"prize": "p"}}', 'm.json', std))).toMatch(
      /\/fields\/prize is not a standard field/,
    );
    expect(
      usageMessage(() =>
        parseMapping('{"fields": {"name": {"column": "n", "extract": "("}}}', 'm.json', std),
      ),
    ).toMatch(/\/fields\/name\/extract is not a valid regular expression/);
    expect(usageMessage(() => parseMapping('{"fields": {"sku": {"split": ","}}}', 'm.json', std))).toMatch(
      /\/fields\/sku needs "column"/,
    );
    expect(
      usageMessage(() => parseMapping('{"format": "legacy", "fields": {"code": "c"}}', 'm.json', std)),
    ).toMatch(/\/format is "legacy" but this run is --format standard/);
    expect(usageMessage(() => parseMapping('{"fields": {}, "country": "Atlantis"}', 'm.json', std))).toMatch(
      /\/country/,
    );
  });

  it('refuses a placeholder genser init left (a value starting FILL IN:), wherever it is; notes may name it', () => {
    const fill = "FILL IN: your brand's name";
    expect(
      usageMessage(() =>
        parseMapping(JSON.stringify({ defaults: { brand_name: fill }, fields: {} }), 'm.json', std),
      ),
    ).toBe(
      `mapping file m.json: /defaults/brand_name is still the placeholder genser init wrote (${JSON.stringify(fill)}); nothing is read or sent until it is filled in`,
    );
    const prefix = { image_urls: { column: 'img', prefix: 'FILL IN: your media URL' } };
    expect(usageMessage(() => parseMapping(JSON.stringify({ fields: prefix }), 'm.json', std))).toMatch(
      /^mapping file m\.json: \/fields\/image_urls\/prefix is still the placeholder/,
    );
    // All of them named at once, so one edit fixes the file.
    const both = { defaults: { brand_id: fill, currency: 'USD', brand_name: fill }, fields: prefix };
    expect(usageMessage(() => parseMapping(JSON.stringify(both), 'm.json', std))).toMatch(
      /\), and 2 more: \/defaults\/brand_name, \/fields\/image_urls\/prefix; nothing is read or sent until they are filled in$/,
    );
    // Said in notes, or inside a value, it is no placeholder.
    const filled = {
      notes: [`defaults.brand_name was "${fill}"`],
      defaults: { brand_name: 'Brand FILL IN: x' },
    };
    expect(parseMapping(JSON.stringify({ ...filled, fields: {} }), 'm.json', std).defaults[0].value).toBe(
      'Brand FILL IN: x',
    );
  });

  it('maps arbitrary headers: constants, value maps, splitting, prefixes, per-field number formats', () => {
    const mapping = parseMapping(
      JSON.stringify({
        language: 'en',
        number: { thousands: ',' },
        fields: {
          sku: '상품코드',
          name: { columns: { ko: '상품명', en: 'Name' } },
          price: { column: '판매가', currencySymbols: true },
          currency: { const: 'KRW' },
          availability: { column: '재고', map: { Y: 'InStock', N: 'OutOfStock' } },
          image_urls: { column: '이미지', split: ';', prefix: 'https://img.example.com/' },
          category_name: { column: '분류', split: '>', language: 'ko' },
          availability_starts: { column: '시작', timeZone: 'JP' },
        },
      }),
      'm.json',
      std,
    );
    const plan = buildPlan(
      ['상품코드', '상품명', 'Name', '판매가', '재고', '이미지', '분류', '시작', 'memo'],
      {
        ...ctx,
        mapping,
      },
    );
    expect(plan.ignored).toEqual(['memo']);
    expect(plan.missing).toEqual([]);
    const { values, problems } = mapRow(plan, {
      상품코드: 'A-1',
      상품명: '가방',
      Name: 'Bag',
      판매가: '12,000원',
      재고: 'Y',
      이미지: 'a.jpg; /b.jpg ;https://cdn.example.com/c.jpg',
      분류: '가방 > 토트',
      시작: '2026-03-01 09:00',
      memo: 'x',
    });
    expect(problems).toEqual([]);
    expect(values).toEqual({
      sku: 'A-1',
      name: [
        { language: 'ko', value: '가방' },
        { language: 'en', value: 'Bag' },
      ],
      price: 12000,
      currency: 'KRW',
      availability: 'InStock',
      image_urls: [
        'https://img.example.com/a.jpg',
        'https://img.example.com/b.jpg',
        'https://cdn.example.com/c.jpg',
      ],
      category_name: [{ language: 'ko', items: ['가방', '토트'] }],
      availability_starts: '2026-03-01T00:00:00Z',
    });
  });

  it('reports mapped columns the file lacks', () => {
    const mapping = parseMapping('{"fields": {"sku": "code", "gtin": "ean"}}', 'm.json', std);
    const plan = buildPlan(['code', 'price'], { ...ctx, mapping });
    expect(plan.missing).toEqual([{ target: 'gtin', column: 'ean' }]);
    // Canonical columns still map unless the mapping turns them off.
    expect(plan.rules.map((r) => r.field.target).sort()).toEqual(['gtin', 'price', 'sku']);
    const off = parseMapping('{"canonicalColumns": false, "fields": {"sku": "code"}}', 'm.json', std);
    expect(buildPlan(['code', 'price'], { ...ctx, mapping: off }).ignored).toEqual(['price']);
  });
});

describe('canonical columns', () => {
  it('need no mapping file: language suffixes, case-insensitive names, plain columns take --language', () => {
    const plan = buildPlan(
      ['SKU', 'name@ko', 'name@EN', 'description', 'Price', 'category_name@ja', 'extra'],
      {
        ...ctx,
        language: 'ja',
      },
    );
    expect(plan.ignored).toEqual(['extra']);
    const { values } = mapRow(plan, {
      SKU: 'S1',
      'name@ko': '가방',
      'name@EN': 'Bag',
      description: '説明',
      Price: '1500',
      'category_name@ja': 'バッグ|トート',
      extra: '',
    });
    expect(values).toEqual({
      sku: 'S1',
      name: [
        { language: 'ko', value: '가방' },
        { language: 'en', value: 'Bag' },
      ],
      description: [{ language: 'ja', value: '説明' }],
      price: 1500,
      category_name: [{ language: 'ja', items: ['バッグ', 'トート'] }],
    });
  });

  it('legacy: dotted paths and customs.<name> columns', () => {
    const plan = buildPlan(
      ['code', 'priceInfo.price', 'isInStock', 'customs.season', 'categories.largeName'],
      {
        ...ctx,
        format: 'legacy',
      },
    );
    const { values, problems } = mapRow(plan, {
      code: 'L1',
      'priceInfo.price': '1000',
      isInStock: 'no',
      'customs.season': 'SS|FW',
      'categories.largeName': '가방',
    });
    expect(problems).toEqual([]);
    expect(values).toEqual({
      code: 'L1',
      'priceInfo.price': 1000,
      isInStock: false,
      'customs.season': ['SS', 'FW'],
      'categories.largeName': ['가방'],
    });
  });

  it('typed JSON values are taken as they are; a bad value becomes a problem naming column and field', () => {
    const plan = buildPlan(['sku', 'price', 'image_urls', 'availability_ends'], ctx);
    const ok = mapRow(plan, { sku: 'J1', price: 990, image_urls: ['https://x.example/a.jpg'] });
    expect(ok.values).toEqual({ sku: 'J1', price: 990, image_urls: ['https://x.example/a.jpg'] });
    const bad = mapRow(plan, { sku: 'J2', price: 'free', availability_ends: 'soon' });
    expect(bad.failed).toEqual(new Set(['offers.price', 'offers.availabilityEnds']));
    expect(bad.problems.map((p) => [p.code, p.column, p.field, p.value])).toEqual([
      ['type', 'price', 'offers.price', 'free'],
      ['date', 'availability_ends', 'offers.availabilityEnds', 'soon'],
    ]);
  });
});
