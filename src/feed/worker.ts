import { parentPort, workerData } from 'node:worker_threads';
import { resolveFeedMapping } from '../map/presets.js';
import { type RecordMaker, recordMaker } from '../read/record-maker.js';
import { ExitError } from '../shared/errors.js';
import type { FeedItem, ReadItem } from '../shared/types.js';
import { processReads, type SourceKeying } from './pipeline.js';
import type { FromWorker, ToWorker, WorkerInput } from './threads.js';

/**
 * The feed worker (src/pipeline-thread.ts): map -> build -> validate (-> one JSON.stringify per
 * valid payload) over the reads the main thread sends, answering each message with the rows it
 * produced and a 'done'. The main thread sends at most a few messages ahead: memory stays flat.
 */
const port = parentPort!;
const { files, feed, serialize, keyed } = workerData as WorkerInput;
/** Source keys: the accepted ones' table arrives in a message before the first read. */
const keying: SourceKeying | undefined = keyed ? {} : undefined;

/** Reads and ends of files, in order ('known' is taken at once). */
type Queued = Exclude<ToWorker, { t: 'known' }>;
const inbox: Queued[] = [];
let wake: (() => void) | undefined;
port.on('message', (m: ToWorker) => {
  if (m.t === 'known') {
    if (keying) keying.known = m.data;
    return;
  }
  inbox.push(m);
  wake?.();
  wake = undefined;
});

async function nextMessage(): Promise<Queued> {
  while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
  return inbox.shift()!;
}

/**
 * First size of a chunk's JSON buffer: what the last chunk used and an eighth more, so chunks
 * rarely grow and the buffers that batches keep alive carry little slack. 64 KiB or more, so
 * the buffer never comes from Node's shared pool (which cannot be transferred).
 */
const MIN_CHUNK_BYTES = 64 * 1024;
let chunkBytes = MIN_CHUNK_BYTES;

/**
 * One chunk on the wire, cheap to send: issue-free rows as typed arrays; the others whole; the
 * valid payloads' JSON as UTF-8 in one buffer that is transferred, not cloned (the main thread
 * then neither decodes a copy of each text nor encodes it again: BENCHMARKS.md).
 */
class Chunk {
  rows: number[] = [];
  lines: number[] = [];
  fileIndex: number[] = [];
  skus: (string | undefined)[] = [];
  /** With source keys: each row's key, and 1 for an unchanged row. */
  sources: (string | undefined)[] = [];
  unchanged: number[] = [];
  /** Where each row's JSON ends in `bytes`; -1 for rows without JSON. */
  ends: number[] = [];
  bytes: Buffer = Buffer.allocUnsafe(0);
  used = 0;
  others: [number, FeedItem][] = [];

  /** Appends one payload's JSON as UTF-8. */
  addJson(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    const need = this.used + text.length * 3;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2, chunkBytes));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    this.used += this.bytes.write(text, this.used);
    this.ends.push(this.used);
  }
}

const fileNames: string[] = [];
const fileIndexOf = new Map<string, number>();
let chunk = new Chunk();

function add(item: FeedItem): void {
  let fi = fileIndexOf.get(item.file);
  if (fi === undefined) {
    fi = fileNames.push(item.file) - 1;
    fileIndexOf.set(item.file, fi);
  }
  const i = chunk.rows.length;
  chunk.rows.push(item.row);
  chunk.lines.push(item.line);
  chunk.fileIndex.push(fi);
  chunk.skus.push(item.sku);
  if (keying) {
    chunk.sources.push(item.source);
    chunk.unchanged.push(item.unchanged ? 1 : 0);
  }
  if (serialize) {
    if (item.valid && item.payload !== undefined) chunk.addJson(JSON.stringify(item.payload));
    else chunk.ends.push(-1);
  }
  // Only rows with issues travel whole (without their payload); the copy is made for them alone.
  if (!item.valid || item.issues.length > 0) {
    const { payload: _payload, ...rest } = item;
    chunk.others.push([i, rest]);
  }
}

function flush(): void {
  if (chunk.rows.length === 0) return;
  const rows = Int32Array.from(chunk.rows);
  const lines = Int32Array.from(chunk.lines);
  const fileIndex = Uint16Array.from(chunk.fileIndex);
  const message: FromWorker = {
    t: 'rows',
    files: fileNames,
    rows,
    lines,
    fileIndex,
    skus: chunk.skus,
    others: chunk.others,
  };
  const transfer: ArrayBuffer[] = [rows.buffer, lines.buffer, fileIndex.buffer];
  if (keying) {
    const unchanged = Uint8Array.from(chunk.unchanged);
    message.sources = chunk.sources;
    message.unchanged = unchanged;
    transfer.push(unchanged.buffer);
  }
  if (serialize) {
    const ends = Int32Array.from(chunk.ends);
    // The buffer's own ArrayBuffer: chunk buffers are 64 KiB or more, never from the shared pool.
    message.json = { bytes: new Uint8Array(chunk.bytes.buffer, chunk.bytes.byteOffset, chunk.used), ends };
    transfer.push(ends.buffer);
    if (chunk.used > 0) transfer.push(chunk.bytes.buffer as ArrayBuffer);
    chunkBytes = Math.max(MIN_CHUNK_BYTES, Math.ceil(chunk.used * 1.125));
  }
  port.postMessage(message, transfer);
  chunk = new Chunk();
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

/** One file's reads as the main thread sends them; each message is answered once its rows are out. */
async function* reads(): AsyncGenerator<ReadItem> {
  for (;;) {
    const m = await nextMessage();
    if (m.t === 'eof') {
      port.postMessage({ t: 'done' } satisfies FromWorker);
      return;
    }
    const make = m.keys ? makerFor(m.keys) : undefined;
    for (const item of m.items) {
      if (item.type !== 'values') yield item;
      else {
        const { file, row, line, values } = item;
        yield {
          type: 'record',
          record: { file, row, line, fields: make!(values as string[]), shape: 'rows' },
        };
      }
    }
    // Back here when the pipeline asks for more: every item of the message has been processed.
    flush();
    port.postMessage({ t: 'done' } satisfies FromWorker);
  }
}

async function run(): Promise<void> {
  const mapping = resolveFeedMapping(feed);
  for await (const item of processReads(files, reads, feed, mapping, keying)) add(item);
  flush();
  port.postMessage({ t: 'end' } satisfies FromWorker);
}

run().catch((err: unknown) => {
  const m: FromWorker =
    err instanceof ExitError
      ? { t: 'error', code: err.exitCode, m: err.message, hint: err.hint }
      : { t: 'error', m: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack };
  port.postMessage(m);
});
