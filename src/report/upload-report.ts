import type { StopReason } from '../http/run.js';
import { printable } from '../shared/printable.js';
import { redact } from '../shared/secrets.js';
import type { LegacyKind, PayloadFormat } from '../shared/types.js';
import {
  concurrencyLines,
  count,
  duration,
  n,
  OUTCOME_MEANING,
  outcomeWords,
  rate,
} from '../shared/words.js';
import type { BatchOutcome, Failure, UploadResult, UploadSummary } from '../upload/types.js';

import {
  buildValidateReport,
  type ValidateReport,
  validateSummaryLines,
  withJsonIssues,
} from './validate-report.js';

/**
 * The upload report of docs/upload.md: the validate report's fields (format, files, rows,
 * issues, truncated) plus `summary`, `failures` and `batches`. The same document goes to stdout
 * with --json and to the --report file.
 */
export interface UploadReportMeta {
  format: PayloadFormat;
  kind?: LegacyKind;
  files: string[];
  /** Where it went: the api url and path (never the key). */
  target?: string;
  /** "after the daily batch at 00:15 ..." for accepted standard products. */
  searchable?: string;
  sandbox?: { url: string; applied: number; db?: string };
  /** `--shard I/N`: this run's shard, the feed's rows and those in the shard (docs/nightly.md, "Shards"). */
  shard?: ShardReport;
  /** The one feed URL answered 304 to the last complete run's validators: nothing read or sent. */
  feedUnchanged?: FeedUnchangedReport;
}

/** docs/nightly.md, "Feeds from a URL": the run the feed is unchanged since, and the URL as shown. */
export interface FeedUnchangedReport {
  sinceRun: string | null;
  url: string;
}

export interface ShardReport {
  index: number;
  count: number;
  feedRows: number;
  shardRows: number;
}

/** The upload report document: validate's fields plus the upload's own. */
export interface UploadReport extends Omit<ValidateReport, 'stopped'> {
  summary: UploadSummary;
  stopped?: { reason: StopReason; message: string; lastRowRead: number };
  target?: string;
  searchable?: string;
  sandbox?: { url: string; applied: number; db?: string };
  shard?: ShardReport;
  feedUnchanged?: FeedUnchangedReport;
  failures: Failure[];
  batches: BatchOutcome[];
}

function validatePart(result: UploadResult, meta: UploadReportMeta): ValidateReport {
  return buildValidateReport({
    format: meta.format,
    kind: meta.kind ?? 'products',
    files: meta.files,
    stats: result.feed,
    collector: result.collector,
  });
}

export function uploadReport(result: UploadResult, meta: UploadReportMeta): UploadReport {
  return {
    ...validatePart(result, meta),
    summary: result.summary,
    ...(result.stop
      ? { stopped: { reason: result.stop.reason, message: result.stop.message, lastRowRead: result.lastRow } }
      : {}),
    ...(meta.target ? { target: meta.target } : {}),
    ...(meta.searchable ? { searchable: meta.searchable } : {}),
    ...(meta.sandbox ? { sandbox: meta.sandbox } : {}),
    ...(meta.shard ? { shard: meta.shard } : {}),
    ...(meta.feedUnchanged ? { feedUnchanged: meta.feedUnchanged } : {}),
    failures: result.failures,
    batches: result.batches,
  };
}

/** The invalid rows' problems as validate prints them (groups, then the first issues). */
export function uploadIssueLines(
  result: UploadResult,
  meta: UploadReportMeta,
  options: { color: boolean; maxErrors: number; quiet?: boolean },
): string[] {
  if (result.collector.total === 0) return [];
  // validate's last line is its verdict; the upload summary says it instead.
  return validateSummaryLines(validatePart(result, meta), options).slice(0, -1);
}

/** The report as text, with every registered secret masked. */
export function uploadReportText(result: UploadResult, meta: UploadReportMeta): string {
  return redact(`${JSON.stringify(withJsonIssues(uploadReport(result, meta)), null, 2)}\n`);
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** `failed: batch 2 rows 6-10, batch 3 rows 11-12: ...` per outcome, from the failures. */
function outcomeLines(failures: readonly Failure[]): string[] {
  const lines: string[] = [];
  for (const kind of ['failed', 'unconfirmed', 'not_sent'] as const) {
    const byBatch = new Map<number, { first: number; last: number }>();
    for (const f of failures) {
      if (f.kind !== kind) continue;
      const range = byBatch.get(f.batch);
      if (!range) byBatch.set(f.batch, { first: f.row, last: f.row });
      else {
        range.first = Math.min(range.first, f.row);
        range.last = Math.max(range.last, f.row);
      }
    }
    if (byBatch.size === 0) continue;
    const shown = [...byBatch]
      .slice(0, 10)
      .map(([b, r]) => `batch ${b} ${r.first === r.last ? `row ${r.first}` : `rows ${r.first}-${r.last}`}`);
    const more = byBatch.size > 10 ? `, and ${count(byBatch.size - 10, 'more batch', 'more batches')}` : '';
    lines.push(
      `${kind.replace('_', ' ')}: ${shown.join(', ')}${more}: ${OUTCOME_MEANING[kind]} (--report lists every row)`,
    );
  }
  return lines;
}

/** The end-of-run lines for people (stderr); `quiet`: what went wrong and the counts, no more. */
export function uploadSummaryLines(result: UploadResult, meta: UploadReportMeta, quiet = false): string[] {
  const s = result.summary;
  const lines: string[] = [];
  const same = meta.feedUnchanged;
  if (same)
    return [
      printable(
        `feed unchanged since run ${same.sinceRun ?? '(unknown)'}: ${same.url} answered 304 Not Modified; nothing was downloaded or sent`,
      ),
    ];
  if (s.dryRun) {
    lines.push(
      `dry run: ${count(s.rows, 'row')}, ${n(s.invalid)} invalid; would send ${count(s.rows - s.invalid, 'product')} in ${count(s.batches, 'batch', 'batches')} (${megabytes(s.bytes)})${meta.target ? ` to ${meta.target}` : ''}; nothing was sent`,
    );
    return lines;
  }
  lines.push(
    `upload: ${count(s.rows, 'row')}, ${n(s.invalid)} invalid (not sent), ${n(s.sent)} sent in ${count(s.batches, 'batch', 'batches')}: ` +
      `${outcomeWords(s)}; ${s.notSent > 0 ? `${count(s.notSent, 'valid row')} not sent; ` : ''}` +
      `${count(s.retries, 'retry', 'retries')}; ${duration(s.durationMs)} (${rate(s.rows, s.durationMs, 'row')})`,
  );
  if (!quiet) lines.push(...concurrencyLines(s.concurrency));
  if (result.stop)
    lines.push(
      result.readToEnd
        ? `stopped; the feed was read to its end (row ${n(result.lastRow)}), what came after the stop not sent`
        : `stopped after row ${n(result.lastRow)}: rows after it were not read or sent`,
    );
  lines.push(...outcomeLines(result.failures));
  if (meta.searchable && s.accepted > 0 && !quiet) lines.push(`searchable ${meta.searchable}`);
  return lines.map(printable);
}
