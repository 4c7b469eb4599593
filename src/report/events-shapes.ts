import type { EventFailure, UnsentRange } from '../events/send.js';
import { problemPlace } from '../events/source.js';
import type { StopReason } from '../http/run.js';
import { messageWithHint } from '../shared/issue-collector.js';
import type { Issue } from '../shared/types.js';

/**
 * The JSON documents of `events validate` and `events send` (docs/events.md), typed so the
 * reporters can render them. The commands build them; these are their shapes.
 */

/**
 * A problem as the events commands' JSON documents show it (docs/events.md): `pointer` (the JSON
 * pointer in the event, or the order export's column), the hint joined into the message, row 0
 * for the whole file. Made from the one problem type (src/shared/types.ts `Issue`) when printed.
 */
export interface EventProblemJson {
  file: string;
  row: number;
  line: number;
  type?: string;
  pointer: string;
  message: string;
  code?: string;
  severity?: 'error';
}

export function eventIssueJson(i: Issue): EventProblemJson {
  return {
    file: i.file,
    row: i.row ?? 0,
    line: i.line ?? 0,
    ...(i.type ? { type: i.type } : {}),
    pointer: problemPlace(i),
    message: messageWithHint(i),
    code: i.code,
  };
}

/** A report with its problems as its JSON document shows them. */
export function withEventJsonIssues<R extends { issues: Issue[] }>(
  report: R,
  severity: boolean,
): Omit<R, 'issues'> & { issues: EventProblemJson[] } {
  return {
    ...report,
    issues: report.issues.map((i) =>
      severity ? { severity: 'error', ...eventIssueJson(i) } : eventIssueJson(i),
    ),
  };
}

/** `genser events validate --json`. */
export interface EventsValidateReport {
  files: string[];
  events: { total: number; valid: number; invalid: number };
  /** The first `--max-errors` problems. */
  issues: Issue[];
  /** Every problem, also those not listed. */
  problemCount: number;
  truncated: boolean;
}

/** `genser events send --json` (src/report/events-report.ts `eventsReport`). */
export interface EventsSendReport {
  files: string[];
  summary: EventsSummary;
  /** The first `--max-errors` problems of invalid events (never sent). */
  issues: Issue[];
  truncated: boolean;
  stopped?: { reason: StopReason; message: string; lastRowRead: number };
  /** Where the events went (the host, never the key). */
  target?: string;
  /** Every valid event not accepted: rejected, failed, unconfirmed or not sent. */
  failures: EventFailure[];
  /** Valid events read after the run stopped, not sent: ranges of rows per file. */
  unsent?: UnsentRange[];
}

export interface EventsSummary {
  rows: number;
  invalid: number;
  fileErrors: number;
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
  notSent: number;
  retries: number;
  requests: number;
  durationMs: number;
  /** Requests in flight at most during the run, and the most allowed (--concurrency). */
  concurrency?: { reached: number; max: number };
}
