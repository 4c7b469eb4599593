import { isUtf8 } from 'node:buffer';
import { parentPort, workerData } from 'node:worker_threads';
import { resolveFeedMapping } from '../map/presets.js';
import { readCsv } from '../read/csv.js';
import { decodeChunks } from '../read/decode.js';
import { readNdjson } from '../read/ndjson.js';
import { ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { FeedItem, ReadItem } from '../shared/types.js';
import { gtinOf } from '../validate/duplicate-gtins.js';
import { FeedProcessor, processFile, type SourceKeying } from './pipeline.js';
import type { FromPool, KnownMessage, PoolInput, ToPool } from './pool.js';

/**
 * A pool worker (src/feed/pool.ts): decodes one chunk of whole records, parses it with the
 * file's header, and runs the same per-file processing as one thread (`processFile`), with
 * rows and lines counted from the chunk's start. Duplicate SKUs are left to the main thread,
 * which sees every chunk in order.
 */
const port = parentPort!;
const { files, feed, serialize, keyed } = workerData as PoolInput;
/** Source keys: the accepted ones' table arrives in a message before the first chunk. */
const keying: SourceKeying | undefined = keyed ? {} : undefined;
const processor = new FeedProcessor(feed, resolveFeedMapping(feed), files, false, keying);
const silent: Logger = { fancy: false, info() {}, warn() {}, error() {}, debug() {} };

const queue: ToPool[] = [];
let busy = false;
port.on('message', (m: ToPool | KnownMessage) => {
  if ('known' in m) {
    if (keying) keying.known = m.known;
    return;
  }
  queue.push(m);
  if (!busy) void drain();
});

async function drain(): Promise<void> {
  busy = true;
  for (let m = queue.shift(); m; m = queue.shift()) {
    const { message, transfer } = await processChunk(m);
    port.postMessage(message, transfer);
  }
  busy = false;
}

/**
 * The chunk's text after the header, in pieces of about PIECE bytes cut after line feeds (never
 * inside a character): the reader then holds a piece's records at a time, not the chunk's,
 * which keeps what survives each young-generation GC small (BENCHMARKS.md, "The worker pool").
 * UTF-8: `toString` when the bytes are valid (`isUtf8` is cheap), else the fatal decoder for
 * its message. CP949 and Shift_JIS: iconv-lite, as on one thread (src/feed/pool.ts, PoolEncoding).
 */
async function* texts(m: ToPool): AsyncGenerator<string> {
  const bytes = Buffer.from(m.body.buffer, m.body.byteOffset, m.body.byteLength);
  if (m.header.length > 0) yield m.header;
  if (m.encoding === 'utf-8' && isUtf8(bytes)) {
    for (const piece of pieces(bytes)) yield piece.toString('utf8');
    return;
  }
  yield* decodeChunks(asAsync(pieces(bytes)), m.encoding, m.notUtf8);
}

/**
 * Bytes per piece, and characters per parse: 16 KiB measured best of 16 KiB to 4 MiB (100k
 * short rows: -8% CPU and -60 MiB peak RSS against the chunk at once; BENCHMARKS.md).
 */
const PIECE = 16 * 1024;

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

/** Valid rows' payload JSON as UTF-8 in one growing buffer; row i's bytes end at ends[i]. */
class JsonBytes {
  /** 64 KiB or more: never from Node's shared pool, so it can be transferred. */
  bytes = Buffer.allocUnsafeSlow(64 * 1024);
  used = 0;

  add(text: string): number {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const need = this.used + text.length * 3;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, this.bytes.length * 2));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    return this.used;
  }
}

/**
 * One chunk's items, compactly (as src/feed/worker.ts sends them): valid issue-free rows as
 * typed arrays of rows and lines and their SKUs; only the others travel whole; the payloads'
 * JSON in one transferred buffer. Cloning an object per row cost the main thread more than
 * the rest of its work (BENCHMARKS.md, "The worker pool").
 */
async function processChunk(m: ToPool): Promise<{ message: FromPool; transfer: ArrayBuffer[] }> {
  const file = files[m.fileIndex];
  const rowOf: number[] = [];
  const lineOf: number[] = [];
  const skus: (string | undefined)[] = [];
  const gtins: (string | undefined)[] = [];
  const checked: number[] = [];
  const sources: (string | undefined)[] = [];
  const unchanged: number[] = [];
  const ends: number[] = [];
  const others: [number, FeedItem][] = [];
  const json = serialize ? new JsonBytes() : undefined;
  let rows = 0;
  let error: FromPool['error'];
  try {
    const text = texts(m);
    const reads: AsyncIterable<ReadItem> =
      m.kind === 'csv'
        ? readCsv(text, { file, delimiter: m.delimiter, autoEncoding: m.autoEncoding, parseChunk: PIECE })
        : readNdjson(text, { file, autoEncoding: m.autoEncoding, log: silent });
    for await (const item of processFile(processor, m.fileIndex, reads)) {
      if (item.row > rows) rows = item.row;
      const i = rowOf.length;
      rowOf.push(item.row);
      lineOf.push(item.line);
      skus.push(item.sku);
      gtins.push(gtinOf(item.payload));
      // An unchanged row has no payload, but it is a product: the duplicate check applies.
      checked.push((item.payload !== undefined || item.unchanged) && item.sku !== undefined ? 1 : 0);
      if (keying) {
        sources.push(item.source);
        unchanged.push(item.unchanged ? 1 : 0);
      }
      if (json)
        ends.push(item.valid && item.payload !== undefined ? json.add(JSON.stringify(item.payload)) : -1);
      if (!item.valid || item.issues.length > 0) {
        const { payload: _payload, ...rest } = item;
        others.push([i, rest]);
      }
    }
  } catch (err) {
    error =
      err instanceof ExitError
        ? { code: err.exitCode, m: err.message, hint: err.hint }
        : { m: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack };
  }
  let lines = 0;
  for (let at = m.body.indexOf(0x0a); at !== -1; at = m.body.indexOf(0x0a, at + 1)) lines++;
  const rowArray = Int32Array.from(rowOf);
  const lineArray = Int32Array.from(lineOf);
  const checkedArray = Uint8Array.from(checked);
  const message: FromPool = {
    seq: m.seq,
    row: rowArray,
    line: lineArray,
    skus,
    gtins,
    checked: checkedArray,
    others,
    rows,
    lines,
    error,
  };
  const transfer: ArrayBuffer[] = [rowArray.buffer, lineArray.buffer, checkedArray.buffer];
  if (keying) {
    const unchangedArray = Uint8Array.from(unchanged);
    message.sources = sources;
    message.unchanged = unchangedArray;
    transfer.push(unchangedArray.buffer);
  }
  if (json) {
    const endArray = Int32Array.from(ends);
    message.json = { bytes: new Uint8Array(json.bytes.buffer, 0, json.used), ends: endArray };
    transfer.push(endArray.buffer, json.bytes.buffer as ArrayBuffer);
  }
  return { message, transfer };
}
