import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringMap, StringSet } from '../../src/shared/string-set.js';

/** StringSet answers as a Set would, across the parts it splits into (V8's Set stops at 2^24). */
describe('StringSet', () => {
  it('has, add and size agree with a Set whatever the part size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 60 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 20 }),
        (part, added, asked) => {
          const set = new StringSet(part);
          const oracle = new Set<string>();
          for (const v of added) {
            expect(set.add(v)).toBe(set);
            oracle.add(v);
            expect(set.size).toBe(oracle.size);
          }
          for (const v of [...added, ...asked]) expect(set.has(v)).toBe(oracle.has(v));
        },
      ),
    );
  });

  it('keeps each part under its limit: a value added twice is counted once, in any part', () => {
    const set = new StringSet(2);
    for (const v of ['a', 'b', 'c', 'a', 'b', 'd', 'c', 'e']) set.add(v);
    expect(set.size).toBe(5);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((v) => set.has(v))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('splits below the 2^24 entries a V8 Set can hold', () => {
    expect(StringSet.PART).toBeLessThan(2 ** 24);
  });
});

/** StringMap answers as a Map would, across its parts (V8's Map also stops at 2^24 entries). */
describe('StringMap', () => {
  it('get, set, size and its entries agree with a Map whatever the part size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.tuple(fc.string({ maxLength: 3 }), fc.string({ maxLength: 2 })), { maxLength: 60 }),
        fc.array(fc.string({ maxLength: 3 }), { maxLength: 20 }),
        (part, sets, asked) => {
          const map = new StringMap<string>(part);
          const oracle = new Map<string, string>();
          for (const [k, v] of sets) {
            expect(map.set(k, v)).toBe(map);
            oracle.set(k, v);
            expect(map.size).toBe(oracle.size);
          }
          for (const k of [...sets.map(([k]) => k), ...asked]) expect(map.get(k)).toBe(oracle.get(k));
          expect(new Map(map)).toEqual(oracle);
        },
      ),
    );
  });

  it('replaces a value where its key is, not in a new part', () => {
    const map = new StringMap<number>(2);
    for (const [k, v] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['a', 4],
      ['d', 5],
    ] as const)
      map.set(k, v);
    expect(map.size).toBe(4);
    expect([...map]).toEqual([
      ['a', 4],
      ['b', 2],
      ['c', 3],
      ['d', 5],
    ]);
  });
});
