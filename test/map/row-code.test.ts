import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FieldDef, fieldSet } from '../../src/map/fields.js';
import { mapRow } from '../../src/map/map-row.js';
import type { FieldRule } from '../../src/map/mapping-file.js';
import { buildPlan, type Plan } from '../../src/map/plan.js';
import { rowCode } from '../../src/map/row-code.js';
import { booleanWords, compileNumberFormat, DEFAULT_NUMBER_FORMAT } from '../../src/map/values.js';
import type { Language } from '../../src/shared/types.js';
import { oracleMapRow } from './oracle/map-row-b927561.js';

/**
 * Each plan's row code (src/map/row-code.ts) must map a record exactly as the generic mapper it
 * replaced did (the oracle, kept as it was at b927561): values, problems and failed paths, over
 * random rules of every kind with every option, and random records.
 */
const COLUMNS = ['a', 'b', 'c', 'name@ko', '__proto__', 'x y'];
const LANGUAGES: Language[] = ['ko', 'en', 'ja'];

const TEXTS = [
  '',
  ' ',
  '\u00a0',
  'x',
  ' Abc ',
  '<b>bold</b> &amp; &#x41;',
  'a|b||c',
  ' | ',
  'a;b',
  'https://shop.example.com/p/1',
  '/p/1',
  'p/1',
  'krw',
  '0',
  '1',
  '-1',
  '12,900',
  '12.900,5',
  '₩12,900',
  '1.5',
  'true',
  'no',
  'maybe',
  'InStock',
  'sold out',
  'http://schema.org/PreOrder',
  '8800000000015',
  '880000000001',
  '8.8E+12',
  '2026-03-01',
  '2026-02-30',
  '2026-03-01 09:00',
  '2026-03-01T00:00:00+09:00',
  '1700000000000',
  '45000',
];
const cellArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TEXTS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(0, 1, 2, -3, 1.5, 5e10, 1e12, 2 ** 60, true, false, null, undefined),
  },
  { weight: 1, arbitrary: fc.array(fc.constantFrom<unknown>(...TEXTS, 3, null), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant({ a: ' b ' }) },
);

const ALL_FIELDS: FieldDef[] = [
  ...fieldSet('standard').fields,
  ...fieldSet('legacy', 'products').fields,
  ...fieldSet('legacy', 'filters').fields,
];
/** Every kind as likely as any other (a few fields are dates or booleans, many are text). */
const byKind = new Map<string, FieldDef[]>();
for (const f of ALL_FIELDS) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
const fieldArb = fc
  .constantFrom(...byKind.keys())
  .chain((kind) => fc.constantFrom(...(byKind.get(kind) ?? [])));

/** A rule with any of a mapping file's options, parsed or not (the mapper must agree on all). */
const ruleArb: fc.Arbitrary<FieldRule> = fc
  .record({
    field: fieldArb,
    sources: fc.array(
      fc.record({
        column: fc.constantFrom(...COLUMNS),
        language: fc.option(fc.constantFrom(...LANGUAGES), { nil: undefined }),
      }),
      { maxLength: 3 },
    ),
    constValue: fc.option(cellArb, { freq: 4, nil: undefined }),
    defaultValue: fc.option(cellArb, { freq: 3, nil: undefined }),
    split: fc.option(fc.constantFrom('|', ';', ' '), { freq: 3, nil: undefined }),
    extract: fc.option(fc.constantFrom(/^(\S*)/, /(\d+)/, /x/), { freq: 4, nil: undefined }),
    prefix: fc.option(fc.constantFrom('https://shop.example.com', 'https://shop.example.com/', 'p-'), {
      freq: 4,
      nil: undefined,
    }),
    suffix: fc.option(fc.constantFrom('.jpg', ''), { freq: 4, nil: undefined }),
    stripHtml: fc.boolean(),
    trim: fc.boolean(),
    map: fc.option(
      fc
        .dictionary(
          fc.constantFrom(...TEXTS, '3', 'true'),
          fc.constantFrom<string | number | boolean>('', 'Y', 7, true),
        )
        .map((d) => new Map(Object.entries(d))),
      { freq: 3, nil: undefined },
    ),
    number: fc.constantFrom(
      DEFAULT_NUMBER_FORMAT,
      compileNumberFormat({ decimal: ',', thousands: '.' }),
      compileNumberFormat({ thousands: ',', currencySymbols: true }),
    ),
    booleans: fc.constantFrom(booleanWords(), booleanWords(['si'], ['no'])),
    zone: fc.option(fc.constantFrom('America/New_York', 'Asia/Tokyo'), { nil: undefined }),
    language: fc.option(fc.constantFrom(...LANGUAGES), { nil: undefined }),
  })
  .map((r): FieldRule => ({ ...r, explicit: true }));

const planArb = fc
  .record({
    rules: fc.array(ruleArb, { minLength: 1, maxLength: 8 }),
    language: fc.constantFrom(...LANGUAGES),
    zone: fc.constantFrom('Asia/Seoul', 'Europe/Berlin'),
    listSeparator: fc.constantFrom('|', ','),
  })
  .map((p) => p as unknown as Plan);

const recordArb = fc
  .array(fc.tuple(fc.constantFrom(...COLUMNS), cellArb), { maxLength: 6 })
  .map((entries) => {
    const record: Record<string, unknown> = {};
    for (const [column, value] of entries)
      Object.defineProperty(record, column, { value, enumerable: true, writable: true, configurable: true });
    return record;
  });

describe('row code: a plan compiled into its mapper', () => {
  it('property: maps every record as the generic mapper did', () => {
    fc.assert(
      fc.property(planArb, fc.array(recordArb, { minLength: 1, maxLength: 4 }), (plan, records) => {
        for (const record of records) expect(mapRow(plan, record)).toEqual(oracleMapRow(plan, record));
      }),
      { numRuns: 400 },
    );
  });

  it('maps the canonical short-row header as before, and shares the code of equal headers', () => {
    const header = ['sku', 'name@ko', 'name@en', 'price', 'currency', 'availability', 'image_urls', 'url'];
    const ctx = {
      format: 'standard' as const,
      kind: 'products' as const,
      language: 'ko' as const,
      zone: 'Asia/Seoul',
    };
    const plan = buildPlan(header, ctx);
    const record = {
      sku: ' A1 ',
      'name@ko': '가방',
      'name@en': 'Bag',
      price: '12,900',
      currency: 'krw',
      availability: 'soldout',
      image_urls: 'https://img.example.com/1.jpg|https://img.example.com/2.jpg',
      url: '',
    };
    const mapped = mapRow(plan, record);
    expect(mapped).toEqual(oracleMapRow(plan, record));
    expect(mapped.values).toMatchObject({ sku: 'A1', currency: 'KRW', availability: 'OutOfStock' });
    expect(mapped.problems.map((p) => [p.field, p.column])).toEqual([['offers.price', 'price']]);
    expect(rowCode(buildPlan(header, ctx))).toBe(rowCode(plan));
    // An unusable SKU leaves offers.sku unfilled too (no offer_sku column).
    const damaged = mapRow(plan, { ...record, sku: '8.8E+12' });
    expect(damaged).toEqual(oracleMapRow(plan, { ...record, sku: '8.8E+12' }));
    expect([...(damaged.failed ?? [])]).toEqual(['sku', 'offers.price', 'offers.sku']);
  });

  it('writes header and target names as string literals: no name reaches the code as code', () => {
    const header = ['sku', 'x"]; throw new Error("injected"); //', 'customs.a\u2028b', 'price'];
    const plan = buildPlan(header, {
      format: 'legacy',
      kind: 'products',
      language: 'ko',
      zone: 'Asia/Seoul',
    });
    const record = Object.fromEntries(header.map((h) => [h, 'v']));
    expect(() => mapRow(plan, record)).not.toThrow();
    expect(mapRow(plan, record)).toEqual(oracleMapRow(plan, record));
  });
});
