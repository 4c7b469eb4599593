import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { recordMaker } from '../../src/read/record-maker.js';

describe('recordMaker', () => {
  it('maps any header names to the values, as own properties (property)', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 8 }), (names) => {
        const values = names.map((_, i) => `v${i}`);
        const record = recordMaker(names)(values);
        expect(Object.keys(record).sort()).toEqual([...names].sort());
        names.forEach((name, i) => {
          expect(Object.getOwnPropertyDescriptor(record, name)?.value).toBe(`v${i}`);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('keeps awkward names as data: quotes, backslashes, line breaks, code, __proto__', () => {
    const names = ['a"b', 'c\\', 'd\ne', '}); throw 1; ({', '\u2028', '__proto__', '상품명'];
    const record = recordMaker(names)(names.map((n) => `=${n}`));
    expect(Object.getPrototypeOf(record)).toBe(Object.prototype);
    for (const name of names) expect(Object.getOwnPropertyDescriptor(record, name)?.value).toBe(`=${name}`);
  });
});
