import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { UndiciSender } from '../../src/http/sender.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { seededRandom } from '../../src/sandbox/random.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem } from '../../src/shared/types.js';
import { uploadFeed } from '../../src/upload/engine.js';
import type { UploadSettings } from '../../src/upload/types.js';

/** A product node that passes the bundled standard-product schema; `price` may be made invalid. */
function product(sku: string, price: unknown = 1000): Record<string, unknown> {
  return {
    '@type': 'Product',
    sku,
    name: [{ '@value': `상품 ${sku}`, '@language': 'ko' }],
    category: [{ '@type': 'CategoryCode', name: [{ '@value': '신발', '@language': 'ko' }], codeValue: 'C1' }],
    brand: { '@type': 'Brand', '@id': 'B1', name: [{ '@value': '브랜드', '@language': 'ko' }] },
    description: [{ '@type': 'TextObject', text: '설명', inLanguage: 'ko' }],
    offers: {
      '@type': 'Offer',
      sku,
      gtin: '8801234567890',
      mpn: 'M1',
      price,
      priceCurrency: 'KRW',
      availability: 'InStock',
      availabilityStarts: '2026-01-01T00:00:00Z',
      availabilityEnds: '2027-01-01T00:00:00Z',
      image: [{ '@type': 'ImageObject', contentUrl: 'https://example.com/a.jpg' }],
    },
  };
}

async function* feed(n: number, badRow?: number): AsyncIterable<FeedItem> {
  for (let row = 1; row <= n; row++) {
    const sku = `P-${row}`;
    yield {
      file: 'cat.csv',
      row,
      line: row + 1,
      sku,
      valid: true,
      issues: [],
      payload: product(sku, row === badRow ? 'free' : 1000 + row),
    };
  }
}

const settings = (over: Partial<UploadSettings> = {}): UploadSettings => ({
  format: 'standard',
  path: '/collectors/products',
  batchSize: 10,
  maxBatchBytes: 5 * 1024 * 1024,
  concurrency: 3,
  retries: 10,
  backoff: { baseMs: 1, capMs: 5, retryAfterCapMs: 50 },
  type: 'create_product',
  agentName: 'test',
  dryRun: false,
  maxErrors: 20,
  graceMs: 500,
  ...over,
});

let sandbox: RunningSandbox | undefined;
let sender: UndiciSender | undefined;
afterEach(async () => {
  await sender?.close();
  await sandbox?.close();
  sender = sandbox = undefined;
});

function senderFor(sb: RunningSandbox, key = sb.apiKey) {
  sender = new UndiciSender({
    apiUrl: sb.url,
    connections: 3,
    timeoutMs: 5000,
    userAgent: 'genser/test',
    keyHeader: 'apiKey',
    key,
  });
  return sender;
}

async function get(url: string): Promise<Record<string, unknown>> {
  const res = await request(url);
  return (await res.body.json()) as Record<string, unknown>;
}

describe('upload engine against the sandbox', () => {
  it('lost responses (processed, answered 500) are retried with the same id and stored once', async () => {
    sandbox = await startSandbox({ quiet: true, faults: { lostRate: 0.4, failRate: 0.2, seed: 42 } });
    const result = await uploadFeed(feed(60), settings(), {
      poster: senderFor(sandbox),
      log: memoryLogger(),
    });
    expect(result.summary).toMatchObject({ rows: 60, accepted: 60, failed: 0, rejected: 0 });
    expect(result.summary.retries).toBeGreaterThan(0);
    const listed = (await get(`${sandbox.url}/_sandbox/products?limit=1000`)) as unknown as
      | { items?: { receivedCount: number }[] }
      | { receivedCount: number }[];
    const items = Array.isArray(listed) ? listed : (listed.items ?? []);
    expect(items).toHaveLength(60);
    for (const p of items) expect(p.receivedCount).toBe(1);
    expect((await sandbox.runBatch()).applied).toBe(60);
  });

  it('one bad product in a batch of 100: the sandbox stores 99; the bad one is reported with its row', async () => {
    sandbox = await startSandbox({ quiet: true });
    const result = await uploadFeed(feed(100, 58), settings({ batchSize: 100 }), {
      poster: senderFor(sandbox),
      log: memoryLogger(),
    });
    expect(result.summary).toMatchObject({ accepted: 99, rejected: 1 });
    expect(result.failures).toHaveLength(1);
    expect(result.failures[0]).toMatchObject({
      row: 58,
      line: 59,
      sku: 'P-58',
      status: 400,
      kind: 'rejected',
    });
    expect(result.failures[0].message).toContain('/@graph/57/offers/price');
    const missing = await request(`${sandbox.url}/_sandbox/products/P-58`);
    expect(missing.statusCode).toBe(404);
    await missing.body.dump();
    expect((await get(`${sandbox.url}/_sandbox/products/P-57`)).receivedCount).toBe(1);
    expect((await sandbox.runBatch()).applied).toBe(99);
  });

  it('answers lost with no retry left: the report says unconfirmed, and the sandbox does hold them', async () => {
    sandbox = await startSandbox({ quiet: true, faults: { lostRate: 1, seed: 1 } });
    const result = await uploadFeed(feed(10), settings({ retries: 0 }), {
      poster: senderFor(sandbox),
      log: memoryLogger(),
    });
    expect(result.summary).toMatchObject({ rows: 10, accepted: 0, failed: 0, unconfirmed: 10 });
    expect(result.batches[0]).toMatchObject({ status: 'unconfirmed', httpStatus: 500 });
    expect(result.failures[0].message).toBe('gave up after 0 retries: HTTP 500; it may have landed');
    expect((await sandbox.runBatch()).applied).toBe(10);
  });

  it('stored, answer lost (500), then only 503s: unconfirmed in the report, held by the sandbox', async () => {
    // A seed whose draws give: request 1 not failed, then lost (lostRate 1); requests 2 and 3
    // failed (503). Faults draw failRate first, then lostRate when the request did not fail.
    const failRate = 0.9;
    const seed = Array.from({ length: 10_000 }, (_, i) => i + 1).find((candidate) => {
      const r = seededRandom(candidate);
      return r() >= failRate && r() < 1 && r() < failRate && r() < failRate;
    });
    expect(seed).toBeDefined();
    sandbox = await startSandbox({ quiet: true, faults: { lostRate: 1, failRate, failStatus: 503, seed } });
    const result = await uploadFeed(feed(10), settings({ retries: 2, concurrency: 1 }), {
      poster: senderFor(sandbox),
      log: memoryLogger(),
    });
    expect(result.summary).toMatchObject({ accepted: 0, failed: 0, unconfirmed: 10, requests: 3 });
    expect(result.failures[0].message).toBe(
      'gave up after 2 retries: HTTP 503; it may have landed (try 1: HTTP 500)',
    );
    expect(result.stop?.reason).toBe('unavailable');
    expect((await sandbox.runBatch()).applied).toBe(10);
  });

  it('a wrong key stops the run with the auth reason', async () => {
    sandbox = await startSandbox({ quiet: true });
    const result = await uploadFeed(feed(50), settings({ concurrency: 1 }), {
      poster: senderFor(sandbox, 'wrong-key-123'),
      log: memoryLogger(),
    });
    expect(result.stop?.reason).toBe('auth');
    expect(result.summary.accepted).toBe(0);
    expect(result.batches.filter((b) => b.requests > 0)).toHaveLength(1);
  });
});
