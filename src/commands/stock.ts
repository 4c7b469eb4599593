import { resolve } from 'node:path';
import type { FeedRow } from '../feed/index.js';
import { stopExitCode } from '../http/run.js';
import { loadMapping, readMappingDefaults } from '../map/mapping-file.js';
import { orderlyStop, productSender } from '../nightly/sender.js';
import { openStateRun, type StateRun, stateUnderOtherSharding } from '../nightly/state-run.js';
import {
  type UploadReportMeta,
  uploadIssueLines,
  uploadReport,
  uploadReportText,
  uploadSummaryLines,
} from '../report/upload-report.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType, PayloadFormat } from '../shared/types.js';
import { stockColumns } from '../stock/columns.js';
import { StockHooks } from '../stock/hooks.js';
import { type StockCounts, stockRows } from '../stock/rows.js';
import type { BackendChoice } from '../storage/sqlite.js';
import { describeNextBatch } from '../time/zones.js';
import { uploadFeed } from '../upload/engine.js';
import { type UploadInputs, uploadSettingsFrom } from '../upload/settings.js';
import {
  resolveShard,
  type Shard,
  type ShardCounts,
  shardLine,
  shardReport,
  shardRows,
} from '../upload/shard.js';
import type { UploadResult, UploadSettings } from '../upload/types.js';
import type { CommandContext } from './context.js';
import { finishReports, type ReportingSettings, reportersOf } from './reporting.js';

/**
 * `genser stock FILE` (docs/nightly.md, "Stock changes"): each row's stock merged into the last
 * payload the target accepted for its SKU, sent at once through upload's engine (batches,
 * bisection, retries, row-level outcomes), and recorded as the SKU's new accepted payload.
 */
export interface StockCommandSettings extends Omit<UploadInputs, 'type'> {
  format: PayloadFormat;
  mapping?: string;
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
  country: string;
  apiUrl?: string;
  /** Seconds. */
  timeout: number;
  sandbox?: boolean;
  sandboxDb?: string;
  sqlite?: BackendChoice;
  state?: string;
  json?: boolean;
  quiet?: boolean;
  report?: string;
  reporter?: string[];
  /** A sharded target (docs/nightly.md, "Shards"): each shard's state holds its own SKUs. */
  shard?: Shard;
  shardCount?: number;
}

export async function runStock(
  file: string,
  s: StockCommandSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const log = ctx.log;
  const format = formatOf(s, ctx);
  checkTarget(s, loadedKey);
  const shard = resolveShard({
    shard: s.shard,
    shardCount: s.shardCount,
    jobIndex: ctx.env.JOB_COMPLETION_INDEX,
  });
  const shardCounts: ShardCounts = { rows: 0, mine: 0 };
  const mapping = s.mapping
    ? loadMapping(s.mapping, { format, kind: 'products', country: s.country })
    : undefined;
  const settings = uploadSettingsFrom({ ...s, type: 'update_product' }, { format, kind: 'products' });
  const dryRun = settings.dryRun;

  let sandbox: RunningSandbox | undefined;
  let stateRun: StateRun | undefined;
  let history: { id: string; started: number } | undefined;
  let result: UploadResult | undefined;
  let report: string | undefined;
  try {
    let apiUrl = s.apiUrl;
    let key = loadedKey?.value;
    if (s.sandbox) {
      // Its own key (kept in --sandbox-db) names the target's state, so it starts even for a dry run.
      const { startSandbox } = await import('../sandbox/index.js');
      sandbox = await startSandbox({
        port: 0,
        host: '127.0.0.1',
        country: s.country,
        db: s.sandboxDb,
        sqlite: s.sqlite,
        quiet: true,
        log,
      });
      apiUrl = sandbox.url;
      key = sandbox.apiKey;
    }
    if (!apiUrl || !key) throw new Error('stock: no target after checkTarget');
    const where = {
      apiUrl,
      key,
      format,
      ...(sandbox ? { sandbox: { db: s.sandboxDb } } : {}),
      ...(shard ? { shard } : {}),
    };
    // The target's uploads keep their state under another shard count: a state opened here would
    // be new and empty, and every row an unknown SKU. Say which --shard to give instead.
    if (stateUnderOtherSharding({ state: s.state }, where, ctx.env)) throw shardingMismatch(shard);
    // The target's state and run lock: a stock run and an upload to one target never overlap (exit 5).
    stateRun = openStateRun({ state: s.state }, where, ctx.env);
    if (!stateRun) throw new Error('stock: no upload state');
    const state = stateRun.state;
    const hooks = new StockHooks(state);
    if (!dryRun) {
      const label = `stock ${file === '-' ? file : resolve(file)}`;
      history = { id: stateRun.startRun([file], label), started: Date.now() };
      hooks.runId = history.id;
    }
    const counts: StockCounts = { changed: 0, same: 0 };
    const rows = stockRows(
      file,
      { encoding: s.encoding, delimiter: s.delimiter, inputType: s.inputType },
      { format, columns: stockColumns(format, mapping), lastPayload: (sku) => state.acceptedPayload(sku) },
      log,
      counts,
      file === '-' ? process.stdin : undefined,
    );
    const items = shard ? shardRows(rows, shard, shardCounts) : rows;
    result = await send(items, settings, { apiUrl, key, format, hooks }, s, ctx);
    const target = `POST ${apiUrl.replace(/\/+$/, '')}${settings.path}`;
    const meta: UploadReportMeta = {
      format,
      kind: 'products',
      files: [file],
      target,
      searchable: searchable(format, s.country),
    };
    if (shard) meta.shard = shardReport(shard, shardCounts);
    if (history) report = uploadReportText(result, meta);
    const shardNote = shard ? shardLine(shard, shardCounts) : undefined;
    const code = finish(
      result,
      meta,
      counts,
      { json: s.json, report: s.report, reporter: s.reporter },
      ctx,
      shardNote,
    );
    if (history) stateRun.finishRun(history.id, result, code, report, Date.now() - history.started);
    return code;
  } catch (err) {
    if (history) {
      const code = err instanceof ExitError ? err.exitCode : ExitCode.internal;
      stateRun?.finishRun(history.id, result, code, report, Date.now() - history.started);
    }
    throw err;
  } finally {
    stateRun?.state.close();
    await sandbox?.close();
  }
}

/** The run's format: the user's, else the mapping file's own, else standard (as for upload). */
function formatOf(s: StockCommandSettings, ctx: Pick<CommandContext, 'explicit'>): PayloadFormat {
  if (s.mapping && !ctx.explicit.has('format')) return readMappingDefaults(s.mapping).format ?? s.format;
  return s.format;
}

/** A stock run whose shard setting differs from the uploads' (docs/nightly.md, "Shards"). */
function shardingMismatch(shard: Shard | undefined): UsageError {
  return new UsageError(
    shard
      ? `this target has no state for shard ${shard.index}/${shard.count}: its uploads keep their state under another shard count`
      : "this target's uploads keep their state per shard (--shard I/N): the whole target has none",
    'give genser stock the same --shard I/N (or --shard-count N) as the uploads, once per shard: each shard sends the stock rows of its own SKUs',
  );
}

/** Stock merges into what the target's state kept: it needs the target (and its state) even for a dry run. */
function checkTarget(s: StockCommandSettings, key: { value: string } | undefined): void {
  if (s.sandbox) {
    if (s.state === undefined || s.sandboxDb === undefined)
      throw new UsageError(
        '--sandbox: genser stock needs the upload state of a sandbox kept in a file',
        'give --state DIR and --sandbox-db FILE, as for the upload that sent the products',
      );
    return;
  }
  if (!s.apiUrl)
    throw new UsageError(
      'no product API url: set --api-url or GENSER_API_URL (or "apiUrl" in genser.config.json)',
      'the same url the products were uploaded to: stock merges into what that target accepted',
    );
  if (!key)
    throw new UsageError(
      'no API key: set GENSER_API_KEY, or --api-key-file FILE (or "apiKeyFile" in genser.config.json)',
      'the key is never taken from a flag value; it must be the key the products were uploaded with',
    );
}

/** The engine's run: sender, Ctrl-C (finish what is in flight, then exit 130). */
async function send(
  items: AsyncIterable<FeedRow>,
  settings: UploadSettings,
  to: { apiUrl: string; key: string; format: PayloadFormat; hooks: StockHooks },
  s: StockCommandSettings,
  ctx: CommandContext,
): Promise<UploadResult> {
  const poster = settings.dryRun ? undefined : productSender(to, settings.concurrency, s.timeout * 1000);
  const stop = orderlyStop(() => ctx.log);
  try {
    return await uploadFeed(items, settings, {
      poster,
      log: ctx.log,
      interrupt: stop.signal,
      state: to.hooks,
    });
  } finally {
    stop.release();
    await poster?.close();
  }
}

/** What the summary says about when search shows the change (contract 1.5, section 8). */
function searchable(format: PayloadFormat, country: string): string {
  return format === 'legacy'
    ? 'at once: the legacy API applies stock (isInStock) on receipt (contract 1.5)'
    : `${describeNextBatch(new Date(), country)}: the standard API applies stock changes in the daily batch, not at once (contract 1.5; the legacy API applies them at once)`;
}

/** Issues, summary, reports, exit code: as upload's (docs/nightly.md, exit codes). */
function finish(
  result: UploadResult,
  meta: UploadReportMeta,
  counts: StockCounts,
  flags: ReportingSettings,
  ctx: CommandContext,
  shardNote?: string,
): number {
  const { stop, summary } = result;
  // A file that failed before its first row (no such file, stdin without --input-type): its one line and hint.
  if (stop?.error !== undefined && summary.rows === 0 && result.feed.fileErrors === 0) throw stop.error;
  finishReports(
    reportersOf(flags, ctx),
    { command: 'upload', report: uploadReport(result, meta) },
    ctx,
    () => {
      const lines = [
        ...uploadIssueLines(result, meta, { color: ctx.log.fancy, maxErrors: result.collector.maxIssues }),
        ...uploadSummaryLines(result, meta).map((l) => l.replace(/^upload: /, 'stock: ')),
      ];
      if (shardNote) lines.push(`stock: ${shardNote}`);
      if (!summary.dryRun)
        lines.push(
          `stock: ${counts.changed.toLocaleString('en-US')} changed, ${counts.same.toLocaleString('en-US')} already so (sent again)`,
        );
      for (const line of lines) ctx.stderr.write(redact(`${line}\n`));
    },
  );
  if (stop) {
    if (stop.error !== undefined) throw stop.error;
    throw new ExitError(stopExitCode(stop.reason), stop.message, stop.hint);
  }
  return summary.invalid > 0 || summary.fileErrors > 0 || summary.rejected > 0 ? ExitCode.data : ExitCode.ok;
}
