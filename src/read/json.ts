import { envelopeProblems } from '../schema/envelope.js';
import { isObject } from '../shared/is-object.js';
import { MAX_RECORD_DEPTH } from '../shared/json-depth.js';
import type { ReadItem, SourceRecord } from '../shared/types.js';
import { InvalidBytesError, invalidBytesUsage } from './bad-bytes.js';
import { issueItem, readIssue } from './issues.js';
import { PENDING_LIMIT } from './limits.js';
import type { JsonOptions } from './ndjson.js';
import { kindOf } from './ndjson.js';
import { jsonNul, nulIssue } from './nul.js';
import { positionIn, shapeOf, syntaxDetail } from './shape.js';

// Scanner states.
const START = 0;
/** After `[`: an element or `]`. */
const ARRAY_FIRST = 1;
const VALUE = 2;
/** After `{`: a member name or `}`. */
const OBJ_FIRST = 3;
const KEY = 4;
const COLON = 5;
const OBJ_VALUE = 6;
const OBJ_AFTER = 7;
const DONE = 8;
const STOPPED = 9;
/** After `,` in an array: an element (a `,` or `]` here is a missing value). */
const ARRAY_NEXT = 10;
/** After `,` in the envelope: a member name. */
const OBJ_KEY = 11;
/** A document that is neither an array nor an object: kept whole, parsed at the end. */
const TOP = 12;

/** What `feed` does after one character between elements (`structure`). */
type Step = number;
const NEXT = 0;
/** A value starts at this character: the VALUE loop reads it. */
const AT_VALUE = 1;
/** A member name starts after this quote. */
const AT_KEY = 2;
/** A backslash in a member name: the next character is skipped. */
const SKIP_ONE = 3;
/** The quote that ends a member name. */
const KEY_END = 4;

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

/**
 * Streams the elements of a JSON document: a top-level array (each element one record), or a
 * standard envelope object whose `@graph` array holds the records. The scanner only finds where
 * each element starts and ends (tracking strings, nesting and lines); JSON.parse, native and
 * fast, parses each element. So memory holds one element at a time, every record knows its line,
 * and a malformed element is reported with its line and column while reading goes on.
 */
export async function* readJson(
  texts: AsyncIterable<string>,
  options: JsonOptions,
): AsyncGenerator<ReadItem> {
  const scanner = new JsonScanner(options);
  const out: ReadItem[] = [];
  try {
    for await (const text of texts) {
      scanner.feed(text, out);
      for (let i = 0; i < out.length; i++) yield out[i];
      out.length = 0;
      if (scanner.stopped) return;
    }
  } catch (err) {
    if (err instanceof InvalidBytesError) {
      const line = scanner.lineAfter(err.textBefore);
      // The complete elements before the bad byte are still records: out with them, then the error.
      if (!scanner.stopped) scanner.feed(err.textBefore, out);
      for (let i = 0; i < out.length; i++) yield out[i];
      throw invalidBytesUsage(err, options.file, line, options.autoEncoding);
    }
    throw err;
  }
  scanner.end(out);
  for (const item of out) yield item;
}

class JsonScanner {
  private readonly file: string;
  private readonly options: JsonOptions;
  private readonly limit: number;
  private state = START;
  /** The container whose elements are records: the top-level array, or the envelope's `@graph`. */
  private inGraph = false;
  private envelope = false;
  private sawGraph = false;
  private members: string[] = [];
  /** The envelope's members as read (checked as a whole at its end), and those too large to keep. */
  private memberValues: Record<string, unknown> = Object.create(null);
  private unreadMembers: string[] = [];
  private line = 1;
  /** Absolute offset of the first character of the current line, and of the current text. */
  private lineStart = 0;
  private base = 0;
  // The value being captured.
  private depth = 0;
  private inString = false;
  private skipNext = false;
  private parts: string[] = [];
  private length = 0;
  private oversize = false;
  private valueLine = 1;
  private valueColumn = 1;
  private key = '';
  private keyLine = 1;
  private keyColumn = 1;
  /** The value being captured nests deeper than a record may (its position, for the message). */
  private tooDeep: { line: number; column: number } | undefined;
  private row = 0;
  private rootShape: SourceRecord['shape'] | undefined;

  constructor(options: JsonOptions) {
    this.file = options.file;
    this.options = options;
    this.limit = options.pendingLimit ?? PENDING_LIMIT;
  }

  get stopped(): boolean {
    return this.state === STOPPED;
  }

  lineAfter(text: string): number {
    let line = this.line;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) line++;
    return line;
  }

  feed(text: string, out: ReadItem[]): void {
    const n = text.length;
    let i = 0;
    let from = this.state === VALUE || this.state === KEY || this.state === TOP ? 0 : -1;
    if (this.skipNext) {
      // The character after a backslash at the end of the previous text.
      this.skipNext = false;
      i = 1;
      if (n === 1) {
        if (this.state === VALUE || this.state === KEY || this.state === TOP) this.keep(text, 0, n);
        this.base += n;
        return;
      }
    }
    while (i < n && this.state !== STOPPED) {
      if (this.state === VALUE) {
        const ended = this.scanValue(text, i, n);
        if (ended === -1) {
          this.keep(text, from, n);
          break;
        }
        this.keep(text, from, ended);
        this.endValue(text.charCodeAt(ended), out);
        this.closeOrNext(text.charCodeAt(ended), ended, out);
        i = ended + 1;
        continue;
      }
      const c = text.charCodeAt(i);
      if (c === NEWLINE) this.newline(i);
      if (this.state === TOP) {
        this.keep(text, from, n);
        i = n;
        continue;
      }
      const step = this.structure(c, i, out);
      if (step === AT_VALUE) {
        from = i;
        continue;
      }
      if (step === AT_KEY) from = i + 1;
      else if (step === SKIP_ONE) {
        if (i + 1 >= n) this.skipNext = true;
        i++;
      } else if (step === KEY_END) {
        this.keep(text, from, i);
        this.endKey(out);
      }
      i++;
    }
    if (this.state === KEY && from !== -1 && i >= n) this.keep(text, from, n);
    this.base += n;
  }

  /** The hot loop: where the element being read ends in `text` from `i` (-1: not in this text). */
  private scanValue(text: string, i: number, n: number): number {
    let depth = this.depth;
    let inString = this.inString;
    let ended = -1;
    // Elements are records: they may nest only so deep (envelope members are parsed and dropped).
    const maxDepth = this.inGraphOrRoot() && this.tooDeep === undefined ? MAX_RECORD_DEPTH : Infinity;
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      if (inString) {
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) inString = false;
        else if (c === NEWLINE) this.newline(i);
        continue;
      }
      if (c === QUOTE) inString = true;
      else if (c === 123 || c === 91) {
        if (++depth > maxDepth && this.tooDeep === undefined) this.markTooDeep(i);
      } else if (c === 125 || c === 93) {
        if (depth === 0) {
          ended = i;
          break;
        }
        depth--;
      } else if (c === 44 && depth === 0) {
        ended = i;
        break;
      } else if (c === NEWLINE) this.newline(i);
    }
    this.depth = depth;
    this.inString = inString;
    // A backslash as the text's last character: the next text starts with the escaped one.
    if (ended === -1 && i > n) this.skipNext = true;
    return ended;
  }

  /** One character between elements (state START to DONE): what `feed` does next. */
  private structure(c: number, i: number, out: ReadItem[]): Step {
    switch (this.state) {
      case START:
        if (isSpace(c)) break;
        if (c === 91) {
          this.state = ARRAY_FIRST;
        } else if (c === 123) {
          this.envelope = true;
          this.state = OBJ_FIRST;
        } else {
          // A number, string, true, false or null (or not JSON at all): said at the end.
          this.startValue(i);
          this.state = TOP;
          return AT_VALUE;
        }
        break;
      case ARRAY_FIRST:
      case ARRAY_NEXT:
        if (isSpace(c)) break;
        if (c === 93 && this.state === ARRAY_FIRST) {
          this.closeArray();
          break;
        }
        this.startValue(i);
        return AT_VALUE; // the VALUE loop reads this character (a `,` or `]` ends an empty value)
      case OBJ_FIRST:
      case OBJ_KEY:
        if (isSpace(c)) break;
        if (c === QUOTE) {
          this.state = KEY;
          this.parts = [];
          this.length = 0;
          this.oversize = false;
          this.keyLine = this.line;
          this.keyColumn = this.base + i - this.lineStart + 1;
          return AT_KEY;
        } else if (c === 125 && this.state === OBJ_FIRST) {
          this.state = DONE;
        } else {
          const trailing = c === 125 ? ' (a comma before "}" is not allowed)' : '';
          this.structural(i, `expected a member name in double quotes${trailing}`, out);
        }
        break;
      case KEY:
        if (c === BACKSLASH) return SKIP_ONE;
        if (c === QUOTE) return KEY_END;
        break;
      case COLON:
        if (isSpace(c)) break;
        if (c === 58) this.state = OBJ_VALUE;
        else this.structural(i, `expected ":" after the member name "${this.key}"`, out);
        break;
      case OBJ_VALUE:
        if (isSpace(c)) break;
        if (this.key === '@graph') {
          if (c !== 91) {
            this.structural(i, '"@graph" must be an array of product nodes', out);
            break;
          }
          this.sawGraph = true;
          this.inGraph = true;
          this.state = ARRAY_NEXT;
          break;
        }
        this.members.push(this.key);
        this.startValue(i);
        return AT_VALUE;
      case OBJ_AFTER:
        if (isSpace(c)) break;
        if (c === 44) this.state = OBJ_KEY;
        else if (c === 125) this.state = DONE;
        else this.structural(i, 'expected "," or "}" after the "@graph" array', out);
        break;
      case DONE:
        if (isSpace(c)) break;
        this.structural(i, 'unexpected text after the end of the JSON document', out);
        break;
    }
    return NEXT;
  }

  end(out: ReadItem[]): void {
    const { file } = this;
    switch (this.state) {
      case START:
        out.push(issueItem('empty_file', file, `${file} is empty`));
        return;
      case STOPPED:
        return;
      case TOP:
        this.endTop(out);
        return;
      case DONE:
        if (this.envelope && !this.sawGraph) {
          out.push(
            issueItem(
              'not_a_feed',
              file,
              `${file}: the JSON object has no "@graph" array: it is not an array or object of products. ${FEED_SHAPES}`,
              { line: 1 },
            ),
          );
        } else if (this.row === 0) {
          out.push(issueItem('no_rows', file, `${file} holds no products (the array is empty)`));
        }
        if (this.envelope && this.sawGraph) {
          // The envelope as a whole, as the service checks it: a payload checked here may be
          // sent by another client as it stands (genser upload sends its own envelope).
          for (const p of envelopeProblems(this.memberValues, this.unreadMembers)) {
            const issue = readIssue(p.code, file, `${file}: ${p.message}`, { line: 1 });
            issue.severity = p.severity;
            out.push({ type: 'issue', issue });
          }
        }
        if (this.envelope && this.members.length > 0) {
          this.options.log.debug(
            `${file}: envelope members besides @graph (not read): ${this.members.join(', ')}`,
          );
        }
        return;
      default: {
        const during =
          this.state === VALUE && this.inGraphOrRoot()
            ? ` inside element ${this.row + 1} (starting on line ${this.valueLine})`
            : '';
        const column = this.base - this.lineStart + 1;
        out.push(
          issueItem(
            'invalid_json',
            file,
            `${file}: the JSON document ends early at line ${this.line}, column ${column}${during}: the file looks truncated. Export or download it again`,
            { line: this.line },
          ),
        );
      }
    }
  }

  private inGraphOrRoot(): boolean {
    return this.inGraph || !this.envelope;
  }

  private newline(i: number): void {
    this.line++;
    this.lineStart = this.base + i + 1;
  }

  private startValue(i: number): void {
    this.state = VALUE;
    this.depth = 0;
    this.inString = false;
    this.parts = [];
    this.length = 0;
    this.oversize = false;
    this.tooDeep = undefined;
    this.valueLine = this.line;
    this.valueColumn = this.base + i - this.lineStart + 1;
  }

  /** The element nests deeper than a record may: its text is no longer kept, its end still found. */
  private markTooDeep(i: number): void {
    this.tooDeep = { line: this.line, column: this.base + i - this.lineStart + 1 };
    this.parts = [];
  }

  /** Keeps text[from, to) of the value being captured, up to the pending limit. */
  private keep(text: string, from: number, to: number): void {
    if (from === -1 || this.oversize || this.tooDeep !== undefined || to <= from) return;
    this.length += to - from;
    if (this.length > this.limit) {
      this.oversize = true;
      this.parts = [];
      return;
    }
    this.parts.push(from === 0 && to === text.length ? text : text.slice(from, to));
  }

  private takeText(): string {
    const text = this.parts.length === 1 ? this.parts[0] : this.parts.join('');
    this.parts = [];
    this.length = 0;
    return text;
  }

  /** A member name ended: it must be a valid JSON string (escapes decoded: `"@gr\u0061ph"` is @graph). */
  private endKey(out: ReadItem[]): void {
    const raw = `"${this.takeText()}"`;
    this.state = COLON;
    if (this.oversize) {
      this.key = '';
      return;
    }
    try {
      this.key = JSON.parse(raw) as string;
    } catch (err) {
      const { reason, offset } = syntaxDetail(raw, err);
      const at = positionIn(raw, offset ?? 0, this.keyLine);
      const column = at.line === this.keyLine ? at.column + this.keyColumn - 1 : at.column;
      this.structuralAt(at.line, column, `the member name is not a valid JSON string: ${reason}`, out);
    }
  }

  /** A value ended: a record (or an issue) when it is an element; an envelope member is checked and dropped. */
  private endValue(closer: number, out: ReadItem[]): void {
    const text = this.takeText();
    const isElement = this.inGraphOrRoot();
    const { file } = this;
    if (text.length === 0 && !this.oversize && this.tooDeep === undefined) {
      // `[,1]`, `[1,,2]`, `[1,]`, `{"a":}`: the scanner starts a value only on a character that is not space.
      out.push(
        issueItem(
          'invalid_json',
          file,
          `${file}: the JSON document is malformed at line ${this.valueLine}, column ${this.valueColumn}: a value is missing before "${String.fromCharCode(closer)}" (an extra comma?); reading goes on`,
          { line: this.valueLine },
        ),
      );
      return;
    }
    if (!isElement) {
      if (this.oversize) {
        this.unreadMembers.push(this.key);
        return;
      }
      try {
        this.memberValues[this.key] = JSON.parse(text);
      } catch (err) {
        this.unreadMembers.push(this.key);
        out.push(
          issueItem(
            'invalid_json',
            file,
            `${file}: the value of the envelope member "${this.key}" is not valid JSON at ${this.where(text, err)}; reading goes on`,
            { line: this.valueLine },
          ),
        );
      }
      return;
    }
    const row = ++this.row;
    const line = this.valueLine;
    if (this.tooDeep !== undefined) {
      const deep = this.tooDeep;
      out.push(
        issueItem(
          'too_deep',
          file,
          `element ${row} (line ${line}) nests arrays or objects more than ${MAX_RECORD_DEPTH} levels deep (at line ${deep.line}, column ${deep.column}); it is skipped. A product needs no such nesting: check how the file was made`,
          { row, line },
        ),
      );
      return;
    }
    if (this.oversize) {
      out.push(
        issueItem(
          'field_too_large',
          file,
          `element ${row} (line ${line}) is larger than ${this.limit} characters; it is skipped`,
          {
            row,
            line,
          },
        ),
      );
      return;
    }
    const nul = jsonNul(text);
    if (nul) {
      const where = [`element ${row} (starting on line ${line})`];
      out.push({ type: 'issue', issue: nulIssue(file, where, { row, line, column: nul.field }) });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      out.push(
        issueItem(
          'invalid_json',
          file,
          `element ${row} (starting on line ${line}) is not valid JSON at ${this.where(text, err)}; the element is skipped`,
          { row, line },
        ),
      );
      return;
    }
    if (!isObject(value)) {
      out.push(
        issueItem(
          'not_an_object',
          file,
          `element ${row} (line ${line}) is a JSON ${kindOf(value)}, not an object; it is skipped`,
          {
            row,
            line,
          },
        ),
      );
      return;
    }
    if (!this.inGraph && this.rootShape === undefined) this.rootShape = shapeOf(value);
    const shape = this.inGraph ? 'graph' : this.rootShape!;
    out.push({ type: 'record', record: { file, row, line, fields: value, shape } });
  }

  /** `line L, column C: reason` for text of the current value that JSON.parse refused. */
  private where(text: string, err: unknown): string {
    const { reason, offset } = syntaxDetail(text, err);
    const at = positionIn(text, offset ?? 0, this.valueLine);
    const column = at.line === this.valueLine ? at.column + this.valueColumn - 1 : at.column;
    return `line ${at.line}, column ${column}: ${reason}`;
  }

  /** The whole document is one value that is not an array or object. */
  private endTop(out: ReadItem[]): void {
    const { file } = this;
    const text = this.takeText();
    if (this.oversize) {
      out.push(
        issueItem(
          'not_a_feed',
          file,
          `${file} does not start with [ or {: it is not an array or object of products. ${FEED_SHAPES}`,
          {
            line: this.valueLine,
          },
        ),
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      out.push(
        issueItem(
          'invalid_json',
          file,
          `${file}: the JSON document is malformed at ${this.where(text, err)}. ${FEED_SHAPES}`,
          { line: this.valueLine },
        ),
      );
      return;
    }
    out.push(
      issueItem(
        'not_a_feed',
        file,
        `${file} holds a JSON ${kindOf(value)}, not an array or object of products. ${FEED_SHAPES}`,
        { line: this.valueLine },
      ),
    );
  }

  /** The character that ended a value: `,` goes on, `]`/`}` closes its container. */
  private closeOrNext(c: number, i: number, out: ReadItem[]): void {
    const isElement = this.inGraphOrRoot();
    if (c === 44) {
      this.state = isElement ? ARRAY_NEXT : OBJ_KEY;
    } else if (c === 93 && isElement) {
      this.closeArray();
    } else if (c === 125 && !isElement) {
      this.state = DONE;
    } else {
      this.structural(i, `unexpected "${String.fromCharCode(c)}"`, out);
    }
  }

  private closeArray(): void {
    if (this.inGraph) {
      this.inGraph = false;
      this.state = OBJ_AFTER;
    } else {
      this.state = DONE;
    }
  }

  private structural(i: number, what: string, out: ReadItem[]): void {
    this.structuralAt(this.line, this.base + i - this.lineStart + 1, what, out);
  }

  private structuralAt(line: number, column: number, what: string, out: ReadItem[]): void {
    out.push(
      issueItem(
        'invalid_json',
        this.file,
        `${this.file}: the JSON document is malformed at line ${line}, column ${column}: ${what}; reading stops here`,
        { line },
      ),
    );
    this.state = STOPPED;
  }
}

const FEED_SHAPES =
  'Give an array of products ([{...}, ...]), or a standard envelope whose "@graph" array holds the products';
