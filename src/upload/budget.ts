import { UsageError } from '../shared/errors.js';

/** `--max-invalid`: how many invalid rows a run may have before it sends nothing. */
export type InvalidBudget = { kind: 'count'; max: number } | { kind: 'percent'; max: number };

/** `10` (rows) or `2%` (of the rows read). */
export function parseInvalidBudget(raw: unknown, from: string): InvalidBudget {
  const text = String(raw).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct && Number(pct[1]) <= 100) return { kind: 'percent', max: Number(pct[1]) };
  if (/^\d+$/.test(text)) return { kind: 'count', max: Number(text) };
  throw new UsageError(`${from} must be a number of rows (10) or a percentage (2%); got "${text}"`);
}

/** True when the invalid rows are more than the budget allows. */
export function exceedsBudget(budget: InvalidBudget, invalid: number, rows: number): boolean {
  if (budget.kind === 'count') return invalid > budget.max;
  return rows > 0 && (invalid / rows) * 100 > budget.max;
}
