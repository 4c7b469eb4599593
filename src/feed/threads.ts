import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { resolveFeedMapping } from '../map/presets.js';
import { type ExitCodeValue, ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { FeedItem, FeedOptions, Issue, ReadItem } from '../shared/types.js';
import type { FeedRow } from './feed-row.js';
import type { KnownSources, KnownSourcesData } from './known-sources.js';
import { feedItems, sameKeys } from './pipeline.js';
import { pooledRows, poolPlans } from './pool.js';

/**
 * The pipeline on two threads: this thread reads (decode, parse, positions, read issues) and the
 * feed worker maps, builds, validates and, when asked, serializes each valid payload once. On two
 * cores the reading then hides behind the per-row work (BENCHMARKS.md). Items come out exactly as
 * `feedItems` yields them, in order: the worker runs the same `processReads` over the same reads.
 */
export type { FeedRow } from './feed-row.js';

export interface FeedRowsOptions {
  /** Consumers that write or send the payloads ask for their JSON. */
  serialize: boolean;
  /**
   * true/false forces the choice; by default a second thread is used for inputs of 4 MiB or
   * more. A number N >= 2 (`--threads N`) asks for a pool of N workers (as `pool`).
   */
  threaded?: boolean | number;
  /** The worker's module (tests point it at the build). */
  workerUrl?: URL;
  /**
   * 2 or more: a pool of that many workers, each reading whole chunks (src/feed/pool.ts), for
   * runs whose files are all UTF-8 CSV or NDJSON; other runs keep the path `threaded` picks.
   */
  pool?: number;
  /** The pool worker's module (tests point it at the build). */
  poolWorkerUrl?: URL;
  /** Bytes per pool chunk (tests make it small). */
  chunkTarget?: number;
  /** `auto`: inputs of this many bytes or more go to the pool (tests make it small). */
  poolMinBytes?: number;
  /**
   * An upload with state: key every row (`source`), and skip those whose key is in `known`
   * (`unchanged`; docs/nightly.md, "Unchanged rows").
   */
  keys?: {
    /**
     * Builds the table; called once the feed's threads are starting, so that reading the state
     * and their start-up (modules, schemas) overlap.
     */
    known?: () => KnownSources;
  };
}

/** The payload as UTF-8 JSON: made on the worker, or here for rows that came in-thread. */
export function payloadJson(row: FeedRow): Uint8Array | undefined {
  return row.json ?? (row.payload === undefined ? undefined : Buffer.from(JSON.stringify(row.payload)));
}

/**
 * A read as it crosses to the worker. Flat records whose columns are the message's `keys` travel
 * as their values only: an array of strings clones about 3x cheaper than an object that repeats
 * every column name (BENCHMARKS.md); the worker rebuilds the same object.
 */
export type WireRead =
  | ReadItem
  | { type: 'values'; file: string; row: number; line: number; values: unknown[] };

/** Main thread -> worker. `done` answers each message: its items were processed and sent back. */
export type ToWorker =
  | { t: 'reads'; items: WireRead[]; keys?: string[] }
  | { t: 'eof' }
  /** The accepted source keys (shared memory), before the first read. */
  | { t: 'known'; data: KnownSourcesData };

export type FromWorker =
  | {
      t: 'rows';
      /** File names so far; rows name theirs by index. */
      files: string[];
      rows: Int32Array;
      lines: Int32Array;
      fileIndex: Uint16Array;
      skus: (string | undefined)[];
      /**
       * Valid rows' payload JSON as UTF-8, when asked for: row i's bytes end at `ends[i]` and
       * start where the previous row's ended; -1 for rows without JSON.
       */
      json?: { bytes: Uint8Array; ends: Int32Array };
      /** Rows with issues or invalid, whole: [position in the chunk, item without payload]. */
      others: [number, FeedItem][];
      /** With source keys: row i's key, and 1 when it is unchanged (src/feed/source-keys.ts). */
      sources?: (string | undefined)[];
      unchanged?: Uint8Array;
    }
  | { t: 'done' }
  | { t: 'end' }
  | { t: 'error'; code?: ExitCodeValue; m: string; hint?: string; stack?: string };

export interface WorkerInput {
  files: string[];
  feed: FeedOptions;
  serialize: boolean;
  /** Source keys: each row keyed; the known ones' table comes in a message ('known'). */
  keyed: boolean;
}

const WORKER_URL = new URL('./worker.js', import.meta.url);
/** Records per message: large enough that cloning is cheap per row, small enough to keep memory flat. */
const CHUNK_RECORDS = 256;
/** Chunks the worker may have queued: keeps it busy while this thread is elsewhere. */
const AHEAD = 6;
/** Below a few MB a second thread's start-up (modules, schema compilation) costs more than it saves. */
const THREAD_MIN_BYTES = 4 * 1024 * 1024;
/**
 * From this size `auto` uses the pool (one worker per core): each worker's start-up and JIT
 * warm-up (about 1 s of CPU for two) pay off only over many rows. On 2 cores the pool was at
 * least as fast as the two threads from 250 MiB of 1.6 KB rows and 360 MiB of 360-byte rows,
 * and slower at 36 and 157 MiB (BENCHMARKS.md, "The worker pool").
 */
export const POOL_MIN_BYTES = 256 * 1024 * 1024;
/** A pool takes at most this many workers (as `--threads`). */
const MAX_POOL = 64;
/** Shared by every issue-free row; nobody mutates it. */
const NO_ISSUES: Issue[] = [];

export function feedRows(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
  options: FeedRowsOptions,
): AsyncIterable<FeedRow> {
  const asked = options.pool ?? (typeof options.threaded === 'number' ? options.threaded : undefined);
  const auto = asked === undefined && options.threaded === undefined;
  const size = auto ? inputBytes(files) : undefined;
  const pool = auto ? autoThreads(size, availableParallelism(), options.poolMinBytes) : asked;
  if (pool !== undefined && pool >= 2) {
    const plans = poolPlans(files, feed);
    if (plans) {
      return pooledRows(files, feed, log, plans, {
        threads: pool,
        serialize: options.serialize,
        workerUrl: options.poolWorkerUrl,
        chunkTarget: options.chunkTarget,
        keys: options.keys,
      });
    }
  }
  const url = options.workerUrl ?? WORKER_URL;
  // A count asked for a pool the files cannot use: they get the second thread.
  const forced = typeof options.threaded === 'number' ? options.threaded >= 1 : options.threaded;
  const second = forced ?? (auto ? autoThreads(size, availableParallelism(), Infinity) === 1 : false);
  const threaded = second && existsSync(fileURLToPath(url));
  return threaded
    ? threadedRows(files, feed, log, stdin, { serialize: options.serialize, keys: options.keys }, url)
    : feedItems(files, feed, log, stdin, options.keys && { known: options.keys.known?.().data });
}

/**
 * What `--threads auto` runs on, by the input's size in bytes (undefined: unknown, stdin):
 * 0 (all on this thread) under 4 MiB or on one core; a pool of one worker per core from
 * `poolMin` bytes; else 1 (reading here, the rest on a second thread), also for stdin.
 */
export function autoThreads(bytes: number | undefined, cores: number, poolMin = POOL_MIN_BYTES): number {
  if (cores < 2) return 0;
  if (bytes === undefined) return 1; // stdin: size unknown, and pipes are used for big feeds
  if (bytes >= poolMin) return Math.min(cores, MAX_POOL);
  return bytes >= THREAD_MIN_BYTES ? 1 : 0;
}

/** The files' total size; undefined for stdin; 0 when one cannot be read (the reader says why). */
function inputBytes(files: string[]): number | undefined {
  let bytes = 0;
  for (const file of files) {
    if (file === '-') return undefined;
    try {
      bytes += statSync(file).size;
    } catch {
      return 0;
    }
  }
  return bytes;
}

/** All files' reads in order, a `null` after each file. */
async function* allReads(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
): AsyncGenerator<ReadItem | null> {
  const { readFeed } = await import('../read/index.js');
  const options = { encoding: feed.encoding, delimiter: feed.delimiter, inputType: feed.inputType };
  for (const file of files) {
    yield* readFeed(file, options, log, stdin);
    yield null;
  }
}

async function* threadedRows(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
  run: { serialize: boolean; keys?: FeedRowsOptions['keys'] },
  url: URL,
): AsyncGenerator<FeedRow> {
  // A bad mapping file is a usage error: say it before any thread starts, as in-thread runs do.
  // Both threads count relative dates and sale windows from the same instant.
  feed = { ...feed, runDate: feed.runDate ?? new Date().toISOString() };
  resolveFeedMapping(feed);
  const input: WorkerInput = { files, feed, serialize: run.serialize, keyed: run.keys !== undefined };
  const worker = new Worker(url, { workerData: input });
  // The table after the worker has started (see FeedRowsOptions.keys); before any read.
  const known = run.keys?.known?.();
  if (known) worker.postMessage({ t: 'known', data: known.data } satisfies ToWorker);
  const inbox = new WorkerInbox(worker);
  const chunks = new ChunkSender(allReads(files, feed, log, stdin), files.length, (m) =>
    worker.postMessage(m),
  );
  try {
    for (;;) {
      while (chunks.reading && chunks.queued < AHEAD) await chunks.readChunk();
      const m = await inbox.next();
      if (m.t === 'rows') yield* rowsOf(m);
      else if (m.t === 'done') chunks.queued--;
      else if (m.t === 'end') {
        if (chunks.readError !== undefined) throw chunks.readError;
        return;
      } else {
        if (m.code !== undefined) throw new ExitError(m.code, m.m, m.hint);
        const err = new Error(m.m);
        if (m.stack) err.stack = m.stack;
        throw err;
      }
    }
  } finally {
    // Also when the consumer stops early (401, Ctrl-C) or reading failed: nothing more is read.
    await chunks.close();
    await worker.terminate();
  }
}

/** The worker's messages, one at a time; its crash or early exit becomes an error. */
class WorkerInbox {
  private readonly queue: FromWorker[] = [];
  private notify: (() => void) | undefined;
  private failure: Error | undefined;
  private exited = false;

  constructor(worker: Worker) {
    const wake = () => {
      this.notify?.();
      this.notify = undefined;
    };
    worker.on('message', (m: FromWorker) => {
      this.queue.push(m);
      wake();
    });
    worker.on('error', (err) => {
      this.failure = err;
      wake();
    });
    worker.on('exit', () => {
      this.exited = true;
      wake();
    });
  }

  async next(): Promise<FromWorker> {
    for (;;) {
      const m = this.queue.shift();
      if (m) return m;
      if (this.failure) throw this.failure;
      if (this.exited) throw new Error('the feed worker stopped without finishing');
      await new Promise<void>((resolve) => (this.notify = resolve));
    }
  }
}

/**
 * Reads records in chunks of CHUNK_RECORDS and posts them to the worker; flat records whose
 * columns are the chunk's first record's travel as their values only (see WireRead).
 */
class ChunkSender {
  reading = true;
  /** Messages the worker has not answered with 'done' yet. */
  queued = 0;
  /** A reading failure (a usage error such as undecodable bytes): thrown once the rows before it are out. */
  readError: unknown;
  private filesRead = 0;
  /** The columns of this chunk's flat records sent as values (those of its first flat record). */
  private keys: string[] | undefined;

  constructor(
    private readonly reads: AsyncGenerator<ReadItem | null>,
    private readonly fileCount: number,
    private readonly postMessage: (m: ToWorker) => void,
  ) {}

  private post(m: ToWorker): void {
    this.postMessage(m);
    this.queued++;
  }

  private packed(item: ReadItem): WireRead {
    if (item.type !== 'record' || item.record.shape !== 'rows') return item;
    const { fields, file, row, line } = item.record;
    if (this.keys === undefined) this.keys = Object.keys(fields);
    else if (!sameKeys(fields, this.keys)) return item;
    return { type: 'values', file, row, line, values: Object.values(fields) };
  }

  private send(items: WireRead[]): void {
    this.post(this.keys ? { t: 'reads', items, keys: this.keys } : { t: 'reads', items });
  }

  /** Reads up to one chunk of records (or to the end of a file) and hands it to the worker. */
  async readChunk(): Promise<void> {
    const items: WireRead[] = [];
    this.keys = undefined;
    let records = 0;
    try {
      for (;;) {
        const next = await this.reads.next();
        if (next.done) {
          this.reading = false;
          break;
        }
        const item = next.value;
        if (item === null) {
          if (items.length > 0) this.send(items);
          this.post({ t: 'eof' });
          this.filesRead++;
          return;
        }
        items.push(this.packed(item));
        if (item.type === 'record' && ++records === CHUNK_RECORDS) break;
      }
    } catch (err) {
      this.readError = err;
      this.reading = false;
    }
    if (items.length > 0) this.send(items);
    // After a failure the worker still ends each file, so every row read so far comes out.
    if (this.readError !== undefined) while (this.filesRead++ < this.fileCount) this.post({ t: 'eof' });
  }

  async close(): Promise<void> {
    await this.reads.return(undefined);
  }
}

function* rowsOf(m: Extract<FromWorker, { t: 'rows' }>): Generator<FeedRow> {
  let next = 0;
  let start = 0;
  for (let i = 0; i < m.rows.length; i++) {
    let row: FeedRow;
    if (next < m.others.length && m.others[next][0] === i) row = m.others[next++][1];
    else {
      row = {
        file: m.files[m.fileIndex[i]],
        row: m.rows[i],
        line: m.lines[i],
        issues: NO_ISSUES,
        valid: true,
      };
      if (m.skus[i] !== undefined) row.sku = m.skus[i];
      if (m.sources?.[i] !== undefined) row.source = m.sources[i];
      if (m.unchanged?.[i] === 1) row.unchanged = true;
    }
    if (m.json !== undefined) {
      const end = m.json.ends[i];
      // Views into the chunk's buffer, no copy: the batch body copies them once when it is built.
      if (end >= 0) {
        row.json = m.json.bytes.subarray(start, end);
        start = end;
      }
    }
    yield row;
  }
}
