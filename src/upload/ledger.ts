import { type NotAccepted, type Outcome, tallyOutcome } from '../http/outcome.js';
import type { RowRef } from './batcher.js';
import type { Failure, LiveStats } from './types.js';

/**
 * The accounting of rows: every valid row read ends in exactly one outcome (src/http/outcome.ts),
 * counted in the live stats and, unless accepted, listed as a failure with its row and why.
 */
export class RowLedger {
  readonly failures: Failure[] = [];

  constructor(readonly stats: LiveStats) {}

  accept(rows: readonly RowRef[]): void {
    tallyOutcome(this.stats, 'accepted', rows.length);
  }

  settle(
    rows: readonly RowRef[],
    kind: NotAccepted,
    batch: number,
    status: number | string,
    message: string,
  ): void {
    // The report's fields by name: what the state keeps of a row (hash, key, price) is not its.
    for (const r of rows)
      this.failures.push({
        kind,
        file: r.file,
        row: r.row,
        line: r.line,
        sku: r.sku,
        status,
        message,
        batch,
      });
    tallyOutcome(this.stats, kind, rows.length);
  }

  /** Rows the run stopped before they were put in any request. */
  notSent(rows: readonly RowRef[], batch: number, why: string): void {
    this.settle(rows, 'not_sent', batch, 'not_sent', `not sent: ${why}`);
  }

  /** Failures in feed order (sends finish out of order). */
  sorted(): Failure[] {
    return this.failures.sort((a, b) => a.row - b.row || a.file.localeCompare(b.file));
  }
}

/** A batch's status from its rows' outcomes: the one outcome they share, else `partial`. */
export function batchStatus(outcomes: ReadonlySet<Outcome>): Outcome | 'partial' {
  if (outcomes.size === 1) return [...outcomes][0];
  return outcomes.size === 0 ? 'not_sent' : 'partial';
}
