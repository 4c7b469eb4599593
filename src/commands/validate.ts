import { existsSync } from 'node:fs';
import { emptyStats, type FeedRow, type FeedStats, feedRows, isClean, tally } from '../feed/index.js';
import { oneLine } from '../http/response.js';
import { isUrl, sourceName } from '../read/index.js';
import { missingFieldLines } from '../report/missing-fields.js';
import { RejectsFile, rejectsKind } from '../report/rejects.js';
import { buildValidateReport, type ValidateReport, validateSummaryLines } from '../report/validate-report.js';
import { ExitError, UsageError } from '../shared/errors.js';
import { IssueCollector } from '../shared/issue-collector.js';
import type { Logger } from '../shared/logger.js';
import { startSpinner } from '../shared/spinner.js';
import type { FeedOptions } from '../shared/types.js';
import type { CommandContext } from './context.js';
import { feedRemote } from './feed-remote.js';
import { type FeedSettings, feedOptionsFrom, workersFrom } from './feed-settings.js';
import { copiedInputs, finishRejects } from './rejects.js';
import { finishReports, reportersOf } from './reporting.js';

/**
 * `genser validate`: read, map, build and validate every row; write nothing but the report.
 * Also the shared driver of `genser convert` (which additionally writes the valid payloads).
 */
export interface FeedRun {
  options: FeedOptions;
  settings: FeedSettings;
  log: Logger;
  maxErrors: number;
  /** Issues kept in detail for --json/--report (more than the human list shows). */
  keepIssues: number;
  /** `--rejects FILE`: the refused rows, written as they pass. */
  rejects?: RejectsFile;
}

export function prepareRun(files: string[], settings: FeedSettings, ctx: CommandContext): FeedRun {
  for (const file of files) {
    if (file !== '-' && !isUrl(file) && !existsSync(file)) {
      throw new UsageError(`input file ${file} does not exist`, 'check the path (use - to read stdin)');
    }
  }
  if (files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be read only once');
  const options = feedOptionsFrom(settings, ctx);
  if (settings.rejects) options.keepRecords = true;
  // Given anywhere (flag, env, config), the cap also applies to the JSON report; else it keeps 10,000.
  return {
    options,
    settings,
    log: ctx.log,
    maxErrors: settings.maxErrors ?? 20,
    keepIssues: settings.maxErrors ?? 10_000,
    ...(settings.rejects
      ? { rejects: new RejectsFile(settings.rejects, rejectsKind(files, options.inputType)) }
      : {}),
  };
}

export interface Progress {
  /** Log lines during the run go through this logger so they never share a line with the spinner. */
  log: Logger;
  tick(rows: number): void;
  stop(): void;
}

/** The spinner on an interactive terminal only (src/shared/spinner.ts); nothing otherwise. */
export async function startProgress(log: Logger, ctx: CommandContext, verb: string): Promise<Progress> {
  const spinner = await startSpinner(log, ctx.stderr as NodeJS.WritableStream, `${verb}...`);
  if (!spinner) return { log, tick() {}, stop() {} };
  return {
    log: spinner.log,
    tick(rows) {
      if (rows % 5000 === 0) spinner.set(`${verb}: ${rows.toLocaleString('en-US')} rows`);
    },
    stop: spinner.stop,
  };
}

export interface FeedOutcome {
  stats: FeedStats;
  report: ValidateReport;
  /**
   * What stopped the run before the end of the feed (an undecodable byte half-way, a bug); the
   * report then covers the rows read until then. Callers show those, then rethrow it.
   */
  stoppedBy?: unknown;
}

/**
 * Runs the feed through the pipeline, collecting the report; `onItem` sees every item (convert
 * writes), with each valid payload's JSON made once on the feed thread.
 */
export async function driveFeed(
  files: string[],
  run: FeedRun,
  ctx: CommandContext,
  verb: string,
  onItem?: (item: FeedRow) => Promise<void> | void,
): Promise<FeedOutcome> {
  const stats = emptyStats();
  const collector = new IssueCollector(run.keepIssues);
  const progress = await startProgress(run.log, ctx, verb);
  let stoppedBy: unknown;
  let lastRow = 0;
  // With --rejects, stdin and URLs are copied as they are read (./rejects.ts).
  const inputs = copiedInputs(run.rejects, feedRemote(ctx), files.includes('-') ? process.stdin : undefined);
  try {
    for await (const item of feedRows(files, run.options, progress.log, inputs.stdin, {
      serialize: onItem !== undefined,
      workers: workersFrom(run.settings),
      remote: inputs.remote,
    })) {
      tally(stats, item);
      if (item.row > 0) lastRow = item.row;
      for (const issue of item.issues) collector.add(issue);
      run.rejects?.refused(item);
      if (onItem) await onItem(item);
      progress.tick(stats.rows);
    }
  } catch (err) {
    stoppedBy = err;
  } finally {
    progress.stop();
  }
  if (run.rejects) await finishRejects(run.rejects, files, run.options, run.log);
  const report = buildValidateReport({
    format: run.options.format,
    kind: run.options.kind,
    files: files.map(sourceName),
    stats,
    collector,
  });
  if (stoppedBy === undefined) return { stats, report };
  report.stopped = {
    reason: stoppedBy instanceof ExitError ? 'input' : 'internal',
    message: oneLine(stoppedBy instanceof Error ? stoppedBy.message : String(stoppedBy)),
    lastRowRead: lastRow,
  };
  return { stats, report, stoppedBy };
}

/**
 * A run stopped half-way: the problems of the rows read before it (a nightly log then shows them
 * too, not only the error), then the error itself, turned into its exit code by main.
 */
export function stopWithPartial(
  outcome: FeedOutcome,
  run: FeedRun,
  ctx: CommandContext,
  command: 'validate' | 'convert' = 'validate',
): never {
  // Nothing read (no such file, stdin without --input-type): a plain usage error, no report.
  if (outcome.stats.rows > 0) {
    // A CI job that keeps its reports finds the rows read and why the run stopped (`stopped`);
    // stdout gets no JSON document, as the run ends in an error.
    const reporters = reportersOf(run.settings, ctx).filter((r) => !(r.name === 'json' && !r.file));
    finishReports(reporters, { command, report: outcome.report }, ctx, () => {
      const lines = validateSummaryLines(outcome.report, {
        color: run.log.fancy,
        maxErrors: run.maxErrors,
        stopped: true,
      });
      for (const line of lines) ctx.stderr.write(`${line}\n`);
    });
  }
  throw outcome.stoppedBy;
}

/** The human summary on stderr: the verdict and problems are the output of validate (with --quiet: the errors and the last line). */
export function printSummary(report: ValidateReport, run: FeedRun, ctx: CommandContext): void {
  const quiet = run.settings.quiet === true;
  const lines = [
    ...validateSummaryLines(report, {
      color: run.log.fancy,
      maxErrors: run.maxErrors,
      warnings: run.settings.warnings,
      quiet,
    }),
    // A required field missing on many rows: the one flag or mapping line that fills it.
    ...(quiet ? [] : missingFieldLines(report, { country: run.options.country })),
  ];
  for (const line of lines) ctx.stderr.write(`${line}\n`);
}

export async function runValidate(
  files: string[],
  settings: FeedSettings,
  ctx: CommandContext,
): Promise<number> {
  const reporters = reportersOf(settings, ctx);
  const run = prepareRun(files, settings, ctx);
  const outcome = await driveFeed(files, run, ctx, 'validating');
  if (outcome.stoppedBy !== undefined) stopWithPartial(outcome, run, ctx);
  const { stats, report } = outcome;
  finishReports(reporters, { command: 'validate', report }, ctx, () => printSummary(report, run, ctx));
  return isClean(stats) ? 0 : 1;
}
