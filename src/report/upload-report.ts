import { printable } from '../shared/printable.js';
import { redact } from '../shared/secrets.js';
import type { LegacyKind, PayloadFormat } from '../shared/types.js';
import type { UploadResult } from '../upload/types.js';
import { buildValidateReport, type ValidateReport, validateSummaryLines } from './validate-report.js';

/**
 * The upload report of DESIGN.md section 7: the validate report's fields (format, files, rows,
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

export function uploadReport(result: UploadResult, meta: UploadReportMeta): Record<string, unknown> {
  return {
    ...validatePart(result, meta),
    summary: result.summary,
    ...(result.stop
      ? { stopped: { reason: result.stop.reason, message: result.stop.message, lastRowRead: result.lastRow } }
      : {}),
    ...(meta.target ? { target: meta.target } : {}),
    ...(meta.searchable ? { searchable: meta.searchable } : {}),
    ...(meta.sandbox ? { sandbox: meta.sandbox } : {}),
    failures: result.failures,
    batches: result.batches,
  };
}

/** The invalid rows' problems as validate prints them (groups, then the first issues). */
export function uploadIssueLines(
  result: UploadResult,
  meta: UploadReportMeta,
  options: { color: boolean; maxErrors: number },
): string[] {
  if (result.collector.total === 0) return [];
  // validate's last line is its verdict; the upload summary says it instead.
  return validateSummaryLines(validatePart(result, meta), options).slice(0, -1);
}

/** The report as text, with every registered secret masked. */
export function uploadReportText(result: UploadResult, meta: UploadReportMeta): string {
  return redact(`${JSON.stringify(uploadReport(result, meta), null, 2)}\n`);
}

const n = (x: number) => x.toLocaleString('en-US');
/** A count and its noun: "1 row", "2,500 rows". */
const count = (x: number, one: string, many = `${one}s`) => `${n(x)} ${x === 1 ? one : many}`;

function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

function megabytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The end-of-run lines for people (stderr). */
export function uploadSummaryLines(result: UploadResult, meta: UploadReportMeta): string[] {
  const s = result.summary;
  const rate = s.durationMs > 0 ? Math.round((s.rows / s.durationMs) * 1000) : s.rows;
  const lines: string[] = [];
  if (s.dryRun) {
    lines.push(
      `dry run: ${count(s.rows, 'row')}, ${n(s.invalid)} invalid; would send ${count(s.rows - s.invalid, 'product')} in ${count(s.batches, 'batch', 'batches')} (${megabytes(s.bytes)})${meta.target ? ` to ${meta.target}` : ''}; nothing was sent`,
    );
    return lines;
  }
  lines.push(
    `upload: ${count(s.rows, 'row')}, ${n(s.invalid)} invalid (not sent), ${n(s.sent)} sent in ${count(s.batches, 'batch', 'batches')}: ` +
      `${n(s.accepted)} accepted, ${n(s.rejected)} rejected, ${n(s.failed)} not delivered; ` +
      `${count(s.retries, 'retry', 'retries')}; ${duration(s.durationMs)} (${n(rate)} rows/s)`,
  );
  if (result.stop)
    lines.push(
      result.readToEnd
        ? `stopped after row ${n(result.lastRow)}, the last of the feed`
        : `stopped after row ${n(result.lastRow)}: rows after it were not read or sent`,
    );
  if (s.failed > 0) {
    const failedBatches = result.batches.filter((b) => b.status === 'failed' || b.status === 'not_sent');
    if (failedBatches.length > 0)
      lines.push(
        `not delivered: ${failedBatches
          .slice(0, 10)
          .map((b) => `batch ${b.index} rows ${b.firstRow}-${b.lastRow}`)
          .join(
            ', ',
          )}${failedBatches.length > 10 ? `, and ${failedBatches.length - 10} more batches` : ''} (see --report for every row)`,
      );
  }
  if (meta.searchable && s.accepted > 0) lines.push(`searchable ${meta.searchable}`);
  return lines.map(printable);
}
