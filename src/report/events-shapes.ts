/**
 * The JSON documents of `events validate` and `events send` (docs/events.md), typed so the
 * reporters can render them. The commands build them; these are their shapes.
 */

/** One event that failed its check, or a line that could not be read. */
export interface EventProblem {
  file: string;
  row: number;
  line: number;
  /** The event type, when the event said which one it is. */
  type?: string;
  /** JSON pointer of the offending member (empty: the whole event). */
  pointer: string;
  message: string;
}

export interface EventsValidateReport {
  files: string[];
  events: { total: number; valid: number; invalid: number };
  /** The first `--max-errors` problems. */
  problems: EventProblem[];
  /** Every problem, also those not listed. */
  problemCount: number;
  truncated: boolean;
}

export interface EventSendFailure {
  file: string;
  row: number;
  line: number;
  type: string;
  /** HTTP status, or a word (`network`, `timeout`, ...). */
  status: number | string;
  message: string;
}

export interface EventsSendReport {
  files?: string[];
  summary: {
    sent: number;
    accepted: number;
    rejected: number;
    failed: number;
    /** Problems of events that were not sent (invalid). */
    invalid: number;
    retries: number;
    durationMs: number;
  };
  invalid: EventProblem[];
  failures: EventSendFailure[];
  stop: string | null;
}
