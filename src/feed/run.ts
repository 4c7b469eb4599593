import { existsSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { resolveFeedMapping } from '../map/presets.js';
import { transformReads } from '../map/transforms/index.js';
import { priceOf } from '../payload/price.js';
import type { RemoteSettings } from '../read/feed-url.js';
import { readPlanned } from '../read/index.js';
import {
  type Cut,
  cutOf,
  decodeSample,
  planRead,
  type ReadPlan,
  sourceName,
  streamedSource,
} from '../read/plan.js';
import { flatten } from '../shared/flatten.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions, ReadItem } from '../shared/types.js';
import { untilStopped } from '../shared/until-stopped.js';
import { WorkerPool } from '../shared/worker-pool.js';
import { CHUNK_TARGET, Chunker, type FeedChunk } from './chunker.js';
import type { FeedRow } from './feed-row.js';
import { processBatches } from './inline.js';
import { errorOf, type Job, type JobResult, settleResult, type WireRead, type WorkerInput } from './jobs.js';
import type { KnownSources } from './known-sources.js';
import { sameKeys, withRunDate } from './pipeline.js';
import { checkCut, type PieceAt, type SettleOptions, Settler } from './settle.js';
import { settingsDigest } from './source-keys.js';

/**
 * The feed: read -> map -> build -> validate, on this thread or on N feed workers
 * (docs/reading.md, "Threads"). With workers, this thread plans each file (src/read/plan.ts)
 * and hands it on in jobs (src/feed/jobs.ts): byte ranges of a file that can be cut, when two
 * workers or more share the work; else batches of the records it reads. Results are put back
 * in order and settled here (src/feed/settle.ts). Rows come out alike either way.
 */
export interface FeedRowsOptions extends SettleOptions {
  /** Consumers that write or send the payloads ask for their JSON. */
  serialize: boolean;
  /** `--threads`: `auto` (the default: by size, `workersFor`) or a count; 0 is this thread alone. */
  workers?: number | 'auto';
  /**
   * The consumer leaves for long stretches (an upload: state commits, requests): workers get more
   * jobs in hand, so that they are not idle meanwhile (IN_HAND), and `auto` leaves this thread a
   * core (`workersFor`).
   */
  pausing?: boolean;
  /** The worker's module (tests build it from the sources). */
  workerUrl?: URL;
  /** Bytes per byte range (tests make it small). */
  chunkBytes?: number;
  /** How feeds given as http(s) URLs are fetched (proxy, CAs, GENSER_FEED_AUTH, validators). */
  remote?: RemoteSettings;
  /**
   * Ctrl-C or SIGTERM: the rows end at once, and a read still waiting (a pipe, a slow disk) is
   * left to end on its own (src/shared/until-stopped.ts, watched once per batch, not per row).
   */
  signal?: AbortSignal;
  /**
   * An upload with state: key every row (`source`), and skip those whose key is in `known`
   * (`unchanged`; docs/nightly.md, "Unchanged rows").
   */
  keys?: {
    /**
     * Builds the table; called once the feed's workers are starting, so that reading the state
     * and their start-up (modules, schemas) overlap. The feed closes it when it ends (a table
     * past KNOWN_ON_DISK_AT entries is a file its workers read).
     */
    known?: () => Promise<KnownSources>;
  };
}

/** The payload as UTF-8 JSON: made on a worker, or here for rows made on this thread. */
export function payloadJson(row: FeedRow): Uint8Array | undefined {
  return row.json ?? (row.payload === undefined ? undefined : Buffer.from(JSON.stringify(row.payload)));
}

/**
 * The payload's price (`priceOf`), null when it has none: read on a worker with its bytes, or
 * here for rows made on this thread; undefined when the row has no payload.
 */
export function payloadPrice(row: FeedRow): number | null | undefined {
  if (row.price !== undefined) return row.price;
  return row.payload === undefined ? undefined : (priceOf(row.payload) ?? null);
}

const WORKER_URL = new URL('./worker.js', import.meta.url);
/** Below a few MB a worker's start-up (modules, schema compilation) costs more than it saves. */
const WORKER_MIN_BYTES = 4 * 1024 * 1024;
/**
 * From this size `auto` takes one worker per core for a file that can be cut: each worker's
 * start-up and JIT warm-up (about 1 s of CPU for two) pay off only over many rows. On 2 cores
 * that was at least as fast as one worker from 250 MiB of 1.6 KB rows and 360 MiB of 360-byte
 * rows, and slower at 36 and 157 MiB (BENCHMARKS.md, "The worker pool").
 */
export const MANY_WORKERS_MIN_BYTES = 256 * 1024 * 1024;
/** Workers at most (as `--threads`). */
const MAX_WORKERS = 64;
/**
 * Jobs each worker may have in hand; twice as many may wait, done, to be put back in order. A
 * batch of records is small (256 rows): for a consumer that pauses, six keep the worker busy while
 * this thread is away (an upload's state writes and requests), as the reading thread's six chunks
 * did before the one path; two let a worker idle between two visits (BENCHMARKS.md, "One feed
 * path: before and after"). A steady consumer (validate, convert) takes each batch as it comes:
 * two are enough, and six cost 12 MiB of peak RSS on a convert of 100k long rows. A byte range is
 * 2 MiB: two each bound the memory of a pool of many workers.
 */
const IN_HAND = { records: { steady: 2, pausing: 6 }, range: 2 } as const;
/** Records per batch: cloning is cheap per row, memory stays flat. */
const BATCH_RECORDS = 256;
/** How long a batch waits for its next record before it is handed on as it is (a pipe that pauses). */
const PAUSE_MS = 50;
const NOTHING = (): undefined => undefined;
/**
 * The young generation of a feed worker: 16 MiB, however many. At 8 (the old pool's figure) the
 * rows of a parsed piece outlived two collections and were copied into the old generation (about
 * 170 MB a worker over 300k short rows): `validate` on two workers took 18.45 s against 16.05 s
 * on 1M short rows (medians of 3); one worker's collector took 2.6 s of a 100k-row validate's
 * 13.6 s at 8, 0.8 s at 32. 32 was no faster than 16, on one worker or two, and took 10-65 MiB
 * more peak RSS (BENCHMARKS.md, "Stop 42" and "Stop 43"). Only the young generation: a worker
 * that reached an old-generation limit would end the run instead of slowing it.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 16 };

/**
 * The threads policy, in one place. `auto`: none under 4 MiB or on one core; one (this thread
 * reads, the worker maps and validates) from 4 MiB and for stdin (size unknown; pipes carry big
 * feeds); from 256 MiB, when the first file can be cut, one per core, or one per core but this
 * thread's for a consumer that keeps this thread busy (`busy`: an upload's state, compression and
 * requests take about a core). On 2 cores an upload was as fast or faster on one worker than on
 * two, with 35-45% less peak RSS (BENCHMARKS.md, "Stop 49: an upload leaves its thread a core").
 * A count is taken as given.
 */
export function workersFor(
  asked: number | 'auto',
  plan: ReadPlan | undefined,
  bytes: number | undefined,
  cores: number,
  busy = false,
): number {
  if (asked !== 'auto') return Math.min(asked, MAX_WORKERS);
  if (cores < 2) return 0;
  if (bytes === undefined) return 1;
  if (bytes >= MANY_WORKERS_MIN_BYTES && plan && cutOf(plan))
    return Math.max(1, Math.min(busy ? cores - 1 : cores, MAX_WORKERS));
  return bytes >= WORKER_MIN_BYTES ? 1 : 0;
}

type ReadOptions = Parameters<typeof planRead>[1];

/** Each file's read plan at its turn; the first is planned early, to choose the workers. */
class Plans {
  private first: ReadPlan | ReadItem | undefined;

  private constructor(
    private readonly files: string[],
    private readonly readOptions: ReadOptions,
    private readonly log: Logger,
    private readonly stdin: NodeJS.ReadableStream | undefined,
  ) {}

  static async start(
    files: string[],
    readOptions: ReadOptions,
    log: Logger,
    stdin: NodeJS.ReadableStream | undefined,
  ): Promise<Plans> {
    const plans = new Plans(files, readOptions, log, stdin);
    if (files.length > 0) plans.first = await planRead(files[0], readOptions, log, stdin);
    return plans;
  }

  /** The first file's plan, when it is a file to read (not an issue). */
  get firstPlan(): ReadPlan | undefined {
    return this.first && 'bytes' in this.first ? this.first : undefined;
  }

  plan(i: number): Promise<ReadPlan | ReadItem> | ReadPlan | ReadItem {
    const p =
      i === 0 && this.first ? this.first : planRead(this.files[i], this.readOptions, this.log, this.stdin);
    this.first = undefined;
    return p;
  }

  /** A first file planned and never read (the run stopped before it) is closed. */
  async close(): Promise<void> {
    await this.firstPlan?.close();
  }
}

/** How many feed workers this run gets; 0 (with a warning) when the worker is not built. */
function chooseWorkers(
  files: string[],
  plans: Plans,
  options: FeedRowsOptions,
  url: URL,
  log: Logger,
): number {
  const asked = options.workers ?? 'auto';
  const bytes = asked === 'auto' ? inputBytes(files) : 0;
  const workers = workersFor(asked, plans.firstPlan, bytes, availableParallelism(), options.pausing === true);
  if (workers > 0 && !existsSync(fileURLToPath(url))) {
    log.warn(
      `--threads ${asked}: the feed worker (${fileURLToPath(url)}) is not built; the feed runs on one thread (run npm run build)`,
    );
    return 0;
  }
  return workers;
}

/**
 * The feed's rows, in order. Rows cross the feed in batches (a job's rows, settled at once) and
 * are handed out one by one only here: a row costs one resolved promise, not a step of each of the
 * feed's generators (BENCHMARKS.md, "Stop 38: rows in batches").
 */
export function feedRows(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
  options: FeedRowsOptions,
): AsyncIterableIterator<FeedRow> {
  const batches = feedBatches(files, feed, log, stdin, options);
  const { signal } = options;
  return signal ? flatten(untilStopped(batches, signal), signal) : flatten(batches);
}

async function* feedBatches(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  stdin: NodeJS.ReadableStream | undefined,
  options: FeedRowsOptions,
): AsyncGenerator<FeedRow[]> {
  // Every row, worker and transform counts relative dates and sale windows from one instant; a
  // bad mapping file is said before anything is read.
  feed = withRunDate(feed);
  const mapping = resolveFeedMapping(feed);
  const readOptions = {
    encoding: feed.encoding,
    delimiter: feed.delimiter,
    inputType: feed.inputType,
    remote: options.remote,
  };
  const plans = await Plans.start(files, readOptions, log, stdin);
  const url = options.workerUrl ?? WORKER_URL;
  const workers = chooseWorkers(files, plans, options, url, log);
  const run: FeedRun = { files, feed, mapping, log, options, plans };
  try {
    if (workers === 0) yield* inlineBatches(run);
    else yield* workerBatches(run, workers, url);
  } finally {
    // Also when the consumer stops early (401, Ctrl-C) or reading failed.
    await plans.close();
  }
}

interface FeedRun {
  files: string[];
  feed: FeedOptions;
  mapping: ReturnType<typeof resolveFeedMapping>;
  log: Logger;
  options: FeedRowsOptions;
  plans: Plans;
}

/** No workers: this thread reads, maps and validates. */
async function* inlineBatches(r: FeedRun): AsyncGenerator<FeedRow[]> {
  const known = await r.options.keys?.known?.();
  const keying = r.options.keys && { known: known?.data };
  // processBatches asks for the files in order: each is planned at its turn.
  let i = 0;
  const read = async () => {
    const p = await r.plans.plan(i++);
    return 'bytes' in p ? readPlanned(p, r.log) : one(p);
  };
  try {
    yield* processBatches(r.files, read, r.feed, r.mapping, keying, r.options);
  } finally {
    known?.close();
  }
}

/** N workers: this thread plans each file and hands it on in jobs; results are put back in order. */
async function* workerBatches(r: FeedRun, workers: number, url: URL): AsyncGenerator<FeedRow[]> {
  const { files, feed, mapping, options } = r;
  const input: WorkerInput = { files, feed, serialize: options.serialize };
  if (options.keys) input.keyed = { settings: settingsDigest(feed, mapping) };
  const pool = new WorkerPool<Job, JobResult>({
    size: workers,
    url,
    workerData: input,
    resourceLimits: WORKER_LIMITS,
    name: 'feed',
  });
  pool.start();
  const settler = new Settler(files.map(sourceName), feed, options);
  const ordered = new InOrder(pool, workers, settler, options.pausing === true);
  let known: KnownSources | undefined;
  try {
    // Built while the workers start (see FeedRowsOptions.keys); every job carries it.
    known = await options.keys?.known?.();
    const table = known?.data;
    const withKnown = <J extends Job>(job: J): J => {
      if (table) job.known = table;
      return job;
    };
    const runDate = new Date(feed.runDate!);
    for (let fileIndex = 0; fileIndex < files.length; fileIndex++) {
      let p: ReadPlan | ReadItem;
      try {
        p = await r.plans.plan(fileIndex);
      } catch (err) {
        // A file that cannot be read (missing, undetectable encoding): the rows before it first.
        yield* ordered.drain();
        throw err;
      }
      if (!('bytes' in p)) {
        yield* ordered.put(one(p), fileIndex, sourceName(files[fileIndex]), withKnown);
        continue;
      }
      const cut = workers >= 2 && !mapping?.transform ? cutOf(p) : undefined;
      if (cut) {
        yield* ordered.putRanges(p, cut, fileIndex, options.chunkBytes ?? CHUNK_TARGET, feed, withKnown);
        continue;
      }
      const reads = transformReads(mapping?.transform, readPlanned(p, r.log), { runDate });
      yield* ordered.put(reads, fileIndex, p.file, withKnown, streamedSource(p.source));
    }
    yield* ordered.drain();
  } finally {
    await ordered.close();
    await pool.close();
    settler.close();
    // Its file is read by the workers until they are gone.
    known?.close();
  }
}

async function* one(item: ReadItem): AsyncGenerator<ReadItem> {
  yield item;
}

/** The files' total size; undefined for stdin; 0 when one cannot be read (the reader says why). */
function inputBytes(files: string[]): number | undefined {
  let bytes = 0;
  for (const file of files) {
    // Stdin and URLs: the size is not known before reading.
    if (streamedSource(file)) return undefined;
    try {
      bytes += statSync(file).size;
    } catch {
      return 0;
    }
  }
  return bytes;
}

/** A job sent, and where its rows belong. */
interface Sent {
  result: Promise<JobResult>;
  done: boolean;
  at: PieceAt;
  file: string;
  /** A range: its offset in the file (for bad bytes). */
  offset: number;
}

/**
 * Jobs out to the pool, results back in order: a worker is never kept idle by the order, and
 * memory stays bounded by the jobs in hand, never by the feed.
 */
class InOrder {
  private readonly queue: Sent[] = [];
  private wake: (() => void) | undefined;
  /** A file's rows and lines of the ranges settled so far. */
  private rows = 0;
  private lines = 0;
  private stopping: (() => Promise<void>) | undefined;
  /** Jobs in hand per worker, by kind (IN_HAND). */
  private readonly inHand: Record<Job['kind'], number>;

  constructor(
    private readonly pool: WorkerPool<Job, JobResult>,
    private readonly workers: number,
    private readonly settler: Settler,
    pausing: boolean,
  ) {
    this.inHand = { records: IN_HAND.records[pausing ? 'pausing' : 'steady'], range: IN_HAND.range };
  }

  /** Sends one job once there is room, putting out the rows that are ready meanwhile. */
  private async *send(job: Job, at: PieceAt, file: string, offset: number): AsyncGenerator<FeedRow[]> {
    for (;;) {
      while (this.queue[0]?.done) yield* this.settle();
      const limit = this.workers * this.inHand[job.kind];
      if (this.pool.inFlight < limit && this.queue.length < 2 * limit) break;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    const transfer = job.kind === 'range' ? [job.body.buffer as ArrayBuffer] : [];
    const sent: Sent = { result: this.pool.run(job, transfer), done: false, at, file, offset };
    const settled = () => {
      sent.done = true;
      this.wake?.();
      this.wake = undefined;
    };
    sent.result.then(settled, settled);
    this.queue.push(sent);
  }

  /** The head job's rows, in order (its error after them). */
  private *settleHead(r: JobResult, sent: Sent): Generator<FeedRow[]> {
    const out: FeedRow[] = [];
    const range = sent.at.range;
    if (range) {
      if (range.index === 0) this.rows = this.lines = 0;
      range.rows = this.rows;
      range.lines = this.lines;
    }
    settleResult(r, sent.file, (s) => this.settler.take(sent.at, s, out));
    // Positions are the file's by now.
    if (range && !range.last) checkCut(out, sent.file);
    this.settler.endRange(sent.at, out);
    yield out;
    this.rows += r.rows;
    this.lines += r.lines;
    if (r.error) throw errorOf(r.error, sent.offset, this.lines - r.lines);
  }

  private async *settle(): AsyncGenerator<FeedRow[]> {
    const sent = this.queue.shift()!;
    yield* this.settleHead(await sent.result, sent);
  }

  /** A file's records (or its one issue), in batches. */
  async *put(
    reads: AsyncIterable<ReadItem>,
    fileIndex: number,
    file: string,
    withKnown: (job: Job) => Job,
    mayPause = false,
  ): AsyncGenerator<FeedRow[]> {
    const batcher = new Batcher(fileIndex, mayPause);
    const iterator = reads[Symbol.asyncIterator]();
    this.stopping = async () => void (await iterator.return?.());
    let readError: unknown;
    for (;;) {
      // A reading failure (undecodable bytes): thrown once the rows before it are out.
      const next = batcher.next(iterator).then(
        (job) => ({ job, error: undefined as unknown }),
        (error: unknown) => ({ job: batcher.rest(), error }),
      );
      // A slow source (a pipe that pauses) must not hold rows the workers have finished.
      let read: Awaited<typeof next> | undefined;
      while (read === undefined) {
        const head = this.queue[0];
        read = head ? await Promise.race([next, head.result.then(NOTHING, NOTHING)]) : await next;
        if (read === undefined) yield* this.settle();
      }
      const job = read.job;
      readError = read.error;
      if (!job) break;
      yield* this.send(withKnown(job), { fileIndex }, file, 0);
      if (readError) break;
    }
    this.stopping = undefined;
    if (readError) {
      yield* this.drain();
      throw readError;
    }
  }

  /** A file cut in byte ranges of whole records (src/feed/chunker.ts). */
  async *putRanges(
    plan: ReadPlan,
    cut: Cut,
    fileIndex: number,
    target: number,
    feed: FeedOptions,
    withKnown: (job: Job) => Job,
  ): AsyncGenerator<FeedRow[]> {
    const chunker = new Chunker(cut.type, { target, delimiter: cut.delimiter });
    this.stopping = plan.close;
    // The header is the same bytes in every range of a file: decoded once.
    let header: { bytes: Buffer; text: string } | undefined;
    let last: FeedChunk | undefined;
    const send = (chunk: FeedChunk, final: boolean) => {
      if (header?.bytes !== chunk.header)
        header = { bytes: chunk.header, text: decodeSample(chunk.header, cut.encoding) };
      const job = withKnown({
        kind: 'range',
        fileIndex,
        cut,
        header: header.text,
        body: chunk.body,
        autoEncoding: feed.encoding === 'auto',
        notUtf8: plan.notUtf8,
      });
      const at: PieceAt = { fileIndex, range: { index: chunk.index, rows: 0, lines: 0, last: final } };
      return this.send(job, at, plan.file, chunk.offset);
    };
    try {
      // One range is held back so the last is known to be last (the cut check skips it).
      for await (const bytes of plan.bytes) {
        for (const chunk of chunker.push(bytes)) {
          if (last) yield* send(last, false);
          last = chunk;
        }
      }
      for (const chunk of chunker.end()) {
        if (last) yield* send(last, false);
        last = chunk;
      }
      if (last) yield* send(last, true);
    } finally {
      this.stopping = undefined;
      await plan.close();
    }
  }

  async *drain(): AsyncGenerator<FeedRow[]> {
    while (this.queue.length > 0) yield* this.settle();
  }

  async close(): Promise<void> {
    await this.stopping?.();
    // Results not taken: their failures are the run's no more.
    for (const s of this.queue) s.result.catch(() => {});
  }
}

/** A promise that settles after `ms`, or at `end()`, whichever comes first. */
function pauseAfter(ms: number): { at: Promise<undefined>; end(): void } {
  let end: () => void = () => {};
  const at = new Promise<undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    timer.unref();
    end = () => {
      clearTimeout(timer);
      resolve(undefined);
    };
  });
  return { at, end };
}

/**
 * A file's reads in batches of BATCH_RECORDS records (issues go with the records after them).
 * Flat records whose columns are the batch's first one's travel as their values only.
 */
class Batcher {
  private items: WireRead[] = [];
  private keys: string[] | undefined;
  private done = false;
  /** A read asked for and not yet taken (the batch was handed on while it waited). */
  private pending: Promise<IteratorResult<ReadItem>> | undefined;

  /** `mayPause`: stdin or a download, which may wait long between records (a file never does). */
  constructor(
    private readonly fileIndex: number,
    private readonly mayPause: boolean,
  ) {}

  async next(reads: AsyncIterator<ReadItem>): Promise<Job | undefined> {
    if (this.done) return undefined;
    let records = 0;
    // A source that may pause hands on what it has past one timer a batch. A file is not raced:
    // a race a record costs a promise and leaves a reaction holding the record on the timer.
    const pause = this.mayPause ? pauseAfter(PAUSE_MS) : undefined;
    try {
      while (records < BATCH_RECORDS) {
        this.pending ??= reads.next();
        const next = records > 0 && pause ? await Promise.race([this.pending, pause.at]) : await this.pending;
        if (next === undefined) break;
        this.pending = undefined;
        if (next.done) {
          this.done = true;
          break;
        }
        const item = next.value;
        this.items.push(this.packed(item));
        if (item.type === 'record') records++;
      }
    } finally {
      // Settles the timer's promise now: the races' reactions on it (and their records) go.
      pause?.end();
    }
    return this.rest();
  }

  /** What was read so far, as a job (undefined: nothing). */
  rest(): Job | undefined {
    if (this.items.length === 0) return undefined;
    const job: Job = { kind: 'records', fileIndex: this.fileIndex, items: this.items };
    if (this.keys) job.keys = this.keys;
    this.items = [];
    this.keys = undefined;
    return job;
  }

  private packed(item: ReadItem): WireRead {
    if (item.type !== 'record' || item.record.shape !== 'rows') return item;
    const { fields, file, row, line } = item.record;
    if (this.keys === undefined) this.keys = Object.keys(fields);
    else if (!sameKeys(fields, this.keys)) return item;
    return { type: 'values', file, row, line, values: Object.values(fields) };
  }
}
