import type { FeedStats } from '../feed/index.js';
import type { NotAccepted, OutcomeCounts } from '../http/outcome.js';
import type { BackoffSettings } from '../http/retry-policy.js';
import type { RunStop } from '../http/run.js';
import type { IssueCollector } from '../shared/issue-collector.js';
import type { Issue, PayloadFormat } from '../shared/types.js';
import type { RowRef } from './batcher.js';

export type EnvelopeType = 'create_product' | 'update_product';

/** How a valid row is sent when the run keeps state (src/upload/state/): its envelope and payload hash. */
export interface SendPlan {
  type: EnvelopeType;
  hash?: string;
  /** The row was in a batch sent by a run that did not learn its outcome: rebuilt and sent with the same id. */
  resume?: { envelopeId: string; position: number; size: number };
}

/** A value, or a promise of it when it had to be asked for (a row's plan: no promise per row). */
export type MaybePromise<T> = T | Promise<T>;

/** The upload state's part in a run: which rows go (and how), and what the service accepted. */
export interface StateHooks {
  /**
   * undefined: the service already has these exact bytes; the row is not sent. `source`: the
   * row's source key, kept for such a row so the next run need not map it (src/feed/source-keys.ts).
   */
  plan(sku: string | undefined, json: Uint8Array, source?: string): MaybePromise<SendPlan | undefined>;
  /** One body's accepted rows and their payload bytes (called once per body, as its answer lands). */
  accepted(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void>;
  /** Rows sent (or meant to be) and not accepted, with their payloads: `--retry-failed` sends them again. */
  notAccepted?(rows: readonly RowRef[], parts: readonly Uint8Array[]): Promise<void>;
  /** Every row read that names a SKU, valid or not (a SKU seen is not gone from the feed). */
  seen?(sku: string): void;
  /** Before a batch's first request: its id and rows, so a crash can be resumed with the same id. */
  sending(batch: { rows: readonly RowRef[]; type?: EnvelopeType }, envelopeId: string): Promise<void>;
  /** The batch was answered (nothing unconfirmed): its id is not to be re-sent. */
  settled(envelopeId: string): Promise<void>;
}

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
  type: EnvelopeType;
  agentName: string;
  dryRun: boolean;
  /** Issues of invalid rows kept in detail (the rest are counted). */
  maxErrors: number;
  /** After Ctrl-C, requests still in flight get this long before they are cut. */
  graceMs: number;
}

/** One outcome word (src/http/outcome.ts) for all the batch's rows, or `partial` for a mix. */
export type BatchStatus =
  | 'accepted'
  | 'partial'
  | 'rejected'
  | 'failed'
  | 'unconfirmed'
  | 'not_sent'
  | 'dry_run';

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

/** A valid row that was not accepted, and what became of it (src/http/outcome.ts). */
export interface Failure {
  kind: NotAccepted;
  file: string;
  row: number;
  line: number;
  sku?: string;
  /** The last HTTP status, or a word (`network`, `timeout`, `interrupted`, `not_sent`, `internal`). */
  status: number | string;
  message: string;
  batch: number;
}

/** rows = invalid + unchanged + accepted + rejected + failed + unconfirmed + notSent. */
export interface UploadSummary extends OutcomeCounts {
  rows: number;
  invalid: number;
  /** With upload state: valid rows not sent because the service has them unchanged. */
  unchanged?: number;
  /** File-level errors (an empty file, a duplicate header): the feed is not clean. */
  fileErrors: number;
  /** Rows put in at least one request. */
  sent: number;
  batches: number;
  retries: number;
  requests: number;
  bytes: number;
  durationMs: number;
  dryRun: boolean;
  /** Requests in flight at most during the run, and the most allowed (--concurrency); not on a dry run. */
  concurrency?: { reached: number; max: number };
}

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
  stop?: RunStop;
  /** Last row read from the feed (rows after it were not read when the run stopped). */
  lastRow: number;
  /** Whether the feed was read to its end (a stop may still come after, from the last batches). */
  readToEnd: boolean;
}

/** Counters that grow while the run goes; progress displays read them. */
export interface LiveStats extends OutcomeCounts {
  rows: number;
  /** Physical line where the last row read starts (for the ETA). */
  line: number;
  invalid: number;
  unchanged: number;
  sent: number;
  retries: number;
  requests: number;
  batches: number;
  bytes: number;
  startedAt: number;
}
