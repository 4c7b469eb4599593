import { describe, expect, it } from 'vitest';
import { columnsOf, rowLabel, toModel } from '../../src/report/model.js';
import { rowError, uploadReportOf, validateReportOf } from './samples.js';

describe('report model', () => {
  it('validate: totals from the report, hints apart from messages, file-level problems without a row', () => {
    const report = validateReportOf(
      [
        rowError('a.csv', 2),
        {
          severity: 'error',
          code: 'duplicate_header',
          file: 'a.csv',
          row: 0,
          message: 'header "sku" appears twice',
        },
      ],
      { total: 4, valid: 3, invalid: 1 },
    );
    const m = toModel({ command: 'validate', report });
    expect(m.totals).toEqual({ total: 4, valid: 3, invalid: 1, errors: 2, warnings: 0, fileErrors: 1 });
    expect(m.problems[0].message).toBe('offers.price must be a number; got `12,000원`');
    expect(m.problems[0].hint).toBe('declare a thousands separator');
    expect(m.problems[1].row).toBeUndefined();
    expect(rowLabel(m.problems[1])).toBe('file');
    expect(rowLabel(m.problems[0])).toBe('row 2 (line 3) SKU-00002');
    expect(columnsOf(m.problems)).toEqual([
      { column: 'price', count: 1 },
      { column: '(file)', count: 1 },
    ]);
  });

  it('upload: refused and undelivered rows become problems and kinds, counted as errors', () => {
    const m = toModel({ command: 'upload', report: uploadReportOf() });
    expect(m.problems.map((p) => [p.code, p.row])).toEqual([
      ['type', 7],
      ['recommended', 8],
      ['rejected', 3],
      ['not_delivered', 11],
      ['not_delivered', 12],
    ]);
    expect(m.problems[2].message).toBe('rejected by the service (HTTP 400, batch 1): price: must be number');
    expect(m.kinds.slice(-2)).toEqual([
      { severity: 'error', code: 'rejected', count: 1 },
      { severity: 'error', code: 'not_delivered', count: 2 },
    ]);
    expect(m.totals.errors).toBe(1 + 3);
    expect(m.upload?.batches).toHaveLength(3);
  });

  it('events send: invalid events and failed sends are problems; the stop is kept', () => {
    const m = toModel({
      command: 'events send',
      report: {
        summary: { sent: 5, accepted: 3, rejected: 1, failed: 1, invalid: 1, retries: 2, durationMs: 10 },
        invalid: [
          { file: 'e.ndjson', row: 2, line: 2, type: 'search', pointer: '/query', message: 'required' },
        ],
        failures: [
          { file: 'e.ndjson', row: 4, line: 4, type: 'click', status: 400, message: 'bad' },
          { file: 'e.ndjson', row: 5, line: 5, type: 'click', status: 'timeout', message: 'no answer' },
        ],
        stop: 'unavailable',
      },
    });
    expect(m.files).toEqual(['e.ndjson']);
    expect(m.totals).toMatchObject({ total: 6, valid: 5, invalid: 1, errors: 3 });
    expect(m.problems.map((p) => p.code)).toEqual(['invalid_event', 'rejected', 'not_delivered']);
    expect(m.problems[0]).toMatchObject({ field: '/query', sku: 'search' });
    expect(m.stopped).toEqual({ reason: 'unavailable', message: 'the run stopped: unavailable' });
  });
});
