import type { KnownSources } from '../../feed/index.js';
import type { StringMap } from '../../shared/string-set.js';
import type { LastComplete } from './last-complete.js';
import type { RunCounts, RunRecord } from './runs.js';

/**
 * One target's upload state (docs/nightly.md): the run lock, and per SKU the hash of the payload
 * bytes the service last accepted, with the rows owed to --retry-failed, the batches in flight
 * and the run history. Every write is its own short transaction, so a run killed at any point
 * leaves the state as of its last confirmed batch. Kept in SQLite (./sqlite-state.ts); every
 * method returns a Promise so that a state on a database server fits the same interface.
 */
export interface UploadState {
  /** Where the state is, for messages (a file, or a database URL without its password). */
  readonly where: string;
  /**
   * Takes the run lock: a stale holder is replaced (`onStale` says whose it was); a live one
   * stops this run with exit 5, naming it (./lock.ts).
   */
  lock(now?: Date, onStale?: (line: string) => void): Promise<void>;
  /**
   * Resolves once the state is known intact (a file's check runs while the run reads its feed);
   * throws the damage (exit 2). Writes wait for it, but for the lock and the history row.
   */
  intact(): Promise<void>;
  /** After a run that ended well: a copy of the state is kept for recovery once it is closed. */
  keepLastGood(): Promise<void>;
  /** The hash of the payload last accepted for `sku`, if any. */
  acceptedHash(sku: string): Promise<string | undefined>;
  /**
   * The price of the payload last accepted for each of `skus` that has one (the price-shock
   * guard), kept with the SKU's row (./prices.ts); one query on a database server.
   */
  acceptedPrices(skus: readonly string[]): Promise<Map<string, number>>;
  /** The payload bytes last accepted for each of `skus` that has them (`genser stock` merges into them). */
  acceptedPayloads(skus: readonly string[]): Promise<Map<string, Uint8Array>>;
  /** The hash last accepted for each of `skus` that has one (one query on a database server). */
  acceptedHashesOf(skus: readonly string[]): Promise<Map<string, string>>;
  /** Every accepted SKU's hash, read in one pass (comparing a whole feed). */
  acceptedHashes(): Promise<StringMap<string>>;
  /**
   * The table of accepted source keys the feed skips rows by (docs/nightly.md, "Unchanged rows"),
   * read `page` entries at a time (KNOWN_PAGE; tests make it small).
   */
  knownSources(page?: number): Promise<KnownSources>;
  /** The other shards' source keys of the feed just read, replacing the last run's. */
  replaceOtherShards(rows: readonly { source: string; sku: string }[]): Promise<void>;
  /** Every accepted SKU. */
  acceptedSkus(): AsyncIterable<string>;
  /** Source keys of rows whose payload is the one accepted (same hash), one transaction per call. */
  noteSources(rows: readonly { sku: string; hash: string; source: string }[]): Promise<void>;
  /** One body's accepted products with their payload bytes, in one transaction; pays owed rows. */
  accepted(rows: readonly AcceptedRow[], parts: readonly Uint8Array[], now?: Date): Promise<void>;
  /** Accepted SKUs for which `keep` is false, with their last accepted payload, in SKU order. */
  absent(keep: (sku: string) => boolean): AsyncIterable<{ sku: string; payload: Uint8Array }>;
  /** Rows of run `runId` not accepted: owed to --retry-failed until accepted or superseded. */
  owe(runId: string, rows: readonly OwedRow[], parts: readonly Uint8Array[]): Promise<void>;
  /** The SKU's owed row, paid or superseded. */
  dropOwed(sku: string): Promise<void>;
  /** Every row owed to --retry-failed, in feed order. */
  owedRows(): Promise<RetryRow[]>;
  /** The SKUs owed to --retry-failed (few: a run's failures). */
  owedSkus(): Promise<Set<string>>;
  /** Batches sent but never answered (a crash, a timeout), by SKU. */
  inflight(): Promise<Map<string, InflightRow>>;
  /** Records a batch before it is sent: its id, type and each row's SKU and hash, in order. */
  recordInflight(
    envelopeId: string,
    type: string,
    rows: readonly { sku?: string; hash?: string }[],
  ): Promise<void>;
  forgetInflight(envelopeIds: readonly string[]): Promise<void>;
  /** How many SKUs the service has accepted from this state. */
  knownCount(): Promise<number>;
  /** The target this state is for, as it says itself (the key only as its fingerprint). */
  target(): Promise<{ apiUrl: string; format: string; shard?: string }>;
  /** Starts a run's history row; returns its id (8 hex digits). */
  startRun(feed: string, now?: Date): Promise<string>;
  /** Completes a run's history row. */
  finishRun(id: string, end: RunEnd): Promise<void>;
  /** The run history, newest first. */
  listRuns(): Promise<RunRecord[]>;
  runReport(id: string): Promise<{ run: RunRecord; report?: string } | undefined>;
  /** The last complete run's feed rows and mapped columns (./last-complete.ts); undefined before the first. */
  lastComplete(): Promise<LastComplete | undefined>;
  /** Records a complete run's feed rows (`--min-share`) and mapped columns (mapping drift). */
  recordComplete(run: LastComplete, now?: Date): Promise<void>;
  /** Per SKU absent from the feed, how many complete runs in a row it has been (`--missing-after`). */
  missingRuns(): Promise<Map<string, number>>;
  /** After a complete run: the SKUs absent from it, each one run more than `before`; the rest reset. */
  recordMissing(absent: Iterable<string>, before: ReadonlyMap<string, number>): Promise<void>;
  /**
   * The ETag / Last-Modified a feed URL answered in the last run that ended well (exit 0), and
   * that run's id; undefined when there is none (docs/reading.md, "Feeds from a URL").
   */
  feedValidators(url: string): Promise<FeedValidators | undefined>;
  /** After a run: its feed URLs' validators replace the kept ones (none: nothing is kept). */
  keepFeedValidators(
    runId: string,
    feeds: readonly { url: string; etag?: string; lastModified?: string }[],
  ): Promise<void>;
  /** Releases the lock (when held) and closes the state. */
  close(): Promise<void>;
}

export interface FeedValidators {
  etag?: string;
  lastModified?: string;
  runId: string;
}

export interface RunEnd {
  counts?: RunCounts;
  exitCode: number;
  report?: string;
  durationMs: number;
}

export interface AcceptedRow {
  file?: string;
  row?: number;
  sku?: string;
  hash?: string;
  source?: string;
  /** The payload's price (null: it has none; undefined: not known here, read from the payload). */
  price?: number | null;
}

export interface OwedRow {
  file: string;
  row: number;
  line: number;
  sku?: string;
}

export interface InflightRow {
  envelopeId: string;
  type: 'create_product' | 'update_product';
  position: number;
  size: number;
  sku: string;
  hash: string;
}

/** A row owed to `--retry-failed`: its place in the feed, and the payload that was not accepted. */
export interface RetryRow {
  file: string;
  row: number;
  line: number;
  sku: string | null;
  payload: Uint8Array;
  /** The run that last failed to deliver it. */
  runId: string;
}
