import { describe, expect, it } from 'vitest';
import {
  type GuardCounts,
  type GuardRules,
  guardRefusal,
  guardTrips,
  heldLine,
  parsePriceShock,
} from '../../src/nightly/guard-rules.js';
import { ExitCode } from '../../src/shared/errors.js';

const rules: GuardRules = {
  maxChange: { kind: 'percent', max: 20 },
  minRows: 1,
  minShare: 50,
  priceShock: { share: 20, move: 50 },
  strict: false,
  onGuard: 'refuse',
};
const counts = (c: Partial<GuardCounts>): GuardCounts => ({
  rows: 100,
  changed: 0,
  gone: 0,
  known: 100,
  shocked: 0,
  ...c,
});

describe('the guards', () => {
  it('an empty feed trips --min-rows 1; --min-rows 0 lets it go', () => {
    const [trip] = guardTrips(counts({ rows: 0 }), rules, 'ignore');
    expect(trip.guard).toBe('min-rows');
    expect(trip.message).toBe('the feed has 0 rows, fewer than --min-rows 1');
    expect(trip.hint).toContain('--min-rows 0');
    expect(guardTrips(counts({ rows: 0 }), { ...rules, minRows: 0, minShare: 0 }, 'ignore')).toEqual([]);
  });

  it('a truncated feed: fewer rows than --min-share of the last complete run', () => {
    const [trip] = guardTrips(counts({ rows: 4_999, lastRows: 10_000 }), rules, 'ignore');
    expect(trip.guard).toBe('min-share');
    expect(trip.message).toBe(
      "the feed has 4,999 rows, 50% of the last complete run's 10,000: less than --min-share 50% (5,000)",
    );
    expect(guardTrips(counts({ rows: 5_000, lastRows: 10_000 }), rules, 'ignore')).toEqual([]);
    // No complete run yet, or the guard off: nothing to compare with.
    expect(guardTrips(counts({ rows: 10 }), rules, 'ignore')).toEqual([]);
    expect(guardTrips(counts({ rows: 10, lastRows: 10_000 }), { ...rules, minShare: 0 }, 'ignore')).toEqual(
      [],
    );
  });

  it('--max-change counts changed plus gone against the known products', () => {
    expect(guardTrips(counts({ changed: 10, gone: 10 }), rules, 'out-of-stock')).toEqual([]);
    const [trip] = guardTrips(counts({ changed: 10, gone: 11 }), rules, 'out-of-stock');
    expect(trip.message).toBe(
      '10 changed and 11 gone from the feed of 100 known products (21) is more than --max-change allows (20%, 20)',
    );
    const [count] = guardTrips(
      counts({ changed: 4 }),
      { ...rules, maxChange: { kind: 'count', max: 3 } },
      'ignore',
    );
    expect(count.message).toBe('4 changed of 100 known products (4) is more than --max-change allows (3, 3)');
  });

  it('a price shock: more than P% of the known products moving more than Q%', () => {
    expect(
      guardTrips(
        counts({ shocked: 20, changed: 20 }),
        { ...rules, maxChange: { kind: 'count', max: 100 } },
        'ignore',
      ),
    ).toEqual([]);
    const trips = guardTrips(counts({ shocked: 21, changed: 21 }), rules, 'ignore');
    expect(trips.map((t) => t.guard)).toEqual(['max-change', 'price-shock']);
    expect(trips[1].message).toBe(
      '21 of 100 known products (21%) change price by more than 50%: more than --price-shock 20%:50% allows',
    );
    expect(guardTrips(counts({ shocked: 90 }), { ...rules, priceShock: 'off' }, 'ignore')).toEqual([]);
  });

  it('nothing known: only the feed size guards', () => {
    expect(guardTrips(counts({ known: 0, changed: 0, shocked: 0 }), rules, 'ignore')).toEqual([]);
    expect(guardTrips(counts({ known: 0, rows: 0 }), rules, 'ignore').map((t) => t.guard)).toEqual([
      'min-rows',
    ]);
  });

  it('a refusal is exit 6, names the first guard and the others; holding back says how many marks', () => {
    const trips = guardTrips(counts({ changed: 30, shocked: 30 }), rules, 'ignore');
    const err = guardRefusal(trips);
    expect(err.exitCode).toBe(ExitCode.guard);
    expect(err.exitCode).toBe(6);
    expect(err.message).toMatch(/\(20%, 20\): nothing was sent \(also: --price-shock\)$/);
    expect(err.hint).toContain('--max-change');
    expect(heldLine(trips.slice(0, 1), 1)).toMatch(/holds back 1 out-of-stock mark$/);
  });

  it('--price-shock takes P%:Q% or off', () => {
    expect(parsePriceShock('10%:30%', '--price-shock')).toEqual({ share: 10, move: 30 });
    expect(parsePriceShock(' off ', '--price-shock')).toBe('off');
    expect(() => parsePriceShock('10:30', '--price-shock')).toThrow('--price-shock must be P%:Q%');
    expect(() => parsePriceShock('101%:30%', 'GENSER_PRICE_SHOCK')).toThrow('GENSER_PRICE_SHOCK must be');
  });
});
