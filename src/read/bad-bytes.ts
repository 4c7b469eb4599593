import { UsageError } from '../shared/errors.js';
import type { ConcreteEncoding } from './detect-encoding.js';

/**
 * Bytes an encoding cannot read, and the one-line errors that name them: apart from the
 * decoders (./decode.ts), so that a feed worker given records loads no decoder to report them.
 */

/** Bytes that are not valid in the encoding being read. Readers add the line and make it a UsageError. */
export class InvalidBytesError extends Error {
  constructor(
    readonly encoding: ConcreteEncoding,
    readonly byteOffset: number,
    readonly byteValue: number | undefined,
    /** The text decoded from the current chunk before the bad byte (to count lines up to it). */
    readonly textBefore: string,
    /** When a double-byte encoding was guessed: where the bytes first stopped being UTF-8. */
    readonly notUtf8?: { offset: number; byte: number },
  ) {
    super(`invalid ${encoding} byte at offset ${byteOffset}`);
    this.name = 'InvalidBytesError';
  }
}

const ENCODING_HINT =
  'Pass --encoding to say what the file is: utf-8, cp949 (or euc-kr) for Korean, shift_jis for Japanese, utf-16le or utf-16be.';

/** Where and what the bad bytes are: kept as numbers, so a piece of a file read apart can move them on. */
export interface BadBytes {
  file: string;
  encoding: ConcreteEncoding;
  byteOffset: number;
  byteValue?: number;
  notUtf8?: { offset: number; byte: number };
  line?: number;
  auto: boolean;
}

/** Bytes the chosen encoding cannot read: a usage error whose message is made from `detail`. */
export class BadBytesError extends UsageError {
  constructor(readonly detail: BadBytes) {
    super(badBytesMessage(detail), ENCODING_HINT);
  }
}

/** The one-line error for bytes the chosen encoding cannot read. */
export function invalidBytesUsage(
  err: InvalidBytesError,
  file: string,
  line: number | undefined,
  auto: boolean,
): BadBytesError {
  const { encoding, byteOffset, byteValue, notUtf8 } = err;
  return new BadBytesError({ file, encoding, byteOffset, byteValue, notUtf8, line, auto });
}

function badBytesMessage(d: BadBytes): string {
  const byte = d.byteValue === undefined ? 'an invalid byte' : `invalid byte 0x${hex(d.byteValue)}`;
  const where = d.line === undefined ? '' : ` (line ${d.line})`;
  const name = d.encoding;
  let what = `the text is not valid ${name}`;
  if (d.notUtf8) {
    // Guessed from a sample: it was not UTF-8 there, and it is not what it looked like either.
    const first = d.notUtf8;
    what = `the text is not valid utf-8 (byte 0x${hex(first.byte)} at byte offset ${first.offset}) nor valid ${name}, which it looked like`;
  } else if (d.auto) {
    what = `the text is not valid ${name} as detected`;
  }
  return `${d.file}: ${what}: ${byte} at byte offset ${d.byteOffset}${where}`;
}

/** --encoding auto could not decide: name the first byte that is not UTF-8, its line, and why. */
export function undetectedUsage(
  file: string,
  offset: number,
  byte: number | undefined,
  line: number,
  why: string,
): UsageError {
  const what = byte === undefined ? 'a byte' : `byte 0x${hex(byte)}`;
  return new UsageError(
    `${file}: cannot detect the encoding: the text is not valid utf-8 (${what} at byte offset ${offset}, line ${line}), and ${why}`,
    ENCODING_HINT,
  );
}

/** A UTF-32 byte order mark: genser does not read UTF-32 (no shop tool writes it for feeds). */
export function utf32Usage(file: string, bom: string): UsageError {
  return new UsageError(
    `${file}: the file is ${bom} (it starts with the ${bom} byte order mark), which genser does not read`,
    'Convert it to UTF-8, e.g. iconv -f UTF-32 -t UTF-8 FILE > FILE.utf8, or save it again as "CSV UTF-8" in Excel.',
  );
}

function hex(byte: number): string {
  return byte.toString(16).toUpperCase().padStart(2, '0');
}
