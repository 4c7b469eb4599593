import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import type { ReadItem, SourceRecord } from '../../src/shared/types.js';

/**
 * Test helper: a whole small CSV as SourceRecords, parsed with papaparse in one go, so the
 * mapping/building/validation tests do not depend on the streaming reader. Lines are counted
 * from the parser's cursor, as the reader does.
 */
export function csvRecords(path: string, file = path): SourceRecord[] {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: true });
  const [header, ...rows] = parsed.data;
  const out: SourceRecord[] = [];
  let line = 2;
  rows.forEach((cells, i) => {
    const fields: Record<string, unknown> = {};
    header.forEach((h, j) => {
      fields[h] = cells[j] ?? '';
    });
    out.push({ file, row: i + 1, line, fields, shape: 'rows' });
    line += cells.join(',').split('\n').length;
  });
  return out;
}

export function rowsRecords(
  rows: Record<string, unknown>[],
  file = 'mem.csv',
  shape: SourceRecord['shape'] = 'rows',
) {
  return rows.map((fields, i) => ({ file, row: i + 1, line: i + 2, fields, shape }) satisfies SourceRecord);
}

export async function* asReads(records: SourceRecord[]): AsyncGenerator<ReadItem> {
  for (const record of records) yield { type: 'record', record };
}
