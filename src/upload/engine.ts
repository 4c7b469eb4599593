import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { emptyStats, isFileLevel, tally } from '../feed/pipeline.js';
import { type FeedRow, payloadJson } from '../feed/threads.js';
import { buildBody } from '../payload/envelope.js';
import { framingFor } from '../payload/framing.js';
import { IssueCollector } from '../report/issues.js';
import { ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { Batcher, type PendingBatch, type RowRef } from './batcher.js';
import { maxDepthFor, planRejection } from './bisect.js';
import { isLegacyFail, oneLine, readRejection, type ServerVerdict } from './response.js';
import { isRetryableStatus, retryDelay } from './retry-policy.js';
import type { Poster } from './sender.js';
import type { BatchOutcome, Failure, LiveStats, StopReason, UploadResult, UploadSettings } from './types.js';

/**
 * The upload engine: reads FeedItems, batches the valid ones, keeps at most `concurrency`
 * requests in flight (reading pauses while all slots are busy, so memory stays flat), retries,
 * splits rejected batches to isolate bad products, and accounts for every row.
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
    accepted: 0,
    rejected: 0,
    failed: 0,
    retries: 0,
    requests: 0,
    batches: 0,
    bytes: 0,
    startedAt: now,
  };
}

const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal }).then(() => undefined);

type Attempt =
  | { kind: 'accepted'; status: number }
  | { kind: 'rejected'; status: number; verdict: ServerVerdict; tooLarge: boolean }
  | { kind: 'failed'; status: number | string; message: string };

interface Group {
  indices: number[];
  depth: number;
}

const seconds = (ms: number): string =>
  ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;

function where(ref: RowRef): string {
  return `${ref.file} row ${ref.row} (line ${ref.line}${ref.sku !== undefined ? `, sku ${ref.sku}` : ''})`;
}

function describeError(err: unknown): { status: string; message: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  if (
    e?.name === 'TimeoutError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  )
    return { status: 'timeout', message: 'no answer within --timeout' };
  const code = e?.code ?? e?.cause?.code;
  return { status: 'network', message: oneLine(`${code ? `${code}: ` : ''}${e?.message ?? String(err)}`) };
}

export async function uploadFeed(
  items: AsyncIterable<FeedRow>,
  settings: UploadSettings,
  deps: UploadDeps,
): Promise<UploadResult> {
  const now = deps.now ?? Date.now;
  const random = deps.random ?? Math.random;
  const sleep = deps.sleep ?? defaultSleep;
  const newId = deps.newId ?? randomUUID;
  const { log } = deps;
  const stats = deps.stats ?? newStats(now());
  stats.startedAt = now();
  if (!settings.dryRun && !deps.poster) throw new Error('uploadFeed needs a poster unless dry run');

  const failures: Failure[] = [];
  const batches: BatchOutcome[] = [];
  const collector = new IssueCollector(settings.maxErrors);
  const feedStats = emptyStats();
  let lastRow = 0;
  let stop: UploadResult['stop'];

  // soft: no new batches, no more retries. hard: cut requests still in flight.
  const soft = new AbortController();
  const hard = new AbortController();
  let graceTimer: NodeJS.Timeout | undefined;
  const stopRun = (reason: StopReason, message: string, hint?: string, error?: unknown) => {
    if (stop) return;
    stop = { reason, message, hint };
    if (error !== undefined) stop.error = error;
    soft.abort();
  };
  const onInterrupt = () => {
    stopRun('interrupted', 'interrupted: no new batches were started; requests in flight were let finish');
    graceTimer = setTimeout(() => hard.abort(), settings.graceMs);
    graceTimer.unref();
  };
  if (deps.interrupt?.aborted) onInterrupt();
  else deps.interrupt?.addEventListener('abort', onInterrupt, { once: true });

  const framingBytes = (() => {
    const f = framingFor(newId(), settings);
    return Buffer.byteLength(f.head) + Buffer.byteLength(f.tail);
  })();
  const maxDepth = maxDepthFor(settings.batchSize);

  const markFailed = (rows: readonly RowRef[], batch: number, status: number | string, message: string) => {
    for (const ref of rows) failures.push({ kind: 'failed', ...ref, status, message, batch });
    stats.failed += rows.length;
  };

  /** One body, sent until it gets an answer that is not worth retrying. */
  const sendWithRetries = async (
    body: Buffer,
    id: string,
    label: string,
    outcome: BatchOutcome,
    whole: boolean,
  ): Promise<Attempt> => {
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0 && soft.signal.aborted)
        return {
          kind: 'failed',
          status: 'not_sent',
          message: `not retried: ${stop?.message ?? 'run stopped'}`,
        };
      stats.requests++;
      outcome.requests++;
      if (whole) outcome.attempts++;
      let status: number | string;
      let message: string;
      let retryAfter: string | string[] | undefined;
      try {
        const answer = await deps.poster!.post(settings.path, body, { 'idempotency-key': id }, hard.signal);
        status = answer.status;
        outcome.httpStatus = answer.status;
        if (answer.status >= 200 && answer.status < 300) {
          if (settings.format === 'legacy' && isLegacyFail(answer.body))
            return {
              kind: 'rejected',
              status: answer.status,
              verdict: readRejection(answer.status, answer.body),
              tooLarge: false,
            };
          return { kind: 'accepted', status: answer.status };
        }
        if (answer.status === 400 || answer.status === 422 || answer.status === 413)
          return {
            kind: 'rejected',
            status: answer.status,
            verdict: readRejection(answer.status, answer.body),
            tooLarge: answer.status === 413,
          };
        const verdict = readRejection(answer.status, answer.body);
        if (answer.status === 401 || answer.status === 403) {
          stopRun(
            'auth',
            `the server refused the API key (HTTP ${answer.status}): ${verdict.message}`,
            'check GENSER_API_KEY or the --api-key-file contents: the right key for this api url, no stray spaces or line breaks',
          );
          return {
            kind: 'failed',
            status: answer.status,
            message: `not sent: HTTP ${answer.status}, the API key was refused`,
          };
        }
        if (!isRetryableStatus(answer.status) && answer.status !== 409) {
          stopRun(
            'endpoint',
            `the server answered HTTP ${answer.status} to POST ${settings.path}: ${verdict.message}`,
            'check --api-url and --path (or --format/--kind)',
          );
          return {
            kind: 'failed',
            status: answer.status,
            message: `HTTP ${answer.status}: ${verdict.message}`,
          };
        }
        message = `HTTP ${answer.status}`;
        retryAfter = answer.headers['retry-after'];
      } catch (err) {
        if (hard.signal.aborted)
          return {
            kind: 'failed',
            status: 'interrupted',
            message: 'cut off after Ctrl-C; the server may or may not have it',
          };
        ({ status, message } = describeError(err));
      }
      if (attempt >= settings.retries) {
        stopRun(
          'unavailable',
          `the service is unavailable: ${label} still failed after ${settings.retries} retries (${message})`,
          'everything accepted so far stays accepted; run again later, it is safe to re-send',
        );
        return { kind: 'failed', status, message: `gave up after ${settings.retries} retries: ${message}` };
      }
      if (soft.signal.aborted)
        return {
          kind: 'failed',
          status: 'not_sent',
          message: `not retried: ${stop?.message ?? 'run stopped'}`,
        };
      const wait = retryDelay(attempt, retryAfter, settings.backoff, now(), random);
      stats.retries++;
      log.warn(`${label}: ${message}, retry ${attempt + 1}/${settings.retries} in ${seconds(wait)}`);
      try {
        await sleep(wait, soft.signal);
      } catch {
        return {
          kind: 'failed',
          status: 'not_sent',
          message: `not retried: ${stop?.message ?? 'run stopped'}`,
        };
      }
    }
  };

  const runBatch = async (batch: PendingBatch, outcome: BatchOutcome): Promise<void> => {
    const groups: Group[] = [{ indices: batch.rows.map((_, i) => i), depth: 0 }];
    let accepted = 0;
    let rejected = 0;
    let failed = 0;
    stats.sent += batch.rows.length;
    while (groups.length > 0) {
      const group = groups.shift()!;
      const rows = group.indices.map((i) => batch.rows[i]);
      if (soft.signal.aborted && group.depth > 0) {
        markFailed(rows, batch.index, 'not_sent', `not sent: ${stop?.message ?? 'run stopped'}`);
        failed += rows.length;
        continue;
      }
      const whole = group.depth === 0;
      const id = whole ? outcome.requestId : newId();
      const body = whole
        ? buildBody(framingFor(id, settings), batch.parts)
        : buildBody(
            framingFor(id, settings),
            group.indices.map((i) => batch.parts[i]),
          );
      const label = whole
        ? `batch ${batch.index} (rows ${outcome.firstRow}-${outcome.lastRow})`
        : `batch ${batch.index} part of ${rows.length} (rows ${rows[0].row}-${rows[rows.length - 1].row})`;
      const result = await sendWithRetries(body, id, label, outcome, whole);
      if (result.kind === 'accepted') {
        accepted += rows.length;
        stats.accepted += rows.length;
      } else if (result.kind === 'failed') {
        markFailed(rows, batch.index, result.status, result.message);
        failed += rows.length;
      } else {
        const plan = planRejection({
          skus: rows.map((r) => r.sku),
          errors: result.verdict.errors,
          message: result.verdict.message,
          depth: group.depth,
          maxDepth,
          tooLarge: result.tooLarge,
        });
        for (const r of plan.rejected) {
          const ref = rows[r.index];
          failures.push({
            kind: 'rejected',
            ...ref,
            status: result.status,
            message: r.message,
            batch: batch.index,
          });
          log.warn(`${where(ref)}: rejected (HTTP ${result.status}): ${r.message}`);
        }
        rejected += plan.rejected.length;
        stats.rejected += plan.rejected.length;
        for (const part of plan.resend)
          groups.push({ indices: part.map((i) => group.indices[i]), depth: group.depth + 1 });
      }
    }
    outcome.status =
      failed > 0
        ? accepted + rejected > 0
          ? 'partial'
          : 'failed'
        : rejected > 0
          ? accepted > 0
            ? 'partial'
            : 'rejected'
          : 'accepted';
  };

  const inFlight = new Set<Promise<void>>();
  const dispatch = async (batch: PendingBatch): Promise<void> => {
    const first = batch.rows[0];
    const last = batch.rows[batch.rows.length - 1];
    const bytes = framingBytes + batch.bytes;
    const outcome: BatchOutcome = {
      index: batch.index,
      firstRow: first.row,
      lastRow: last.row,
      rows: batch.rows.length,
      bytes,
      status: 'not_sent',
      attempts: 0,
      requests: 0,
      requestId: newId(),
    };
    batches.push(outcome);
    if (settings.dryRun) {
      stats.batches++;
      outcome.status = 'dry_run';
      stats.bytes += bytes;
      return;
    }
    while (inFlight.size >= settings.concurrency && !soft.signal.aborted) await Promise.race(inFlight);
    if (soft.signal.aborted) {
      markFailed(batch.rows, batch.index, 'not_sent', `not sent: ${stop?.message ?? 'run stopped'}`);
      return;
    }
    stats.batches++;
    stats.bytes += bytes;
    outcome.startedMs = now() - stats.startedAt;
    const task = runBatch(batch, outcome)
      .catch((err: unknown) => {
        // A bug must not lose the accounting of the rows.
        markFailed(batch.rows, batch.index, 'internal', oneLine(String(err)));
        outcome.status = 'failed';
      })
      .finally(() => {
        outcome.endedMs = now() - stats.startedAt;
      });
    inFlight.add(task);
    void task.finally(() => inFlight.delete(task));
  };

  const ready: PendingBatch[] = [];
  const batcher = new Batcher(
    { maxCount: settings.batchSize, maxBytes: settings.maxBatchBytes, framingBytes },
    (batch) => ready.push(batch),
  );

  let readToEnd = false;
  try {
    try {
      for await (const item of items) {
        for (const issue of item.issues) collector.add(issue);
        tally(feedStats, item);
        // File-level items (row 0: empty file, duplicate header, ...) are not rows.
        if (isFileLevel(item)) continue;
        stats.rows++;
        stats.line = item.line;
        lastRow = item.row;
        const json = item.valid ? payloadJson(item) : undefined;
        if (json === undefined) {
          stats.invalid++;
        } else {
          // Serialized once; this very buffer is in every body (and retry) that carries the product.
          batcher.add(json, {
            file: item.file,
            row: item.row,
            line: item.line,
            sku: item.sku,
          });
          while (ready.length > 0) await dispatch(ready.shift()!);
        }
        if (soft.signal.aborted) break;
      }
      readToEnd = !soft.signal.aborted;
    } catch (err) {
      // The feed broke mid-run (bytes that do not decode, a bug): what was sent stays accounted
      // for and reported; rows still waiting in a batch are reported as not sent.
      const usage = err instanceof ExitError;
      const message = oneLine(err instanceof Error ? err.message : String(err));
      stopRun(usage ? 'input' : 'internal', message, usage ? err.hint : undefined, err);
    }
    batcher.finish();
    while (ready.length > 0) await dispatch(ready.shift()!);
    while (inFlight.size > 0) await Promise.race(inFlight);
  } finally {
    // Whatever happened: let what is in flight finish before reporting it.
    while (inFlight.size > 0) await Promise.race(inFlight);
    deps.interrupt?.removeEventListener('abort', onInterrupt);
    if (graceTimer) clearTimeout(graceTimer);
  }

  failures.sort((a, b) => a.row - b.row || a.file.localeCompare(b.file));
  return {
    summary: {
      rows: stats.rows,
      invalid: stats.invalid,
      fileErrors: feedStats.fileErrors,
      sent: stats.sent,
      accepted: stats.accepted,
      rejected: stats.rejected,
      failed: stats.failed,
      batches: stats.batches,
      retries: stats.retries,
      requests: stats.requests,
      bytes: stats.bytes,
      durationMs: now() - stats.startedAt,
      dryRun: settings.dryRun,
    },
    failures,
    batches,
    issues: collector.issues,
    issuesTruncated: collector.truncated,
    feed: feedStats,
    collector,
    stop,
    lastRow,
    readToEnd,
  };
}
