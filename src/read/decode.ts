import iconv from 'iconv-lite';
import { InvalidBytesError } from './bad-bytes.js';
import type { ConcreteEncoding } from './detect-encoding.js';
import { firstInvalidUtf8, incompleteTail } from './utf8.js';

/** Decoded text, chunk by chunk; never U+FFFD for a bad byte: bad bytes throw InvalidBytesError. */
export function decodeChunks(
  chunks: AsyncIterable<Buffer>,
  encoding: ConcreteEncoding,
  notUtf8?: { offset: number; byte: number },
): AsyncIterable<string> {
  if (encoding === 'utf-8') return decodeUtf8(chunks);
  const texts = decodeIconv(chunks, encoding);
  return notUtf8 ? withNotUtf8(texts, notUtf8) : texts;
}

/** Adds where the bytes stopped being UTF-8 to a decoding error, for the message. */
async function* withNotUtf8(
  texts: AsyncIterable<string>,
  notUtf8: { offset: number; byte: number },
): AsyncGenerator<string> {
  try {
    yield* texts;
  } catch (err) {
    if (!(err instanceof InvalidBytesError)) throw err;
    throw new InvalidBytesError(err.encoding, err.byteOffset, err.byteValue, err.textBefore, notUtf8);
  }
}

async function* decodeUtf8(chunks: AsyncIterable<Buffer>): AsyncGenerator<string> {
  // fatal: throw on bad bytes; the BOM is stripped (ignoreBOM false); stream: split characters survive.
  // (isUtf8 + toString was measured slower than this on Node 20: BENCHMARKS.md, "Per-row cost".)
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let offset = 0;
  /** The stream's last (up to 3) bytes: the decoder may hold a character begun in several chunks. */
  let last: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw locateUtf8(last, chunk, offset);
    }
    offset += chunk.length;
    last = chunk.length >= 3 ? chunk.subarray(chunk.length - 3) : Buffer.concat([last, chunk]).subarray(-3);
    if (text.length > 0) yield text;
  }
  let rest: string;
  try {
    rest = decoder.decode();
  } catch {
    const tail = incompleteTail(last);
    const byte = tail > 0 ? last[last.length - tail] : undefined;
    throw new InvalidBytesError('utf-8', offset - tail, byte, '');
  }
  if (rest.length > 0) yield rest;
}

function locateUtf8(last: Buffer, chunk: Buffer, offset: number): InvalidBytesError {
  // The decoder may hold the start of a character from earlier chunks: look from there.
  const carried = incompleteTail(last);
  const joined = carried > 0 ? Buffer.concat([last.subarray(last.length - carried), chunk]) : chunk;
  let at = firstInvalidUtf8(joined, 0, false);
  if (at === -1) at = 0;
  return new InvalidBytesError(
    'utf-8',
    offset - carried + at,
    joined[at],
    joined.subarray(0, at).toString('utf8'),
  );
}

/** Where iconv-lite puts U+FFFD for bytes it cannot map (it never throws). */
const REPLACEMENT = '\uFFFD';

async function* decodeIconv(
  chunks: AsyncIterable<Buffer>,
  encoding: ConcreteEncoding,
): AsyncGenerator<string> {
  const decoder = iconv.getDecoder(encoding, { stripBOM: true });
  // U+FFFD is a legitimate UTF-16 character; in the double-byte encodings it only marks bad bytes.
  const checkReplacement = encoding !== 'utf-16le' && encoding !== 'utf-16be';
  let offset = 0;
  let first = true;
  let last: Buffer | undefined;
  for await (const chunk of chunks) {
    let text = decoder.write(chunk);
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    if (checkReplacement) {
      const bad = text.indexOf(REPLACEMENT);
      if (bad !== -1) throw locateReplacement(text, bad, chunk, offset, encoding);
    }
    offset += chunk.length;
    last = chunk;
    if (text.length > 0) yield text;
  }
  // iconv-lite drops a last odd byte of UTF-16 without a word: it is a cut-off character.
  if (!checkReplacement && offset % 2 === 1) {
    throw new InvalidBytesError(encoding, offset - 1, last?.[last.length - 1], '');
  }
  const rest = decoder.end() ?? '';
  if (checkReplacement && rest.includes(REPLACEMENT)) {
    throw new InvalidBytesError(encoding, Math.max(0, offset - 1), undefined, '');
  }
  if (rest.length > 0) yield rest;
}

function locateReplacement(
  text: string,
  bad: number,
  chunk: Buffer,
  offset: number,
  encoding: ConcreteEncoding,
): InvalidBytesError {
  const before = text.slice(0, bad);
  // Re-encoding the good text gives its byte length (a character carried over from the previous
  // chunk may shift this by one byte).
  const within = Math.min(chunk.length - 1, Math.max(0, iconv.encode(before, encoding).length));
  return new InvalidBytesError(encoding, offset + within, chunk[within], before);
}
