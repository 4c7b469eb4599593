import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { resolveRelativeDate } from '../../src/map/defaults.js';
import { parseMapping } from '../../src/map/mapping-file.js';
import { resolveFeedMapping } from '../../src/map/presets.js';
import { missingFieldLines } from '../../src/report/missing-fields.js';
import { UsageError } from '../../src/shared/errors.js';
import { IssueCollector, messageWithHint } from '../../src/shared/issue-collector.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { asReads, rowsRecords } from './csv-records.js';

const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  runDate: '2026-01-31T20:00:00Z', // 1 February, 05:00 in Seoul
  ...over,
});

const row = {
  sku: 'A-1',
  name: '면 티셔츠',
  brand_id: 'b',
  brand_name: '브랜드',
  category_name: '의류',
  description: '부드러운 면',
  price: '12000',
  availability: 'InStock',
  gtin: '8801234567893',
  mpn: 'A-1',
  image_urls: 'https://cdn.example.kr/a.jpg',
};

async function run(rows: Record<string, unknown>[], options: FeedOptions) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  const collector = new IssueCollector(100);
  const read = () => asReads(rowsRecords(rows));
  for await (const item of processReads(['mem.csv'], read, options, resolveFeedMapping(options))) {
    items.push(item);
    tally(stats, item);
    for (const i of item.issues) collector.add(i);
  }
  return { items, stats, report: { rows: { total: stats.rows }, groups: collector.groups() } };
}

describe('relative dates', () => {
  const clock = { runDate: new Date('2026-01-31T20:00:00Z'), zone: 'Asia/Seoul' };
  it('count calendar days, weeks, months and years from the run, in its zone', () => {
    expect(resolveRelativeDate('today', clock)).toBe('2026-02-01');
    expect(resolveRelativeDate('+30d', clock)).toBe('2026-03-03');
    expect(resolveRelativeDate('-1w', clock)).toBe('2026-01-25');
    expect(resolveRelativeDate('+1y', clock)).toBe('2027-02-01');
    // The same instant is still 31 January in New York; +1m is then the end of February.
    expect(resolveRelativeDate('+1m', { ...clock, zone: 'America/New_York' })).toBe('2026-02-28');
    expect(resolveRelativeDate('2026-05-01', clock)).toBeUndefined();
  });
});

describe('--set and mapping defaults', () => {
  it('fill a field on every row that lacks it; a column value wins', async () => {
    const { items } = await run(
      [
        { ...row, currency: '' },
        { ...row, sku: 'A-2', gtin: '8800000010373', currency: 'USD' },
      ],
      opts({
        set: ['currency=KRW', 'availability_starts=today', 'availability_ends=+1y'],
      }),
    );
    expect(items.map((i) => i.valid)).toEqual([true, true]);
    const offers = items.map((i) => (i.payload as any).offers);
    expect(offers.map((o) => o.priceCurrency)).toEqual(['KRW', 'USD']);
    // Local midnight in Seoul, written in UTC.
    expect(offers[0].availabilityStarts).toBe('2026-01-31T15:00:00Z');
    expect(offers[0].availabilityEnds).toBe('2027-01-31T15:00:00Z');
  });

  it('--set overrides the mapping file defaults; bad entries stop the run naming them', async () => {
    const mapping = parseMapping(
      JSON.stringify({ defaults: { currency: 'JPY', availability_ends: '+30d' }, fields: {} }),
      'm.json',
      opts(),
    );
    expect(mapping.defaults.map((d) => [d.field.target, d.value])).toEqual([
      ['currency', 'JPY'],
      ['availability_ends', '2026-03-03'],
    ]);
    expect(() => parseMapping('{"defaults": {"colour": "red"}, "fields": {}}', 'm.json', opts())).toThrow(
      'mapping file m.json: /defaults/colour is not a known field',
    );
    for (const entry of ['currency', '=KRW', 'currency=']) {
      expect(() => resolveFeedMapping(opts({ set: [entry] }))).toThrow(UsageError);
    }
    const { items } = await run(
      [row],
      opts({ set: ['currency=KRW', 'availability_starts=today', 'availability_ends=someday'] }),
    );
    const bad = items[0].issues.find((i) => i.field === 'offers.availabilityEnds');
    expect(bad).toMatchObject({ code: 'date', value: 'someday' });
  });

  it('the summary names each required field missing on many rows and the line that fills it', async () => {
    const rows = Array.from({ length: 20 }, (_, i) => ({
      ...row,
      sku: `A-${i}`,
      gtin: i < 18 ? '' : row.gtin,
    }));
    const { report, items } = await run(rows, opts({ set: ['availability_starts=today'] }));
    // Each row's own hint names the flag too, where one value fits every row.
    const messages = items[0].issues.map((i) => `${i.field}: ${messageWithHint(i)}`);
    expect(messages.find((m) => m.startsWith('offers.priceCurrency'))).toMatch(
      /, or --set currency=CODE \(KRW, USD, \.\.\.\) for every row$/,
    );
    expect(messages.find((m) => m.startsWith('offers.gtin'))).not.toContain('--set');
    const lines = missingFieldLines(report, { country: 'KR' });
    expect(lines[0]).toBe('Required fields your feed lacks:');
    expect(lines).toContain(
      '  offers.priceCurrency is missing on 20 of 20 rows: --set currency=KRW (or "defaults": {"currency": "KRW"} in the mapping file)',
    );
    expect(lines).toContain(
      '  offers.availabilityEnds is missing on 20 of 20 rows: --set availability_ends=+1y (or "defaults": {"availability_ends": "+1y"} in the mapping file)',
    );
    expect(lines.find((l) => l.includes('offers.gtin'))).toBe(
      '  offers.gtin is missing on 18 of 20 rows: map the column that has it: "gtin": "YOUR COLUMN" in the mapping file\'s "fields" (a GTIN (EAN/UPC/JAN barcode) differs per product: no --set)',
    );
    expect(lines.some((l) => l.includes('availabilityStarts'))).toBe(false);
    // One row in twenty is not "many".
    const few = await run(
      [...rows.slice(18), ...rows.slice(0, 1)].map((r, i) => ({
        ...r,
        sku: `B-${i}`,
        gtin: i === 0 ? '' : row.gtin,
      })),
      opts({ set: ['currency=KRW', 'availability_starts=today', 'availability_ends=+1y'] }),
    );
    expect(missingFieldLines({ ...few.report, rows: { total: 20 } })).toEqual([]);
  });
});
