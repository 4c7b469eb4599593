import { randomUUID } from 'node:crypto';
import { emptyStats, type FeedRow, isFileLevel, payloadJson, payloadPrice, tally } from '../feed/index.js';
import type { ExchangeSettings } from '../http/exchange.js';
import { noOutcomes } from '../http/outcome.js';
import type { Pacer } from '../http/pacer.js';
import { oneLine } from '../http/response.js';
import { SendRun } from '../http/run.js';
import type { Poster } from '../http/sender.js';
import { framingFor } from '../payload/framing.js';
import { ExitError } from '../shared/errors.js';
import { IssueCollector } from '../shared/issue-collector.js';
import type { Logger } from '../shared/logger.js';
import { BatchQueue } from './batch-queue.js';
import type { BatchContext } from './batch-run.js';
import type { RowRef } from './batcher.js';
import { maxDepthFor } from './bisect.js';
import { Dispatcher } from './dispatch.js';
import { RowLedger } from './ledger.js';
import { UNCHANGED } from './state/delta.js';
import type {
  LiveStats,
  MaybePromise,
  SendPlan,
  StateHooks,
  UploadResult,
  UploadSettings,
  UploadSummary,
} from './types.js';

/**
 * The upload run: reads FeedItems, batches the valid ones and hands full batches to the
 * dispatcher (./dispatch.ts: at most `concurrency` in flight, reading pauses while all slots
 * are busy, so memory stays flat). A batch's sending and bisection are in ./batch-run.ts, the
 * retry loop in src/http/exchange.ts, the accounting of rows in ./ledger.ts.
 */

export interface UploadDeps {
  /** Required unless dry run. */
  poster?: Poster;
  log: Logger;
  /** Aborted on Ctrl-C: no new batches; in-flight requests get `graceMs`. */
  interrupt?: AbortSignal;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  newId?: () => string;
  /** Live counters, for progress displays. Created when not given. */
  stats?: LiveStats;
  /** The target's upload state (src/upload/state/): only new and changed rows go, by type. */
  state?: StateHooks;
  /** How many requests at once (src/http/pacer.ts); made from --concurrency when not given. */
  pacer?: Pacer;
}

export function newStats(now: number = Date.now()): LiveStats {
  return {
    rows: 0,
    line: 0,
    invalid: 0,
    unchanged: 0,
    sent: 0,
    ...noOutcomes(),
    retries: 0,
    requests: 0,
    batches: 0,
    bytes: 0,
    startedAt: now,
  };
}

/** How the product API's answers are named in messages (the retry loop is shared with events). */
const PRODUCT_API: Omit<ExchangeSettings, 'retries' | 'backoff'> = {
  keyName: 'API key',
  keyHint:
    'check GENSER_API_KEY or the --api-key-file contents: the right key for this api url, no stray spaces or line breaks',
  urlHint: 'check --api-url and --path (or --format/--kind)',
};

export async function uploadFeed(
  items: AsyncIterable<FeedRow>,
  settings: UploadSettings,
  deps: UploadDeps,
): Promise<UploadResult> {
  const now = deps.now ?? Date.now;
  const stats = deps.stats ?? newStats(now());
  stats.startedAt = now();
  if (!settings.dryRun && !deps.poster) throw new Error('uploadFeed needs a poster unless dry run');
  const run = new SendRun(deps.interrupt, settings.graceMs);
  const ctx = batchContext(settings, deps, run, new RowLedger(stats), now);
  const framing = framingFor(ctx.newId(), settings);
  const framingBytes = Buffer.byteLength(framing.head) + Buffer.byteLength(framing.tail);
  const dispatcher = new Dispatcher(ctx, framingBytes);
  const collector = new IssueCollector(settings.maxErrors);
  const feedStats = emptyStats();
  const queue = new BatchQueue(settings, framingBytes, deps.state !== undefined);
  const read = { lastRow: 0, toEnd: false, cut: false };
  try {
    try {
      for await (const item of items) {
        for (const issue of item.issues) collector.add(issue);
        tally(feedStats, item);
        // File-level items (row 0: empty file, duplicate header, ...) are not rows.
        if (isFileLevel(item)) continue;
        stats.rows++;
        stats.line = item.line;
        if (item.sku !== undefined) deps.state?.seen?.(item.sku);
        read.lastRow = item.row;
        if (run.stopped) notSentAfterStop(item, deps, stats);
        else {
          const took = takeRow(item, settings, deps, stats, queue);
          if (took) await took;
          while (queue.ready.length > 0) await dispatcher.dispatch(queue.ready.shift()!);
        }
        // After a stop the rest is read, unsent, so that every row of the feed is accounted for
        // once (docs/upload.md, "What became of each row"); Ctrl-C and SIGTERM stop reading too.
        if (deps.interrupt?.aborted) {
          read.cut = true;
          break;
        }
      }
      read.toEnd = !read.cut;
    } catch (err) {
      // The feed broke mid-run (bytes that do not decode, a bug): what was sent stays accounted
      // for and reported; rows still waiting in a batch are reported as not sent.
      const usage = err instanceof ExitError;
      const message = oneLine(err instanceof Error ? err.message : String(err));
      run.halt(usage ? 'input' : 'internal', message, usage ? err.hint : undefined, err);
    }
    queue.finish();
    while (queue.ready.length > 0) await dispatcher.dispatch(queue.ready.shift()!);
  } finally {
    // Whatever happened: let what is in flight finish before reporting it.
    await dispatcher.drain();
    run.dispose();
  }

  return {
    summary: {
      ...summaryOf(stats, feedStats.fileErrors, settings.dryRun, now(), deps.state !== undefined),
      ...(settings.dryRun ? {} : { concurrency: dispatcher.concurrency }),
    },
    failures: ctx.ledger.sorted(),
    batches: dispatcher.batches,
    issues: collector.issues,
    issuesTruncated: collector.truncated,
    feed: feedStats,
    collector,
    stop: run.stop,
    lastRow: read.lastRow,
    readToEnd: read.toEnd,
  };
}

/**
 * One valid row into a batch, unless the state says the service already has it. A promise only
 * when the state had to be asked: most rows of a nightly run are planned without one.
 */
function takeRow(
  item: FeedRow,
  settings: UploadSettings,
  deps: UploadDeps,
  stats: LiveStats,
  queue: BatchQueue,
): MaybePromise<void> {
  // A row skipped by its source key has no bytes: the state counts it unchanged.
  const json = !item.valid ? undefined : item.unchanged && deps.state ? UNCHANGED : payloadJson(item);
  if (json === undefined) {
    stats.invalid++;
    return;
  }
  const plan = deps.state ? deps.state.plan(item.sku, json, item.source) : { type: settings.type };
  if (plan instanceof Promise) return plan.then((p) => queueRow(item, json, p, stats, queue));
  queueRow(item, json, plan, stats, queue);
}

function queueRow(
  item: FeedRow,
  json: Uint8Array,
  plan: SendPlan | undefined,
  stats: LiveStats,
  queue: BatchQueue,
) {
  if (plan === undefined) {
    stats.unchanged++;
    return;
  }
  // Serialized once; this very buffer is in every body (and retry) that carries the product.
  const ref: RowRef = { file: item.file, row: item.row, line: item.line, sku: item.sku };
  if (plan.hash !== undefined) ref.hash = plan.hash;
  if (item.source !== undefined) ref.source = item.source;
  const price = payloadPrice(item);
  if (price !== undefined) ref.price = price;
  queue.add(json, ref, plan);
}

/** A row read after the run stopped: invalid, unchanged (known by its source key) or not sent. */
function notSentAfterStop(item: FeedRow, deps: UploadDeps, stats: LiveStats): void {
  if (!item.valid) stats.invalid++;
  else if (item.unchanged && deps.state) stats.unchanged++;
  else stats.notSent++;
}

/** What every batch of the run shares: settings, the retry loop's deps, the ledger. */
function batchContext(
  settings: UploadSettings,
  deps: UploadDeps,
  run: SendRun,
  ledger: RowLedger,
  now: () => number,
): BatchContext {
  const { stats } = ledger;
  return {
    settings,
    exchange: { retries: settings.retries, backoff: settings.backoff, ...PRODUCT_API },
    deps: {
      poster: deps.poster!,
      log: deps.log,
      run,
      random: deps.random,
      sleep: deps.sleep,
      now,
      pacer: deps.pacer,
      onRequest: () => stats.requests++,
      onRetry: () => stats.retries++,
    },
    run,
    ledger,
    log: deps.log,
    newId: deps.newId ?? randomUUID,
    maxDepth: maxDepthFor(settings.batchSize),
    ...(deps.state ? { state: deps.state } : {}),
  };
}

function summaryOf(
  stats: LiveStats,
  fileErrors: number,
  dryRun: boolean,
  now: number,
  withState: boolean,
): UploadSummary {
  return {
    rows: stats.rows,
    invalid: stats.invalid,
    ...(withState ? { unchanged: stats.unchanged } : {}),
    fileErrors,
    sent: stats.sent,
    accepted: stats.accepted,
    rejected: stats.rejected,
    failed: stats.failed,
    unconfirmed: stats.unconfirmed,
    notSent: stats.notSent,
    batches: stats.batches,
    retries: stats.retries,
    requests: stats.requests,
    bytes: stats.bytes,
    durationMs: now - stats.startedAt,
    dryRun,
  };
}
