import { type FeedRow, feedRows, KEY_TEXT_LENGTH, KnownSources, payloadJson } from '../feed/index.js';
import { ExitCode, ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions } from '../shared/types.js';
import { untilStopped } from '../shared/until-stopped.js';
import type { InvalidBudget } from '../upload/budget.js';
import { inShard, type Shard, type ShardCounts } from '../upload/shard.js';
import { Spool, UNCHANGED } from '../upload/spool.js';
import type { Delta } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import type { MissingMode } from './rows.js';

export interface GuardPass {
  files: string[];
  feed: FeedOptions;
  run: { state: UploadState; delta: Delta; full: boolean; dir: string };
  limit: InvalidBudget;
  missing: MissingMode;
  log: Logger;
  stdin?: NodeJS.ReadableStream;
  workers?: number | 'auto';
  /** `--shard I/N`: other shards' rows are counted here and never spooled. */
  shard?: { of: Shard; counts: ShardCounts };
  /** Ctrl-C or SIGTERM: the pass stops reading, and nothing is sent. */
  interrupt: AbortSignal;
}

/** The pass's outcome: the spool to replay, or none (no guard: stream the feed; or stopped by a signal). */
export type GuardOutcome =
  | { spool: Spool; interrupted?: undefined }
  | { spool?: undefined; interrupted: boolean };

/**
 * The mass-change guard (`--max-change`, docs/nightly.md): the feed is read once, before anything
 * is sent, counting the known products it changes and (with `--missing out-of-stock`) those gone
 * from it, while what the upload must still see goes to a spool on disk (src/upload/spool.ts).
 * Over the limit, nothing is sent and the run exits 1; otherwise the upload replays the spool
 * instead of reading the feed again. Not applied (no spool: the upload streams the feed) to a
 * first run (nothing known) or a limit of 100% or more.
 */
export async function guardedRead(pass: GuardPass): Promise<GuardOutcome> {
  const { run, limit, missing, log } = pass;
  if (limit.kind === 'percent' && limit.max >= 100) return { interrupted: false };
  const { state, delta } = run;
  const known = await state.knownCount();
  if (known === 0) return { interrupted: false };
  // The accepted source keys, read while the feed's threads start: rows with one of them are not
  // mapped again (--full maps all). The other rows' hashes: when most rows are skipped, the few
  // others are looked up one by one; else (--full, a state from before source keys) all are read
  // in one scan (BENCHMARKS.md, "The nightly case").
  const keys = {
    known: async () => {
      const table = run.full ? KnownSources.build([]) : await state.knownSources();
      if (table.size < known / 2) delta.preloadHashes(await state.acceptedHashes());
      return table;
    },
  };
  const spool = Spool.open(run.dir);
  try {
    const read = await spoolFeed(
      untilStopped(
        feedRows(pass.files, pass.feed, log, pass.stdin, { serialize: true, workers: pass.workers, keys }),
        pass.interrupt,
      ),
      spool,
      { delta, state, full: run.full, interrupt: pass.interrupt },
      // SKUs seen are only for the products gone from the feed.
      missing === 'out-of-stock',
      pass.shard,
    );
    if (pass.interrupt.aborted) {
      spool.remove();
      return { interrupted: true };
    }
    // A feed that cannot be read fully is the upload's to report; no guard decision on it.
    if (read.decides) {
      let gone = 0;
      if (missing === 'out-of-stock')
        for await (const sku of state.acceptedSkus()) if (!delta.seenSkus.has(sku)) gone++;
      const refused = massChangeError(read.changed, gone, known, limit, missing);
      if (refused) throw refused;
    }
    log.debug(
      `--max-change: ${read.changed} changed; ${read.skipped} rows not mapped again (source key accepted before); ${spool.records} records spooled in ${spool.path}`,
    );
    return { spool };
  } catch (err) {
    spool.remove();
    throw err;
  }
}

/**
 * The one pass: every item goes to the spool in order (an unchanged row as its SKU, row and
 * line only), every SKU is marked `seen` (when asked), and the known products whose payload
 * bytes changed are counted. A row the feed skipped by its source key is unchanged; one whose
 * bytes hash to what was accepted has its key noted in the state, so the next run skips it. A
 * feed that throws (bytes that do not decode) stops the run before anything is sent.
 */
async function spoolFeed(
  items: AsyncIterable<FeedRow>,
  spool: Spool,
  run: { delta: Delta; state: UploadState; full: boolean; interrupt: AbortSignal },
  markSeen: boolean,
  shard: { of: Shard; counts: ShardCounts } | undefined,
): Promise<{ changed: number; skipped: number; decides: boolean }> {
  const { delta } = run;
  let changed = 0;
  let skipped = 0;
  let decides = true;
  const otherShards: { source: string; sku: string }[] = [];
  for await (const item of items) {
    if (item.row === 0) {
      if (!item.valid) decides = false;
      spool.add(item, undefined);
      continue;
    }
    // Another shard's product (its state is elsewhere): counted, never spooled. Rows without a
    // SKU are spooled: the replay's shard filter gives them to shard 1 after the gone check.
    if (item.unchanged && item.valid) skipped++;
    if (shard && item.sku !== undefined && !inShard(item, shard.of)) {
      shard.counts.rows++;
      // Its key (mapped tonight, or skipped by it), so the next run need not map it to find its
      // shard. A key alone, without warnings: this shard never reports that row.
      if (item.source !== undefined && item.valid)
        otherShards.push({ source: item.source.slice(0, KEY_TEXT_LENGTH), sku: item.sku });
      continue;
    }
    if (item.sku !== undefined && markSeen) delta.seen(item.sku);
    if (item.unchanged && item.valid) {
      spool.add(item, UNCHANGED);
      continue;
    }
    const json = item.valid ? payloadJson(item) : undefined;
    if (json === undefined || item.sku === undefined) {
      spool.add(item, json);
      continue;
    }
    // The state's own comparison (an unanswered earlier batch counts); it notes the keys of rows
    // found the same, so the next run skips them.
    const { last, same } = await delta.compare(item.sku, json, item.source);
    if (last !== undefined && !same) changed++;
    spool.add(item, same && !run.full ? UNCHANGED : json);
  }
  await delta.flushNotes();
  // The whole feed was read (a reading failure throws before this; a stop leaves the table as it was).
  if (shard && !run.interrupt.aborted) await run.state.replaceOtherShards(otherShards);
  return { changed, skipped, decides };
}

/** The refusal when changed + gone is over the limit (a count, or a share of the known products). */
export function massChangeError(
  changed: number,
  gone: number,
  known: number,
  limit: InvalidBudget,
  missing: MissingMode,
): ExitError | undefined {
  const total = changed + gone;
  const max = limit.kind === 'count' ? limit.max : Math.floor((known * limit.max) / 100);
  if (total <= max) return undefined;
  const n = (x: number) => x.toLocaleString('en-US');
  const what =
    missing === 'out-of-stock'
      ? `${n(changed)} changed and ${n(gone)} gone from the feed`
      : `${n(changed)} changed`;
  return new ExitError(
    ExitCode.data,
    `${what} of ${n(known)} known products (${n(total)}) is more than --max-change allows (${limit.kind === 'count' ? n(limit.max) : `${limit.max}%`}, ${n(max)}): nothing was sent`,
    'check the feed; if the change is meant, run again with a higher --max-change (e.g. --max-change 100%)',
  );
}
