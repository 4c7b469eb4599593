import { afterEach, describe, expect, it } from 'vitest';
import { type Poster, UndiciSender } from '../../src/http/sender.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem } from '../../src/shared/types.js';
import { type UploadDeps, uploadFeed } from '../../src/upload/engine.js';
import type { UploadSettings } from '../../src/upload/types.js';
import {
  envelopeId,
  json,
  problem,
  productsOf,
  type ScriptedServer,
  scriptedServer,
  sleepMs,
} from './servers.js';

const KEY = 'test-key-0123456789';

function settings(over: Partial<UploadSettings> = {}): UploadSettings {
  return {
    format: 'standard',
    path: '/collectors/products',
    batchSize: 10,
    maxBatchBytes: 5 * 1024 * 1024,
    concurrency: 2,
    retries: 5,
    backoff: { baseMs: 10, capMs: 50, retryAfterCapMs: 10_000 },
    type: 'create_product',
    agentName: 'test-shop',
    dryRun: false,
    maxErrors: 20,
    graceMs: 500,
    ...over,
  };
}

/** Rows 1..n; row r sits on line r + 1 (a CSV header is line 1). */
async function* feed(n: number, invalidRows: ReadonlySet<number> = new Set()): AsyncIterable<FeedItem> {
  for (let row = 1; row <= n; row++) {
    const sku = `SKU-${row}`;
    if (invalidRows.has(row)) {
      yield {
        file: 'cat.csv',
        row,
        line: row + 1,
        sku,
        valid: false,
        issues: [
          {
            severity: 'error',
            code: 'type',
            file: 'cat.csv',
            row,
            line: row + 1,
            sku,
            field: 'offers.price',
            message: 'price is not a number',
          },
        ],
      };
    } else {
      yield {
        file: 'cat.csv',
        row,
        line: row + 1,
        sku,
        valid: true,
        issues: [],
        payload: { '@type': 'Product', sku, name: `상품 ${row}`, offers: { price: row } },
      };
    }
  }
}

let server: ScriptedServer | undefined;
let sender: UndiciSender | undefined;
afterEach(async () => {
  await sender?.close();
  await server?.close();
  sender = undefined;
  server = undefined;
});

function deps(
  url: string,
  over: Partial<UploadDeps> = {},
  legacy = false,
): UploadDeps & { waits: number[]; log: ReturnType<typeof memoryLogger> } {
  sender = new UndiciSender({
    apiUrl: url,
    connections: 4,
    timeoutMs: 2000,
    userAgent: 'genser/test',
    keyHeader: legacy ? 'x-api-key' : 'apiKey',
    key: KEY,
  });
  const waits: number[] = [];
  return {
    poster: sender,
    log: memoryLogger(),
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    waits,
    ...over,
  } as UploadDeps & { waits: number[]; log: ReturnType<typeof memoryLogger> };
}

describe('upload engine against real servers on 127.0.0.1', () => {
  it('sends the standard envelope with the headers of the contract', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const d = deps(server.url);
    const result = await uploadFeed(feed(25), settings(), d);
    expect(result.summary).toMatchObject({
      rows: 25,
      sent: 25,
      accepted: 25,
      rejected: 0,
      failed: 0,
      batches: 3,
    });
    expect(server.requests).toHaveLength(3);
    const r = server.requests[0];
    expect(r.path).toBe('/collectors/products');
    expect(r.headers.apikey).toBe(KEY);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('genser/test');
    const body = JSON.parse(r.body);
    expect(body).toMatchObject({
      type: 'create_product',
      agent: { '@type': 'Organization', name: 'test-shop' },
    });
    expect(body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(r.headers['idempotency-key']).toBe(body.id);
    const ids = new Set(server.requests.map((q) => envelopeId(q.body)));
    expect(ids.size).toBe(3);
    const skus = server.requests.flatMap((q) => productsOf(q.body).map((p) => p.sku));
    expect(skus.sort()).toEqual(Array.from({ length: 25 }, (_, i) => `SKU-${i + 1}`).sort());
    expect(result.batches.map((b) => [b.firstRow, b.lastRow, b.status])).toEqual([
      [1, 10, 'accepted'],
      [11, 20, 'accepted'],
      [21, 25, 'accepted'],
    ]);
  });

  it('503, 503, 200 delivers once, re-sending the identical body with the same envelope id', async () => {
    server = await scriptedServer((req, res) =>
      req.n <= 2 ? problem(res, 503, 'busy') : json(res, 200, {}),
    );
    const d = deps(server.url);
    const result = await uploadFeed(feed(5), settings(), d);
    expect(result.summary).toMatchObject({ accepted: 5, retries: 2, failed: 0 });
    expect(server.requests).toHaveLength(3);
    expect(new Set(server.requests.map((r) => r.body)).size).toBe(1);
    expect(new Set(server.requests.map((r) => r.headers['idempotency-key'])).size).toBe(1);
    expect(result.batches[0]).toMatchObject({
      attempts: 3,
      status: 'accepted',
      requestId: envelopeId(server.requests[0].body),
    });
    // Full jitter with random 0.5: 10 * 2^0 * 0.5, 10 * 2^1 * 0.5.
    expect(d.waits).toEqual([5, 10]);
    expect(d.log.lines.filter((l) => l.includes('retry'))).toEqual([
      'warning: batch 1 (rows 1-5): HTTP 503, retry 1/5 in 0.0 s',
      'warning: batch 1 (rows 1-5): HTTP 503, retry 2/5 in 0.0 s',
    ]);
  });

  it('honours Retry-After in seconds and as an HTTP date', async () => {
    server = await scriptedServer((req, res) => {
      if (req.n === 1) return json(res, 429, {}, { 'retry-after': '3' });
      if (req.n === 2)
        return json(res, 503, {}, { 'retry-after': new Date(Date.now() + 7000).toUTCString() });
      json(res, 200, {});
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(3), settings(), d);
    expect(result.summary.accepted).toBe(3);
    expect(d.waits[0]).toBe(3000);
    expect(d.waits[1]).toBeGreaterThan(5000);
    expect(d.waits[1]).toBeLessThanOrEqual(7000);
  });

  it('retries after the connection is reset mid-request', async () => {
    server = await scriptedServer((req, res) => {
      if (req.n === 1) {
        res.socket?.destroy();
        return;
      }
      json(res, 200, {});
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(4), settings(), d);
    expect(result.summary).toMatchObject({ accepted: 4, retries: 1, failed: 0 });
    expect(d.log.lines.some((l) => /batch 1 \(rows 1-4\): .*retry 1\/5/.test(l))).toBe(true);
    expect(server.requests[0].body).toBe(server.requests[1].body);
  });

  it('a response lost after processing is not applied twice (same envelope id on the retry)', async () => {
    const seen = new Set<string>();
    const applied: unknown[] = [];
    server = await scriptedServer((req, res) => {
      const id = envelopeId(req.body);
      if (!seen.has(id)) {
        seen.add(id);
        applied.push(...productsOf(req.body));
      }
      // The first answer is lost: processed, then a 500.
      if (req.n === 1) return problem(res, 500, 'lost');
      json(res, 200, {});
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(8), settings(), d);
    expect(server.requests).toHaveLength(2);
    expect(applied).toHaveLength(8);
    expect(result.summary).toMatchObject({ accepted: 8, retries: 1 });
  });

  for (const named of [true, false]) {
    it(`one bad product in a batch of 100: 99 delivered, the one reported with row, line and sku (${named ? 'server names the index' : 'bisection'})`, async () => {
      const delivered = new Set<string>();
      server = await scriptedServer((req, res) => {
        const products = productsOf(req.body);
        const bad = products.findIndex((p) => p.sku === 'SKU-37');
        if (bad >= 0)
          return problem(
            res,
            400,
            'invalid product',
            named
              ? [
                  {
                    index: bad,
                    sku: 'SKU-37',
                    pointer: `/@graph/${bad}/offers/price`,
                    message: 'price must be positive',
                  },
                ]
              : [],
          );
        for (const p of products) delivered.add(String(p.sku));
        json(res, 200, {});
      });
      const d = deps(server.url);
      const result = await uploadFeed(feed(100), settings({ batchSize: 100 }), d);
      expect(delivered.size).toBe(99);
      expect(delivered.has('SKU-37')).toBe(false);
      expect(result.summary).toMatchObject({ rows: 100, sent: 100, accepted: 99, rejected: 1, failed: 0 });
      expect(result.failures).toEqual([
        {
          kind: 'rejected',
          file: 'cat.csv',
          row: 37,
          line: 38,
          sku: 'SKU-37',
          status: 400,
          message: named ? '/@graph/36/offers/price: price must be positive' : 'Bad Request: invalid product',
          batch: 1,
        },
      ]);
      expect(result.batches[0].status).toBe('partial');
      expect(d.log.lines).toContain(
        `warning: cat.csv row 37 (line 38, sku SKU-37): rejected (HTTP 400): ${result.failures[0].message}`,
      );
      // Named: 1 + 1 re-send. Bisection: about 2 * log2(100) requests, far fewer than 100.
      if (named) expect(server.requests).toHaveLength(2);
      else expect(server.requests.length).toBeLessThan(20);
      // Every re-sent part is its own request with its own id.
      const ids = server.requests.map((r) => envelopeId(r.body));
      expect(new Set(ids).size).toBe(ids.length);
    });
  }

  it('legacy: a 200 with processCode FAIL is isolated by bisection; x-api-key and the array body', async () => {
    const delivered: unknown[] = [];
    server = await scriptedServer((req, res) => {
      const products = productsOf(req.body);
      if (products.some((p) => p.sku === 'SKU-6'))
        return json(res, 200, {
          httpStatus: { code: '200', reasonPhrase: 'OK' },
          processCode: 'FAIL',
          processValue: { message: 'name is required' },
        });
      delivered.push(...products);
      json(res, 200, {
        httpStatus: { code: '200', reasonPhrase: 'OK' },
        processCode: 'OK',
        processValue: {},
      });
    });
    const d = deps(server.url, {}, true);
    const result = await uploadFeed(feed(8), settings({ format: 'legacy', path: '/searches/products' }), d);
    expect(server.requests[0].path).toBe('/searches/products');
    expect(server.requests[0].headers['x-api-key']).toBe(KEY);
    expect(server.requests[0].headers.apikey).toBeUndefined();
    expect(Array.isArray(JSON.parse(server.requests[0].body))).toBe(true);
    expect(delivered).toHaveLength(7);
    expect(result.failures).toMatchObject([
      { kind: 'rejected', row: 6, sku: 'SKU-6', status: 200, message: 'processCode FAIL: name is required' },
    ]);
  });

  it('401 stops the sending at once: no new batches; the rest is read, unsent, and every row accounted for', async () => {
    server = await scriptedServer(async (_req, res) => {
      await sleepMs(20);
      problem(res, 401, 'bad key');
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(200), settings({ concurrency: 1, batchSize: 10 }), d);
    expect(server.requests).toHaveLength(1);
    expect(result.stop?.reason).toBe('auth');
    expect(result.stop?.message).toContain('HTTP 401');
    expect(result.summary.accepted).toBe(0);
    // Every row was read: the batch the service refused failed; every other row is not sent.
    expect(result.summary.rows).toBe(200);
    expect(result.summary.failed).toBe(10);
    expect(result.summary.notSent).toBe(190);
    expect(result.readToEnd).toBe(true);
    expect(result.lastRow).toBe(200);
    expect(result.failures.filter((f) => f.kind === 'failed').map((f) => f.row)).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    // Rows batched before the stop are listed as not sent, each once; rows read after it are counted.
    const rows = result.failures.map((f) => f.row);
    expect(new Set(rows).size).toBe(rows.length);
  });

  it('Ctrl-C after a stop ends the reading too', async () => {
    server = await scriptedServer((_req, res) => problem(res, 401, 'bad key'));
    const interrupt = new AbortController();
    const d = deps(server.url, { interrupt: interrupt.signal });
    async function* rows() {
      let i = 0;
      for await (const row of feed(200)) {
        if (++i === 50) interrupt.abort();
        yield row;
      }
    }
    const result = await uploadFeed(rows(), settings({ concurrency: 1, batchSize: 10 }), d);
    expect(result.stop?.reason).toBe('auth');
    expect(result.summary.rows).toBe(50);
    expect(result.readToEnd).toBe(false);
    expect(result.summary.failed + result.summary.notSent).toBe(50);
  });

  it('never has more requests in flight than --concurrency, and overlaps them up to it', async () => {
    server = await scriptedServer(async (_req, res) => {
      await sleepMs(15);
      json(res, 200, {});
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(300), settings({ concurrency: 3, batchSize: 10 }), d);
    expect(result.summary.accepted).toBe(300);
    expect(server.requests).toHaveLength(30);
    expect(server.maxInFlight).toBe(3);
  });

  it('dry run sends nothing and says what it would send', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const d = deps(server.url);
    const result = await uploadFeed(feed(25, new Set([4])), settings({ dryRun: true }), d);
    expect(server.requests).toHaveLength(0);
    expect(result.summary).toMatchObject({
      rows: 25,
      invalid: 1,
      sent: 0,
      accepted: 0,
      batches: 3,
      dryRun: true,
    });
    expect(result.summary.bytes).toBeGreaterThan(24 * 50);
    expect(result.batches.every((b) => b.status === 'dry_run')).toBe(true);
  });

  it('retries exhausted: stops, keeps what was delivered, names the rows not delivered', async () => {
    server = await scriptedServer((req, res) => {
      const products = productsOf(req.body);
      if (products[0].sku === 'SKU-1') return json(res, 200, {});
      problem(res, 503, 'unavailable');
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(30), settings({ concurrency: 1, batchSize: 10, retries: 2 }), d);
    expect(result.stop?.reason).toBe('unavailable');
    expect(result.summary.accepted).toBe(10);
    expect(result.summary.retries).toBe(2);
    expect(result.batches[0].status).toBe('accepted');
    // 503 every time: the service said it did not take them (failed, not unconfirmed).
    expect(result.batches[1]).toMatchObject({ status: 'failed', attempts: 3, httpStatus: 503 });
    const failedRows = result.failures.filter((f) => f.kind === 'failed').map((f) => f.row);
    expect(failedRows).toEqual([11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
    expect(result.failures[0].message).toBe('gave up after 2 retries: HTTP 503');
    expect(result.summary.failed).toBe(10);
    expect(result.summary.unconfirmed).toBe(0);
    expect(result.summary.accepted + result.summary.failed + result.summary.notSent).toBe(
      result.summary.rows,
    );
  });

  it('a request that gets no answer within the timeout is retried, then reported as timeout', async () => {
    server = await scriptedServer(() => {
      // never answers
    });
    sender = new UndiciSender({
      apiUrl: server.url,
      connections: 2,
      timeoutMs: 150,
      userAgent: 'genser/test',
      keyHeader: 'apiKey',
      key: KEY,
    });
    const result = await uploadFeed(feed(2), settings({ retries: 1 }), {
      poster: sender,
      log: memoryLogger(),
      sleep: async () => {},
    });
    expect(server.requests).toHaveLength(2);
    // The body was written and may have been processed; only the answer is missing.
    expect(result.failures[0]).toMatchObject({ kind: 'unconfirmed', status: 'timeout', row: 1 });
    expect(result.failures[0].message).toBe(
      'gave up after 1 retry: no answer within --timeout; it may have landed',
    );
    expect(result.batches[0].status).toBe('unconfirmed');
    expect(result.stop?.reason).toBe('unavailable');
  });

  it('invalid rows are not sent, are counted and keep their issues; valid rows go', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const d = deps(server.url);
    const result = await uploadFeed(feed(12, new Set([2, 5])), settings(), d);
    const sent = server.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku));
    expect(sent).toHaveLength(10);
    expect(sent).not.toContain('SKU-2');
    expect(result.summary).toMatchObject({ rows: 12, invalid: 2, accepted: 10 });
    expect(result.issues.map((i) => i.row)).toEqual([2, 5]);
  });

  it('file-level items (row 0) are not rows; their errors are kept', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    async function* withFileIssue(): AsyncIterable<FeedItem> {
      yield {
        file: 'cat.csv',
        row: 0,
        line: 1,
        valid: false,
        issues: [
          {
            severity: 'error',
            code: 'duplicate_header',
            file: 'cat.csv',
            line: 1,
            message: 'duplicate column "sku"',
          },
        ],
      };
      yield* feed(3);
    }
    const result = await uploadFeed(withFileIssue(), settings(), deps(server.url));
    expect(result.summary).toMatchObject({ rows: 3, invalid: 0, fileErrors: 1, accepted: 3 });
    expect(result.issues[0].code).toBe('duplicate_header');
  });

  it('Ctrl-C: no new batches after the interrupt, in-flight ones finish', async () => {
    const interrupt = new AbortController();
    server = await scriptedServer(async (req, res) => {
      if (req.n === 2) interrupt.abort();
      await sleepMs(30);
      json(res, 200, {});
    });
    const d = deps(server.url, { interrupt: interrupt.signal });
    const result = await uploadFeed(feed(100), settings({ concurrency: 1, batchSize: 10 }), d);
    expect(result.stop?.reason).toBe('interrupted');
    expect(server.requests).toHaveLength(2);
    expect(result.summary.accepted).toBe(20);
    expect(result.summary.failed).toBe(0);
    expect(result.summary.notSent).toBe(result.summary.rows - 20);
  });
});

describe('what became of each row: accepted, rejected, failed, unconfirmed, not sent', () => {
  it('a batch stored then answered 500, then only 503s, is unconfirmed (it landed), not failed', async () => {
    const stored: string[] = [];
    server = await scriptedServer((req, res) => {
      if (req.n === 1) {
        stored.push(...productsOf(req.body).map((p) => String(p.sku)));
        return problem(res, 500, 'stored, but the answer was lost');
      }
      problem(res, 503, 'busy');
    });
    const d = deps(server.url);
    const result = await uploadFeed(feed(4), settings({ retries: 2 }), d);
    expect(stored).toEqual(['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4']);
    expect(result.summary).toMatchObject({
      rows: 4,
      sent: 4,
      accepted: 0,
      failed: 0,
      unconfirmed: 4,
      notSent: 0,
    });
    expect(result.batches[0]).toMatchObject({ status: 'unconfirmed', attempts: 3, httpStatus: 503 });
    expect(result.failures[0]).toMatchObject({
      kind: 'unconfirmed',
      row: 1,
      status: 503,
      message: 'gave up after 2 retries: HTTP 503; it may have landed (try 1: HTTP 500)',
    });
    expect(result.stop?.reason).toBe('unavailable');
  });

  it('a batch in flight when the run stops, whose tries met network errors, is unconfirmed, not "not sent"', async () => {
    let batchOneTries = 0;
    server = await scriptedServer(async (req, res) => {
      if (productsOf(req.body)[0].sku === 'SKU-1') {
        batchOneTries++;
        res.socket?.destroy();
        return;
      }
      await sleepMs(60);
      problem(res, 401, 'bad key');
    });
    const d = deps(server.url, {
      sleep: (ms, signal) => sleepMs(Math.min(ms, 20)).then(() => signal.throwIfAborted()),
    });
    const result = await uploadFeed(feed(20), settings({ concurrency: 2, retries: 50 }), d);
    expect(result.stop?.reason).toBe('auth');
    expect(batchOneTries).toBeGreaterThanOrEqual(2);
    const kinds = new Map(result.failures.map((f) => [f.row, f]));
    expect(kinds.get(1)).toMatchObject({ kind: 'unconfirmed', status: 'network' });
    expect(kinds.get(1)?.message).toMatch(/^not retried, the run stopped: .*; it may have landed$/);
    expect(kinds.get(11)).toMatchObject({ kind: 'failed', status: 401 });
    expect(result.batches.map((b) => b.status)).toEqual(['unconfirmed', 'failed']);
    expect(result.summary).toMatchObject({ unconfirmed: 10, failed: 10, notSent: 0, sent: 20 });
  });

  it('a connection refused every time never reached the service: not sent, not unconfirmed', async () => {
    const closed = await scriptedServer((_req, res) => json(res, 200, {}));
    const url = closed.url;
    await closed.close();
    const d = deps(url);
    const result = await uploadFeed(feed(3), settings({ retries: 1 }), d);
    expect(result.failures[0]).toMatchObject({ kind: 'not_sent', status: 'network' });
    expect(result.failures[0].message).toContain('ECONNREFUSED');
    expect(result.summary).toMatchObject({ sent: 0, notSent: 3, failed: 0, unconfirmed: 0 });
    expect(result.stop?.reason).toBe('unavailable');
  });

  for (const [what, type, body, said] of [
    [
      'an HTML page',
      'text/html; charset=utf-8',
      '<!DOCTYPE html><html><body>Shop</body></html>',
      'an HTML page',
    ],
    [
      'plain text',
      'text/plain',
      'Welcome to nginx!',
      'text that is not JSON (text/plain, "Welcome to nginx!")',
    ],
  ] as const) {
    it(`a 200 with ${what} is not the service: the run stops (endpoint), nothing counts as accepted`, async () => {
      server = await scriptedServer((_req, res) => {
        res.writeHead(200, { 'content-type': type });
        res.end(body);
      });
      const d = deps(server.url);
      const result = await uploadFeed(feed(25), settings({ concurrency: 1 }), d);
      expect(server.requests).toHaveLength(1);
      expect(result.summary.accepted).toBe(0);
      expect(result.stop).toMatchObject({
        reason: 'endpoint',
        message: `${server.url}/collectors/products answered HTTP 200 with ${said}, not the service's answer: the URL is probably wrong`,
      });
      expect(result.failures[0]).toMatchObject({ kind: 'failed', status: 200 });
      expect(result.summary.failed + result.summary.notSent).toBe(result.summary.rows);
    });
  }

  it('a host name that does not resolve is a configuration error at once: no retries', async () => {
    const d = deps('http://no-such-host.invalid');
    const result = await uploadFeed(feed(3), settings({ retries: 5 }), d);
    expect(result.stop?.reason).toBe('endpoint');
    expect(result.stop?.message).toMatch(
      /^the host name no-such-host\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\): no request reached a server$/,
    );
    expect(result.summary).toMatchObject({ requests: 1, retries: 0, sent: 0, notSent: 3, unconfirmed: 0 });
    expect(d.waits).toEqual([]);
  });

  it('a failed lookup after the host has answered is a network error, retried', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const good = new UndiciSender({
      apiUrl: server.url,
      connections: 1,
      timeoutMs: 2000,
      userAgent: 't',
      keyHeader: 'apiKey',
      key: KEY,
    });
    const gone = new UndiciSender({
      apiUrl: 'http://no-such-host.invalid',
      connections: 1,
      timeoutMs: 2000,
      userAgent: 't',
      keyHeader: 'apiKey',
      key: KEY,
    });
    // The first request reaches the real server; later ones go to a name that no longer resolves.
    let calls = 0;
    const poster: Poster = {
      url: (path) => good.url(path),
      post: (...args) => (calls++ === 0 ? good : gone).post(...args),
      close: async () => {
        await good.close();
        await gone.close();
      },
    };
    const d = deps(server.url, { poster });
    const result = await uploadFeed(feed(20), settings({ concurrency: 1, retries: 2 }), d);
    await poster.close();
    expect(result.summary).toMatchObject({ accepted: 10, sent: 10, notSent: 10, retries: 2 });
    expect(result.stop?.reason).toBe('unavailable');
    expect(result.failures[0]).toMatchObject({ row: 11, kind: 'not_sent', status: 'network' });
  });
});
