import { UsageError } from '../shared/errors.js';

/**
 * Time-zone arithmetic with Intl only (no dependency): the service applies products at its
 * daily batch, 00:15 local time of the country, and local dates in feeds are read in that zone.
 */

/** Countries the service is likely to serve; one zone each (for several-zone countries, the capital's). */
const COUNTRY_ZONES: Record<string, string> = {
  KR: 'Asia/Seoul',
  JP: 'Asia/Tokyo',
  CN: 'Asia/Shanghai',
  TW: 'Asia/Taipei',
  HK: 'Asia/Hong_Kong',
  SG: 'Asia/Singapore',
  TH: 'Asia/Bangkok',
  VN: 'Asia/Ho_Chi_Minh',
  ID: 'Asia/Jakarta',
  MY: 'Asia/Kuala_Lumpur',
  PH: 'Asia/Manila',
  IN: 'Asia/Kolkata',
  AU: 'Australia/Sydney',
  NZ: 'Pacific/Auckland',
  US: 'America/New_York',
  CA: 'America/Toronto',
  MX: 'America/Mexico_City',
  BR: 'America/Sao_Paulo',
  GB: 'Europe/London',
  IE: 'Europe/Dublin',
  DE: 'Europe/Berlin',
  FR: 'Europe/Paris',
  ES: 'Europe/Madrid',
  IT: 'Europe/Rome',
  NL: 'Europe/Amsterdam',
};

function isValidZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `KR` -> `Asia/Seoul`. An IANA zone name (`America/Los_Angeles`) is accepted as it is. */
export function timeZoneForCountry(country: string): string {
  const code = country.trim();
  const zone = COUNTRY_ZONES[code.toUpperCase()];
  if (zone) return zone;
  if (code.includes('/') && isValidZone(code)) return code;
  throw new UsageError(
    `unknown country "${country}"`,
    `use an ISO 3166 code (${Object.keys(COUNTRY_ZONES).join(', ')}) or an IANA time zone such as America/Los_Angeles`,
  );
}

export interface LocalDateTime {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond?: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The wall-clock time in `zone` at the instant `date`. */
export function toLocal(date: Date, zone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(date)) {
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  }
  return {
    year: parts.year,
    month: parts.month,
    day: parts.day,
    hour: parts.hour,
    minute: parts.minute,
    second: parts.second,
    millisecond: date.getUTCMilliseconds(),
  };
}

/** The offset as Intl tells it: one `formatToParts` call (a few microseconds), hence the cache below. */
function intlOffsetAt(ms: number, zone: string): number {
  const l = toLocal(new Date(ms), zone);
  const asUtc = Date.UTC(l.year, l.month - 1, l.day, l.hour, l.minute, l.second, l.millisecond ?? 0);
  return asUtc - ms;
}

const DAY_MS = 86_400_000;
/** Past this many cached days of one zone (about 137 years) the zone's cache starts over. */
const SAMPLES_MAX = 50_000;
/** Far from the ends of the Date range, so that a neighbouring day's midnight is still a valid Date. */
const CACHEABLE_MS = 8e15;
/** Per zone: UTC day number -> the offset at that day's 00:00 UTC. */
const daySamples = new Map<string, Map<number, number>>();

function sampleAt(day: number, zone: string, samples: Map<number, number>): number {
  let offset = samples.get(day);
  if (offset === undefined) {
    if (samples.size >= SAMPLES_MAX) samples.clear();
    offset = intlOffsetAt(day * DAY_MS, zone);
    samples.set(day, offset);
  }
  return offset;
}

/**
 * Offset of `zone` from UTC at the instant `ms`, in milliseconds (Seoul: +9 h).
 *
 * Cached by UTC day: the offset at each 00:00 UTC is asked of Intl once, and an instant between
 * two midnights with the same offset has that offset too. That rests on a zone never changing
 * its offset twice within one day (in tzdata 1800-2100 the closest two changes of any zone are
 * about four days apart: Africa/Freetown 1939); a day whose two midnights differ holds a
 * transition and is asked of Intl instant by instant. The answers are Intl's own, exactly.
 */
export function offsetAt(ms: number, zone: string): number {
  if (!(Math.abs(ms) <= CACHEABLE_MS)) return intlOffsetAt(ms, zone); // NaN too: Intl throws as before
  let samples = daySamples.get(zone);
  if (!samples) {
    samples = new Map();
    daySamples.set(zone, samples);
  }
  const day = Math.floor(ms / DAY_MS);
  const start = sampleAt(day, zone, samples);
  if (ms === day * DAY_MS) return start;
  return sampleAt(day + 1, zone, samples) === start ? start : intlOffsetAt(ms, zone);
}

/**
 * The instant when the wall clock in `zone` shows `local`. A wall time skipped by a DST jump
 * resolves to the instant after the jump; a repeated one to its first occurrence.
 */
export function zonedToUtc(local: LocalDateTime, zone: string): Date {
  const wall = Date.UTC(
    local.year,
    local.month - 1,
    local.day,
    local.hour,
    local.minute,
    local.second,
    local.millisecond ?? 0,
  );
  // Two offsets bracket any transition: try the earlier first so ambiguous times pick the first occurrence.
  const before = offsetAt(wall - 86_400_000, zone);
  const after = offsetAt(wall + 86_400_000, zone);
  // One offset all around: the loop below would answer `wall - before` whatever its check found.
  if (before === after) return new Date(wall - before);
  for (const offset of [Math.max(before, after), Math.min(before, after)]) {
    const candidate = wall - offset;
    if (offsetAt(candidate, zone) === offset) return new Date(candidate);
  }
  // In a DST gap: no offset reproduces the wall time; move past the jump.
  return new Date(wall - Math.min(before, after));
}

/** The next daily batch (default 00:15 local) strictly after `now`. */
export function nextDailyBatch(now: Date, zone: string, hour = 0, minute = 15): Date {
  const today = toLocal(now, zone);
  for (let addDays = 0; addDays <= 2; addDays++) {
    const day = new Date(Date.UTC(today.year, today.month - 1, today.day + addDays));
    const candidate = zonedToUtc(
      {
        year: day.getUTCFullYear(),
        month: day.getUTCMonth() + 1,
        day: day.getUTCDate(),
        hour,
        minute,
        second: 0,
      },
      zone,
    );
    if (candidate.getTime() > now.getTime()) return candidate;
  }
  throw new Error('unreachable: a daily time always recurs within two days');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `2026-11-24 00:15` in the zone's wall-clock time. */
export function formatLocal(date: Date, zone: string): string {
  const l = toLocal(date, zone);
  return `${l.year}-${pad(l.month)}-${pad(l.day)} ${pad(l.hour)}:${pad(l.minute)}`;
}

/** `9 h 12 min`, `42 min`, `under a minute`. */
export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'under a minute';
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  if (h === 0) return `${m} min`;
  return m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** "after the daily batch at 00:15 Asia/Seoul (2026-11-24 00:15, in 9 h 12 min)" */
export function describeNextBatch(now: Date, country: string): string {
  const zone = timeZoneForCountry(country);
  const next = nextDailyBatch(now, zone);
  return `after the daily batch at 00:15 ${zone} (${formatLocal(next, zone)}, in ${formatDuration(next.getTime() - now.getTime())})`;
}
