import { isUtf8 } from 'node:buffer';
import { decodeChunks } from '../read/decode.js';
import { NUL, NulWatch, readText } from '../read/index.js';
import type { Logger } from '../shared/logger.js';
import type { ReadItem } from '../shared/types.js';
import type { RangeJob } from './jobs.js';

/** A feed worker's byte ranges (src/feed/jobs.ts) as records: loaded by the worker on its first range. */

const silent: Logger = { fancy: false, info() {}, warn() {}, error() {}, debug() {} };

/**
 * Bytes per piece, and characters per parse: 16 KiB measured best of 16 KiB to 4 MiB (100k
 * short rows: -8% CPU and -60 MiB peak RSS against the range at once; BENCHMARKS.md).
 */
const PIECE = 16 * 1024;

/**
 * A range's records: its text after the header, in pieces of about PIECE bytes cut after line
 * feeds (never inside a character), so the reader holds a piece's records at a time. UTF-8:
 * `toString` when the bytes are valid (`isUtf8` is cheap), else the fatal decoder for its message.
 */
export function rangeReads(job: RangeJob, file: string): AsyncIterable<ReadItem> {
  const { cut, autoEncoding } = job;
  // The range's bytes are all here: one byte search says whether any piece can hold a NUL.
  const watch = new NulWatch(cut.encoding);
  watch.see(job.body);
  const nulFree = watch.free() && !job.header.includes(NUL);
  return readText(cut.type, rangeTexts(job), {
    file,
    delimiter: cut.delimiter,
    autoEncoding,
    log: silent,
    parseChunk: PIECE,
    nulFree: () => nulFree,
  });
}

async function* rangeTexts(job: RangeJob): AsyncGenerator<string> {
  const bytes = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  if (job.header.length > 0) yield job.header;
  if (job.cut.encoding === 'utf-8' && isUtf8(bytes)) {
    for (const piece of pieces(bytes)) yield piece.toString('utf8');
    return;
  }
  yield* decodeChunks(asAsync(pieces(bytes)), job.cut.encoding, job.notUtf8);
}

function* pieces(bytes: Buffer): Generator<Buffer> {
  let at = 0;
  while (at < bytes.length) {
    const lf = at + PIECE < bytes.length ? bytes.indexOf(0x0a, at + PIECE) : -1;
    const end = lf === -1 ? bytes.length : lf + 1;
    yield bytes.subarray(at, end);
    at = end;
  }
}

async function* asAsync(parts: Iterable<Buffer>): AsyncGenerator<Buffer> {
  yield* parts;
}

/** Line feeds in a range: its lines, for the positions of the ranges after it. */
export function lineFeeds(body: Uint8Array): number {
  let n = 0;
  for (let at = body.indexOf(0x0a); at !== -1; at = body.indexOf(0x0a, at + 1)) n++;
  return n;
}
