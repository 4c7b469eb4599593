/**
 * When to retry a request and how long to wait: pure, so it is tested without a network.
 * Randomness is injected so backoff is deterministic in tests.
 */

/** Statuses worth retrying as is: the server may succeed next time. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

export interface BackoffSettings {
  /** First backoff ceiling in ms; doubles each attempt. */
  baseMs: number;
  /** Largest backoff ceiling in ms. */
  capMs: number;
  /** Largest wait a server's Retry-After may ask for, in ms. */
  retryAfterCapMs: number;
}

/**
 * "Full jitter" (AWS architecture blog): a random wait between 0 and min(cap, base * 2^attempt),
 * so many clients retrying at once spread out instead of hammering the server together.
 * `attempt` counts retries from 0.
 */
export function backoffDelay(attempt: number, settings: BackoffSettings, random: () => number): number {
  const ceiling = Math.min(settings.capMs, settings.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * ceiling);
}

/**
 * Retry-After is either delay-seconds or an HTTP date (RFC 9110 section 10.2.3).
 * Returns ms to wait (0 for a date in the past, capped), or undefined when absent or unreadable.
 */
export function parseRetryAfter(
  value: string | string[] | undefined,
  now: number,
  capMs: number,
): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, capMs);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), capMs);
}

/** The wait before retry number `attempt` (from 0): the server's Retry-After when given, else backoff. */
export function retryDelay(
  attempt: number,
  retryAfterHeader: string | string[] | undefined,
  settings: BackoffSettings,
  now: number,
  random: () => number,
): number {
  return (
    parseRetryAfter(retryAfterHeader, now, settings.retryAfterCapMs) ??
    backoffDelay(attempt, settings, random)
  );
}
