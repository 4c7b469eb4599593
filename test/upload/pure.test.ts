import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, isRetryableStatus, parseRetryAfter, retryDelay } from '../../src/http/retry-policy.js';
import { buildBody } from '../../src/payload/envelope.js';
import { framingFor } from '../../src/payload/framing.js';
import { Batcher, type PendingBatch } from '../../src/upload/batcher.js';
import { maxDepthFor, planRejection } from '../../src/upload/bisect.js';
import { isLegacyFail, readRejection } from '../../src/upload/response.js';

const backoff = { baseMs: 100, capMs: 1000, retryAfterCapMs: 5000 };

describe('retry policy', () => {
  it('retries network-ish statuses and not client errors', () => {
    for (const s of [408, 429, 500, 502, 503, 504]) expect(isRetryableStatus(s)).toBe(true);
    for (const s of [200, 400, 401, 403, 404, 413, 422, 501]) expect(isRetryableStatus(s)).toBe(false);
  });
  it('backs off with full jitter under a doubling, capped ceiling', () => {
    expect(backoffDelay(0, backoff, () => 0.999)).toBe(99);
    expect(backoffDelay(2, backoff, () => 0.5)).toBe(200);
    expect(backoffDelay(10, backoff, () => 0.999)).toBe(999);
    expect(backoffDelay(3, backoff, () => 0)).toBe(0);
  });
  it('reads Retry-After as seconds or an HTTP date, capped', () => {
    const now = Date.parse('2026-11-23T10:00:00Z');
    expect(parseRetryAfter('2', now, 5000)).toBe(2000);
    expect(parseRetryAfter('60', now, 5000)).toBe(5000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:03 GMT', now, 5000)).toBe(3000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now, 5000)).toBe(0);
    expect(parseRetryAfter('soon', now, 5000)).toBeUndefined();
    expect(parseRetryAfter(undefined, now, 5000)).toBeUndefined();
    expect(retryDelay(0, '1', backoff, now, () => 0.5)).toBe(1000);
    expect(retryDelay(0, undefined, backoff, now, () => 0.5)).toBe(50);
  });
});

describe('batcher', () => {
  const collect = (maxCount: number, maxBytes: number, framingBytes = 2) => {
    const out: PendingBatch[] = [];
    const b = new Batcher({ maxCount, maxBytes, framingBytes }, (x) => out.push(x));
    return { b, out };
  };
  const ref = (row: number) => ({ file: 'f.csv', row, line: row + 1, sku: `S${row}` });

  it('fills by count', () => {
    const { b, out } = collect(3, 1e9);
    for (let i = 1; i <= 7; i++) b.add(Buffer.from(`{"i":${i}}`), ref(i));
    b.finish();
    expect(out.map((x) => x.rows.map((r) => r.row))).toEqual([[1, 2, 3], [4, 5, 6], [7]]);
    expect(out.map((x) => x.index)).toEqual([1, 2, 3]);
  });
  it('fills by bytes, framing and commas counted, whichever comes first', () => {
    // framing 2 + 10 + 1 + 10 = 23 fits 25; a third would be 34.
    const { b, out } = collect(100, 25);
    const part = Buffer.from('"abcdefgh"');
    for (let i = 1; i <= 5; i++) b.add(part, ref(i));
    b.finish();
    expect(out.map((x) => x.rows.length)).toEqual([2, 2, 1]);
    for (const x of out) expect(2 + x.bytes).toBeLessThanOrEqual(25);
    expect(buildBody({ head: '[', tail: ']' }, out[0].parts).length).toBe(2 + out[0].bytes);
  });
  it('sends a product bigger than the limit alone', () => {
    const { b, out } = collect(100, 30);
    b.add(Buffer.from('"a"'), ref(1));
    b.add(Buffer.from('x'.repeat(50)), ref(2));
    b.add(Buffer.from('"b"'), ref(3));
    b.finish();
    expect(out.map((x) => x.rows.map((r) => r.row))).toEqual([[1], [2], [3]]);
  });
});

describe('envelope framing', () => {
  it('wraps pre-serialized products into a valid standard envelope', () => {
    const f = framingFor('11111111-2222-4333-8444-555555555555', {
      format: 'standard',
      type: 'update_product',
      agentName: 'shop',
    });
    const body = JSON.parse(
      buildBody(f, [Buffer.from('{"sku":"A"}'), Buffer.from('{"sku":"상품"}')]).toString(),
    );
    expect(body).toEqual({
      '@context': 'https://schema.org/',
      specversion: '1.0',
      id: '11111111-2222-4333-8444-555555555555',
      type: 'update_product',
      agent: { '@type': 'Organization', name: 'shop' },
      '@graph': [{ sku: 'A' }, { sku: '상품' }],
    });
  });
  it('legacy is a plain array', () => {
    const f = framingFor('x', { format: 'legacy', type: 'create_product', agentName: 'a' });
    expect(JSON.parse(buildBody(f, [Buffer.from('1'), Buffer.from('2')]).toString())).toEqual([1, 2]);
    expect(buildBody(f, []).toString()).toBe('[]');
  });
});

describe('bisection planner', () => {
  const skus = (n: number) => Array.from({ length: n }, (_, i) => `S${i}`);
  it('splits in halves when the server names nobody', () => {
    const plan = planRejection({ skus: skus(5), errors: [], message: 'bad', depth: 0, maxDepth: 5 });
    expect(plan).toEqual({
      rejected: [],
      resend: [
        [0, 1, 2],
        [3, 4],
      ],
    });
  });
  it('rejects a lone product with the server message', () => {
    const plan = planRejection({
      skus: ['A'],
      errors: [{ message: 'price must be a number' }],
      message: 'Bad Request',
      depth: 3,
      maxDepth: 5,
    });
    expect(plan).toEqual({ rejected: [{ index: 0, message: 'price must be a number' }], resend: [] });
  });
  it('trusts named indices whose sku agrees, re-sends the rest at once', () => {
    const plan = planRejection({
      skus: skus(4),
      errors: [{ index: 2, sku: 'S2', pointer: '/@graph/2/offers/price', message: 'must be number' }],
      message: 'Bad Request',
      depth: 0,
      maxDepth: 5,
    });
    expect(plan.rejected).toEqual([{ index: 2, message: '/@graph/2/offers/price: must be number' }]);
    expect(plan.resend).toEqual([[0, 1, 3]]);
  });
  it('ignores indices out of range or with another sku, and bisects instead', () => {
    const plan = planRejection({
      skus: skus(4),
      errors: [
        { index: 9, message: 'x' },
        { index: 1, sku: 'OTHER', message: 'y' },
      ],
      message: 'Bad Request',
      depth: 0,
      maxDepth: 5,
    });
    expect(plan).toEqual({
      rejected: [],
      resend: [
        [0, 1],
        [2, 3],
      ],
    });
  });
  it('blames nobody for a 413 until a product stands alone', () => {
    const plan = planRejection({
      skus: skus(2),
      errors: [{ index: 0, message: 'x' }],
      message: 'too large',
      depth: 0,
      maxDepth: 5,
      tooLarge: true,
    });
    expect(plan.resend).toEqual([[0], [1]]);
  });
  it('stops splitting at the depth limit and rejects what is left', () => {
    const plan = planRejection({ skus: skus(3), errors: [], message: 'bad', depth: 5, maxDepth: 5 });
    expect(plan.rejected.map((r) => r.index)).toEqual([0, 1, 2]);
    expect(plan.resend).toEqual([]);
    expect(maxDepthFor(500)).toBe(11);
  });
});

describe('server answers', () => {
  it('reads problem+json errors', () => {
    const v = readRejection(
      400,
      JSON.stringify({
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: '1 product invalid',
        errors: [{ index: 3, sku: 'X', pointer: '/@graph/3/name', message: 'required' }],
      }),
    );
    expect(v.message).toBe('Bad Request: 1 product invalid');
    expect(v.errors).toEqual([{ index: 3, sku: 'X', pointer: '/@graph/3/name', message: 'required' }]);
  });
  it('reads legacy FAIL and plain text', () => {
    const fail = JSON.stringify({
      httpStatus: { code: '200', reasonPhrase: 'OK' },
      processCode: 'FAIL',
      processValue: { message: 'code is required' },
    });
    expect(isLegacyFail(fail)).toBe(true);
    expect(isLegacyFail(JSON.stringify({ processCode: 'OK' }))).toBe(false);
    expect(isLegacyFail('')).toBe(false);
    expect(readRejection(200, fail).message).toBe('processCode FAIL: code is required');
    // The HTTP reason phrase ("OK" on a 200) is not the failure's reason.
    const bare = { httpStatus: { code: '200', reasonPhrase: 'OK' }, processCode: 'FAIL', processValue: {} };
    expect(readRejection(200, JSON.stringify(bare)).message).toBe(
      'processCode FAIL (the answer gives no reason)',
    );
    expect(readRejection(200, JSON.stringify({ ...bare, processValue: 'price missing' })).message).toBe(
      'processCode FAIL: price missing',
    );
    expect(
      readRejection(
        200,
        JSON.stringify({ ...bare, processValue: { errors: [{ message: 'name is required' }] } }),
      ).message,
    ).toBe('processCode FAIL: name is required');
    expect(readRejection(400, 'nope\nreally').message).toBe('nope really');
    expect(readRejection(400, '').message).toBe('HTTP 400');
  });
});

describe('batcher properties', () => {
  it('every product lands in exactly one batch, in order, within both limits unless alone', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 60 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 10, max: 300 }),
        (sizes, maxCount, maxBytes) => {
          const out: PendingBatch[] = [];
          const b = new Batcher({ maxCount, maxBytes, framingBytes: 2 }, (x) => out.push(x));
          for (const [i, size] of sizes.entries())
            b.add(Buffer.alloc(size, 120), { file: 'f', row: i + 1, line: i + 2 });
          b.finish();
          expect(out.flatMap((x) => x.rows.map((r) => r.row))).toEqual(sizes.map((_, i) => i + 1));
          for (const x of out) {
            expect(x.rows.length).toBeGreaterThan(0);
            expect(x.rows.length).toBeLessThanOrEqual(maxCount);
            expect(x.bytes).toBe(x.parts.reduce((n, p) => n + p.length, 0) + x.parts.length - 1);
            expect(buildBody({ head: '[', tail: ']' }, x.parts).length).toBe(2 + x.bytes);
            if (x.rows.length > 1) expect(2 + x.bytes).toBeLessThanOrEqual(maxBytes);
          }
        },
      ),
    );
  });
});
