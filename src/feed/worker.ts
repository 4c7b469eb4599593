import { isUtf8 } from 'node:buffer';
import { workerData } from 'node:worker_threads';
import { resolveFeedMapping } from '../map/presets.js';
import { decodeChunks } from '../read/decode.js';
import { NUL, NulWatch, readText } from '../read/index.js';
import { type RecordMaker, recordMaker } from '../read/record-maker.js';
import type { Logger } from '../shared/logger.js';
import type { ReadItem } from '../shared/types.js';
import { serveTasks } from '../shared/worker-pool.js';
import type { Job, JobResult, RangeJob, RecordsJob, WorkerInput } from './jobs.js';
import { ResultPacker } from './jobs.js';
import { FeedProcessor, FileReads, type SourceKeying } from './pipeline.js';
import type { ProcessedItem } from './settle.js';

/**
 * The feed worker: one job at a time (src/feed/jobs.ts), through the same processor as the
 * feed on one thread, into one compact answer.
 */
const { files, feed, serialize, keyed } = workerData as WorkerInput;
const keying: SourceKeying | undefined = keyed ? { settings: keyed.settings } : undefined;
const processor = new FeedProcessor(feed, resolveFeedMapping(feed), files, keying);
const silent: Logger = { fancy: false, info() {}, warn() {}, error() {}, debug() {} };

serveTasks<Job, JobResult>(async (job) => {
  if (keying) keying.known = job.known;
  const packer = new ResultPacker(serialize, keying !== undefined);
  const reads = job.kind === 'range' ? rangeReads(job) : batchReads(job);
  let failure: unknown;
  try {
    processor.startFile(job.fileIndex);
    const file = new FileReads(processor);
    const out: ProcessedItem[] = [];
    for await (const read of reads) {
      file.take(read, out);
      for (const item of out) packer.add(item);
      out.length = 0;
    }
    file.end(out);
    for (const item of out) packer.add(item);
  } catch (err) {
    failure = err;
  }
  return packer.finish(job.kind === 'range' ? lineFeeds(job.body) : 0, failure);
});

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
function rangeReads(job: RangeJob): AsyncIterable<ReadItem> {
  const { cut, autoEncoding } = job;
  // The range's bytes are all here: one byte search says whether any piece can hold a NUL.
  const watch = new NulWatch(cut.encoding);
  watch.see(job.body);
  const nulFree = watch.free() && !job.header.includes(NUL);
  return readText(cut.type, rangeTexts(job), {
    file: files[job.fileIndex],
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

function lineFeeds(body: Uint8Array): number {
  let n = 0;
  for (let at = body.indexOf(0x0a); at !== -1; at = body.indexOf(0x0a, at + 1)) n++;
  return n;
}

/** Compiled once per column set, as the reader compiles it: the same objects as on the main thread. */
const makers = new Map<string, RecordMaker>();

function makerFor(keys: string[]): RecordMaker {
  const id = keys.join('\u0000');
  let maker = makers.get(id);
  if (!maker) {
    maker = recordMaker(keys);
    makers.set(id, maker);
  }
  return maker;
}

async function* batchReads(job: RecordsJob): AsyncGenerator<ReadItem> {
  const make = job.keys ? makerFor(job.keys) : undefined;
  for (const item of job.items) {
    if (item.type !== 'values') yield item;
    else {
      const { file, row, line, values } = item;
      yield { type: 'record', record: { file, row, line, fields: make!(values as string[]), shape: 'rows' } };
    }
  }
}
