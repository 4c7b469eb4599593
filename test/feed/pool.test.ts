import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { poolPlans } from '../../src/feed/pool.js';
import { autoThreads, type FeedRow, feedRows, POOL_MIN_BYTES, payloadJson } from '../../src/feed/threads.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions } from '../../src/shared/types.js';
import { feedOptions } from '../helpers/feed-options.js';
import { CP949_CHARS, csvText, SHIFT_JIS_CHARS } from './random-csv.js';

const root = join(import.meta.dirname, '..', '..');
// The workers run from the build (`npm test` builds first); vitest's sources have no .js files.
const poolWorkerUrl = new URL('../../dist/feed/pool-worker.js', import.meta.url);
const workerUrl = new URL('../../dist/feed/worker.js', import.meta.url);
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

/** The pool of 2, one thread, or reading here with mapping and validation on the feed worker. */
type Path = 'pool' | 'one' | 'two';

async function outcome(files: string[], path: Path, feed: FeedOptions, chunkTarget = 200) {
  const log = memoryLogger();
  const rows: FeedRow[] = [];
  let error: string | undefined;
  try {
    const options =
      path === 'pool'
        ? { serialize: true, threaded: false, pool: 2, poolWorkerUrl, chunkTarget }
        : { serialize: true, threaded: path === 'two', workerUrl };
    for await (const row of feedRows(files, feed, log, undefined, options)) rows.push(row);
  } catch (err) {
    error = (err as Error).message;
  }
  return { rows, error, log: log.lines };
}

/** The pool's rows, issues, payloads, error and messages are one thread's (and, asked, the two-thread path's). */
async function expectSame(
  files: string[],
  feed: FeedOptions = standard,
  chunkTarget = 200,
  paths: Path[] = ['pool', 'one'],
) {
  const [pooled, alone, ...others] = await Promise.all(
    paths.map((p) => outcome(files, p, feed, chunkTarget)),
  );
  for (const other of [pooled, ...others]) {
    expect(other.error).toBe(alone.error);
    expect(other.rows.map(seen)).toEqual(alone.rows.map(seen));
    expect(other.log).toEqual(alone.log);
  }
  return pooled;
}

/** Writes each text in `encoding` to a new file in `dir`. */
function writeFiles(dir: string, texts: string[], encoding: string, ext: string): string[] {
  return texts.map((text, i) => {
    const file = join(dir, `f${i}-${Math.random().toString(36).slice(2)}.${ext}`);
    writeFileSync(file, iconv.encode(text, encoding));
    return file;
  });
}

const readFixtures = readdirSync(join(root, 'fixtures', 'read'))
  .filter((f) => /\.(csv|tsv|ndjson|jsonl)$/.test(f))
  .map((f) => join(root, 'fixtures', 'read', f));

describe('the worker pool (--threads N >= 2)', () => {
  it('takes CSV and NDJSON files in UTF-8, CP949 and Shift_JIS, and leaves the others to the one-thread path', () => {
    const fx = (f: string) => join(root, 'fixtures', 'read', f);
    const plans = poolPlans(
      ['basic.csv', 'feed.ndjson', 'cp949-korean.csv', 'euc-kr-korean.csv', 'shift_jis-japanese.csv'].map(fx),
      standard,
    );
    expect(plans?.map((p) => p.encoding)).toEqual(['utf-8', 'utf-8', 'cp949', 'cp949', 'shift_jis']);
    expect(poolPlans([fx('euc-kr-korean.csv')], feedOptions({ encoding: 'euc-kr' }))?.[0].encoding).toBe(
      'cp949',
    );
    for (const other of ['basic.csv.gz', 'utf16le-bom.csv', 'utf16be-bom.csv', 'rows.json', 'empty.csv'])
      expect(poolPlans([fx(other)], standard), other).toBeUndefined();
    expect(poolPlans([fx('basic.csv')], feedOptions({ encoding: 'utf-16le' }))).toBeUndefined();
    expect(poolPlans(['-'], standard)).toBeUndefined();
  });

  it('gives the items of one thread and of two for every reader fixture it takes', async () => {
    const eligible = readFixtures.filter((f) => poolPlans([f], standard));
    expect(eligible.length).toBeGreaterThanOrEqual(18);
    for (const name of ['cp949-korean.csv', 'euc-kr-korean.csv', 'shift_jis-japanese.csv', 'feed.ndjson'])
      expect(eligible.map((f) => f.slice(f.lastIndexOf('/') + 1))).toContain(name);
    // One run over all of them: one pool start, and SKUs repeated across files are duplicates.
    const { rows } = await expectSame(eligible, standard, 200, ['pool', 'one', 'two']);
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

  it('says no_rows only for a file without rows, not for a first chunk of blank lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const some = join(dir, 'some.csv');
    const none = join(dir, 'none.csv');
    writeFileSync(some, 'sku,name,price,description\n\n\nP10,,0,');
    writeFileSync(none, 'sku,name,price,description\n\n\n');
    const { rows } = await expectSame([some, none], standard, 1);
    const noRows = rows.filter((r) => r.issues.some((i) => i.code === 'no_rows'));
    expect(noRows.map((r) => r.file)).toEqual([none]);
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

  it('reads a quote inside an unquoted value as one thread does (a plain character), before quoted line breaks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const file = join(dir, 'stray.csv');
    // Row 2's unquoted 5" would open a "quote" for a scan that toggled at every quote; row 4's
    // quoted line break would then look outside quotes, and a cut there would split the row.
    const rows = [
      'A,plain,1',
      'B,5" screen,2',
      'C,plain,3',
      'D,"two\nlines",4',
      'E,"a ""b"" c",5',
      'F,plain,6',
    ];
    writeFileSync(file, `sku,name,price\n${rows.join('\n')}\n`);
    for (const target of [1, 12, 30]) {
      const { rows: out, error } = await expectSame([file], standard, target);
      expect(error).toBeUndefined();
      expect(out.filter((r) => r.row > 0).map((r) => r.sku)).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    }
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

  it.each([
    ['cp949', CP949_CHARS],
    ['shift_jis', SHIFT_JIS_CHARS],
  ])('gives the one-thread items for random %s CSV feeds', async (encoding, chars) => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const feed = feedOptions({ encoding });
    await fc.assert(
      fc.asyncProperty(
        fc.array(csvText({ oneLineEnd: true, chars, bom: false }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 400 }),
        async (texts, target) => {
          const files = writeFiles(dir, texts, encoding, 'csv');
          expect(poolPlans(files, feed)?.every((p) => p.encoding === encoding)).toBe(true);
          const { rows } = await expectSame(files, feed, target);
          // The values came through decoded (no U+FFFD, no `?` for a character).
          for (const r of rows) if (r.json) expect(Buffer.from(r.json).toString()).not.toMatch(/\uFFFD/);
        },
      ),
      { numRuns: 2 },
    );
  });

  it('stops at a bad CP949 byte past the sample with the one-thread message (where it stopped being UTF-8, offset, line)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    const file = join(dir, 'bad-cp949.csv');
    const rows = Array.from(
      { length: 900 },
      (_, i) => `K${i},"한글 상품\n${i} ${'가'.repeat(120)}",1000,https://s.kr/${i}\n`,
    );
    const good = iconv.encode(`sku,name,price,url\n${rows.join('')}`, 'cp949');
    writeFileSync(
      file,
      Buffer.concat([good, Buffer.from('K-x,a'), Buffer.from([0xff]), Buffer.from(',1,u\n')]),
    );
    expect(good.length).toBeGreaterThan(128 * 1024);
    expect(poolPlans([file], standard)?.[0]).toMatchObject({ encoding: 'cp949', notUtf8: { offset: 23 } });
    const { error, rows: out } = await expectSame([file], standard, 32 * 1024);
    expect(error).toMatch(
      /nor valid cp949, which it looked like: invalid byte 0xFF at byte offset \d+ \(line \d+\)/,
    );
    expect(error).toContain(`at byte offset ${good.length + 5} `);
    expect(out.filter((r) => r.row > 0)).toHaveLength(900);
  });

  it('leaves a `|`-delimited Shift_JIS file to the one-thread path (a trail byte can be 0x7C, `|`)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-pool-'));
    // ポ is 0x83 0x7C: a `|` in each value to whatever looked at the bytes, not the decoded text.
    const rows = Array.from(
      { length: 40 },
      (_, i) => `J${i}|ポ表${i}|1000|https://s.jp/${i}|https://s.jp/${i}.jpg\n`,
    );
    const [file] = writeFiles(dir, [`sku|name|price|url|image\n${rows.join('')}`], 'shift_jis', 'csv');
    const asBytes = readFileSync(file).toString('latin1').split('\n');
    expect(asBytes[1].split('|')).toHaveLength(6);
    const feed = feedOptions({ encoding: 'shift_jis' });
    expect(poolPlans([file], feed)).toBeUndefined();
    const { rows: out } = await expectSame([file], feed, 100);
    const records = out.filter((r) => r.row > 0);
    expect(records).toHaveLength(40);
    expect(records.flatMap((r) => r.issues.map((i) => i.code))).not.toContain('ragged_row');
    expect(records.map((r) => r.sku)).toEqual(rows.map((_, i) => `J${i}`));
  });

  it('is what --threads auto runs large inputs on: one worker per core from POOL_MIN_BYTES', async () => {
    const MiB = 1024 * 1024;
    expect(autoThreads(MiB, 2)).toBe(0);
    expect(autoThreads(4 * MiB, 2)).toBe(1);
    expect(autoThreads(POOL_MIN_BYTES - 1, 8)).toBe(1);
    expect(autoThreads(POOL_MIN_BYTES, 2)).toBe(2);
    expect(autoThreads(POOL_MIN_BYTES, 8)).toBe(8);
    expect(autoThreads(POOL_MIN_BYTES, 1)).toBe(0);
    expect(autoThreads(undefined, 4)).toBe(1); // stdin
    // Through feedRows, with the threshold made small: the pool runs it (a missing pool worker
    // fails the run) and gives the one-thread items; under the threshold the pool is not used.
    const catalog = join(root, 'fixtures', 'catalog.csv');
    const run = async (poolMinBytes: number, url = poolWorkerUrl) => {
      const rows: FeedRow[] = [];
      const options = { serialize: true, poolWorkerUrl: url, workerUrl, poolMinBytes, chunkTarget: 2048 };
      for await (const row of feedRows([catalog], standard, memoryLogger(), undefined, options))
        rows.push(row);
      return rows;
    };
    const missing = new URL('./no-such-worker.js', poolWorkerUrl);
    await expect(run(1, missing)).rejects.toThrow();
    expect(await run(Number.POSITIVE_INFINITY, missing)).toHaveLength(25);
    const alone = await outcome([catalog], 'one', standard);
    expect((await run(1)).map(seen)).toEqual(alone.rows.map(seen));
  });
});
