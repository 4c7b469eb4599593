import { pick, type Sources } from '../cli/config.js';
import { UsageError } from '../shared/errors.js';
import { timeZoneForCountry } from '../time/zones.js';
import { parseLatency } from './faults.js';
import type { SandboxOptions } from './index.js';

/**
 * `genser sandbox` flags -> SandboxOptions, through the usual precedence (flags, environment,
 * genser.config.json, defaults). Pure: no server is started here.
 */
export const DEFAULT_PORT = 8080;

function rate(raw: unknown, from: string): number {
  const n = Number(String(raw).trim());
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new UsageError(
      `${from} must be a number from 0 to 1; got "${String(raw)}"`,
      'for example 0.1 = 10%',
    );
  return n;
}

function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  return (raw: unknown, from: string): number => {
    const n = Number(String(raw).trim());
    if (!Number.isInteger(n) || n < min || n > max)
      throw new UsageError(`${from} must be a whole number from ${min} to ${max}; got "${String(raw)}"`);
    return n;
  };
}

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

/** `10485760`, `512k`, `10MiB` -> bytes. */
export function parseSize(raw: unknown, from: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw));
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0)
    throw new UsageError(`${from} must be a size such as 10MiB, 512k or 1048576; got "${String(raw)}"`);
  return Math.floor(Number(m[1]) * unit);
}

const DURATION_UNITS: Record<string, number> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** `24h`, `30m`, `90s`, `500ms`, or a bare number of milliseconds. */
export function parseDuration(raw: unknown, from: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw));
  const unit = m ? (m[2] === '' ? 1 : DURATION_UNITS[m[2].toLowerCase()]) : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0)
    throw new UsageError(`${from} must be a duration such as 24h, 30m, 90s or 500ms; got "${String(raw)}"`);
  return Math.round(Number(m[1]) * unit);
}

function latency(raw: unknown, from: string): number | [number, number] {
  const l = parseLatency(String(raw));
  if (l === undefined)
    throw new UsageError(`${from} must be milliseconds (250) or a range (100-400); got "${String(raw)}"`);
  return l;
}

function path(raw: unknown, from: string): string {
  const p = String(raw);
  if (!p.startsWith('/') || /\s|\?/.test(p))
    throw new UsageError(`${from} must be a path starting with / (no spaces or query); got "${p}"`);
  return p;
}

export interface SandboxCliSettings {
  options: SandboxOptions;
  port: number;
  /** Which keys were generated here (and so are printed once). */
  generated: { apiKey: boolean; serviceKey: boolean };
}

export function resolveSandboxSettings(sources: Sources): SandboxCliSettings {
  const str = (raw: unknown) => String(raw);
  const country = pick(sources, 'country', 'GENSER_COUNTRY', 'KR', str);
  timeZoneForCountry(country); // fail early, as a usage error, on an unknown country
  const apiKey = pick<string | undefined>(sources, 'apiKey', 'GENSER_API_KEY', undefined, str);
  const serviceKey = pick<string | undefined>(sources, 'serviceKey', 'GENSER_SERVICE_KEY', undefined, str);
  const failStatus = pick<number>(sources, 'failStatus', undefined, 503, (raw, from) => {
    const n = Number(raw);
    if (n !== 500 && n !== 503) throw new UsageError(`${from} must be 500 or 503; got "${String(raw)}"`);
    return n;
  }) as 500 | 503;
  const port = pick(sources, 'port', 'GENSER_SANDBOX_PORT', DEFAULT_PORT, wholeNumber(0, 65535));
  const options: SandboxOptions = {
    port,
    host: pick(sources, 'host', 'GENSER_SANDBOX_HOST', '127.0.0.1', str),
    db: pick(sources, 'db', 'GENSER_SANDBOX_DB', ':memory:', str),
    apiKey,
    serviceKey,
    country,
    adminEmail: pick(sources, 'adminEmail', undefined, 'admin@example.com', str),
    maxBodyBytes: pick(sources, 'maxBody', undefined, 10 * 1024 * 1024, parseSize),
    idempotencyTtlMs: pick(sources, 'idempotencyTtl', undefined, 24 * 3_600_000, parseDuration),
    legacyPaths: {
      products: pick(sources, 'legacyProductsPath', undefined, '/searches/products', path),
      contents: pick(sources, 'legacyContentsPath', undefined, '/searches/contents', path),
      filters: pick(sources, 'legacyFiltersPath', undefined, '/searches/filters', path),
    },
    faults: {
      failRate: pick<number | undefined>(sources, 'failRate', undefined, undefined, rate),
      failStatus,
      latencyMs: pick<number | [number, number] | undefined>(
        sources,
        'latency',
        undefined,
        undefined,
        latency,
      ),
      resetRate: pick<number | undefined>(sources, 'resetRate', undefined, undefined, rate),
      rateLimit: pick<number | undefined>(sources, 'rateLimit', undefined, undefined, wholeNumber(1)),
      lostRate: pick<number | undefined>(sources, 'lostRate', undefined, undefined, rate),
      seed: pick<number | undefined>(sources, 'seed', undefined, undefined, wholeNumber(0, 2 ** 32 - 1)),
    },
    quiet: pick(sources, 'quiet', undefined, false, (raw) => Boolean(raw)),
  };
  return { options, port, generated: { apiKey: apiKey === undefined, serviceKey: serviceKey === undefined } };
}
