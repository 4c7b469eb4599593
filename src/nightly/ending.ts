import { emptyStats } from '../feed/index.js';
import { noOutcomes } from '../http/outcome.js';
import { stopExitCode } from '../http/run.js';
import { sourceName } from '../read/index.js';
import { missingFieldLines } from '../report/missing-fields.js';
import {
  type FeedUnchangedReport,
  type UploadReportMeta,
  uploadIssueLines,
  uploadReport,
  uploadReportText,
  uploadSummaryLines,
} from '../report/upload-report.js';
import { ExitCode, ExitError } from '../shared/errors.js';
import { IssueCollector } from '../shared/issue-collector.js';
import type { LegacyKind, PayloadFormat } from '../shared/types.js';
import { describeNextBatch } from '../time/zones.js';
import { type Shard, type ShardCounts, shardLine, shardReport } from '../upload/shard.js';
import { deltaLine } from '../upload/state/delta.js';
import type { UploadResult } from '../upload/types.js';
import { driftLine } from './guard-rules.js';
import type { NightlyDeps, NightlyPlan } from './plan.js';
import type { StateRun } from './state-run.js';

/**
 * The run's ending (docs/nightly.md): its exit code, the history row settled with it and the
 * report, and what the summary says. The command prints it (reports, then the stop's line).
 */

/** One run as it goes: the plan, the caller's deps, the state (when kept) and the shard's counts. */
export interface NightlyRun {
  plan: NightlyPlan;
  deps: NightlyDeps;
  stateRun?: StateRun;
  shard?: { of: Shard; counts: ShardCounts };
}

export interface RunHistory {
  id: string;
  started: number;
}

export interface NightlyEnding {
  result: UploadResult;
  meta: UploadReportMeta;
  /** The exit code: the stop's (143 for SIGTERM, 130 for Ctrl-C, ...), else 1 for data problems, else 0. */
  code: number;
  /** The summary for people (stderr): issues, counts, then the run's own notes. */
  /** `quiet` (`--quiet`): the errors and the summary only. */
  lines(color: boolean, quiet?: boolean): string[];
}

/** The exit code of a finished run (the one a stop or a data problem gives). */
export function runExitCode(result: UploadResult, interrupt: AbortSignal | undefined): number {
  const { stop, summary: s } = result;
  if (stop?.error !== undefined) return failedCode(stop.error);
  if (stop) return stopExitCode(stop.reason, interrupt);
  return s.invalid > 0 || s.fileErrors > 0 || s.rejected > 0 ? ExitCode.data : ExitCode.ok;
}

/** The code a thrown error ends the run with (as src/cli/main.ts turns it). */
export function failedCode(err: unknown): number {
  return err instanceof ExitError ? err.exitCode : ExitCode.internal;
}

/** After the send: the embedded sandbox's batch, the delta settled, the history row, the ending. */
export async function settleRun(
  run: NightlyRun,
  result: UploadResult,
  history: RunHistory | undefined,
): Promise<NightlyEnding> {
  const { plan, deps, stateRun, shard } = run;
  const { target, feed } = plan;
  const meta: UploadReportMeta = {
    format: feed.format,
    kind: feed.kind,
    // As validate names them: a URL without its query (often a token), stdin as <stdin>.
    files: plan.files.map(sourceName),
    target: target ? `POST ${target.apiUrl.replace(/\/+$/, '')}${plan.settings.path}` : undefined,
  };
  if (target?.sandbox) {
    const { applied } = await target.sandbox.runBatch();
    const { url, db } = target.sandbox;
    meta.sandbox = { url, applied, ...(db ? { db } : {}) };
  } else if (!plan.settings.dryRun && result.summary.accepted > 0)
    meta.searchable = searchableLine(feed.format, feed.kind, feed.country);
  const complete = result.readToEnd && !result.stop;
  // Stopped because the state could not be written (a full disk): nothing more is written to it.
  const stateWritable = result.stop?.reason !== 'state';
  if (stateWritable) await stateRun?.delta.finish(complete);
  // What the guards compare the next run with (docs/nightly.md, "Before and after the run").
  if (stateRun && complete && !plan.retry && !stateRun.held) {
    const columns = stateRun.columns?.list();
    if (columns && !stateRun.driftSaid) await sayDrift(stateRun, deps.log);
    await stateRun.state.recordComplete({
      rows: feedRowsOf(stateRun, shard, result.summary.rows),
      ...(columns ? { columns } : {}),
    });
    if (plan.missing === 'out-of-stock') await recordAbsent(stateRun);
  }
  if (shard && !plan.retry) meta.shard = shardReport(shard.of, shard.counts);
  const code = runExitCode(result, deps.interrupt);
  if (history)
    await stateRun?.finishRun(
      history.id,
      result,
      code,
      uploadReportText(result, meta),
      Date.now() - history.started,
    );
  const notes = [
    shard && !plan.retry ? shardLine(shard.of, shard.counts) : undefined,
    stateRun ? stateLine(stateRun) : undefined,
    meta.sandbox ? sandboxLine(meta.sandbox) : undefined,
  ];
  return {
    result,
    meta,
    code,
    lines: (color, quiet = false) => [
      ...uploadIssueLines(result, meta, { color, maxErrors: result.collector.maxIssues, quiet }),
      ...uploadSummaryLines(result, meta, quiet),
      ...(quiet ? [] : hintLines(result, meta, notes)),
    ],
  };
}

/**
 * A feed unchanged since the last complete run (its URL answered 304): nothing read or sent, exit
 * 0, and an ending like any other (the summary line, and with --json the one document, saying so),
 * settled in the history. Not a complete run: the guards keep comparing with the one it matched.
 */
export async function unchangedEnding(
  run: NightlyRun,
  unchanged: FeedUnchangedReport,
  history: RunHistory,
): Promise<NightlyEnding> {
  const { plan, stateRun } = run;
  const durationMs = Date.now() - history.started;
  const result: UploadResult = {
    summary: {
      ...noOutcomes(),
      rows: 0,
      invalid: 0,
      unchanged: 0,
      fileErrors: 0,
      sent: 0,
      batches: 0,
      retries: 0,
      requests: 0,
      bytes: 0,
      durationMs,
      dryRun: false,
    },
    failures: [],
    batches: [],
    issues: [],
    issuesTruncated: false,
    feed: emptyStats(),
    collector: new IssueCollector(plan.settings.maxErrors),
    lastRow: 0,
    readToEnd: false,
  };
  const meta: UploadReportMeta = {
    format: plan.feed.format,
    kind: plan.feed.kind,
    // As validate names them: a URL without its query (often a token), stdin as <stdin>.
    files: plan.files.map(sourceName),
    ...(plan.target ? { target: `POST ${plan.target.apiUrl.replace(/\/+$/, '')}${plan.settings.path}` } : {}),
    feedUnchanged: unchanged,
  };
  const code = ExitCode.ok;
  await stateRun?.finishRun(history.id, result, code, uploadReportText(result, meta), durationMs);
  return { result, meta, code, lines: () => uploadSummaryLines(result, meta) };
}

/** Mapping drift in a run the guards' pass did not read (every guard off): said after the fact. */
async function sayDrift(stateRun: StateRun, log: NightlyDeps['log']): Promise<void> {
  const absent = stateRun.columns?.absent((await stateRun.state.lastComplete())?.columns) ?? [];
  if (absent.length > 0) log.warn(driftLine(absent));
}

/** `--missing-after`: each known product absent from this complete run, counted one run more. */
async function recordAbsent(stateRun: StateRun): Promise<void> {
  const seen = stateRun.delta.seenSkus;
  const absent: string[] = [];
  for await (const sku of stateRun.state.acceptedSkus()) if (!seen.has(sku)) absent.push(sku);
  await stateRun.state.recordMissing(absent, stateRun.missingRuns);
}

/** The feed's rows, all shards': as the guards' pass counted, or the shard filter, or the engine (less the gone rows). */
function feedRowsOf(stateRun: StateRun, shard: NightlyRun['shard'], engineRows: number): number {
  return stateRun.feedRows ?? shard?.counts.rows ?? engineRows - (stateRun.gone ?? 0);
}

/** What a quiet run leaves out: the one line that fills a missing field, the run's notes. */
function hintLines(result: UploadResult, meta: UploadReportMeta, notes: (string | undefined)[]): string[] {
  return [
    // A required field missing on many rows: the one flag or mapping line that fills it.
    ...missingFieldLines(uploadReport(result, meta)),
    ...notes.filter((line): line is string => line !== undefined),
  ];
}

function stateLine(stateRun: StateRun): string {
  const gone =
    stateRun.gone !== undefined
      ? `; ${stateRun.gone.toLocaleString('en-US')} gone from the feed (--missing out-of-stock; counted above)`
      : '';
  return `state: ${deltaLine(stateRun.delta.counts, stateRun.full)}${gone}`;
}

function sandboxLine(sb: NonNullable<UploadReportMeta['sandbox']>): string {
  const one = sb.applied === 1;
  const [noun, them, they] = one ? ['product', 'it', 'it is'] : ['products', 'them', 'they are'];
  const where = sb.db
    ? `${they} kept in ${sb.db}: look at ${them} with \`genser sandbox --db ${sb.db}\` and GET /_sandbox/products`
    : `the sandbox was in memory and stopped with this command; add --sandbox-db FILE to keep ${them}`;
  return `sandbox: ${sb.applied.toLocaleString('en-US')} ${noun} landed in the embedded sandbox at ${sb.url} and its daily batch (run at once) applied ${them}; ${where}`;
}

function searchableLine(format: PayloadFormat, kind: LegacyKind, country: string): string {
  const after = describeNextBatch(new Date(), country);
  // Only legacy products carry isInStock (contract 2.8): contents and filters have no stock.
  return format === 'legacy' && kind === 'products'
    ? `${after}; stock status (isInStock) applies at once`
    : after;
}
