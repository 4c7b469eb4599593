import { resolve } from 'node:path';
import {
  type UploadReportMeta,
  uploadIssueLines,
  uploadReportText,
  uploadSummaryLines,
} from '../report/upload-report.js';
import { UsageError } from '../shared/errors.js';
import type { EncodingName, InputType, PayloadFormat } from '../shared/types.js';
import { untilStopped } from '../shared/until-stopped.js';
import type { StockColumns } from '../stock/columns.js';
import { StockHooks } from '../stock/hooks.js';
import { type StockCounts, stockRows } from '../stock/rows.js';
import { describeNextBatch } from '../time/zones.js';
import { uploadFeed } from '../upload/engine.js';
import { type Shard, type ShardCounts, shardLine, shardReport, shardRows } from '../upload/shard.js';
import type { UploadResult, UploadSettings } from '../upload/types.js';
import { failedCode, type NightlyEnding, runExitCode } from './ending.js';
import type { NightlyDeps, NightlyTarget } from './plan.js';
import { withOrigin } from './rows.js';
import { productSender } from './sender.js';
import { openStateRun, type StateRun, stateUnderOtherSharding } from './state-run.js';

/**
 * `genser stock FILE` (docs/nightly.md, "Stock changes"): each row's stock merged into the last
 * payload the target accepted for its SKU, sent at once through upload's engine (batches,
 * bisection, retries, row-level outcomes), and recorded as the SKU's new accepted payload.
 */
export interface StockPlan {
  file: string;
  format: PayloadFormat;
  country: string;
  columns: StockColumns;
  read: { encoding: EncodingName; delimiter?: string; inputType?: InputType };
  settings: UploadSettings;
  timeoutMs: number;
  /** Stock merges into what the target accepted: it needs the target (and its key) even for a dry run. */
  target: NightlyTarget & { key: string };
  state?: string;
  /** A sharded target (docs/nightly.md, "Shards"): each shard's state holds its own SKUs. */
  shard?: Shard;
}

export async function runStockChanges(plan: StockPlan, deps: NightlyDeps): Promise<NightlyEnding> {
  const { target, shard, settings } = plan;
  const where = {
    apiUrl: target.apiUrl,
    key: target.key,
    format: plan.format,
    ...(target.sandbox ? { sandbox: { db: target.sandbox.db } } : {}),
    ...(shard ? { shard } : {}),
  };
  // The target's uploads keep their state under another shard count: a state opened here would
  // be new and empty, and every row an unknown SKU. Say which --shard to give instead.
  if (await stateUnderOtherSharding({ state: plan.state }, where, deps.env)) throw shardingMismatch(shard);
  // The target's state and run lock: a stock run and an upload to one target never overlap (exit 5).
  const stateRun = await openStateRun({ state: plan.state }, where, deps.env, deps.log);
  if (!stateRun) throw new Error('stock: no upload state');
  let history: { id: string; started: number } | undefined;
  let result: UploadResult | undefined;
  try {
    // Nothing of the stock file is read before it is sent: the state's check is awaited first.
    await stateRun.state.intact();
    const hooks = new StockHooks(stateRun.state);
    if (!settings.dryRun) {
      const label = `stock ${plan.file === '-' ? plan.file : resolve(plan.file)}`;
      history = { id: await stateRun.startRun([plan.file], label), started: Date.now() };
      hooks.runId = history.id;
    }
    const counts: StockCounts = { changed: 0, same: 0 };
    const shardCounts: ShardCounts = { rows: 0, mine: 0 };
    result = await sendStock({ plan, deps, stateRun, hooks, counts, shardCounts });
    const meta: UploadReportMeta = {
      format: plan.format,
      kind: 'products',
      files: [plan.file],
      target: `POST ${target.apiUrl.replace(/\/+$/, '')}${settings.path}`,
      searchable: searchable(plan.format, plan.country),
    };
    if (shard) meta.shard = shardReport(shard, shardCounts);
    const code = runExitCode(result, deps.interrupt);
    if (history)
      await stateRun.finishRun(
        history.id,
        result,
        code,
        uploadReportText(result, meta),
        Date.now() - history.started,
      );
    const ran = result;
    const lines = (color: boolean) => [
      ...uploadIssueLines(ran, meta, { color, maxErrors: ran.collector.maxIssues }),
      ...uploadSummaryLines(ran, meta).map((l) => l.replace(/^upload: /, 'stock: ')),
      ...(shard ? [`stock: ${shardLine(shard, shardCounts)}`] : []),
      ...(ran.summary.dryRun
        ? []
        : [
            `stock: ${counts.changed.toLocaleString('en-US')} changed, ${counts.same.toLocaleString('en-US')} already so (sent again)`,
          ]),
    ];
    return { result, meta, code, lines };
  } catch (err) {
    if (history)
      await stateRun.finishRun(history.id, result, failedCode(err), undefined, Date.now() - history.started);
    throw err;
  } finally {
    await stateRun.close();
  }
}

/** The stock file's rows (this shard's) through the engine, until done or stopped. */
async function sendStock(run: {
  plan: StockPlan;
  deps: NightlyDeps;
  stateRun: StateRun;
  hooks: StockHooks;
  counts: StockCounts;
  shardCounts: ShardCounts;
}): Promise<UploadResult> {
  const { plan, deps, stateRun, hooks, counts, shardCounts } = run;
  const { settings, target } = plan;
  const state = stateRun.state;
  const rows = withOrigin(
    stockRows(
      plan.file,
      plan.read,
      { format: plan.format, columns: plan.columns, payloads: (skus) => state.acceptedPayloads(skus) },
      deps.log,
      counts,
      deps.stdin,
    ),
    'stock',
  );
  const items = plan.shard ? shardRows(rows, plan.shard, shardCounts) : rows;
  const poster = settings.dryRun
    ? undefined
    : productSender(
        { ...target, format: plan.format, network: deps.network },
        settings.concurrency,
        plan.timeoutMs,
      );
  try {
    return await uploadFeed(untilStopped(items, deps.interrupt), settings, {
      poster,
      log: deps.log,
      interrupt: deps.interrupt,
      state: hooks,
    });
  } finally {
    await poster?.close();
  }
}

/** What the summary says about when search shows the change (contract 1.5, section 8). */
function searchable(format: PayloadFormat, country: string): string {
  return format === 'legacy'
    ? 'at once: the legacy API applies stock (isInStock) on receipt (contract 1.5)'
    : `${describeNextBatch(new Date(), country)}: the standard API applies stock changes in the daily batch, not at once (contract 1.5; the legacy API applies them at once)`;
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
