import { gtinValid } from '../schema/checks.js';
import { timeZoneForCountry, zonedToUtc } from '../time/zones.js';

/**
 * Pure value parsers for mapped columns. Each returns the typed value or a `ValueError` a
 * merchant can act on. Regular expressions are compiled once (per module or per number format),
 * never per row.
 */
export interface ValueError {
  /** Issue code: `type` (not a number/boolean), `date`. */
  code: string;
  message: string;
  hint?: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: ValueError };

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const fail = (code: string, message: string, hint?: string): Parsed<never> => ({
  ok: false,
  error: { code, message, hint },
});

// ---------------------------------------------------------------------------------------------
// Numbers: separators are declared, never guessed.

export type DecimalSeparator = '.' | ',';
export type ThousandsSeparator = '' | ',' | '.' | ' ' | "'" | '_';

export interface NumberFormatSpec {
  decimal?: DecimalSeparator;
  thousands?: ThousandsSeparator;
  /** Strip currency signs and units (₩ $ € ¥ £ 원 円 and ISO codes) around the number. */
  currencySymbols?: boolean;
}

export interface NumberFormat {
  decimal: DecimalSeparator;
  thousands: ThousandsSeparator;
  currencySymbols: boolean;
  /** Matches a whole number text in this format. */
  pattern: RegExp;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SYMBOLS_AROUND = /^[\s₩$€¥£]*(?:[A-Z]{3}\s*)?|(?:\s*[A-Z]{3})?[\s₩$€¥£원円]*$/g;
const HAS_LETTERS_OR_UNITS = /[^\d\s.,+\-'_]/;
const DIGITS_WITH_GROUPING = /^[+-]?\d{1,3}([,. '_]\d{3})+([.,]\d+)?$/;
const SEPARATOR_BETWEEN_DIGITS = /\d[,.]\d/;

export function compileNumberFormat(spec: NumberFormatSpec = {}): NumberFormat {
  const decimal = spec.decimal ?? '.';
  const thousands = spec.thousands ?? '';
  if (thousands !== '' && thousands === decimal) {
    throw new Error(`the thousands separator and the decimal separator are both "${decimal}"`);
  }
  const d = escapeRe(decimal);
  const plain = `[+-]?\\d+(?:${d}\\d+)?`;
  const grouped = thousands === '' ? '' : `|[+-]?\\d{1,3}(?:${escapeRe(thousands)}\\d{3})+(?:${d}\\d+)?`;
  return {
    decimal,
    thousands,
    currencySymbols: spec.currencySymbols ?? false,
    pattern: new RegExp(`^(?:${plain}${grouped})$`),
  };
}

export const DEFAULT_NUMBER_FORMAT = compileNumberFormat();

export function parseNumber(raw: string, fmt: NumberFormat = DEFAULT_NUMBER_FORMAT): Parsed<number> {
  let text = raw.trim();
  if (fmt.currencySymbols) text = text.replace(SYMBOLS_AROUND, '');
  if (fmt.pattern.test(text)) {
    let normal = text;
    if (fmt.thousands !== '') normal = normal.split(fmt.thousands).join('');
    if (fmt.decimal === ',') normal = normal.replace(',', '.');
    const n = Number(normal);
    if (Number.isFinite(n)) return ok(n);
  }
  const units = !fmt.currencySymbols && HAS_LETTERS_OR_UNITS.test(text);
  const stripped = units ? text.replace(SYMBOLS_AROUND, '') : text;
  const separators =
    DIGITS_WITH_GROUPING.test(stripped) || SEPARATOR_BETWEEN_DIGITS.test(stripped)
      ? !fmt.pattern.test(stripped)
      : false;
  if (separators && !units) {
    const { decimal, thousands } = separatorsIn(stripped, fmt);
    const declared = decimal === '.' ? '' : `"decimal": "${decimal}", `;
    return fail(
      'excel_damage',
      `must be a number; got \`${raw}\`, written with another locale's separators (thousands "${thousands}"${decimal === '.' ? '' : `, decimal "${decimal}"`}), as a spreadsheet saves numbers in its computer's locale`,
      `${EXCEL_FIX}, or declare the separators in the mapping file: "number": {${declared}"thousands": "${thousands}"}`,
    );
  }
  if (units || separators) {
    const declare: string[] = [];
    if (separators)
      declare.push(fmt.thousands === ',' || fmt.decimal === ',' ? '"thousands": "."' : '"thousands": ","');
    if (units) declare.push('"currencySymbols": true');
    const what = [
      separators ? 'a thousands or decimal separator' : '',
      units ? 'currency signs or units' : '',
    ]
      .filter(Boolean)
      .join(' and ');
    return fail(
      'type',
      `must be a number; got \`${raw}\``,
      `declare ${what} in the mapping file, e.g. "number": {${declare.join(', ')}}`,
    );
  }
  return fail('type', `must be a number; got \`${raw}\``);
}

/** Which separators a number text uses: the last of two kinds is the decimal one. */
function separatorsIn(text: string, fmt: NumberFormat): { decimal: string; thousands: string } {
  const seps = text.replace(/[\d+-]/g, '');
  const last = seps[seps.length - 1];
  const first = seps[0];
  if (first !== last) return { decimal: last, thousands: first };
  // One kind: a thousands separator (the format's decimal separator is the other one).
  const decimal = first === fmt.decimal ? (fmt.decimal === '.' ? ',' : '.') : fmt.decimal;
  return { decimal, thousands: first };
}

export function parseInteger(raw: string, fmt: NumberFormat = DEFAULT_NUMBER_FORMAT): Parsed<number> {
  const n = parseNumber(raw, fmt);
  if (!n.ok) return n;
  if (!Number.isSafeInteger(n.value)) return fail('type', `must be a whole number; got \`${raw}\``);
  return n;
}

// ---------------------------------------------------------------------------------------------
// Booleans

export interface BooleanWords {
  truthy: ReadonlySet<string>;
  falsy: ReadonlySet<string>;
}

export const DEFAULT_BOOLEAN_WORDS: BooleanWords = {
  truthy: new Set(['1', 'true', 'yes', 'y', 't', 'on']),
  falsy: new Set(['0', 'false', 'no', 'n', 'f', 'off']),
};

export function booleanWords(truthy?: string[], falsy?: string[]): BooleanWords {
  return {
    truthy: truthy ? new Set(truthy.map((s) => s.toLowerCase())) : DEFAULT_BOOLEAN_WORDS.truthy,
    falsy: falsy ? new Set(falsy.map((s) => s.toLowerCase())) : DEFAULT_BOOLEAN_WORDS.falsy,
  };
}

export function parseBoolean(raw: string, words: BooleanWords = DEFAULT_BOOLEAN_WORDS): Parsed<boolean> {
  const key = raw.trim().toLowerCase();
  if (words.truthy.has(key)) return ok(true);
  if (words.falsy.has(key)) return ok(false);
  return fail(
    'type',
    `must be true or false; got \`${raw}\``,
    `accepted: ${[...words.truthy].join('/')} and ${[...words.falsy].join('/')}; declare others with "true"/"false" in the mapping file`,
  );
}

// ---------------------------------------------------------------------------------------------
// Dates: ISO 8601 with an offset as given; a date or local time without one is read in `zone`.

const WITH_OFFSET = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})$/i;
const LOCAL =
  /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?$/;
const EPOCH_MS = /^\d{12,13}$/;

/** ISO 8601 UTC without milliseconds when they are zero: `2026-03-01T15:00:00Z`. */
export function isoUtc(ms: number): string {
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}

export function parseDateMs(raw: string, zone: string): Parsed<number> {
  const text = raw.trim();
  if (WITH_OFFSET.test(text)) {
    const ms = Date.parse(text.replace(' ', 'T'));
    if (!Number.isNaN(ms)) return ok(ms);
  }
  const m = LOCAL.exec(text);
  if (m) {
    const month = Number(m[2]);
    const day = Number(m[3]);
    const hour = m[4] === undefined ? 0 : Number(m[4]);
    const minute = m[5] === undefined ? 0 : Number(m[5]);
    const second = m[6] === undefined ? 0 : Number(m[6]);
    const millisecond = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'));
    const year = Number(m[1]);
    const probe = new Date(Date.UTC(year, month - 1, day));
    if (
      month >= 1 &&
      month <= 12 &&
      probe.getUTCDate() === day &&
      probe.getUTCMonth() === month - 1 &&
      hour < 24 &&
      minute < 60 &&
      second < 60
    ) {
      return ok(zonedToUtc({ year, month, day, hour, minute, second, millisecond }, zone).getTime());
    }
    return fail('date', `is not a real calendar date or time; got \`${raw}\``);
  }
  if (EPOCH_MS.test(text)) return ok(Number(text));
  const serial = excelSerialDate(text);
  if (serial !== undefined) {
    return fail(
      'excel_damage',
      `must be a date; got \`${raw}\`, an Excel date serial number (${serial}): Excel saved the date as a number`,
      `${EXCEL_FIX} (or as a date yyyy-mm-dd), then export again`,
    );
  }
  return fail(
    'date',
    `must be a date; got \`${raw}\``,
    'use ISO 8601, e.g. 2026-03-01, 2026-03-01 09:00 (local time of --country) or 2026-03-01T00:00:00Z',
  );
}

// Feeds repeat the same few dates on every row; the time-zone arithmetic and the ISO text are
// worth caching (bounded, so memory does not grow with the feed).
export interface ParsedDate {
  ms: number;
  iso: string;
}
const dateCaches = new Map<string, Map<string, Parsed<ParsedDate>>>();
const DATE_CACHE_MAX = 4096;

export function parseDate(raw: string, zone: string): Parsed<ParsedDate> {
  let cache = dateCaches.get(zone);
  if (!cache) {
    cache = new Map();
    dateCaches.set(zone, cache);
  }
  const hit = cache.get(raw);
  if (hit) return hit;
  const parsed = parseDateMs(raw, zone);
  const out: Parsed<ParsedDate> = parsed.ok
    ? { ok: true, value: { ms: parsed.value, iso: isoUtc(parsed.value) } }
    : parsed;
  if (cache.size >= DATE_CACHE_MAX) cache.clear();
  cache.set(raw, out);
  return out;
}

/** A zone's answers: date-only texts (`2026-03-01`) by their number 20260301, other texts by text. */
interface IsoCache {
  days: Map<number, Parsed<string>>;
  texts: Map<string, Parsed<string>>;
}
const isoCaches = new Map<string, IsoCache>();
let lastZone = '';
let lastCache: IsoCache | undefined;

/**
 * `2026-03-01` as 20260301, -1 for any other text. A number key is hashed without reading a
 * string, and most date columns hold dates only: the mapper's most frequent lookup.
 */
function dayNumber(text: string): number {
  if (text.length !== 10 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return -1;
  let n = 0;
  for (let i = 0; i < 10; i++) {
    if (i === 4 || i === 7) continue;
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/** `parseDate`'s ISO text as its own cached answer: the mapper's per-row date makes no object. */
export function parseDateIso(raw: string, zone: string): Parsed<string> {
  let cache = lastCache;
  if (zone !== lastZone || cache === undefined) {
    cache = isoCaches.get(zone);
    if (!cache) {
      cache = { days: new Map(), texts: new Map() };
      isoCaches.set(zone, cache);
    }
    lastZone = zone;
    lastCache = cache;
  }
  const day = dayNumber(raw);
  const hit = day >= 0 ? cache.days.get(day) : cache.texts.get(raw);
  if (hit) return hit;
  const d = parseDate(raw, zone);
  const out: Parsed<string> = d.ok ? { ok: true, value: d.value.iso } : d;
  if (day >= 0) remember(cache.days, day, out);
  else remember(cache.texts, raw, out);
  return out;
}

function remember<K>(cache: Map<K, Parsed<string>>, key: K, out: Parsed<string>): void {
  if (cache.size >= DATE_CACHE_MAX) cache.clear();
  cache.set(key, out);
}

/** A country code (`KR`) or an IANA zone (`Asia/Seoul`). */
export function zoneFor(countryOrZone: string): string {
  return timeZoneForCountry(countryOrZone);
}

// ---------------------------------------------------------------------------------------------
// Excel's damage: what a spreadsheet does to codes and dates when a CSV is opened and saved in it.

export const EXCEL_FIX = 'format the column as Text before saving';

/** Excel's date serial numbers of 1955-2118 (days since 1899-12-30, a fraction for the time). */
const SERIAL = /^([2-7]\d{4})(?:\.\d+)?$/;

/** The calendar date an Excel serial number stands for, when `text` is one. */
export function excelSerialDate(text: string): string | undefined {
  const m = SERIAL.exec(text);
  if (!m) return undefined;
  return new Date(Date.UTC(1899, 11, 30) + Number(m[1]) * 86_400_000).toISOString().slice(0, 10);
}

/** `8.80000E+12`, `8.8E+12`, `1E+15`: a long number Excel showed (and saved) in scientific notation. */
const SCIENTIFIC = /^\d(?:[.,]\d+)?E\+\d{1,2}$/i;

function scientific(field: string, raw: string): Parsed<never> {
  return fail(
    'excel_damage',
    `is \`${raw}\`, a number in scientific notation: Excel saved the ${field} as a rounded number and its digits are lost`,
    `${EXCEL_FIX}, then export the ${field}s again from the shop (the file as it is cannot give them back)`,
  );
}

/** A SKU or part number: taken as it is, unless Excel turned it into scientific notation. */
export function parseIdentifier(raw: string): Parsed<string> {
  return SCIENTIFIC.test(raw.trim()) ? scientific('code', raw) : ok(raw);
}

/**
 * A GTIN: taken as it is (the schema checks its form), except where Excel damaged it: scientific
 * notation, or leading zeros dropped (a GTIN of 7, 11, 10 or 9 digits that is valid with them).
 */
export function parseGtin(raw: string): Parsed<string> {
  const text = raw.trim();
  if (SCIENTIFIC.test(text)) return scientific('barcode', raw);
  if (/^\d{6,13}$/.test(text) && text.length !== 8 && text.length !== 12 && text.length !== 13) {
    const length = text.length < 8 ? 8 : text.length < 12 ? 12 : 14;
    const padded = text.padStart(length, '0');
    if (gtinValid(padded)) {
      return fail(
        'excel_damage',
        `is \`${raw}\` (${text.length} digits): the leading zero${length - text.length > 1 ? 's were' : ' was'} dropped, as Excel does with numbers (${padded} is a valid GTIN)`,
        `${EXCEL_FIX}, then export again; or write ${padded}`,
      );
    }
  }
  return ok(raw);
}

// ---------------------------------------------------------------------------------------------
// Availability, lists, HTML

const AVAILABILITY: Record<string, 'InStock' | 'OutOfStock' | 'PreOrder'> = {
  instock: 'InStock',
  outofstock: 'OutOfStock',
  soldout: 'OutOfStock',
  preorder: 'PreOrder',
};
const AVAILABILITY_NOISE = /^https?:\/\/schema\.org\/|[\s_-]/gi;

const AVAILABILITY_EXACT: Record<string, Parsed<string>> = {
  InStock: { ok: true, value: 'InStock' },
  OutOfStock: { ok: true, value: 'OutOfStock' },
  PreOrder: { ok: true, value: 'PreOrder' },
};

export function parseAvailability(raw: string): Parsed<string> {
  const exact = AVAILABILITY_EXACT[raw];
  if (exact) return exact;
  const key = raw.replace(AVAILABILITY_NOISE, '').toLowerCase();
  const value = AVAILABILITY[key];
  if (value) return ok(value);
  return fail(
    'enum',
    `must be InStock, OutOfStock or PreOrder; got \`${raw}\``,
    'map your values in the mapping file, e.g. "availability": {"column": "stock", "map": {"Y": "InStock", "N": "OutOfStock"}}',
  );
}

export function splitList(raw: string, separator: string): string[] {
  const out: string[] = [];
  // indexOf instead of split: no intermediate array on the per-row path.
  let start = 0;
  for (;;) {
    const end = raw.indexOf(separator, start);
    const part = (end < 0 ? raw.slice(start) : raw.slice(start, end)).trim();
    if (part !== '') out.push(part);
    if (end < 0) return out;
    start = end + separator.length;
  }
}

const TAGS = /<[^>]*>/g;
const ENTITIES = /&(#x[0-9a-f]+|#\d+|[a-z]+);/gi;
const SPACES = /\s+/g;
const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  bull: '•',
  middot: '·',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  trade: '™',
  reg: '®',
  copy: '©',
  deg: '°',
};

function decodeEntity(whole: string, body: string): string {
  if (body[0] === '#') {
    const code =
      body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number(body.slice(1));
    return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
  }
  return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
}

/** Plain text from an HTML fragment: tags become spaces, common entities are decoded. */
export function stripHtml(html: string): string {
  return html.replace(TAGS, ' ').replace(ENTITIES, decodeEntity).replace(SPACES, ' ').trim();
}

/** Shortened for messages and reports. */
export function shorten(value: unknown, max = 80): string {
  const s = typeof value === 'string' ? value : JSON.stringify(value);
  if (s === undefined) return String(value);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}
