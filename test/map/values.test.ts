import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compileNumberFormat,
  parseAvailability,
  parseBoolean,
  parseDate,
  parseDateIso,
  parseNumber,
  splitList,
  stripHtml,
} from '../../src/map/values.js';

const group = (n: number, sep: string) => {
  const digits = String(n);
  const parts: string[] = [];
  for (let end = digits.length; end > 0; end -= 3) parts.unshift(digits.slice(Math.max(0, end - 3), end));
  return parts.join(sep);
};

describe('parseNumber', () => {
  it('reads plain numbers without any declaration', () => {
    expect(parseNumber('12000')).toEqual({ ok: true, value: 12000 });
    expect(parseNumber(' -3.25 ')).toEqual({ ok: true, value: -3.25 });
  });

  it('never guesses a thousands separator: 12,000원 is an error with a hint to declare it', () => {
    const r = parseNumber('12,000원');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('type');
    expect(r.error.message).toContain('`12,000원`');
    expect(r.error.hint).toContain('"thousands": ","');
    expect(r.error.hint).toContain('"currencySymbols": true');
    expect(parseNumber('12,000').ok).toBe(false);
    expect(parseNumber('12.5', compileNumberFormat({ decimal: ',' })).ok).toBe(false);
  });

  it('reads declared separators and strips declared currency symbols', () => {
    const krw = compileNumberFormat({ thousands: ',', currencySymbols: true });
    expect(parseNumber('12,000원', krw)).toEqual({ ok: true, value: 12000 });
    expect(parseNumber('₩1,234,567', krw)).toEqual({ ok: true, value: 1234567 });
    const eu = compileNumberFormat({ thousands: '.', decimal: ',' });
    expect(parseNumber('1.234,5', eu)).toEqual({ ok: true, value: 1234.5 });
    // A wrongly grouped number is still an error.
    expect(parseNumber('12,00', compileNumberFormat({ thousands: ',' })).ok).toBe(false);
  });

  it('refuses identical thousands and decimal separators', () => {
    expect(() => compileNumberFormat({ thousands: ',', decimal: ',' })).toThrow(/both/);
  });

  it('property: any grouped integer with a declared separator reads back exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.constantFrom(',', '.', ' ', "'", '_'),
        (n, sep) => {
          const fmt = compileNumberFormat({
            thousands: sep as ',',
            decimal: sep === ',' ? '.' : sep === '.' ? ',' : '.',
          });
          expect(parseNumber(group(n, sep), fmt)).toEqual({ ok: true, value: n });
        },
      ),
    );
  });

  it('property: decimals with a declared decimal comma read back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10 ** 9 }), fc.integer({ min: 0, max: 99 }), (whole, cents) => {
        const text = `${whole},${String(cents).padStart(2, '0')}`;
        const r = parseNumber(text, compileNumberFormat({ decimal: ',' }));
        expect(r).toEqual({ ok: true, value: Number(`${whole}.${String(cents).padStart(2, '0')}`) });
      }),
    );
  });

  it('property: grouped numbers are never read without a declaration', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1000, max: 2 ** 40 }), (n) => {
        expect(parseNumber(group(n, ',')).ok).toBe(false);
      }),
    );
  });
});

describe('parseBoolean', () => {
  it('reads the usual words in any case and rejects the rest with the accepted words', () => {
    for (const t of ['1', 'TRUE', 'yes', 'Y']) expect(parseBoolean(t)).toEqual({ ok: true, value: true });
    for (const f of ['0', 'false', 'No', 'n']) expect(parseBoolean(f)).toEqual({ ok: true, value: false });
    const r = parseBoolean('maybe');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.hint).toContain('"true"/"false"');
  });

  it('property: arbitrary other text is never a boolean', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/^\s*(1|0|true|false|yes|no|y|n|t|f|on|off)\s*$/i.test(s)),
        (s) => {
          expect(parseBoolean(s).ok).toBe(false);
        },
      ),
    );
  });
});

describe('parseDate', () => {
  it('reads a date without offset in the country time zone and writes UTC', () => {
    const seoul = parseDate('2026-03-01', 'Asia/Seoul');
    expect(seoul.ok && seoul.value.iso).toBe('2026-02-28T15:00:00Z');
    const tokyo = parseDate('2026/03/01 09:30', 'Asia/Tokyo');
    expect(tokyo.ok && tokyo.value.iso).toBe('2026-03-01T00:30:00Z');
    // New York in summer time (UTC-4) and in winter (UTC-5).
    const july = parseDate('2026-07-01 12:00:00', 'America/New_York');
    expect(july.ok && july.value.iso).toBe('2026-07-01T16:00:00Z');
    const jan = parseDate('2026-01-15 12:00', 'America/New_York');
    expect(jan.ok && jan.value.iso).toBe('2026-01-15T17:00:00Z');
  });

  it('keeps an explicit offset and accepts epoch milliseconds', () => {
    const r = parseDate('2026-03-01T09:00:00+09:00', 'America/New_York');
    expect(r.ok && r.value.iso).toBe('2026-03-01T00:00:00Z');
    const ms = parseDate('1772323200000', 'Asia/Seoul');
    expect(ms.ok && ms.value.ms).toBe(1772323200000);
  });

  it('rejects impossible dates and other formats with a hint', () => {
    const feb30 = parseDate('2026-02-30', 'Asia/Seoul');
    expect(feb30.ok).toBe(false);
    const dmy = parseDate('31/12/2027', 'Asia/Seoul');
    expect(dmy.ok).toBe(false);
    if (!dmy.ok) {
      expect(dmy.error.code).toBe('date');
      expect(dmy.error.hint).toContain('ISO 8601');
    }
  });

  it('property: every local wall time in Seoul (no DST) is exactly nine hours ahead of UTC', () => {
    fc.assert(
      fc.property(
        fc.date({
          min: new Date('1990-01-01T00:00:00Z'),
          max: new Date('2090-01-01T00:00:00Z'),
          noInvalidDate: true,
        }),
        (d) => {
          const local = new Date(d.getTime() + 9 * 3600_000);
          const text = local.toISOString().slice(0, 19).replace('T', ' ');
          const r = parseDate(text, 'Asia/Seoul');
          expect(r.ok && r.value.ms).toBe(Math.floor(d.getTime() / 1000) * 1000);
        },
      ),
    );
  });
});

describe('parseDateIso', () => {
  it('property: answers as parseDate does, for date-only and other texts, zones interleaved', () => {
    const zones = ['Asia/Seoul', 'America/New_York', 'Asia/Tokyo'];
    const digits = (n: number, width: number) => String(n).padStart(width, '0');
    const text = fc.oneof(
      // Date-only texts of a few years (so days that differ by one digit meet in the cache),
      // impossible ones (month 13, day 31 of a short month) among them.
      fc
        .tuple(
          fc.constantFrom(1899, 2026, 2027, 2200),
          fc.integer({ min: 0, max: 13 }),
          fc.integer({ min: 0, max: 32 }),
        )
        .map(([y, m, d]) => `${digits(y, 4)}-${digits(m, 2)}-${digits(d, 2)}`),
      fc.constantFrom('2026-03-01 09:30', ' 2026-03-01', '2026/03/01', '2026-3-01', '2026-03-0x', '45000'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.array(fc.tuple(text, fc.constantFrom(...zones)), { maxLength: 40 }), (pairs) => {
        for (const [raw, zone] of pairs) {
          const full = parseDate(raw, zone);
          const iso = parseDateIso(raw, zone);
          expect(iso.ok).toBe(full.ok);
          if (iso.ok && full.ok) expect(iso.value).toBe(full.value.iso);
          if (!iso.ok && !full.ok) expect(iso.error).toEqual(full.error);
        }
      }),
    );
  });

  it("keeps each zone's answer for a day apart", () => {
    const seoul = parseDateIso('2026-03-01', 'Asia/Seoul');
    const york = parseDateIso('2026-03-01', 'America/New_York');
    expect(seoul.ok && seoul.value).toBe('2026-02-28T15:00:00Z');
    expect(york.ok && york.value).toBe('2026-03-01T05:00:00Z');
    expect(parseDateIso('2026-03-01', 'Asia/Seoul')).toEqual(seoul);
  });
});

describe('other values', () => {
  it('normalises availability spellings', () => {
    for (const s of ['InStock', 'in stock', 'IN_STOCK', 'https://schema.org/InStock']) {
      expect(parseAvailability(s)).toEqual({ ok: true, value: 'InStock' });
    }
    expect(parseAvailability('out-of-stock')).toEqual({ ok: true, value: 'OutOfStock' });
    expect(parseAvailability('pre order')).toEqual({ ok: true, value: 'PreOrder' });
    expect(parseAvailability('Y').ok).toBe(false);
  });

  it('splits lists, dropping empty parts', () => {
    expect(splitList('a| b ||c|', '|')).toEqual(['a', 'b', 'c']);
  });

  it('strips HTML and decodes entities', () => {
    expect(stripHtml('<p>Warm &amp; dry.</p>\n<p>&bull; Hood &#8212; &#x41;</p>')).toBe(
      'Warm & dry. • Hood — A',
    );
  });
});
