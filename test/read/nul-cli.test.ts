import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedRows } from '../../src/feed/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { gtinCheckDigit } from '../../src/schema/checks.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { feedOptions } from '../helpers/feed-options.js';
import { genser } from '../helpers/run-cli.js';
import { catalogHeader, catalogRows } from '../helpers/sample-catalog.js';
import { workerFromSource } from '../helpers/workers.js';

/**
 * A NUL byte is one rule wherever it is (docs/reading.md, "Read issues"): the row holding it is
 * refused with a `nul_byte` issue at that row, the other rows go on, and nothing with a NUL
 * reaches the service. Near the top of a file it once made the file "binary" or UTF-16; further
 * down it was uploaded as `\u0000`.
 */
const dir = mkdtempSync(join(tmpdir(), 'genser-nul-'));
let n = 0;
const fresh = (name: string) => join(dir, `${++n}-${name}`);

const header = catalogHeader;
const sample = catalogRows;
const col = (name: string) => header.indexOf(name);

/** 400 valid rows (about 200 KB: row 350 is well past the 64 KiB the encoding is sniffed from). */
const ROWS = 400;
const DOWN = 350;
const rows: Record<string, string>[] = Array.from({ length: ROWS }, (_, i) => {
  const values = [...sample[i % sample.length]];
  const body = `88${String(i + 1).padStart(10, '0')}`;
  values[col('sku')] = `N-${i + 1}`;
  values[col('gtin')] = body + gtinCheckDigit(body);
  values[col('mpn')] = `MPN-N-${i + 1}`;
  return Object.fromEntries(header.map((h, j) => [h, values[j]]));
});

/** Rows with a NUL in `name@en` of the given rows (1-based). */
function withNul(at: number[]): Record<string, string>[] {
  return rows.map((r, i) => (at.includes(i + 1) ? { ...r, 'name@en': `Le\0${r['name@en']}` } : r));
}

const csv = (rs: Record<string, string>[], head: string[] = [...header]) =>
  `${Papa.unparse({ fields: head, data: rs.map((r) => header.map((h) => r[h])) }, { newline: '\n' })}\n`;
/** NDJSON / JSON with the NUL written raw (a byte 0x00) or escaped (`\u0000`). */
const ndjson = (rs: Record<string, string>[], raw: boolean) =>
  rs.map((r) => escapeOrRaw(JSON.stringify(r), raw)).join('\n') + '\n';
const json = (rs: Record<string, string>[], raw: boolean) => escapeOrRaw(JSON.stringify(rs, null, 1), raw);
const escapeOrRaw = (text: string, raw: boolean) => (raw ? text.replaceAll('\\u0000', '\0') : text);

function write(name: string, text: string): string {
  const file = fresh(name);
  writeFileSync(file, text);
  return file;
}

interface Case {
  name: string;
  file: string;
  row: number;
  line: number;
}

/** Each format with a NUL in the first row and far down, raw and (JSON) escaped. */
const cases = (): Case[] => [
  { name: 'csv, first row', file: write('first.csv', csv(withNul([1]))), row: 1, line: 2 },
  { name: 'csv, far down', file: write('down.csv', csv(withNul([DOWN]))), row: DOWN, line: DOWN + 1 },
  {
    name: 'ndjson, first row (raw)',
    file: write('first.ndjson', ndjson(withNul([1]), true)),
    row: 1,
    line: 1,
  },
  {
    name: 'ndjson, far down (raw)',
    file: write('down.ndjson', ndjson(withNul([DOWN]), true)),
    row: DOWN,
    line: DOWN,
  },
  {
    name: 'ndjson, far down (\\u0000)',
    file: write('esc.ndjson', ndjson(withNul([DOWN]), false)),
    row: DOWN,
    line: DOWN,
  },
  { name: 'json, first row (raw)', file: write('first.json', json(withNul([1]), true)), row: 1, line: 2 },
  // Each element of JSON.stringify(..., 1) takes as many lines as it has members, plus 2.
  {
    name: 'json, far down (\\u0000)',
    file: write('esc.json', json(withNul([DOWN]), false)),
    row: DOWN,
    line: 2 + (DOWN - 1) * (header.length + 2),
  },
];

const issuesOf = (stdout: string) =>
  (JSON.parse(stdout) as { issues: { code: string; row?: number; line?: number; column?: string }[] }).issues;

describe('a NUL byte in a feed: the row holding it is refused, the rest is read', () => {
  it.each(cases())(
    'validate, $name: one nul_byte error at the exact row and field, every other row valid, exit 1',
    async (c) => {
      const run = await genser(['validate', c.file, '--json']);
      expect(run.code).toBe(1);
      const report = JSON.parse(run.stdout) as { rows: { total: number; valid: number; invalid: number } };
      expect(report.rows).toEqual({ total: ROWS, valid: ROWS - 1, invalid: 1 });
      const errors = issuesOf(run.stdout).filter((i) => i.code !== 'envelope_recommended');
      expect(errors.map((i) => [i.code, i.row, i.line, i.column])).toEqual([
        ['nul_byte', c.row, c.line, 'name@en'],
      ]);
    },
  );

  it('the one-line message names file, row, line and field, with the hint; never a raw NUL', async () => {
    const file = write('down.csv', csv(withNul([DOWN])));
    const run = await genser(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${file}, column name@en: row ${DOWN} (line ${DOWN + 1}): "name@en" holds a NUL byte (\\0), which no product text has; the row is skipped. Remove it from the source data, or export the file again`,
    );
    expect(run.stderr).not.toContain('\0');
    expect(run.stderr).not.toContain('binary');
  });

  it('the feed workers, on byte ranges, give the same rows as one reader (and one header error)', async () => {
    /** The nul_byte issues, as [row, line], and the rows read. */
    const outcome = async (file: string, workers: number) => {
      const found: [number | undefined, number | undefined][] = [];
      let rows = 0;
      const options = {
        serialize: true,
        workers,
        workerUrl: await workerFromSource('feed/worker.ts'),
        chunkBytes: 4096,
      };
      for await (const row of feedRows([file], feedOptions({}), memoryLogger(), undefined, options)) {
        if (row.row > 0) rows++;
        for (const i of row.issues) if (i.code === 'nul_byte') found.push([i.row, i.line]);
      }
      return { found, rows };
    };
    const inRows = write('ranges.csv', csv(withNul([2, DOWN])));
    const expected = {
      found: [
        [2, 3],
        [DOWN, DOWN + 1],
      ],
      rows: ROWS,
    };
    expect(await outcome(inRows, 0)).toEqual(expected);
    expect(await outcome(inRows, 2)).toEqual(expected);
    // Every range carries the header: its NUL is still said once, and no row is read under it.
    const inHeader = write(
      'header.csv',
      csv(
        rows,
        header.map((h) => (h === 'mpn' ? 'm\0pn' : h)),
      ),
    );
    expect(await outcome(inHeader, 2)).toEqual({ found: [[undefined, 1]], rows: 0 });
  });

  it('a few NULs at the top do not make a UTF-8 file UTF-16 (nor binary)', async () => {
    // Both NULs at odd byte offsets, after an ASCII byte: what UTF-16LE without a BOM looks like.
    let bytes = Buffer.from(csv(withNul([1, 2])));
    for (let at = bytes.indexOf(0); at !== -1; at = bytes.indexOf(0, at + 2))
      if (at % 2 === 0) bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(' '), bytes.subarray(at)]);
    const file = fresh('two.csv');
    writeFileSync(file, bytes);
    const run = await genser(['validate', file, '--json']);
    expect(run.stderr).toContain('encoding utf-8');
    expect(issuesOf(run.stdout).map((i) => [i.code, i.row])).toEqual([
      ['nul_byte', 1],
      ['nul_byte', 2],
    ]);
  });

  it('a NUL in the CSV header: one error naming the column; no row is read under a broken header', async () => {
    const file = write(
      'header.csv',
      csv(
        rows,
        header.map((h) => (h === 'mpn' ? 'm\0pn' : h)),
      ),
    );
    const run = await genser(['validate', file]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      `${file}: the header (line 1) holds a NUL byte (\\0) in column "m\\0pn"; nothing is read from the file`,
    );
    expect(run.stderr).toContain('0 row(s)');
    expect(run.stderr).not.toContain('\0');
  });

  describe('upload into the sandbox', () => {
    let sandbox: RunningSandbox;
    beforeAll(async () => {
      sandbox = await startSandbox({ port: 0, quiet: true });
    });
    afterAll(async () => {
      await sandbox.close();
      clearSecrets();
    });

    it.each(cases().filter((x) => x.name.includes('far down')))(
      '$name: sends every other row, never a value with a NUL; exit 1 naming the row',
      async (c) => {
        const reset = await fetch(`${sandbox.url}/_sandbox/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
        });
        expect(reset.status).toBe(200);
        const env = {
          GENSER_API_URL: sandbox.url,
          GENSER_API_KEY: sandbox.apiKey,
          GENSER_STATE_DIR: fresh('state'),
        };
        const run = await genser(['upload', c.file], env);
        expect(run.code, run.stderr).toBe(1);
        expect(run.stderr).toMatch(new RegExp(`row ${c.row}\\b.*NUL byte`));
        const list = await (await fetch(`${sandbox.url}/_sandbox/products?limit=10000`)).text();
        const skus = (JSON.parse(list) as { items: { sku: string }[] }).items.map((p) => p.sku);
        expect(skus).toHaveLength(ROWS - 1);
        expect(skus).not.toContain(`N-${c.row}`);
        expect(list).not.toMatch(/\\u0000|\0/);
      },
    );
  });
});

describe('a NUL byte read past the first chunks of a file (the reader searches only after the bytes held one)', () => {
  it('is found in the row holding it, with every row before and after it read', async () => {
    // Over 2 MB: the NUL lies several 256 KiB reads past a start that holds none.
    const many = Array.from({ length: 12 }, () => rows).flat();
    const last = many.length - 5;
    const text = csv(many.map((r, i) => (i + 1 === last ? { ...r, 'name@en': `x\0${r['name@en']}` } : r)));
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024);
    const file = write('late.csv', text);
    const { readFeed } = await import('../../src/read/index.js');
    const found: { code: string; row?: number }[] = [];
    let records = 0;
    for await (const item of readFeed(file, { encoding: 'auto' }, memoryLogger())) {
      if (item.type === 'record') records++;
      else found.push({ code: item.issue.code, row: item.issue.row });
    }
    expect(found).toEqual([{ code: 'nul_byte', row: last }]);
    expect(records).toBe(many.length - 1);
  });
});
