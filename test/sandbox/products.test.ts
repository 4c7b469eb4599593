import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import type { IngestOptions } from '../../src/sandbox/ingest-pool.js';
import { workerFromSource } from '../helpers/workers.js';
import {
  API_KEY,
  envelope,
  get,
  legacyProduct,
  postLegacy,
  postStandard,
  product,
  send,
  start,
} from './helpers.js';

// Every test runs twice: bodies processed on the sandbox's thread, and all of them on the ingest
// worker of the build (large bodies go there in real use; `npm test` builds first).
const workerUrl = await workerFromSource('sandbox/ingest-worker.ts');
const MODES: [string, IngestOptions | undefined][] = [
  ['in-thread', { minBytes: Number.POSITIVE_INFINITY }],
  ['on the ingest worker', { minBytes: 0, url: workerUrl }],
];

describe.each(MODES)('products %s', (_mode, ingest) => {
  if (ingest?.url)
    it('has the built worker', () => expect(existsSync(ingest.url!), 'run `npm run build` first').toBe(true));

  let sb: RunningSandbox & { lines: string[] };
  beforeAll(async () => {
    sb = await start({ maxBodyBytes: 1024 * 1024, ingest });
  });
  afterAll(async () => {
    await sb.close();
  });
  beforeEach(async () => {
    await send(sb.url, '/_sandbox/reset', {});
  });

  describe('standard product API', () => {
    it('accepts products (200), stores them pending with receivedCount', async () => {
      const res = await postStandard(sb.url, envelope([product('A-1'), product('A-2')]));
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ accepted: 2, status: 'pending' });
      expect(Date.parse(res.json().appliesAt)).toBeGreaterThan(Date.now());
      await postStandard(sb.url, envelope([product('A-1', { name: 'renamed' })]));
      const a1 = await get(sb.url, '/_sandbox/products/A-1');
      expect(a1).toMatchObject({
        sku: 'A-1',
        format: 'standard',
        status: 'pending',
        receivedCount: 2,
        applied: null,
      });
      expect(a1.data.name).toBe('renamed');
      const list = await get(sb.url, '/_sandbox/products?status=pending');
      expect(list.total).toBe(2);
      expect(sb.lines.some((l) => /^POST \/collectors\/products 200 \d+ms items=2$/.test(l))).toBe(true);
    });

    it('answers 400 problem+json with index, sku and pointer per failing product, storing nothing', async () => {
      const bad1 = product('B-1');
      delete bad1.name;
      const bad3 = product('B-3', { offers: { ...(product('B-3').offers as object), price: 'free' } });
      const res = await postStandard(sb.url, envelope([product('B-0'), bad1, product('B-2'), bad3]));
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = res.json();
      expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
      expect(body.detail).toMatch(/2 products are invalid/);
      expect(body.errors).toContainEqual({
        index: 1,
        sku: 'B-1',
        pointer: '/@graph/1/name',
        message: 'missing required property "name"',
      });
      expect(body.errors).toContainEqual(
        expect.objectContaining({ index: 3, sku: 'B-3', pointer: '/@graph/3/offers/price' }),
      );
      expect(new Set(body.errors.map((e: { index: number }) => e.index))).toEqual(new Set([1, 3]));
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(0);
    });

    it('answers 400 for envelope problems with index null', async () => {
      const res = await postStandard(sb.url, { '@graph': [product('C-1')] });
      expect(res.status).toBe(400);
      expect(res.json().errors).toContainEqual(
        expect.objectContaining({ index: null, sku: null, pointer: '/agent' }),
      );
      expect((await postStandard(sb.url, [product('C-1')])).status).toBe(400);
      expect((await postStandard(sb.url, '{"@graph": [')).status).toBe(400);
    });

    it('reads repeated keys as JSON.parse does (the last wins), and refuses a repeated "@graph"', async () => {
      const text = JSON.stringify(envelope([product('K-1')])).replace(
        '"sku":"K-1"',
        '"sku":"EVIL","sku":"K-1"',
      );
      expect((await postStandard(sb.url, text)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/K-1')).data.sku).toBe('K-1');
      expect((await send(sb.url, '/_sandbox/products/EVIL', undefined, {}, 'GET')).status).toBe(404);
      const twoGraphs = JSON.stringify(envelope([product('K-2')])).replace(
        '"@graph":',
        `"@graph":[${JSON.stringify(product('K-3'))},${JSON.stringify(product('K-4'))}],"@graph":`,
      );
      const res = await postStandard(sb.url, twoGraphs);
      expect(res.status).toBe(400);
      expect(res.json().detail).toMatch(/repeats "@graph"/);
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(1);
    });

    it('serves back exactly what it parsed: Korean text, a byte order mark, bytes that are not UTF-8', async () => {
      const plain = Buffer.from(JSON.stringify(envelope([product('U-1', { name: '가죽 "토트" 백 😀' })])));
      expect((await postStandard(sb.url, plain)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/U-1')).data.name).toBe('가죽 "토트" 백 😀');
      const bom = Buffer.concat([
        Buffer.from([0xef, 0xbb, 0xbf]),
        Buffer.from(JSON.stringify(envelope([product('U-2', { name: '백팩' })]))),
      ]);
      expect((await postStandard(sb.url, bom)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/U-2')).data.name).toBe('백팩');
      // A stray byte reads as U+FFFD (as the body was parsed and validated), not as the raw byte.
      const [head, tail] = JSON.stringify(envelope([product('U-3', { name: 'AB' })])).split('"name":"A');
      const stray = Buffer.concat([Buffer.from(`${head}"name":"A`), Buffer.from([0xff]), Buffer.from(tail)]);
      expect((await postStandard(sb.url, stray)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/U-3')).data.name).toBe('A\ufffdB');
      // Legacy arrays take the same path.
      const legacy = Buffer.from(JSON.stringify([legacyProduct('U-4', { name: '토트백' })]));
      expect((await postLegacy(sb.url, legacy)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/U-4')).data.name).toBe('토트백');
    });

    it('takes a SKU repeated in one request in order: it counts twice and the last one wins', async () => {
      const res = await postStandard(
        sb.url,
        envelope([product('D-1', { name: 'first' }), product('D-2'), product('D-1', { name: 'second' })]),
      );
      expect(res.status).toBe(200);
      expect(res.json().accepted).toBe(3);
      const d1 = await get(sb.url, '/_sandbox/products/D-1');
      expect(d1).toMatchObject({ receivedCount: 2, status: 'pending' });
      expect(d1.data.name).toBe('second');
      expect((await get(sb.url, '/_sandbox/products/D-2')).data.sku).toBe('D-2');
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(2);
    });

    it('answers 400 for malformed JSON and for JSON nested too deep, storing nothing', async () => {
      const malformed = await postStandard(sb.url, '{"@graph": [');
      expect(malformed.status).toBe(400);
      expect(malformed.json().detail).toMatch(/^malformed JSON/);
      const deep = await postStandard(sb.url, `${'['.repeat(70)}${']'.repeat(70)}`);
      expect(deep.status).toBe(400);
      expect(deep.json().detail).toMatch(/nested deeper than 64 levels/);
      const legacyDeep = await postLegacy(sb.url, `[${'{"a":'.repeat(70)}1${'}'.repeat(70)}]`);
      expect(legacyDeep.json()).toMatchObject({ processCode: 'FAIL' });
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(0);
    });

    it('answers 401 for a missing or wrong apiKey without echoing it', async () => {
      const none = await send(sb.url, '/collectors/products', envelope([product('D-1')]));
      expect(none.status).toBe(401);
      const wrong = await postStandard(sb.url, envelope([product('D-1')]), { apiKey: 'not-the-key-xyz' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('not-the-key-xyz');
      expect(wrong.text).not.toContain(API_KEY);
      // the legacy header does not open the standard API
      const legacyHeader = await send(sb.url, '/collectors/products', envelope([product('D-1')]), {
        'x-api-key': API_KEY,
      });
      expect(legacyHeader.status).toBe(401);
    });

    it('answers 415 for a non-JSON content type', async () => {
      const res = await postStandard(sb.url, JSON.stringify(envelope([product('E-1')])), {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(res.status).toBe(415);
    });

    it('applies an envelope id seen before with the same body once', async () => {
      const body = envelope([product('F-1')]);
      expect((await postStandard(sb.url, body)).status).toBe(200);
      const again = await postStandard(sb.url, body);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect((await get(sb.url, '/_sandbox/products/F-1')).receivedCount).toBe(1);
      // the same id with another body is new data
      const changed = envelope([product('F-1', { name: 'changed' })], body.id as string);
      expect((await postStandard(sb.url, changed)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/F-1')).receivedCount).toBe(2);
    });

    it('honours an Idempotency-Key on products: replay, 422, malformed 400', async () => {
      const key = randomUUID();
      const body = envelope([product('G-1')]);
      expect((await postStandard(sb.url, body, { 'Idempotency-Key': key })).status).toBe(200);
      const replay = await postStandard(sb.url, body, { 'Idempotency-Key': key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect((await get(sb.url, '/_sandbox/products/G-1')).receivedCount).toBe(1);
      expect(
        (await postStandard(sb.url, envelope([product('G-2')]), { 'Idempotency-Key': key })).status,
      ).toBe(422);
      expect((await postStandard(sb.url, body, { 'Idempotency-Key': 'nope' })).status).toBe(400);
    });

    it('answers 413 for a declared Content-Length over the limit', async () => {
      const big = envelope(Array.from({ length: 3000 }, (_, i) => product(`H-${i}`)));
      const res = await postStandard(sb.url, big);
      expect(res.status).toBe(413);
      expect(res.json().detail).toMatch(/larger than 1048576 bytes/);
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(0);
    });

    it('answers 413 to a streamed (chunked) 64 MiB body without reading it all', async () => {
      const total = 64 * 1024 * 1024;
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const result = await new Promise<{ status: number; written: number }>((resolve, reject) => {
        let written = 0;
        let done = false;
        const req = request(`${sb.url}/collectors/products`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', apiKey: API_KEY },
        });
        req.on('response', (res) => {
          done = true;
          res.resume();
          resolve({ status: res.statusCode ?? 0, written });
          req.destroy();
        });
        req.on('error', (err) => {
          if (!done) reject(err);
        });
        const pump = () => {
          while (!done && written < total) {
            written += chunk.length;
            if (!req.write(chunk)) {
              req.once('drain', pump);
              return;
            }
          }
          if (!done) req.end();
        };
        pump();
      });
      expect(result.status).toBe(413);
      expect(result.written).toBeLessThan(total);
      // still serving
      expect((await get(sb.url, '/_sandbox/health')).ok).toBe(true);
    });
  });

  describe('legacy v0.3 API', () => {
    it('answers the result structure with processCode OK and stores pending', async () => {
      const res = await postLegacy(sb.url, [legacyProduct('L-1'), legacyProduct('L-2')]);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({
        httpStatus: { code: '200', reasonPhrase: 'OK' },
        processCode: 'OK',
        processValue: { received: 2 },
      });
      expect(await get(sb.url, '/_sandbox/products/L-1?format=legacy')).toMatchObject({
        format: 'legacy',
        status: 'pending',
        receivedCount: 1,
      });
    });

    it('answers FAIL with per-item errors and stores nothing', async () => {
      const bad = legacyProduct('L-9', { priceInfo: { currency: 'KRW', price: -1, salePrice: 1 } });
      const res = await postLegacy(sb.url, [legacyProduct('L-8'), bad]);
      expect(res.status).toBe(400);
      const body = res.json();
      expect(body).toMatchObject({ httpStatus: { code: '400' }, processCode: 'FAIL' });
      expect(body.processValue.errors).toContainEqual(
        expect.objectContaining({ index: 1, sku: 'L-9', pointer: '/1/priceInfo/price' }),
      );
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(0);
      const notArray = await postLegacy(sb.url, legacyProduct('L-7'));
      expect(notArray.json().processCode).toBe('FAIL');
    });

    it('answers 401 in the legacy structure for a wrong x-api-key', async () => {
      const res = await postLegacy(sb.url, [legacyProduct('L-1')], '/searches/products', {
        'x-api-key': 'bad-key-123',
      });
      expect(res.status).toBe(401);
      expect(res.json()).toMatchObject({ processCode: 'FAIL', httpStatus: { code: '401' } });
      expect(res.text).not.toContain('bad-key-123');
    });

    it('applies isInStock at once, before the batch, while other changes wait for it', async () => {
      await postLegacy(sb.url, [legacyProduct('S-1', { isInStock: true, name: 'old name' })]);
      expect((await sb.runBatch()).applied).toBe(1);
      await postLegacy(sb.url, [legacyProduct('S-1', { isInStock: false, name: 'new name' })]);
      const p = await get(sb.url, '/_sandbox/products/S-1');
      expect(p.status).toBe('pending');
      expect(p.inStock).toBe(false);
      expect(p.applied.isInStock).toBe(false);
      expect(p.applied.name).toBe('old name');
      expect(p.data.name).toBe('new name');
      // a product never applied still shows its stock at once
      await postLegacy(sb.url, [legacyProduct('S-2', { isInStock: false })]);
      expect((await get(sb.url, '/_sandbox/products/S-2')).inStock).toBe(false);
    });

    it('takes contents and filters on their (configurable) paths', async () => {
      const content = {
        code: 'CT-1',
        name: 'Class',
        categories: [{ largeCode: 'L1', largeName: 'Large' }],
        image: { mainUrl: 'https://img.example.com/c.jpg', detailUrls: [] },
        priceInfo: { currency: 'KRW', price: 1000, salePrice: 900 },
        createdAt: '2026-01-01T00:00:00Z',
      };
      expect((await postLegacy(sb.url, [content], '/searches/contents')).json().processCode).toBe('OK');
      expect(
        (await postLegacy(sb.url, [{ name: 'color', values: ['red'] }], '/searches/filters')).json()
          .processCode,
      ).toBe('OK');
      expect((await postLegacy(sb.url, [{ name: 'color' }], '/searches/filters')).json().processCode).toBe(
        'FAIL',
      );
      expect((await get(sb.url, '/_sandbox/products/color')).format).toBe('legacy-filter');
      const custom = await start({ legacyPaths: { contents: '/v03/contents' } });
      try {
        expect((await postLegacy(custom.url, [content], '/v03/contents')).status).toBe(200);
        expect((await postLegacy(custom.url, [content], '/searches/contents')).status).toBe(404);
      } finally {
        await custom.close();
      }
    });
  });

  describe('admin API', () => {
    it('lists, fetches, counts and resets', async () => {
      await postStandard(sb.url, envelope([product('Z-1')]));
      expect((await send(sb.url, '/_sandbox/products/nope', undefined, {}, 'GET')).status).toBe(404);
      expect((await send(sb.url, '/_sandbox/products?status=weird', undefined, {}, 'GET')).status).toBe(400);
      const stats = await get(sb.url, '/_sandbox/stats');
      expect(stats).toMatchObject({
        country: 'KR',
        timeZone: 'Asia/Seoul',
        products: { total: 1, pending: 1 },
      });
      expect(stats.requests.total).toBeGreaterThan(0);
      expect(await send(sb.url, '/_sandbox/reset', {})).toMatchObject({ status: 200 });
      expect((await get(sb.url, '/_sandbox/stats')).products.total).toBe(0);
    });
  });
});
