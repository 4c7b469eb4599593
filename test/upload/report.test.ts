import { describe, expect, it } from 'vitest';
import {
  uploadIssueLines,
  uploadReport,
  uploadReportText,
  uploadSummaryLines,
} from '../../src/report/upload-report.js';
import { IssueCollector } from '../../src/shared/issue-collector.js';
import { clearSecrets, registerSecret } from '../../src/shared/secrets.js';
import type { Issue } from '../../src/shared/types.js';
import { newStats } from '../../src/upload/engine.js';
import { progressLine } from '../../src/upload/progress.js';
import type { UploadResult } from '../../src/upload/types.js';

function issuesOf(issues: Issue[]): IssueCollector {
  const c = new IssueCollector(20);
  for (const i of issues) c.add(i);
  return c;
}

const result: UploadResult = {
  summary: {
    rows: 10,
    invalid: 1,
    fileErrors: 0,
    sent: 9,
    accepted: 4,
    rejected: 1,
    failed: 4,
    unconfirmed: 0,
    notSent: 0,
    batches: 2,
    retries: 3,
    requests: 6,
    bytes: 2048,
    durationMs: 2000,
    dryRun: false,
  },
  failures: [
    { kind: 'rejected', file: 'a.csv', row: 3, line: 4, sku: 'S3', status: 400, message: 'bad', batch: 1 },
    ...[6, 8, 9, 10].map((row) => ({
      kind: 'failed' as const,
      file: 'a.csv',
      row,
      line: row + 1,
      sku: `S${row}`,
      status: 503,
      message: 'gave up after 3 retries: HTTP 503',
      batch: 2,
    })),
  ],
  batches: [
    {
      index: 1,
      firstRow: 1,
      lastRow: 5,
      rows: 5,
      bytes: 1000,
      status: 'partial',
      attempts: 1,
      requests: 2,
      requestId: 'r1',
    },
    {
      index: 2,
      firstRow: 6,
      lastRow: 10,
      rows: 4,
      bytes: 1000,
      status: 'failed',
      attempts: 4,
      requests: 4,
      requestId: 'r2',
    },
  ],
  issues: [],
  issuesTruncated: false,
  feed: { rows: 10, valid: 9, invalid: 1, warnings: 0, errors: 1, fileErrors: 0 },
  collector: issuesOf([
    {
      severity: 'error',
      code: 'type',
      file: 'a.csv',
      row: 7,
      line: 8,
      sku: 'S7',
      field: 'offers.price',
      message: 'price must be a number',
    },
  ]),
  stop: { reason: 'unavailable', message: 'the service is unavailable' },
  lastRow: 10,
  readToEnd: false,
};

describe('upload report', () => {
  it('has the validate fields plus summary, failures and batches', () => {
    const doc = uploadReport(result, {
      format: 'standard',
      files: ['a.csv'],
      target: 'POST http://x/collectors/products',
    });
    expect(Object.keys(doc)).toEqual([
      'format',
      'files',
      'rows',
      'counts',
      'issues',
      'truncated',
      'groups',
      'summary',
      'stopped',
      'target',
      'failures',
      'batches',
    ]);
    expect(doc.rows).toEqual({ total: 10, valid: 9, invalid: 1 });
    expect(doc.stopped).toEqual({
      reason: 'unavailable',
      message: 'the service is unavailable',
      lastRowRead: 10,
    });
  });
  it('lists invalid rows as validate does, without its verdict line', () => {
    const lines = uploadIssueLines(
      result,
      { format: 'standard', files: ['a.csv'] },
      { color: false, maxErrors: 20 },
    );
    expect(lines).toContain('  error type offers.price: 1 (rows 7)');
    expect(lines).toContain('  error a.csv row 7 (line 8), sku S7: price must be a number');
    expect(lines.some((l) => l.includes('FAILED'))).toBe(false);
    const clean = { ...result, collector: new IssueCollector(20) };
    expect(
      uploadIssueLines(clean, { format: 'standard', files: [] }, { color: false, maxErrors: 20 }),
    ).toEqual([]);
  });
  it('masks secrets in the report text', () => {
    registerSecret('SECRET-abc-123');
    const text = uploadReportText(
      { ...result, failures: [{ ...result.failures[0], message: 'echo SECRET-abc-123' }] },
      { format: 'standard', files: ['a.csv'] },
    );
    clearSecrets();
    expect(text).not.toContain('SECRET-abc-123');
    expect(JSON.parse(text).failures[0].message).toBe('echo ***');
  });
  it('summarizes for people, naming undelivered batches and when products become searchable', () => {
    const lines = uploadSummaryLines(result, {
      format: 'standard',
      files: ['a.csv'],
      searchable: 'after the daily batch at 00:15 Asia/Seoul (2026-11-24 00:15, in 9 h 12 min)',
    });
    expect(lines[0]).toBe(
      'upload: 10 rows, 1 invalid (not sent), 9 sent in 2 batches: 4 accepted, 1 rejected, 4 failed; 3 retries; 2.0 s (5 rows/s)',
    );
    expect(lines).toContain('stopped after row 10: rows after it were not read or sent');
    // A stop that came from the last batches, after the whole feed was read, says so.
    const afterAll = uploadSummaryLines(
      { ...result, readToEnd: true },
      { format: 'standard', files: ['a.csv'] },
    );
    expect(afterAll).toContain(
      'stopped; the feed was read to its end (row 10), what came after the stop not sent',
    );
    expect(afterAll.some((l) => l.includes('not read'))).toBe(false);
    const single = uploadSummaryLines(
      { ...result, summary: { ...result.summary, rows: 1, invalid: 0, sent: 1, batches: 1, retries: 1 } },
      { format: 'standard', files: ['a.csv'] },
    );
    expect(single[0]).toMatch(/^upload: 1 row, 0 invalid \(not sent\), 1 sent in 1 batch: .*; 1 retry; /);
    expect(lines).toContain(
      'failed: batch 2 rows 6-10: not taken (the service said so, or was never reached); run again to send them (--report lists every row)',
    );
    expect(lines.at(-1)).toBe(
      'searchable after the daily batch at 00:15 Asia/Seoul (2026-11-24 00:15, in 9 h 12 min)',
    );
    const dry = uploadSummaryLines(
      { ...result, stop: undefined, summary: { ...result.summary, dryRun: true, sent: 0 } },
      { format: 'standard', files: [] },
    );
    expect(dry).toEqual([
      'dry run: 10 rows, 1 invalid; would send 9 products in 2 batches (2.0 kB); nothing was sent',
    ]);
  });
  it('progress line shows counts, rate and an ETA from the line reached', () => {
    const s = newStats(0);
    // 2 s to reach line 1,500 of 6,000: 6 s left, whatever the rows per line.
    Object.assign(s, { rows: 1000, line: 1500, sent: 900, accepted: 800, rejected: 2 });
    expect(progressLine(s, 2000, 6000)).toBe(
      'read 1,000 rows, sent 900, accepted 800, rejected 2, 500 rows/s, ETA ~6 s',
    );
    expect(progressLine(s, 2000)).toBe('read 1,000 rows, sent 900, accepted 800, rejected 2, 500 rows/s');
  });
});
