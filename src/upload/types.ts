import type { FeedStats } from '../feed/pipeline.js';
import type { IssueCollector } from '../report/issues.js';
import type { Issue, PayloadFormat } from '../shared/types.js';
import type { BackoffSettings } from './retry-policy.js';

/** Settings of one upload run, resolved from flags, environment and config (see settings.ts). */
export interface UploadSettings {
  format: PayloadFormat;
  /** Path under the api url: /collectors/products, /searches/products, ... */
  path: string;
  batchSize: number;
  maxBatchBytes: number;
  concurrency: number;
  /** Retries after the first attempt. */
  retries: number;
  backoff: BackoffSettings;
  type: 'create_product' | 'update_product';
  agentName: string;
  dryRun: boolean;
  /** Issues of invalid rows kept in detail (the rest are counted). */
  maxErrors: number;
  /** After Ctrl-C, requests still in flight get this long before they are cut. */
  graceMs: number;
}

export type BatchStatus = 'accepted' | 'partial' | 'rejected' | 'failed' | 'not_sent' | 'dry_run';

export interface BatchOutcome {
  index: number;
  firstRow: number;
  lastRow: number;
  rows: number;
  /** Body bytes of the batch as first sent. */
  bytes: number;
  status: BatchStatus;
  /** Last HTTP status seen for this batch, if any. */
  httpStatus?: number;
  /** Requests of the whole batch (first try + retries); splits not counted. */
  attempts: number;
  /** All requests this batch caused, splits and their retries included. */
  requests: number;
  /** The envelope id (standard) and Idempotency-Key of the batch's first body. */
  requestId: string;
  /** When the batch's first request went out and its last answer came, in ms after the run began. */
  startedMs?: number;
  endedMs?: number;
}

/** A row that was not delivered: rejected by the server, or never accepted (failed). */
export interface Failure {
  kind: 'rejected' | 'failed';
  file: string;
  row: number;
  line: number;
  sku?: string;
  /** HTTP status, or a word (`network`, `timeout`, `not_sent`, `interrupted`). */
  status: number | string;
  message: string;
  batch: number;
}

export interface UploadSummary {
  rows: number;
  invalid: number;
  /** File-level errors (an empty file, a duplicate header): the feed is not clean. */
  fileErrors: number;
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
  batches: number;
  retries: number;
  requests: number;
  bytes: number;
  durationMs: number;
  dryRun: boolean;
}

/** input: the feed could not be read on (a usage error mid-file); internal: a bug. */
export type StopReason = 'auth' | 'unavailable' | 'interrupted' | 'endpoint' | 'input' | 'internal';

export interface UploadResult {
  summary: UploadSummary;
  failures: Failure[];
  batches: BatchOutcome[];
  /** Issues of the rows (invalid rows' errors first come, first kept), at most maxErrors. */
  issues: Issue[];
  issuesTruncated: boolean;
  /** The validate counts (rows, valid, invalid, warnings, errors, fileErrors) of the rows read. */
  feed: FeedStats;
  /** All issues counted and grouped; the first maxErrors kept in detail. */
  collector: IssueCollector;
  /** Why the run stopped early, if it did. */
  stop?: {
    reason: StopReason;
    message: string;
    hint?: string;
    /** What stopped an `input` or `internal` run, rethrown once the report is out (its exit code). */
    error?: unknown;
  };
  /** Last row read from the feed (rows after it were not read when the run stopped). */
  lastRow: number;
  /** Whether the feed was read to its end (a stop may still come after, from the last batches). */
  readToEnd: boolean;
}

/** Counters that grow while the run goes; progress displays read them. */
export interface LiveStats {
  rows: number;
  /** Physical line where the last row read starts (for the ETA). */
  line: number;
  invalid: number;
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
  retries: number;
  requests: number;
  batches: number;
  bytes: number;
  startedAt: number;
}
