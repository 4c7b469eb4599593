import { type FeedRow, feedRows } from '../feed/index.js';
import { stopExitCode } from '../http/run.js';
import { missingFieldLines } from '../report/missing-fields.js';
import {
  type UploadReportMeta,
  uploadIssueLines,
  uploadReport,
  uploadReportText,
  uploadSummaryLines,
} from '../report/upload-report.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { redact } from '../shared/secrets.js';
import type { FeedOptions } from '../shared/types.js';
import type { BackendChoice } from '../storage/sqlite.js';
import { describeNextBatch } from '../time/zones.js';
import { exceedsBudget, type InvalidBudget } from '../upload/budget.js';
import { newStats, uploadFeed } from '../upload/engine.js';
import { countLines } from '../upload/estimate.js';
import { startProgress } from '../upload/progress.js';
import { type UploadInputs, uploadSettingsFrom } from '../upload/settings.js';
import {
  resolveShard,
  type Shard,
  type ShardCounts,
  shardLine,
  shardReport,
  shardRows,
} from '../upload/shard.js';
import { type Spool, spooledHooks } from '../upload/spool.js';
import { deltaLine } from '../upload/state/delta.js';
import { MISSING_FILE, type MissingMode, withMissing } from '../upload/state/missing.js';
import { retryRows } from '../upload/state/retry.js';
import type { UploadResult, UploadSettings } from '../upload/types.js';
import type { CommandContext } from './context.js';
import { type FeedSettings, feedOptionsFrom, threadedFrom } from './feed-settings.js';
import { orderlyStop, productSender } from './product-run.js';
import { finishReports, reportersOf } from './reporting.js';
import { guardedRead } from './upload-guard.js';
import { openStateRun, type StateRun } from './upload-state.js';

export interface UploadCommandSettings extends FeedSettings, UploadInputs {
  apiUrl?: string;
  /** Seconds. */
  timeout: number;
  maxInvalid?: InvalidBudget;
  sandbox?: boolean;
  sandboxDb?: string;
  sqlite?: BackendChoice;
  state?: string;
  full?: boolean;
  missing?: MissingMode;
  maxChange?: InvalidBudget;
  retryFailed?: boolean;
  shard?: Shard;
  shardCount?: number;
}

export interface ResolvedUpload {
  settings: UploadSettings;
  apiUrl?: string;
  key?: { value: string; from: string };
  sandbox: boolean;
  timeoutMs: number;
  maxInvalid?: InvalidBudget;
  state?: string;
  full?: boolean;
  sandboxDb?: string;
  missing: MissingMode;
  maxChange?: InvalidBudget;
  /** `--shard I/N` (or `--shard-count N` and JOB_COMPLETION_INDEX): this run's shard and its row counts. */
  shard?: { of: Shard; counts: ShardCounts };
}

/** The `genser upload` action: settings, optional sandbox, the run, the report, the exit code. */
export async function runUpload(
  files: string[],
  s: UploadCommandSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const feed = feedOptionsFrom(s, ctx);
  const log = ctx.log;
  const retry = s.retryFailed === true;
  if (retry && files.length > 0)
    throw new UsageError(
      '--retry-failed takes no feed: it sends the saved rows of the last run',
      'drop the file names, or drop --retry-failed to upload the feed',
    );
  if (!retry && files.length === 0)
    throw new UsageError(
      'no feed to upload',
      'name the feed files (or "-" for stdin), or use --retry-failed',
    );
  if (retry && (s.dryRun || (s.sandbox && s.state === undefined)))
    throw new UsageError(
      '--retry-failed needs the upload state of a real target',
      'run it with the same --api-url, key and format as the failed run (with --sandbox, give --state and --sandbox-db)',
    );
  const up = checkTarget(s, feed, loadedKey, ctx);
  const flags = { json: s.json, quiet: s.quiet, report: s.report, threads: s.threads };

  if (up.maxInvalid && !retry) {
    const over = await checkInvalidBudget(files, feed, up.maxInvalid, log);
    if (over) throw over;
  }

  let sandbox: RunningSandbox | undefined;
  let apiUrl = up.apiUrl;
  let key = up.key?.value;
  const sandboxDb = s.sandboxDb;
  if (up.sandbox && !up.settings.dryRun) {
    const { startSandbox } = await import('../sandbox/index.js');
    sandbox = await startSandbox({
      port: 0,
      host: '127.0.0.1',
      country: feed.country,
      db: sandboxDb,
      sqlite: s.sqlite,
      quiet: true,
      log,
    });
    apiUrl = sandbox.url;
    key = sandbox.apiKey;
    log.info(`sandbox: started an embedded sandbox at ${sandbox.url}`);
  }
  let stateRun: StateRun | undefined;
  let history: { id: string; started: number } | undefined;
  let result: UploadResult | undefined;
  let report: string | undefined;
  let source: AsyncIterable<FeedRow> | undefined;
  let spool: Spool | undefined;
  try {
    // The target's state, with its run lock: two cron runs to the same target must not overlap (exit 5).
    if (!up.settings.dryRun && apiUrl && key) {
      stateRun = openStateRun(
        up,
        {
          apiUrl,
          key,
          format: feed.format,
          ...(sandbox ? { sandbox: { db: sandboxDb } } : {}),
          ...(up.shard ? { shard: up.shard.of } : {}),
        },
        ctx.env,
      );
      if (stateRun?.note) log.warn(stateRun.note);
      if (stateRun && retry) {
        const last = stateRun.state.lastRunRetry('');
        if (last.runId === undefined)
          throw new UsageError('--retry-failed: this target has no run to retry', 'upload the feed first');
        log.info(
          `retry: ${last.rows.length.toLocaleString('en-US')} ${last.rows.length === 1 ? 'row' : 'rows'} of run ${last.runId} not accepted; sending them again`,
        );
        source = retryRows(last.rows);
        history = { id: stateRun.startRun([], `--retry-failed of run ${last.runId}`), started: Date.now() };
      } else if (stateRun) {
        history = { id: stateRun.startRun(files), started: Date.now() };
        // The guard's one pass over the feed; the upload then replays its spool (no second read).
        if (up.maxChange)
          spool = await guardedRead(files, feed, stateRun, up.maxChange, up.missing, log, {
            stdin: stdinFor(files),
            threaded: threadedFrom({ threads: flags.threads }),
            ...(up.shard ? { shard: up.shard } : {}),
          });
      }
    }
    if (stateRun && stateRun.delta.resumable > 0)
      log.info(
        `state: ${stateRun.delta.resumable} batch(es) of an earlier run were never answered: sent again with their own envelope ids`,
      );
    result = await send(
      files,
      feed,
      up,
      { apiUrl, key, sandbox: sandbox !== undefined },
      log,
      ctx,
      flags,
      stateRun,
      spool ? { rows: spool.rows(), spooled: true } : source && { rows: source, spooled: false },
    );
    const target = apiUrl ? `POST ${apiUrl.replace(/\/+$/, '')}${up.settings.path}` : undefined;
    const meta: UploadReportMeta = { format: feed.format, kind: feed.kind, files, target };
    if (sandbox) {
      const { applied } = await sandbox.runBatch();
      meta.sandbox = { url: sandbox.url, applied, ...(sandboxDb ? { db: sandboxDb } : {}) };
    } else if (!up.settings.dryRun && result.summary.accepted > 0) meta.searchable = searchableLine(feed);
    stateRun?.delta.finish(result.readToEnd && !result.stop);
    const gone =
      stateRun?.gone !== undefined
        ? `; ${stateRun.gone.toLocaleString('en-US')} gone from the feed (--missing out-of-stock; counted above)`
        : '';
    const stateLine = stateRun
      ? `state: ${deltaLine(stateRun.delta.counts, stateRun.full)}${gone}`
      : undefined;
    if (up.shard && !retry) meta.shard = shardReport(up.shard.of, up.shard.counts);
    if (history) report = uploadReportText(result, meta);
    const shardNote = up.shard && !retry ? shardLine(up.shard.of, up.shard.counts) : undefined;
    const code = finish(result, meta, ctx, log, flags, [shardNote, stateLine]);
    if (history) stateRun?.finishRun(history.id, result, code, report, Date.now() - history.started);
    return code;
  } catch (err) {
    if (history) {
      const code = err instanceof ExitError ? err.exitCode : ExitCode.internal;
      stateRun?.finishRun(history.id, result, code, report, Date.now() - history.started);
    }
    throw err;
  } finally {
    spool?.remove();
    stateRun?.state.close();
    await sandbox?.close();
  }
}

/** Where to send, checked before anything is read: a missing URL or key is a usage error. */
function checkTarget(
  s: UploadCommandSettings,
  feed: FeedOptions,
  key: { value: string; from: string } | undefined,
  ctx: CommandContext,
): ResolvedUpload {
  const sandbox = s.sandbox === true;
  const dryRun = s.dryRun === true;
  if (sandbox && s.apiUrl)
    ctx.log.warn(`--sandbox uploads into an embedded sandbox: the API url ${s.apiUrl} is not used`);
  const needsServer = !sandbox && !dryRun;
  const shard = resolveShard({
    shard: s.shard,
    shardCount: s.shardCount,
    jobIndex: ctx.env.JOB_COMPLETION_INDEX,
  });
  if (needsServer && !s.apiUrl)
    throw new UsageError(
      'no product API url: set --api-url or GENSER_API_URL (or "apiUrl" in genser.config.json)',
      'or try it locally first with --sandbox, or check the feed with --dry-run',
    );
  if (needsServer && !key)
    throw new UsageError(
      'no API key: set GENSER_API_KEY, or --api-key-file FILE (or "apiKeyFile" in genser.config.json)',
      'the key is never taken from a flag value; or try it locally first with --sandbox',
    );
  return {
    settings: uploadSettingsFrom(s, feed),
    apiUrl: sandbox ? undefined : s.apiUrl,
    key,
    sandbox,
    timeoutMs: s.timeout * 1000,
    maxInvalid: s.maxInvalid,
    state: s.state,
    full: s.full,
    sandboxDb: s.sandboxDb,
    missing: s.missing ?? 'ignore',
    maxChange: s.maxChange,
    ...(shard ? { shard: { of: shard, counts: { rows: 0, mine: 0 } } } : {}),
  };
}

interface Target {
  apiUrl?: string;
  key?: string;
  sandbox: boolean;
}

/** The run itself: sender, lock, Ctrl-C, progress, the engine. */
async function send(
  files: string[],
  feed: FeedOptions,
  up: ResolvedUpload,
  to: Target,
  log: Logger,
  ctx: CommandContext,
  flags: Record<string, unknown>,
  stateRun: StateRun | undefined,
  /** Rows not read from the feed: the guard's spool (the feed's items again), or --retry-failed's. */
  source?: { rows: AsyncIterable<FeedRow>; spooled: boolean },
): Promise<UploadResult> {
  const json = flags.json === true;
  const quiet = flags.quiet === true;
  const { apiUrl, key } = to;
  const target = apiUrl ? `POST ${apiUrl.replace(/\/+$/, '')}${up.settings.path}` : undefined;
  log.debug(
    `upload settings: ${JSON.stringify({ ...up.settings, timeoutMs: up.timeoutMs, target, key: key ? `(from ${up.key?.from ?? 'the sandbox'})` : 'none' })}`,
  );
  const poster =
    up.settings.dryRun || !apiUrl || !key
      ? undefined
      : productSender({ apiUrl, key, format: feed.format }, up.settings.concurrency, up.timeoutMs);
  // Set once the progress is up: the warning must not share a line with the spinner.
  let say = log;
  const stop = orderlyStop(() => say);

  const stats = newStats();
  let estimated: number | undefined;
  if (log.fancy && !quiet && !json)
    void countLines(files).then((n) => {
      estimated = n;
    });
  const progress = await startProgress(stats, log, {
    quiet: quiet || json,
    stream: ctx.stderr,
    totalLines: () => estimated,
  });
  say = progress.log;
  let items: AsyncIterable<FeedRow> =
    source?.rows ??
    feedRows(files, feed, progress.log, stdinFor(files), {
      serialize: true,
      threaded: threadedFrom({ threads: flags.threads as FeedSettings['threads'] }),
      // With state, each row's source key is kept with its accepted payload; rows with a key
      // accepted before are skipped (docs/nightly.md, "Unchanged rows"), unless --full.
      ...(stateRun ? { keys: stateRun.full ? {} : { known: () => stateRun.state.knownSources() } } : {}),
    });
  const feedItems = source === undefined || source.spooled;
  if (stateRun && feedItems && up.missing === 'out-of-stock')
    items = withMissing(items, stateRun.state, stateRun.delta.seenSkus, feed.format, (n) => {
      stateRun.gone = n;
    });
  // After the gone-from-the-feed check, which must see every row (a broken one stops it in every shard).
  if (up.shard && feedItems)
    items = shardRows(
      items,
      up.shard.of,
      up.shard.counts,
      (item) => item.file === MISSING_FILE && item.line === 0,
    );
  try {
    const result = await uploadFeed(items, up.settings, {
      poster,
      log: progress.log,
      interrupt: stop.signal,
      stats,
      ...(stateRun ? { state: source?.spooled ? spooledHooks(stateRun.delta) : stateRun.delta } : {}),
    });
    return result;
  } finally {
    progress.stop();
    stop.release();
    await poster?.close();
  }
}

/** Issues, summary, report, exit code. */
function finish(
  result: UploadResult,
  meta: UploadReportMeta,
  ctx: CommandContext,
  log: Logger,
  flags: Record<string, unknown>,
  stateLines: (string | undefined)[],
): number {
  const { stop, summary } = result;
  // A feed that failed before its first row (no such file, stdin without --input-type) is a
  // plain usage error, as in validate: its one line and hint, no summary of zeros, no report.
  if (stop?.error !== undefined && summary.rows === 0 && result.feed.fileErrors === 0) throw stop.error;
  // The summary shows even under --quiet (the human reporter); --json carries it in the document.
  finishReports(
    reportersOf(flags, ctx),
    { command: 'upload', report: uploadReport(result, meta) },
    ctx,
    () => {
      const lines = [
        ...uploadIssueLines(result, meta, { color: log.fancy, maxErrors: result.collector.maxIssues }),
        ...uploadSummaryLines(result, meta),
        // A required field missing on many rows: the one flag or mapping line that fills it.
        ...missingFieldLines(uploadReport(result, meta)),
      ];
      for (const line of stateLines) if (line) lines.push(line);
      if (meta.sandbox) lines.push(sandboxLine(meta.sandbox));
      for (const line of lines) ctx.stderr.write(redact(`${line}\n`));
    },
  );

  if (result.stop) {
    if (result.stop.error !== undefined) throw result.stop.error;
    throw new ExitError(stopExitCode(result.stop.reason), result.stop.message, result.stop.hint);
  }
  const s = result.summary;
  return s.invalid > 0 || s.fileErrors > 0 || s.rejected > 0 ? ExitCode.data : ExitCode.ok;
}

function sandboxLine(sb: NonNullable<UploadReportMeta['sandbox']>): string {
  const one = sb.applied === 1;
  const [noun, them, they] = one ? ['product', 'it', 'it is'] : ['products', 'them', 'they are'];
  const where = sb.db
    ? `${they} kept in ${sb.db}: look at ${them} with \`genser sandbox --db ${sb.db}\` and GET /_sandbox/products`
    : `the sandbox was in memory and stopped with this command; add --sandbox-db FILE to keep ${them}`;
  return `sandbox: ${sb.applied.toLocaleString('en-US')} ${noun} landed in the embedded sandbox at ${sb.url} and its daily batch (run at once) applied ${them}; ${where}`;
}

function searchableLine(feed: FeedOptions): string {
  const after = describeNextBatch(new Date(), feed.country);
  // Only legacy products carry isInStock (contract 2.8): contents and filters have no stock.
  return feed.format === 'legacy' && feed.kind === 'products'
    ? `${after}; stock status (isInStock) applies at once`
    : after;
}

/** Touching process.stdin creates a handle; only when the feed is read from it ('-'). */
function stdinFor(files: string[]): NodeJS.ReadableStream | undefined {
  return files.includes('-') ? process.stdin : undefined;
}

/** --max-invalid: a first, send-nothing pass over the feed (files only: stdin cannot be read twice). */
async function checkInvalidBudget(
  files: string[],
  feed: FeedOptions,
  budget: InvalidBudget,
  log: Logger,
): Promise<ExitError | undefined> {
  if (files.includes('-'))
    throw new UsageError(
      '--max-invalid cannot be used with stdin ("-")',
      'stdin cannot be read twice; save the feed to a file',
    );
  let rows = 0;
  let invalid = 0;
  for await (const item of feedRows(files, feed, quietLogger(log), undefined, { serialize: false })) {
    if (item.row === 0) continue;
    rows++;
    if (!item.valid) invalid++;
  }
  if (!exceedsBudget(budget, invalid, rows)) return undefined;
  const limit = budget.kind === 'count' ? `${budget.max}` : `${budget.max}%`;
  const ofRows = `${invalid.toLocaleString('en-US')} of ${rows.toLocaleString('en-US')} ${rows === 1 ? 'row' : 'rows'}`;
  return new ExitError(
    ExitCode.data,
    redact(
      `${ofRows} ${invalid === 1 ? 'is' : 'are'} invalid, more than the ${limit} that --max-invalid allows: nothing was sent`,
    ),
    "run 'genser validate' on the feed to see every problem",
  );
}

/** The budget pass reads the feed once more; its warnings were or will be shown by the real pass. */
function quietLogger(log: Logger): Logger {
  return { ...log, info() {}, warn() {}, debug() {} };
}
