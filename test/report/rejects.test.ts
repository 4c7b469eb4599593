import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { catalogHeader, catalogRows } from '../helpers/sample-catalog.js';
import { json, problem, productsOf, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/** `--rejects FILE` (docs/upload.md, "Fixing refused rows"): refused and rejected rows as they were. */

const dir = mkdtempSync(join(tmpdir(), 'genser-rejects-'));
let n = 0;
const fresh = (name: string) => join(dir, `${++n}-${name}`);

const header = catalogHeader;
const sample = catalogRows;
const PRICE = header.indexOf('price');
const SKU = header.indexOf('sku');

/** The fixture's first `count` rows, row `bad` with a price that is no number. */
function feed(count: number, bad: number): string {
  const rows = sample
    .slice(0, count)
    .map((r, i) => (i + 1 === bad ? r.map((v, k) => (k === PRICE ? '12,000원' : v)) : r));
  const file = fresh('feed.csv');
  writeFileSync(file, `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`);
  return file;
}

const parsed = (file: string) =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

describe('--rejects', () => {
  it('validate: the invalid rows as they were (same columns, quoting kept), plus where and why; fed back, it reads clean once fixed', async () => {
    const file = feed(6, 4);
    const rejects = fresh('rejects.csv');
    const r = await genser(['validate', file, '--rejects', rejects]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`--rejects: 1 row(s) written to ${rejects}`);
    const rows = parsed(rejects);
    expect(Object.keys(rows[0])).toEqual([...header, 'genser_row', 'genser_line', 'genser_problem']);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      sku: sample[3][SKU],
      price: '12,000원',
      genser_row: '4',
      genser_line: '5',
    });
    expect(rows[0].genser_problem).toMatch(/offers\.price must be a number/);
    for (const [k, v] of header.entries()) if (k !== PRICE) expect(rows[0][v]).toBe(sample[3][k]);

    writeFileSync(rejects, readFileSync(rejects, 'utf8').replace('"12,000원"', '12000'));
    const again = await genser(['validate', rejects, '--rejects', fresh('again.csv')]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('genser_row');
  });

  it('two CSV files with other columns: the extra columns of the second are named, never dropped silently', async () => {
    const first = feed(3, 2);
    // The second file: the same rows under its own SKUs, with a column the first lacks.
    const second = fresh('second.csv');
    const rows = sample
      .slice(3, 6)
      .map((r, i) => [...r.map((v, k) => (k === PRICE && i === 0 ? 'n/a' : v)), 'x']);
    writeFileSync(second, `${Papa.unparse([[...header, 'season'], ...rows], { newline: '\n' })}\n`);
    const rejects = fresh('rejects.csv');
    const r = await genser(['validate', first, second, '--rejects', rejects]);
    expect(r.code).toBe(1);
    expect(parsed(rejects).map((row) => row.genser_row)).toEqual(['2', '1']);
    expect(r.stderr).toContain(
      '--rejects: the CSV file has the columns of the first file it took rows from; season of a later file are not in it',
    );
  });

  it('NDJSON in, NDJSON out; a JSON array in, NDJSON out (one element per line)', async () => {
    const products = [
      { sku: 'J-1', name: 'ok', price: 'cheap' },
      { sku: 'J-2', name: 'two', price: 5, nested: { a: [1, 2] } },
    ];
    const nd = fresh('feed.ndjson');
    writeFileSync(nd, `${products.map((p) => JSON.stringify(p)).join('\n')}\n`);
    const arr = fresh('feed.json');
    writeFileSync(arr, JSON.stringify(products));
    for (const input of [nd, arr]) {
      const rejects = fresh('rejects.ndjson');
      await genser(['validate', input, '--rejects', rejects]);
      const lines = readFileSync(rejects, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.sku)).toEqual(['J-1', 'J-2']);
      expect(lines[1]).toMatchObject({ nested: { a: [1, 2] }, genser_row: 2 });
      expect(lines[0].genser_problem).toMatch(/price/);
    }
  });

  it('upload: invalid rows and the rows the service rejected (read again from the file), with their problems', async () => {
    const rejectedSku = sample[1][SKU];
    server = await scriptedServer((q, res) => {
      const i = productsOf(q.body).findIndex((p) => p.sku === rejectedSku);
      if (i >= 0)
        return problem(res, 400, 'invalid', [{ index: i, sku: rejectedSku, message: 'brand unknown' }]);
      json(res, 200, {});
    });
    const file = feed(5, 4);
    const rejects = fresh('rejects.csv');
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'rejects-key-123456',
      GENSER_STATE_DIR: fresh('state'),
    };
    const r = await genser(['upload', file, '--rejects', rejects, '--threads', '1'], env);
    expect(r.code).toBe(1);
    const rows = parsed(rejects);
    expect(rows.map((x) => [x.sku, x.genser_row])).toEqual([
      [sample[3][SKU], '4'],
      [rejectedSku, '2'],
    ]);
    expect(rows[1].genser_problem).toBe('brand unknown');
    // The next night knows the products: the guard's spool replays the invalid row with its record.
    const again = fresh('again.csv');
    expect((await genser(['upload', file, '--rejects', again, '--threads', '1'], env)).code).toBe(1);
    expect(parsed(again).map((x) => [x.sku, x.genser_row])).toEqual([
      [sample[3][SKU], '4'],
      [rejectedSku, '2'],
    ]);
    expect(rows[1]['name@en']).toBe(sample[1][header.indexOf('name@en')]);
    expect(rows[1]['name@en']).toBeTruthy();
  });
});
