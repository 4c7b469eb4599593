import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import {
  compileNumberFormat,
  excelSerialDate,
  parseDateMs,
  parseGtin,
  parseNumber,
} from '../../src/map/values.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { asReads, rowsRecords } from './csv-records.js';

/** What a spreadsheet does to a CSV opened and saved in it, named as such with the fix (#31 item 3). */
const FIX = 'format the column as Text before saving';

const opts: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

const row = {
  sku: 'A-1',
  name: '면 티셔츠',
  brand_id: 'b',
  brand_name: '브랜드',
  category_name: '의류',
  description: '부드러운 면',
  price: '12000',
  currency: 'KRW',
  availability: 'InStock',
  availability_starts: '2026-01-01',
  availability_ends: '2027-01-01',
  gtin: '8801234567893',
  mpn: 'A-1',
  image_urls: 'https://cdn.example.kr/a.jpg',
};

async function issuesOf(over: Record<string, string>) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  const read = () => asReads(rowsRecords([{ ...row, ...over }]));
  for await (const item of processReads(['mem.csv'], read, opts)) {
    items.push(item);
    tally(stats, item);
  }
  return items.flatMap((i) => i.issues).filter((i) => i.severity === 'error');
}

describe('Excel damage is named, with the fix', () => {
  it('a GTIN in scientific notation: its digits are lost', async () => {
    const [issue, ...rest] = await issuesOf({ gtin: '8.80000E+12' });
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({
      code: 'excel_damage',
      field: 'offers.gtin',
      column: 'gtin',
      value: '8.80000E+12',
    });
    expect(issue.message).toContain('offers.gtin is `8.80000E+12`, a number in scientific notation');
    expect(issue.hint).toContain(FIX);
    expect(parseGtin('8.8E+12').ok).toBe(false);
  });

  it('a GTIN that lost its leading zero: the 11-digit UPC valid with it', async () => {
    const [issue, ...rest] = await issuesOf({ gtin: '36000291452' });
    expect(rest).toEqual([]);
    expect(issue.code).toBe('excel_damage');
    expect(issue.message).toContain('(11 digits): the leading zero was dropped');
    expect(issue.message).toContain('036000291452 is a valid GTIN');
    expect(issue.hint).toContain(FIX);
    // Two zeros of a GTIN-8, one of a GTIN-14.
    const eight = parseGtin('123457');
    expect(!eight.ok && eight.error.message).toContain('00123457');
    // A length that does not become valid stays the schema's GTIN error; a valid GTIN passes.
    expect(parseGtin('36000291453')).toEqual({ ok: true, value: '36000291453' });
    expect(parseGtin('4006381333931')).toEqual({ ok: true, value: '4006381333931' });
    const [shape] = await issuesOf({ gtin: '36000291453' });
    expect(shape.code).toBe('gtin');
  });

  it('a SKU or part number in scientific notation', async () => {
    const issues = await issuesOf({ sku: '1.23457E+11', mpn: '4.5E+10' });
    expect(issues.map((i) => [i.code, i.field])).toEqual([
      ['excel_damage', 'sku'],
      ['excel_damage', 'offers.mpn'],
    ]);
    expect(issues[0].hint).toContain(FIX);
  });

  it('a date turned into a serial number', async () => {
    const [issue, ...rest] = await issuesOf({ availability_starts: '45658' });
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: 'excel_damage', field: 'offers.availabilityStarts' });
    expect(issue.message).toContain('`45658`, an Excel date serial number (2025-01-01)');
    expect(issue.hint).toContain(FIX);
    expect(excelSerialDate('45658.5')).toBe('2025-01-01');
    expect(excelSerialDate('1234')).toBeUndefined();
    expect(parseDateMs('2025-01-01', 'UTC').ok).toBe(true);
  });

  it("a price with another locale's separators names them and the mapping line", async () => {
    const [issue] = await issuesOf({ price: '1.234,56' });
    expect(issue).toMatchObject({ code: 'excel_damage', field: 'offers.price' });
    expect(issue.message).toContain('another locale\'s separators (thousands ".", decimal ",")');
    expect(issue.hint).toContain(
      `${FIX}, or declare the separators in the mapping file: "number": {"decimal": ",", "thousands": "."}`,
    );
    const dots = parseNumber('12.345.678');
    expect(!dots.ok && dots.error.hint).toContain('"number": {"decimal": ",", "thousands": "."}');
    const comma = parseNumber('1,234.56');
    expect(!comma.ok && comma.error.hint).toContain('"number": {"thousands": ","}');
    const spaced = parseNumber('1 234,50');
    expect(!spaced.ok && spaced.error.hint).toContain('"number": {"decimal": ",", "thousands": " "}');
    // Declared, they are read.
    expect(parseNumber('1.234,56', compileNumberFormat({ decimal: ',', thousands: '.' }))).toEqual({
      ok: true,
      value: 1234.56,
    });
    // Units are not locale damage: the currency hint as before.
    const won = parseNumber('12,000원');
    expect(!won.ok && won.error.code).toBe('type');
  });
});
