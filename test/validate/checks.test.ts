import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gtinCheckDigit, gtinValid } from '../../src/schema/checks.js';
import { SkuSet } from '../../src/validate/duplicates.js';

describe('GTIN check digit', () => {
  it('accepts real GTINs of every length and rejects a changed digit', () => {
    for (const g of ['96385074', '036000291452', '4006381333931', '10614141000415', '8801234567893']) {
      expect(gtinValid(g)).toBe(true);
    }
    expect(gtinValid('4006381333932')).toBe(false);
    expect(gtinValid('400638133393')).toBe(false); // 12 digits, wrong digit
    expect(gtinValid('12345')).toBe(false);
    expect(gtinValid('40063813339a1')).toBe(false);
  });

  it('property: a body plus its computed check digit is valid; any other last digit is not', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(7, 11, 12, 13),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 13, maxLength: 13 }),
        fc.integer({ min: 1, max: 9 }),
        (len, digits, shift) => {
          const body = digits.slice(0, len).join('');
          const check = gtinCheckDigit(body);
          expect(gtinValid(body + check)).toBe(true);
          expect(gtinValid(body + ((check + shift) % 10))).toBe(false);
        },
      ),
    );
  });
});

describe('SkuSet', () => {
  it('says where a SKU was first seen, across files, and grows without losing entries', () => {
    const set = new SkuSet(4);
    let duplicates = 0;
    for (let i = 1; i <= 50_000; i++) if (set.add(`SKU-${i}`, i % 3, i)) duplicates++;
    expect(duplicates).toBe(0);
    expect(set.count).toBe(50_000);
    expect(set.add('SKU-1', 2, 99)).toEqual({ fileIndex: 1, row: 1 });
    expect(set.add('SKU-49999', 0, 60_000)).toEqual({ fileIndex: 49_999 % 3, row: 49_999 });
    expect(set.add('SKU-50001', 0, 1)).toBeUndefined();
    for (let i = 1; i <= 50_000; i += 997)
      expect(set.add(`SKU-${i}`, 0, 0)).toEqual({ fileIndex: i % 3, row: i });
    expect(set.count).toBe(50_001);
  });

  it('has: every SKU added, none other, without adding it', () => {
    const set = new SkuSet(4);
    for (let i = 1; i <= 20_000; i += 2) set.add(`SKU-${i}`, 0, i);
    for (let i = 1; i <= 20_000; i++) expect(set.has(`SKU-${i}`)).toBe(i % 2 === 1);
    expect(set.count).toBe(10_000);
  });
});
