import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { inputTypeFromName, readFeed } from '../../src/read/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { collect, fixture, read, rejection } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'genser-read-src-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('fatal problems with the source are usage errors (exit 2) naming it', () => {
  it('a missing file', async () => {
    const err = await rejection(read(join(tmp, 'nope.csv')));
    expect(err.exitCode).toBe(2);
    expect(err.message).toBe(`${join(tmp, 'nope.csv')}: no such file`);
    expect(err.hint).toBeTruthy();
  });

  it('a directory', async () => {
    const dir = join(tmp, 'feeds.csv');
    mkdirSync(dir);
    const err = await rejection(read(dir));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('is a directory');
  });

  it('an unknown extension, pointing at --input-type', async () => {
    const file = join(tmp, 'feed.dat');
    writeFileSync(file, 'sku\nA\n');
    const err = await rejection(read(file));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('feed.dat: cannot tell the input type');
    expect(err.hint).toContain('--input-type');
    // A missing file is said first, whatever its name.
    expect((await rejection(read(join(tmp, 'gone.xlsx')))).message).toContain('gone.xlsx: no such file');
    // Given the type, the same file reads.
    expect((await read(file, { inputType: 'csv' })).records).toHaveLength(1);
  });

  it('a spreadsheet by its name: says it is one and how to export CSV from it', async () => {
    for (const [name, kind] of [
      ['feed.xlsx', 'an Excel workbook (.xlsx)'],
      ['FEED.XLS', 'an old Excel workbook (.xls)'],
      ['feed.ods', 'an OpenDocument spreadsheet (.ods)'],
    ]) {
      const file = join(tmp, name);
      writeFileSync(file, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0]));
      const err = await rejection(read(file));
      expect(err.exitCode, name).toBe(2);
      expect(err.message).toBe(
        `${file} is a spreadsheet (${kind}), not a CSV, JSON or NDJSON feed; nothing was read from it`,
      );
      expect(err.hint).toContain('in Excel, File > Save As > "CSV UTF-8 (Comma delimited) (*.csv)"');
      expect(err.message).not.toContain('cannot tell the input type');
    }
  });

  it('stdin without --input-type', async () => {
    const err = await rejection(
      collect(readFeed('-', { encoding: 'auto' }, memoryLogger(), Readable.from([]))),
    );
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('--input-type');
  });

  it('damaged gzip data', async () => {
    const gz = gzipSync('sku,name\nA-1,x\n'.repeat(1000));
    const file = join(tmp, 'cut.csv.gz');
    writeFileSync(file, gz.subarray(0, gz.length - 40));
    const err = await rejection(read(file));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/cut\.csv\.gz: cannot decompress/);
  });
});

describe('sources', () => {
  it('reads stdin with the given type, naming it <stdin>', async () => {
    const stdin = Readable.from([Buffer.from('{"sku":"S-1"}\n{"sku":'), Buffer.from('"S-2"}\n')]);
    const r = await collect(readFeed('-', { encoding: 'auto', inputType: 'ndjson' }, memoryLogger(), stdin));
    expect(r.records.map((x) => [x.file, x.row, x.line, x.fields.sku])).toEqual([
      ['<stdin>', 1, 1, 'S-1'],
      ['<stdin>', 2, 2, 'S-2'],
    ]);
  });

  it('decompresses gzip; the inner extension gives the type; magic bytes are enough', async () => {
    const plain = await read(fixture('basic.csv'));
    const gz = await read(fixture('basic.csv.gz'));
    expect(gz.records.map((x) => x.fields)).toEqual(plain.records.map((x) => x.fields));
    expect(gz.records.map((x) => x.line)).toEqual([2, 4, 6, 11]);
    // Gzip data in a file named .csv still reads.
    const disguised = join(tmp, 'looks-plain.csv');
    copyFileSync(fixture('basic.csv.gz'), disguised);
    expect((await read(disguised)).records).toHaveLength(4);
    // Gzip on stdin.
    const stdin = Readable.from([readFileSync(fixture('basic.csv.gz'))]);
    const r = await collect(readFeed('-', { encoding: 'auto', inputType: 'csv' }, memoryLogger(), stdin));
    expect(r.records).toHaveLength(4);
  });

  it('reads a gzipped CP949 file', async () => {
    const file = join(tmp, 'korean.csv.gz');
    writeFileSync(file, gzipSync(readFileSync(fixture('cp949-korean.csv'))));
    const r = await read(file);
    expect(r.records[0].fields.brand_name).toBe('삼성전자');
  });

  it('stops reading when the consumer stops (the file is closed, no error)', async () => {
    const rows = Array.from({ length: 50000 }, (_, i) => `R-${i},x`).join('\n');
    const file = join(tmp, 'long.csv');
    writeFileSync(file, `sku,name\n${rows}\n`);
    let seen = 0;
    for await (const item of readFeed(file, { encoding: 'auto' }, memoryLogger())) {
      if (item.type === 'record' && ++seen === 10) break;
    }
    expect(seen).toBe(10);
  });

  it('maps extensions to input types', () => {
    expect(inputTypeFromName('a/b/feed.CSV')).toBe('csv');
    expect(inputTypeFromName('feed.tsv')).toBe('csv');
    expect(inputTypeFromName('feed.csv.gz')).toBe('csv');
    expect(inputTypeFromName('feed.json')).toBe('json');
    expect(inputTypeFromName('feed.jsonl.gz')).toBe('ndjson');
    expect(inputTypeFromName('feed.ndjson')).toBe('ndjson');
    expect(inputTypeFromName('feed.gz')).toBeUndefined();
    expect(inputTypeFromName('dir.csv/feed')).toBeUndefined();
    expect(inputTypeFromName('.csv')).toBeUndefined();
  });
});
