import { describe, expect, it } from 'vitest';
import { planDocument } from '../../src/nightly/plan-report.js';
import type { RunPlan } from '../../src/nightly/plan-run.js';
import { newTally } from '../../src/nightly/plan-tally.js';
import { markedGone } from '../../src/nightly/rows.js';
import { planLines } from '../../src/report/plan-report.js';

const where = { target: 'POST https://api.example.com/collectors/products', files: ['feed.csv'] };

function planned(extra: Partial<RunPlan> = {}): RunPlan {
  const tally = { ...newTally(), rows: 3, created: 1, updated: 1, unchanged: 1 };
  tally.fields.set('offers.price', 1);
  tally.moves.push({ sku: 'A\u001b[31m', from: 100, to: 40, percent: -60 });
  return {
    rows: 3,
    known: 2,
    tally,
    trips: [],
    decided: true,
    onGuard: 'refuse',
    full: false,
    interrupted: false,
    absentColumns: [],
    ...extra,
  };
}

describe("the plan's output", () => {
  it('escapes a SKU from the feed before it reaches the terminal', () => {
    const lines = planLines(planDocument(planned(), where));
    expect(lines.join('\n')).not.toContain('\u001b');
    expect(lines).toContain('largest price moves: A\\x1b[31m 100 -> 40 (-60%)');
  });

  it('holds back the out-of-stock marks under --on-guard hold-removals, and says why', () => {
    const trip = {
      guard: 'min-share' as const,
      message: 'the feed has 3 rows',
      hint: 'run again with --min-share 0',
    };
    const doc = planDocument(
      planned({ outOfStock: 5, alreadyOut: 1, trips: [trip], onGuard: 'hold-removals' }),
      where,
    );
    expect(doc).toMatchObject({ outOfStock: 0, heldBack: 5, guards: { outcome: 'hold-removals' } });
    const lines = planLines(doc);
    expect(lines).toContain(
      '  out of stock  0 (gone from the feed; 1 already out of stock; 5 held back: --on-guard hold-removals)',
    );
    expect(lines).toContain('  --min-share: the feed has 3 rows; run again with --min-share 0');
    const refused = planDocument(planned({ trips: [trip] }), where);
    expect(refused.guards.outcome).toBe('refuse');
    expect(planLines(refused)).toContain(
      'guards: the upload would refuse the run and send nothing (exit 6):',
    );
  });
});

describe('--missing-after', () => {
  it('marks a product absent from the feed once it has been missing from K complete runs, this one included', () => {
    const seen = new Set(['A']);
    const runs = new Map([
      ['B', 1],
      ['C', 0],
    ]);
    expect(['A', 'B', 'C', 'D'].filter(markedGone(seen, runs, 1))).toEqual(['B', 'C', 'D']);
    expect(['A', 'B', 'C', 'D'].filter(markedGone(seen, runs, 2))).toEqual(['B']);
    expect(['A', 'B', 'C', 'D'].filter(markedGone(seen, runs, 3))).toEqual([]);
  });
});
