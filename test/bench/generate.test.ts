import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COLUMNS,
  csvField,
  ean13,
  ensureCatalog,
  INVALID_EVERY,
  INVALID_OFFSET,
  invalidCount,
  isValidEan13,
  readCatalogMeta,
  SHORT_COLUMNS,
  writeCatalog,
} from '../../bench/generate.mjs';
import { genser } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-bench-gen-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 2_600;

function parse(file: string): Papa.ParseResult<Record<string, string>> {
  return Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), {
    header: true,
    skipEmptyLines: true,
  });
}

describe('bench catalog generator', () => {
  it('writes N rows in the canonical columns, parseable as CSV', async () => {
    const file = join(dir, 'a.csv');
    const meta = await writeCatalog(file, { rows: ROWS });
    const parsed = parse(file);
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...COLUMNS]);
    expect(COLUMNS.length).toBeGreaterThanOrEqual(28);
    expect(parsed.data).toHaveLength(ROWS);
    expect(meta).toMatchObject({ rows: ROWS, columns: COLUMNS.length, bytes: statSync(file).size });
    expect(parsed.data[0].sku).toBe('SKU-00000001');
    expect(parsed.data[ROWS - 1].sku).toBe(`SKU-${String(ROWS).padStart(8, '0')}`);
  });

  it('writes realistic text: Korean, Japanese, quoted commas and newlines, long HTML, valid GTINs', async () => {
    const file = join(dir, 'b.csv');
    await writeCatalog(file, { rows: ROWS });
    const rows = parse(file).data;
    expect(rows.every((r) => /[가-힣]/.test(r['name@ko']))).toBe(true);
    expect(rows.every((r) => /[\u3040-\u30ff]/.test(r['name@ja']))).toBe(true);
    expect(rows.some((r) => r['description@ko'].includes('\n'))).toBe(true);
    expect(rows.some((r) => r['description@en'].includes(','))).toBe(true);
    expect(rows.some((r) => r.html.includes('"') && r.html.includes('\n'))).toBe(true);
    expect(Math.max(...rows.map((r) => r.html.length))).toBeGreaterThan(1500);
    expect(rows.every((r) => isValidEan13(r.gtin))).toBe(true);
    expect(rows.some((r) => r['category_name@ko'].includes('|'))).toBe(true);
    expect(
      rows.every((r) => r['category_name@ko'].split('|').length === r.category_code.split('|').length),
    ).toBe(true);
  });

  it('makes exactly the announced rows invalid, and no others', async () => {
    const file = join(dir, 'c.csv');
    const meta = await writeCatalog(file, { rows: ROWS });
    const rows = parse(file).data;
    const broken = rows
      .map((r, i) => ({ n: i + 1, r }))
      .filter(
        ({ r }) =>
          !/^\d+(\.\d+)?$/.test(r.price) ||
          !/^(InStock|in stock|OutOfStock|PreOrder)$/.test(r.availability) ||
          /-13-45/.test(r.availability_starts),
      )
      .map(({ n }) => n);
    const expected = [];
    for (let n = INVALID_OFFSET; n <= ROWS; n += INVALID_EVERY) expected.push(n);
    expect(broken).toEqual(expected);
    expect(meta.invalidRows).toBe(expected.length);
    expect(invalidCount(ROWS)).toBe(3);
  });

  it('is deterministic for a seed and differs across seeds', async () => {
    const hash = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
    await writeCatalog(join(dir, 'd1.csv'), { rows: 300, seed: 7 });
    await writeCatalog(join(dir, 'd2.csv'), { rows: 300, seed: 7 });
    await writeCatalog(join(dir, 'd3.csv'), { rows: 300, seed: 8 });
    expect(hash(join(dir, 'd1.csv'))).toBe(hash(join(dir, 'd2.csv')));
    expect(hash(join(dir, 'd1.csv'))).not.toBe(hash(join(dir, 'd3.csv')));
  });

  it('reuses a complete catalog and regenerates when forced', async () => {
    const first = await ensureCatalog(120, { dir });
    const again = await ensureCatalog(120, { dir });
    const forced = await ensureCatalog(120, { dir, force: true });
    expect([first.generated, again.generated, forced.generated]).toEqual([true, false, true]);
    expect(again.file).toBe(first.file);
  });

  it('writes the short-row shape: 17 canonical columns, about 330 bytes a row, Korean, quoted commas and line breaks', async () => {
    const file = join(dir, 'short.csv');
    const meta = await writeCatalog(file, { rows: ROWS, shape: 'short' });
    const parsed = parse(file);
    expect(parsed.errors).toEqual([]);
    expect(parsed.meta.fields).toEqual([...SHORT_COLUMNS]);
    expect(SHORT_COLUMNS).toHaveLength(17);
    expect(parsed.data).toHaveLength(ROWS);
    expect(meta).toMatchObject({ shape: 'short', rows: ROWS, columns: 17, bytes: statSync(file).size });
    const perRow = meta.bytes / ROWS;
    expect(perRow).toBeGreaterThan(300);
    expect(perRow).toBeLessThan(370);
    const rows = parsed.data;
    expect(rows.every((r) => /[가-힣]/.test(r['name@ko']) && /[가-힣]/.test(r['description@ko']))).toBe(true);
    expect(rows.some((r) => r['name@ko'].includes(','))).toBe(true);
    expect(rows.some((r) => r['description@ko'].includes('\n'))).toBe(true);
    expect(rows.every((r) => isValidEan13(r.gtin))).toBe(true);
  });

  it('puts the same defect rows in the short shape as in the long one', async () => {
    const file = join(dir, 'short-bad.csv');
    const meta = await writeCatalog(file, { rows: ROWS, shape: 'short' });
    const broken = parse(file)
      .data.map((r, i) => ({ n: i + 1, r }))
      .filter(
        ({ r }) =>
          !/^\d+(\.\d+)?$/.test(r.price) ||
          !/^(InStock|in stock|OutOfStock)$/.test(r.availability) ||
          /-13-45/.test(r.availability_starts),
      )
      .map(({ n }) => n);
    expect(broken).toEqual([500, 1500, 2500]);
    expect(meta.invalidRows).toBe(3);
    // genser agrees: those rows and only those are invalid, one error each.
    const ran = await genser(['validate', file, '--json']);
    const report = JSON.parse(ran.stdout);
    expect(report.rows).toEqual({ total: ROWS, valid: ROWS - 3, invalid: 3 });
    expect(report.counts).toMatchObject({ errors: 3, warnings: 0 });
    expect(report.issues.map((i: { row: number }) => i.row)).toEqual([500, 1500, 2500]);
  });

  it('keeps the shapes apart: own file names, a sidecar of one shape is not reused for the other', async () => {
    const long = await ensureCatalog(150, { dir });
    const short = await ensureCatalog(150, { dir, shape: 'short' });
    expect(long.file).toMatch(/catalog-150\.csv$/);
    expect(short.file).toMatch(/catalog-short-150\.csv$/);
    expect(short.generated).toBe(true);
    expect(readCatalogMeta(short.file, undefined, 'long')).toBeNull();
    expect(readCatalogMeta(short.file, undefined, 'short')).toMatchObject({ shape: 'short', rows: 150 });
    expect((await ensureCatalog(150, { dir, shape: 'short' })).generated).toBe(false);
  });

  it('computes check digits and quotes like RFC 4180', () => {
    expect(ean13('400638133393')).toBe('4006381333931');
    expect(isValidEan13('4006381333932')).toBe(false);
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"\nbye')).toBe('"say ""hi""\nbye"');
  });
});
