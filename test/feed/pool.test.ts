import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { poolPlans } from '../../src/feed/pool.js';
import { type FeedRow, feedRows, payloadJson } from '../../src/feed/threads.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions } from '../../src/shared/types.js';
import { feedOptions } from '../helpers/feed-options.js';
import { csvText } from './random-csv.js';

const root = join(import.meta.dirname, '..', '..');
// The workers run from the build (`npm test` builds first); vitest's sources have no .js files.
const poolWorkerUrl = new URL('../../dist/feed/pool-worker.js', import.meta.url);
const standard = feedOptions({});

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

async function outcome(files: string[], pool: number | undefined, feed: FeedOptions, chunkTarget = 200) {
  const log = memoryLogger();
  const rows: FeedRow[] = [];
  let error: string | undefined;
  try {
    const options = { serialize: true, threaded: false, pool, poolWorkerUrl, chunkTarget };
    for await (const row of feedRows(files, feed, log, undefined, options)) rows.push(row);
  } catch (err) {
    error = (err as Error).message;
  }
  return { rows, error, log: log.lines };
}

async function expectSame(files: string[], feed: FeedOptions = standard, chunkTarget = 200) {
  const [pooled, alone] = await Promise.all([
    outcome(files, 2, feed, chunkTarget),
    outcome(files, undefined, feed),
  ]);
  expect(pooled.error).toBe(alone.error);
  expect(pooled.rows.map(seen)).toEqual(alone.rows.map(seen));
  expect(pooled.log).toEqual(alone.log);
  return pooled;
}

const readFixtures = readdirSync(join(root, 'fixtures', 'read'))
  .filter((f) => /\.(csv|tsv|ndjson|jsonl)$/.test(f))
  .map((f) => join(root, 'fixtures', 'read', f));

describe('the worker pool (--threads N >= 2)', () => {
  it('takes UTF-8 CSV and NDJSON files, and leaves the others to the one-thread path', () => {
    const fx = (f: string) => join(root, 'fixtures', 'read', f);
    expect(poolPlans([fx('basic.csv'), fx('feed.ndjson')], standard)).toHaveLength(2);
    for (const other of ['cp949-korean.csv', 'basic.csv.gz', 'utf16le-bom.csv', 'rows.json', 'empty.csv'])
      expect(poolPlans([fx(other)], standard), other).toBeUndefined();
    expect(poolPlans(['-'], standard)).toBeUndefined();
  });

  it('gives the one-thread items for every UTF-8 CSV and NDJSON reader fixture', async () => {
    const eligible = readFixtures.filter((f) => poolPlans([f], standard));
    expect(eligible.length).toBeGreaterThanOrEqual(15);
    // One run over all of them: one pool start, and SKUs repeated across files are duplicates.
    const { rows } = await expectSame(eligible);
    expect(rows.length).toBeGreaterThan(30);
  });

  it.each(['duplicate-header.csv', 'ragged.csv', 'unclosed-quote.csv', 'feed-crlf.jsonl'])(
    'gives the one-thread items for %s alone',
    async (name) => {
      await expectSame([join(root, 'fixtures', 'read', name)], standard, 1);
    },
  );

  it('gives the one-thread items for the sample catalog, in chunks of any size', async () => {
    const catalog = join(root, 'fixtures', 'catalog.csv');
    for (const target of [1, 4096]) {
      const { rows } = await expectSame([catalog], standard, target);
      expect(rows.filter((r) => r.row > 0)).toHaveLength(25);
      // The pool's rows carry JSON, never payload objects: they really came from it.
      expect(rows.filter((r) => r.json !== undefined).length).toBeGreaterThan(20);
      expect(rows.every((r) => r.payload === undefined)).toBe(true);
    }
  });

  it('finds duplicate SKUs across chunks and files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const a = join(dir, 'a.csv');
    const b = join(dir, 'b.csv');
    const row = (sku: string) =>
      `${sku},Shirt ${sku},1000,https://shop.example/${sku},https://shop.example/${sku}.jpg\n`;
    const header = 'sku,name,price,url,image\n';
    writeFileSync(a, header + ['A', 'B', 'A', 'C', 'B'].map(row).join(''));
    writeFileSync(b, header + ['C', 'D'].map(row).join(''));
    const { rows } = await expectSame([a, b], standard, 1);
    expect(rows.filter((r) => r.issues.some((i) => i.code === 'duplicate_sku'))).toHaveLength(3);
  });

  it('stops at a bad UTF-8 byte past the sample the encoding is detected from with the one-thread message (offset, line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const file = join(dir, 'bad.csv');
    // Long rows: the 256 KiB before the bad byte take few rows (each row costs time, not each byte).
    const pad = 'x'.repeat(240);
    const rows = Array.from(
      { length: 1100 },
      (_, i) => `S${i},"Shirt\n${i} ${pad}",1000,https://shop.example/${i}\n`,
    );
    const good = Buffer.from(`sku,name,price,url\n${rows.join('')}`);
    writeFileSync(
      file,
      Buffer.concat([good, Buffer.from('S-x,caf'), Buffer.from([0xe9]), Buffer.from(',1,u\nS-y,a,1,u\n')]),
    );
    expect(good.length).toBeGreaterThan(256 * 1024);
    const { error, rows: out } = await expectSame([file], standard, 64 * 1024);
    expect(error).toMatch(/byte offset \d+/);
    expect(out.filter((r) => r.row > 0)).toHaveLength(1100);
  });

  it('stops, rather than give other rows, when a stray quote throws the cuts off', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const file = join(dir, 'stray.csv');
    // Row 2's unquoted 5" opens a "quote" for the scan; row 4's quoted line break then looks outside.
    const rows = ['A,plain,1', 'B,5" screen,2', 'C,plain,3', 'D,"two\nlines",4', 'E,plain,5', 'F,plain,6'];
    writeFileSync(file, `sku,name,price\n${rows.join('\n')}\n`);
    const pooled = await outcome([file], 2, standard, 1);
    expect(pooled.error).toMatch(/stray\.csv: the worker pool cannot cut this file at record boundaries/);
    // The one-thread path reads it: the quote inside an unquoted value is a plain character.
    const alone = await outcome([file], undefined, standard);
    expect(alone.error).toBeUndefined();
    expect(alone.rows.filter((r) => r.row > 0)).toHaveLength(6);
  });

  it('gives the one-thread items for random CSV feeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    let n = 0;
    // Few runs of many files each: a pool starts once per run (about a second of start-up).
    await fc.assert(
      fc.asyncProperty(
        fc.array(csvText(), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 1, max: 400 }),
        async (texts, target) => {
          const files = texts.map((text) => {
            const file = join(dir, `f${n++}.csv`);
            writeFileSync(file, text);
            return file;
          });
          expect(poolPlans(files, standard)).toBeDefined();
          await expectSame(files, standard, target);
        },
      ),
      { numRuns: 3 },
    );
  });

  it('gives the one-thread items for random NDJSON feeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    let n = 0;
    const line = fc
      .tuple(
        fc.constantFrom('P1', 'P2', 'Q', ''),
        fc.string({ maxLength: 8 }),
        fc.integer({ min: -5, max: 99999 }),
      )
      .map(([sku, name, price]) => JSON.stringify({ sku, name: `${name}"한\n`, price: String(price) }));
    const file = fc
      .tuple(
        fc.array(fc.oneof(line, line, line, fc.constantFrom('', '{bad', '[1]')), { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
      )
      .map(([lines, end]) => lines.join(end));
    await fc.assert(
      fc.asyncProperty(
        fc.array(file, { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 300 }),
        async (texts, target) => {
          const files = texts.map((text) => {
            const path = join(dir, `f${n++}.ndjson`);
            writeFileSync(path, text || '{}');
            return path;
          });
          expect(poolPlans(files, standard)).toBeDefined();
          await expectSame(files, standard, target);
        },
      ),
      { numRuns: 2 },
    );
  });
});
