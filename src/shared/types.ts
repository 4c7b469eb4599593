/**
 * The shapes that flow through the pipeline (docs/architecture.md section 2):
 *   read -> SourceRecord | Issue  ->  map/build/validate -> FeedItem  ->  upload / report
 * Every stage keeps the source position so a merchant is told exactly which row is wrong.
 */

export type Severity = 'error' | 'warning';

/** One problem with one row (or with the file). The shape of docs/architecture.md section 7. */
export interface Issue {
  severity: Severity;
  /** Stable machine code, e.g. `type`, `required`, `unclosed_quote`, `duplicate_sku`. */
  code: string;
  file: string;
  /** Data record number from 1 (the CSV header is not a row). Absent for file-level issues. */
  row?: number;
  /** Physical line where the record starts (the CSV header is line 1). */
  line?: number;
  sku?: string;
  /** An event's type (`view_product`), where a product row has its SKU. */
  type?: string;
  /** Source column (CSV header or JSON key) the value came from. */
  column?: string;
  /** Target field path in the payload, e.g. `offers.price`. */
  field?: string;
  /** The offending value, shortened for display. */
  value?: string;
  /** A sentence a merchant understands: what is wrong, without the hint. */
  message: string;
  /**
   * What to do about it, when there is something to say. Kept apart from the message from the
   * reader to the report; a line for people and the JSON reports' `message` join the two as
   * `<message>; <hint>` (messageWithHint, src/shared/issue-collector.ts).
   */
  hint?: string;
}

export type InputType = 'csv' | 'json' | 'ndjson';

/** One record as read from a file, before mapping. */
export interface SourceRecord {
  file: string;
  row: number;
  line: number;
  /**
   * CSV: header -> raw string. JSON/NDJSON: the parsed object as it stands in the file.
   */
  fields: Record<string, unknown>;
  /**
   * `rows`: flat records (CSV, or JSON objects keyed like CSV columns) that need mapping.
   * `graph`: elements of a ready standard envelope's `@graph` (already product nodes).
   * `legacy`: elements of a ready legacy v0.3 array (already nested legacy objects).
   * Readers say `rows` for CSV and NDJSON lines, and decide for JSON from the document's shape.
   */
  shape: 'rows' | 'graph' | 'legacy';
}

/** What readers yield: records in order, with problems interleaved where they occur. */
export type ReadItem = { type: 'record'; record: SourceRecord } | { type: 'issue'; issue: Issue };

export type PayloadFormat = 'standard' | 'legacy';
export type LegacyKind = 'products' | 'contents' | 'filters';
export type Language = 'ko' | 'en' | 'ja';

/** One row after mapping, building and validating: what `validate`, `convert` and `upload` consume. */
export interface FeedItem {
  file: string;
  row: number;
  line: number;
  sku?: string;
  /** A standard product's GTIN, for the cross-row check that no two SKUs share one. */
  gtin?: string;
  /** The built product (standard node or legacy object); absent when the row could not be built. */
  payload?: Record<string, unknown>;
  /** All issues of this row, warnings included. The row is valid when none is an error. */
  issues: Issue[];
  valid: boolean;
  /**
   * Upload with state only (docs/nightly.md, "Unchanged rows"): the row's source key (base64url,
   * 22 characters), then its warnings as JSON if it has some, when it is valid and has no read
   * issue; kept in the state once the service accepts its payload. An unchanged row: its key alone.
   */
  source?: string;
  /**
   * The row's source key is one the service accepted for `sku`: it was not mapped, validated or
   * serialized (no payload), since it would give the accepted bytes again.
   */
  unchanged?: true;
  /**
   * `--rejects`: an invalid row's source record as it was read (CSV: column -> text; JSON: the
   * object), so it can be written back for fixing. Only on invalid rows, only when asked for.
   */
  record?: Record<string, unknown>;
}

export type EncodingName = 'auto' | 'utf-8' | 'cp949' | 'euc-kr' | 'shift_jis' | 'utf-16le' | 'utf-16be';

/** Everything the read -> map -> build -> validate pipeline needs to know, resolved from flags/env/config. */
export interface FeedOptions {
  format: PayloadFormat;
  kind: LegacyKind;
  /** Path of a mapping file (JSON), if any. */
  mapping?: string;
  /** A shipped preset's name (`shopify`, ...) or a mapping file's path (docs/presets.md); not with `mapping`. */
  preset?: string;
  /** `FIELD=VALUE` entries filling fields the rows lack (`availability_ends=+1y`). */
  set?: string[];
  /** `--rejects`: keep each invalid row's source record on its item (FeedItem.record). */
  keepRecords?: boolean;
  /** ISO instant the run started: relative dates and sale windows count from it. Default: now. */
  runDate?: string;
  encoding: EncodingName;
  /** Undefined: sniffed. */
  delimiter?: string;
  /** Undefined: from the file extension (`-`, stdin, needs it). */
  inputType?: InputType;
  /** Language of plain (unsuffixed) text columns. */
  language: Language;
  /** Missing recommended fields become errors. */
  strict: boolean;
  /** ISO 3166 country whose time zone reads local dates and schedules the daily batch. */
  country: string;
  /**
   * The user set country / language (flag, environment or config file): they then beat a mapping
   * file's own `country` / `language`, which beat only the built-in defaults.
   */
  countryGiven?: boolean;
  languageGiven?: boolean;
}
