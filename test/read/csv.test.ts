import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsv } from '../../src/read/csv.js';
import { collect, fixture, pieces, read, realData, rejection } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'genser-read-csv-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const positions = (r: { records: Array<{ row: number; line: number }> }) =>
  r.records.map((x) => [x.row, x.line]);

describe('CSV records, rows and lines', () => {
  it('reads quoted commas, doubled quotes, multi-line values and skips blank lines (LF)', async () => {
    const r = await read(fixture('basic.csv'));
    expect(r.issues).toEqual([]);
    expect(positions(r)).toEqual([
      [1, 2],
      [2, 4],
      [3, 6],
      [4, 11],
    ]);
    expect(r.records[1].fields).toEqual({
      sku: 'A-2',
      name: 'Comma, inside',
      price: '2000',
      description: 'two\nlines',
    });
    expect(r.records[2].fields.name).toBe('Quote "here"');
    expect(r.records[2].fields.description).toBe('one\ntwo\nthree');
    expect(r.records[3].fields).toMatchObject({ name: '한글 상품', description: '설명, 쉼표' });
    expect(r.records.every((x) => x.shape === 'rows' && x.file === fixture('basic.csv'))).toBe(true);
  });

  it('gives the same lines for the CRLF version, keeping CRLF inside quoted values', async () => {
    const r = await read(fixture('basic-crlf.csv'));
    expect(r.issues).toEqual([]);
    expect(positions(r)).toEqual([
      [1, 2],
      [2, 4],
      [3, 6],
      [4, 11],
    ]);
    expect(r.records[0].fields.description).toBe('simple');
    expect(r.records[1].fields.description).toBe('two\r\nlines');
  });

  it('counts LF line breaks inside cells of a CRLF file (Excel)', async () => {
    const r = await read(fixture('crlf-cell-lf.csv'));
    expect(positions(r)).toEqual([
      [1, 2],
      [2, 5],
    ]);
    expect(r.records[1].fields).toEqual({ sku: 'B-2', description: 'after' });
  });

  it('gives the same records whatever the size of the text pieces', async () => {
    const text = readFileSync(fixture('basic.csv'), 'utf8');
    const whole = await collect(readCsv(pieces(text, text.length), { file: 'f', autoEncoding: false }));
    for (const size of [1, 2, 3, 7]) {
      const cut = await collect(
        readCsv(pieces(text, size), { file: 'f', autoEncoding: false, parseChunk: size }),
      );
      expect(cut.items).toEqual(whole.items);
    }
    expect(whole.records).toHaveLength(4);
  });

  it('strips the UTF-8 BOM and trims header names', async () => {
    expect((await read(fixture('bom-utf8.csv'))).records[0].fields).toEqual({
      sku: 'C-1',
      name: 'BOM first',
    });
    expect((await read(fixture('header-spaces.csv'))).records[0].fields).toEqual({
      sku: 'H-1',
      name: 'trimmed',
    });
  });
});

describe('CSV delimiters', () => {
  it('sniffs semicolon, tab and pipe, quote-aware', async () => {
    const semi = await read(fixture('semicolon.csv'));
    expect(semi.records.map((x) => x.fields)).toEqual([
      { sku: 'D-1', name: 'a; b, c', price: '1,50' },
      { sku: 'D-2', name: 'plain', price: '2,00' },
    ]);
    const tab = await read(fixture('tab.tsv'));
    expect(tab.records[0].fields).toEqual({ sku: 'E-1', name: 'tab, comma; semi', price: '10' });
    const pipe = await read(fixture('pipe.csv'));
    expect(pipe.records[0].fields).toEqual({ sku: 'F-1', name: 'one, two', price: '10' });
  });

  it('takes a given delimiter over the sniffed one', async () => {
    const file = join(tmp, 'either.csv');
    writeFileSync(file, 'a;b,c\n1;2,3\n');
    expect((await read(file)).records[0].fields).toEqual({ 'a;b': '1;2', c: '3' });
    expect((await read(file, { delimiter: ';' })).records[0].fields).toEqual({ a: '1', 'b,c': '2,3' });
  });

  it('takes tab spelled \\t or tab, and refuses a delimiter that cannot work', async () => {
    for (const delimiter of ['\t', '\\t', 'tab', 'TAB']) {
      expect((await read(fixture('tab.tsv'), { delimiter })).records[0].fields.sku).toBe('E-1');
    }
    for (const delimiter of ['"', '\n', '']) {
      const err = await rejection(read(fixture('tab.tsv'), { delimiter }));
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('--delimiter');
    }
  });

  it("honours Excel's sep= line and counts it as line 1", async () => {
    const r = await read(fixture('excel-sep.csv'));
    expect(r.records).toEqual([
      { file: fixture('excel-sep.csv'), row: 1, line: 3, fields: { sku: 'G-1', name: 'x' }, shape: 'rows' },
    ]);
  });
});

describe('CSV problems become issues and reading goes on', () => {
  it('reports an unclosed quote with the line where it opened, then reads on', async () => {
    const r = await read(fixture('unclosed-quote.csv'));
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ severity: 'error', code: 'unclosed_quote', row: 2, line: 3 });
    expect(r.issues[0].message).toContain('opened on line 3');
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 2, 'U-1'],
      [3, 4, 'U-3'],
      [4, 5, 'U-4'],
    ]);
    // The issue comes in order, between the rows around it.
    expect(r.items.map((i) => i.type)).toEqual(['record', 'issue', 'record', 'record']);
  });

  it('reports ragged rows naming expected and got, and accepts extra empty trailing fields', async () => {
    const r = await read(fixture('ragged.csv'));
    expect(r.issues.map((i) => [i.code, i.row, i.line, i.column])).toEqual([
      ['ragged_row', 2, 3, 'price'],
      ['ragged_row', 3, 4, undefined],
    ]);
    expect(r.issues[0].message).toContain('expected 3, got 2');
    expect(r.issues[0].message).toContain('"price"');
    expect(r.issues[1].message).toContain('expected 3, got 4');
    expect(r.records.map((x) => [x.row, x.fields.sku])).toEqual([
      [1, 'R-1'],
      [4, 'R-4'],
      [5, 'R-5'],
    ]);
    expect(r.records[2].fields).toEqual({ sku: 'R-5', name: 'trailing empty', price: '5' });
  });

  it('reports a duplicate header column once, file-level, and keeps both values', async () => {
    const r = await read(fixture('duplicate-header.csv'));
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: 'duplicate_header', column: 'name', line: 1 });
    expect(r.issues[0].row).toBeUndefined();
    expect(r.records[0].fields).toEqual({ sku: 'D-1', name: 'first', price: '1', name_4: 'second' });
  });

  it('reports an empty file and a header without rows', async () => {
    const empty = await read(fixture('empty.csv'));
    expect(empty.records).toEqual([]);
    expect(empty.issues.map((i) => i.code)).toEqual(['empty_file']);
    const headerOnly = await read(fixture('header-only.csv'));
    expect(headerOnly.issues.map((i) => i.code)).toEqual(['no_rows']);
    const blanks = join(tmp, 'blanks.csv');
    writeFileSync(blanks, '\n \r\n\n');
    expect((await read(blanks)).issues.map((i) => i.code)).toEqual(['empty_file']);
  });

  it('says a spreadsheet or a file with NUL bytes is binary and reads nothing', async () => {
    const xlsx = await read(fixture('spreadsheet.csv'));
    expect(xlsx.records).toEqual([]);
    expect(xlsx.issues).toHaveLength(1);
    expect(xlsx.issues[0].code).toBe('binary');
    // The same words as for a file named .xlsx: a spreadsheet, and how to export CSV from it.
    expect(xlsx.issues[0].message).toContain(
      'spreadsheet.csv is a spreadsheet (a ZIP archive: an Excel .xlsx',
    );
    expect(xlsx.issues[0].message).toContain('"CSV UTF-8 (Comma delimited) (*.csv)"');
    const nul = await read(fixture('nul-bytes.csv'), { encoding: 'utf-8' });
    expect(nul.issues.map((i) => i.code)).toEqual(['binary']);
    expect((await read(fixture('nul-bytes.csv'))).issues.map((i) => i.code)).toEqual(['binary']);
    const junk = join(tmp, 'junk.csv');
    writeFileSync(junk, Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256)));
    expect((await read(junk)).issues.map((i) => i.code)).toEqual(['binary']);
  });

  it('skips a field over 1 MiB with its row and column, and reads the rows after it', async () => {
    const big = 'x'.repeat(1024 * 1024 + 10);
    const file = join(tmp, 'big-field.csv');
    writeFileSync(file, `sku,description,price\nS-1,small,1\nS-2,"${big}",2\nS-3,after,3\n`);
    const r = await read(file);
    expect(r.issues.map((i) => [i.code, i.row, i.line, i.column])).toEqual([
      ['field_too_large', 2, 3, 'description'],
    ]);
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 2, 'S-1'],
      [3, 4, 'S-3'],
    ]);
  });

  it('recovers from an unclosed quote in the middle of a long file', async () => {
    const good = Array.from({ length: 3000 }, (_, i) => `R-${i},name ${i},${i}`);
    const lines = ['sku,name,price', ...good.slice(0, 1500), 'BAD,"oops,1', ...good.slice(1500)];
    const file = join(tmp, 'mid-quote.csv');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await read(file);
    expect(r.issues.map((i) => [i.code, i.row, i.line])).toEqual([['unclosed_quote', 1501, 1502]]);
    expect(r.records).toHaveLength(3000);
    expect(r.records.at(-1)).toMatchObject({ row: 3001, line: 3002, fields: { sku: 'R-2999' } });
  });
});

describe('a stray quote in the middle of a file', () => {
  it('is an error naming the lines it joined, on the row that swallowed them', async () => {
    const text = 'sku,name,price\nA,"stray,1\nB,b,2\nC,"closes",3\nD,d,4\n';
    for (const size of [8, 1000]) {
      const r = await collect(
        readCsv(pieces(text, size), { file: 'f.csv', autoEncoding: false, parseChunk: size }),
      );
      expect(r.issues).toHaveLength(1);
      expect(r.issues[0]).toMatchObject({ severity: 'error', code: 'malformed_quote', row: 1, line: 2 });
      expect(r.issues[0].message).toContain('lines 2-4');
      // The joined row is still shown (with its error), and reading goes on.
      expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
        [1, 2, 'A'],
        [2, 5, 'D'],
      ]);
    }
  });

  it('is a warning when the value stays on its line', async () => {
    const text = 'sku,name\nA,"5" screen"\nB,b\n';
    const r = await collect(readCsv(pieces(text, 100), { file: 'f.csv', autoEncoding: false }));
    expect(r.issues.map((i) => [i.severity, i.code, i.row, i.line])).toEqual([
      ['warning', 'malformed_quote', 1, 2],
    ]);
    expect(r.records.map((x) => x.fields.sku)).toEqual(['A', 'B']);
  });
});

describe('unfinished rows are bounded in memory', () => {
  const options = { file: 'f.csv', delimiter: ',', autoEncoding: false, parseChunk: 64, pendingLimit: 1000 };

  it('drops an unclosed quote that runs past the limit and reads on after its line', async () => {
    const after = Array.from({ length: 200 }, (_, i) => `A-${i},after ${i}`);
    const text = ['sku,name', 'G-1,good', 'BAD,"opens here', ...after].join('\n');
    const r = await collect(readCsv(pieces(text, 50), options));
    expect(r.issues.map((i) => [i.code, i.row, i.line])).toEqual([['unclosed_quote', 2, 3]]);
    expect(r.records).toHaveLength(201);
    expect(r.records[1]).toMatchObject({ row: 3, line: 4, fields: { sku: 'A-0' } });
    expect(r.records.at(-1)).toMatchObject({ row: 202, line: 203, fields: { sku: 'A-199' } });
  });

  it('skips an unquoted line longer than the limit', async () => {
    const text = `sku,name\nG-1,good\nLONG,${'y'.repeat(5000)}\nG-2,after\n`;
    const r = await collect(readCsv(pieces(text, 100), options));
    expect(r.issues.map((i) => [i.code, i.row, i.line])).toEqual([['field_too_large', 2, 3]]);
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 2, 'G-1'],
      [3, 4, 'G-2'],
    ]);
  });
});

describe('the real Magento exports', () => {
  it('reads magento-configurable-products.csv: 1,994 rows, 70 columns, every line right', async () => {
    const file = realData('magento-configurable-products.csv');
    const r = await read(file);
    expect(r.issues).toEqual([]);
    expect(r.records).toHaveLength(1994);
    expect(Object.keys(r.records[0].fields)).toHaveLength(70);
    // Independent check: the physical line each record names starts with its (unquoted) sku.
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const record of r.records) {
      expect(lines[record.line - 1].startsWith(`${record.fields.sku},`)).toBe(true);
    }
    expect(r.records.at(-1)).toMatchObject({ row: 1994, line: 3940 });
    expect(String(r.records[0].fields.description)).toContain('\n');
  });

  it('reads magento-simple-products-bags.csv with quoted multi-line categories', async () => {
    const file = realData('magento-simple-products-bags.csv');
    const r = await read(file);
    expect(r.issues).toEqual([]);
    expect(r.records).toHaveLength(14);
    expect(r.records[0].fields).toMatchObject({
      category: 'Gear\nBags',
      name: 'Joust Duffle Bag',
      sku: '24-MB01',
    });
    expect(positions(r).slice(0, 3)).toEqual([
      [1, 2],
      [2, 23],
      [3, 49],
    ]);
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const record of r.records) expect(lines[record.line - 1].startsWith('"Gear')).toBe(true);
  });
});

describe('mixed line ends', () => {
  const mixed = 'sku,name\r\nA1,one\nA2,two\rA3,"three\r\nlines"\r\nA4,four\n';

  it('splits on CRLF, LF and CR alike and warns once, whatever the size of the pieces', async () => {
    for (const size of [mixed.length, 1, 3, 7]) {
      const r = await collect(
        readCsv(pieces(mixed, size), { file: 'f.csv', autoEncoding: false, parseChunk: size }),
      );
      expect(
        r.records.map((x) => [x.row, x.line, x.fields.sku]),
        `pieces of ${size}`,
      ).toEqual([
        [1, 2, 'A1'],
        [2, 3, 'A2'],
        [3, 4, 'A3'],
        [4, 6, 'A4'],
      ]);
      expect(r.issues.map((i) => [i.code, i.severity, i.line, i.row])).toEqual([
        ['mixed_line_ends', 'warning', 2, undefined],
      ]);
      expect(r.issues[0].message).toContain('line 2 ends with LF, the lines before it with CRLF');
    }
  });

  it('names a CR among LF lines, and a CR line end at the very end of the file', async () => {
    const r = await collect(
      readCsv(pieces('a,b\n1,2\n3,4\r5,6\r', 4), { file: 'f.csv', autoEncoding: false, parseChunk: 4 }),
    );
    expect(r.records.map((x) => [x.line, x.fields.a])).toEqual([
      [2, '1'],
      [3, '3'],
      [4, '5'],
    ]);
    expect(r.issues[0].message).toContain('line 3 ends with CR, the lines before it with LF');
  });

  it('does not call line breaks inside quoted values a mix (Excel: LF in cells of a CRLF file)', async () => {
    const text = 'sku,description\r\nB-1,"one\ntwo"\r\nB-2,"three\rfour"\r\n';
    const r = await collect(readCsv(pieces(text, 5), { file: 'f.csv', autoEncoding: false, parseChunk: 5 }));
    expect(r.issues).toEqual([]);
    expect(r.records.map((x) => x.fields.description)).toEqual(['one\ntwo', 'three\rfour']);
  });
});

describe('one line longer than the limit, without a line break', () => {
  it('is one clear error about the header, not also "no data rows" and "row 1"', async () => {
    // Past the 64 KiB the reader waits for before it sniffs the delimiter.
    const text = `sku,${'x'.repeat(200_000)}`;
    const r = await collect(
      readCsv(pieces(text, 1000), { file: 'f.csv', autoEncoding: false, parseChunk: 64, pendingLimit: 1000 }),
    );
    expect(r.records).toEqual([]);
    expect(r.issues.map((i) => [i.code, i.line, i.row])).toEqual([['field_too_large', 1, undefined]]);
    expect(r.issues[0].message).toContain(
      'the header (line 1) runs over 1000 characters without a line break',
    );
  });
});
