import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldSet } from '../../src/map/fields.js';
import { mapRow } from '../../src/map/map-row.js';
import { parseMapping } from '../../src/map/mapping-file.js';
import { buildPlan, type Plan } from '../../src/map/plan.js';
import { loadPreset } from '../../src/map/presets.js';
import { transformReads } from '../../src/map/transforms/index.js';
import { buildLegacy } from '../../src/payload/legacy.js';
import { buildStandardProduct } from '../../src/payload/standard.js';
import { readFeed } from '../../src/read/index.js';
import { getAllErrorsValidator } from '../../src/schema/schemas.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { Language, LegacyKind, PayloadFormat } from '../../src/shared/types.js';
import { planAccepts, provenPaths, reducedSchema } from '../../src/validate/plan-schema.js';

/**
 * The plan's copy of the schema decides whether a mapped row is valid (src/validate/plan-schema.ts).
 * The oracle is the full bundled schema: on every payload the builder makes, the copy must say
 * what the full schema says (it may never call valid what the full schema refuses; refusing more
 * would only cost time, and is checked too).
 */
const NAME = 'standard-product';

/** Rows the full schema accepted, per test: a property over invalid rows alone would prove little. */
let accepted = 0;

function agrees(plan: Plan, payload: Record<string, unknown>, name = NAME): void {
  const oracle = getAllErrorsValidator(name)(payload);
  if (oracle) accepted++;
  const copy = planAccepts(plan, name);
  const verdict = copy ? copy(payload) : oracle;
  if (verdict !== oracle) {
    throw new Error(`copy says ${verdict}, full schema ${oracle}: ${JSON.stringify(payload)}`);
  }
}

const ctx = (mapping?: ReturnType<typeof parseMapping>, language: Language = 'ko') => ({
  format: 'standard' as const,
  kind: 'products' as const,
  language,
  zone: 'Asia/Seoul',
  mapping,
});

// Values that sit on the schema's edges: blanks of every kind, bad URLs, dates, codes, numbers.
const TEXTS = [
  '',
  ' ',
  '\u00a0',
  '\ufeff',
  '\t\n',
  'x',
  ' 가방 ',
  '<b> </b>',
  '&nbsp;',
  'a|b||c',
  ' | ',
  'https://shop.example.com/p/1',
  'http://a',
  'http:// a',
  'ftp://x.example',
  '/p/1',
  'KRW',
  'krw',
  'XXX',
  ' usd ',
  '0',
  '-1',
  '12,900원',
  '1.5',
  '1e3',
  '8800000000015',
  '8800000000016',
  '0123',
  '12345678',
  '8.8E+12',
  'InStock',
  'soldout',
  'maybe',
  '2026-03-01',
  '2026-03-01 09:00',
  '2026-03-01T00:00:00Z',
  '0000-01-01',
  '9999-12-31T23:59',
  '2026-13-45',
  '1700000000000',
  '45000',
];
const value = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TEXTS) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, -3, 1.5, 1e12, 1e15, true, false, null) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...TEXTS), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant({ a: ' ' }) },
);

const STANDARD_TARGETS = fieldSet('standard').fields.map((f) => f.target);
const ML = new Set(
  fieldSet('standard')
    .fields.filter((f) => f.kind.startsWith('ml'))
    .map((f) => f.target),
);

/** A value of each target the full schema accepts: rows start valid, and a few cells change. */
const VALID: Record<string, string> = {
  sku: 'SKU-1',
  offer_sku: 'SKU-1-A',
  name: '가방',
  brand_id: 'BR-1',
  brand_name: '하늘',
  category_name: '가방|신발',
  category_code: '300|200',
  description: '편안한 가방',
  price: '34500',
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2026-03-01',
  availability_ends: '2027-03-01',
  gtin: '8800000000015',
  mpn: 'MPN-1',
  image_urls: 'https://img.example.com/1.jpg|https://img.example.com/2.jpg',
  url: 'https://shop.example.com/p/1',
  unit_price: '10',
  inventory_level: '3',
  shipping_weight: '1.5',
  category_position: '1|2',
  image_width: '100',
};
const REQUIRED = Object.keys(VALID).slice(0, 16);
const OPTIONAL = STANDARD_TARGETS.filter((t) => !REQUIRED.includes(t));

/** Mostly the target's valid value; sometimes an edge value. */
const cell = (target: string) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.constant<unknown>(VALID[target] ?? 'x') },
    { weight: 1, arbitrary: value },
  );

/** The required targets (one left out now and then) and some optional ones. */
const targetsArb = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.constant(REQUIRED) },
      { weight: 1, arbitrary: fc.subarray(REQUIRED, { minLength: REQUIRED.length - 1 }) },
    ),
    fc.subarray(OPTIONAL, { maxLength: 8 }),
  )
  .map(([required, optional]) => [...required, ...optional]);

/**
 * A target's column headers: its canonical name (either case); a multi-language field's one or
 * two columns, with or without a language (several languages make a list in the payload).
 */
const headers = (target: string): fc.Arbitrary<string[]> =>
  ML.has(target)
    ? fc.subarray([`${target}@ko`, `${target}@en`, `${target}@ja`, target], { minLength: 1, maxLength: 2 })
    : fc.constantFrom([target], [target.toUpperCase()]);

/** Targets genser refuses one value for every row of (a default or a constant). */
const PER_PRODUCT = new Set(['sku', 'offer_sku', 'gtin', 'mpn', 'url', 'image_urls']);

/** A mapping file's entry for a target: mostly its column alone, else with one option that may or may not let the plan prove it. */
const spec = (target: string) => {
  const column = `c_${target}`;
  const option: fc.Arbitrary<Record<string, unknown>>[] = [
    fc.constant({ trim: false }),
    fc.constant({ stripHtml: true }),
    fc
      .dictionary(
        fc.oneof(
          { weight: 3, arbitrary: fc.constant(VALID[target] ?? 'x') },
          { weight: 1, arbitrary: fc.constantFrom(...TEXTS) },
        ),
        fc.constantFrom<string | number | boolean>('', ' ', 5, true, ...TEXTS),
        {
          minKeys: 1,
        },
      )
      .map((map) => ({ map })),
    fc.constantFrom<unknown>(...TEXTS, 7, false).map((d) => ({ default: d })),
    fc.constantFrom('https://shop.example.com/', ' ').map((prefix) => ({ prefix })),
    fc.constantFrom('^(\\S*)', '(x)?').map((extract) => ({ extract })),
    fc.constantFrom('ko', 'en', 'ja').map((language) => ({ language })),
  ];
  const constant = fc.constantFrom<unknown>('', ' ', 7, false, ...TEXTS).map((c) => ({ const: c }));
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant({ column }) },
    { weight: 1, arbitrary: fc.oneof(...option).map((o) => ({ column, ...o })) },
    { weight: PER_PRODUCT.has(target) ? 0 : 1, arbitrary: constant },
  );
};

describe('plan-schema: the plan proves part of the schema', () => {
  it('leaves out what the canonical short-row header proves, and keeps what each row decides', () => {
    const plan = buildPlan(
      ['sku', 'name@ko', 'brand_id', 'brand_name@ko', 'description@ko', 'price', 'currency', 'url'],
      ctx(),
    );
    const proven = provenPaths(plan, NAME);
    expect(proven).toEqual(expect.arrayContaining(['sku', 'name', 'brand.@id', 'description.text']));
    for (const perRow of [
      'offers.price',
      'offers.priceCurrency',
      'url',
      'offers.gtin',
      'offers.availabilityStarts',
    ])
      expect(proven).not.toContain(perRow);
    const copy = JSON.stringify(reducedSchema(NAME, proven));
    expect(copy).toContain('"required"'); // presence is the row's
    expect(copy).toContain('currencyCode');
  });

  it('proves nothing for a legacy plan: its rows are decided by the full schema', () => {
    const plan = buildPlan(['code', 'name'], { ...ctx(), format: 'legacy', kind: 'products' });
    expect(provenPaths(plan, 'legacy-product')).toEqual([]);
    expect(planAccepts(plan, 'legacy-product')).toBeUndefined();
  });

  it('a mapped value, a trim switched off or a constant is not taken as proven', () => {
    const mapping = (fields: object) =>
      parseMapping(JSON.stringify({ fields }), 'm.json', { format: 'standard', kind: 'products' });
    const proven = (fields: object) => provenPaths(buildPlan(['a'], ctx(mapping(fields))), NAME);
    expect(proven({ name: { column: 'a' } })).toContain('name');
    expect(proven({ name: { column: 'a', trim: false } })).not.toContain('name');
    expect(proven({ name: { column: 'a', map: { x: '' } } })).not.toContain('name');
    expect(proven({ brand_id: { column: 'a', default: ' ' } })).not.toContain('brand.@id');
    expect(proven({ sku: { column: 'a', trim: false }, offer_sku: 'b' })).not.toContain('offers.sku');
  });

  it('property: over random headers and rows, the copy says what the full schema says', () => {
    accepted = 0;
    const feeds = targetsArb
      .chain((targets) => fc.tuple(...targets.map((t) => headers(t).map((hs) => hs.map((h) => [h, t])))))
      .map((columns) => columns.flat())
      .chain((columns) =>
        fc.record({
          columns: fc.constant(columns),
          language: fc.constantFrom<Language>('ko', 'en', 'ja'),
          rows: fc.array(fc.tuple(...columns.map(([, t]) => cell(t))), { minLength: 1, maxLength: 6 }),
        }),
      );
    fc.assert(
      fc.property(feeds, ({ columns, language, rows }) => {
        const plan = buildPlan(
          columns.map(([h]) => h),
          ctx(undefined, language),
        );
        for (const cells of rows) {
          const fields = Object.fromEntries(columns.map(([h], i) => [h, cells[i]]));
          agrees(plan, buildStandardProduct(mapRow(plan, fields).values));
        }
      }),
      { numRuns: 120 },
    );
    expect(accepted).toBeGreaterThan(30);
  }, 60_000);

  it('property: over random mapping files and rows, the copy says what the full schema says', () => {
    accepted = 0;
    const mapped = targetsArb.chain((targets) =>
      fc.record({
        fields: fc.tuple(...targets.map(spec)).map((specs) =>
          Object.fromEntries(
            targets.map((t, i) => {
              const s: Record<string, unknown> = { ...specs[i] };
              if (PER_PRODUCT.has(t)) delete s.default; // genser refuses one value for every row
              if (!ML.has(t)) delete s.language;
              return [t, s];
            }),
          ),
        ),
        rows: fc.array(fc.tuple(...targets.map(cell)), { minLength: 1, maxLength: 5 }),
      }),
    );
    fc.assert(
      fc.property(mapped, ({ fields, rows }) => {
        const targets = Object.keys(fields);
        const mapping = parseMapping(JSON.stringify({ fields }), 'm.json', {
          format: 'standard',
          kind: 'products',
        });
        const columns = targets.map((t) => `c_${t}`);
        const plan = buildPlan(columns, ctx(mapping));
        for (const cells of rows) {
          const record = Object.fromEntries(columns.map((c, i) => [c, cells[i]]));
          agrees(plan, buildStandardProduct(mapRow(plan, record).values));
        }
      }),
      { numRuns: 120 },
    );
    expect(accepted).toBeGreaterThan(8);
  }, 60_000);
});

/** Every feed under fixtures/ with the options it is read with (presets where the tests use them). */
function fixtureFeeds(): { file: string; preset?: string; format: PayloadFormat; kind: LegacyKind }[] {
  const feeds: { file: string; preset?: string; format: PayloadFormat; kind: LegacyKind }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(csv|tsv|json|ndjson|jsonl|gz)$/.test(entry.name) && !/mappings|orders/.test(path))
        feeds.push({
          file: path,
          format: /legacy/.test(entry.name) ? 'legacy' : 'standard',
          kind: 'products',
        });
    }
  };
  walk('fixtures');
  const presets: [string, string][] = [
    ['fixtures/presets/shopify-variants.csv', 'shopify'],
    ['fixtures/presets/woocommerce-edge.csv', 'woocommerce'],
    ['fixtures/presets/magento-edge.csv', 'magento'],
    ['fixtures/presets/google-merchant.tsv', 'google-merchant'],
    ['fixtures/real/shopify-product-data.csv', 'shopify'],
    ['fixtures/real/woocommerce-sample-products.csv', 'woocommerce'],
    ['fixtures/real/magento-simple-products-bags.csv', 'magento'],
    ['fixtures/real/magento-configurable-products.csv', 'magento'],
  ];
  for (const [file, preset] of presets) feeds.push({ file, preset, format: 'standard', kind: 'products' });
  return feeds;
}

async function* readable<T>(items: AsyncIterable<T>): AsyncGenerator<T> {
  try {
    yield* items;
  } catch (err) {
    if ((err as Error).name !== 'UsageError') throw err;
  }
}

describe('plan-schema over every fixture', () => {
  it('the copy says what the full schema says on every mapped row of fixtures/', async () => {
    let rows = 0;
    accepted = 0;
    for (const feed of fixtureFeeds()) {
      const mapping = feed.preset
        ? loadPreset(feed.preset, { format: feed.format, kind: feed.kind })
        : undefined;
      const name = feed.format === 'standard' ? NAME : 'legacy-product';
      const reads = transformReads(
        mapping?.transform,
        readFeed(feed.file, { encoding: 'auto' }, memoryLogger()),
        { runDate: new Date('2026-03-01T00:00:00Z') },
      );
      let plan: Plan | undefined;
      let keys = '';
      // Read errors' fixtures (bad encodings, broken JSON) end early: their rows so far are checked.
      for await (const item of readable(reads)) {
        if (item.type !== 'record' || item.record.shape !== 'rows') continue;
        const columns = Object.keys(item.record.fields);
        if (!plan || columns.join('\n') !== keys) {
          plan = buildPlan(columns, { ...ctx(mapping), format: feed.format, kind: feed.kind });
          keys = columns.join('\n');
        }
        const values = mapRow(plan, item.record.fields).values;
        agrees(
          plan,
          feed.format === 'standard' ? buildStandardProduct(values) : buildLegacy(values, feed.kind),
          name,
        );
        rows++;
      }
    }
    expect(rows).toBeGreaterThan(200);
    expect(accepted).toBeGreaterThan(50);
  });
});
