import {
  closeSync,
  createReadStream,
  constants as fsConstants,
  lstatSync,
  openSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { type FeedRow, payloadPrice } from '../feed/index.js';
import { fullDiskCode, UsageError } from '../shared/errors.js';
import { removeDeadTemps } from '../shared/output-file.js';
import type { Issue } from '../shared/types.js';
import { UNCHANGED } from './state/delta.js';
import type { MaybePromise, StateHooks } from './types.js';

/**
 * The upload spool (docs/nightly.md, "Mass-change guard"): a nightly run with known products
 * reads its feed once, keeps on disk what the engine must still see (rows to send with their
 * payload bytes, invalid rows and rows with issues, file-level items) and, for the unchanged
 * rows, only their SKU, row and line, so memory stays flat however much changed. Once the guard
 * has decided, `rows()` replays the feed's items in their order to the upload engine.
 *
 * One record per line: a JSON header, then for a row to send a tab and its payload bytes (JSON
 * text never holds a raw tab or newline, so neither needs escaping). A run of unchanged rows
 * without issues is one record: `{"f":file,"r":first row,"s":[skus],"l":[lines]}`.
 */

/** The payload of a replayed row that is unchanged: it is counted, not sent (see `spooledHooks`). */
export { UNCHANGED };

interface ItemHeader {
  f: string;
  r: number;
  l: number;
  s?: string;
  i?: Issue[];
  v: 0 | 1;
  /** Unchanged (a row with issues, spooled for them). */
  u?: 1;
  /** The row's source key. */
  k?: string;
  /** The payload's price (`FeedRow.price`; null: it has none). */
  p?: number | null;
  /** An invalid row's source record (`--rejects`). */
  x?: Record<string, unknown>;
}

interface RunHeader {
  f: string;
  r: number;
  s: string[];
  l: number[];
}

const FLUSH_BYTES = 1 << 20;
/** A run record holds at most this many rows: the replay reads one record at a time. */
const MAX_RUN = 4096;
const TAB = 0x09;
const NEWLINE = 0x0a;

export class Spool {
  private fd: number | undefined;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private run: RunHeader | undefined;
  private removed = false;
  /** Rows to send and rows kept in full (not the unchanged runs): for tests and the debug line. */
  records = 0;

  // A signal is the run's orderly stop (src/commands/sending.ts), which removes the spool; a
  // second signal exits at once, and this removes it then.
  private readonly onExit = () => this.remove();

  private constructor(readonly path: string) {
    this.fd = createNew(path);
    process.once('exit', this.onExit);
  }

  /** A new spool in `dir` (the state directory); spools left there by killed runs are removed. */
  static open(dir: string): Spool {
    const base = join(dir, 'upload-spool');
    removeDeadTemps(base);
    return new Spool(join(dir, `.upload-spool.genser-${process.pid}.tmp`));
  }

  /**
   * One item of the feed, in order. `json` is the payload to send, `UNCHANGED` for a valid row
   * whose bytes the service has, undefined for an invalid row or a file-level item.
   */
  add(item: FeedRow, json: Uint8Array | undefined): void {
    if (json === UNCHANGED && item.sku !== undefined && item.issues.length === 0 && item.row > 0) {
      const run = this.run;
      if (run && run.f === item.file && run.r + run.s.length === item.row && run.s.length < MAX_RUN) {
        run.s.push(item.sku);
        run.l.push(item.line);
        return;
      }
      this.endRun();
      this.run = { f: item.file, r: item.row, s: [item.sku], l: [item.line] };
      return;
    }
    this.endRun();
    const head: ItemHeader = { f: item.file, r: item.row, l: item.line, v: item.valid ? 1 : 0 };
    if (item.sku !== undefined) head.s = item.sku;
    if (item.issues.length > 0) head.i = item.issues;
    if (item.record !== undefined) head.x = item.record;
    if (json === UNCHANGED) head.u = 1;
    else {
      if (item.source !== undefined) head.k = item.source;
      const price = json === undefined ? undefined : payloadPrice(item);
      if (price !== undefined) head.p = price;
    }
    this.records++;
    if (json === undefined || json === UNCHANGED) this.write(Buffer.from(`${JSON.stringify(head)}\n`));
    else {
      this.write(Buffer.from(`${JSON.stringify(head)}\t`));
      this.write(json);
      this.write(Buffer.from('\n'));
    }
  }

  /** The pass is over: everything on disk. */
  finishWriting(): void {
    this.endRun();
    this.flush();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The feed's items again, in order, as the feed yielded them; unchanged rows carry `UNCHANGED`. */
  async *rows(): AsyncGenerator<FeedRow> {
    this.finishWriting();
    let rest: Buffer | undefined;
    for await (const chunk of createReadStream(this.path, { highWaterMark: FLUSH_BYTES })) {
      const buf: Buffer = rest ? Buffer.concat([rest, chunk as Buffer]) : (chunk as Buffer);
      let start = 0;
      for (let nl = buf.indexOf(NEWLINE, start); nl >= 0; nl = buf.indexOf(NEWLINE, start)) {
        yield* itemsOf(buf.subarray(start, nl));
        start = nl + 1;
      }
      rest = start < buf.length ? buf.subarray(start) : undefined;
    }
    if (rest) yield* itemsOf(rest);
  }

  /** Deletes the file (idempotent); called at the end of the run, on a signal and at exit. */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    process.removeListener('exit', this.onExit);
    try {
      if (this.fd !== undefined) closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = undefined;
    rmSync(this.path, { force: true });
  }

  private endRun(): void {
    if (!this.run) return;
    this.write(Buffer.from(`${JSON.stringify(this.run)}\n`));
    this.run = undefined;
  }

  private write(bytes: Uint8Array): void {
    this.pending.push(bytes as Buffer);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
  }

  private flush(): void {
    if (this.pendingBytes === 0 || this.fd === undefined) return;
    const all = Buffer.concat(this.pending, this.pendingBytes);
    let off = 0;
    try {
      while (off < all.length) off += writeSync(this.fd, all, off);
    } catch (err) {
      const code = fullDiskCode(err);
      if (code === undefined) throw err;
      throw new UsageError(
        `the disk is full: the upload spool ${this.path} could not be written (${code})`,
        'free some space on the disk of the state directory (or give --state DIR on another), then run again: nothing was sent',
      );
    }
    this.pending = [];
    this.pendingBytes = 0;
  }
}

/**
 * A new file, never one found there (O_EXCL, O_NOFOLLOW): a link planted at this name is
 * refused, not followed. A file of a dead run that had this pid is removed first.
 */
function createNew(path: string): number {
  try {
    if (!lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) rmSync(path, { force: true });
    return openSync(
      path,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_NOFOLLOW,
      0o600,
    );
  } catch (err) {
    throw new UsageError(
      `cannot create the upload spool ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}${(err as NodeJS.ErrnoException).code === 'EEXIST' ? ' (something else is at that name: a link is never followed)' : ''}`,
      'remove what is at that name, and keep the state directory (--state DIR) writable by its owner only',
    );
  }
}

/** The items of one record line. */
function* itemsOf(line: Buffer): Generator<FeedRow> {
  if (line.length === 0) return;
  const tab = line.indexOf(TAB);
  const head = JSON.parse(line.toString('utf8', 0, tab < 0 ? line.length : tab)) as ItemHeader | RunHeader;
  if (Array.isArray(head.s)) {
    const run = head as RunHeader;
    for (let k = 0; k < run.s.length; k++)
      yield {
        file: run.f,
        row: run.r + k,
        line: run.l[k],
        sku: run.s[k],
        issues: [],
        valid: true,
        json: UNCHANGED,
      };
    return;
  }
  const h = head as ItemHeader;
  const item: FeedRow = { file: h.f, row: h.r, line: h.l, issues: h.i ?? [], valid: h.v === 1 };
  if (h.s !== undefined) item.sku = h.s;
  if (h.k !== undefined) item.source = h.k;
  if (h.p !== undefined) item.price = h.p;
  if (h.x !== undefined) item.record = h.x;
  // A copy: the batch keeps these bytes until sent, and must not pin the whole read chunk.
  if (tab >= 0) item.json = Buffer.from(line.subarray(tab + 1));
  else if (h.u === 1) item.json = UNCHANGED;
  yield item;
}

/**
 * The state's hooks for a replay: a row marked `UNCHANGED` was compared in the pass and is counted
 * unchanged without hashing again; every other row is planned by the state as in a streaming run
 * (new or changed, a batch of an earlier run resumed with its own id). The SKUs seen were marked
 * by the pass.
 */
export function spooledHooks(
  state: StateHooks & { unchanged(sku: string): MaybePromise<undefined> },
): StateHooks {
  return {
    plan: (sku, json, source) => {
      if (json !== UNCHANGED || sku === undefined) return state.plan(sku, json, source);
      return state.unchanged(sku);
    },
    accepted: (rows, parts) => state.accepted(rows, parts),
    notAccepted: async (rows, parts) => state.notAccepted?.(rows, parts),
    // The pass saw every SKU already (src/nightly/guard.ts): not counted twice.
    seen: () => {},
    sending: (batch, envelopeId) => state.sending(batch, envelopeId),
    settled: (envelopeId) => state.settled(envelopeId),
  };
}
