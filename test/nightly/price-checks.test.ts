import { describe, expect, it } from 'vitest';
import { newTally, tallyPrices } from '../../src/nightly/plan-tally.js';
import { PriceChecks } from '../../src/nightly/price-checks.js';

describe('the price-shock guard asks the state for the accepted prices a page at a time', () => {
  it('counts every change as one at a time would, in pages of PRICE_PAGE, the last at flush', async () => {
    const accepted = new Map<string, number>();
    for (let i = 0; i < 1201; i++) if (i % 7 !== 0) accepted.set(`S${i}`, 100 + (i % 13));
    const asked: number[] = [];
    const state = {
      async acceptedPrices(skus: readonly string[]) {
        asked.push(skus.length);
        return new Map(skus.flatMap((s) => (accepted.has(s) ? [[s, accepted.get(s)!] as const] : [])));
      },
    };
    const tally = newTally();
    const checks = new PriceChecks(state, tally, 50, 500);
    // The oracle: each change compared alone, in the feed's order.
    const alone = newTally();
    for (let i = 0; i < 1201; i++) {
      const now = i % 5 === 0 ? undefined : (100 + (i % 13)) * (i % 3 === 0 ? 2 : 1.1);
      await checks.add(`S${i}`, now);
      tallyPrices(alone, `S${i}`, accepted.get(`S${i}`), now, 50);
    }
    expect(asked).toEqual([500, 500]);
    await checks.flush();
    await checks.flush();
    expect(asked).toEqual([500, 500, 201]);
    expect(tally).toEqual(alone);
    expect(tally.updated).toBe(1201);
    expect(tally.shocked).toBeGreaterThan(100);
  });
});
