import { randomUUID } from 'node:crypto';
import { emptyStats, type FeedRow, isFileLevel, payloadJson, tally } from '../feed/index.js';
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
import type { BatchContext } from './batch-run.js';
import { Batcher, type PendingBatch, type RowRef } from './batcher.js';
import { maxDepthFor } from './bisect.js';
import { Dispatcher } from './dispatch.js';
import { RowLedger } from './ledger.js';
import { ResumeGroups } from './resume.js';
import { UNCHANGED } from './state/delta.js';
import type {
  EnvelopeType,
  LiveStats,
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
  const ready: PendingBatch[] = [];
  // One batcher per envelope type (an envelope has one type); both envelopes frame to the same size.
  const counter = { next: 1 };
  const batchers = new Map<EnvelopeType, Batcher>();
  const batcherFor = (type: EnvelopeType): Batcher => {
    let batcher = batchers.get(type);
    if (!batcher) {
      batcher = new Batcher(
        {
          maxCount: settings.batchSize,
          maxBytes: settings.maxBatchBytes,
          framingBytes,
          counter,
          ...(deps.state ? { type } : {}),
        },
        (batch) => ready.push(batch),
      );
      batchers.set(type, batcher);
    }
    return batcher;
  };

  const resumed = new ResumeGroups(counter);
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
        if (item.sku !== undefined) deps.state?.seen?.(item.sku);
        read.lastRow = item.row;
        // A row skipped by its source key has no bytes: the state counts it unchanged.
        const json = !item.valid ? undefined : item.unchanged && deps.state ? UNCHANGED : payloadJson(item);
        if (json === undefined) stats.invalid++;
        else {
          const plan = deps.state
            ? await deps.state.plan(item.sku, json, item.source)
            : { type: settings.type };
          if (plan === undefined) stats.unchanged++;
          else {
            // Serialized once; this very buffer is in every body (and retry) that carries the product.
            const ref: RowRef = { file: item.file, row: item.row, line: item.line, sku: item.sku };
            if (plan.hash !== undefined) ref.hash = plan.hash;
            if (item.source !== undefined) ref.source = item.source;
            if (plan.resume) {
              const batch = resumed.add(json, ref, { ...plan, resume: plan.resume });
              if (batch) ready.push(batch);
            } else batcherFor(plan.type).add(json, ref);
            while (ready.length > 0) await dispatcher.dispatch(ready.shift()!);
          }
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
    for (const left of resumed.leftovers()) batcherFor(left.type).add(left.json, left.ref);
    for (const batcher of batchers.values()) batcher.finish();
    while (ready.length > 0) await dispatcher.dispatch(ready.shift()!);
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
