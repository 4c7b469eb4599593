import { priceOf } from '../payload/price.js';
import { type BadBytes, BadBytesError } from '../read/bad-bytes.js';
import { type MessagePart, messageParts } from '../read/issues.js';
import type { Cut } from '../read/plan.js';
import { type ExitCodeValue, ExitError } from '../shared/errors.js';
import { grownFrom } from '../shared/typed-arrays.js';
import type { FeedItem, FeedOptions, Issue, ReadItem } from '../shared/types.js';
import { gtinNumber } from '../validate/duplicate-gtins.js';
import type { FeedRow } from './feed-row.js';
import type { KnownSourcesData } from './known-sources.js';
import {
  type ColumnsSeen,
  duplicateHashes,
  HASH_WORDS,
  isChecked,
  type ProcessedItem,
  type Settling,
} from './settle.js';

/**
 * The one job protocol between the feed and its workers (src/feed/worker.ts). A job is a byte
 * range of whole records of a file that can be cut (the worker decodes, parses, maps, validates
 * and serializes it), or a batch of records read here (files that cannot be cut: gzip, UTF-16,
 * stdin, JSON arrays, rows a preset's transform reshaped). Each job carries the accepted source
 * keys (shared memory: a job carries a view, not a copy). The answer holds the rows compactly:
 * issue-free valid rows as typed arrays, only the others whole, the payloads' JSON in one
 * transferred buffer (cloning an object per row cost the main thread more than the rest of its
 * work: BENCHMARKS.md, "The worker pool").
 */
export interface WorkerInput {
  files: string[];
  /** The run's options, its date frozen (src/feed/run.ts). */
  feed: FeedOptions;
  serialize: boolean;
  /**
   * Source keys: each row keyed with this settings digest, the known ones skipped
   * (docs/nightly.md, "Unchanged rows").
   */
  keyed?: { settings: string };
}

export type Job = RangeJob | RecordsJob;

export interface RangeJob {
  kind: 'range';
  fileIndex: number;
  cut: Cut;
  /** The file's header (CSV: with an Excel `sep=` line), decoded; every range of the file has it. */
  header: string;
  /** Whole records; transferred. */
  body: Uint8Array;
  autoEncoding: boolean;
  notUtf8?: { offset: number; byte: number };
  known?: KnownSourcesData;
}

export interface RecordsJob {
  kind: 'records';
  fileIndex: number;
  items: WireRead[];
  /** The columns of the flat records sent as values (`WireRead`). */
  keys?: string[];
  known?: KnownSourcesData;
}

/**
 * A read on its way to a worker. Flat records whose columns are the batch's `keys` travel as
 * their values only: an array of strings clones about 3x cheaper than an object that repeats
 * every column name (BENCHMARKS.md); the worker rebuilds the same object.
 */
export type WireRead =
  | ReadItem
  | { type: 'values'; file: string; row: number; line: number; values: unknown[] };

export interface JobResult {
  /** Item i's row and line (a range's: counted from its start; 0: a file-level issue). */
  row: Int32Array;
  line: Int32Array;
  skus: (string | undefined)[];
  /** Item i's GTIN as a number (`gtinNumber`; 0: none), not as text (BENCHMARKS.md, "Stop 42"). */
  gtins: Float64Array;
  /** 1: item i had a payload (or is unchanged) and a SKU, so the duplicate check applies. */
  checked: Uint8Array;
  /** Item i's `duplicateHashes` from HASH_WORDS * i (zeros when it is not checked). */
  hashes: Uint32Array;
  /** Items with issues or invalid, whole (without payload): [i, item]. */
  others: [number, FeedItem][];
  /** Positioned messages of item i's issues (by issue index). */
  parts: [number, (readonly MessagePart[] | undefined)[]][];
  /** Column sets seen anew before item i. */
  columns: [number, ColumnsSeen][];
  /** A range: the data rows it held (its last row number) and its line feeds. */
  rows: number;
  lines: number;
  /** Item i's payload bytes end at ends[i] (-1: none); its price (`priceOf`) is prices[i], NaN when it has none. */
  json?: { bytes: Uint8Array; ends: Int32Array; prices: Float64Array };
  /** With source keys: item i's key, and 1 when it is unchanged. */
  sources?: (string | undefined)[];
  unchanged?: Uint8Array;
  /** A failure after the items (bad bytes, say): the run stops there. */
  error?: JobError;
}

export interface JobError {
  code?: ExitCodeValue;
  m: string;
  hint?: string;
  stack?: string;
  /** Bad bytes, their offset and line counted from the range's start. */
  bytes?: BadBytes;
}

/** Shared by every issue-free row; nobody mutates it. */
const NO_ISSUES: Issue[] = [];

/** A worker's answer in the making: what `JobResult` says, one item at a time. */
export class ResultPacker {
  private readonly row: number[] = [];
  private readonly line: number[] = [];
  private readonly skus: (string | undefined)[] = [];
  private gtins = new Float64Array(256);
  private readonly checked: number[] = [];
  /**
   * Typed, not a number[]: hashes above 2^30 turned the array's elements from small integers to
   * doubles at a different row in each job, and each such change threw away `add`'s optimized
   * code (TurboFan compiled it four times per run, ~50 ms each). Unchecked rows keep zeros.
   */
  private hashes = new Uint32Array(HASH_WORDS * 256);
  private readonly others: [number, FeedItem][] = [];
  private readonly parts: JobResult['parts'] = [];
  private readonly columns: JobResult['columns'] = [];
  private readonly sources: (string | undefined)[] = [];
  private readonly unchanged: number[] = [];
  private readonly ends: number[] = [];
  private readonly prices: number[] = [];
  private readonly json: JsonBytes | undefined;
  private maxRow = 0;

  constructor(
    serialize: boolean,
    private readonly keyed: boolean,
  ) {
    if (serialize) this.json = new JsonBytes();
  }

  add(item: ProcessedItem): void {
    const i = this.row.length;
    if (item.row > this.maxRow) this.maxRow = item.row;
    this.row.push(item.row);
    this.line.push(item.line);
    this.skus.push(item.sku);
    const checked = isChecked(item);
    this.checked.push(checked ? 1 : 0);
    if (i === this.gtins.length) {
      this.gtins = grownFrom(new Float64Array(i * 2), this.gtins);
      this.hashes = grownFrom(new Uint32Array(HASH_WORDS * i * 2), this.hashes);
    }
    this.gtins[i] = gtinNumber(item.gtin);
    if (checked) duplicateHashes(item.sku as string, item.gtin, this.hashes, HASH_WORDS * i);
    if (item.columns) this.columns.push([i, item.columns]);
    if (this.keyed) {
      this.sources.push(item.source);
      this.unchanged.push(item.unchanged ? 1 : 0);
    }
    if (this.json) {
      const payload = item.valid ? item.payload : undefined;
      this.ends.push(payload !== undefined ? this.json.add(JSON.stringify(payload)) : -1);
      // Read from the object here, ~0.2 us; scanning its bytes later costs ~8 us (src/payload/price.ts).
      this.prices.push((payload !== undefined ? priceOf(payload) : undefined) ?? Number.NaN);
    }
    if (!item.valid || item.issues.length > 0) {
      const { payload: _payload, columns: _columns, ...rest } = item;
      this.others.push([i, rest]);
      // Made only for an item with positioned messages (the array `map` made for every other
      // item differed in kind from one to the next, and each new kind deoptimized `add`).
      let parts: (readonly MessagePart[] | undefined)[] | undefined;
      const issues = item.issues;
      for (let k = 0; k < issues.length; k++) {
        const p = messageParts(issues[k]);
        if (p === undefined) continue;
        parts ??= new Array(issues.length).fill(undefined);
        parts[k] = p;
      }
      if (parts) this.parts.push([i, parts]);
    }
  }

  finish(lines: number, err?: unknown): { result: JobResult; transfer: ArrayBuffer[] } {
    const row = Int32Array.from(this.row);
    const line = Int32Array.from(this.line);
    const checked = Uint8Array.from(this.checked);
    const hashes = this.hashes.subarray(0, HASH_WORDS * this.row.length);
    const gtins = this.gtins.subarray(0, this.row.length);
    const result: JobResult = {
      row,
      line,
      skus: this.skus,
      gtins,
      checked,
      hashes,
      others: this.others,
      parts: this.parts,
      columns: this.columns,
      rows: this.maxRow,
      lines,
    };
    const transfer: ArrayBuffer[] = [row.buffer, line.buffer, checked.buffer, hashes.buffer, gtins.buffer];
    if (this.keyed) {
      const unchanged = Uint8Array.from(this.unchanged);
      result.sources = this.sources;
      result.unchanged = unchanged;
      transfer.push(unchanged.buffer);
    }
    if (this.json) {
      const ends = Int32Array.from(this.ends);
      const prices = Float64Array.from(this.prices);
      result.json = { bytes: new Uint8Array(this.json.bytes.buffer, 0, this.json.used), ends, prices };
      transfer.push(ends.buffer, prices.buffer, this.json.bytes.buffer as ArrayBuffer);
    }
    if (err !== undefined) result.error = jobError(err);
    return { result, transfer };
  }
}

function jobError(err: unknown): JobError {
  if (err instanceof BadBytesError)
    return { code: err.exitCode, m: err.message, hint: err.hint, bytes: err.detail };
  if (err instanceof ExitError) return { code: err.exitCode, m: err.message, hint: err.hint };
  return { m: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack };
}

/** The error a job ended with, its bad bytes' offset and line moved on by what came before. */
export function errorOf(e: JobError, offset: number, lines: number): Error {
  if (e.bytes) {
    const b = e.bytes;
    return new BadBytesError({
      ...b,
      byteOffset: b.byteOffset + offset,
      line: b.line === undefined ? undefined : b.line + lines,
    });
  }
  if (e.code !== undefined) return new ExitError(e.code, e.m, e.hint);
  const err = new Error(e.m);
  if (e.stack) err.stack = e.stack;
  return err;
}

/** A job's rows, in order, each handed to `take` with what the settler needs of it. */
export function settleResult(r: JobResult, file: string, take: (s: Settling) => void): void {
  let other = 0;
  let part = 0;
  let column = 0;
  let start = 0;
  for (let i = 0; i < r.row.length; i++) {
    let row: FeedRow;
    if (other < r.others.length && r.others[other][0] === i) row = r.others[other++][1];
    else {
      row = { file, row: r.row[i], line: r.line[i], issues: NO_ISSUES, valid: true };
      const sku = r.skus[i];
      if (sku !== undefined) row.sku = sku;
      if (r.sources?.[i] !== undefined) row.source = r.sources[i];
      if (r.unchanged?.[i] === 1) row.unchanged = true;
    }
    if (r.json !== undefined) {
      const end = r.json.ends[i];
      // Views into the job's buffer, no copy: the batch body copies them once when it is built.
      if (end >= 0) {
        row.json = r.json.bytes.subarray(start, end);
        const price = r.json.prices[i];
        row.price = Number.isNaN(price) ? null : price;
        start = end;
      }
    }
    const parts = part < r.parts.length && r.parts[part][0] === i ? r.parts[part++][1] : undefined;
    const columns =
      column < r.columns.length && r.columns[column][0] === i ? r.columns[column++][1] : undefined;
    take({
      row,
      checked: r.checked[i] === 1,
      columns,
      parts,
      hashes: r.hashes,
      hashAt: HASH_WORDS * i,
      gtin: r.gtins[i],
    });
  }
}

/**
 * Valid rows' payload JSON as UTF-8 in one growing buffer; row i's bytes end at ends[i]. It
 * starts at the size the last job of this thread needed (jobs are alike), so it is seldom copied
 * as it grows: from 64 KiB each time, a job of 256 rows copied about a megabyte.
 */
class JsonBytes {
  private static lastUsed = 0;
  /** 64 KiB or more: never from Node's shared pool, so it can be transferred. */
  bytes = Buffer.allocUnsafeSlow(Math.max(64 * 1024, Math.ceil(JsonBytes.lastUsed * 1.25)));
  used = 0;

  add(text: string): number {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const need = this.used + text.length * 3;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    JsonBytes.lastUsed = this.used;
    return this.used;
  }
}
