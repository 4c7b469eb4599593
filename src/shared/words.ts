/**
 * Numbers, counts and outcomes in messages for people, written one way everywhere: by the
 * reports, the progress line and the commands' summaries alike. The outcome counts are those
 * of src/http/outcome.ts, named here by shape so this leaf imports nothing above it.
 */
interface OutcomeCounts {
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
}

/** 1,234,567: thousands separated by commas. */
export const n = (x: number): string => x.toLocaleString('en-US');

/** A count and its noun: "1 row", "2,500 rows", "1 batch", "3 batches". */
export function count(x: number, one: string, many = `${one}s`): string {
  return `${n(x)} ${x === 1 ? one : many}`;
}

/** "0.4 s", "12.0 s", "3 min 5 s". */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const m = Math.floor(ms / 60_000);
  return `${m} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "833 rows/s", "1 row/s". */
export function rate(x: number, durationMs: number, one: string, many = `${one}s`): string {
  const perSecond = durationMs > 0 ? Math.round((x / durationMs) * 1000) : x;
  return `${n(perSecond)} ${perSecond === 1 ? one : many}/s`;
}

/** "4 accepted, 1 rejected, 2 unconfirmed": accepted and rejected always, the others when any. */
export function outcomeWords(c: OutcomeCounts): string {
  const parts = [`${n(c.accepted)} accepted`, `${n(c.rejected)} rejected`];
  if (c.failed > 0) parts.push(`${n(c.failed)} failed`);
  if (c.unconfirmed > 0) parts.push(`${n(c.unconfirmed)} unconfirmed`);
  return parts.join(', ');
}

/** What each outcome that needs a second look means, for the lines that list its rows. */
export const OUTCOME_MEANING: Record<'failed' | 'unconfirmed' | 'not_sent', string> = {
  failed: 'not taken (the service said so, or was never reached); run again to send them',
  unconfirmed: 'sent, but the answer was lost or unclear: they may have landed; sending them again is safe',
  not_sent: 'the run stopped before sending them',
};

/**
 * A value kept to `max` characters for a report people read, its full length said after it:
 * one 1 MB value must not make an HTML report take seconds to open or a job summary pass
 * GitHub's limit. The JSON report keeps the value whole.
 */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never cut a surrogate pair in two.
  const end = /[\uD800-\uDBFF]/.test(text[max - 1] ?? '') ? max - 1 : max;
  return `${text.slice(0, end)}… (${n(text.length)} characters)`;
}

/** `sending: at most 6 requests at once (--concurrency 8)`: how far the adaptive sender went. */
export function concurrencyLines(c: { reached: number; max: number } | undefined): string[] {
  return c ? [`sending: at most ${count(c.reached, 'request')} at once (--concurrency ${c.max})`] : [];
}
