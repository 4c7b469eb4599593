import { feedItems } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { type UploadReport, uploadReport } from '../../src/report/upload-report.js';
import { buildValidateReport, type ValidateReport } from '../../src/report/validate-report.js';
import { IssueCollector } from '../../src/shared/issue-collector.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions, Issue } from '../../src/shared/types.js';
import type { UploadResult } from '../../src/upload/types.js';

/** Report objects built by the same functions the commands use. */
export function validateReportOf(
  issues: Issue[],
  rows: { total: number; valid: number; invalid: number },
  options: { files?: string[]; maxIssues?: number } = {},
): ValidateReport {
  const collector = new IssueCollector(options.maxIssues ?? 10_000);
  for (const i of issues) collector.add(i);
  const errors = issues.filter((i) => i.severity === 'error').length;
  return buildValidateReport({
    format: 'standard',
    kind: 'products',
    files: options.files ?? [...new Set(issues.map((i) => i.file))],
    stats: {
      rows: rows.total,
      valid: rows.valid,
      invalid: rows.invalid,
      errors,
      warnings: issues.length - errors,
      fileErrors: issues.filter((i) => !i.row && i.severity === 'error').length,
    },
    collector,
  });
}

export function rowError(file: string, row: number, extra: Partial<Issue> = {}): Issue {
  return {
    severity: 'error',
    code: 'type',
    file,
    row,
    line: row + 1,
    sku: `SKU-${String(row).padStart(5, '0')}`,
    column: 'price',
    field: 'offers.price',
    value: '12,000원',
    message: 'offers.price must be a number; got `12,000원`',
    hint: 'declare a thousands separator',
    ...extra,
  };
}

export function uploadReportOf(): UploadReport {
  const collector = new IssueCollector(20);
  collector.add(rowError('shop.csv', 7));
  collector.add({
    severity: 'warning',
    code: 'recommended',
    file: 'shop.csv',
    row: 8,
    line: 9,
    sku: 'SKU-00008',
    field: 'offers.gtin',
    message: 'offers.gtin is recommended',
  });
  const result: UploadResult = {
    summary: {
      rows: 12,
      invalid: 1,
      fileErrors: 0,
      sent: 11,
      accepted: 8,
      rejected: 1,
      failed: 2,
      unconfirmed: 0,
      notSent: 0,
      batches: 3,
      retries: 2,
      requests: 6,
      bytes: 4096,
      durationMs: 900,
      dryRun: false,
    },
    failures: [
      {
        kind: 'rejected',
        file: 'shop.csv',
        row: 3,
        line: 4,
        sku: 'SKU-00003',
        status: 400,
        message: 'price: must be number',
        batch: 1,
      },
      {
        kind: 'failed',
        file: 'shop.csv',
        row: 11,
        line: 12,
        sku: 'SKU-00011',
        status: 503,
        message: 'unavailable',
        batch: 3,
      },
      {
        kind: 'failed',
        file: 'shop.csv',
        row: 12,
        line: 13,
        sku: 'SKU-00012',
        status: 503,
        message: 'unavailable',
        batch: 3,
      },
    ],
    batches: [
      {
        index: 1,
        firstRow: 1,
        lastRow: 5,
        rows: 5,
        bytes: 1000,
        status: 'partial',
        httpStatus: 200,
        attempts: 1,
        requests: 3,
        requestId: 'r1',
        startedMs: 5,
        endedMs: 300,
      },
      {
        index: 2,
        firstRow: 6,
        lastRow: 10,
        rows: 4,
        bytes: 1000,
        status: 'accepted',
        httpStatus: 200,
        attempts: 1,
        requests: 1,
        requestId: 'r2',
        startedMs: 20,
        endedMs: 250,
      },
      {
        index: 3,
        firstRow: 11,
        lastRow: 12,
        rows: 2,
        bytes: 500,
        status: 'failed',
        httpStatus: 503,
        attempts: 3,
        requests: 3,
        requestId: 'r3',
        startedMs: 310,
        endedMs: 880,
      },
    ],
    issues: [],
    issuesTruncated: false,
    feed: { rows: 12, valid: 11, invalid: 1, warnings: 1, errors: 1, fileErrors: 0 },
    collector,
    lastRow: 12,
    readToEnd: true,
  };
  return uploadReport(result, {
    format: 'standard',
    files: ['shop.csv'],
    target: 'POST http://127.0.0.1:9/collectors/products',
  });
}

const OPTIONS: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

/** validate's report of a real feed, built by the functions the command uses. */
export async function validateReportOfFixture(
  file = 'fixtures/catalog-invalid.csv',
): Promise<ValidateReport> {
  const stats = emptyStats();
  const collector = new IssueCollector(10_000);
  for await (const item of feedItems([file], OPTIONS, memoryLogger())) {
    for (const issue of item.issues) collector.add(issue);
    tally(stats, item);
  }
  return buildValidateReport({ format: 'standard', kind: 'products', files: [file], stats, collector });
}
