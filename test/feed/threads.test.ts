import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FeedRow, feedRows, payloadJson } from '../../src/feed/threads.js';
import { ExitError } from '../../src/shared/errors.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions } from '../../src/shared/types.js';
import { gtinCheckDigit } from '../../src/validate/checks.js';
import { feedOptions } from '../helpers/feed-options.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = (...p: string[]) => join(root, 'fixtures', ...p);
// The worker runs from the build (`npm test` builds first); vitest's sources have no .js files.
const workerUrl = new URL('../../dist/feed/worker.js', import.meta.url);
const standard = feedOptions({});

async function collect(
  files: string[],
  threaded: boolean,
  feed: FeedOptions = standard,
  serialize = true,
): Promise<{ rows: FeedRow[]; log: ReturnType<typeof memoryLogger> }> {
  const log = memoryLogger();
  const rows: FeedRow[] = [];
  for await (const row of feedRows(files, feed, log, undefined, { serialize, threaded, workerUrl }))
    rows.push(row);
  return { rows, log };
}

/** Everything a consumer uses of a row: a valid row's payload as the JSON it writes or sends. */
const seen = (r: FeedRow) => [
  r.file,
  r.row,
  r.line,
  r.sku,
  r.valid,
  r.issues,
  r.valid ? Buffer.from(payloadJson(r) ?? []).toString() : null,
];

/** The rows and the error a run ends with (a usage error such as undecodable bytes), if any. */
async function outcome(files: string[], threaded: boolean, feed: FeedOptions) {
  const log = memoryLogger();
  const rows: FeedRow[] = [];
  let error: string | undefined;
  try {
    for await (const row of feedRows(files, feed, log, undefined, { serialize: true, threaded, workerUrl }))
      rows.push(row);
  } catch (err) {
    error = `${(err as ExitError).exitCode} ${(err as Error).message}`;
  }
  return { rows, error };
}

async function expectSameBothWays(files: string[], feed: FeedOptions = standard): Promise<FeedRow[]> {
  const [threaded, inThread] = await Promise.all([outcome(files, true, feed), outcome(files, false, feed)]);
  expect(threaded.error).toBe(inThread.error);
  expect(threaded.rows.map(seen)).toEqual(inThread.rows.map(seen));
  // Rows carry JSON bytes, not objects, across the thread.
  for (const r of threaded.rows) expect(r.payload).toBeUndefined();
  return threaded.rows;
}

describe('the feed on two threads (reading here, the rest on the feed worker)', () => {
  it('is built', () => {
    expect(existsSync(workerUrl), 'run `npm run build` first').toBe(true);
  });

  it('yields the same rows, issues and product JSON as the in-thread pipeline, over several files', async () => {
    const rows = await expectSameBothWays([fixture('catalog.csv'), fixture('catalog-invalid.csv')]);
    expect(rows.some((r) => r.json !== undefined)).toBe(true);
    expect(rows.some((r) => !r.valid)).toBe(true);
  });

  it('does so for JSON, NDJSON and ready envelopes', async () => {
    for (const file of ['catalog.json', 'catalog.ndjson', 'envelope.json']) {
      const rows = await expectSameBothWays([fixture(file)]);
      expect(rows.length, file).toBeGreaterThan(0);
    }
  });

  // One test per fixture: each starts a worker of its own, so together they took most of a
  // 20 s timeout on a loaded 2-core machine; apart, each stays far inside it.
  const brokenInputs = readdirSync(fixture('read')).filter((f) => !f.endsWith('.mjs'));
  it.each(brokenInputs)(
    'does so for the reader fixture %s, read issues and file-level items included',
    async (file) => {
      await expectSameBothWays([fixture('read', file)]);
    },
  );

  it('does so when a file that stops the run follows a good one, and names an unclosed quote', async () => {
    // latin1.csv stops the run (exit 2, no encoding can be told): after the rows before it.
    await expectSameBothWays([fixture('catalog.csv'), fixture('read', 'latin1.csv')]);
    const unclosed = await expectSameBothWays([fixture('read', 'unclosed-quote.csv')]);
    expect(unclosed.flatMap((r) => r.issues.map((i) => i.code))).toContain('unclosed_quote');
  });

  it('does so for legacy data', async () => {
    const legacy = feedOptions({ format: 'legacy' });
    await expectSameBothWays([fixture('legacy-catalog.csv')], legacy);
  });

  it('keeps order and every row over many chunks, with a duplicate SKU found across them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-thread-'));
    const file = join(dir, 'big.csv');
    const lines = ['sku,name,price,currency,url,image_urls'];
    for (let i = 1; i <= 5000; i++) {
      const sku = i === 4321 ? 'SKU-7' : `SKU-${i}`;
      lines.push(
        `${sku},"Item ${i}, ""quoted""\nsecond line",${i}.5,KRW,https://shop.example/p/${i},https://shop.example/i/${i}.jpg`,
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const rows = await expectSameBothWays([file]);
    expect(rows.length).toBe(5000);
    expect(rows.map((r) => r.row)).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    expect(rows[4320].issues.map((i) => i.code)).toContain('duplicate_sku');
    expect(rows[4320].line).toBe(2 + 4320 * 2);
  });

  it('carries each product JSON exactly when a chunk outgrows its first buffer, invalid rows between', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-thread-'));
    const file = join(dir, 'large.csv');
    const lines = [
      'sku,name@ko,brand_id,brand_name,category_name@ko,category_code,description@ko,price,currency,availability,availability_starts,availability_ends,gtin,mpn,image_urls,url',
    ];
    // Three-byte Hangul, a four-byte emoji (a surrogate pair), quotes and a backslash to escape:
    // 40 rows of ~120k characters are several MiB of UTF-8 in one 256-row chunk.
    const big = '가나다 "따옴표" \\ 😀 '.repeat(6000);
    for (let i = 1; i <= 700; i++) {
      const description = i % 17 === 0 ? big : `설명 ${i}`;
      const price = i % 50 === 0 ? 'ask' : `${i}`;
      // Each SKU its own GTIN (the same GTIN on two SKUs is an error).
      const body = `881${String(i).padStart(9, '0')}`;
      const gtin = body + gtinCheckDigit(body);
      lines.push(
        `SKU-${i},상품 ${i},BR-1,소라,가방,BAG,"${description.replaceAll('"', '""')}",${price},KRW,InStock,2026-01-01,2027-12-31,${gtin},MPN-${i},https://shop.example/i/${i}.jpg,https://shop.example/p/${i}`,
      );
    }
    writeFileSync(file, `${lines.join('\n')}\n`);
    const rows = await expectSameBothWays([file]);
    expect(rows.length).toBe(700);
    expect(rows.filter((r) => !r.valid).map((r) => r.row)).toEqual([
      50, 100, 150, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650, 700,
    ]);
    const large = rows[16];
    expect(large.json?.length).toBeGreaterThan(Buffer.byteLength(big));
    // Values are trimmed on reading: the trailing space of `big` is not part of the text.
    expect(JSON.parse(Buffer.from(large.json ?? []).toString()).description).toEqual([
      { '@type': 'TextObject', text: big.trim(), inLanguage: 'ko' },
    ]);
  });

  it('rebuilds records whose columns change from row to row (JSON rows) exactly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-thread-'));
    const file = join(dir, 'mixed.ndjson');
    const lines: string[] = [];
    for (let i = 1; i <= 700; i++) {
      const row: Record<string, unknown> = { sku: `M-${i}`, name: `Item ${i}`, price: i, currency: 'KRW' };
      if (i % 3 === 0) row.url = `https://shop.example/p/${i}`;
      if (i % 5 === 0) row['2'] = 'a numeric-like column';
      if (i % 7 === 0) row.extra = { nested: [i] };
      lines.push(JSON.stringify(row));
    }
    lines.push('{"sku": "M-proto", "__proto__": {"x": 1}, "name": "odd column"}');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const rows = await expectSameBothWays([file]);
    expect(rows.length).toBeGreaterThanOrEqual(701);
  });

  it('sends no JSON when the consumer does not ask for it', async () => {
    const { rows } = await collect([fixture('catalog.csv')], true, standard, false);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.json === undefined && r.payload === undefined)).toBe(true);
  });

  it('says the encoding it detected, from this thread', async () => {
    const { log } = await collect([fixture('read', 'cp949-korean.csv')], true);
    expect(log.lines.join('\n')).toContain('cp949');
  });

  it('passes a usage error on with its exit code (missing file)', async () => {
    const err = await collect([fixture('no-such-file.csv')], true).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toContain('no-such-file.csv');
  });

  it('yields the rows of the files read before a usage error, then throws it', async () => {
    const log = memoryLogger();
    const rows: FeedRow[] = [];
    const err = await (async () => {
      for await (const row of feedRows(
        [fixture('catalog.csv'), fixture('nope.csv')],
        standard,
        log,
        undefined,
        {
          serialize: true,
          threaded: true,
          workerUrl,
        },
      ))
        rows.push(row);
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    const inThread = await collect([fixture('catalog.csv')], false);
    expect(rows.map(seen)).toEqual(inThread.rows.map(seen));
  });

  it('reports a bad mapping file as a usage error before starting', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-thread-'));
    const mapping = join(dir, 'm.json');
    writeFileSync(mapping, '{"columns": 12}');
    const feed = feedOptions({ mapping });
    const err = await collect([fixture('catalog.csv')], true, feed).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(2);
  });

  it('stops the worker when the consumer stops early', async () => {
    let n = 0;
    for await (const _ of feedRows([fixture('catalog.csv')], standard, memoryLogger(), undefined, {
      serialize: true,
      threaded: true,
      workerUrl,
    })) {
      if (++n === 3) break;
    }
    expect(n).toBe(3);
  });
});
