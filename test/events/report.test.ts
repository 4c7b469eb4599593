import { describe, expect, it } from 'vitest';
import type { EventSendResult } from '../../src/events/send.js';
import { type EventsRun, eventsReport, eventsSummaryLines } from '../../src/report/events-report.js';

const failure = (row: number, kind: 'failed' | 'unconfirmed' | 'not_sent') => ({
  kind,
  file: 'ev.ndjson',
  row,
  line: row,
  type: 'view_product',
  status: kind === 'not_sent' ? 'not_sent' : 401,
  message: '...',
});

const result: EventSendResult = {
  read: 1_204,
  sent: 1_203,
  accepted: 1_195,
  rejected: 0,
  failed: 4,
  unconfirmed: 4,
  notSent: 1,
  retries: 1,
  requests: 1_210,
  failures: [
    ...[1, 2, 3, 4].map((r) => failure(r, 'failed')),
    ...[1000, 1001, 1002, 1100].map((r) => failure(r, 'unconfirmed')),
    failure(1206, 'not_sent'),
  ],
  unsent: [],
  stop: { reason: 'auth', message: 'the server refused the service key (HTTP 401): ...' },
  readToEnd: false,
};

const run: EventsRun = {
  files: ['ev.ndjson'],
  result,
  invalid: 2,
  fileErrors: 0,
  issues: [],
  truncated: false,
  lastRow: 1206,
  durationMs: 1000,
};

describe('events report', () => {
  it('says what became of every event, in the words and numbers of the upload summary', () => {
    expect(eventsSummaryLines(run)).toEqual([
      'events: 1,206 events, 2 invalid (not sent), 1,203 sent: 1,195 accepted, 0 rejected, 4 failed, 4 unconfirmed; 1 valid event not sent; 1 retry; 1.0 s (1,206 events/s)',
      'stopped after row 1,206: events after it were not read or sent',
      'failed: ev.ndjson rows 1-4: not taken (the service said so, or was never reached); run again to send them',
      'unconfirmed: ev.ndjson rows 1000-1002, 1100: sent, but the answer was lost or unclear: they may have landed; sending them again is safe',
      'not sent: ev.ndjson row 1206: the run stopped before sending them',
    ]);
  });
  it('names the rows read after the stop and not sent, as ranges per file', () => {
    const after: EventsRun = {
      ...run,
      result: {
        ...result,
        notSent: 7,
        read: 11,
        sent: 4,
        accepted: 0,
        failed: 4,
        unconfirmed: 0,
        failures: [1, 2, 3, 4].map((r) => failure(r, 'failed')),
        unsent: [{ file: 'ev.ndjson', from: 5, to: 11, count: 7 }],
        readToEnd: true,
      },
      invalid: 0,
      lastRow: 11,
    };
    const lines = eventsSummaryLines(after);
    expect(lines).toContain(
      'stopped; the input was read to its end (row 11), what came after the stop not sent',
    );
    expect(lines.at(-1)).toBe(
      'not sent: ev.ndjson rows 5-11 (7 valid events): the run stopped before sending them',
    );
    expect(eventsReport(after).unsent).toEqual([{ file: 'ev.ndjson', from: 5, to: 11, count: 7 }]);
  });

  it('has the upload report field names, and accounts for every event once', () => {
    const doc = eventsReport(run);
    const s = doc.summary;
    expect(s.rows).toBe(s.invalid + s.accepted + s.rejected + s.failed + s.unconfirmed + s.notSent);
    expect(doc.stopped).toEqual({
      reason: 'auth',
      message: 'the server refused the service key (HTTP 401): ...',
      lastRowRead: 1206,
    });
    expect(Object.keys(doc)).toEqual(['files', 'summary', 'issues', 'truncated', 'stopped', 'failures']);
  });
});
