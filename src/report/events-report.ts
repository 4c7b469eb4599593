import type { EventFailure, EventSendResult } from '../events/send.js';
import { printable } from '../shared/printable.js';
import { redact } from '../shared/secrets.js';
import type { Issue } from '../shared/types.js';
import {
  concurrencyLines,
  count,
  duration,
  n,
  OUTCOME_MEANING,
  outcomeWords,
  rate,
} from '../shared/words.js';
import { type EventsSendReport, type EventsSummary, withEventJsonIssues } from './events-shapes.js';

/**
 * The report of `genser events send` (docs/events.md): the same field names as the upload
 * report where they mean the same (`summary` with the outcome words, `issues`, `truncated`,
 * `stopped`, `failures`), for the --json document and the lines people read.
 */

export interface EventsRun {
  files: string[];
  result: EventSendResult;
  /** Distinct invalid events (rows), never sent. */
  invalid: number;
  /** Problems of the whole file (row 0): not events, but the input is not clean. */
  fileErrors: number;
  /** The first --max-errors problems, and whether there were more. */
  issues: Issue[];
  truncated: boolean;
  /** The last row read from the input (valid or not). */
  lastRow: number;
  durationMs: number;
  /** Where the events went: the host (never the key). */
  target?: string;
}

export function eventsSummary(r: EventsRun): EventsSummary {
  const s = r.result;
  return {
    rows: r.invalid + s.read,
    invalid: r.invalid,
    fileErrors: r.fileErrors,
    sent: s.sent,
    accepted: s.accepted,
    rejected: s.rejected,
    failed: s.failed,
    unconfirmed: s.unconfirmed,
    notSent: s.notSent,
    retries: s.retries,
    requests: s.requests,
    durationMs: r.durationMs,
    ...(s.concurrency ? { concurrency: s.concurrency } : {}),
  };
}

export function eventsReport(r: EventsRun): EventsSendReport {
  const stop = r.result.stop;
  return {
    files: r.files,
    summary: eventsSummary(r),
    issues: r.issues,
    truncated: r.truncated,
    ...(stop ? { stopped: { reason: stop.reason, message: stop.message, lastRowRead: r.lastRow } } : {}),
    ...(r.target ? { target: r.target } : {}),
    failures: r.result.failures,
    ...(r.result.unsent.length > 0 ? { unsent: r.result.unsent } : {}),
  };
}

/** The --json document, with every registered secret masked. */
export function eventsReportText(r: EventsRun): string {
  return redact(`${JSON.stringify(withEventJsonIssues(eventsReport(r), true))}\n`);
}

/** `rows 1-4, 7, 9-11` of one file, at most `max` ranges. */
function rowRanges(rows: number[], max = 10): string {
  const ranges: [number, number][] = [];
  for (const row of [...rows].sort((a, b) => a - b)) {
    const last = ranges.at(-1);
    if (last && row <= last[1] + 1) last[1] = Math.max(last[1], row);
    else ranges.push([row, row]);
  }
  const shown = ranges.slice(0, max).map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`));
  const more = ranges.length > max ? ` and ${n(ranges.length - max)} more ranges` : '';
  return `${rows.length === 1 ? 'row' : 'rows'} ${shown.join(', ')}${more}`;
}

/** `failed: events.ndjson rows 1-4: ...` for each outcome that needs a second look. */
function outcomeLines(failures: readonly EventFailure[]): string[] {
  const lines: string[] = [];
  for (const kind of ['failed', 'unconfirmed', 'not_sent'] as const) {
    const byFile = new Map<string, number[]>();
    for (const f of failures) {
      if (f.kind !== kind) continue;
      const rows = byFile.get(f.file) ?? [];
      rows.push(f.row);
      byFile.set(f.file, rows);
    }
    if (byFile.size === 0) continue;
    const where = [...byFile].map(([file, rows]) => `${file} ${rowRanges(rows)}`).join('; ');
    lines.push(`${kind.replace('_', ' ')}: ${where}: ${OUTCOME_MEANING[kind]}`);
  }
  return lines;
}

/** The end-of-run lines for people (stderr). */
export function eventsSummaryLines(r: EventsRun): string[] {
  const s = eventsSummary(r);
  const lines = [
    `events: ${count(s.rows, 'event')}, ${n(s.invalid)} invalid (not sent), ${n(s.sent)} sent: ` +
      `${outcomeWords(s)}; ${s.notSent > 0 ? `${count(s.notSent, 'valid event')} not sent; ` : ''}` +
      `${count(s.retries, 'retry', 'retries')}; ${duration(s.durationMs)} (${rate(s.rows, s.durationMs, 'event')})`,
    ...concurrencyLines(s.concurrency),
  ];
  if (r.result.stop)
    lines.push(
      r.result.readToEnd
        ? `stopped; the input was read to its end (row ${n(r.lastRow)}), what came after the stop not sent`
        : `stopped after row ${n(r.lastRow)}: events after it were not read or sent`,
    );
  lines.push(...outcomeLines(r.result.failures));
  for (const u of r.result.unsent) {
    const rows = u.from === u.to ? `row ${u.from}` : `rows ${u.from}-${u.to}`;
    lines.push(`not sent: ${u.file} ${rows} (${count(u.count, 'valid event')}): ${OUTCOME_MEANING.not_sent}`);
  }
  return lines.map(printable);
}
