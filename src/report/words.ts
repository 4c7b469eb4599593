/** Numbers and counts in messages for people, written one way everywhere. */

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
