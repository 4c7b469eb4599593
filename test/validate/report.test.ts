import { describe, expect, it } from 'vitest';
import { emptyStats } from '../../src/feed/pipeline.js';
import {
  buildValidateReport,
  validateReportJson,
  validateSummaryLines,
} from '../../src/report/validate-report.js';
import { IssueCollector } from '../../src/shared/issue-collector.js';
import { clearSecrets, registerSecret } from '../../src/shared/secrets.js';
import type { Issue } from '../../src/shared/types.js';

const issue = (
  row: number,
  code = 'required',
  field = 'offers.gtin',
  severity: Issue['severity'] = 'error',
): Issue => ({
  severity,
  code,
  file: 'feed.csv',
  row,
  line: row + 1,
  sku: `S-${row}`,
  field,
  message: `${field} problem in row ${row}`,
});

describe('issue grouping', () => {
  it('counts every issue by (severity, code, field) but keeps only the first few in detail', () => {
    const c = new IssueCollector(3);
    for (let row = 1; row <= 1000; row++) c.add(issue(row));
    c.add(issue(7, 'type', 'offers.price'));
    c.add(issue(8, 'recommended', 'url', 'warning'));
    expect(c.issues).toHaveLength(3);
    expect(c.truncated).toBe(true);
    expect(c.groups().map((g) => [g.severity, g.code, g.field, g.count, g.rows.length])).toEqual([
      ['error', 'required', 'offers.gtin', 1000, 5],
      ['error', 'type', 'offers.price', 1, 1],
      ['warning', 'recommended', 'url', 1, 1],
    ]);
  });
});

describe('validate report', () => {
  const stats = { ...emptyStats(), rows: 100, valid: 97, invalid: 3, errors: 3, warnings: 1 };

  it('has the shape of docs/architecture.md section 7', () => {
    const c = new IssueCollector(10);
    c.add(issue(12, 'type', 'offers.price'));
    const report = buildValidateReport({
      format: 'standard',
      kind: 'products',
      files: ['feed.csv'],
      stats,
      collector: c,
    });
    const json = JSON.parse(validateReportJson(report));
    expect(json).toMatchObject({
      format: 'standard',
      files: ['feed.csv'],
      rows: { total: 100, valid: 97, invalid: 3 },
      truncated: false,
      issues: [
        {
          severity: 'error',
          code: 'type',
          file: 'feed.csv',
          row: 12,
          line: 13,
          sku: 'S-12',
          field: 'offers.price',
        },
      ],
    });
    expect(json.kind).toBeUndefined();
  });

  it('summarises by problem, caps the detail list at --max-errors and ends with the verdict', () => {
    const c = new IssueCollector(1000);
    for (let row = 1; row <= 30; row++) c.add(issue(row));
    const report = buildValidateReport({
      format: 'standard',
      kind: 'products',
      files: ['feed.csv'],
      stats,
      collector: c,
    });
    const lines = validateSummaryLines(report, { maxErrors: 2 });
    expect(lines[0]).toBe('Problems by kind:');
    expect(lines[1]).toBe('  error required offers.gtin: 30 (rows 1, 2, 3, 4, 5, ...)');
    expect(lines.filter((l) => l.startsWith('  error feed.csv row'))).toHaveLength(2);
    expect(lines.some((l) => l.includes('more (raise --max-errors'))).toBe(true);
    expect(lines.at(-1)).toBe('FAILED: 100 row(s), 97 valid, 3 invalid, 1 warning(s)');
    expect(lines.join('\n')).not.toMatch(/\u001b\[/);
    const colored = validateSummaryLines(report, { maxErrors: 2, color: true });
    expect(colored.join('\n')).toMatch(/\u001b\[31m/);
  });

  it('masks secrets that slipped into a value', () => {
    registerSecret('sk_live_supersecret');
    try {
      const c = new IssueCollector(10);
      c.add({ ...issue(1), value: 'sk_live_supersecret' });
      const report = buildValidateReport({
        format: 'standard',
        kind: 'products',
        files: ['f'],
        stats,
        collector: c,
      });
      expect(validateReportJson(report)).not.toContain('sk_live_supersecret');
    } finally {
      clearSecrets();
    }
  });
});

describe('formatIssue', () => {
  it('names the file, and does not repeat the position that a read issue already states', async () => {
    const { formatIssue } = await import('../../src/report/validate-report.js');
    const read: Issue = {
      severity: 'error',
      code: 'ragged_row',
      file: 'f.csv',
      row: 3,
      line: 4,
      message: 'row 3 (line 4) has 5 fields',
    };
    expect(formatIssue(read)).toBe('f.csv: row 3 (line 4) has 5 fields');
    expect(formatIssue(issue(2))).toBe(
      `${issue(2).file} row 2 (line 3), sku S-2: offers.gtin problem in row 2`,
    );
  });
});
