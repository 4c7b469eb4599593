import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mapRow } from '../../src/map/map-row.js';
import { buildPlan, type Plan } from '../../src/map/plan.js';
import { rowCode } from '../../src/map/row-code.js';
import { oracleMapRow } from './oracle/map-row-b927561.js';
import { planOf, recordArb } from './rule-arbitraries.js';

/**
 * Each plan's row code (src/map/row-code.ts) must map a record exactly as the generic mapper it
 * replaced did (the oracle, kept as it was at b927561): values, problems and failed paths, over
 * random rules of every kind with every option, and random records.
 */
/** The mapper's answer without the size it counts (the oracle did not count it). */
function mapped(plan: Plan, record: Record<string, unknown>) {
  const { units, longest, ...rest } = mapRow(plan, record);
  return rest;
}

/** The values mapped and the longest field, counted from the values themselves. */
function sizeOf(values: Record<string, unknown>): { units: number; longest: number } {
  let units = 0;
  let longest = 0;
  for (const value of Object.values(values)) {
    if (!Array.isArray(value)) {
      units++;
      continue;
    }
    units += value.length;
    longest = Math.max(longest, value.length);
    for (const entry of value)
      if (typeof entry === 'object' && entry !== null && 'items' in entry) {
        units += entry.items.length;
        longest = Math.max(longest, entry.items.length);
      }
  }
  return { units, longest };
}

describe('row code: a plan compiled into its mapper', () => {
  it('property: maps every record as the generic mapper did', () => {
    fc.assert(
      fc.property(planOf(), fc.array(recordArb, { minLength: 1, maxLength: 4 }), (plan, records) => {
        for (const record of records) {
          expect(mapped(plan, record)).toEqual(oracleMapRow(plan, record));
          const { values, units, longest } = mapRow(plan, record);
          expect({ units, longest }).toEqual(sizeOf(values));
        }
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
    const row = mapRow(plan, record);
    expect(mapped(plan, record)).toEqual(oracleMapRow(plan, record));
    expect(row.values).toMatchObject({ sku: 'A1', currency: 'KRW', availability: 'OutOfStock' });
    expect(row.problems.map((p) => [p.field, p.column])).toEqual([['offers.price', 'price']]);
    expect(rowCode(buildPlan(header, ctx))).toBe(rowCode(plan));
    // An unusable SKU leaves offers.sku unfilled too (no offer_sku column).
    const damaged = mapRow(plan, { ...record, sku: '8.8E+12' });
    expect(mapped(plan, { ...record, sku: '8.8E+12' })).toEqual(
      oracleMapRow(plan, { ...record, sku: '8.8E+12' }),
    );
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
    expect(mapped(plan, record)).toEqual(oracleMapRow(plan, record));
  });
});
