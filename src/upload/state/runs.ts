import { randomBytes } from 'node:crypto';
import type { Database } from '../../storage/sqlite.js';

/**
 * The history of a target's runs (`genser runs`): a row written when a run starts, completed
 * with its counts, exit code and --json report when it ends. A row never completed is a run
 * that was killed (or is still going). The last KEEP_RUNS are kept.
 */
export const KEEP_RUNS = 100;

export interface RunCounts {
  rows: number;
  sent: number;
  accepted: number;
  rejected: number;
  /** Failed only (since SQLite schema 9 and PostgreSQL schema 3; before, failed + unconfirmed + not sent). */
  failed: number;
  unchanged: number;
  /** Sent, answer lost or ambiguous (may have landed). */
  unconfirmed?: number;
  /** Never put in a request (the run stopped first). */
  notSent?: number;
}

export interface RunRecord extends Partial<RunCounts> {
  id: string;
  started: string;
  pid: number;
  feed: string;
  durationMs?: number;
  exitCode?: number;
}

export interface RunRow {
  id: string;
  started: string;
  pid: number;
  feed: string;
  duration_ms: number | null;
  rows: number | null;
  sent: number | null;
  accepted: number | null;
  rejected: number | null;
  failed: number | null;
  unchanged: number | null;
  unconfirmed: number | null;
  not_sent: number | null;
  exit_code: number | null;
}

/** Starts a run's row; returns its id (8 hex digits, unique across targets). */
export function startRun(db: Database, feed: string, now: Date = new Date()): string {
  const id = randomBytes(4).toString('hex');
  db.transaction(() => {
    db.prepare('INSERT INTO runs (id, started, pid, feed) VALUES (?, ?, ?, ?)').run(
      id,
      now.toISOString(),
      process.pid,
      feed,
    );
    db.prepare('DELETE FROM runs WHERE seq <= (SELECT max(seq) FROM runs) - ?').run(KEEP_RUNS);
  });
  return id;
}

export function finishRun(
  db: Database,
  id: string,
  end: { counts?: RunCounts; exitCode: number; report?: string; durationMs: number },
): void {
  db.prepare(
    `UPDATE runs SET duration_ms = ?, rows = ?, sent = ?, accepted = ?, rejected = ?, failed = ?,
       unchanged = ?, unconfirmed = ?, not_sent = ?, exit_code = ?, report = ? WHERE id = ?`,
  ).run(...runEndValues(end), id);
}

/** A finished run's columns, in order: duration_ms, rows ... unchanged, unconfirmed, not_sent, exit_code, report. */
export function runEndValues(end: {
  counts?: RunCounts;
  exitCode: number;
  report?: string;
  durationMs: number;
}): (number | string | null)[] {
  const c = end.counts;
  return [
    Math.round(end.durationMs),
    c?.rows ?? null,
    c?.sent ?? null,
    c?.accepted ?? null,
    c?.rejected ?? null,
    c?.failed ?? null,
    c?.unchanged ?? null,
    c?.unconfirmed ?? null,
    c?.notSent ?? null,
    end.exitCode,
    end.report ?? null,
  ];
}

/** A history row as `genser runs` shows it (columns left NULL are left out). */
export function runRecord(r: RunRow): RunRecord {
  const out: RunRecord = { id: r.id, started: r.started, pid: r.pid, feed: r.feed };
  if (r.duration_ms !== null) out.durationMs = r.duration_ms;
  if (r.exit_code !== null) out.exitCode = r.exit_code;
  for (const k of ['rows', 'sent', 'accepted', 'rejected', 'failed', 'unchanged'] as const)
    if (r[k] !== null) out[k] = r[k];
  if (r.unconfirmed !== null) out.unconfirmed = r.unconfirmed;
  if (r.not_sent !== null) out.notSent = r.not_sent;
  return out;
}

/** Newest first. */
export function listRuns(db: Database): RunRecord[] {
  return db.prepare<RunRow>('SELECT * FROM runs ORDER BY seq DESC').all().map(runRecord);
}

export function runReport(db: Database, id: string): { run: RunRecord; report?: string } | undefined {
  const row = db.prepare<RunRow & { report: string | null }>('SELECT * FROM runs WHERE id = ?').get(id);
  if (!row) return undefined;
  return { run: runRecord(row), ...(row.report !== null ? { report: row.report } : {}) };
}
