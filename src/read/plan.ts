import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { EncodingName, InputType, ReadItem } from '../shared/types.js';
import { undetectedUsage, utf32Usage } from './bad-bytes.js';
import { binaryKind } from './binary.js';
import { type ConcreteEncoding, detectEncoding, utf32Bom } from './detect-encoding.js';
import { isUrl, type RemoteSettings, urlName } from './feed-url.js';
import { inputTypeFromName } from './input-type.js';
import { issueItem } from './issues.js';
import { HEAD_BYTES } from './limits.js';
import { checkFile, gunzip, isGzip, openBytes, peek, READ_CHUNK } from './open.js';
import { excelSepLine, guessNewline, sniffDelimiter } from './sniff.js';
import { EXPORT_CSV, spreadsheetByBytes, spreadsheetByName, spreadsheetMessage } from './spreadsheet.js';
import { firstInvalidUtf8, incompleteTail } from './utf8.js';

/**
 * How one input is read, decided once from its name, the options and its first bytes: the one
 * preamble (open, peek, gunzip, encoding, type) that the feed, the events reader and the feed's
 * workers share (docs/reading.md).
 */
export interface ReadOptions {
  encoding: EncodingName;
  /** Undefined: sniffed among `,` `;` tab `|`. */
  delimiter?: string;
  /** Undefined: from the file name (required for stdin). */
  inputType?: InputType;
  /** How http(s) sources are fetched; absent: a URL is refused (the command reads files only). */
  remote?: RemoteSettings;
}

export const STDIN_NAME = '<stdin>';

/** How messages and reports name a source: `<stdin>`, a URL without its query, or the path. */
export function sourceName(source: string): string {
  return source === '-' ? STDIN_NAME : isUrl(source) ? urlName(source) : source;
}

/**
 * Stdin or a URL: read once, as it arrives. Its size is not known before, it cannot be cut in
 * ranges or read again, and it may pause between records.
 */
export function streamedSource(source: string): boolean {
  return source === '-' || isUrl(source);
}

async function openSource(
  source: string,
  file: string,
  options: ReadOptions,
  stdin: NodeJS.ReadableStream | undefined,
): Promise<AsyncIterable<Buffer>> {
  if (!isUrl(source)) return openBytes(source, file, () => stdin ?? process.stdin);
  if (!options.remote)
    throw new UsageError(
      `${file}: this command reads files, not URLs`,
      'Download the feed first, e.g. with curl -o.',
    );
  // Loaded only now: a feed from a file (and every feed worker) never loads the HTTP client.
  const { openUrl } = await import('./remote.js');
  return openUrl(source, file, options.remote);
}

export interface ReadPlan {
  /** The path, or '-' for stdin. */
  source: string;
  /** The name in messages. */
  file: string;
  type: InputType;
  encoding: ConcreteEncoding;
  /** `--encoding auto` (worded into messages about bad bytes). */
  autoEncoding: boolean;
  /** Guessed CP949 or Shift_JIS: where the bytes stopped being UTF-8 (for the message if decoding fails). */
  notUtf8?: { offset: number; byte: number };
  /** `--delimiter` as given (undefined: the CSV reader sniffs it). */
  delimiter?: string;
  gzip: boolean;
  /** The first bytes (decompressed): at least HEAD_BYTES unless the input is shorter. */
  head: Buffer;
  /** All the bytes from the start (decompressed), head included. */
  bytes: AsyncIterable<Buffer>;
  /** Stops reading (closes the file) when the rest is not wanted. */
  close(): Promise<void>;
}

/**
 * The plan of `source`, or the one issue that says why nothing is read from it (empty, binary).
 * Fatal problems (missing file, unknown type, UTF-32, undetectable encoding) throw UsageError.
 */
export async function planRead(
  source: string,
  options: ReadOptions,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
): Promise<ReadPlan | ReadItem> {
  const file = sourceName(source);
  if (source === '-' && !options.inputType) {
    throw new UsageError(
      'reading stdin (-) needs --input-type',
      'Say what comes in: --input-type csv, --input-type json or --input-type ndjson.',
    );
  }
  const delimiter = delimiterOption(options.delimiter);
  const type = await inputType(source, file, options);
  // process.stdin is touched only when it is read: the getter opens the stream.
  let peeked = await peek(await openSource(source, file, options, stdin), HEAD_BYTES);
  try {
    const gzip = isGzip(peeked.head);
    if (gzip) peeked = await peek(gunzip(peeked.all, file), HEAD_BYTES);
    const { head } = peeked;
    if (head.length === 0) {
      await peeked.close();
      return issueItem('empty_file', file, `${file} is empty`);
    }
    const chosen = chooseEncoding(head, head.length < HEAD_BYTES, options.encoding, file, log);
    if ('type' in chosen) {
      await peeked.close();
      return chosen;
    }
    const autoEncoding = options.encoding === 'auto';
    return {
      source,
      file,
      type,
      ...chosen,
      autoEncoding,
      delimiter,
      gzip,
      head,
      bytes: peeked.all,
      close: peeked.close,
    };
  } catch (err) {
    await peeked.close();
    throw err;
  }
}

async function inputType(source: string, file: string, options: ReadOptions): Promise<InputType> {
  const type = options.inputType ?? inputTypeFromName(source);
  if (type) return type;
  if (isUrl(source))
    throw new UsageError(
      `${file}: cannot tell the input type from the URL`,
      "Pass --input-type csv|json|ndjson (the URL's path does not end in .csv, .json, .ndjson...).",
    );
  if (source !== '-') await checkFile(source, file); // a missing file is the first thing to say
  const sheet = spreadsheetByName(source);
  if (sheet) {
    throw new UsageError(
      spreadsheetMessage(file, sheet),
      `${EXPORT_CSV}. (If the file really holds CSV text, pass --input-type csv.)`,
    );
  }
  throw new UsageError(
    `${file}: cannot tell the input type from the file name`,
    'Name the file .csv, .tsv, .json, .ndjson or .jsonl (optionally .gz), or pass --input-type csv|json|ndjson.',
  );
}

/** `--delimiter` as given: `\t` and `tab` mean a tab; line breaks and quotes cannot delimit. */
export function delimiterOption(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  if (given === '\\t' || given.toLowerCase() === 'tab') return '\t';
  if (given === '' || /["\r\n\uFEFF]/.test(given)) {
    throw new UsageError(
      `--delimiter ${JSON.stringify(given)} cannot separate CSV fields`,
      'Give one character such as , ; | or tab (\\t), or leave it out to have it sniffed.',
    );
  }
  return given;
}

interface Chosen {
  encoding: ConcreteEncoding;
  notUtf8?: { offset: number; byte: number };
  /** What `--encoding auto` found, and why (said once on stderr). */
  detected?: string;
}

/** The encoding to decode with, or a `binary` issue when the bytes are not text at all. */
function chooseEncoding(
  head: Buffer,
  final: boolean,
  requested: EncodingName,
  file: string,
  log: Logger,
): Chosen | ReadItem {
  // Whatever was asked for: UTF-32 read as UTF-16 (its BOM starts like UTF-16LE's) is garbage.
  const utf32 = utf32Bom(head);
  if (utf32) throw utf32Usage(file, utf32);
  if (requested !== 'auto') {
    const binary = binaryKind(head, requested, false);
    if (binary) return binaryIssue(file, binary, head);
    // CP949 is a superset of EUC-KR: the same bytes read the same, and more of them read.
    return { encoding: requested === 'euc-kr' ? 'cp949' : requested };
  }
  const detection = detectEncoding(head, final);
  const binary = binaryKind(
    head,
    'auto',
    detection.encoding === 'utf-16le' || detection.encoding === 'utf-16be',
  );
  if (binary) return binaryIssue(file, binary, head);
  if (detection.encoding === undefined) {
    const at = detection.invalidAt;
    throw undetectedUsage(file, at, head[at], lineOfByte(head, at), detection.reason);
  }
  log.info(`${file}: encoding ${detection.encoding} (auto-detected: ${detection.reason})`);
  if (detection.encoding === 'cp949' || detection.encoding === 'shift_jis') {
    const at = firstInvalidUtf8(head, 0, final);
    return { encoding: detection.encoding, notUtf8: { offset: at, byte: head[at] } };
  }
  return { encoding: detection.encoding };
}

/** Line (from 1) of byte `offset` in an ASCII-compatible sample. */
function lineOfByte(head: Buffer, offset: number): number {
  let line = 1;
  for (let at = head.indexOf(0x0a); at !== -1 && at < offset; at = head.indexOf(0x0a, at + 1)) line++;
  return line;
}

function binaryIssue(file: string, kind: string, head: Buffer): ReadItem {
  const sheet = spreadsheetByBytes(head);
  if (sheet) return issueItem('binary', file, `${spreadsheetMessage(file, sheet)}. ${EXPORT_CSV}`);
  return issueItem(
    'binary',
    file,
    `${file} looks like ${kind}, not a text feed; nothing was read from it. Export the sheet as CSV (UTF-8) or give a JSON/NDJSON file`,
  );
}

/**
 * Encodings whose bytes can be cut into ranges of whole records: in each, the bytes 0x0A (line
 * feed), 0x0D and 0x22 (`"`) are only ever themselves, never part of a multi-byte character.
 * UTF-8's continuation bytes are 0x80-0xBF; CP949's trail bytes are 0x41-0x5A, 0x61-0x7A and
 * 0x81-0xFE; Shift_JIS's are 0x40-0x7E and 0x80-0xFC (checked against iconv-lite's tables: no
 * two-byte character of either has a trail byte 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x2C or 0x3B).
 * UTF-16 has neither property (0x0A and 0x22 are half of many characters).
 */
export type CutEncoding = 'utf-8' | 'cp949' | 'shift_jis';

/** How a plan's bytes are cut into ranges of whole records (src/feed/chunker.ts). */
export interface Cut {
  type: 'csv' | 'ndjson';
  encoding: CutEncoding;
  /** CSV: the delimiter, given or sniffed from the first bytes as the CSV reader sniffs it. */
  delimiter?: string;
}

/**
 * Whether the plan's bytes can be cut into byte ranges, each read on its own: CSV or NDJSON
 * files (not gzip, not stdin) in UTF-8, CP949 or Shift_JIS, without CR-only line ends. Anything
 * else is read in one piece (its records can still be handed on in batches).
 */
export function cutOf(plan: ReadPlan): Cut | undefined {
  const { type, head, encoding } = plan;
  if (streamedSource(plan.source) || plan.gzip || (type !== 'csv' && type !== 'ndjson')) return undefined;
  if (encoding !== 'utf-8' && encoding !== 'cp949' && encoding !== 'shift_jis') return undefined;
  const final = head.length < HEAD_BYTES;
  const whole = final ? head : head.subarray(0, head.length - incompleteTail(head));
  // Bad UTF-8 in the sample: the reader says so before reading a row.
  if (encoding === 'utf-8' && !isUtf8(whole)) return undefined;
  if (type === 'ndjson') return { type, encoding };
  // Line ends are ASCII in all three encodings: the sample's bytes as latin1 show them.
  if (guessNewline(whole.toString('latin1')) === '\r') return undefined;
  const bom = encoding === 'utf-8' && whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf;
  // iconv-lite decodes a cut-off last character as U+FFFD, which the sniffer's last line drops.
  const sample = encoding === 'utf-8' ? whole : head;
  const delimiter =
    plan.delimiter ??
    sniff(decodeSample(bom ? sample.subarray(3) : sample, encoding), head.length < READ_CHUNK);
  const code = delimiter.charCodeAt(0);
  // The cut compares raw bytes with the delimiter's: one ASCII byte, never a trail byte (a
  // Shift_JIS trail byte can be `|`).
  if (delimiter.length !== 1 || code > 0x7f || (encoding !== 'utf-8' && code >= 0x40)) return undefined;
  return { type, encoding, delimiter };
}

/** The delimiter as the CSV reader sniffs it from the first rows (src/read/csv.ts `start`). */
function sniff(text: string, final: boolean): string {
  const sep = excelSepLine(text);
  if (sep) return sep.delimiter;
  return sniffDelimiter(text, guessNewline(text), final);
}

/** Bytes of whole characters as text (bad bytes become U+FFFD: the reader reports them). */
export function decodeSample(bytes: Buffer, encoding: CutEncoding): string {
  return encoding === 'utf-8' ? bytes.toString('utf8') : iconv.decode(bytes, encoding);
}
