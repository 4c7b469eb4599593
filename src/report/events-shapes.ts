import type { EventFailure, UnsentRange } from '../events/send.js';
import type { EventProblemLine } from '../events/source.js';
import type { StopReason } from '../http/run.js';

/**
 * The JSON documents of `events validate` and `events send` (docs/events.md), typed so the
 * reporters can render them. The commands build them; these are their shapes.
 */

/** One event that failed its check, or a line that could not be read (row 0: the whole file). */
export type EventProblem = EventProblemLine;

/** `genser events validate --json`. */
export interface EventsValidateReport {
  files: string[];
  events: { total: number; valid: number; invalid: number };
  /** The first `--max-errors` problems. */
  issues: EventProblem[];
  /** Every problem, also those not listed. */
  problemCount: number;
  truncated: boolean;
}

/** `genser events send --json` (src/report/events-report.ts `eventsReport`). */
export interface EventsSendReport {
  files: string[];
  summary: EventsSummary;
  /** The first `--max-errors` problems of invalid events (never sent). */
  issues: EventIssue[];
  truncated: boolean;
  stopped?: { reason: StopReason; message: string; lastRowRead: number };
  /** Where the events went (the host, never the key). */
  target?: string;
  /** Every valid event not accepted: rejected, failed, unconfirmed or not sent. */
  failures: EventFailure[];
  /** Valid events read after the run stopped, not sent: ranges of rows per file. */
  unsent?: UnsentRange[];
}

/** A problem of an invalid event (not sent). */
export type EventIssue = EventProblemLine & { severity: 'error' };

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
