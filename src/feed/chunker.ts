/**
 * Cuts a feed's bytes into chunks of whole records for the worker pool (docs/reading.md,
 * "Threads"). Pure: bytes in, chunks out; no decoding and no parsing. A cut is made after a
 * line feed that lies outside quoted values: the scan looks for `"` and `\n` with
 * `Buffer#indexOf` (and at the bytes around a quote: papaparse's quoting rules), and whether it
 * is inside quotes is carried from piece to piece. In UTF-8,
 * CP949 and Shift_JIS, 0x22 and 0x0A are never part of a multi-byte character, so a cut never
 * splits one (src/read/plan.ts, CutEncoding; UTF-16 is never cut).
 *
 * CSV: the header record (with an Excel `sep=` line and blank lines before it) is kept apart
 * and handed with every chunk, so each chunk parses on its own. NDJSON: cuts at any line feed.
 */
export type ChunkKind = 'csv' | 'ndjson';

export interface FeedChunk {
  /** Bytes before the first record (CSV header, `sep=` line); empty for NDJSON. BOM stripped. */
  header: Buffer;
  /** Whole records; owns its ArrayBuffer (can be transferred). */
  body: Buffer;
  /** Offset of `body` in the file, BOM included (for messages about bad bytes). */
  offset: number;
  /** 0, 1, 2, ... in file order. */
  index: number;
}

export interface ChunkerOptions {
  /** A chunk is cut at the last record boundary once this many bytes are pending. */
  target: number;
  /** The CSV delimiter, one ASCII character (`,` when not given): a quote opens a value only after it. */
  delimiter?: string;
}

/** About 2 MiB: large enough that a message per chunk costs nothing, small enough to spread. */
export const CHUNK_TARGET = 2 * 1024 * 1024;

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Whitespace papaparse allows between a closing quote and the delimiter or line break. */
const isBlank = (b: number) => b === 0x20 || b === 0x09;

export class Chunker {
  private parts: Buffer[] = [];
  private pending = 0;
  /** Inside a quoted CSV value at the end of what was scanned. */
  private inQuotes = false;
  /**
   * Inside quotes, a quote ended the bytes scanned (`quote`), or a quote and blanks did
   * (`blank`): whether it closes the value depends on the bytes still to come.
   */
  private undecided: 'quote' | 'blank' | undefined;
  /** The last byte scanned (a line feed at the start: a record starts there). */
  private prev = LF;
  private readonly delimiter: number;
  /** Boundary (just after an LF outside quotes) nearest the end of `pending`; 0: none. */
  private lastCut = 0;
  private header: Buffer | undefined;
  private offset = 0;
  private index = 0;
  private started = false;

  constructor(
    private readonly kind: ChunkKind,
    private readonly options: ChunkerOptions = { target: CHUNK_TARGET },
  ) {
    if (kind === 'ndjson') this.header = Buffer.alloc(0);
    this.delimiter = (options.delimiter ?? ',').charCodeAt(0);
  }

  /** Adds bytes; returns the chunks that are complete. */
  push(bytes: Buffer): FeedChunk[] {
    if (!this.started) {
      // Wait for three bytes to see a BOM (pieces may be tiny in tests).
      if (this.pending + bytes.length < 3) {
        this.parts.push(bytes);
        this.pending += bytes.length;
        return [];
      }
      this.started = true;
      const all = this.take(this.pending, bytes);
      bytes = all;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
        bytes = bytes.subarray(3);
        this.offset = 3;
      }
    }
    if (bytes.length === 0) return [];
    const base = this.pending;
    this.parts.push(bytes);
    this.pending += bytes.length;
    this.scan(bytes, base);
    const out: FeedChunk[] = [];
    if (this.header === undefined) this.findHeader();
    while (this.header !== undefined && this.pending >= this.options.target && this.lastCut > 0) {
      out.push(this.cut(this.lastCut));
      this.rescan();
    }
    return out;
  }

  /** The rest: the last chunk (possibly empty when the input ended on a boundary). */
  end(): FeedChunk[] {
    if (!this.started) {
      this.started = true;
      let all = this.take(this.pending);
      if (all[0] === 0xef && all[1] === 0xbb && all[2] === 0xbf) {
        all = all.subarray(3);
        this.offset = 3;
      }
      this.parts = all.length > 0 ? [all] : [];
      this.pending = all.length;
    }
    if (this.header === undefined) {
      this.findHeader();
      // No boundary after the header: it is all header (a header-only file, or one record).
      if (this.header === undefined) {
        this.header = this.take(this.pending);
        this.offset += this.header.length;
      }
    }
    if (this.pending === 0 && this.index > 0) return [];
    return [this.cut(this.pending)];
  }

  /**
   * Updates the quote state and the last boundary over `bytes`, which start at `base`. The
   * quotes are read as papaparse reads them (on one thread): a quote opens a value only at its
   * start (after the delimiter or a line break), so `5" screen` is a plain character; inside a
   * value `""` is a quote, and a quote closes the value only when blanks at most stand between
   * it and the delimiter or a line break; any other quote is part of the value (papaparse's
   * reading; a malformed value ends the same way here and there).
   */
  private scan(bytes: Buffer, base: number): void {
    if (this.kind === 'ndjson') {
      const lf = bytes.lastIndexOf(LF);
      if (lf !== -1) this.lastCut = base + lf + 1;
      return;
    }
    const n = bytes.length;
    if (n === 0) return;
    let i = this.undecided ? this.decide(bytes, 0) : 0;
    while (i < n) {
      const q = bytes.indexOf(QUOTE, i);
      if (!this.inQuotes) {
        const end = q === -1 ? n : q;
        // The last line feed of this stretch outside quotes.
        if (end > i) {
          const lf = bytes.lastIndexOf(LF, end - 1);
          if (lf >= i) this.lastCut = base + lf + 1;
        }
        if (q === -1) break;
        const before = q > 0 ? bytes[q - 1] : this.prev;
        if (before === this.delimiter || before === LF || before === CR) this.inQuotes = true;
        i = q + 1;
        continue;
      }
      if (q === -1) break;
      this.undecided = 'quote';
      i = this.decide(bytes, q + 1);
    }
    this.prev = bytes[n - 1];
  }

  /**
   * Inside quotes, after a quote (and blanks, when `undecided` is `blank`) that ended at `from`:
   * closes the value, keeps it open, or leaves it undecided at the end of `bytes`. Returns where
   * to scan on (a line feed that closed the value is scanned again, as a boundary).
   */
  private decide(bytes: Buffer, from: number): number {
    const n = bytes.length;
    if (from === n) return n;
    if (this.undecided === 'quote' && bytes[from] === QUOTE) {
      this.undecided = undefined;
      return from + 1; // `""`: a quote inside the value
    }
    let j = from;
    while (j < n && bytes[j] !== this.delimiter && isBlank(bytes[j])) j++;
    if (j === n) {
      this.undecided = 'blank';
      return n;
    }
    this.undecided = undefined;
    // A CR is a line break too: CRLF, or CR in a file whose line ends the reader finds mixed.
    const b = bytes[j];
    if (b === this.delimiter || b === LF || b === CR) this.inQuotes = false;
    return j;
  }

  /** After a cut: the boundaries are found again in what is left (its quote state is known). */
  private rescan(): void {
    this.lastCut = 0;
    // The quote state at a cut is "outside", at a record's start; scan the rest from there.
    this.inQuotes = false;
    this.undecided = undefined;
    this.prev = LF;
    let base = 0;
    for (const part of this.parts) {
      this.scan(part, base);
      base += part.length;
    }
  }

  /** The header ends at the first boundary after a line that is neither blank nor `sep=`. */
  private findHeader(): void {
    const all = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts);
    this.parts = all.length > 0 ? [all] : [];
    let inQuotes = false;
    let lineStart = 0;
    for (let i = 0; i < all.length; i++) {
      const b = all[i];
      if (b === QUOTE) {
        // Quotes as in `scan`: a value opens at its start; `""` inside; a close before the delimiter or a break.
        if (!inQuotes) inQuotes = i === 0 || [this.delimiter, LF, CR].includes(all[i - 1]);
        else if (all[i + 1] === QUOTE) i++;
        else {
          let j = i + 1;
          while (j < all.length && all[j] !== this.delimiter && isBlank(all[j])) j++;
          // Undecided at the end: the header is looked for again with more bytes.
          if (j < all.length && [this.delimiter, LF, CR].includes(all[j])) inQuotes = false;
        }
      } else if (b === LF && !inQuotes) {
        const line = all.subarray(lineStart, i);
        const blank = line.every((c) => c === 0x20 || c === 0x09 || c === 0x0d);
        const sep = lineStart === 0 && line.subarray(0, 4).toString('latin1') === 'sep=';
        lineStart = i + 1;
        if (blank || sep) continue;
        this.header = Buffer.from(all.subarray(0, lineStart));
        this.offset += lineStart;
        this.parts = [all.subarray(lineStart)];
        this.pending = all.length - lineStart;
        this.inQuotes = false;
        this.rescan();
        return;
      }
    }
  }

  /** The first `length` pending bytes, in a buffer of their own; `extra` is appended first. */
  private take(length: number, extra?: Buffer): Buffer {
    if (extra) {
      this.parts.push(extra);
      this.pending += extra.length;
      length += extra.length;
    }
    const out = Buffer.allocUnsafeSlow(length);
    let at = 0;
    while (at < length) {
      const part = this.parts[0];
      const n = Math.min(part.length, length - at);
      part.copy(out, at, 0, n);
      at += n;
      if (n === part.length) this.parts.shift();
      else this.parts[0] = part.subarray(n);
    }
    this.pending -= length;
    return out;
  }

  private cut(length: number): FeedChunk {
    const body = this.take(length);
    const chunk: FeedChunk = { header: this.header!, body, offset: this.offset, index: this.index++ };
    this.offset += length;
    return chunk;
  }
}
