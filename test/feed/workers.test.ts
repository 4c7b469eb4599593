import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type FeedRow,
  type FeedRowsOptions,
  feedRows,
  KnownSources,
  payloadJson,
  payloadPrice,
  workersFor,
} from '../../src/feed/index.js';
import { MANY_WORKERS_MIN_BYTES } from '../../src/feed/run.js';
import { priceOfJson } from '../../src/payload/price.js';
import { cutOf, planRead } from '../../src/read/plan.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions } from '../../src/shared/types.js';
import { feedOptions } from '../helpers/feed-options.js';
import { workerFromSource } from '../helpers/workers.js';
import { CP949_CHARS, csvText, gtinFor, SHIFT_JIS_CHARS } from './random-csv.js';

/**
 * The feed on N workers gives what it gives on this thread (N = 0), for each kind of job: byte
 * ranges (two workers, files that can be cut, in ranges made tiny so they cross every kind of
 * record) and record batches (one worker; or any file that cannot be cut: gzip, UTF-16, JSON,
 * a preset's transform). The workers are built from the sources under test.
 */
const root = join(import.meta.dirname, '..', '..');
const fixture = (...p: string[]) => join(root, 'fixtures', ...p);
const standard = feedOptions({});
let workerUrl: URL;
beforeAll(async () => {
  workerUrl = await workerFromSource('feed/worker.ts');
});

/** Everything a consumer uses of a row: a valid row's payload as the JSON it writes or sends. */
const seen = (r: FeedRow) => [
  r.file,
  r.row,
  r.line,
  r.sku,
  r.valid,
  r.issues,
  r.unchanged ?? false,
  r.source ?? null,
  r.valid ? Buffer.from(payloadJson(r) ?? []).toString() : null,
  r.valid ? payloadPrice(r) : null,
];

/** This thread; record batches on one worker; byte ranges (where files can be cut) on two. */
type Mode = 'inline' | 'records' | 'ranges';

async function outcome(
  files: string[],
  mode: Mode,
  feed: FeedOptions = standard,
  more: Partial<FeedRowsOptions> = {},
) {
  const log = memoryLogger();
  const rows: FeedRow[] = [];
  let error: string | undefined;
  const workers = mode === 'inline' ? 0 : mode === 'records' ? 1 : 2;
  // The column sets the consumer is told (the nightly's mapping drift): each once, in any mode.
  const columns: string[][] = [];
  const onColumns = (file: string, keys: readonly string[]) => columns.push([file, ...keys]);
  try {
    const options = { serialize: true, workers, workerUrl, chunkBytes: 200, onColumns, ...more };
    for await (const row of feedRows(files, feed, log, undefined, options)) rows.push(row);
  } catch (err) {
    error = (err as Error).message;
  }
  return { rows, error, log: log.lines, columns };
}

/** The rows, issues, payloads, error and messages of each mode are those of this thread. */
async function expectSame(
  files: string[],
  feed: FeedOptions = standard,
  more: Partial<FeedRowsOptions> = {},
  modes: Mode[] = ['records', 'ranges'],
) {
  const [alone, ...others] = await Promise.all(
    (['inline', ...modes] as Mode[]).map((m) => outcome(files, m, feed, more)),
  );
  others.forEach((other, i) => {
    expect(other.error, modes[i]).toBe(alone.error);
    expect(other.rows.map(seen), modes[i]).toEqual(alone.rows.map(seen));
    expect(other.log, modes[i]).toEqual(alone.log);
    expect(other.columns, modes[i]).toEqual(alone.columns);
  });
  return { alone, others };
}

async function cuttable(file: string, feed: FeedOptions = standard): Promise<boolean> {
  const plan = await planRead(file, feed, memoryLogger());
  if (!('bytes' in plan)) return false;
  await plan.close();
  return cutOf(plan) !== undefined;
}

/** The reader fixtures but the one that stops a run (an undetectable encoding: tested apart). */
const readFixtures = readdirSync(fixture('read'))
  .filter((f) => /\.(csv|tsv|ndjson|jsonl|json|gz)$/.test(f) && f !== 'latin1.csv')
  .map((f) => fixture('read', f));

let dirCount = 0;
const newDir = () => mkdtempSync(join(tmpdir(), `genser-workers-${dirCount++}-`));

function writeFiles(dir: string, texts: string[], encoding: string, ext: string): string[] {
  return texts.map((text, i) => {
    const file = join(dir, `f${i}-${Math.random().toString(36).slice(2)}.${ext}`);
    writeFileSync(file, iconv.encode(text, encoding));
    return file;
  });
}

describe('which files are cut into byte ranges', () => {
  it('CSV and NDJSON in UTF-8, CP949 and Shift_JIS; not gzip, UTF-16, JSON, stdin or a `|` in Shift_JIS', async () => {
    for (const f of [
      'basic.csv',
      'feed.ndjson',
      'cp949-korean.csv',
      'euc-kr-korean.csv',
      'shift_jis-japanese.csv',
    ])
      expect(await cuttable(fixture('read', f)), f).toBe(true);
    for (const f of ['basic.csv.gz', 'utf16le-bom.csv', 'utf16be-bom.csv', 'rows.json'])
      expect(await cuttable(fixture('read', f)), f).toBe(false);
    const dir = newDir();
    const [pipe] = writeFiles(dir, ['sku|name\nJ1|ポ表\n'], 'shift_jis', 'csv');
    expect(await cuttable(pipe, feedOptions({ encoding: 'shift_jis' }))).toBe(false);
  });

  it('workersFor: none under 4 MiB, one from 4 MiB and for stdin, one per core from 256 MiB when the file can be cut (one fewer for a busy consumer)', async () => {
    const MiB = 1024 * 1024;
    const plan = await planRead(fixture('read', 'basic.csv'), standard, memoryLogger());
    const json = await planRead(fixture('read', 'rows.json'), standard, memoryLogger());
    if (!('bytes' in plan) || !('bytes' in json)) throw new Error('planned');
    await Promise.all([plan.close(), json.close()]);
    expect(workersFor('auto', plan, MiB, 2)).toBe(0);
    expect(workersFor('auto', plan, 4 * MiB, 2)).toBe(1);
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES - 1, 8)).toBe(1);
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES, 8)).toBe(8);
    expect(workersFor('auto', json, MANY_WORKERS_MIN_BYTES, 8)).toBe(1);
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES, 1)).toBe(0);
    expect(workersFor('auto', undefined, undefined, 4)).toBe(1);
    expect(workersFor(3, plan, MiB, 2)).toBe(3);
    // An upload keeps this thread busy: it leaves it a core, and still has a worker on two.
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES, 8, true)).toBe(7);
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES, 2, true)).toBe(1);
    expect(workersFor('auto', plan, 4 * MiB, 2, true)).toBe(1);
    expect(workersFor('auto', plan, MiB, 2, true)).toBe(0);
    expect(workersFor('auto', plan, MANY_WORKERS_MIN_BYTES, 1, true)).toBe(0);
    expect(workersFor(2, plan, MANY_WORKERS_MIN_BYTES, 2, true)).toBe(2);
  });
});

describe('the feed on workers gives what it gives on this thread', () => {
  it('for every reader fixture, in one run (SKUs repeated across files are duplicates)', async () => {
    const { alone, others } = await expectSame(readFixtures);
    expect(alone.rows.length).toBeGreaterThan(40);
    // The workers' rows carry JSON, never payload objects: they really came from them.
    for (const o of others) expect(o.rows.every((r) => r.payload === undefined)).toBe(true);
  });

  it('for the sample catalogs, legacy and JSON included, in ranges of any size', async () => {
    const files = ['catalog.csv', 'catalog-invalid.csv', 'catalog.ndjson', 'catalog.json'].map((f) =>
      fixture(f),
    );
    const { others } = await expectSame(files, standard, { chunkBytes: 1 });
    // Each valid row with its price, read from the object on the worker: the one its bytes say.
    const priced = others[1].rows.filter((r) => r.valid && r.json !== undefined);
    expect(priced.filter((r) => typeof r.price === 'number').length).toBeGreaterThan(20);
    for (const r of priced) expect(r.price).toBe(priceOfJson(r.json!) ?? null);
    await expectSame(files, standard, { chunkBytes: 4096 }, ['ranges']);
    await expectSame([fixture('legacy-catalog.csv')], feedOptions({ format: 'legacy' }), { chunkBytes: 300 });
  });

  it('for a preset whose transform needs the rows in order (Magento parents), in batches', async () => {
    const feed = feedOptions({ preset: 'magento', set: ['currency=USD', 'availability_starts=2026-01-01'] });
    const { alone } = await expectSame([fixture('presets', 'magento-edge.csv')], feed);
    expect(alone.rows.filter((r) => r.row > 0).length).toBeGreaterThanOrEqual(3);
  });

  it('says no_rows only for a file without rows, not for a first range of blank lines', async () => {
    const dir = newDir();
    const some = join(dir, 'some.csv');
    const none = join(dir, 'none.csv');
    writeFileSync(some, 'sku,name,price,description\n\n\nP10,,0,');
    writeFileSync(none, 'sku,name,price,description\n\n\n');
    const { alone } = await expectSame([some, none], standard, { chunkBytes: 1 });
    const noRows = alone.rows.filter((r) => r.issues.some((i) => i.code === 'no_rows'));
    expect(noRows.map((r) => r.file)).toEqual([none]);
  });

  it('finds duplicate SKUs across jobs and files', async () => {
    const dir = newDir();
    const a = join(dir, 'a.csv');
    const b = join(dir, 'b.csv');
    const row = (sku: string) =>
      `${sku},Shirt ${sku},1000,https://shop.example/${sku},https://shop.example/${sku}.jpg\n`;
    const header = 'sku,name,price,url,image\n';
    writeFileSync(a, header + ['A', 'B', 'A', 'C', 'B'].map(row).join(''));
    writeFileSync(b, header + ['C', 'D'].map(row).join(''));
    const { alone } = await expectSame([a, b], standard, { chunkBytes: 1 });
    expect(alone.rows.filter((r) => r.issues.some((i) => i.code === 'duplicate_sku'))).toHaveLength(3);
  });

  it('finds a duplicate SKU and GTIN hundreds of rows into one job (its hashes grow past the first 256 rows)', async () => {
    const dir = newDir();
    const file = join(dir, 'long.csv');
    // Rows 601-700 repeat the GTINs of rows 301-400; rows 701-720 the SKUs of rows 1-20.
    const gtin = (n: number) => gtinFor(String(n >= 600 && n < 700 ? n - 300 : n));
    const row = (n: number) =>
      `S${n % 700},Shirt ${n},1000,https://shop.example/${n},https://shop.example/${n}.jpg,${gtin(n)}\n`;
    writeFileSync(
      file,
      `sku,name,price,url,image,gtin\n${Array.from({ length: 720 }, (_, i) => row(i)).join('')}`,
    );
    // One range (the default size) and one batch of records per 256 rows.
    const { alone } = await expectSame([file], standard);
    const codes = (code: string) =>
      alone.rows.filter((r) => r.issues.some((i) => i.code === code)).map((r) => r.row);
    expect(codes('duplicate_sku')).toEqual(Array.from({ length: 20 }, (_, i) => 701 + i));
    expect(codes('duplicate_gtin')).toEqual(Array.from({ length: 100 }, (_, i) => 601 + i));
  });

  it('finds the same duplicates when the checks keep their keys on disk past 32 (SPILL_AT made small)', async () => {
    const dir = newDir();
    const file = join(dir, 'spilled.csv');
    // Rows 301-400 repeat the GTINs of rows 1-100; rows 401-450 the SKUs of rows 51-100.
    const gtin = (n: number) => gtinFor(String(n >= 300 && n < 400 ? n - 300 : n));
    const sku = (n: number) => (n >= 400 ? n - 350 : n);
    const row = (n: number) =>
      `S${sku(n)},Shirt ${n},1000,https://shop.example/${n},https://shop.example/${n}.jpg,${gtin(n)}\n`;
    writeFileSync(
      file,
      `sku,name,price,url,image,gtin\n${Array.from({ length: 450 }, (_, i) => row(i)).join('')}`,
    );
    const kept = await outcome([file], 'inline');
    const { alone } = await expectSame([file], standard, { spillAt: 32, chunkBytes: 4096 });
    expect(alone.rows.map(seen)).toEqual(kept.rows.map(seen));
    const said = (code: string) => alone.rows.flatMap((r) => r.issues.filter((i) => i.code === code));
    expect(said('duplicate_sku').map((i) => i.message)).toEqual(
      Array.from({ length: 50 }, (_, i) => `SKU S${50 + i} appears again; first seen at row ${51 + i}`),
    );
    expect(said('duplicate_gtin')).toHaveLength(100);
    // The keys did go to disk: with nowhere to write them, the run stops there, in every mode.
    const tmp = process.env.TMPDIR;
    process.env.TMPDIR = join(dir, 'missing');
    try {
      for (const mode of ['inline', 'ranges'] as Mode[]) {
        const stopped = await outcome([file], mode, standard, { spillAt: 32, chunkBytes: 4096 });
        expect(stopped.error, mode).toBe(
          `cannot use a temporary file in the temporary directory ${join(dir, 'missing')} (ENOENT)`,
        );
      }
    } finally {
      if (tmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmp;
    }
  });

  it('renders read messages with the file positions of rows read in later ranges', async () => {
    const dir = newDir();
    const file = join(dir, 'late.csv');
    const good = Array.from({ length: 30 }, (_, i) => `S${i},"two\nlines",1\n`).join('');
    writeFileSync(file, `sku,name,price\n${good}S-x,1\nS-y,"a ""b"" c\nd",2\nS-z,"never closed,3\n`);
    const { alone } = await expectSame([file], standard, { chunkBytes: 64 });
    const messages = alone.rows.flatMap((r) => r.issues.map((i) => i.message)).join('\n');
    expect(messages).toMatch(/row 31 \(line 62\) has 2 fields/);
    expect(messages).toMatch(
      /row 33 \(line 65\) is skipped: the quote opened on line 65 is never closed; reading goes on at line 66/,
    );
  });

  it('stops at a bad UTF-8 byte past the sample with the message of this thread (offset, line)', async () => {
    const dir = newDir();
    const file = join(dir, 'bad.csv');
    const pad = 'x'.repeat(240);
    const rows = Array.from(
      { length: 1100 },
      (_, i) => `S${i},"Shirt\n${i} ${pad}",1000,https://shop.example/${i}\n`,
    );
    const good = Buffer.from(`sku,name,price,url\n${rows.join('')}`);
    writeFileSync(
      file,
      Buffer.concat([good, Buffer.from('S-x,caf'), Buffer.from([0xe9]), Buffer.from(',1,u\n')]),
    );
    expect(good.length).toBeGreaterThan(256 * 1024);
    const { alone } = await expectSame([file], standard, { chunkBytes: 64 * 1024 }, ['ranges']);
    expect(alone.error).toContain(`at byte offset ${good.length + 7} (line ${1 + 2 * 1100 + 1})`);
    expect(alone.rows.filter((r) => r.row > 0)).toHaveLength(1100);
  });

  it('stops at a bad CP949 byte past the sample with the message of this thread', async () => {
    const dir = newDir();
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
    const { alone } = await expectSame([file], standard, { chunkBytes: 32 * 1024 }, ['ranges']);
    expect(alone.error).toMatch(/nor valid cp949, which it looked like: invalid byte 0xFF/);
    expect(alone.error).toContain(`at byte offset ${good.length + 5} `);
  });

  it('reads a quote inside an unquoted value as a plain character, before quoted line breaks', async () => {
    const dir = newDir();
    const file = join(dir, 'stray.csv');
    const rows = [
      'A,plain,1',
      'B,5" screen,2',
      'C,plain,3',
      'D,"two\nlines",4',
      'E,"a ""b"" c",5',
      'F,plain,6',
    ];
    writeFileSync(file, `sku,name,price\n${rows.join('\n')}\n`);
    for (const chunkBytes of [1, 12, 30]) {
      const { alone } = await expectSame([file], standard, { chunkBytes }, ['ranges']);
      expect(alone.rows.filter((r) => r.row > 0).map((r) => r.sku)).toEqual(['A', 'B', 'C', 'D', 'E', 'F']);
    }
  });

  it('yields the rows of the files read before a missing one, then its usage error', async () => {
    const { alone } = await expectSame([fixture('catalog.csv'), fixture('no-such.csv')]);
    expect(alone.error).toMatch(/no-such\.csv: no such file/);
    expect(alone.rows.filter((r) => r.row > 0)).toHaveLength(25);
  });

  it('stops the workers when the consumer stops early', async () => {
    for (const workers of [1, 2]) {
      const rows = feedRows([fixture('catalog.csv')], standard, memoryLogger(), undefined, {
        serialize: true,
        workers,
        workerUrl,
        chunkBytes: 100,
      });
      for await (const row of rows) if (row.row >= 3) break;
    }
  });

  it('says once on stderr when the worker module is missing, and runs on this thread', async () => {
    const missing = new URL('./no-such-worker.js', workerUrl);
    const { rows, log } = await outcome([fixture('catalog.csv')], 'ranges', standard, { workerUrl: missing });
    expect(rows.filter((r) => r.row > 0)).toHaveLength(25);
    expect(log.filter((l) => l.includes('is not built'))).toHaveLength(1);
  });
});

// Each run spawns workers: a failure is reported as found, not shrunk until the test times out.
describe('random feeds on workers', () => {
  it('CSV (UTF-8, any line ends)', async () => {
    const dir = newDir();
    await fc.assert(
      fc.asyncProperty(
        fc.array(csvText(), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 1, max: 400 }),
        async (texts, chunkBytes) => {
          await expectSame(writeFiles(dir, texts, 'utf8', 'csv'), standard, { chunkBytes });
        },
      ),
      { numRuns: 2, endOnFailure: true },
    );
  });

  it.each([
    ['cp949', CP949_CHARS],
    ['shift_jis', SHIFT_JIS_CHARS],
  ])('CSV in %s', async (encoding, chars) => {
    const dir = newDir();
    const feed = feedOptions({ encoding });
    await fc.assert(
      fc.asyncProperty(
        fc.array(csvText({ oneLineEnd: true, chars, bom: false }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 400 }),
        async (texts, chunkBytes) => {
          const { alone } = await expectSame(writeFiles(dir, texts, encoding, 'csv'), feed, { chunkBytes }, [
            'ranges',
          ]);
          for (const r of alone.rows) if (r.valid) expect(JSON.stringify(r.payload)).not.toMatch(/\uFFFD/);
        },
      ),
      { numRuns: 1, endOnFailure: true },
    );
  });

  it('NDJSON whose rows change their keys', async () => {
    const dir = newDir();
    const line = fc
      .tuple(
        fc.constantFrom('P1', 'P2', 'Q', ''),
        fc.string({ maxLength: 8 }),
        fc.integer({ min: -5, max: 99999 }),
        fc.boolean(),
      )
      .map(([sku, name, price, extra]) =>
        JSON.stringify({
          sku,
          name: `${name}"한\n`,
          price: String(price),
          ...(extra ? { colour: 'red' } : {}),
        }),
      );
    const file = fc
      .tuple(
        fc.array(fc.oneof(line, line, line, fc.constantFrom('', '{bad', '[1]')), { maxLength: 30 }),
        fc.constantFrom('\n', '\r\n'),
      )
      .map(([lines, end]) => lines.join(end) || '{}');
    await fc.assert(
      fc.asyncProperty(
        fc.array(file, { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 1, max: 300 }),
        async (texts, chunkBytes) => {
          await expectSame(writeFiles(dir, texts, 'utf8', 'ndjson'), standard, { chunkBytes });
        },
      ),
      { numRuns: 2, endOnFailure: true },
    );
  });
});

describe('source keys on workers (docs/nightly.md, "Unchanged rows")', () => {
  /** Dates every row needs, from the run: keyed runs resolve them like any other. */
  const feed: FeedOptions = {
    ...standard,
    runDate: '2026-01-31T20:00:00Z',
    set: ['availability_starts=today', 'availability_ends=+1y'],
  };

  it('key the same rows alike and skip those a table knows, with each job carrying the table', async () => {
    const files = [fixture('catalog.csv'), fixture('catalog-invalid.csv'), fixture('catalog.ndjson')];
    const keyed = await expectSame(files, feed, { keys: {} }, ['ranges']);
    const rows = keyed.alone.rows;
    expect(rows.filter((r) => r.source !== undefined).length).toBeGreaterThan(20);
    const picked = rows.filter((r, i) => r.source !== undefined && i % 2 === 0);
    const table = KnownSources.build(picked.map((r) => ({ source: r.source!, sku: r.sku! })));
    let built = 0;
    const known = async () => {
      built++;
      return table;
    };
    const { alone } = await expectSame(files, feed, { keys: { known } });
    expect(built).toBe(3); // once per run: this thread, one worker, two
    expect(alone.rows.filter((r) => r.unchanged).map((r) => r.sku)).toEqual(picked.map((r) => r.sku));
  });

  it('skip the same rows with the table as a file (past KNOWN_ON_DISK_AT), which each run closes', async () => {
    const files = [fixture('catalog.csv'), fixture('catalog-invalid.csv'), fixture('catalog.ndjson')];
    const keyed = await expectSame(files, feed, { keys: {} }, ['ranges']);
    const picked = keyed.alone.rows.filter((r, i) => r.source !== undefined && i % 3 === 0);
    const closed: boolean[] = [];
    const known = async () => {
      const table = KnownSources.build(
        picked.map((r) => ({ source: r.source!, sku: r.sku! })),
        0,
      );
      expect('fd' in table.data).toBe(true);
      const at = closed.push(false) - 1;
      const close = table.close.bind(table);
      table.close = () => {
        closed[at] = true;
        close();
      };
      return table;
    };
    const { alone } = await expectSame(files, feed, { keys: { known } });
    expect(alone.rows.filter((r) => r.unchanged).map((r) => r.sku)).toEqual(picked.map((r) => r.sku));
    // Each run (this thread, one worker, two) closed its table's file once its rows were out.
    expect(closed).toEqual([true, true, true]);
  });

  it('strip the key of a duplicate, unchanged or not', async () => {
    const dir = newDir();
    const file = join(dir, 'dup.csv');
    const catalog = readFileSync(fixture('catalog.csv'), 'utf8').split('\n');
    // Rows 1, 2 and 1 again of the sample catalog: valid rows, the last a duplicate.
    writeFileSync(file, `${[catalog[0], catalog[1], catalog[2], catalog[1]].join('\n')}\n`);
    const first = await outcome([file], 'inline', feed, { keys: {} });
    const a = first.rows[0];
    expect(a.source).toBeDefined();
    const table = KnownSources.build([{ source: a.source!, sku: a.sku! }]);
    const { alone } = await expectSame([file], feed, { keys: { known: async () => table }, chunkBytes: 1 });
    expect(alone.rows[0].unchanged).toBe(true);
    const dup = alone.rows[2];
    expect(dup.sku).toBe(a.sku);
    expect(dup.valid).toBe(false);
    expect(dup.source).toBeUndefined();
    expect(dup.unchanged).toBeUndefined();
  });

  it('check the GTIN of a skipped row: a new row may not take the GTIN of an unchanged one', async () => {
    const dir = newDir();
    const catalog = readFileSync(fixture('catalog.csv'), 'utf8').split('\n');
    const night1 = join(dir, 'night1.csv');
    writeFileSync(night1, `${[catalog[0], catalog[1]].join('\n')}\n`);
    const first = await outcome([night1], 'inline', feed, { keys: {} });
    const a = first.rows[0];
    expect(a.gtin).toBe('8800000010373');
    const table = KnownSources.build([{ source: a.source!, sku: a.sku! }]);
    // The next night: the same row, unchanged, then a new SKU with its GTIN.
    const night2 = join(dir, 'night2.csv');
    const copied = catalog[2].replace('8800000010748', '8800000010373');
    writeFileSync(night2, `${[catalog[0], catalog[1], copied].join('\n')}\n`);
    const { alone } = await expectSame([night2], feed, { keys: { known: async () => table }, chunkBytes: 1 });
    expect(alone.rows[0].unchanged).toBe(true);
    const taken = alone.rows[1];
    expect(taken.valid).toBe(false);
    expect(taken.issues.map((i) => i.code)).toEqual(['duplicate_gtin']);
    expect(taken.issues[0].message).toContain('another SKU at row 1');
  });
});
