import type { Database } from '../../storage/sqlite.js';

/**
 * What the guards keep of the last complete run (docs/nightly.md, "Before and after the run"):
 * a run that read its whole feed, was not refused and was not stopped. These few functions are
 * all the guards read and write of the state (schema 7's `last_complete`).
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
