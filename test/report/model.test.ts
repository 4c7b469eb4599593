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

  it('events validate: the listed issues, file problems without a row, every problem counted', () => {
    const m = toModel({
      command: 'events validate',
      report: {
        files: ['e.ndjson'],
        events: { total: 4, valid: 2, invalid: 2 },
        issues: [
          {
            severity: 'error',
            code: 'invalid_event',
            file: 'e.ndjson',
            row: 2,
            line: 2,
            type: 'search',
            field: '/query',
            message: 'required',
          },
          {
            severity: 'error',
            file: 'e.ndjson',
            row: 3,
            line: 3,
            field: '/specversion',
            message: 'specversion 1.0',
            code: 'quirk_specversion',
          },
          { severity: 'error', code: 'read', file: 'e.ndjson', row: 0, line: 9, message: 'bad JSON' },
        ],
        problemCount: 5,
        truncated: true,
      },
    });
    expect(m.totals).toEqual({ total: 4, valid: 2, invalid: 2, errors: 5, warnings: 0, fileErrors: 1 });
    expect(m.problems.map((p) => [p.code, p.row])).toEqual([
      ['invalid_event', 2],
      ['quirk_specversion', 3],
      ['read', undefined],
    ]);
    expect(m.unlisted).toBe(2);
  });

  it('events send: invalid events and every outcome not accepted are problems; the stop is kept', () => {
    const m = toModel({
      command: 'events send',
      report: {
        files: ['e.ndjson'],
        summary: {
          rows: 7,
          invalid: 1,
          fileErrors: 0,
          sent: 5,
          accepted: 2,
          rejected: 1,
          failed: 1,
          unconfirmed: 1,
          notSent: 1,
          retries: 2,
          requests: 8,
          durationMs: 10,
        },
        issues: [
          {
            severity: 'error',
            code: 'invalid_event',
            file: 'e.ndjson',
            row: 2,
            line: 2,
            type: 'search',
            field: '/query',
            message: 'required',
          },
        ],
        truncated: false,
        stopped: { reason: 'unavailable', message: 'the service is unavailable', lastRowRead: 7 },
        target: 'http://127.0.0.1:1',
        failures: [
          { kind: 'rejected', file: 'e.ndjson', row: 4, line: 4, type: 'click', status: 400, message: 'bad' },
          {
            kind: 'failed',
            file: 'e.ndjson',
            row: 5,
            line: 5,
            type: 'click',
            status: 'timeout',
            message: 'x',
          },
          {
            kind: 'unconfirmed',
            file: 'e.ndjson',
            row: 6,
            line: 6,
            type: 'click',
            status: 500,
            message: 'y',
          },
          {
            kind: 'not_sent',
            file: 'e.ndjson',
            row: 7,
            line: 7,
            type: 'click',
            status: 'not_sent',
            message: 'z',
          },
        ],
      },
    });
    expect(m.files).toEqual(['e.ndjson']);
    expect(m.totals).toEqual({ total: 7, valid: 6, invalid: 1, errors: 5, warnings: 0, fileErrors: 0 });
    expect(m.problems.map((p) => [p.code, p.row])).toEqual([
      ['invalid_event', 2],
      ['rejected', 4],
      ['not_delivered', 5],
      ['unconfirmed', 6],
      ['not_delivered', 7],
    ]);
    // The event type in its own field, not in the SKU's.
    expect(m.problems[0]).toMatchObject({ field: '/query', type: 'search' });
    expect(m.problems[0].sku).toBeUndefined();
    expect(m.problems[4].message).toBe('not sent: the run stopped before it (not sent): z');
    expect(m.stopped).toEqual({ reason: 'unavailable', message: 'the service is unavailable' });
    expect(m.events?.unconfirmed).toBe(1);
    expect(m.unlisted).toBe(0);
  });
});
