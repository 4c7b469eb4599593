import {
  type FeedRow,
  feedRows,
  KEY_TEXT_LENGTH,
  KnownSources,
  payloadJson,
  payloadPrice,
} from '../feed/index.js';
import { priceOfJson } from '../payload/price.js';
import type { RemoteSettings } from '../read/index.js';
import { parseJsonBytes } from '../shared/json-bytes.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions } from '../shared/types.js';
import { inShard, type Shard, type ShardCounts } from '../upload/shard.js';
import { Spool, UNCHANGED } from '../upload/spool.js';
import type { Delta } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import { askedAhead } from './asked-ahead.js';
import type { FeedColumns } from './feed-columns.js';
import {
  driftLine,
  feedSizeTrip,
  type GuardRules,
  type GuardTrip,
  guardRefusal,
  guardTrips,
} from './guard-rules.js';
import { newTally, type PlanTally, tallyUpdate } from './plan-tally.js';
import { PriceChecks } from './price-checks.js';
import { type MissingMode, markedGone } from './rows.js';

export interface GuardPass {
  files: string[];
  feed: FeedOptions;
  run: {
    state: UploadState;
    delta: Delta;
    full: boolean;
    dir: string;
    missingRuns: ReadonlyMap<string, number>;
    /** Told the feed's column sets (mapping drift); said absent columns are marked here. */
    columns?: FeedColumns;
    driftSaid?: boolean;
  };
  rules: GuardRules;
  missing: MissingMode;
  /** `--missing-after K`: only products missing from K complete runs in a row count as gone. */
  missingAfter: number;
  log: Logger;
  stdin?: NodeJS.ReadableStream;
  remote?: RemoteSettings;
  workers?: number | 'auto';
  /** `--shard I/N`: other shards' rows are counted here and never spooled. */
  shard?: { of: Shard; counts: ShardCounts };
  /** Ctrl-C or SIGTERM: the pass stops reading, and nothing is sent. */
  interrupt: AbortSignal;
  /** `genser plan`: count only, spool nothing, refuse nothing (the trips are returned). */
  planOnly?: boolean;
}

/** What the pass found: the plan's counts, the guards that trip, the known and gone products. */
export interface PassFindings {
  tally: PlanTally;
  known: number;
  /** Known products absent from the feed (`--missing out-of-stock`; else 0). */
  gone: number;
  /** The guards that trip (none when nothing is known yet). */
  trips: GuardTrip[];
  /**
   * False when the feed could not be read fully (a file error): only its size is judged then
   * (an empty or header-only file trips --min-rows); the rest is the upload's to report.
   */
  decided: boolean;
  /** No file error and every row with its SKU: products gone from it would be marked (./rows.ts). */
  complete: boolean;
  /** The feed rows of the last complete run, when known. */
  lastRows?: number;
  /** Columns the last complete run mapped that the feed lacks (mapping drift; decided feeds only). */
  absentColumns: string[];
}

/** The pass's outcome: the spool to replay (none: stream the feed; or stopped by a signal), what it found. */
export type GuardOutcome =
  | { spool: Spool; interrupted?: undefined; found: PassFindings; holdRemovals: boolean }
  | { spool?: undefined; interrupted: boolean; found?: PassFindings; holdRemovals?: undefined };

/** Whether any guard can trip against `known` products: else an upload streams its feed. */
export function guardsApply(rules: GuardRules, known: number): boolean {
  if (known === 0) return false;
  const change = !(rules.maxChange.kind === 'percent' && rules.maxChange.max >= 100);
  return change || rules.minRows > 0 || rules.minShare > 0 || rules.priceShock !== 'off' || rules.strict;
}

/**
 * The guards' one pass (docs/nightly.md, "Before and after the run"): the feed is read once,
 * before anything is sent, counting what the run would do (./plan-tally.ts), while what the
 * upload must still see goes to a spool on disk (src/upload/spool.ts). A guard that trips
 * refuses the run (exit 6, nothing sent) or, with `--on-guard hold-removals`, lets it send its
 * creates and updates without the out-of-stock marks; otherwise the upload replays the spool
 * instead of reading the feed again. Not run (no spool: the upload streams the feed) when no
 * guard applies (a first run, or every guard off). `genser plan` runs it to count only.
 */
export async function guardedRead(pass: GuardPass): Promise<GuardOutcome> {
  const { run, rules, missing, log } = pass;
  const { state, delta } = run;
  const known = await state.knownCount();
  if (!pass.planOnly && !guardsApply(rules, known)) return { interrupted: false };
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
  const spool = pass.planOnly ? undefined : Spool.open(run.dir);
  try {
    const read = await spoolFeed(
      feedRows(pass.files, pass.feed, log, pass.stdin, {
        serialize: true,
        pausing: true,
        workers: pass.workers,
        keys,
        remote: pass.remote,
        signal: pass.interrupt,
        ...(run.columns ? { onColumns: run.columns.observe } : {}),
      }),
      spool ?? countOnly,
      {
        delta,
        state,
        full: run.full,
        interrupt: pass.interrupt,
        shockMove: shockMoveOf(rules),
        // Which fields the updates change, and the largest price moves, are said by `genser plan`
        // only (src/nightly/plan-report.ts); an upload reads prices only for --price-shock.
        fields: pass.planOnly === true,
      },
      pass.shard,
    );
    if (pass.interrupt.aborted) {
      spool?.remove();
      return { interrupted: true };
    }
    const isGone = markedGone(delta.seenSkus, run.missingRuns, pass.missingAfter);
    const found = await findings(read, { state, isGone, known, missing, rules, columns: run.columns });
    // Without --strict, mapping drift is said and the run goes on (with --strict it is a trip).
    if (found.absentColumns.length > 0 && !rules.strict && !pass.planOnly) {
      log.warn(driftLine(found.absentColumns));
      run.driftSaid = true;
    }
    if (!spool) return { interrupted: false, found };
    const { trips } = found;
    if (trips.length > 0 && rules.onGuard === 'refuse') throw guardRefusal(trips);
    log.debug(
      `guards: ${read.tally.updated} changed; ${read.skipped} rows not mapped again (source key accepted before); ${spool.records} records spooled in ${spool.path}`,
    );
    return { spool, found, holdRemovals: trips.length > 0 };
  } catch (err) {
    spool?.remove();
    throw err;
  }
}

/** The plan's sink: counts, keeps nothing. */
const countOnly = { add() {} };

function shockMoveOf(rules: GuardRules): number {
  return rules.priceShock === 'off' ? Number.POSITIVE_INFINITY : rules.priceShock.move;
}

/** The counts of a whole pass, and (for a feed read fully) the guards that trip. */
async function findings(
  read: { tally: PlanTally; decides: boolean; complete: boolean },
  on: {
    state: UploadState;
    isGone(sku: string): boolean;
    known: number;
    missing: MissingMode;
    rules: GuardRules;
    columns: FeedColumns | undefined;
  },
): Promise<PassFindings> {
  const { state, known } = on;
  let gone = 0;
  if (on.missing === 'out-of-stock' && read.decides)
    for await (const sku of state.acceptedSkus()) if (on.isGone(sku)) gone++;
  const last = await state.lastComplete();
  const lastRows = last?.rows;
  // A feed not read fully may not have shown all its columns.
  const absentColumns = read.decides && on.columns ? on.columns.absent(last?.columns) : [];
  const counts = {
    rows: read.tally.rows,
    changed: read.tally.updated,
    gone,
    known,
    shocked: read.tally.shocked,
    lastRows,
    absentColumns,
  };
  // Nothing known (a first run): no guard applies, as the upload runs no pass then. A feed that
  // cannot be read fully is judged by its size only; the rest is the upload's to report.
  const size = feedSizeTrip(counts, on.rules);
  const trips =
    known === 0 ? [] : read.decides ? guardTrips(counts, on.rules, on.missing) : size ? [size] : [];
  return {
    tally: read.tally,
    known,
    gone,
    complete: read.complete,
    ...(lastRows !== undefined ? { lastRows } : {}),
    absentColumns,
    trips,
    decided: read.decides,
  };
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
  spool: Pick<Spool, 'add'>,
  run: {
    delta: Delta;
    state: UploadState;
    full: boolean;
    interrupt: AbortSignal;
    shockMove: number;
    fields: boolean;
  },
  shard: { of: Shard; counts: ShardCounts } | undefined,
): Promise<{ tally: PlanTally; skipped: number; decides: boolean; complete: boolean }> {
  const { delta } = run;
  const tally = newTally();
  const prices = new PriceChecks(run.state, tally, run.shockMove);
  const changes = { ...run, prices };
  let skipped = 0;
  let decides = true;
  let complete = true;
  const otherShards: { source: string; sku: string }[] = [];
  // The hashes the comparisons below need, asked of the state a page of rows at a time.
  for await (const item of askedAhead(items, delta)) {
    if (item.row > 0 && item.sku === undefined) complete = false;
    if (item.row === 0) {
      if (!item.valid) decides = complete = false;
      spool.add(item, undefined);
      continue;
    }
    // Another shard's product (its state is elsewhere): counted, never spooled. Rows without a
    // SKU are spooled: the replay's shard filter gives them to shard 1 after the gone check.
    tally.rows++;
    if (item.unchanged && item.valid) skipped++;
    if (shard && item.sku !== undefined && !inShard(item, shard.of)) {
      shard.counts.rows++;
      // Its key (mapped tonight, or skipped by it), so the next run need not map it to find its
      // shard. A key alone, without warnings: this shard never reports that row.
      if (item.source !== undefined && item.valid)
        otherShards.push({ source: item.source.slice(0, KEY_TEXT_LENGTH), sku: item.sku });
      continue;
    }
    if (item.sku !== undefined) delta.seen(item.sku);
    if (item.unchanged && item.valid) {
      tally.unchanged++;
      spool.add(item, UNCHANGED);
      continue;
    }
    const json = item.valid ? payloadJson(item) : undefined;
    if (json === undefined || item.sku === undefined) {
      // Invalid: refused; valid without a SKU: sent as new every time (./../upload/state/delta.ts).
      if (json === undefined) tally.refused++;
      else tally.created++;
      spool.add(item, json);
      continue;
    }
    // The state's own comparison (an unanswered earlier batch counts); it notes the keys of rows
    // found the same, so the next run skips them.
    const compared = await delta.compare(item.sku, json, item.source);
    if (compared.last === undefined) tally.created++;
    else if (compared.same) tally.unchanged++;
    else await tallyChange(tally, changes, item.sku, json, payloadPrice(item));
    spool.add(item, compared.same && !run.full ? UNCHANGED : json);
  }
  await prices.flush();
  await delta.flushNotes();
  // The whole feed was read (a reading failure throws before this; a stop leaves the table as it was).
  if (shard && !run.interrupt.aborted) await run.state.replaceOtherShards(otherShards);
  return { tally, skipped, decides, complete };
}

/**
 * An update counted, with the payload it replaces when its fields or price move are asked for:
 * `genser plan` compares the two payloads whole; an upload compares the prices only: the row's
 * (`payloadPrice`, read where its payload was made) and the one kept with the SKU in the state.
 */
async function tallyChange(
  tally: PlanTally,
  run: { state: UploadState; shockMove: number; fields: boolean; prices: PriceChecks },
  sku: string,
  json: Uint8Array,
  price: number | null | undefined,
): Promise<void> {
  // --price-shock off (an infinite move) and no plan: nobody reads the prices.
  if (!run.fields && run.shockMove === Number.POSITIVE_INFINITY) {
    tally.updated++;
    return;
  }
  if (!run.fields) {
    const now = price === undefined ? priceOfJson(json) : (price ?? undefined);
    await run.prices.add(sku, now);
    return;
  }
  const before = (await run.state.acceptedPayloads([sku])).get(sku);
  if (!before) tally.updated++;
  else tallyUpdate(tally, sku, parseJsonBytes(before), parseJsonBytes(json), run.shockMove);
}
