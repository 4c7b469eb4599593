import fc from 'fast-check';
import { type FieldDef, fieldSet } from '../../src/map/fields.js';
import type { FieldRule } from '../../src/map/mapping-file.js';
import type { Plan } from '../../src/map/plan.js';
import { booleanWords, compileNumberFormat, DEFAULT_NUMBER_FORMAT } from '../../src/map/values.js';
import type { Language } from '../../src/shared/types.js';

/**
 * Random plans and records for property tests of the mapper and of what is built from it
 * (test/map/row-code.test.ts, test/payload/built-size.test.ts): rules of every kind with every
 * option of a mapping file, and records whose cells sit on the parsers' edges.
 */
export const COLUMNS = ['a', 'b', 'c', 'name@ko', '__proto__', 'x y'];
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
export const cellArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...TEXTS) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<unknown>(0, 1, 2, -3, 1.5, 5e10, 1e12, 2 ** 60, true, false, null, undefined),
  },
  { weight: 1, arbitrary: fc.array(fc.constantFrom<unknown>(...TEXTS, 3, null), { maxLength: 3 }) },
  { weight: 1, arbitrary: fc.constant({ a: ' b ' }) },
);

export const ALL_FIELDS: FieldDef[] = [
  ...fieldSet('standard').fields,
  ...fieldSet('legacy', 'products').fields,
  ...fieldSet('legacy', 'filters').fields,
];

/** A field of `fields`, every kind as likely as any other (a few are dates or booleans, many are text). */
function fieldOf(fields: FieldDef[]): fc.Arbitrary<FieldDef> {
  const byKind = new Map<string, FieldDef[]>();
  for (const f of fields) byKind.set(f.kind, [...(byKind.get(f.kind) ?? []), f]);
  return fc.constantFrom(...byKind.keys()).chain((kind) => fc.constantFrom(...(byKind.get(kind) ?? [])));
}
/** A rule for one of `fields` with any of a mapping file's options, parsed or not (the mapper must agree on all). */
export const ruleOf = (fields: FieldDef[]): fc.Arbitrary<FieldRule> =>
  fc
    .record({
      field: fieldOf(fields),
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

/** A plan of up to 8 rules for `fields` (of every format, unless given). */
export const planOf = (fields: FieldDef[] = ALL_FIELDS): fc.Arbitrary<Plan> =>
  fc
    .record({
      // One rule a target, as buildPlan makes them.
      rules: fc.uniqueArray(ruleOf(fields), { minLength: 1, maxLength: 8, selector: (r) => r.field.target }),
      language: fc.constantFrom(...LANGUAGES),
      zone: fc.constantFrom('Asia/Seoul', 'Europe/Berlin'),
      listSeparator: fc.constantFrom('|', ','),
    })
    .map((p) => p as unknown as Plan);

/** A record of some of COLUMNS (own properties, `__proto__` among them). */
export const recordArb = fc
  .array(fc.tuple(fc.constantFrom(...COLUMNS), cellArb), { maxLength: 6 })
  .map((entries) => {
    const record: Record<string, unknown> = {};
    for (const [column, value] of entries)
      Object.defineProperty(record, column, { value, enumerable: true, writable: true, configurable: true });
    return record;
  });
