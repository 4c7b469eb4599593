import { isUtf8 } from 'node:buffer';
import { closeSync, createReadStream, openSync, readSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import iconv from 'iconv-lite';
import { resolveFeedMapping } from '../map/presets.js';
import { binaryKind } from '../read/binary.js';
import { detectEncoding, utf32Bom } from '../read/detect-encoding.js';
import { delimiterOption } from '../read/index.js';
import { inputTypeFromName } from '../read/input-type.js';
import { HEAD_BYTES } from '../read/limits.js';
import { READ_CHUNK } from '../read/open.js';
import { excelSepLine, guessNewline, sniffDelimiter } from '../read/sniff.js';
import { firstInvalidUtf8, incompleteTail } from '../read/utf8.js';
import { type ExitCodeValue, ExitError, UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { FeedItem, FeedOptions, Issue } from '../shared/types.js';
import { duplicateGtinProblem, GtinSet } from '../validate/duplicate-gtins.js';
import { SkuSet } from '../validate/duplicates.js';
import { CHUNK_TARGET, Chunker, type ChunkKind, type FeedChunk } from './chunker.js';
import type { FeedRow } from './feed-row.js';
import type { KnownSources, KnownSourcesData } from './known-sources.js';
import { duplicateProblem, issueOf } from './pipeline.js';

/**
 * The feed pipeline on N worker threads (`--threads N`, N >= 2; docs/reading.md, "Threads").
 * This thread only reads bytes and cuts them into chunks of whole records (src/feed/chunker.ts);
 * each worker decodes, parses, maps, validates and serializes a chunk (src/feed/pool-worker.ts).
 * Results are put back in order here, with the row and line offsets of the chunks before them,
 * and what must be sequential is done here: duplicate SKUs across the run, file-level issues
 * said once per file. Callers see rows, never chunks or messages.
 */
export interface PoolInput {
  files: string[];
  feed: FeedOptions;
  serialize: boolean;
  /** Source keys: each row keyed; the known ones' table comes in a message (`KnownMessage`). */
  keyed: boolean;
}

/** Main thread -> every worker, before any chunk: the accepted source keys (shared memory). */
export interface KnownMessage {
  known: KnownSourcesData;
}

/** Main thread -> worker: one chunk (its body transferred). */
export interface ToPool {
  seq: number;
  fileIndex: number;
  kind: ChunkKind;
  header: string;
  body: Uint8Array;
  delimiter?: string;
  encoding: PoolEncoding;
  autoEncoding: boolean;
  /** A guessed CP949 or Shift_JIS file: where its bytes stopped being UTF-8 (for the message on bad bytes). */
  notUtf8?: { offset: number; byte: number };
}

/**
 * Encodings the pool cuts on raw bytes: in each, the bytes 0x0A (line feed), 0x0D and 0x22 (`"`)
 * are only ever themselves, never part of a multi-byte character. UTF-8's continuation bytes
 * are 0x80-0xBF; CP949's (and EUC-KR's) trail bytes are 0x41-0x5A, 0x61-0x7A and 0x81-0xFE;
 * Shift_JIS's are 0x40-0x7E and 0x80-0xFC (checked against iconv-lite's tables: no two-byte
 * character of either has a trail byte 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x2C or 0x3B). The cut
 * also looks at the delimiter's byte (a quote opens a value only after it), so in CP949 and
 * Shift_JIS a delimiter from 0x40 up (`|`, which a Shift_JIS trail byte can be) keeps the
 * one-thread path. UTF-16 has neither property (0x0A and 0x22 are half of many characters):
 * it stays on the one-thread path, as gzip and JSON arrays do.
 */
export type PoolEncoding = 'utf-8' | 'cp949' | 'shift_jis';

/** Worker -> main thread: one chunk's items, rows and lines counted from the chunk's start. */
export interface FromPool {
  seq: number;
  /** Item i's row and line, counted from the chunk's start (0: none, a file-level issue). */
  row: Int32Array;
  line: Int32Array;
  skus: (string | undefined)[];
  /** Item i's GTIN (a standard payload's offers.gtin), for the duplicate-GTIN check. */
  gtins: (string | undefined)[];
  /** 1: item i had a payload and a SKU, so the duplicate check applies to it. */
  checked: Uint8Array;
  /** Items with issues or invalid, whole (without payload): [i, item]. The others are valid and issue-free. */
  others: [number, FeedItem][];
  /** Data rows the chunk held (its last row number). */
  rows: number;
  /** Line feeds in the chunk's body. */
  lines: number;
  json?: { bytes: Uint8Array; ends: Int32Array };
  /** With source keys: item i's key, and 1 when it is unchanged (src/feed/source-keys.ts). */
  sources?: (string | undefined)[];
  unchanged?: Uint8Array;
  /** A failure after the items (bad bytes); the run stops there. */
  error?: { code?: ExitCodeValue; m: string; hint?: string; stack?: string };
}

export interface PoolOptions {
  threads: number;
  serialize: boolean;
  workerUrl?: URL;
  /** Bytes per chunk (tests make it small). */
  chunkTarget?: number;
  /** Source keys (src/feed/threads.ts, FeedRowsOptions.keys). */
  keys?: { known?: () => KnownSources };
}

const WORKER_URL = new URL('./pool-worker.js', import.meta.url);
/**
 * Chunks each worker may have in hand; twice as many may wait, done, to be put back in order:
 * memory stays bounded by the chunks, never by the feed.
 */
const PER_WORKER = 2;
/**
 * A smaller young generation per worker: -45 MiB of peak RSS with two workers and no measurable
 * CPU (BENCHMARKS.md, "The worker pool"). Only the young generation: a worker that reached an
 * old-generation limit would end the run instead of slowing it.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 8 };
/** Shared by every issue-free row; nobody mutates it. */
const NO_ISSUES: Issue[] = [];
/** Read issues whose messages name rows and lines (shifted with them). */
const READ_CODES = new Set([
  'unclosed_quote',
  'malformed_quote',
  'ragged_row',
  'field_too_large',
  'invalid_json',
  'not_an_object',
  'too_deep',
  'mixed_line_ends',
]);

/** How a file is read by the pool, or undefined when it keeps the one-thread path. */
interface Plan {
  kind: ChunkKind;
  encoding: PoolEncoding;
  /** What `--encoding auto` says on stderr, as the one-thread reader says it. */
  detected?: string;
  notUtf8?: { offset: number; byte: number };
  /** CSV: the delimiter, given or sniffed from the file's first bytes as one thread sniffs it. */
  delimiter?: string;
}

/**
 * The plans of all files when every one can go to the pool: CSV or NDJSON files in UTF-8, CP949
 * (EUC-KR) or Shift_JIS, given or detected; not gzip, not stdin, not CR-only line ends, no
 * preset transform. Anything else keeps today's path, which also says what is wrong with a file.
 */
export function poolPlans(files: string[], feed: FeedOptions): Plan[] | undefined {
  if (files.length === 0) return undefined;
  const requested = feed.encoding;
  if (requested === 'utf-16le' || requested === 'utf-16be') return undefined;
  try {
    if (resolveFeedMapping(feed)?.transform) return undefined;
    delimiterOption(feed.delimiter);
  } catch {
    return undefined; // the one-thread path says it
  }
  const plans: Plan[] = [];
  for (const file of files) {
    if (file === '-') return undefined;
    const kind = feed.inputType ?? inputTypeFromName(file);
    if (kind !== 'csv' && kind !== 'ndjson') return undefined;
    // The same sample as the one-thread reader's: its first read, "final" under 64 KiB.
    const head = readHead(file);
    if (!head || head.length === 0 || utf32Bom(head)) return undefined;
    const plan = planOf(kind, head, requested, delimiterOption(feed.delimiter));
    if (!plan) return undefined;
    plans.push(plan);
  }
  return plans;
}

function planOf(
  kind: ChunkKind,
  head: Buffer,
  requested: FeedOptions['encoding'],
  given: string | undefined,
): Plan | undefined {
  const final = head.length < HEAD_BYTES;
  const whole = final ? head : head.subarray(0, head.length - incompleteTail(head));
  let plan: Plan;
  if (requested === 'auto') {
    if (binaryKind(head, 'auto', false)) return undefined;
    const detection = detectEncoding(head, final);
    const encoding = detection.encoding;
    if (encoding !== 'utf-8' && encoding !== 'cp949' && encoding !== 'shift_jis') return undefined;
    plan = { kind, encoding, detected: detection.reason };
    if (encoding !== 'utf-8') {
      const at = firstInvalidUtf8(head, 0, final);
      plan.notUtf8 = { offset: at, byte: head[at] };
    }
  } else {
    if (binaryKind(head, requested, false)) return undefined;
    const encoding = requested === 'euc-kr' ? 'cp949' : requested;
    if (encoding !== 'utf-8' && encoding !== 'cp949' && encoding !== 'shift_jis') return undefined;
    plan = { kind, encoding };
  }
  // Bad UTF-8 in the sample: the one-thread path says so before reading a row.
  if (plan.encoding === 'utf-8' && !isUtf8(whole)) return undefined;
  // Line ends are ASCII in all three encodings: the sample's bytes as latin1 show them.
  if (kind === 'csv' && guessNewline(whole.toString('latin1')) === '\r') return undefined;
  if (kind === 'csv') {
    const bom = plan.encoding === 'utf-8' && whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf;
    // iconv-lite decodes a cut-off last character as U+FFFD, which the sniffer's last line drops.
    const sample = plan.encoding === 'utf-8' ? whole : head;
    const delimiter =
      given ?? sniff(decode(bom ? sample.subarray(3) : sample, plan.encoding), wholeFile(head));
    const code = delimiter.charCodeAt(0);
    // The cut compares raw bytes with the delimiter's: one ASCII byte, never a trail byte.
    if (delimiter.length !== 1 || code > 0x7f || (plan.encoding !== 'utf-8' && code >= 0x40))
      return undefined;
    plan.delimiter = delimiter;
  }
  return plan;
}

/** The head read is all of the file. */
const wholeFile = (head: Buffer) => head.length < READ_CHUNK;

function readHead(file: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(READ_CHUNK);
    const n = readSync(fd, head, 0, READ_CHUNK, 0);
    const sub = head.subarray(0, n);
    // gzip: the one-thread path decompresses it.
    if (sub[0] === 0x1f && sub[1] === 0x8b) return undefined;
    return sub;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

interface Sent {
  fileIndex: number;
  chunk: number;
  offset: number;
  /** The file's last chunk. */
  last: boolean;
}

/** A file's running totals, as its chunks are put back in order. */
interface FileState {
  rows: number;
  lines: number;
  /** File-level issues said already (from the first chunk, or a later one). */
  said: Set<string>;
  /**
   * The first chunk's `no_rows` (or `empty_file`): a chunk of blank lines has no rows, the file
   * may still have some in a later chunk. Said at the file's end when none had any.
   */
  noRows?: FeedRow;
}

export async function* pooledRows(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  plans: Plan[],
  options: PoolOptions,
): AsyncGenerator<FeedRow> {
  // Rows pass one generator, chunks the rest: a yield per row through nested async generators
  // cost the main thread more than putting the chunks back in order.
  for await (const rows of chunksInOrder(files, feed, log, plans, options)) yield* rows;
}

/** Each chunk's rows, in order, with positions counted from the file's start. */
async function* chunksInOrder(
  files: string[],
  feed: FeedOptions,
  log: Logger,
  plans: Plan[],
  options: PoolOptions,
): AsyncGenerator<FeedRow[]> {
  feed = { ...feed, runDate: feed.runDate ?? new Date().toISOString() };
  const input: PoolInput = { files, feed, serialize: options.serialize, keyed: options.keys !== undefined };
  const url = options.workerUrl ?? WORKER_URL;
  const pool = new Pool(options.threads, url, input);
  // Built while the workers start (see FeedRowsOptions.keys); before any chunk.
  const known = options.keys?.known?.();
  if (known) pool.broadcast({ known: known.data });
  const limit = options.threads * PER_WORKER;
  const skus = new SkuSet();
  const gtins = new GtinSet();
  const sent = new Map<number, Sent>();
  let seq = 0;
  let next = 0;
  let state: FileState = { rows: 0, lines: 0, said: new Set() };
  let stateFile = -1;

  /** Puts the next chunk's rows out in order. */
  async function* settle(): AsyncGenerator<FeedRow[]> {
    const m = await pool.result(next);
    const meta = sent.get(next)!;
    sent.delete(next);
    next++;
    if (meta.fileIndex !== stateFile) {
      stateFile = meta.fileIndex;
      state = { rows: 0, lines: 0, said: new Set() };
    }
    if (!meta.last) checkCut(m, files[meta.fileIndex], state.lines);
    const rows = rowsOf(m, meta, state, { skus, gtins }, files, feed, options.serialize);
    if (m.rows > 0) state.noRows = undefined;
    if (meta.last && state.noRows) {
      rows.push(state.noRows);
      state.noRows = undefined;
    }
    yield rows;
    state.rows += m.rows;
    state.lines += m.lines;
    if (m.error) {
      const message = shiftByteOffset(
        shiftPositions(m.error.m, state.rows - m.rows, state.lines - m.lines),
        meta.offset,
      );
      if (m.error.code !== undefined) throw new ExitError(m.error.code, message, m.error.hint);
      const err = new Error(message);
      if (m.error.stack) err.stack = m.error.stack;
      throw err;
    }
  }

  try {
    for (let fileIndex = 0; fileIndex < files.length; fileIndex++) {
      const file = files[fileIndex];
      const plan = plans[fileIndex];
      if (plan.detected) log.info(`${file}: encoding ${plan.encoding} (auto-detected: ${plan.detected})`);
      const chunker = new Chunker(plan.kind, {
        target: options.chunkTarget ?? CHUNK_TARGET,
        delimiter: plan.delimiter,
      });
      let last: FeedChunk | undefined;
      // The header is the same bytes in every chunk of a file: decoded once.
      let header: { bytes: Buffer; text: string } | undefined;
      const send = async function* (chunk: FeedChunk, final: boolean): AsyncGenerator<FeedRow[]> {
        if (header?.bytes !== chunk.header)
          header = { bytes: chunk.header, text: decode(chunk.header, plan.encoding) };
        // Out with what is ready; then wait while every worker has its fill, or while too many
        // results wait behind a slow chunk (memory). A worker is never kept idle by the order.
        for (;;) {
          while (pool.has(next)) yield* settle();
          if (pool.inFlight() < limit && seq - next < 2 * limit) break;
          await pool.anyResult();
        }
        sent.set(seq, { fileIndex, chunk: chunk.index, offset: chunk.offset, last: final });
        pool.send({
          seq: seq++,
          fileIndex,
          kind: plan.kind,
          header: header.text,
          body: chunk.body,
          delimiter: plan.delimiter,
          encoding: plan.encoding,
          autoEncoding: feed.encoding === 'auto',
          notUtf8: plan.notUtf8,
        });
      };
      // One chunk is held back so the last one is known to be last (a cut check skips it).
      for await (const bytes of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
        for (const chunk of chunker.push(bytes as Buffer)) {
          if (last) yield* send(last, false);
          last = chunk;
        }
      }
      for (const chunk of chunker.end()) {
        if (last) yield* send(last, false);
        last = chunk;
      }
      if (last) yield* send(last, true);
    }
    while (next < seq) yield* settle();
  } finally {
    await pool.close();
  }
}

/**
 * A quote left open at the end of a chunk that is not the file's last: the cut fell inside a
 * quoted value (the byte scan read a quote otherwise than papaparse does), and this chunk's
 * rows and the next's would differ from one thread's: stop rather than guess.
 */
function checkCut(m: FromPool, file: string, linesBefore: number): void {
  for (const [, item] of m.others) {
    for (const issue of item.issues) {
      if (issue.code !== 'unclosed_quote') continue;
      throw new UsageError(
        `${file}: the worker pool cannot cut this file at record boundaries (a quote near line ${(issue.line ?? 0) + linesBefore} is not closed where a record ends)`,
        'Check the quotes of the value that starts there (a quoted value ends with a quote before the delimiter or the line end), or run with --threads 1 to read it in one piece.',
      );
    }
  }
}

/** The delimiter as the one-thread reader sniffs it from the first rows (src/read/csv.ts `start`). */
function sniff(text: string, final: boolean): string {
  const sep = excelSepLine(text);
  if (sep) return sep.delimiter;
  return sniffDelimiter(text, guessNewline(text), final);
}

function rowsOf(
  m: FromPool,
  meta: Sent,
  state: FileState,
  seen: { skus: SkuSet; gtins: GtinSet },
  files: string[],
  feed: FeedOptions,
  serialize: boolean,
): FeedRow[] {
  const out: FeedRow[] = [];
  const rowShift = state.rows;
  const lineShift = state.lines;
  const first = meta.chunk === 0;
  const file = files[meta.fileIndex];
  let other = 0;
  let start = 0;
  for (let i = 0; i < m.row.length; i++) {
    let json: Uint8Array | undefined;
    if (serialize && m.json) {
      const end = m.json.ends[i];
      if (end >= 0) {
        json = m.json.bytes.subarray(start, end);
        start = end;
      }
    }
    let item: FeedRow;
    if (other < m.others.length && m.others[other][0] === i) {
      item = m.others[other++][1];
      if (item.row === 0) {
        // Said once per file: what the header or the columns cause comes with every chunk.
        const key = fileIssueKey(item.issues[0]);
        const noRows = key.startsWith('no_rows') || key.startsWith('empty_file');
        if (noRows && first) state.noRows = item;
        if (noRows || (!first && state.said.has(key))) continue;
        state.said.add(key);
      }
      if (!first) shift(item, rowShift, lineShift);
    } else {
      item = { file, row: m.row[i] + rowShift, line: m.line[i] + lineShift, issues: NO_ISSUES, valid: true };
      const sku = m.skus[i];
      if (sku !== undefined) item.sku = sku;
      if (m.sources?.[i] !== undefined) item.source = m.sources[i];
      if (m.unchanged?.[i] === 1) item.unchanged = true;
    }
    if (m.checked[i] === 1 && item.sku !== undefined) {
      const gtin = m.gtins[i];
      const dup =
        duplicateProblem(seen.skus, feed, files, item.sku, meta.fileIndex, item.row) ??
        (gtin && duplicateGtinProblem(seen.gtins, files, gtin, item.sku, meta.fileIndex, item.row));
      if (dup) {
        // A copy: issue-free rows share one empty array.
        item.issues = [...item.issues, issueOf(dup, item, item.sku)];
        item.valid = false;
        json = undefined;
        delete item.source;
        delete item.unchanged;
      }
    }
    if (json) item.json = json;
    out.push(item);
  }
  return out;
}

function fileIssueKey(issue: Issue | undefined): string {
  if (!issue) return '';
  // Mixed line ends: once per file, wherever they are first seen.
  if (issue.code === 'mixed_line_ends') return issue.code;
  return `${issue.code}\u0000${issue.column ?? ''}\u0000${issue.value ?? ''}`;
}

function shift(item: FeedItem, rows: number, lines: number): void {
  if (item.row > 0) item.row += rows;
  if (item.line > 0) item.line += lines;
  for (const issue of item.issues) {
    if (issue.row !== undefined && issue.row > 0) issue.row += rows;
    if (issue.line !== undefined && issue.line > 0) issue.line += lines;
    if (READ_CODES.has(issue.code)) issue.message = shiftPositions(issue.message, rows, lines);
  }
}

/** A read message's "row N", "line N" and "lines N-M", counted from a chunk's start, counted from the file's. */
export function shiftPositions(message: string, rows: number, lines: number): string {
  if (rows === 0 && lines === 0) return message;
  return message.replace(
    /\b(rows?|lines?) (\d+)(?:-(\d+))?/g,
    (_all, word: string, a: string, b?: string) => {
      const by = word.startsWith('row') ? rows : lines;
      const from = `${word} ${Number(a) + by}`;
      return b === undefined ? from : `${from}-${Number(b) + by}`;
    },
  );
}

/** Bytes of whole characters as text (bad bytes become U+FFFD: the worker reports them). */
function decode(bytes: Buffer, encoding: PoolEncoding): string {
  return encoding === 'utf-8' ? bytes.toString('utf8') : iconv.decode(bytes, encoding);
}

/**
 * The bad byte's offset, counted from the chunk's start, counted from the file's: the last
 * "byte offset" of the message (an earlier one, where a guessed file stopped being UTF-8, is
 * counted from the file's start already).
 */
function shiftByteOffset(message: string, offset: number): string {
  return message.replace(
    /byte offset (\d+)(?!.*byte offset)/,
    (_all, n: string) => `byte offset ${Number(n) + offset}`,
  );
}

/** N workers; each result waits here until it is asked for, in order. */
class Pool {
  private readonly workers: Worker[] = [];
  private readonly load: number[] = [];
  private readonly owner = new Map<number, number>();
  private readonly results = new Map<number, FromPool>();
  private waiting: { seq: number; resolve: (m: FromPool) => void; reject: (e: Error) => void } | undefined;
  private anyWaiting: { resolve: () => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(threads: number, url: URL, input: PoolInput) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(url, { workerData: input, resourceLimits: WORKER_LIMITS });
      worker.on('message', (m: FromPool) => {
        this.load[this.owner.get(m.seq)!]--;
        this.owner.delete(m.seq);
        this.results.set(m.seq, m);
        const any = this.anyWaiting;
        this.anyWaiting = undefined;
        any?.resolve();
        if (this.waiting?.seq === m.seq) {
          const { resolve } = this.waiting;
          this.waiting = undefined;
          resolve(this.take(m.seq));
        }
      });
      worker.on('error', (err) => this.fail(err));
      worker.on('exit', () => this.fail(new Error('a feed pool worker stopped without finishing')));
      this.workers.push(worker);
      this.load.push(0);
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(this.failure);
    const any = this.anyWaiting;
    this.anyWaiting = undefined;
    any?.reject(this.failure);
  }

  has(seq: number): boolean {
    return this.results.has(seq);
  }

  /** Chunks sent and not answered yet. */
  inFlight(): number {
    return this.owner.size;
  }

  /** Resolves at the next result from any worker. */
  anyResult(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.anyWaiting = { resolve, reject }));
  }

  private take(seq: number): FromPool {
    const m = this.results.get(seq)!;
    this.results.delete(seq);
    return m;
  }

  /** To every worker, ahead of the chunks sent after it. */
  broadcast(m: KnownMessage): void {
    for (const w of this.workers) w.postMessage(m);
  }

  /** To the worker with the fewest chunks in hand; the body is transferred, not copied. */
  send(m: ToPool): void {
    let w = 0;
    for (let i = 1; i < this.workers.length; i++) if (this.load[i] < this.load[w]) w = i;
    this.load[w]++;
    this.owner.set(m.seq, w);
    const body = m.body;
    // A body that shares its ArrayBuffer (Node's pool) cannot be transferred: the chunker's never does.
    const transfer =
      body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : [];
    this.workers[w].postMessage(m, transfer);
  }

  result(seq: number): Promise<FromPool> {
    if (this.results.has(seq)) return Promise.resolve(this.take(seq));
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { seq, resolve, reject }));
  }

  async close(): Promise<void> {
    this.failure ??= new Error('closed');
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
