import type { Database } from '../../storage/sqlite.js';

/**
 * What the guards keep of the last complete run (docs/nightly.md, "Before and after the run"):
 * a run that read its whole feed, was not refused and was not stopped. These few functions are
 * all the guards read and write of the state (schema 7's `last_complete` and `missing_runs`,
 * schema 10's mapped columns).
 */

/** What a complete run leaves for the next one's guards. */
export interface LastComplete {
  /** The feed's rows (all shards'), for `--min-share`. */
  rows: number;
  /** The source columns that fed a field, for the mapping drift; undefined when not recorded. */
  columns?: string[];
}

/** The one row as either backend stores it: the columns as a JSON list. */
export function lastCompleteOf(
  row: { rows: number; columns: string | null } | undefined,
): LastComplete | undefined {
  if (!row) return undefined;
  const columns: unknown = row.columns === null ? undefined : JSON.parse(row.columns);
  return {
    rows: Number(row.rows),
    ...(Array.isArray(columns) ? { columns: columns.filter((c): c is string => typeof c === 'string') } : {}),
  };
}

export const columnsText = (run: LastComplete): string | null =>
  run.columns === undefined ? null : JSON.stringify(run.columns);

/** The last complete run; undefined before the first one. */
export function lastComplete(db: Database): LastComplete | undefined {
  return lastCompleteOf(
    db
      .prepare<{ rows: number; columns: string | null }>(
        'SELECT rows, columns FROM last_complete WHERE id = 1',
      )
      .get(),
  );
}

/** Records a complete run (the one row replaced). */
export function recordComplete(db: Database, run: LastComplete, now: Date = new Date()): void {
  db.prepare(
    'INSERT INTO last_complete (id, rows, finished, columns) VALUES (1, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET rows = excluded.rows, finished = excluded.finished, columns = excluded.columns',
  ).run(run.rows, now.toISOString(), columnsText(run));
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
