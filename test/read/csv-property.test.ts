import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../src/read/csv.js';
import { collect, pieces, readBytes } from './helpers.js';

// Field text: ASCII, the characters CSV must quote, line breaks and Korean.
const piece = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.constantFrom(
    ',',
    ';',
    '\t',
    '|',
    '"',
    '""',
    '\n',
    '\r\n',
    '\r',
    ' ',
    '한글',
    '상품명',
    '가격 1,000원',
    'ä',
    '😀',
  ),
);
const value = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
const name = fc.stringMatching(/^[a-z_@]{1,8}$/);

function quote(text: string, delimiter: string): string {
  const needs =
    text.includes(delimiter) ||
    /["\r\n]/.test(text) ||
    text !== text.trim() ||
    text === '' ||
    text.startsWith('"');
  return needs ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvCase = fc
  .record({
    header: fc.uniqueArray(name, { minLength: 1, maxLength: 5 }),
    delimiter: fc.constantFrom(',', ';', '\t', '|'),
    newline: fc.constantFrom('\n', '\r\n'),
    rows: fc.array(fc.tuple(fc.array(value, { minLength: 5, maxLength: 5 }), fc.nat(2)), { maxLength: 12 }),
    trailingNewline: fc.boolean(),
    size: fc.integer({ min: 1, max: 40 }),
  })
  .map(({ header, delimiter, newline, rows, trailingNewline, size }) => {
    const lines = [header.map((h) => quote(h, delimiter)).join(delimiter)];
    const expected: Array<{ row: number; line: number; fields: Record<string, string> }> = [];
    let line = 2;
    let row = 0;
    for (const [values, blanks] of rows) {
      for (let b = 0; b < blanks; b++) {
        lines.push('');
        line++;
      }
      const fields = values.slice(0, header.length);
      const text = fields.map((v) => quote(v, delimiter)).join(delimiter);
      lines.push(text);
      // Blank lines, and rows of empty values only (`,,,`), are skipped.
      const blank = fields.length === 1 ? fields[0].trim() === '' : fields.every((v) => v === '');
      if (!blank) {
        expected.push({ row: ++row, line, fields: Object.fromEntries(header.map((h, i) => [h, fields[i]])) });
      }
      line += 1 + (text.match(/\n/g)?.length ?? 0);
    }
    const csv = lines.join(newline) + (trailingNewline ? newline : '');
    return { csv, delimiter, expected, size };
  });

describe('CSV round-trips (property)', () => {
  it('reads back what was written, with rows and physical lines, whatever the piece size', async () => {
    await fc.assert(
      fc.asyncProperty(csvCase, async ({ csv, delimiter, expected, size }) => {
        const r = await collect(
          // A small parse chunk makes rows cross parse boundaries (the unfinished-row carry).
          readCsv(pieces(csv, size), { file: 'p.csv', delimiter, autoEncoding: false, parseChunk: size }),
        );
        const issues = r.issues.filter((i) => i.code !== 'no_rows');
        expect(issues).toEqual([]);
        expect(r.records.map(({ row, line, fields }) => ({ row, line, fields }))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the same when one large text is parsed a small piece at a time', async () => {
    await fc.assert(
      fc.asyncProperty(csvCase, async ({ csv, delimiter, expected, size }) => {
        // The decoder hands over texts far larger than the parse piece: the reader cuts them.
        const r = await collect(
          readCsv(pieces(csv, csv.length || 1), {
            file: 'p.csv',
            delimiter,
            autoEncoding: false,
            parseChunk: size,
          }),
        );
        expect(r.issues.filter((i) => i.code !== 'no_rows')).toEqual([]);
        expect(r.records.map(({ row, line, fields }) => ({ row, line, fields }))).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('reads the same through the byte path (decoding, chunks cut inside characters)', async () => {
    await fc.assert(
      fc.asyncProperty(csvCase, async ({ csv, delimiter, expected, size }) => {
        const r = await readBytes(Buffer.from(csv), { delimiter, encoding: 'auto' }, size);
        expect(r.records.map(({ row, line, fields }) => ({ row, line, fields }))).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
