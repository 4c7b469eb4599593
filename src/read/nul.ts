import { isObject } from '../shared/is-object.js';
import type { Issue } from '../shared/types.js';
import type { ConcreteEncoding } from './detect-encoding.js';
import { type MessagePart, readIssue } from './issues.js';

/**
 * A NUL character (U+0000, the byte 0x00 in UTF-8) in a row is never a product's text: an export
 * that wrote padding or a broken field. The one rule (docs/reading.md, "Read issues"): the row
 * holding it is refused with a `nul_byte` issue naming it and its field; the rest is read on.
 */
export const NUL = '\0';

const HINT = 'Remove it from the source data, or export the file again';

/** The `nul_byte` issue of one row; `where` says the row (and line) as the reader words it. */
export function nulIssue(
  file: string,
  where: MessagePart[],
  at: { row: number; line: number; column?: string },
): Issue {
  const column = at.column === undefined ? undefined : printableName(at.column);
  const field = column === undefined ? '' : ` "${column}"`;
  return readIssue(
    'nul_byte',
    file,
    [...where, `:${field} holds a NUL byte (\\0), which no product text has; the row is skipped. ${HINT}`],
    { ...at, column },
  );
}

/** The same for a CSV header: no row can be read without it. */
export function nulHeaderIssue(file: string, line: number, name: string): Issue {
  const column = printableName(name);
  return readIssue(
    'nul_byte',
    file,
    `${file}: the header (line ${line}) holds a NUL byte (\\0) in column "${column}"; nothing is read from the file. ${HINT}`,
    { line, column },
  );
}

/**
 * Watches the bytes of an input on their way to the decoder: while none is 0x00, no text decoded
 * from them holds a NUL, in every encoding genser reads but UTF-16 (UTF-8, CP949, Shift_JIS write
 * U+0000 as that byte alone and use it in no other character). A byte search (memchr) costs a
 * fraction of searching the decoded two-byte text for U+0000, which the CSV reader then skips.
 */
export class NulWatch {
  private clean: boolean;

  constructor(encoding: ConcreteEncoding) {
    this.clean = encoding !== 'utf-16le' && encoding !== 'utf-16be';
  }

  /** No byte seen so far is 0x00 (false from the first one on, and for UTF-16). */
  readonly free = (): boolean => this.clean;

  /** Looks at one piece of bytes before it is decoded. */
  see(bytes: Uint8Array): void {
    if (this.clean && bytes.indexOf(0) !== -1) this.clean = false;
  }

  async *tap(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
    for await (const chunk of chunks) {
      this.see(chunk);
      yield chunk;
    }
  }
}

/** Index of the first value holding a NUL, or -1. */
export function nulField(values: readonly string[]): number {
  for (let j = 0; j < values.length; j++) if (values[j].indexOf(NUL) !== -1) return j;
  return -1;
}

/**
 * Whether one JSON text (an NDJSON line or a JSON element) holds a NUL, raw or escaped as
 * `\u0000`, and where: the path of the member holding it (`name@en`, `image_urls[1]`), when
 * the text parses. A raw NUL makes the text invalid JSON, so it is parsed with the NUL escaped.
 * Two scans of the text when it holds neither; JSON.parse is only run again when it does.
 */
export function jsonNul(text: string): { field?: string } | undefined {
  const raw = text.indexOf(NUL) !== -1;
  if (!raw && text.indexOf('\\u0000') === -1) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw ? text.replaceAll(NUL, '\\u0000') : text);
  } catch {
    // A raw NUL outside a string, or other damage: still a row with a NUL byte.
    return raw ? {} : undefined;
  }
  // An escaped NUL in what is not an object is not a row: not_an_object says what is wrong.
  if (!raw && !isObject(value)) return undefined;
  const field = nulPath(value, '');
  if (field === undefined) return raw ? {} : undefined; // `\\u0000`: a backslash, then text
  return field === '' ? {} : { field };
}

/** The path of the first key or string holding a NUL ('' for the value itself), or undefined. */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.indexOf(NUL) === -1 ? undefined : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObject(value)) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (key.indexOf(NUL) !== -1) return at;
    const found = nulPath(member, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A name with its NULs shown as `\0` (messages never carry a raw NUL). */
function printableName(name: string): string {
  return name.replaceAll(NUL, '\\0');
}
