import type { UploadState } from '../upload/state/store.js';
import { type PlanTally, tallyPrices } from './plan-tally.js';

/** Changed products whose prices are compared at once: one query a page on a database server. */
export const PRICE_PAGE = 500;

/**
 * The price-shock guard's comparisons (docs/nightly.md, "Mass-change guard"): each changed
 * product's price tonight against the one the state keeps for it, asked of the state a page at a
 * time rather than a row at a time (a round trip each to a PostgreSQL server). Counted in the
 * feed's order, as they were added; `flush` before the tally is read.
 */
export class PriceChecks {
  private pending: { sku: string; now: number | undefined }[] = [];

  constructor(
    private readonly state: Pick<UploadState, 'acceptedPrices'>,
    private readonly tally: PlanTally,
    private readonly shockMove: number,
    private readonly page = PRICE_PAGE,
  ) {}

  async add(sku: string, now: number | undefined): Promise<void> {
    if (this.pending.push({ sku, now }) >= this.page) await this.flush();
  }

  async flush(): Promise<void> {
    const page = this.pending;
    if (page.length === 0) return;
    this.pending = [];
    const before = await this.state.acceptedPrices(page.map((p) => p.sku));
    for (const p of page) tallyPrices(this.tally, p.sku, before.get(p.sku), p.now, this.shockMove);
  }
}
