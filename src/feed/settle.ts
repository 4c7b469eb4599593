import type { MapProblem } from '../map/map-row.js';
import { shorten } from '../map/values.js';
import { inputTypeFromName } from '../read/input-type.js';
import { type MessagePart, renderMessage } from '../read/issues.js';
import { UsageError } from '../shared/errors.js';
import type { FeedItem, FeedOptions, Issue } from '../shared/types.js';
import { duplicateGtinProblem, GtinSet, gtinHashes, gtinNumber } from '../validate/duplicate-gtins.js';
import { hashA, hashB, SkuSet, SPILL_AT } from '../validate/duplicates.js';
import type { FeedRow } from './feed-row.js';
import { fileItem, issueOf } from './issue-of.js';

/**
 * What needs the run's rows in order, done once on the main thread whatever read and mapped
 * them (this thread, or workers a piece at a time; docs/reading.md, "Threads"): positions
 * counted from a byte range's start moved on by the ranges before it (and their messages
 * rendered then), file-level issues said once per file, the columns' warnings, duplicate SKUs.
 */

/** An item as the processor makes it: before a row, the columns its file showed anew. */
export interface ProcessedItem extends FeedItem {
  /** The row's columns differ from the row before's: the feed says their file-level warnings. */
  columns?: ColumnsSeen;
}

/**
 * A column set as a row shows it, for the file-level warnings that the feed says once per file
 * (src/feed/settle.ts, `ColumnWarnings`): which columns the mapping misses, which are unused.
 */
export interface ColumnsSeen {
  keys: string[];
  missing: { column: string; target: string }[];
  /** Unused columns (only when they are worth a warning: no mapping file, or one of `set` only). */
  ignored: string[];
  /** A known shop's export read without a mapping: the preset that reads it. */
  preset?: string;
}

/** The columns `--rejects` adds (src/report/rejects.ts). */
export const REJECTS_COLUMNS: ReadonlySet<string> = new Set(['genser_row', 'genser_line', 'genser_problem']);

/** It has a payload (or is unchanged: a product all the same) and a SKU: duplicates are checked. */
export function isChecked(item: FeedItem): boolean {
  return (item.payload !== undefined || item.unchanged === true) && item.sku !== undefined;
}

/** Where a piece of a file stands, as its rows come out. */
export interface PieceAt {
  fileIndex: number;
  /**
   * A byte range of a file cut in several (src/feed/chunker.ts): its rows and lines count from
   * its own start, and what its header causes comes with every range.
   */
  range?: { index: number; rows: number; lines: number; last: boolean };
}

/** A row as a piece hands it to the settler. */
export interface Settling {
  row: FeedRow;
  /** It has a payload (or is unchanged) and a SKU: the duplicate check applies. */
  checked: boolean;
  columns?: ColumnsSeen;
  /** Its issues' positioned messages, by issue index (byte ranges only). */
  parts?: (readonly MessagePart[] | undefined)[];
  /** Its `duplicateHashes` at `hashAt`, made by the worker that mapped it; else made here. */
  hashes?: Uint32Array;
  hashAt?: number;
  /** Its GTIN as the worker sends it (`gtinNumber`; 0: none); else made here from the row's text. */
  gtin?: number;
}

/** Words per row of `duplicateHashes`. */
export const HASH_WORDS = 4;

/**
 * A checked row's hashes for the duplicate checks, into `out` from `at`: its SKU's two, then its
 * GTIN's two (0 and 0 without one). Made where the row was mapped: the checks themselves run
 * once, here, but hashing every SKU and GTIN cost the main thread about 1 us a row.
 */
export function duplicateHashes(
  sku: string,
  gtin: string | undefined,
  out: number[] | Uint32Array,
  at: number,
): void {
  out[at] = hashA(sku);
  out[at + 1] = hashB(sku);
  const g = gtin === undefined ? undefined : gtinHashes(gtin);
  out[at + 2] = g?.[0] ?? 0;
  out[at + 3] = g?.[1] ?? 0;
}

/** A file's running state. */
interface FileState {
  index: number;
  /** File-level issues said already (byte ranges: their header's issues come with each). */
  said: Set<string>;
  /** A range's `no_rows` or `empty_file`: said at the file's end when no range had rows. */
  noRows?: FeedRow;
  hadRows: boolean;
  columns: ColumnWarnings;
}

/** What a run asks of its settler besides the feed (part of FeedRowsOptions). */
export interface SettleOptions {
  /** Told each column set of the feed once, as met, on this thread (the nightly's mapping drift). */
  onColumns?: (file: string, keys: readonly string[]) => void;
  /** Keys the duplicate checks keep in memory before moving them to disk (SPILL_AT; tests make it small). */
  spillAt?: number;
}

export class Settler {
  private readonly skus: SkuSet;
  private readonly gtins: GtinSet;
  /** The hashes of a row made on this thread. */
  private readonly hashes = new Uint32Array(HASH_WORDS);
  private file: FileState | undefined;

  constructor(
    private readonly files: string[],
    private readonly feed: FeedOptions,
    private readonly options: SettleOptions = {},
  ) {
    const spillAt = options.spillAt ?? SPILL_AT;
    this.skus = new SkuSet(1 << 14, false, spillAt);
    this.gtins = new GtinSet(spillAt);
  }

  /** One row in order, and the file-level rows said before it, into `out`. */
  take(at: PieceAt, s: Settling, out: FeedRow[]): void {
    const file = this.fileAt(at.fileIndex);
    const item = s.row;
    const range = at.range;
    // A worker says its columns at each job's first row: only a set new to the file is told on.
    if (s.columns && file.columns.isNew(s.columns)) {
      this.options.onColumns?.(item.file, s.columns.keys);
      for (const issue of file.columns.issues(item.file, s.columns)) out.push(fileItem(issue));
    }
    if (range && item.row === 0) {
      // Said once per file: what the header or the columns cause comes with every range.
      const key = fileIssueKey(item.issues[0]);
      const noRows = key.startsWith('no_rows') || key.startsWith('empty_file');
      if (noRows && range.index === 0) file.noRows = item;
      if (noRows || (range.index > 0 && file.said.has(key))) return;
      file.said.add(key);
    }
    if (range && item.row > 0) file.hadRows = true;
    if (range && range.index > 0) shift(item, range.rows, range.lines, s.parts);
    if (s.checked && item.sku !== undefined) this.checkDuplicate(item, at.fileIndex, s);
    out.push(item);
  }

  /** After a range's rows: its file's held `no_rows`, when it was the last and none had rows. */
  endRange(at: PieceAt, out: FeedRow[]): void {
    const file = this.fileAt(at.fileIndex);
    if (!at.range?.last || !file.noRows) return;
    if (!file.hadRows) out.push(file.noRows);
    file.noRows = undefined;
  }

  /** Lets go of what the duplicate checks keep on disk (a run past SPILL_AT rows). */
  close(): void {
    this.skus.close();
    this.gtins.close();
  }

  private fileAt(index: number): FileState {
    if (this.file?.index !== index) {
      const csv = (this.feed.inputType ?? inputTypeFromName(this.files[index])) === 'csv';
      this.file = { index, said: new Set(), hadRows: false, columns: new ColumnWarnings(csv) };
    }
    return this.file;
  }

  private checkDuplicate(item: FeedRow, fileIndex: number, s: Settling): void {
    const sku = item.sku as string;
    // Made by the worker that mapped the row; a row of this thread is hashed here.
    if (!s.hashes) duplicateHashes(sku, item.gtin, this.hashes, 0);
    const h = s.hashes ?? this.hashes;
    const k = s.hashes ? (s.hashAt ?? 0) : 0;
    // A repeated SKU is one error; otherwise its GTIN must not be another SKU's (docs/feeds.md).
    const gtin = s.gtin ?? gtinNumber(item.gtin);
    const dup =
      duplicateProblem(this.skus, this.feed, this.files, sku, h, k, fileIndex, item.row) ??
      (gtin === 0
        ? undefined
        : duplicateGtinProblem(this.gtins, this.files, gtin, sku, h, k, fileIndex, item.row));
    if (!dup) return;
    // A copy: issue-free rows share one empty array.
    item.issues = [...item.issues, issueOf(dup, item, item.sku)];
    item.valid = false;
    delete item.json;
    delete item.source;
    delete item.unchanged;
  }
}

/**
 * A quote left open at the end of a range that is not the file's last: the cut fell inside a
 * quoted value (the byte scan read a quote otherwise than papaparse does), and this range's
 * rows and the next's would differ from one piece's: stop rather than guess.
 */
export function checkCut(rows: readonly FeedRow[], file: string): void {
  for (const item of rows) {
    for (const issue of item.issues) {
      if (issue.code !== 'unclosed_quote') continue;
      throw new UsageError(
        `${file}: the feed workers cannot cut this file at record boundaries (a quote near line ${issue.line ?? 0} is not closed where a record ends)`,
        'Check the quotes of the value that starts there (a quoted value ends with a quote before the delimiter or the line end), or run with --threads 1 to read it in one piece.',
      );
    }
  }
}

function fileIssueKey(issue: Issue | undefined): string {
  if (!issue) return '';
  // Mixed line ends: once per file, wherever they are first seen.
  if (issue.code === 'mixed_line_ends') return issue.code;
  return `${issue.code}\u0000${issue.column ?? ''}\u0000${issue.value ?? ''}`;
}

/** Positions counted from a range's start, counted from the file's; messages rendered with them. */
function shift(item: FeedRow, rows: number, lines: number, parts: Settling['parts']): void {
  if (item.row > 0) item.row += rows;
  if (item.line > 0) item.line += lines;
  item.issues.forEach((issue, i) => {
    if (issue.row !== undefined && issue.row > 0) issue.row += rows;
    if (issue.line !== undefined && issue.line > 0) issue.line += lines;
    const p = parts?.[i];
    if (p) issue.message = renderMessage(p, rows, lines);
  });
}

/**
 * The columns' file-level warnings, once per file: before the first row of each column set
 * (one per CSV file), each column named once.
 */
class ColumnWarnings {
  private readonly reported = new Set<string>();
  private lastKeys: string[] | undefined;

  /** `fixed`: a CSV file, whose rows all carry its header's columns. */
  constructor(private readonly fixed: boolean) {}

  /** A column set other than the last one (a CSV file has one, its header's). */
  isNew(seen: ColumnsSeen): boolean {
    return !this.lastKeys || (!this.fixed && !sameList(this.lastKeys, seen.keys));
  }

  /** The warnings of a new column set (`isNew`), each column named once per file. */
  issues(file: string, seen: ColumnsSeen): Issue[] {
    if (!this.isNew(seen)) return [];
    this.lastKeys = seen.keys;
    const out: Issue[] = [];
    for (const m of seen.missing) {
      if (this.reported.has(m.column)) continue;
      this.reported.add(m.column);
      out.push({
        severity: 'warning',
        code: 'mapping_column_missing',
        file,
        column: m.column,
        field: m.target,
        message: `the mapping reads column "${m.column}" for ${m.target}, but ${file} has no such column`,
      });
    }
    // A --rejects file fed back keeps genser's own columns: they are expected, not a mistake.
    const ignored = seen.ignored.filter((c) => !this.reported.has(c) && !REJECTS_COLUMNS.has(c));
    if (seen.preset && !this.reported.has('\u0000preset')) {
      this.reported.add('\u0000preset');
      out.push({
        severity: 'warning',
        code: 'preset_suggested',
        file,
        value: seen.preset,
        message: `${file} looks like a ${seen.preset} export; read it with --preset ${seen.preset} (docs/presets.md)`,
      });
    }
    if (ignored.length > 0) {
      for (const c of ignored) this.reported.add(c);
      out.push({
        severity: 'warning',
        code: 'unused_columns',
        file,
        value: shorten(ignored.join(', '), 200),
        message: `${ignored.length} column(s) are not used: ${shorten(ignored.join(', '), 120)}; use the canonical column names (docs/feeds.md) or a mapping file (--mapping)`,
      });
    }
    return out;
  }
}

function sameList(a: string[], b: string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The `duplicate_sku` problem when `sku` was seen before in the run (and records it otherwise). */
function duplicateProblem(
  skus: SkuSet,
  options: Pick<FeedOptions, 'format' | 'kind'>,
  sources: string[],
  sku: string,
  /** The row's `duplicateHashes`, from `at`. */
  hashes: ArrayLike<number>,
  at: number,
  fileIndex: number,
  row: number,
): MapProblem | undefined {
  const { format, kind } = options;
  const first = skus.addHashed(hashes[at], hashes[at + 1], fileIndex, row);
  if (!first) return undefined;
  const where =
    first.fileIndex === fileIndex ? `row ${first.row}` : `row ${first.row} of ${sources[first.fileIndex]}`;
  return {
    code: 'duplicate_sku',
    field: format === 'standard' ? 'sku' : kind === 'filters' ? 'name' : 'code',
    value: sku,
    message: `${format === 'standard' ? 'SKU' : kind === 'filters' ? 'filter' : 'code'} ${sku} appears again; first seen at ${where}`,
    hint: 'each product must appear once per feed; the later row would overwrite the earlier one',
  };
}
