/**
 * The upload state's tables as rows apart from any database (`genser state copy`,
 * docs/nightly.md, "Moving a state"): each backend reads its own in pages and writes them in
 * its own; a copy keeps every value as it is (times, run ids, payload bytes).
 */
export const STATE_TABLES = {
  accepted: ['sku', 'hash', 'accepted_at', 'source', 'price', 'payload'],
  other_shards: ['source', 'sku'],
  inflight: ['envelope_id', 'type', 'position', 'size', 'sku', 'hash'],
  owed: ['sku', 'file', 'row', 'line', 'run_id', 'payload'],
  last_complete: ['rows', 'finished', 'columns'],
  missing_runs: ['sku', 'runs'],
  feed_validators: ['url_hash', 'etag', 'last_modified', 'run_id'],
  runs: [
    'id',
    'started',
    'pid',
    'feed',
    'duration_ms',
    'rows',
    'sent',
    'accepted',
    'rejected',
    'failed',
    'unchanged',
    'unconfirmed',
    'not_sent',
    'exit_code',
    'report',
  ],
} as const;

export type StateTable = keyof typeof STATE_TABLES;
export type TableRow = Record<string, unknown>;

/** Rows per page read, and per statement written. */
export const COPY_PAGE = 500;

/** The whole state of one target, table by table, and where to write one. */
export interface StateTables {
  /** The target's identity as kept with the state. */
  identity(): Promise<{ apiUrl: string; format: string; keyFingerprint: string; shard?: string }>;
  readTable(table: StateTable): AsyncIterable<TableRow[]>;
  /** Writes rows into a state that holds none of this table yet (one transaction per call). */
  writeTable(table: StateTable, rows: readonly TableRow[]): Promise<void>;
}
