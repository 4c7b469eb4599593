import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KnownSources } from '../../src/feed/known-sources.js';
import { type FeedRow, type FeedRowsOptions, feedRows, payloadJson } from '../../src/feed/threads.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedOptions } from '../../src/shared/types.js';
import { csvText, gtinFor } from './random-csv.js';

/**
 * Source keys through the feed (docs/nightly.md, "Unchanged rows"): a first run collects each
 * row's key, a second run with a table of some of them skips exactly those rows, on each of the
 * three paths (in-thread, reading here with the feed on a worker, the pool).
 */

const root = join(import.meta.dirname, '..', '..');
const fixture = (...p: string[]) => join(root, 'fixtures', ...p);
// The workers run from the build (`npm test` builds first); vitest's sources have no .js files.
const workerUrl = new URL('../../dist/feed/worker.js', import.meta.url);
const poolWorkerUrl = new URL('../../dist/feed/pool-worker.js', import.meta.url);
const builtThreads = new URL('../../dist/feed/threads.js', import.meta.url);

/** Dates every row needs, from the run: keyed runs resolve them like any other. */
const feed: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  runDate: '2026-01-31T20:00:00Z',
  set: ['availability_starts=today', 'availability_ends=+1y'],
};

type Path = 'one' | 'two' | 'pool';
const PATHS: Path[] = ['one', 'two', 'pool'];

function pathOptions(path: Path, keys: FeedRowsOptions['keys']): FeedRowsOptions {
  if (path === 'pool')
    return { serialize: true, threaded: false, pool: 2, poolWorkerUrl, chunkTarget: 300, keys };
  return { serialize: true, threaded: path === 'two', workerUrl, keys };
}

async function run(
  files: string[],
  path: Path,
  keys?: FeedRowsOptions['keys'],
  options: FeedOptions = feed,
  rowsOf: typeof feedRows = feedRows,
): Promise<FeedRow[]> {
  const rows: FeedRow[] = [];
  for await (const row of rowsOf(files, options, memoryLogger(), undefined, pathOptions(path, keys)))
    rows.push(row);
  return rows;
}

const jsonOf = (r: FeedRow) => (r.valid ? Buffer.from(payloadJson(r) ?? []).toString() : null);

/** What a consumer uses of a row, its key's value apart (see the last test, "... the build"). */
const seen = (r: FeedRow) => [
  r.file,
  r.row,
  r.line,
  r.sku,
  r.valid,
  r.issues,
  r.unchanged ?? false,
  r.source !== undefined,
  jsonOf(r),
];

/** A row that may carry a key: a product row, valid, without any issue. */
const keyable = (r: FeedRow) => r.row > 0 && r.valid && r.issues.length === 0;

/**
 * The keyed runs of `files` on every path: without keys, with `keys: {}`, then with a table of
 * every other keyed row (and one key no row has). Checks each path against the run without keys
 * and the paths against each other; returns the rows for more checks.
 */
async function keyedRuns(files: string[], options: FeedOptions = feed) {
  const plain = await run(files, 'one', undefined, options);
  const out = new Map<Path, { keyed: FeedRow[]; known: FeedRow[]; picked: Set<number> }>();
  for (const path of PATHS) {
    const keyed = await run(files, path, {}, options);
    // With keys and nothing known: the same rows, issues and payloads, and a key on exactly the
    // rows without issues.
    expect(keyed.map((r) => seen({ ...r, source: undefined }))).toEqual(plain.map(seen));
    for (const r of keyed) {
      expect(r.unchanged, path).toBeUndefined();
      expect(r.source !== undefined, `${path} row ${r.row}`).toBe(keyable(r));
      if (r.source !== undefined) expect(r.source).toMatch(/^[A-Za-z0-9_-]{22}$/);
    }
    const picked = new Set(keyed.flatMap((r, i) => (r.source !== undefined && i % 2 === 0 ? [i] : [])));
    const table = KnownSources.build([
      ...[...picked].map((i) => ({ source: keyed[i].source!, sku: keyed[i].sku! })),
      { source: 'A'.repeat(22), sku: 'NOT-IN-THE-FEED' },
    ]);
    let built = 0;
    const known = await run(
      files,
      path,
      {
        known: () => {
          built++;
          return table;
        },
      },
      options,
    );
    expect(built, path).toBe(1);
    expect(known.length).toBe(keyed.length);
    known.forEach((r, i) => {
      const at = `${path} ${r.file} row ${r.row}`;
      if (picked.has(i)) {
        // Skipped: its SKU from the table, no payload, its key alone (the known one).
        expect({ ...r }, at).toEqual({
          file: keyed[i].file,
          row: keyed[i].row,
          line: keyed[i].line,
          sku: keyed[i].sku,
          issues: [],
          valid: true,
          unchanged: true,
          source: keyed[i].source,
        });
      } else {
        // Mapped as without the table: same issues and payload bytes, same key.
        expect(seen(r), at).toEqual(seen(keyed[i]));
        expect(r.source, at).toBe(keyed[i].source);
        expect(r.unchanged, at).toBeUndefined();
      }
    });
    out.set(path, { keyed, known, picked });
  }
  const one = out.get('one')!;
  const two = out.get('two')!;
  const pool = out.get('pool')!;
  for (const other of [two, pool]) {
    expect(other.keyed.map(seen)).toEqual(one.keyed.map(seen));
    expect(other.known.map(seen)).toEqual(one.known.map(seen));
  }
  return { plain, ...one };
}

/** A small CSV of products that map without any issue, in the canonical columns. */
const HEADER =
  'sku,name,brand_id,brand_name,category_name,category_code,description,price,currency,availability,gtin,mpn,image_urls,url';
const product = (sku: string, name = '면 티셔츠', price = '12000') =>
  `${sku},"${name}",b,브랜드,의류,CLO,"부드러운 면, 흰색",${price},KRW,InStock,${gtinFor(sku)},${sku},https://cdn.example.kr/${sku}.jpg,https://shop.example.kr/${sku}`;

const dir = mkdtempSync(join(tmpdir(), 'genser-keyed-'));
function csvFile(name: string, lines: string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${[HEADER, ...lines].join('\n')}\n`);
  return file;
}

/**
 * Random CSV files (test/feed/random-csv.ts: sku, name, price and description), one per seed;
 * these seeds give several rows without issues. One line end per file (the pool cuts them), or
 * LF, CRLF and CR mixed (one thread reads them).
 */
function randomFiles(oneLineEnd: boolean, seeds: number[]): string[] {
  return seeds.map((seed) => {
    const file = join(dir, `random-${oneLineEnd ? 'one' : 'mixed'}-${seed}.csv`);
    writeFileSync(file, fc.sample(csvText({ oneLineEnd, identifiers: true }), { numRuns: 1, seed })[0]);
    return file;
  });
}

/** The rest of a product for the random files' rows, from --set. */
const randomOptions: FeedOptions = {
  ...feed,
  set: [
    ...feed.set!,
    ...['brand_id=b', 'brand_name=B', 'category_name=옷', 'category_code=C', 'currency=KRW'],
    ...['availability=InStock', 'image_urls=https://cdn.example.kr/a.jpg'],
    'url=https://shop.example.kr/p',
  ],
};

/** Inputs for the runs on every path: files, settings, and how many rows at least are keyed. */
const INPUTS: [string, () => string[], FeedOptions, number][] = [
  [
    'catalog.csv and catalog-invalid.csv',
    () => [fixture('catalog.csv'), fixture('catalog-invalid.csv')],
    feed,
    20,
  ],
  // Apart from catalog.csv: their SKUs are its, so after it every row would be a duplicate.
  ['catalog.ndjson', () => [fixture('catalog.ndjson')], feed, 8],
  // A JSON array: the pool leaves it to one thread.
  ['catalog.json', () => [fixture('catalog.json')], feed, 2],
  ['random CSV, one line end each', () => randomFiles(true, [15, 21]), randomOptions, 8],
  ['random CSV, line ends mixed', () => randomFiles(false, [14]), randomOptions, 5],
];

/** A table of the keys of `rows` (all, or those `pick` keeps), as the state would give it. */
function tableOf(rows: FeedRow[], pick: (r: FeedRow, i: number) => boolean = () => true): KnownSources {
  return KnownSources.build(
    rows
      .filter((r, i) => r.source !== undefined && pick(r, i))
      .map((r) => ({ source: r.source!, sku: r.sku! })),
  );
}

const unchangedOf = (rows: FeedRow[]) => rows.map((r) => r.unchanged ?? false);

describe('source keys through the feed, on every path', () => {
  it('is built', () => {
    for (const url of [workerUrl, poolWorkerUrl, builtThreads])
      expect(existsSync(url), 'run `npm run build` first').toBe(true);
  });

  it.each(INPUTS)(
    'skips exactly the known rows of %s, on all three paths',
    async (_name, files, options, least) => {
      const { keyed, known, picked } = await keyedRuns(files(), options);
      expect(keyed.filter((r) => r.source !== undefined).length).toBeGreaterThanOrEqual(least);
      expect(known.filter((r) => r.unchanged).length).toBe(picked.size);
      expect(picked.size).toBeGreaterThan(0);
    },
  );

  it.each(PATHS)(
    'never keys nor skips a row with a read issue, even when its values are a known row; a row with a mapping warning is keyed with it (%s)',
    async (path) => {
      // A-5's name is `면 "티셔츠`: its quote doubled in before.csv, not in after.csv (a read
      // warning, malformed_quote), where papaparse reads the same value: the same record.
      const good = [
        product('A-1'),
        product('A-2'),
        product('A-3'),
        product('A-4'),
        product('A-5', '면 ""티셔츠'),
      ];
      const before = csvFile('before.csv', good);
      // A-2 with an extra value and A-3 one short (both skipped by the reader), A-4 without its
      // category code (a warning from mapping), A-5 with its stray quote.
      const after = csvFile('after.csv', [
        good[0],
        `${good[1]},extra`,
        good[2].slice(0, good[2].lastIndexOf(',')),
        good[3].replace(',CLO,', ',,'),
        product('A-5', '면 "티셔츠'),
      ]);
      const first = await run([before], path, {});
      expect(first.map((r) => r.source !== undefined)).toEqual([true, true, true, true, true]);
      const table = tableOf(first);
      const rows = await run([after], path, { known: () => table });
      const [same, long, short, warned, quoted] = rows.filter((r) => r.row > 0);
      expect(same.unchanged).toBe(true);
      expect(same.sku).toBe('A-1');
      // A-4's values changed (its category code is gone): mapped, and keyed with its warning.
      expect(warned.unchanged).toBeUndefined();
      expect(warned.issues.map((i) => i.code)).toContain('recommended');
      expect(warned.source?.slice(22)).toBe(
        JSON.stringify(warned.issues.map(({ file: _f, row: _r, line: _l, sku: _s, ...rest }) => rest)),
      );
      for (const [r, code] of [
        [long, 'ragged_row'],
        [short, 'ragged_row'],
        [quoted, 'malformed_quote'],
      ] as const) {
        expect(r.unchanged, `row ${r.row}`).toBeUndefined();
        expect(r.source, `row ${r.row}`).toBeUndefined();
        expect(
          r.issues.map((i) => i.code),
          `row ${r.row}`,
        ).toContain(code);
      }
      // Mapped, and the same payload as the known row's: only its read warning differs.
      expect(quoted.valid).toBe(true);
      expect(jsonOf(quoted)).toBe(jsonOf(first[4]));
      expect(warned.valid).toBe(true);
      expect(jsonOf(warned)).toContain('"A-4"');
    },
  );

  it.each(PATHS)(
    'skips a known row that had warnings and reports the same warnings at its new place (%s)',
    async (path) => {
      // C-2 and C-4 lack their category code (a recommended field): valid, with a warning.
      const rows1 = [product('C-1'), product('C-2').replace(',CLO,', ',,'), product('C-3')];
      const rows2 = [product('C-0'), rows1[2], rows1[1], product('C-4').replace(',CLO,', ',,')];
      const first = await run([csvFile('first.csv', rows1)], path, {});
      expect(first.find((r) => r.sku === 'C-2')?.issues.length).toBeGreaterThan(0);
      const table = tableOf(first);
      expect(table.size).toBe(3);
      const second = csvFile('second.csv', rows2);
      const skipped = await run([second], path, { known: () => table });
      const mapped = await run([second], path);
      expect(skipped.map((r) => [r.sku, r.unchanged ?? false])).toEqual([
        ['C-0', false],
        ['C-3', true],
        ['C-2', true],
        ['C-4', false],
      ]);
      // Row 3 (C-2, row 2 before) carries its warnings with this run's file, row and line, the
      // very issues mapping gives it.
      skipped.forEach((r, i) => {
        // As JSON: reports print the issues' keys in order.
        expect(JSON.stringify(r.issues), `row ${r.row}`).toBe(JSON.stringify(mapped[i].issues));
        expect(r.valid).toBe(mapped[i].valid);
      });
      expect(skipped[2].issues[0]).toMatchObject({ row: 3, sku: 'C-2', severity: 'warning' });
    },
  );

  const base = [product('B-1'), product('B-2'), product('B-3', '바지'), product('B-4')];

  it.each(PATHS)(
    'maps a changed row again, whichever value changed, and skips the others (%s)',
    async (path) => {
      const first = csvFile('first.csv', base);
      const second = csvFile('second.csv', [
        product('B-1', '면 티셔츠 '), // a trailing space
        product('B-2', '면 티셔츠', '12001'),
        base[2],
        base[3].replace('https://shop.example.kr/B-4', 'https://shop.example.kr/B-4?v=2'),
      ]);
      const table = tableOf(await run([first], path, {}));
      expect(table.size).toBe(4);
      const rows = await run([second], path, { known: () => table });
      expect(rows.map((r) => [r.sku, r.unchanged ?? false])).toEqual([
        ['B-1', false],
        ['B-2', false],
        ['B-3', true],
        ['B-4', false],
      ]);
      for (const r of rows.filter((x) => !x.unchanged)) expect(r.source).toMatch(/^[\w-]{22}$/);
      expect(jsonOf(rows[1])).toContain('12001');
      expect(jsonOf(rows[3])).toContain('B-4?v=2');
    },
  );

  it.each(PATHS)(
    'skips no row when the columns are reordered or the settings or the day change (%s)',
    async (path) => {
      const first = csvFile('first.csv', base);
      // The same values under a header with two columns swapped.
      const cols = HEADER.split(',');
      [cols[2], cols[3]] = [cols[3], cols[2]];
      const reordered = join(dir, 'reordered.csv');
      const swapped = base.map((line) => line.replace(',b,브랜드,', ',브랜드,b,'));
      writeFileSync(reordered, `${[cols.join(','), ...swapped].join('\n')}\n`);
      const table = tableOf(await run([first], path, {}));
      expect(unchangedOf(await run([reordered], path, { known: () => table }))).toEqual([
        false,
        false,
        false,
        false,
      ]);
      // --strict; the next day in Seoul (the relative dates move); the same day, later: all skipped.
      for (const [options, expected] of [
        [{ ...feed, strict: true }, false],
        [{ ...feed, runDate: '2026-02-01T15:00:00Z' }, false],
        [{ ...feed, runDate: '2026-02-01T14:59:00Z' }, true],
      ] as const) {
        const rows = await run([first], path, { known: () => table }, options);
        expect(unchangedOf(rows), options.runDate).toEqual([expected, expected, expected, expected]);
      }
    },
  );

  it.each(PATHS)(
    'reports a duplicate of a known row as duplicate_sku naming the first row, in a file and across files (%s)',
    async (path) => {
      const rows = [product('D-1'), product('D-2'), product('D-1')];
      const file = csvFile('dups.csv', rows);
      // A second file repeating D-2 as it is, and D-1 changed.
      const other = csvFile('dups-2.csv', [product('D-2'), product('D-1', '다른 이름')]);
      // A changed first D-1 (mapped), then its known self: the copy is the duplicate.
      const flipped = csvFile('flipped.csv', [product('D-1', '새 이름'), product('D-1')]);
      const table = tableOf(await run([csvFile('once.csv', [rows[0], rows[1]])], path, {}));
      const out = await run([file, other], path, { known: () => table });
      const [d1, d2, again, d2b, d1b] = out;
      expect([d1.unchanged, d2.unchanged]).toEqual([true, true]);
      for (const [r, first] of [
        [again, 'row 1'],
        [d2b, `row 2 of ${file}`],
        [d1b, `row 1 of ${file}`],
      ] as const) {
        const at = `${r.file} row ${r.row}`;
        expect(r.unchanged, at).toBeUndefined();
        expect(r.source, at).toBeUndefined();
        expect(r.valid, at).toBe(false);
        expect(
          r.issues.map((i) => [i.code, i.row]),
          at,
        ).toEqual([['duplicate_sku', r.row]]);
        expect(r.issues[0].message, at).toContain(`first seen at ${first}`);
      }
      // As a run without the table reports them.
      const plain = await run([file, other], 'one');
      expect(out.slice(2).map((r) => r.issues)).toEqual(plain.slice(2).map((r) => r.issues));
      const [changed, copy] = await run([flipped], path, { known: () => table });
      expect([changed.unchanged, changed.valid, changed.source !== undefined]).toEqual([
        undefined,
        true,
        true,
      ]);
      expect([copy.unchanged, copy.valid, copy.source]).toEqual([undefined, false, undefined]);
      expect(copy.issues.map((i) => i.code)).toEqual(['duplicate_sku']);
      expect(copy.issues[0].message).toContain('first seen at row 1');
    },
  );

  it.each(PATHS)(
    'does not take a number JSON reads as Infinity (1e999) for a known null (%s)',
    async (path) => {
      // NDJSON rows whose category codes are ["C", null] (valid, known) and ["C", 1e999]: the
      // second maps to a code "Infinity" with no name (an error), so it must not come out unchanged.
      const line = (codes: string) =>
        `{"sku":"N-1","name":"n","description":"d","brand_id":"b","brand_name":"B","category_name":"c","category_code":${codes},"price":100,"currency":"KRW","availability":"InStock","gtin":"8801234567893","mpn":"M","image_urls":"https://cdn.example.kr/a.jpg","url":"https://shop.example.kr/a"}`;
      const known = join(dir, 'null.ndjson');
      const changed = join(dir, 'infinity.ndjson');
      writeFileSync(known, `${line('["C",null]')}\n`);
      writeFileSync(changed, `${line('["C",1e999]')}\n`);
      const first = await run([known], path, {});
      expect(first[0].source).toBeDefined();
      const [row] = await run([changed], path, { known: () => tableOf(first) });
      expect(row.unchanged).toBeUndefined();
      expect(row.valid).toBe(false);
      expect(row.issues.map((i) => i.code)).toEqual(['required']);
    },
  );

  it.each(['one', 'two'] as const)(
    'maps a Magento simple again when the attribute it inherits changes its name, not its value (%s)',
    async (path) => {
      // A mapping that reads two more attributes (docs/presets.md: attr.<code> columns). The
      // simple X-1 inherits its configurable parent's attributes: color=M, then size=M. X-1's own
      // row is the same both times; its product is not (seo_title M, then hs_code M).
      const preset = JSON.parse(readFileSync(join(root, 'presets', 'magento.json'), 'utf8'));
      delete preset.$schema;
      preset.fields.seo_title = { column: 'attr.color' };
      preset.fields.hs_code = { column: 'attr.size' };
      preset.fields.image_urls.prefix = 'https://shop.example.com/media/catalog/product';
      preset.fields.url = { column: 'url_key', prefix: 'https://shop.example.com/', suffix: '.html' };
      const mapping = join(dir, 'magento-attributes.json');
      writeFileSync(mapping, JSON.stringify(preset));
      const options: FeedOptions = { ...feed, mapping, set: ['currency=USD', ...feed.set!] };
      const header =
        'sku,store_view_code,product_type,categories,name,description,product_online,visibility,price,url_key,base_image,additional_attributes,is_in_stock,configurable_variations';
      const row = (sku: string, type: string, visibility: string, attributes: string, variations = '') =>
        `${sku},,${type},Default Category/Gear/Bags,Bag ${sku},<p>Bag</p>,1,${visibility},30,${sku.toLowerCase()},/b/${sku}.jpg,"${attributes}",1,"${variations}"`;
      const file = (name: string, parent: string) => {
        const path = join(dir, name);
        const rows = [
          // The first row has both attributes: the file's plan reads attr.color and attr.size.
          row('S-1', 'simple', '"Catalog, Search"', 'ean=4006381333931,brand=Luma,color=red,size=L'),
          row('X-1', 'simple', 'Not Visible Individually', 'ean=8801234567893,brand=Luma'),
          row('P-1', 'configurable', '"Catalog, Search"', parent, 'sku=X-1,color=M'),
        ];
        writeFileSync(path, `${[header, ...rows].join('\n')}\n`);
        return path;
      };
      const before = (await run([file('magento-a.csv', 'color=M')], path, {}, options)).filter(
        (r) => r.row > 0,
      );
      expect(before.map((r) => [r.sku, r.source !== undefined])).toEqual([
        ['S-1', true],
        ['X-1', true],
      ]);
      const after = file('magento-b.csv', 'size=M');
      const plain = (await run([after], path, undefined, options)).filter((r) => r.row > 0);
      expect(jsonOf(plain[1])).not.toBe(jsonOf(before[1]));
      const rows = (await run([after], path, { known: () => tableOf(before) }, options)).filter(
        (r) => r.row > 0,
      );
      expect(rows.map((r) => [r.sku, r.unchanged ?? false])).toEqual([
        ['S-1', true],
        ['X-1', false],
      ]);
      expect(jsonOf(rows[1])).toBe(jsonOf(plain[1]));
    },
  );

  // In the tests above the in-thread path runs src/ and the workers dist/: their code digests
  // differ, so their keys do (src/shared/code-digest.ts). Run from the build, as genser is, a
  // state written on one path (a small file, in-thread) serves the next run on another (the pool).
  const builtInputs: [string, () => string[], FeedOptions][] = [
    ...INPUTS.filter(([name]) => name !== 'catalog.json').map(
      ([n, f, o]): [string, () => string[], FeedOptions] => [n, f, o],
    ),
    [
      'a file with a duplicate SKU',
      () => [csvFile('dups-built.csv', [product('E-1'), product('E-2'), product('E-1')])],
      feed,
    ],
  ];
  it.each(builtInputs)(
    'keys from one path skip the same rows on the others, every path running the build (%s)',
    async (_name, files, options) => {
      const built = (await import(builtThreads.href)) as { feedRows: typeof feedRows };
      const full = (r: FeedRow) => [...seen(r), r.source];
      const keyed: FeedRow[][] = [];
      for (const p of PATHS) keyed.push(await run(files(), p, {}, options, built.feedRows));
      expect(keyed[0].filter((r) => r.source !== undefined).length).toBeGreaterThan(1);
      for (const other of keyed.slice(1)) expect(other.map(full)).toEqual(keyed[0].map(full));
      const picked = keyed[0].filter((r, i) => r.source !== undefined && i % 2 === 0);
      const table = tableOf(picked);
      const known: FeedRow[][] = [];
      for (const p of PATHS)
        known.push(await run(files(), p, { known: () => table }, options, built.feedRows));
      expect(known[0].filter((r) => r.unchanged).map((r) => r.row)).toEqual(picked.map((r) => r.row));
      for (const other of known.slice(1)) expect(other.map(full)).toEqual(known[0].map(full));
    },
  );
});
