import { randomUUID } from 'node:crypto';
import { emptyStats, isFileLevel, tally } from '../feed/pipeline.js';
import { type FeedRow, payloadJson } from '../feed/threads.js';
import type { ExchangeDeps, ExchangeSettings } from '../http/exchange.js';
import { InFlight } from '../http/in-flight.js';
import { noOutcomes } from '../http/outcome.js';
import { oneLine } from '../http/response.js';
import { SendRun } from '../http/run.js';
import type { Poster } from '../http/sender.js';
import { framingFor } from '../payload/framing.js';
import { IssueCollector } from '../report/issues.js';
import { ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { type BatchContext, runBatch } from './batch-run.js';
import { Batcher, type PendingBatch } from './batcher.js';
import { maxDepthFor } from './bisect.js';
import { RowLedger } from './ledger.js';
import type { BatchOutcome, LiveStats, UploadResult, UploadSettings } from './types.js';

/**
 * The upload run: reads FeedItems, batches the valid ones, keeps at most `concurrency` batches
 * in flight (reading pauses while all slots are busy, so memory stays flat), and accounts for
 * every row. A batch's sending and bisection are in ./batch-run.ts, the retry loop in
 * src/http/exchange.ts, the accounting in ./ledger.ts.
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
}

export function newStats(now: number = Date.now()): LiveStats {
  return {
    rows: 0,
    line: 0,
    invalid: 0,
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
  const newId = deps.newId ?? randomUUID;
  const stats = deps.stats ?? newStats(now());
  stats.startedAt = now();
  if (!settings.dryRun && !deps.poster) throw new Error('uploadFeed needs a poster unless dry run');

  const run = new SendRun(deps.interrupt, settings.graceMs);
  const ledger = new RowLedger(stats);
  const batches: BatchOutcome[] = [];
  const collector = new IssueCollector(settings.maxErrors);
  const feedStats = emptyStats();
  const inFlight = new InFlight(settings.concurrency);
  const framing = framingFor(newId(), settings);
  const framingBytes = Buffer.byteLength(framing.head) + Buffer.byteLength(framing.tail);
  const exchangeDeps: ExchangeDeps = {
    poster: deps.poster!,
    log: deps.log,
    run,
    random: deps.random,
    sleep: deps.sleep,
    now,
    onRequest: () => stats.requests++,
    onRetry: () => stats.retries++,
  };
  const ctx: BatchContext = {
    settings,
    exchange: { retries: settings.retries, backoff: settings.backoff, ...PRODUCT_API },
    deps: exchangeDeps,
    run,
    ledger,
    log: deps.log,
    newId,
    maxDepth: maxDepthFor(settings.batchSize),
  };

  const dispatch = async (batch: PendingBatch): Promise<void> => {
    const bytes = framingBytes + batch.bytes;
    const outcome = batchOutcome(batch, bytes, newId());
    batches.push(outcome);
    if (settings.dryRun) {
      stats.batches++;
      stats.bytes += bytes;
      outcome.status = 'dry_run';
      return;
    }
    await inFlight.slot(() => run.stopped);
    if (run.stopped) {
      ledger.notSent(batch.rows, batch.index, run.stopMessage);
      return;
    }
    stats.batches++;
    stats.bytes += bytes;
    inFlight.add(
      runBatch(batch, outcome, ctx).catch((err: unknown) => {
        // A bug must not lose the accounting of the rows (none of them was settled yet).
        ledger.settle(batch.rows, 'unconfirmed', batch.index, 'internal', oneLine(String(err)));
        outcome.status = 'unconfirmed';
      }),
    );
  };

  const ready: PendingBatch[] = [];
  const batcher = new Batcher(
    { maxCount: settings.batchSize, maxBytes: settings.maxBatchBytes, framingBytes },
    (batch) => ready.push(batch),
  );
  const read = { lastRow: 0, toEnd: false };
  try {
    try {
      for await (const item of items) {
        for (const issue of item.issues) collector.add(issue);
        tally(feedStats, item);
        // File-level items (row 0: empty file, duplicate header, ...) are not rows.
        if (isFileLevel(item)) continue;
        stats.rows++;
        stats.line = item.line;
        read.lastRow = item.row;
        const json = item.valid ? payloadJson(item) : undefined;
        if (json === undefined) stats.invalid++;
        else {
          // Serialized once; this very buffer is in every body (and retry) that carries the product.
          batcher.add(json, { file: item.file, row: item.row, line: item.line, sku: item.sku });
          while (ready.length > 0) await dispatch(ready.shift()!);
        }
        if (run.stopped) break;
      }
      read.toEnd = !run.stopped;
    } catch (err) {
      // The feed broke mid-run (bytes that do not decode, a bug): what was sent stays accounted
      // for and reported; rows still waiting in a batch are reported as not sent.
      const usage = err instanceof ExitError;
      const message = oneLine(err instanceof Error ? err.message : String(err));
      run.halt(usage ? 'input' : 'internal', message, usage ? err.hint : undefined, err);
    }
    batcher.finish();
    while (ready.length > 0) await dispatch(ready.shift()!);
  } finally {
    // Whatever happened: let what is in flight finish before reporting it.
    await inFlight.drain();
    run.dispose();
  }

  return {
    summary: {
      rows: stats.rows,
      invalid: stats.invalid,
      fileErrors: feedStats.fileErrors,
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
      durationMs: now() - stats.startedAt,
      dryRun: settings.dryRun,
    },
    failures: ledger.sorted(),
    batches,
    issues: collector.issues,
    issuesTruncated: collector.truncated,
    feed: feedStats,
    collector,
    stop: run.stop,
    lastRow: read.lastRow,
    readToEnd: read.toEnd,
  };
}

function batchOutcome(batch: PendingBatch, bytes: number, requestId: string): BatchOutcome {
  return {
    index: batch.index,
    firstRow: batch.rows[0].row,
    lastRow: batch.rows[batch.rows.length - 1].row,
    rows: batch.rows.length,
    bytes,
    status: 'not_sent',
    attempts: 0,
    requests: 0,
    requestId,
  };
}
