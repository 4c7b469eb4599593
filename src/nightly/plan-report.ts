import type { PlanDocument } from '../report/plan-report.js';
import type { RunPlan } from './plan-run.js';
import { fieldCounts } from './plan-tally.js';

/** The plan as one document (docs/nightly.md, "Before and after the run"); src/report/plan-report.ts renders it. */
export function planDocument(plan: RunPlan, where: { target: string; files: string[] }): PlanDocument {
  const t = plan.tally;
  const tripped = plan.trips.map(({ guard, message, hint }) => ({ guard, message, hint }));
  const outcome = tripped.length === 0 ? 'send' : plan.onGuard === 'refuse' ? 'refuse' : 'hold-removals';
  return {
    target: where.target,
    files: where.files,
    rows: plan.rows,
    known: plan.known,
    created: t.created,
    updated: t.updated,
    unchanged: t.unchanged,
    refused: t.refused,
    ...(plan.outOfStock !== undefined
      ? outcome === 'hold-removals'
        ? { outOfStock: 0, heldBack: plan.outOfStock, alreadyOutOfStock: plan.alreadyOut ?? 0 }
        : { outOfStock: plan.outOfStock, alreadyOutOfStock: plan.alreadyOut ?? 0 }
      : {}),
    ...(plan.waiting ? { waitingMissing: plan.waiting } : {}),
    fields: Object.fromEntries(fieldCounts(t)),
    largestPriceMoves: t.moves.map((m) => ({ ...m, percent: Math.round(m.percent * 10) / 10 })),
    guards: { decided: plan.decided, tripped, onGuard: plan.onGuard, outcome },
    ...(plan.lastRows !== undefined ? { lastCompleteRows: plan.lastRows } : {}),
    absentColumns: plan.absentColumns,
    full: plan.full,
  };
}
