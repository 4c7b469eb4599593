import { UsageError } from '../shared/errors.js';
import type { HasSku } from '../shared/string-set.js';
import { payloadHash } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import { FeedColumns } from './feed-columns.js';
import { guardedRead } from './guard.js';
import type { GuardTrip, OnGuard } from './guard-rules.js';
import type { NightlyDeps, NightlyPlan } from './plan.js';
import { newTally, type PlanTally } from './plan-tally.js';
import { markedGone, outOfStock } from './rows.js';
import { openState } from './run.js';

/**
 * `genser plan` (docs/nightly.md, "Before and after the run"): what an upload of the same feed,
 * settings and state would do, sending nothing. It reads the feed with the guards' own pass
 * (./guard.ts), so the counts are the ones the upload's guards decide on.
 */
export interface RunPlan {
  /** The feed's rows (all shards'). */
  rows: number;
  known: number;
  tally: PlanTally;
  /** Out-of-stock marks that would be sent (`--missing out-of-stock`); undefined: not asked. */
  outOfStock?: number;
  /** Products gone from the feed that the target already holds as out of stock (not sent again). */
  alreadyOut?: number;
  /** Products absent from the feed, not yet for `--missing-after` complete runs: not marked yet. */
  waiting?: number;
  trips: GuardTrip[];
  /** False: the feed could not be read fully, so only its size is judged. */
  decided: boolean;
  onGuard: OnGuard;
  lastRows?: number;
  full: boolean;
  /** Stopped by Ctrl-C or SIGTERM before the feed was read. */
  interrupted: boolean;
  /** Columns the last complete run mapped that the feed lacks (mapping drift). */
  absentColumns: string[];
}

export async function planNightly(plan: NightlyPlan, deps: NightlyDeps): Promise<RunPlan> {
  const guards = plan.guards;
  const stateRun = await openState(plan, deps);
  if (!stateRun || !guards) {
    await stateRun?.close();
    throw new UsageError(
      'a plan needs the upload state of a target',
      'give the --api-url and key of the upload (or --sandbox with --state and --sandbox-db), and no --retry-failed',
    );
  }
  stateRun.columns = new FeedColumns(plan.feed);
  try {
    const pass = await guardedRead({
      files: plan.files,
      feed: plan.feed,
      run: stateRun,
      rules: guards,
      missing: plan.missing,
      missingAfter: plan.missingAfter,
      log: deps.log,
      workers: plan.workers,
      interrupt: deps.interrupt,
      planOnly: true,
      ...(deps.remote ? { remote: deps.remote } : {}),
      ...(deps.stdin ? { stdin: deps.stdin } : {}),
      ...(plan.shard ? { shard: { of: plan.shard, counts: { rows: 0, mine: 0 } } } : {}),
    });
    // Its check ran while the feed was read: a plan of a damaged state says the damage.
    await stateRun.state.intact();
    const found = pass.found;
    const base = { onGuard: guards.onGuard, full: plan.full };
    if (!found)
      return {
        ...base,
        rows: 0,
        known: 0,
        tally: newTally(),
        trips: [],
        decided: false,
        interrupted: true,
        absentColumns: [],
      };
    const marks =
      plan.missing === 'out-of-stock' && found.complete
        ? await goneMarks(
            stateRun.state,
            stateRun.delta.seenSkus,
            markedGone(stateRun.delta.seenSkus, stateRun.missingRuns, plan.missingAfter),
            plan.feed.format,
          )
        : undefined;
    return {
      ...base,
      rows: found.tally.rows,
      known: found.known,
      tally: found.tally,
      ...(marks ? { outOfStock: marks.send, alreadyOut: marks.already, waiting: marks.waiting } : {}),
      trips: found.trips,
      decided: found.decided,
      ...(found.lastRows !== undefined ? { lastRows: found.lastRows } : {}),
      interrupted: false,
      absentColumns: found.absentColumns,
    };
  } catch (err) {
    // A damaged state is said as such, whatever failed on it first.
    await stateRun.state.intact();
    throw err;
  } finally {
    await stateRun.close();
  }
}

/**
 * The products gone from the feed, as the upload would treat them (./rows.ts): an out-of-stock
 * payload the target already holds is unchanged and not sent again.
 */
async function goneMarks(
  state: UploadState,
  seen: HasSku,
  isGone: (sku: string) => boolean,
  format: NightlyPlan['feed']['format'],
): Promise<{ send: number; already: number; waiting: number }> {
  let send = 0;
  let already = 0;
  let waiting = 0;
  for await (const { sku, payload } of state.absent((sku) => seen.has(sku))) {
    if (!isGone(sku)) waiting++;
    else if (payloadHash(outOfStock(format, payload).json) === (await state.acceptedHash(sku))) already++;
    else send++;
  }
  return { send, already, waiting };
}
