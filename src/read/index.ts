import { UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { EncodingName, InputType, ReadItem } from '../shared/types.js';
import { binaryKind } from './binary.js';
import { readCsv } from './csv.js';
import { decodeChunks, undetectedUsage, utf32Usage } from './decode.js';
import { type ConcreteEncoding, detectEncoding, utf32Bom } from './detect-encoding.js';
import { inputTypeFromName } from './input-type.js';
import { issueItem } from './issues.js';
import { readJson } from './json.js';
import { HEAD_BYTES } from './limits.js';
import { readNdjson } from './ndjson.js';
import { checkFile, gunzip, isGzip, openBytes, peek } from './open.js';
import { EXPORT_CSV, spreadsheetByBytes, spreadsheetByName, spreadsheetMessage } from './spreadsheet.js';
import { firstInvalidUtf8 } from './utf8.js';

export { inputTypeFromName } from './input-type.js';

export interface ReadOptions {
  encoding: EncodingName;
  /** Undefined: sniffed among `,` `;` tab `|`. */
  delimiter?: string;
  /** Undefined: from the file name (required for stdin). */
  inputType?: InputType;
}

export const STDIN_NAME = '<stdin>';

/**
 * Reads one feed as records in order, with issues where problems occur (docs/reading.md).
 * source: a file path, or '-' for stdin (then options.inputType is required).
 * Fatal problems (missing file, unknown type, undecodable bytes) throw UsageError.
 */
export async function* readFeed(
  source: string,
  options: ReadOptions,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
): AsyncGenerator<ReadItem> {
  const file = source === '-' ? STDIN_NAME : source;
  if (source === '-' && !options.inputType) {
    throw new UsageError(
      'reading stdin (-) needs --input-type',
      'Say what comes in: --input-type csv, --input-type json or --input-type ndjson.',
    );
  }
  const delimiter = delimiterOption(options.delimiter);
  const type = options.inputType ?? inputTypeFromName(source);
  if (!type) {
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

  // process.stdin is touched only when it is read: the getter opens the stream.
  let bytes = await openBytes(source, file, () => stdin ?? process.stdin);
  let peeked = await peek(bytes, HEAD_BYTES);
  try {
    if (isGzip(peeked.head)) {
      bytes = gunzip(peeked.all, file);
      peeked = await peek(bytes, HEAD_BYTES);
    }
    const { head } = peeked;
    if (head.length === 0) {
      yield issueItem('empty_file', file, `${file} is empty`);
      return;
    }
    const chosen = chooseEncoding(head, head.length < HEAD_BYTES, options.encoding, file, log);
    if ('type' in chosen) {
      yield chosen;
      return;
    }
    const { encoding } = chosen;
    const texts = decodeChunks(peeked.all, encoding, chosen.notUtf8);
    const autoEncoding = options.encoding === 'auto';
    if (type === 'csv') yield* readCsv(texts, { file, delimiter, autoEncoding });
    else if (type === 'json') yield* readJson(texts, { file, autoEncoding, log });
    else yield* readNdjson(texts, { file, autoEncoding, log });
  } finally {
    await peeked.close();
  }
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
  /** Guessed CP949 or Shift_JIS: where the bytes stopped being UTF-8 (for the message if decoding fails). */
  notUtf8?: { offset: number; byte: number };
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
