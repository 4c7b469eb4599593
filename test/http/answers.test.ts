import { describe, expect, it } from 'vitest';
import { noOutcomes, tallyOutcome, totalOutcomes } from '../../src/http/outcome.js';
import { answerMessage, notServiceAnswer } from '../../src/http/response.js';
import { classifyStatus, mayHaveLanded } from '../../src/http/retry-policy.js';
import { stopExitCode } from '../../src/http/run.js';
import { describeTransportError } from '../../src/http/transport-error.js';
import { count, rate } from '../../src/shared/words.js';

const answer = (body: string, type?: string) => ({
  status: 200,
  headers: type ? { 'content-type': type } : {},
  body,
});

describe('one classification of answers for products and events', () => {
  it('sorts statuses into ok, refused, auth, retry and endpoint', () => {
    expect([200, 202, 204].map(classifyStatus)).toEqual(['ok', 'ok', 'ok']);
    expect([400, 413, 422].map(classifyStatus)).toEqual(['refused', 'refused', 'refused']);
    expect([401, 403].map(classifyStatus)).toEqual(['auth', 'auth']);
    expect([408, 409, 429, 500, 502, 503, 504].every((s) => classifyStatus(s) === 'retry')).toBe(true);
    expect([301, 404, 405, 501].every((s) => classifyStatus(s) === 'endpoint')).toBe(true);
  });
  it('500, 502, 504 and 409 may come after the data landed; 503, 429 and 408 say it did not', () => {
    for (const s of [409, 500, 502, 504]) expect(mayHaveLanded(s), String(s)).toBe(true);
    for (const s of [408, 429, 503]) expect(mayHaveLanded(s), String(s)).toBe(false);
  });
  it('a 200 that is not JSON or empty is not the service', () => {
    expect(notServiceAnswer(answer(''))).toBeUndefined();
    expect(notServiceAnswer(answer('{"ok":true}', 'application/json'))).toBeUndefined();
    expect(notServiceAnswer(answer('<html></html>'))).toBe('an HTML page');
    expect(notServiceAnswer(answer('{}', 'text/html; charset=utf-8'))).toBe('an HTML page');
    expect(notServiceAnswer(answer('  <!DOCTYPE html>\n<p>hi'))).toBe('an HTML page');
    expect(notServiceAnswer(answer('OK', 'text/plain'))).toBe('text that is not JSON (text/plain, "OK")');
  });
  it('reads problem+json, a message, or the text of an error answer', () => {
    expect(answerMessage(400, JSON.stringify({ title: 'Bad', detail: 'no sku' }))).toBe('Bad: no sku');
    expect(answerMessage(503, JSON.stringify({ message: 'busy' }))).toBe('busy');
    expect(answerMessage(500, '')).toBe('HTTP 500');
  });
  it('tells errors before a byte was written from those after, and DNS failures', () => {
    const refused = describeTransportError(
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    );
    expect(refused).toMatchObject({ status: 'network', mayHaveLanded: false, dns: false });
    expect(refused.message).toBe('connect ECONNREFUSED 127.0.0.1:9');
    const reset = describeTransportError(
      Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
    );
    expect(reset).toMatchObject({
      status: 'network',
      mayHaveLanded: true,
      message: 'UND_ERR_SOCKET: other side closed',
    });
    const dns = describeTransportError(
      Object.assign(new Error('getaddrinfo ENOTFOUND x.invalid'), { code: 'ENOTFOUND' }),
    );
    expect(dns).toMatchObject({ dns: true, mayHaveLanded: false, code: 'ENOTFOUND' });
    const timeout = describeTransportError(new DOMException('timed out', 'TimeoutError'));
    expect(timeout).toMatchObject({ status: 'timeout', mayHaveLanded: true });
  });
  it('counts outcomes and maps stop reasons to exit codes', () => {
    const c = noOutcomes();
    tallyOutcome(c, 'accepted', 3);
    tallyOutcome(c, 'not_sent');
    expect(c).toEqual({ accepted: 3, rejected: 0, failed: 0, unconfirmed: 0, notSent: 1 });
    expect(totalOutcomes(c)).toBe(4);
    expect(
      ['auth', 'unavailable', 'endpoint', 'input', 'interrupted'].map((r) => stopExitCode(r as never)),
    ).toEqual([3, 4, 2, 2, 130]);
  });
  it('writes counts with thousands separators and the right number', () => {
    expect(count(1, 'row')).toBe('1 row');
    expect(count(12_345, 'batch', 'batches')).toBe('12,345 batches');
    expect(rate(1, 1000, 'row')).toBe('1 row/s');
    expect(rate(25_000, 2000, 'row')).toBe('12,500 rows/s');
  });
});
