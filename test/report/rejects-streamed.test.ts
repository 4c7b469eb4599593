import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { RejectsFile } from '../../src/report/rejects.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { catalogHeader, catalogRows } from '../helpers/sample-catalog.js';
import { type FeedServer, feedServer } from '../read/feed-server.js';
import { json, problem, productsOf, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/**
 * `--rejects FILE` for a feed read once (stdin, a URL): the rows known only by number at the end
 * (a duplicate SKU, a row the service rejected) are read again from the copy kept beside FILE.
 */

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
let n = 0;
const fresh = (name: string) =>
  join(mkdtempSync(join(tmpdir(), 'genser-rejects-streamed-')), `${++n}-${name}`);

const header = catalogHeader;
const sample = catalogRows;
const PRICE = header.indexOf('price');
const SKU = header.indexOf('sku');
const NAME = header.indexOf('name@en');

/** Rows 1-6 of the fixture: row 4 with a price that is no number, row 6 repeating row 5's SKU. */
function feedText(): string {
  const rows = sample.slice(0, 6).map((r, i) => {
    if (i === 3) return r.map((v, k) => (k === PRICE ? '12,000원' : v));
    if (i === 5) return r.map((v, k) => (k === SKU ? sample[4][SKU] : v));
    return r;
  });
  return `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`;
}

const parsed = (file: string) =>
  Papa.parse<Record<string, string>>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true }).data;

/** A server that rejects sample row 2's SKU (400), accepting the rest. */
function rejecting(): Promise<ScriptedServer> {
  const rejectedSku = sample[1][SKU];
  return scriptedServer((q, res) => {
    const i = productsOf(q.body).findIndex((p) => p.sku === rejectedSku);
    if (i >= 0)
      return problem(res, 400, 'invalid', [{ index: i, sku: rejectedSku, message: 'brand unknown' }]);
    json(res, 200, {});
  });
}

/** What the rejects file must hold: the invalid row, the duplicate, the rejected row; each whole. */
function expectAll(rejects: string): void {
  const rows = parsed(rejects);
  expect(rows.map((x) => [x.sku, x.genser_row]).sort()).toEqual(
    [
      [sample[3][SKU], '4'],
      [sample[4][SKU], '6'],
      [sample[1][SKU], '2'],
    ].sort(),
  );
  const rejected = rows.find((x) => x.genser_row === '2');
  expect(rejected?.genser_problem).toBe('brand unknown');
  expect(rejected?.['name@en']).toBe(sample[1][NAME]);
  expect(rows.find((x) => x.genser_row === '6')?.['name@en']).toBe(sample[5][NAME]);
  // The copy is gone; only the rejects file is left beside it.
  expect(readdirSync(join(rejects, '..'))).toEqual([rejects.split('/').pop()]);
}

let feeds: FeedServer | undefined;
let api: ScriptedServer | undefined;
afterEach(async () => {
  await feeds?.close();
  await api?.close();
  feeds = undefined;
  api = undefined;
  clearSecrets();
});

describe('--rejects with a feed read once', () => {
  it('a URL (gzip by Content-Encoding): duplicate and rejected rows read again from the copy', async () => {
    feeds = await feedServer();
    feeds.serve('/export/catalog.csv', { body: Buffer.from(feedText()), gzip: true });
    api = await rejecting();
    const rejects = fresh('rejects.csv');
    const env = {
      GENSER_API_URL: api.url,
      GENSER_API_KEY: 'rejects-url-key-1',
      GENSER_STATE_DIR: fresh('state'),
    };
    const r = await genser(['upload', `${feeds.url}/export/catalog.csv?token=t1`, '--rejects', rejects], env);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toContain('could not be written');
    expectAll(rejects);
  });

  it('validate URL: the duplicate SKU (known only by number at the end) from the copy', async () => {
    feeds = await feedServer();
    feeds.serve('/catalog.csv', { body: Buffer.from(feedText()) });
    const rejects = fresh('rejects.csv');
    const r = await genser(['validate', `${feeds.url}/catalog.csv`, '--rejects', rejects]);
    expect(r.code).toBe(1);
    expect(parsed(rejects).map((x) => [x.sku, x.genser_row, x['name@en']])).toEqual([
      [sample[3][SKU], '4', sample[3][NAME]],
      [sample[4][SKU], '6', sample[5][NAME]],
    ]);
    expect(readdirSync(join(rejects, '..'))).toEqual([rejects.split('/').pop()]);
  });

  it('stdin: the same, the feed piped in', async () => {
    api = await rejecting();
    const rejects = fresh('rejects.csv');
    const env = {
      GENSER_API_URL: api.url,
      GENSER_API_KEY: 'rejects-stdin-key-1',
      GENSER_STATE_DIR: fresh('state'),
    };
    const ran = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        process.execPath,
        [bin, 'upload', '-', '--input-type', 'csv', '--rejects', rejects],
        {
          env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
        },
      );
      let stderr = '';
      child.stderr.on('data', (c) => {
        stderr += String(c);
      });
      child.on('close', (code) => resolve({ code, stderr }));
      child.stdin.end(feedText());
    });
    expect(ran.code, ran.stderr).toBe(1);
    expect(ran.stderr).toContain(`--rejects: 3 row(s) written to ${rejects}`);
    expectAll(rejects);
  });

  it('a copy cut short: its last record is not trusted, and the rows not written are said', async () => {
    const rejects = fresh('rejects.csv');
    const file = new RejectsFile(rejects, 'csv');
    const text = Buffer.from(feedText());
    const cut = text.indexOf(sample[4][SKU]) + 3;
    const copied = file.copyOf(
      '-',
      (async function* () {
        yield text.subarray(0, cut);
        yield text.subarray(cut);
      })(),
    );
    // The read stops after its first chunk (Ctrl-C): the copy ends inside row 5.
    for await (const _ of copied) break;
    file.rejected('<stdin>', 2, 3, 'brand unknown');
    file.rejected('<stdin>', 5, 6, 'brand unknown');
    const missed = await file.finish(['-'], { inputType: 'csv', encoding: 'auto' }, memoryLogger());
    expect(missed).toBe(1);
    expect(file.notes).toEqual(['<stdin> was not read to its end']);
    expect(parsed(rejects).map((x) => x.genser_row)).toEqual(['2']);
    expect(readdirSync(join(rejects, '..'))).toEqual([rejects.split('/').pop()]);
  });

  it('a copy that cannot be written: the run goes on, and the rows not written are said with why', async () => {
    const rejects = fresh('rejects.csv');
    // Something already in the copy's place (as a full disk would refuse it): the copy fails.
    mkdirSync(join(rejects, '..', `.${basename(rejects)}.source-1.genser-${process.pid}.tmp`));
    const file = new RejectsFile(rejects, 'csv');
    const text = Buffer.from(feedText());
    let passed = 0;
    for await (const chunk of file.copyOf(
      '-',
      (async function* () {
        yield text;
      })(),
    ))
      passed += chunk.length;
    expect(passed).toBe(text.length);
    file.rejected('<stdin>', 2, 3, 'brand unknown');
    expect(await file.finish(['-'], { inputType: 'csv', encoding: 'auto' }, memoryLogger())).toBe(1);
    expect(file.notes).toEqual([`the copy of <stdin> beside ${rejects} could not be written (EISDIR)`]);
  });
});
