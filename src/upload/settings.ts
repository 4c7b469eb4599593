import { parseAs, pick, type Sources } from '../cli/config.js';
import { API_KEY, loadKey } from '../cli/keys.js';
import { UsageError } from '../shared/errors.js';
import type { FeedOptions } from '../shared/types.js';
import type { UploadSettings } from './types.js';

/**
 * Upload settings from flags -> environment -> genser.config.json -> defaults. The API key is
 * never a flag value (flags leak into `ps` and shell history): GENSER_API_KEY, --api-key-file,
 * GENSER_API_KEY_FILE, or the config file's apiKeyFile / apiKey.
 */

export const UPLOAD_DEFAULTS = {
  batchSize: 500,
  maxBatchBytes: 5 * 1024 * 1024,
  concurrency: 4,
  retries: 5,
  retryBaseMs: 500,
  retryCapMs: 30_000,
  retryAfterCapMs: 120_000,
  timeoutSeconds: 60,
  type: 'create_product',
  agentName: 'genser',
  maxErrors: 20,
  graceMs: 5_000,
} as const;

export type InvalidBudget = { kind: 'count'; max: number } | { kind: 'percent'; max: number };

export interface ResolvedUpload {
  settings: UploadSettings;
  apiUrl?: string;
  key?: { value: string; from: string };
  sandbox: boolean;
  timeoutMs: number;
  maxInvalid?: InvalidBudget;
}

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2 };

/** `5MB`, `512k`, `1048576` -> bytes. */
export function parseByteSize(raw: unknown, from: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(String(raw));
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) * unit < 1024)
    throw new UsageError(
      `${from} must be a size of at least 1k such as 5MB, 512k or 1048576; got "${String(raw)}"`,
    );
  return Math.floor(Number(m[1]) * unit);
}

/** Seconds, possibly fractional: `60`, `2.5`. */
function parseSeconds(raw: unknown, from: string): number {
  const n = Number(String(raw).trim().replace(/s$/i, ''));
  if (!Number.isFinite(n) || n <= 0 || n > 3600)
    throw new UsageError(`${from} must be a number of seconds from 0 to 3600; got "${String(raw)}"`);
  return n;
}

/** `10` (rows) or `2%` (of the rows read). */
export function parseInvalidBudget(raw: unknown, from: string): InvalidBudget {
  const text = String(raw).trim();
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text);
  if (pct && Number(pct[1]) <= 100) return { kind: 'percent', max: Number(pct[1]) };
  if (/^\d+$/.test(text)) return { kind: 'count', max: Number(text) };
  throw new UsageError(`${from} must be a number of rows (10) or a percentage (2%); got "${text}"`);
}

/** True when the invalid rows are more than the budget allows. */
export function exceedsBudget(budget: InvalidBudget, invalid: number, rows: number): boolean {
  if (budget.kind === 'count') return invalid > budget.max;
  return rows > 0 && (invalid / rows) * 100 > budget.max;
}

function parseApiUrl(raw: unknown, from: string): string {
  const text = String(raw).trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${from} is not a URL: "${text}"`,
      'give the product API host, e.g. https://api.example.com',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`${from} must be an http or https URL; got "${text}"`);
  return text;
}

export function defaultPath(feed: FeedOptions): string {
  return feed.format === 'legacy' ? `/searches/${feed.kind}` : '/collectors/products';
}

export function resolveUpload(sources: Sources, feed: FeedOptions): ResolvedUpload {
  const d = UPLOAD_DEFAULTS;
  const dryRun = pick(sources, 'dryRun', 'GENSER_DRY_RUN', false, parseAs.bool);
  const sandbox = pick(sources, 'sandbox', undefined, false, parseAs.bool);
  const apiUrl = pick<string | undefined>(sources, 'apiUrl', 'GENSER_API_URL', undefined, parseApiUrl);
  const path = pick(sources, 'path', 'GENSER_PATH', defaultPath(feed), (raw) => {
    const p = String(raw).trim();
    return p.startsWith('/') ? p : `/${p}`;
  });
  const retryCapMs = pick(sources, 'retryCap', 'GENSER_RETRY_CAP', d.retryCapMs, parseAs.int(1, 3_600_000));
  const settings: UploadSettings = {
    format: feed.format,
    path,
    batchSize: pick(sources, 'batchSize', 'GENSER_BATCH_SIZE', d.batchSize, parseAs.int(1, 100_000)),
    maxBatchBytes: pick(sources, 'maxBatchBytes', 'GENSER_MAX_BATCH_BYTES', d.maxBatchBytes, parseByteSize),
    concurrency: pick(sources, 'concurrency', 'GENSER_CONCURRENCY', d.concurrency, parseAs.int(1, 64)),
    retries: pick(sources, 'retries', 'GENSER_RETRIES', d.retries, parseAs.int(0, 100)),
    backoff: {
      baseMs: pick(sources, 'retryBase', 'GENSER_RETRY_BASE', d.retryBaseMs, parseAs.int(1, 3_600_000)),
      capMs: retryCapMs,
      retryAfterCapMs: Math.max(d.retryAfterCapMs, retryCapMs),
    },
    type: pick(
      sources,
      'type',
      'GENSER_TYPE',
      d.type,
      parseAs.oneOf(['create_product', 'update_product'] as const),
    ),
    agentName: pick(sources, 'agent', 'GENSER_AGENT', d.agentName, parseAs.string),
    dryRun,
    maxErrors: pick(sources, 'maxErrors', 'GENSER_MAX_ERRORS', d.maxErrors, parseAs.int(0)),
    graceMs: d.graceMs,
  };
  const timeoutMs = pick(sources, 'timeout', 'GENSER_TIMEOUT', d.timeoutSeconds, parseSeconds) * 1000;
  const maxInvalid = pick<InvalidBudget | undefined>(
    sources,
    'maxInvalid',
    'GENSER_MAX_INVALID',
    undefined,
    parseInvalidBudget,
  );
  const needsServer = !sandbox && !dryRun;
  const key = sandbox ? undefined : loadKey(API_KEY, sources);
  if (needsServer && !apiUrl)
    throw new UsageError(
      'no product API url: set --api-url or GENSER_API_URL (or "apiUrl" in genser.config.json)',
      'or try it locally first with --sandbox, or check the feed with --dry-run',
    );
  if (needsServer && !key)
    throw new UsageError(
      'no API key: set GENSER_API_KEY, or --api-key-file FILE (or "apiKeyFile" in genser.config.json)',
      'the key is never taken from a flag value; or try it locally first with --sandbox',
    );
  return { settings, apiUrl, key, sandbox, timeoutMs, maxInvalid };
}
