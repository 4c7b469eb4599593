import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type LocalDateTime, offsetAt, toLocal, zonedToUtc } from '../../src/time/zones.js';

// The implementation before the offset cache, kept as the oracle: one formatToParts per offset.
function oracleOffsetAt(ms: number, zone: string): number {
  const l = toLocal(new Date(ms), zone);
  return Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second, l.millisecond ?? 0) - ms;
}

function oracleZonedToUtc(local: LocalDateTime, zone: string): Date {
  const wall = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
    local.millisecond ?? 0,
  );
  const before = oracleOffsetAt(wall - 86_400_000, zone);
  const after = oracleOffsetAt(wall + 86_400_000, zone);
  for (const offset of [Math.max(before, after), Math.min(before, after)]) {
    const candidate = wall - offset;
    if (oracleOffsetAt(candidate, zone) === offset) return new Date(candidate);
  }
  return new Date(wall - Math.min(before, after));
}

const ZONES = [
  'Asia/Seoul',
  'Asia/Tokyo',
  'UTC',
  'America/New_York',
  'Europe/Berlin',
  'Australia/Lord_Howe', // DST of 30 minutes
  'America/Sao_Paulo', // DST abolished in 2019
  'Pacific/Chatham', // +12:45 / +13:45
  'Pacific/Apia', // skipped 2011-12-30 whole: a change of 24 hours
  'Africa/Casablanca', // DST suspended every Ramadan
  'Europe/Moscow', // rules changed in 2011 and 2014
  'America/Caracas', // -4:30 from 2007 to 2016
  'Asia/Kolkata',
];

const MIN = 60_000;
const YEAR_1970 = Date.UTC(1970, 0, 1);
const YEAR_2101 = Date.UTC(2101, 0, 1);

/** The instants in [from, to) where the oracle's offset changes, found by weekly steps and bisection. */
function transitions(zone: string, from: number, to: number): number[] {
  const out: number[] = [];
  const week = 7 * 86_400_000;
  for (let t = from; t < to; t += week) {
    let lo = t;
    let hi = Math.min(t + week, to);
    const start = oracleOffsetAt(lo, zone);
    if (oracleOffsetAt(hi, zone) === start) continue;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (oracleOffsetAt(mid, zone) === start) lo = mid;
      else hi = mid;
    }
    out.push(hi);
  }
  return out;
}

const localOf = (ms: number): LocalDateTime => {
  const d = new Date(ms);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    millisecond: d.getUTCMilliseconds(),
  };
};

const zone = fc.constantFrom(...ZONES);

describe('the cached offsetAt and zonedToUtc give exactly what one formatToParts per offset gave', () => {
  it('for any wall time from 1970 to 2100, in a dozen zones', () => {
    fc.assert(
      fc.property(
        zone,
        fc.integer({ min: YEAR_1970, max: YEAR_2101 - 1 }),
        fc.constantFrom(86_400_000, 3_600_000, 60_000, 1000, 1), // a date, or a time to the hour ... millisecond
        (z, ms, unit) => {
          const wall = ms - (ms % unit); // ms >= 0 here
          const local = localOf(wall);
          expect(zonedToUtc(local, z).getTime()).toBe(oracleZonedToUtc(local, z).getTime());
          expect(offsetAt(wall, z)).toBe(oracleOffsetAt(wall, z));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('for wall times in and around every kind of transition: gaps, repeated hours, 30-minute and 24-hour shifts', () => {
    fc.assert(
      fc.property(
        zone,
        fc.integer({ min: 1970, max: 2100 }),
        fc.nat(),
        fc.integer({ min: -180 * MIN, max: 180 * MIN }),
        (z, year, pick, shift) => {
          const found = transitions(z, Date.UTC(year, 0, 1), Date.UTC(year + 1, 0, 1));
          if (found.length === 0) return; // no transition that year (Seoul, UTC, Sao Paulo after 2019)
          const at = found[pick % found.length];
          // The instant near the transition, and the wall times on both sides of it (the gap or the overlap).
          const instant = at + shift;
          expect(offsetAt(instant, z)).toBe(oracleOffsetAt(instant, z));
          for (const offset of [oracleOffsetAt(at - 1000, z), oracleOffsetAt(at, z)]) {
            const local = localOf(at + offset + shift);
            expect(zonedToUtc(local, z).getTime()).toBe(oracleZonedToUtc(local, z).getTime());
          }
        },
      ),
      { numRuns: 250 },
    );
  });

  it('for any four-digit year, where Intl reports local mean time, Julian dates and two-digit years', () => {
    fc.assert(
      fc.property(
        zone,
        fc.record({
          year: fc.integer({ min: 0, max: 9999 }),
          month: fc.integer({ min: 1, max: 12 }),
          day: fc.integer({ min: 1, max: 31 }),
          hour: fc.integer({ min: 0, max: 23 }),
          minute: fc.integer({ min: 0, max: 59 }),
          second: fc.integer({ min: 0, max: 59 }),
          millisecond: fc.integer({ min: 0, max: 999 }),
        }),
        (z, local) => {
          expect(zonedToUtc(local, z).getTime()).toBe(oracleZonedToUtc(local, z).getTime());
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps the rules for skipped and repeated wall times (Lord Howe 30 minutes, Chatham, New York)', () => {
    const at = (z: string, y: number, mo: number, d: number, h: number, mi: number) =>
      zonedToUtc({ year: y, month: mo, day: d, hour: h, minute: mi, second: 0 }, z).toISOString();
    // Lord Howe 2026-10-04 02:00 -> 02:30 (+10:30 -> +11): 02:15 is skipped, moved past the jump.
    expect(at('Australia/Lord_Howe', 2026, 10, 4, 2, 15)).toBe('2026-10-03T15:45:00.000Z');
    // Lord Howe 2026-04-05 02:00 -> 01:30: 01:45 happens twice; the first (+11) is taken.
    expect(at('Australia/Lord_Howe', 2026, 4, 5, 1, 45)).toBe('2026-04-04T14:45:00.000Z');
    // Chatham 2026-09-27 02:45 -> 03:45 (+12:45 -> +13:45): 03:00 is skipped.
    expect(at('Pacific/Chatham', 2026, 9, 27, 3, 0)).toBe('2026-09-26T14:15:00.000Z');
    // New York 2026-11-01 01:30 happens twice; the first is still EDT.
    expect(at('America/New_York', 2026, 11, 1, 1, 30)).toBe('2026-11-01T05:30:00.000Z');
  });

  it('answers an invalid instant as Intl does: with a RangeError', () => {
    expect(() => offsetAt(Number.NaN, 'Asia/Seoul')).toThrow(RangeError);
    expect(() =>
      zonedToUtc({ year: 2026, month: 1, day: Number.NaN, hour: 0, minute: 0, second: 0 }, 'UTC'),
    ).toThrow(RangeError);
  });
});
