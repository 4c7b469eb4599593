import { parseProxyUrl } from '../http/proxy.js';
import { UsageError } from '../shared/errors.js';
import { checkHttpUrl } from '../shared/http-url.js';
import { registerSecret } from '../shared/secrets.js';
import { timeZoneForCountry } from '../time/zones.js';
import { checkPostgresUrl, isPostgresUrl } from '../upload/state/location.js';

/**
 * The value parsers of the option table. Each takes the raw value (a flag's string, an env
 * variable, or a config file's JSON value) and where it came from, and fails with a usage error
 * that names that place (`--timeout`, `GENSER_TIMEOUT`, `genser.config.json "timeout"`).
 */
export type Parser<T> = (raw: unknown, from: string) => T;

const text = (raw: unknown) => String(raw).trim();

export function int(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw, from) => {
    const n = typeof raw === 'number' ? raw : Number(text(raw));
    if (text(raw) === '' || !Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${from} must be a whole number from ${min} to ${max}; got "${String(raw)}"`);
    return n;
  };
}

/** `--threads`: auto, or a count of feed workers from 0 to `max` (docs/reading.md, "Threads"). */
export function threads(max: number): Parser<'auto' | number> {
  const count = int(0, max);
  return (raw, from) => {
    if (text(raw) === 'auto') return 'auto';
    try {
      return count(raw, from);
    } catch {
      throw new UsageError(`${from} must be auto or a whole number from 0 to ${max}; got "${String(raw)}"`);
    }
  };
}

/** A share from 0% to 100% (`50%`; the `%` may be left out): the number of percent. */
export const percent: Parser<number> = (raw, from) => {
  const m = /^(\d+(?:\.\d+)?)%?$/.exec(text(raw));
  if (!m || Number(m[1]) > 100)
    throw new UsageError(`${from} must be a share from 0% to 100% (e.g. 50%); got "${String(raw)}"`);
  return Number(m[1]);
};

export function oneOf<T extends string>(values: readonly T[], aliases: Record<string, T> = {}): Parser<T> {
  return (raw, from) => {
    const s = text(raw);
    if ((values as readonly string[]).includes(s)) return s as T;
    const alias = aliases[s.toLowerCase().replace(/[\s_-]/g, '')];
    if (alias) return alias;
    throw new UsageError(`${from} must be one of ${values.join(', ')}; got "${s}"`);
  };
}

export const bool: Parser<boolean> = (raw, from) => {
  if (typeof raw === 'boolean') return raw;
  const s = text(raw).toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(s)) return true;
  if (['0', 'false', 'no', 'off'].includes(s)) return false;
  throw new UsageError(`${from} must be true or false; got "${String(raw)}"`);
};

export const string: Parser<string> = (raw, from) => {
  if (typeof raw === 'object' && raw !== null) throw new UsageError(`${from} must be a string`);
  return String(raw);
};

/** A file path. Relative paths from a config file are made relative to that file by the resolver. */
export const path: Parser<string> = (raw, from) => {
  const s = string(raw, from);
  if (s.trim() === '') throw new UsageError(`${from} must be a file path; got an empty value`);
  return s;
};

/**
 * The upload state: a directory, or a postgres:// URL (docs/nightly.md, "State in PostgreSQL"),
 * whose password is masked from here on. A password in the flag itself is refused: the command
 * line is seen by every user (ps) and kept in shell history.
 */
export const stateLocation: Parser<string> = (raw, from) => {
  const s = path(raw, from);
  if (isPostgresUrl(s)) checkPostgresUrl(s, from, from.startsWith('--'));
  return s;
};

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** `10MiB`, `5MB`, `512k`, `1048576` -> bytes (k, KB and KiB all mean 1024: one parser for every size flag). */
export function byteSize(minBytes = 1): Parser<number> {
  return (raw, from) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw));
    const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
    if (!m || unit === undefined || Number(m[1]) * unit < minBytes)
      throw new UsageError(
        `${from} must be a size${minBytes > 1 ? ` of at least ${minBytes / 1024}k` : ''} such as 10MiB, 5MB, 512k or 1048576; got "${String(raw)}"`,
      );
    return Math.floor(Number(m[1]) * unit);
  };
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `24h`, `30m`, `90s`, `500ms`, or a bare number of milliseconds -> milliseconds. */
export const duration: Parser<number> = (raw, from) => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw));
  const unit = m ? (m[2] === '' ? 1 : DURATION_UNITS[m[2].toLowerCase()]) : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0)
    throw new UsageError(`${from} must be a duration such as 24h, 30m, 90s or 500ms; got "${String(raw)}"`);
  return Math.round(Number(m[1]) * unit);
};

/** Seconds, possibly fractional (`60`, `2.5`, `30s`), more than 0 and at most 3600. */
export const seconds: Parser<number> = (raw, from) => {
  const n = Number(text(raw).replace(/s$/i, ''));
  if (text(raw) === '' || !Number.isFinite(n) || n <= 0 || n > 3600)
    throw new UsageError(
      `${from} must be a number of seconds above 0 and at most 3600 (e.g. 60 or 2.5); got "${String(raw)}"`,
    );
  return n;
};

/** A share from 0 to 1. */
export const rate: Parser<number> = (raw, from) => {
  const n = Number(text(raw));
  if (text(raw) === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(`${from} must be a number from 0 to 1 (0.1 = 10%); got "${String(raw)}"`);
  return n;
};

/** `250` or `100-400` milliseconds. */
export const latency: Parser<number | [number, number]> = (raw, from) => {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(String(raw));
  if (!m || (m[2] !== undefined && Number(m[2]) < Number(m[1])))
    throw new UsageError(`${from} must be milliseconds (250) or a range (100-400); got "${String(raw)}"`);
  return m[2] === undefined ? Number(m[1]) : [Number(m[1]), Number(m[2])];
};

/** A request path: starts with /, no spaces or query. */
export const urlPath: Parser<string> = (raw, from) => {
  let p = text(raw);
  if (!p.startsWith('/')) p = `/${p}`;
  if (/\s|\?|#/.test(p) || p === '/')
    throw new UsageError(
      `${from} must be a path such as /collectors/products (no spaces or query); got "${p}"`,
    );
  return p;
};

/** An absolute http(s) URL: the one check of every host setting (src/shared/http-url.ts). */
export const httpUrl: Parser<string> = (raw, from) => checkHttpUrl(raw, from);

/** One character, or `tab` / `\t`. */
export const delimiter: Parser<string> = (raw, from) => {
  const s = String(raw);
  if (s === '\\t' || s.toLowerCase() === 'tab' || s === '\t') return '\t';
  if ([...s].length !== 1 || /[\r\n"]/.test(s))
    throw new UsageError(
      `${from} must be one character such as , ; | or tab; got "${s}"`,
      'a CSV delimiter is a single character; write tab (or \\t) for a tab',
    );
  return s;
};

/** An ISO 3166 country (KR, JP, US, ...) or an IANA zone; checked now so a typo fails before the run. */
export const country: Parser<string> = (raw, from) => {
  const s = text(raw);
  const value = s.includes('/') ? s : s.toUpperCase();
  try {
    timeZoneForCountry(value);
  } catch (err) {
    throw new UsageError(`${from}: ${(err as Error).message}`, (err as UsageError).hint);
  }
  return value;
};

/** `FIELD=VALUE` entries (a flag given several times, or a config file's list). */
export const assignments: Parser<string[]> = (raw, from) => {
  const list = Array.isArray(raw) ? raw : [raw];
  return list.map((entry) => {
    const text = String(entry);
    if (!/^[A-Za-z_][\w.@-]*=/.test(text))
      throw new UsageError(`${from} takes FIELD=VALUE, e.g. currency=KRW; got "${text}"`);
    return text;
  });
};

/** `--proxy`: an http(s) proxy URL; its password is a secret from here on (never printed). */
export const proxyUrl: Parser<string> = (raw, from) => {
  const url = parseProxyUrl(raw, from);
  if (url.password) registerSecret(decodeURIComponent(url.password));
  if (url.password) registerSecret(url.password);
  return url.href;
};
