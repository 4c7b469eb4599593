import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldSet } from '../../src/map/fields.js';
import { mapRow } from '../../src/map/map-row.js';
import { buildStandardProduct, builtSize } from '../../src/payload/standard.js';
import { DETAIL_LIMITS, withinView } from '../../src/schema/bounded.js';
import { COLUMNS, cellArb, planOf } from '../map/rule-arbitraries.js';

/**
 * A product built from a mapped row is skipped by the schema check's walk when `builtSize` says
 * it is within the detail view (src/schema/bounded.ts): the bound must hold for every row, or the
 * all-errors validator could see a value of any size. Counted here independently of the walk.
 */
function sizeOf(value: unknown): { values: number; listItems: number } {
  let values = 0;
  let listItems = 0;
  const visit = (v: unknown) => {
    values++;
    if (v === null || typeof v !== 'object') return;
    const members = Array.isArray(v) ? v : Object.values(v);
    if (Array.isArray(v)) listItems = Math.max(listItems, v.length);
    for (const m of members) visit(m);
  };
  visit(value);
  return { values, listItems };
}

/** A list cell of n items: near the view's 100 entries, and past it. */
const longList = fc
  .constantFrom(3, 40, 49, 50, 51, 99, 101, 150)
  .map((n) => Array.from({ length: n }, (_, i) => `https://img.example.com/${i}.jpg`).join('|'));

const recordArb = fc
  .array(
    fc.tuple(
      fc.constantFrom(...COLUMNS),
      fc.oneof({ weight: 3, arbitrary: cellArb }, { weight: 2, arbitrary: longList }),
    ),
    { maxLength: 6 },
  )
  .map((entries) => {
    const record: Record<string, unknown> = {};
    for (const [column, value] of entries)
      Object.defineProperty(record, column, { value, enumerable: true, writable: true, configurable: true });
    return record;
  });

describe('builtSize: the size of a standard product bounded by its mapped row', () => {
  it('property: no product built from a mapped row is larger than its bound', () => {
    let small = 0;
    fc.assert(
      fc.property(
        planOf(fieldSet('standard').fields),
        fc.array(recordArb, { minLength: 1, maxLength: 4 }),
        (plan, records) => {
          for (const record of records) {
            const row = mapRow(plan, record);
            const product = buildStandardProduct(row.values);
            const bound = builtSize(row.units, row.longest);
            const actual = sizeOf(product);
            expect(actual.values).toBeLessThanOrEqual(bound.values);
            expect(actual.listItems).toBeLessThanOrEqual(bound.listItems);
            if (bound.values <= DETAIL_LIMITS.values && bound.listItems <= DETAIL_LIMITS.listItems) {
              small++;
              expect(withinView(product, DETAIL_LIMITS)).toBe(true);
            }
          }
        },
      ),
      { numRuns: 600 },
    );
    expect(small).toBeGreaterThan(300);
  });

  it('is tight where a unit makes the most values: a seo_description without a description', () => {
    // One unit: a TextObject of its own (3 values) and a PropertyValue in a list (5).
    const product = buildStandardProduct({ seo_description: [{ language: 'ko', value: 'x' }] });
    const seo = sizeOf(product).values - sizeOf(buildStandardProduct({})).values;
    expect(seo).toBe(9); // with the description list itself
    expect(builtSize(1, 1).values - builtSize(0, 0).values).toBeGreaterThanOrEqual(seo - 1);
  });
});
