/**
 * How many requests to keep in flight to one host (pure; docs/networks.md, "Sending that
 * adapts"). It starts low and grows while answers come back quick and clean: by one for each
 * such answer at first (doubling every round trip), and after the first sign of congestion up
 * to just under the level where it came, then by one only after many clean rounds, to probe
 * whether the service has room again. A 429, a 503 or a timeout halves it. It never goes above
 * `max` (--concurrency). Signals from requests started before the last cut describe the old
 * limit, and are not counted again.
 */

/** How an answer bears on the limit: clean (2xx, or the data refused), congested, or neither. */
export type Signal = 'clean' | 'congested' | 'other';

export interface LimitOptions {
  max: number;
  /** Where it starts: low, so a host that is already busy is not hit with `max` at once. */
  start?: number;
  /** Clean rounds at the level just under a congestion before trying one more (default 16). */
  probeRounds?: number;
}

/** An answer counts as quick up to twice the quickest seen, plus this much (ms). */
const QUICK_SLACK_MS = 20;

export class AdaptiveLimit {
  readonly max: number;
  /** The current limit. */
  limit: number;
  /** Bumped at every cut: a request remembers the generation it started in. */
  generation = 0;
  private ceiling: number | undefined;
  private clean = 0;
  private quickest = Number.POSITIVE_INFINITY;
  private readonly probeRounds: number;

  constructor(o: LimitOptions) {
    this.max = Math.max(1, Math.floor(o.max));
    this.limit = Math.min(this.max, Math.max(1, o.start ?? 2));
    this.probeRounds = o.probeRounds ?? 16;
  }

  /** One answer, `ms` after its request went, of a request started in `generation`. */
  record(signal: Signal, ms: number, generation: number): void {
    if (signal === 'congested') {
      this.cut(generation);
      return;
    }
    if (signal !== 'clean') {
      this.clean = 0;
      return;
    }
    this.quickest = Math.min(this.quickest, ms);
    if (ms > 2 * this.quickest + QUICK_SLACK_MS) return;
    this.clean++;
    const belowCeiling = this.ceiling === undefined || this.limit < this.ceiling - 1;
    const needed = belowCeiling ? 1 : this.limit * this.probeRounds;
    if (this.clean >= needed) this.grow();
  }

  private grow(): void {
    this.clean = 0;
    if (this.limit >= this.max) return;
    this.limit++;
    // Past the old ceiling without congestion: the service has more room now.
    if (this.ceiling !== undefined && this.limit >= this.ceiling) this.ceiling = this.limit + 1;
  }

  private cut(generation: number): void {
    if (generation < this.generation) return;
    this.ceiling = this.limit;
    this.limit = Math.max(1, Math.floor(this.limit / 2));
    this.clean = 0;
    this.generation++;
  }
}
