import { printable } from '../shared/printable.js';
import type { RunRecord } from '../upload/state/runs.js';

/** `genser runs` in words: the table of every target's runs, and one run's lines (docs/nightly.md). */

export interface TargetRuns {
  target: string;
  /** `2/4` for a shard's state. */
  shard?: string;
  runs: RunRecord[];
}

export const num = (n: number | undefined) => (n === undefined ? '-' : n.toLocaleString('en-US'));

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '-';
  return ms < 60_000
    ? `${(ms / 1000).toFixed(1)} s`
    : `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** A run with no exit code was killed, or is still going. */
export function exitText(r: RunRecord): string {
  return r.exitCode === undefined ? 'none (killed, or running)' : String(r.exitCode);
}

/** The table's columns: the counts (right-aligned) between the feed and the target. */
const HEAD = [
  'id',
  'start',
  'duration',
  'feed',
  'rows',
  'sent',
  'accepted',
  'rejected',
  'failed',
  'unconfirmed',
  'not sent',
  'unchanged',
  'exit',
  'target',
];
const FIRST_COUNT = 4;
const LAST_COUNT = 12;

/**
 * Every target's runs, newest first. Each outcome has its own column: rows never sent (the run
 * stopped first) or sent without a clear answer (they may have landed) are not "failed". Runs
 * recorded before they were counted apart show `-` there, their sum under `failed`.
 */
export function runsTable(targets: TargetRuns[]): string[] {
  const head = [...HEAD];
  const sharded = targets.some((t) => t.shard !== undefined && t.runs.length > 0);
  if (sharded) head.push('shard');
  const rows: string[][] = [];
  for (const t of targets)
    for (const r of t.runs)
      rows.push(
        [
          r.id,
          r.started.replace('T', ' ').replace(/\.\d+Z$/, 'Z'),
          duration(r.durationMs),
          r.feed,
          num(r.rows),
          num(r.sent),
          num(r.accepted),
          num(r.rejected),
          num(r.failed),
          num(r.unconfirmed),
          num(r.notSent),
          num(r.unchanged),
          r.exitCode === undefined ? '-' : String(r.exitCode),
          t.target,
          ...(sharded ? [t.shard ?? '-'] : []),
        ].map(printable),
      );
  rows.sort((a, b) => b[1].localeCompare(a[1]));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i >= FIRST_COUNT && i <= LAST_COUNT ? c.padStart(widths[i]) : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

/** One run's counts in words (`genser runs show ID`). */
export function countsLine(r: RunRecord): string {
  const apart =
    r.unconfirmed !== undefined || r.notSent !== undefined
      ? `, unconfirmed ${num(r.unconfirmed)}, not sent ${num(r.notSent)}`
      : '';
  return `rows ${num(r.rows)}, sent ${num(r.sent)}, accepted ${num(r.accepted)}, rejected ${num(r.rejected)}, failed ${num(r.failed)}${apart}, unchanged ${num(r.unchanged)}`;
}

/** The rows the run did not get accepted, from its stored report. */
export function failureLines(report: string | undefined): string[] {
  if (report === undefined) return [];
  let doc: {
    failures?: { kind: string; file: string; row: number; line: number; sku?: string; message: string }[];
  };
  try {
    doc = JSON.parse(report);
  } catch {
    return [];
  }
  return (doc.failures ?? []).map(
    (f) =>
      `  ${f.kind.replace('_', ' ')}: ${f.file} row ${f.row} (line ${f.line}${f.sku !== undefined ? `, sku ${f.sku}` : ''}): ${f.message}`,
  );
}
