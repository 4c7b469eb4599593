import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { knownColumns, lengthPairs } from '../../src/upload/state/known-columns.js';

/** The source-key table's lengths as the state aggregates them (`skuBytes:warningBytes,...`). */
describe('lengthPairs', () => {
  it('reads every pair as a split and Number would', () => {
    const pair = fc.tuple(fc.nat({ max: 1_000_000_000 }), fc.nat({ max: 1_000_000_000 }));
    fc.assert(
      fc.property(fc.array(pair, { minLength: 1, maxLength: 50 }), (pairs) => {
        const text = pairs.map(([a, b]) => `${a}:${b}`).join(',');
        expect(lengthPairs(text)).toEqual({
          skuBytes: pairs.map(([a]) => a),
          warningBytes: pairs.map(([, b]) => b),
        });
      }),
    );
  });

  it('refuses text that is not such pairs: no table is built from it', () => {
    for (const bad of [
      '',
      '1',
      '1:',
      ':1',
      '1:2,',
      '1:2,3',
      '1:2:3',
      '1;2',
      '-1:2',
      '1:2,,3:4',
      '12345678901:1',
    ])
      expect(lengthPairs(bad), bad).toBeUndefined();
    const refused = knownColumns({ keys: 'k'.repeat(22), skus: 'SKU', lengths: '3:x' });
    expect(refused.skuBytes).toEqual([]);
    expect(knownColumns({ keys: 'k'.repeat(22), skus: 'SKU', lengths: '3:0' }).skuBytes).toEqual([3]);
  });
});
