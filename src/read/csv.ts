import Papa from 'papaparse';
import type { ReadItem } from '../shared/types.js';
import { InvalidBytesError, invalidBytesUsage } from './bad-bytes.js';
import { issueItem, lineAt, positioned, readIssue, rowAt } from './issues.js';
import { FIELD_LIMIT, PARSE_CHUNK, PENDING_LIMIT } from './limits.js';
import { foreignBreakAt, lineEndName, normaliseBreaks } from './line-ends.js';
import { NUL, nulField, nulHeaderIssue, nulIssue } from './nul.js';
import { type RecordMaker, recordMaker } from './record-maker.js';
import { excelSepLine, guessNewline, type Newline, sniffDelimiter } from './sniff.js';

export interface CsvOptions {
  file: string;
  /** Undefined: sniffed from the first rows. */
  delimiter?: string;
  /** The encoding was auto-detected (worded into the message for bad bytes). */
  autoEncoding: boolean;
  /** Characters gathered before each parse (tests make it small to cross many piece boundaries). */
  parseChunk?: number;
  /** Longest unfinished row kept (tests make it small). */
  pendingLimit?: number;
  /** True while no byte read so far can be a NUL (`NulWatch`): no piece is searched for one then. */
  nulFree?: () => boolean;
}

interface PapaResult {
  data: string[][];
  errors: Array<{ code: string; row: number; index: number }>;
  meta: { cursor: number };
}

/** Text gathered before the line break and the delimiter are sniffed. */
const SNIFF_TEXT = 64 * 1024;

/** Occurrences of the character `code` in text[from, to). */
function countChar(text: string, char: string, from = 0, to = text.length): number {
  let count = 0;
  let at = text.indexOf(char, from);
  while (at !== -1 && at < to) {
    count++;
    at = text.indexOf(char, at + 1);
  }
  return count;
}

/**
 * Streams CSV records from decoded text. Papaparse's own Parser does the splitting, fed pieces
 * of about PARSE_CHUNK characters; the unfinished last row is carried into the next piece.
 * Lines are counted per piece: only pieces whose line breaks outnumber their rows (quoted
 * fields holding line breaks) pay for counting per row.
 */
export async function* readCsv(texts: AsyncIterable<string>, options: CsvOptions): AsyncGenerator<ReadItem> {
  const reader = new CsvReader(options);
  const out: ReadItem[] = [];
  let parts: string[] = [];
  let partsLength = 0;
  let pending = '';
  const chunk = options.parseChunk ?? PARSE_CHUNK;
  let need = chunk;
  try {
    for await (const text of texts) {
      parts.push(text);
      partsLength += text.length;
      if (partsLength < need) continue;
      const joined = parts.length === 1 ? parts[0] : parts.join('');
      parts = [];
      partsLength = 0;
      // Decoded texts are larger than a piece: parse them a piece at a time, so that a piece's
      // rows are mapped and validated while its text is still in the CPU's cache.
      let at = 0;
      while (at < joined.length) {
        // An unfinished row is parsed again with the next piece: take as much new text as it
        // holds, so a long row costs linear, not quadratic, time.
        const size = Math.max(chunk, pending.length);
        const end = joined.length - at < 2 * size ? joined.length : at + size;
        pending = reader.feed(
          pending + (at === 0 && end === joined.length ? joined : joined.slice(at, end)),
          false,
          out,
        );
        at = end;
        for (let i = 0; i < out.length; i++) yield out[i];
        out.length = 0;
      }
      need = Math.max(chunk, pending.length);
    }
  } catch (err) {
    if (err instanceof InvalidBytesError) {
      const text = pending + parts.join('') + err.textBefore;
      const line = reader.lineAt(text);
      // The complete rows before the bad byte are still rows: out with them, then the error.
      reader.feed(text, false, out);
      for (let i = 0; i < out.length; i++) yield out[i];
      throw invalidBytesUsage(err, options.file, line, options.autoEncoding);
    }
    throw err;
  }
  reader.feed(pending + parts.join(''), true, out);
  reader.finish(out);
  for (let i = 0; i < out.length; i++) yield out[i];
}

class CsvReader {
  private readonly file: string;
  private readonly pendingLimit: number;
  private delimiter: string | undefined;
  private newline: Newline = '\n';
  /** The character counted for lines: LF, or CR in old Mac files. */
  private lineChar = '\n';
  private parser: Papa.Parser | undefined;
  /** Physical line of the first character not parsed yet. */
  private line = 1;
  private row = 0;
  private names: string[] | undefined;
  private makeRecord: RecordMaker | undefined;
  private sawText = false;
  /** After an overlong unfinished row: drop text up to the next line break. */
  private skipping = false;
  /** The header line ran over the pending limit: said once, no "no data rows" after it. */
  private headerTooLong = false;
  /** Line ends are mixed: every CRLF, LF and CR is read as LF from here on. */
  private normalising = false;
  /** The header holds a NUL: said once, nothing read after it. */
  private headerRefused = false;
  private readonly nulFree: (() => boolean) | undefined;

  constructor(options: CsvOptions) {
    this.file = options.file;
    this.nulFree = options.nulFree;
    this.delimiter = options.delimiter;
    this.pendingLimit = options.pendingLimit ?? PENDING_LIMIT;
  }

  /** Whether a piece may hold a NUL: searched, unless its bytes were seen to hold none (a scan of two-byte text per piece). */
  private mayHoldNul(input: string): boolean {
    return this.nulFree?.() !== true && input.indexOf(NUL) !== -1;
  }

  /** Line of the character just after `unparsed` (the text not yet parsed). */
  lineAt(unparsed: string): number {
    const text = this.normalising ? normaliseBreaks(unparsed, true) : unparsed;
    return this.line + countChar(text, this.lineChar);
  }

  /** Parses `input`; pushes items to `out`; returns the unfinished tail (empty when final). */
  feed(input: string, final: boolean, out: ReadItem[]): string {
    if (this.normalising) input = normaliseBreaks(input, final);
    if (this.skipping) input = this.skipLine(input);
    if (input.length === 0) return '';
    if (!this.parser) {
      if (!final && !this.readyToStart(input)) return input;
      input = this.start(input, final);
    }
    if (!this.normalising) {
      const foreign = foreignBreakAt(input, this.newline, final);
      if (foreign !== -1) {
        this.mixedLineEnds(input, foreign, out);
        input = normaliseBreaks(input, final);
      }
    }
    if (!this.sawText && input.trim().length > 0) this.sawText = true;
    const parser = this.parser!;
    const result = parser.parse(input, 0, !final) as PapaResult;
    const rows = result.data;

    if (final) {
      const missing = result.errors.find((e) => e.code === 'MissingQuotes');
      if (missing) return this.recoverQuote(input, rows, missing, out);
      const consumedBreaks = countChar(input, this.lineChar);
      // In a final parse every row but the last ends with a line break.
      const embedded = consumedBreaks - Math.max(0, rows.length - 1);
      this.emit(
        rows,
        rows.length,
        embedded,
        input.length,
        out,
        quoteTrouble(result, rows.length),
        this.mayHoldNul(input),
      );
      return '';
    }

    const cursor = result.meta.cursor;
    const breaks = countChar(input, this.lineChar, 0, cursor);
    this.emit(
      rows,
      rows.length,
      breaks - rows.length,
      cursor,
      out,
      quoteTrouble(result, rows.length),
      this.mayHoldNul(input),
    );
    this.line += breaks;
    const pending = cursor === 0 ? input : input.slice(cursor);
    return pending.length > this.pendingLimit ? this.overlong(pending, out) : pending;
  }

  /** No data rows at all: say so once. */
  finish(out: ReadItem[]): void {
    if ((this.headerTooLong && this.names === undefined) || this.headerRefused) return; // said already
    if (!this.sawText) {
      out.push(issueItem('empty_file', this.file, `${this.file} is empty`));
    } else if (this.names === undefined || this.row === 0) {
      out.push(issueItem('no_rows', this.file, `${this.file} has a header but no data rows`, { line: 1 }));
    }
  }

  /**
   * A line break of another kind than the file's first one, outside quoted values: the file mixes
   * CRLF, LF and CR (files pasted together, or edited on another system). Warn once, then read
   * every one of them as a line break.
   */
  private mixedLineEnds(input: string, at: number, out: ReadItem[]): void {
    const line = this.line + countChar(normaliseBreaks(input.slice(0, at), true), '\n');
    const first = lineEndName(this.newline, 0);
    this.normalising = true;
    this.newline = '\n';
    this.lineChar = '\n';
    this.parser = new Papa.Parser({ delimiter: this.delimiter, newline: '\n' });
    // Blank lines of mixed ends say nothing worth a warning (an empty file is said as such).
    if (input.trim().length === 0) return;
    const issue = readIssue(
      'mixed_line_ends',
      this.file,
      positioned`${this.file}: line ${lineAt(line)} ends with ${lineEndName(input, at)}, the lines before it with ${first}: the line ends are mixed, so CRLF, LF and CR are each read as a line break. Save the file with one kind of line end`,
      { line },
    );
    issue.severity = 'warning';
    out.push({ type: 'issue', issue });
  }

  /**
   * Enough text to tell the line break (one that is not the last character: `\r` may be half
   * of `\r\n`) and, when it is sniffed, the delimiter (several lines).
   */
  private readyToStart(input: string): boolean {
    if (input.length >= SNIFF_TEXT) return true;
    if (this.delimiter !== undefined) {
      const lf = input.indexOf('\n');
      const cr = input.indexOf('\r');
      return (lf !== -1 && lf < input.length - 1) || (cr !== -1 && cr < input.length - 1);
    }
    return false;
  }

  /** First text: Excel's `sep=` line, line break and delimiter. */
  private start(input: string, final: boolean): string {
    const sep = excelSepLine(input);
    if (sep) {
      this.delimiter ??= sep.delimiter;
      input = input.slice(sep.length);
      this.line++;
    }
    this.newline = guessNewline(input);
    this.lineChar = this.newline === '\r' ? '\r' : '\n';
    this.delimiter ??= sniffDelimiter(input, this.newline, final);
    this.parser = new Papa.Parser({ delimiter: this.delimiter, newline: this.newline });
    return input;
  }

  /**
   * Turns parsed rows into items. `embedded` is the number of line breaks inside fields; when it
   * is 0 every row is one line and the per-row count is skipped. `nul`: the parsed text holds a
   * NUL, so each row is searched for it (a text without one costs one scan, not one per value).
   */
  private emit(
    rows: string[][],
    count: number,
    embedded: number,
    consumed: number,
    out: ReadItem[],
    badQuotes?: Set<number>,
    nul = true,
  ): number {
    if (this.headerRefused) return this.line;
    const perRow = embedded > 0;
    const checkSize = consumed > FIELD_LIMIT;
    let line = this.line;
    for (let i = 0; i < count; i++) {
      const fields = rows[i];
      const rowLine = line;
      line += perRow ? 1 + this.breaksIn(fields) : 1;
      if (fields.length === 1 && fields[0].trim() === '') continue; // blank line
      if (this.names === undefined) {
        const bad = nul ? nulField(fields) : -1;
        if (bad !== -1) {
          out.push({ type: 'issue', issue: nulHeaderIssue(this.file, rowLine, fields[bad]) });
          this.headerRefused = true;
          return line;
        }
        this.setHeader(fields, rowLine, out);
        continue;
      }
      if (fields[0] === '' && allEmpty(fields)) continue; // `,,,,` line of a spreadsheet
      this.row++;
      if (badQuotes?.has(i)) out.push(this.malformedQuote(fields, rowLine));
      const bad = nul ? nulField(fields) : -1;
      if (bad !== -1) {
        out.push(this.nulRow(bad, rowLine));
        continue;
      }
      this.pushRecord(fields, rowLine, checkSize, out);
    }
    return line;
  }

  private pushRecord(fields: string[], line: number, checkSize: boolean, out: ReadItem[]): void {
    const names = this.names!;
    const width = names.length;
    if (fields.length !== width && (fields.length < width || !allEmpty(fields, width))) {
      out.push(this.ragged(fields, line));
      return;
    }
    if (checkSize) {
      for (let j = 0; j < width; j++) {
        if (fields[j].length > FIELD_LIMIT) {
          out.push(
            issueItem(
              'field_too_large',
              this.file,
              positioned`row ${rowAt(this.row)} (line ${lineAt(line)}): column "${names[j]}" holds ${fields[j].length} characters, more than the limit of ${FIELD_LIMIT} (1 MiB); the row is skipped. Check for a quote that is not closed, or shorten the value`,
              { row: this.row, line, column: names[j] },
            ),
          );
          return;
        }
      }
    }
    const record = this.makeRecord!(fields);
    out.push({
      type: 'record',
      record: { file: this.file, row: this.row, line, fields: record, shape: 'rows' },
    });
  }

  /**
   * A quote inside a quoted value that is not doubled. Papaparse reads on to the next quote
   * that can close the value; when that joined lines, rows were probably swallowed: an error.
   */
  private malformedQuote(fields: string[], line: number): ReadItem {
    const spans = this.breaksIn(fields);
    const joined = spans > 0;
    const what = joined
      ? positioned`a quoted value has a stray quote and runs over lines ${lineAt(line)}-${lineAt(line + spans)}, probably swallowing the rows on them`
      : ['a quoted value holds a quote that is not doubled'];
    const issue = readIssue(
      'malformed_quote',
      this.file,
      positioned`row ${rowAt(this.row)} (line ${lineAt(line)}): ${what}. Write a quote inside a quoted value as two quotes ("")`,
      { row: this.row, line },
    );
    if (!joined) issue.severity = 'warning';
    return { type: 'issue', issue };
  }

  private nulRow(bad: number, line: number): ReadItem {
    const column = bad < this.names!.length ? this.names![bad] : undefined;
    const where = positioned`row ${rowAt(this.row)} (line ${lineAt(line)})`;
    return { type: 'issue', issue: nulIssue(this.file, where, { row: this.row, line, column }) };
  }

  private ragged(fields: string[], line: number): ReadItem {
    const names = this.names!;
    const expected = names.length;
    const got = fields.length;
    const detail =
      got < expected
        ? `missing ${names
            .slice(got)
            .map((n) => `"${n}"`)
            .join(', ')}`
        : `extra values after column "${names[expected - 1]}"`;
    // A stray quote joins the lines up to the next quote into one row: say which lines.
    const spans = this.breaksIn(fields);
    const joined =
      spans > 0
        ? positioned`. It spans lines ${lineAt(line)}-${lineAt(line + spans)}: a quote that is not closed may have joined those lines into one row`
        : [];
    return {
      type: 'issue',
      issue: readIssue(
        'ragged_row',
        this.file,
        positioned`row ${rowAt(this.row)} (line ${lineAt(line)}) has ${got} fields, the header has ${expected} (expected ${expected}, got ${got}: ${detail}); the row is skipped. Check for a missing or extra delimiter "${printable(this.delimiter!)}" or an unquoted value that contains it${joined}`,
        { row: this.row, line, column: got < expected ? names[got] : undefined },
      ),
    };
  }

  private setHeader(fields: string[], line: number, out: ReadItem[]): void {
    const names: string[] = [];
    const firstAt = new Map<string, number>();
    for (let j = 0; j < fields.length; j++) {
      let name = fields[j].trim();
      if (name === '') name = `column_${j + 1}`;
      const seen = firstAt.get(name);
      if (seen !== undefined) {
        out.push({
          type: 'issue',
          issue: readIssue(
            'duplicate_header',
            this.file,
            `column "${name}" appears twice in the header (columns ${seen + 1} and ${j + 1}); the later one is read as "${name}_${j + 1}". Rename one of them`,
            { line, column: name },
          ),
        });
        name = `${name}_${j + 1}`;
      } else {
        firstAt.set(name, j);
      }
      names.push(name);
    }
    this.names = names;
    this.makeRecord = recordMaker(names);
  }

  /**
   * A quote was opened and never closed before the end of the text. Report it on the row, then
   * read on from the line after the one where the quote opened.
   */
  private recoverQuote(
    input: string,
    rows: string[][],
    missing: { row: number; index: number },
    out: ReadItem[],
  ): string {
    const bad = missing.row;
    const breaks = countChar(input, this.lineChar);
    const rowLine = this.emit(rows, bad, Math.max(1, breaks), input.length, out);
    const quoteAt = Math.max(0, missing.index - 1);
    const quoteLine = this.line + countChar(input, this.lineChar, 0, quoteAt);
    this.reportUnclosed(rowLine, quoteLine, out);
    const lineEnd = input.indexOf(this.newline, quoteAt);
    if (lineEnd === -1) return '';
    this.line = quoteLine + 1;
    return this.feed(input.slice(lineEnd + this.newline.length), true, out);
  }

  private reportUnclosed(rowLine: number, quoteLine: number, out: ReadItem[]): void {
    const how = positioned`the quote opened on line ${lineAt(quoteLine)} is never closed; reading goes on at line ${lineAt(quoteLine + 1)}. Close the quote, or double quotes inside a quoted value ("")`;
    if (this.names === undefined) {
      // The header itself is broken: the next line is taken as the header.
      out.push({
        type: 'issue',
        issue: readIssue(
          'unclosed_quote',
          this.file,
          positioned`the header (line ${lineAt(rowLine)}): ${how}`,
          {
            line: rowLine,
          },
        ),
      });
      return;
    }
    this.row++;
    out.push({
      type: 'issue',
      issue: readIssue(
        'unclosed_quote',
        this.file,
        positioned`row ${rowAt(this.row)} (line ${lineAt(rowLine)}) is skipped: ${how}`,
        {
          row: this.row,
          line: rowLine,
        },
      ),
    });
  }

  /** An unfinished row grew past the pending limit: report it and drop it. */
  private overlong(pending: string, out: ReadItem[]): string {
    const probe = new Papa.Parser({ delimiter: this.delimiter, newline: this.newline }).parse(
      pending,
      0,
      false,
    ) as PapaResult;
    const missing = probe.errors.find((e) => e.code === 'MissingQuotes');
    if (missing && missing.row === 0) {
      const quoteAt = Math.max(0, missing.index - 1);
      const quoteLine = this.line + countChar(pending, this.lineChar, 0, quoteAt);
      const lineEnd = pending.indexOf(this.newline, quoteAt);
      if (lineEnd !== -1) {
        this.reportUnclosed(this.line, quoteLine, out);
        this.line = quoteLine + 1;
        return pending.slice(lineEnd + this.newline.length);
      }
    }
    if (this.names === undefined) {
      // The first line is the header: a "row 1" it is not, and "no data rows" would be a second error.
      this.headerTooLong = true;
      out.push(
        issueItem(
          'field_too_large',
          this.file,
          positioned`${this.file}: the header (line ${lineAt(this.line)}) runs over ${this.pendingLimit} characters without a line break; nothing is read from it. Check that the file is a CSV export with one row per line`,
          { line: this.line },
        ),
      );
    } else {
      this.row++;
      out.push({
        type: 'issue',
        issue: readIssue(
          'field_too_large',
          this.file,
          positioned`row ${rowAt(this.row)} (line ${lineAt(this.line)}) runs over ${this.pendingLimit} characters without ending; the row is skipped. Check for a quote that is not closed`,
          { row: this.row, line: this.line },
        ),
      });
    }
    this.line += countChar(pending, this.lineChar);
    this.skipping = true;
    return '';
  }

  private skipLine(input: string): string {
    const end = input.indexOf(this.newline);
    if (end === -1) return '';
    this.skipping = false;
    this.line++;
    return input.slice(end + this.newline.length);
  }

  private breaksIn(fields: string[]): number {
    let count = 0;
    for (let j = 0; j < fields.length; j++) {
      if (fields[j].indexOf(this.lineChar) !== -1) count += countChar(fields[j], this.lineChar);
    }
    return count;
  }
}

/** Indexes of the parsed rows papaparse found a malformed (undoubled) quote in. */
function quoteTrouble(result: PapaResult, rows: number): Set<number> | undefined {
  if (result.errors.length === 0) return undefined;
  let found: Set<number> | undefined;
  for (const e of result.errors) {
    if (e.code !== 'InvalidQuotes' || e.row >= rows) continue;
    found ??= new Set();
    found.add(e.row);
  }
  return found;
}

function allEmpty(fields: string[], from = 0): boolean {
  for (let j = from; j < fields.length; j++) if (fields[j] !== '') return false;
  return true;
}

function printable(delimiter: string): string {
  return delimiter === '\t' ? '\\t' : delimiter;
}
