import { feedRows } from '../feed/index.js';
import { FeedUnchanged, sourceName } from '../read/index.js';
import type { RejectsFile } from '../report/rejects.js';
import { newStats, uploadFeed } from '../upload/engine.js';
import { countLines } from '../upload/estimate.js';
import { startProgress } from '../upload/progress.js';
import { type Spool, spooledHooks } from '../upload/spool.js';
import type { UploadResult } from '../upload/types.js';
import { askedAhead } from './asked-ahead.js';
import {
  failedCode,
  type NightlyEnding,
  type NightlyRun,
  type RunHistory,
  settleRun,
  unchangedEnding,
} from './ending.js';
import { FeedColumns } from './feed-columns.js';
import { type ConditionalFeed, conditionalFeed } from './feed-validators.js';
import { guardedRead } from './guard.js';
import { heldLine } from './guard-rules.js';
import { checkInvalidBudget } from './invalid-budget.js';
import type { NightlyDeps, NightlyPlan } from './plan.js';
import { markedGone, type NightlyRow, nightlyRows, retryLines, retryRows, withOrigin } from './rows.js';
import { productSender } from './sender.js';
import { openStateRun, type StateRun } from './state-run.js';

/**
 * The nightly upload (docs/nightly.md), from a resolved plan to its ending: the `--max-invalid`
 * pass, the target's state and lock, the row source (the feed, the guard's spool or the retry
 * rows; gone products; the shard), the engine, then the state settled and the exit code chosen.
 * The caller prints the ending (src/commands/upload.ts).
 */
export async function runNightly(plan: NightlyPlan, deps: NightlyDeps): Promise<NightlyEnding> {
  if (plan.maxInvalid && !plan.retry) await checkInvalidBudget(plan, deps);
  const stateRun = await openState(plan, deps);
  if (stateRun && !plan.retry) stateRun.columns = new FeedColumns(plan.feed);
  const run: NightlyRun = {
    plan,
    deps,
    ...(stateRun ? { stateRun } : {}),
    ...(plan.shard ? { shard: { of: plan.shard, counts: { rows: 0, mine: 0 } } } : {}),
  };
  let history: RunHistory | undefined;
  let result: UploadResult | undefined;
  let spool: Spool | undefined;
  let conditional: ConditionalFeed | undefined;
  const started = Date.now();
  try {
    conditional = await conditionalFeed(plan, deps, stateRun);
    if (conditional) run.deps = { ...deps, remote: conditional.remote };
    const source = await sourceOf(run);
    spool = source.spool;
    history = source.history;
    // Its check ran while the feed was read: nothing is sent to a target whose state is damaged.
    await stateRun?.state.intact();
    if (stateRun && stateRun.delta.resumable > 0)
      deps.log.info(
        `state: ${stateRun.delta.resumable} batch(es) of an earlier run were never answered: sent again with their own envelope ids`,
      );
    result = await sendRows(run, source);
    const ending = await settleRun(run, result, history);
    if (history && result.stop?.reason !== 'state') await conditional?.keep(history.id, ending.code);
    return ending;
  } catch (err) {
    // A damaged state is said as such, whatever failed on it first.
    await stateRun?.state.intact();
    // Thrown in the guard's read, the history row is started but not yet returned: the delta has its id.
    const id = history?.id ?? stateRun?.delta.runId;
    // Unchanged since the run whose validators were sent: an ending of its own (exit 0), which
    // leaves those validators as they are.
    if (err instanceof FeedUnchanged && id !== undefined)
      return await unchangedEnding(
        run,
        { sinceRun: conditional?.since?.runId ?? null, url: sourceName(err.source) },
        { id, started: history?.started ?? started },
      );
    if (id !== undefined) {
      const code = failedCode(err);
      await stateRun?.finishRun(id, result, code, undefined, Date.now() - (history?.started ?? started));
      // A failed run keeps no validators (the run's own error is what is said if that fails too).
      await conditional?.keep(id, code).catch(() => undefined);
    }
    throw err;
  } finally {
    spool?.remove();
    await stateRun?.close();
  }
}

/** The target's state, with its run lock: two cron runs to one target must not overlap (exit 5). */
export async function openState(plan: NightlyPlan, deps: NightlyDeps): Promise<StateRun | undefined> {
  const { target } = plan;
  // Every real upload keeps state; an embedded sandbox keeps none unless --state is given (the
  // Quick start stays stateless), and a dry run none.
  if (plan.settings.dryRun || target?.key === undefined) return undefined;
  if (target.sandbox && plan.state === undefined) return undefined;
  const stateRun = await openStateRun(
    { state: plan.state, full: plan.full, marksSeen: plan.missing === 'out-of-stock' },
    {
      apiUrl: target.apiUrl,
      key: target.key,
      format: plan.feed.format,
      ...(target.sandbox ? { sandbox: { db: target.sandbox.db } } : {}),
      ...(plan.shard ? { shard: plan.shard } : {}),
    },
    deps.env,
    deps.log,
  );
  if (stateRun?.note) deps.log.warn(stateRun.note);
  return stateRun;
}

/** Where the engine's rows come from, and the history row of the run. */
interface Source {
  /** Undefined: the feed, read as the engine goes. */
  rows?: AsyncIterable<NightlyRow>;
  /** The rows are the feed's (read now or replayed): gone products and the shard apply. */
  fromFeed: boolean;
  spool?: Spool;
  history?: RunHistory;
  /** A guard tripped under `--on-guard hold-removals`: no out-of-stock mark is sent. */
  holdRemovals?: boolean;
}

async function sourceOf(run: NightlyRun): Promise<Source> {
  const { plan, deps, stateRun } = run;
  if (!stateRun) {
    if (plan.retry) throw new Error('--retry-failed without state');
    return { fromFeed: true };
  }
  if (plan.retry) {
    // Every row owed by earlier runs, whatever ran in between (docs/nightly.md).
    const owed = await stateRun.state.owedRows();
    const said = retryLines(owed);
    deps.log.info(said.info);
    const id = await stateRun.startRun([], said.label);
    return { rows: retryRows(owed), fromFeed: false, history: { id, started: Date.now() } };
  }
  const history = { id: await stateRun.startRun(plan.files), started: Date.now() };
  if (!plan.guards || deps.interrupt.aborted) return { fromFeed: true, history };
  // The guards' one pass over the feed; the upload then replays its spool (no second read).
  const guard = await guardedRead({
    files: plan.files,
    feed: plan.feed,
    run: stateRun,
    rules: plan.guards,
    missing: plan.missing,
    missingAfter: plan.missingAfter,
    log: deps.log,
    workers: plan.workers,
    interrupt: deps.interrupt,
    ...(deps.stdin ? { stdin: deps.stdin } : {}),
    ...(deps.remote ? { remote: deps.remote } : {}),
    ...(run.shard ? { shard: run.shard } : {}),
  });
  if (!guard.spool)
    return guard.interrupted ? { rows: noRows(), fromFeed: false, history } : { fromFeed: true, history };
  stateRun.feedRows = guard.found.tally.rows;
  stateRun.held = guard.holdRemovals;
  if (guard.holdRemovals) deps.log.warn(heldLine(guard.found.trips, guard.found.gone));
  return {
    rows: withOrigin(guard.spool.rows(), 'feed'),
    fromFeed: true,
    spool: guard.spool,
    history,
    holdRemovals: guard.holdRemovals,
  };
}

async function* noRows(): AsyncGenerator<NightlyRow> {}

/** The rows, each invalid one written to `--rejects` as it passes (an iterator: no promise per row). */
function tapped(items: AsyncIterable<NightlyRow>, rejects: RejectsFile): AsyncIterableIterator<NightlyRow> {
  const it = items[Symbol.asyncIterator]();
  const tap = (result: IteratorResult<NightlyRow>): IteratorResult<NightlyRow> => {
    if (!result.done && !result.value.valid) rejects.refused(result.value);
    return result;
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    next: () => it.next().then(tap),
    return: async () => (await it.return?.()) ?? { done: true, value: undefined },
  };
}

/** The engine's run: sender, progress, the rows until a stop, the state's hooks. */
async function sendRows(run: NightlyRun, source: Source): Promise<UploadResult> {
  const { plan, deps, stateRun } = run;
  const { target, settings } = plan;
  deps.log.debug(
    `upload settings: ${JSON.stringify({ ...settings, timeoutMs: plan.timeoutMs, target: target ? `POST ${target.apiUrl.replace(/\/+$/, '')}${settings.path}` : undefined, key: target?.key ? `(from ${target.keyFrom})` : 'none' })}`,
  );
  const poster =
    settings.dryRun || target?.key === undefined
      ? undefined
      : productSender(
          { apiUrl: target.apiUrl, key: target.key, format: plan.feed.format, network: deps.network },
          settings.concurrency,
          plan.timeoutMs,
        );
  const stats = newStats();
  let estimated: number | undefined;
  if (deps.progress && deps.log.fancy)
    void countLines(plan.files).then((n) => {
      estimated = n;
    });
  const progress = await startProgress(stats, deps.log, {
    quiet: deps.progress === undefined,
    stream: deps.progress ?? process.stderr,
    totalLines: () => estimated,
  });
  deps.onLogger?.(progress.log);
  const feed = () =>
    feedRows(plan.files, plan.feed, progress.log, deps.stdin, {
      serialize: true,
      pausing: true,
      workers: plan.workers,
      remote: deps.remote,
      signal: deps.interrupt,
      ...(stateRun?.columns ? { onColumns: stateRun.columns.observe } : {}),
      // With state, each row's source key is kept with its accepted payload; rows with a key
      // accepted before are skipped (docs/nightly.md, "Unchanged rows"), unless --full.
      ...(stateRun ? { keys: stateRun.full ? {} : { known: () => stateRun.state.knownSources() } } : {}),
    });
  // Streamed (no guard's pass before): with a state, the hashes the rows' plans need are asked a page at a time.
  const rows = source.rows ?? (stateRun ? askedAhead(feed(), stateRun.delta) : withOrigin(feed(), 'feed'));
  const items = source.fromFeed
    ? nightlyRows(rows, {
        format: plan.feed.format,
        ...(stateRun && plan.missing === 'out-of-stock' && !source.holdRemovals
          ? {
              gone: {
                state: stateRun.state,
                isGone: markedGone(stateRun.delta.seenSkus, stateRun.missingRuns, plan.missingAfter),
                counted: (n: number) => (stateRun.gone = n),
              },
            }
          : {}),
        ...(run.shard ? { shard: run.shard } : {}),
      })
    : rows;
  try {
    const refused = deps.rejects ? tapped(items, deps.rejects) : items;
    // The engine stops taking rows on a stop; a read that waits (stdin, a pipe) is the feed's to
    // leave (its `signal`): the spool, the state and retry rows are read from local files.
    return await uploadFeed(refused, settings, {
      poster,
      log: progress.log,
      interrupt: deps.interrupt,
      stats,
      ...(stateRun ? { state: source.spool ? spooledHooks(stateRun.delta) : stateRun.delta } : {}),
    });
  } finally {
    progress.stop();
    deps.onLogger?.(deps.log);
    await poster?.close();
  }
}
