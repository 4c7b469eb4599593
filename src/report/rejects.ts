import { closeSync, openSync, writeSync } from 'node:fs';
import Papa from 'papaparse';
import { REJECTS_COLUMNS } from '../feed/settle.js';
import { inputTypeFromName, type ReadOptions, readFeed, sourceName, streamedSource } from '../read/index.js';
import { errorsOnly, type Logger } from '../shared/logger.js';
import { redact } from '../shared/secrets.js';
import type { FeedItem, InputType } from '../shared/types.js';

/**
 * `--rejects FILE` (docs/upload.md, "Fixing refused rows"): every row genser refused (invalid)
 * or the service rejected (400, processCode FAIL), as it was in the source, plus `genser_row`,
 * `genser_line` and `genser_problem`, so the file can be fixed and fed back. CSV in, CSV out;
 * JSON or NDJSON in, NDJSON out (a JSON array's elements one per line: the file streams and
 * genser reads it back). Invalid rows are written as they pass, from the record their item
 * carries; rows known only by number (a duplicate SKU, a row the service rejected) are read
 * again from their file at the end; a feed from stdin or a URL cannot be read twice, so those
 * are counted and said instead.
 */

const EXTRA = [...REJECTS_COLUMNS];
const FLUSH_BYTES = 64 * 1024;

interface Owed {
  line: number;
  problem: string;
}

export type RejectsKind = 'csv' | 'ndjson';

/** CSV for CSV input, NDJSON for JSON and NDJSON input (by --input-type, else the first name). */
export function rejectsKind(files: string[], inputType: InputType | undefined): RejectsKind {
  const type = inputType ?? (files[0] === undefined ? undefined : inputTypeFromName(files[0]));
  return type === 'csv' ? 'csv' : 'ndjson';
}

/** The errors of a row, one line (warnings are not why it was refused). */
export function problemOf(item: Pick<FeedItem, 'issues'>): string {
  const errors = item.issues.filter((i) => i.severity === 'error');
  return redact((errors.length > 0 ? errors : item.issues).map((i) => i.message).join('; '));
}

export class RejectsFile {
  private readonly fd: number;
  private header: string[] | undefined;
  private buffered: string[] = [];
  private bytes = 0;
  /** Rows to read again at the end, by source name then row number. */
  private readonly owed = new Map<string, Map<number, Owed>>();
  written = 0;

  constructor(
    readonly path: string,
    private readonly kind: RejectsKind,
  ) {
    this.fd = openSync(path, 'w');
  }

  /** An item of the feed: written when it is an invalid row (now, or at the end without its record). */
  refused(item: FeedItem): void {
    if (item.valid || item.row === 0) return;
    const problem = problemOf(item);
    if (item.record) this.write(item.record, item.row, item.line, problem);
    else this.owe(item.file, item.row, item.line, problem);
  }

  /** A row the service rejected: read again from its file at the end. */
  rejected(file: string, row: number, line: number, message: string): void {
    this.owe(file, row, line, redact(message));
  }

  /**
   * Reads the owed rows again from `files` (local files only), writes them and closes the file.
   * Returns how many owed rows could not be written (stdin, URL, gone).
   */
  async finish(files: string[], read: ReadOptions, log: Logger): Promise<number> {
    let missed = 0;
    for (const source of files) {
      const owed = this.owed.get(sourceName(source));
      if (!owed || owed.size === 0) continue;
      this.owed.delete(sourceName(source));
      if (streamedSource(source)) {
        missed += owed.size;
        continue;
      }
      for await (const item of readFeed(source, { ...read, remote: undefined }, errorsOnly(log))) {
        if (item.type !== 'record') continue;
        const o = owed.get(item.record.row);
        if (!o) continue;
        this.write(item.record.fields, item.record.row, o.line, o.problem);
        owed.delete(item.record.row);
        if (owed.size === 0) break;
      }
      missed += owed.size;
    }
    for (const rest of this.owed.values()) missed += rest.size;
    this.flush();
    closeSync(this.fd);
    return missed;
  }

  private owe(file: string, row: number, line: number, problem: string): void {
    let rows = this.owed.get(file);
    if (!rows) {
      rows = new Map();
      this.owed.set(file, rows);
    }
    const before = rows.get(row);
    rows.set(row, { line, problem: before ? `${before.problem}; ${problem}` : problem });
  }

  private write(source: Record<string, unknown>, row: number, line: number, problem: string): void {
    this.written++;
    // A rejects file fed back: its own genser_ columns are replaced, not repeated.
    const record = withoutOwnColumns(source);
    if (this.kind === 'ndjson') {
      this.push(
        `${JSON.stringify({ ...record, genser_row: row, genser_line: line, genser_problem: problem })}\n`,
      );
      return;
    }
    if (!this.header) {
      this.header = Object.keys(record);
      this.push(`${Papa.unparse([[...this.header, ...EXTRA]], { newline: '\n' })}\n`);
    }
    // Another file's columns: each value under its own name (a column this header lacks is dropped).
    const values = this.header.map((k) => text(record[k]));
    this.push(`${Papa.unparse([[...values, String(row), String(line), problem]], { newline: '\n' })}\n`);
  }

  private push(text: string): void {
    this.buffered.push(text);
    this.bytes += text.length;
    if (this.bytes >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.buffered.length === 0) return;
    writeSync(this.fd, this.buffered.join(''));
    this.buffered = [];
    this.bytes = 0;
  }
}

function withoutOwnColumns(record: Record<string, unknown>): Record<string, unknown> {
  if (!EXTRA.some((c) => c in record)) return record;
  const copy = { ...record };
  for (const c of EXTRA) delete copy[c];
  return copy;
}

function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
