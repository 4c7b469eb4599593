import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Papa from 'papaparse';
import { REJECTS_COLUMNS } from '../feed/settle.js';
import { inputTypeFromName, type ReadOptions, readFeed, sourceName, streamedSource } from '../read/index.js';
import { errorMessage } from '../shared/errors.js';
import { errorsOnly, type Logger } from '../shared/logger.js';
import { removeDeadTemps } from '../shared/output-file.js';
import { redact } from '../shared/secrets.js';
import type { FeedItem, InputType } from '../shared/types.js';

/**
 * `--rejects FILE` (docs/upload.md, "Fixing refused rows"): every row genser refused (invalid)
 * or the service rejected (400, processCode FAIL), as it was in the source, plus `genser_row`,
 * `genser_line` and `genser_problem`, so the file can be fixed and fed back. CSV in, CSV out;
 * JSON or NDJSON in, NDJSON out (a JSON array's elements one per line: the file streams and
 * genser reads it back). Invalid rows are written as they pass, from the record their item
 * carries; rows known only by number (a duplicate SKU, a row the service rejected) are read
 * again from their file at the end. A feed from stdin or a URL cannot be read twice: its bytes
 * are copied, as they are read, to a temporary file beside FILE (`copyOf`), where those rows are
 * read again; the copy is removed at the end. Memory does not grow with the feed; the disk holds
 * one copy of it while the run goes.
 */

const EXTRA = [...REJECTS_COLUMNS];
const FLUSH_BYTES = 64 * 1024;

/** The copy of a source read once: where, and whether it holds the whole source. */
interface SourceCopy {
  path: string;
  complete: boolean;
  /** Why the copy stopped (a full disk): the rows past it cannot be read again. */
  failed?: string;
}

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
  /** Copies of the sources read once, by source name. */
  private readonly copies = new Map<string, SourceCopy>();
  written = 0;
  /** Why rows could not be written (said with their count). */
  readonly notes: string[] = [];
  /**
   * Columns of a later CSV file that the rejects file's header (the first written row's) lacks:
   * their values are not in the file, and `finishRejects` says so.
   */
  readonly leftOut = new Set<string>();

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
   * The bytes of a source read once (stdin, a URL), passed on as they are while a copy of them
   * is written beside FILE. A copy that cannot be written (a full disk) stops; the run goes on.
   */
  copyOf = (source: string, bytes: AsyncIterable<Buffer>): AsyncIterable<Buffer> => {
    const name = sourceName(source);
    const earlier = this.copies.get(name);
    if (earlier) removeCopy(earlier.path);
    // Named as src/shared/output-file.ts names its temporary files: a killed run's are removed later.
    const stem = join(dirname(this.path), `${basename(this.path)}.source-${this.copies.size + 1}`);
    removeDeadTemps(stem);
    const copy: SourceCopy = {
      path: join(dirname(stem), `.${basename(stem)}.genser-${process.pid}.tmp`),
      complete: false,
    };
    this.copies.set(name, copy);
    return copying(bytes, copy);
  };

  /**
   * Reads the owed rows again from `files` (a source read once: from its copy), writes them and
   * closes the file; the copies are removed. Returns how many owed rows could not be written.
   */
  async finish(files: string[], read: ReadOptions, log: Logger): Promise<number> {
    let missed = 0;
    try {
      for (const source of files) {
        const owed = this.owed.get(sourceName(source));
        if (!owed || owed.size === 0) continue;
        this.owed.delete(sourceName(source));
        await this.readAgain(source, owed, read, log);
        missed += owed.size;
      }
      for (const rest of this.owed.values()) missed += rest.size;
    } finally {
      for (const copy of this.copies.values()) removeCopy(copy.path);
      this.flush();
      closeSync(this.fd);
    }
    return missed;
  }

  /** The owed rows of one source, from the source or its copy; those written leave `owed`. */
  private async readAgain(source: string, owed: Map<number, Owed>, read: ReadOptions, log: Logger) {
    const name = sourceName(source);
    const copy = streamedSource(source) ? this.copies.get(name) : undefined;
    if (streamedSource(source) && !copy) {
      this.notes.push(`${name} was read once and not copied`);
      return;
    }
    const from = copy ? copy.path : source;
    const options = { ...read, inputType: read.inputType ?? inputTypeFromName(source), remote: undefined };
    // A copy cut short (a full disk, a read stopped) may end inside a record: its last one is not trusted.
    let held: { fields: Record<string, unknown>; row: number; owed: Owed } | undefined;
    try {
      for await (const item of readFeed(from, options, errorsOnly(log))) {
        if (item.type !== 'record') continue;
        // Another record follows the one held: that one was whole.
        if (held) this.write(held.fields, held.row, held.owed.line, held.owed.problem);
        held = undefined;
        const o = owed.get(item.record.row);
        if (!o) continue;
        owed.delete(item.record.row);
        if (copy && !copy.complete) held = { fields: item.record.fields, row: item.record.row, owed: o };
        else this.write(item.record.fields, item.record.row, o.line, o.problem);
        if (owed.size === 0 && !held) break;
      }
    } catch (err) {
      if (!copy) throw err;
      // A copy cut short may end badly (a gzip cut in two): what it held whole is written.
      if (copy.complete)
        this.notes.push(`the copy of ${name} could not be read again (${errorMessage(err)})`);
    }
    if (held) owed.set(held.row, held.owed);
    if (owed.size === 0 || !copy || copy.complete) return;
    if (copy.failed)
      this.notes.push(`the copy of ${name} beside ${this.path} could not be written (${copy.failed})`);
    else if (!copy.complete) this.notes.push(`${name} was not read to its end`);
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
    // Another file's columns: each value under its own name; a column this header lacks is named.
    const values = this.header.map((k) => text(record[k]));
    for (const k in record) if (!this.header.includes(k)) this.leftOut.add(k);
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

/** A copy removed; one that cannot be (not a file of ours) is left, never a reason to fail the run. */
function removeCopy(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // left for its owner
  }
}

/** Passes `bytes` on, writing each chunk to the copy first (sync, as the rejects file itself). */
async function* copying(bytes: AsyncIterable<Buffer>, copy: SourceCopy): AsyncGenerator<Buffer> {
  let fd: number | undefined;
  const fail = (err: unknown) => {
    copy.failed = (err as NodeJS.ErrnoException).code ?? errorMessage(err);
    if (fd !== undefined) closeSync(fd);
    fd = undefined;
  };
  try {
    fd = openSync(copy.path, 'w');
  } catch (err) {
    fail(err);
  }
  try {
    for await (const chunk of bytes) {
      if (fd !== undefined)
        try {
          for (let at = 0; at < chunk.length; ) at += writeSync(fd, chunk, at);
        } catch (err) {
          fail(err);
        }
      yield chunk;
    }
    copy.complete = copy.failed === undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
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
