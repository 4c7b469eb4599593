/**
 * When to retry a request and how long to wait: pure, so it is tested without a network.
 * Randomness is injected so backoff is deterministic in tests.
 */

/** Statuses worth retrying as is: the server may succeed next time. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 504]);

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

/**
 * Answers after which the data may have landed all the same: a 500 can come after the service
 * stored the body (contract section 7: "server error"), a gateway's 502/504 after the service
 * behind it took it, and a 409 says an earlier try with this Idempotency-Key is still being
 * processed. 503, 429 and 408 say the service did not take the request.
 */
const MAY_HAVE_LANDED: ReadonlySet<number> = new Set([409, 500, 502, 504]);

export function mayHaveLanded(status: number): boolean {
  return MAY_HAVE_LANDED.has(status);
}

/**
 * What an HTTP status means for the sender: `ok` (2xx, the body still to be read), `refused`
 * (the service refused the data: fix it), `auth` (the key), `retry`, or `endpoint` (anything
 * else: 404, 405, 501 ... a wrong URL or path, not worth retrying).
 */
export type StatusClass = 'ok' | 'refused' | 'auth' | 'retry' | 'endpoint';

export function classifyStatus(status: number): StatusClass {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 400 || status === 413 || status === 422) return 'refused';
  if (status === 401 || status === 403) return 'auth';
  // 409: the same key is still in flight (an earlier attempt): wait and ask again.
  if (isRetryableStatus(status) || status === 409) return 'retry';
  return 'endpoint';
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
