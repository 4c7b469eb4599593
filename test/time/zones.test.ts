import { describe, expect, it } from 'vitest';
import {
  describeNextBatch,
  formatDuration,
  nextDailyBatch,
  timeZoneForCountry,
  toLocal,
  zonedToUtc,
} from '../../src/time/zones.js';

describe('timeZoneForCountry', () => {
  it('maps ISO codes, case-insensitively, and accepts IANA names', () => {
    expect(timeZoneForCountry('KR')).toBe('Asia/Seoul');
    expect(timeZoneForCountry('jp')).toBe('Asia/Tokyo');
    expect(timeZoneForCountry('America/Los_Angeles')).toBe('America/Los_Angeles');
  });
  it('rejects unknown countries with a usage error that lists the codes', () => {
    expect(() => timeZoneForCountry('XX')).toThrow(/unknown country "XX"/);
    expect(() => timeZoneForCountry('Mars/Olympus')).toThrow(/unknown country/);
  });
});

describe('zonedToUtc', () => {
  it('reads Seoul wall time (UTC+9, no DST)', () => {
    const d = zonedToUtc({ year: 2026, month: 11, day: 24, hour: 0, minute: 15, second: 0 }, 'Asia/Seoul');
    expect(d.toISOString()).toBe('2026-11-23T15:15:00.000Z');
  });
  it('handles New York on both sides of DST', () => {
    const summer = zonedToUtc(
      { year: 2026, month: 7, day: 1, hour: 12, minute: 0, second: 0 },
      'America/New_York',
    );
    const winter = zonedToUtc(
      { year: 2026, month: 12, day: 1, hour: 12, minute: 0, second: 0 },
      'America/New_York',
    );
    expect(summer.toISOString()).toBe('2026-07-01T16:00:00.000Z');
    expect(winter.toISOString()).toBe('2026-12-01T17:00:00.000Z');
  });
  it('moves a wall time skipped by spring-forward past the jump, and picks the first of a repeated one', () => {
    // 2026-03-08 02:30 does not exist in New York (02:00 -> 03:00).
    const gap = zonedToUtc(
      { year: 2026, month: 3, day: 8, hour: 2, minute: 30, second: 0 },
      'America/New_York',
    );
    expect(gap.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    // 2026-11-01 01:30 happens twice; the first is still EDT (UTC-4).
    const twice = zonedToUtc(
      { year: 2026, month: 11, day: 1, hour: 1, minute: 30, second: 0 },
      'America/New_York',
    );
    expect(twice.toISOString()).toBe('2026-11-01T05:30:00.000Z');
  });
  it('round-trips with toLocal', () => {
    const instant = new Date('2026-05-05T10:20:30.000Z');
    const local = toLocal(instant, 'Europe/London');
    expect(zonedToUtc(local, 'Europe/London').toISOString()).toBe(instant.toISOString());
  });
});

describe('nextDailyBatch', () => {
  it('is today at 00:15 local when that is still ahead, else tomorrow', () => {
    // 23:00 UTC on the 22nd is 08:00 on the 23rd in Seoul: next batch is the 24th 00:15 KST.
    expect(nextDailyBatch(new Date('2026-11-22T23:00:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-11-23T15:15:00.000Z',
    );
    // 15:00 UTC is 00:00 KST: the batch 15 minutes later is the same local day.
    expect(nextDailyBatch(new Date('2026-11-23T15:00:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-11-23T15:15:00.000Z',
    );
    // Exactly at the batch instant: the next one is a day later.
    expect(nextDailyBatch(new Date('2026-11-23T15:15:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-11-24T15:15:00.000Z',
    );
  });
  it('follows the local clock across DST changes', () => {
    // Before and after the 2026-03-08 spring-forward in New York: 00:15 EST is 05:15Z, 00:15 EDT is 04:15Z.
    expect(nextDailyBatch(new Date('2026-03-07T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-03-08T05:15:00.000Z',
    );
    expect(nextDailyBatch(new Date('2026-03-08T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-03-09T04:15:00.000Z',
    );
  });
});

describe('describeNextBatch', () => {
  it('names the zone, the local time and how long until then', () => {
    expect(describeNextBatch(new Date('2026-11-23T06:03:00Z'), 'KR')).toBe(
      'after the daily batch at 00:15 Asia/Seoul (2026-11-24 00:15, in 9 h 12 min)',
    );
  });
  it('formats durations', () => {
    expect(formatDuration(30_000)).toBe('under a minute');
    expect(formatDuration(42 * 60_000)).toBe('42 min');
    expect(formatDuration(2 * 3_600_000)).toBe('2 h');
  });
});
