import { type Random, seededRandom } from './random.js';

/**
 * Faults that let clients rehearse a bad day: random 500/503s, latency, dropped connections,
 * rate limits and lost responses. Every draw comes from one seeded PRNG, in a fixed order per
 * request, so a run with `--seed` sees the same faults for the same sequence of requests.
 */
export interface FaultOptions {
  failRate?: number;
  failStatus?: 500 | 503;
  latencyMs?: number | [number, number];
  resetRate?: number;
  rateLimit?: number;
  lostRate?: number;
  seed?: number;
}

/** What to do with one request before it is processed. */
export type FaultDecision =
  | { kind: 'none'; latencyMs: number; lost: boolean }
  | { kind: 'rate-limited'; retryAfterSeconds: number }
  | { kind: 'reset' }
  | { kind: 'fail'; status: 500 | 503 };

export class Faults {
  private readonly random: Random;
  private windowStart = 0;
  private windowCount = 0;

  constructor(
    private readonly options: FaultOptions,
    private readonly now: () => number,
  ) {
    this.random = seededRandom(options.seed ?? Math.floor(Math.random() * 2 ** 32));
  }

  decide(): FaultDecision {
    const o = this.options;
    if (o.rateLimit && o.rateLimit > 0) {
      // Fixed one-second windows: simple, and what Retry-After can describe exactly.
      const t = this.now();
      if (t - this.windowStart >= 1000 || t < this.windowStart) {
        this.windowStart = t - (t % 1000);
        this.windowCount = 0;
      }
      if (this.windowCount >= o.rateLimit) {
        return { kind: 'rate-limited', retryAfterSeconds: 1 };
      }
      this.windowCount++;
    }
    if (o.resetRate && this.random() < o.resetRate) return { kind: 'reset' };
    if (o.failRate && this.random() < o.failRate) return { kind: 'fail', status: o.failStatus ?? 503 };
    const lost = Boolean(o.lostRate && this.random() < o.lostRate);
    return { kind: 'none', latencyMs: this.latency(), lost };
  }

  private latency(): number {
    const l = this.options.latencyMs;
    if (l === undefined) return 0;
    if (typeof l === 'number') return l;
    const [min, max] = l;
    return Math.round(min + this.random() * (max - min));
  }
}

/** `fail-rate 0.2 (503), latency 50-500 ms, seed 7`, or '' when no fault is on. */
export function describeFaults(o: FaultOptions): string {
  const parts: string[] = [];
  if (o.failRate) parts.push(`fail-rate ${o.failRate} (${o.failStatus ?? 503})`);
  if (o.latencyMs)
    parts.push(`latency ${Array.isArray(o.latencyMs) ? o.latencyMs.join('-') : o.latencyMs} ms`);
  if (o.resetRate) parts.push(`reset-rate ${o.resetRate}`);
  if (o.rateLimit) parts.push(`rate-limit ${o.rateLimit}/s`);
  if (o.lostRate) parts.push(`lost-rate ${o.lostRate}`);
  if (parts.length > 0 && o.seed !== undefined) parts.push(`seed ${o.seed}`);
  return parts.join(', ');
}

/** `250` or `100-400` (milliseconds). */
export function parseLatency(text: string): number | [number, number] | undefined {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(text);
  if (!m) return undefined;
  const min = Number(m[1]);
  if (m[2] === undefined) return min;
  const max = Number(m[2]);
  return max >= min ? [min, max] : undefined;
}
