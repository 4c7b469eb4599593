import { describe, expect, it } from 'vitest';
import {
  changedFields,
  fieldCounts,
  keepLargest,
  newTally,
  type PriceMove,
  tallyUpdate,
} from '../../src/nightly/plan-tally.js';
import { priceOf } from '../../src/payload/price.js';

const product = (price: unknown, extra: Record<string, unknown> = {}) => ({
  '@type': 'Product',
  name: 'Mug',
  offers: { '@type': 'Offer', price, availability: 'InStock' },
  ...extra,
});

describe("the plan's counts", () => {
  it('reads the price of a standard offer (or the first of a list) and of a legacy object', () => {
    expect(priceOf(product(12000))).toBe(12000);
    expect(priceOf({ offers: [{ price: '9.5' }, { price: 1 }] })).toBe(9.5);
    expect(priceOf({ price: 300 })).toBe(300);
    expect(priceOf({ name: 'no price' })).toBeUndefined();
    expect(priceOf(product('n/a'))).toBeUndefined();
  });

  it('names the fields an update changes, inside objects by key', () => {
    const before = product(100, { image: ['a.jpg'] });
    const after = { ...product(120, { image: ['b.jpg'], description: 'new' }), name: 'Big mug' };
    after.offers.availability = 'OutOfStock';
    expect(changedFields(before, after)).toEqual([
      'description',
      'image',
      'name',
      'offers.availability',
      'offers.price',
    ]);
    expect(changedFields(before, product(100, { image: ['a.jpg'] }))).toEqual([]);
  });

  it('keeps the largest moves either way, largest first, at most the bound', () => {
    const moves: PriceMove[] = [];
    for (const percent of [5, -80, 30, 200, -10, 1])
      keepLargest(moves, { sku: `S${percent}`, from: 100, to: 100 + percent, percent }, 3);
    expect(moves.map((m) => m.percent)).toEqual([200, -80, 30]);
  });

  it('counts updates by field, shocks over the move, and the largest price moves', () => {
    const tally = newTally();
    tallyUpdate(tally, 'A', product(100), product(40), 50);
    tallyUpdate(tally, 'B', product(100), product(149), 50);
    tallyUpdate(tally, 'C', product(100), product(100, { name: 'Cup' }), 50);
    tallyUpdate(tally, 'D', product(0), product(10), 50);
    expect(tally.updated).toBe(4);
    expect(tally.shocked).toBe(1);
    expect(tally.moves.map((m) => [m.sku, Math.round(m.percent)])).toEqual([
      ['A', -60],
      ['B', 49],
    ]);
    expect(fieldCounts(tally)).toEqual([
      ['offers.price', 3],
      ['name', 1],
    ]);
  });

  it("an upload's pass counts updates, shocks and moves, and not the fields (only genser plan says them)", () => {
    const tally = newTally();
    tallyUpdate(tally, 'A', product(100), product(40), 50, false);
    tallyUpdate(tally, 'C', product(100), product(100, { name: 'Cup' }), 50, false);
    expect(tally.updated).toBe(2);
    expect(tally.shocked).toBe(1);
    expect(tally.moves.map((m) => m.sku)).toEqual(['A']);
    expect(fieldCounts(tally)).toEqual([]);
  });
});
