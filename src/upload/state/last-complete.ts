import type { Database } from '../../storage/sqlite.js';

/**
 * What the guards keep of the last complete run (docs/nightly.md, "Before and after the run"):
 * a run that read its whole feed, was not refused and was not stopped. These few functions are
 * all the guards read and write of the state (schema 7's `last_complete` and `missing_runs`).
 */

/** The feed rows of the last complete run; undefined before the first one. */
export function lastCompleteRows(db: Database): number | undefined {
  const row = db.prepare<{ rows: number }>('SELECT rows FROM last_complete WHERE id = 1').get();
  return row ? Number(row.rows) : undefined;
}

/** Records a complete run's feed rows (the one row replaced). */
export function recordComplete(db: Database, rows: number, now: Date = new Date()): void {
  db.prepare(
    'INSERT INTO last_complete (id, rows, finished) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET rows = excluded.rows, finished = excluded.finished',
  ).run(rows, now.toISOString());
}

/** Per SKU absent from the feed, how many complete runs in a row it has been (`--missing-after`). */
export function missingRuns(db: Database): Map<string, number> {
  const runs = new Map<string, number>();
  for (const r of db.prepare<{ sku: string; runs: number }>('SELECT sku, runs FROM missing_runs').iterate())
    runs.set(r.sku, Number(r.runs));
  return runs;
}

/**
 * After a complete run: each SKU absent from it has been so one run more; a SKU back in the feed
 * (or no longer known) starts again from nothing. One transaction.
 */
export function recordMissing(
  db: Database,
  absent: Iterable<string>,
  before: ReadonlyMap<string, number>,
): void {
  const insert = db.prepare('INSERT INTO missing_runs (sku, runs) VALUES (?, ?)');
  db.transaction(() => {
    db.exec('DELETE FROM missing_runs');
    for (const sku of absent) insert.run(sku, (before.get(sku) ?? 0) + 1);
  });
}
