import type { FeedRow } from '../feed/index.js';
import type { Delta } from '../upload/state/delta.js';

/** Rows compared with the state at once: one query a page on a database server. */
export const COMPARE_PAGE = 500;
/** Rows held at most while a page fills (the unchanged ones between the changed ones). */
const HELD_MOST = 8192;

/** A row on its way to the spool; `sku` set when the state must compare its bytes first. */
export interface Held {
  item: FeedRow;
  json: Uint8Array | undefined;
  sku?: string;
}

/** What the state said of a row's bytes (`Delta.compare`). */
export interface Compared {
  last?: string;
  same: boolean;
}

/**
 * The guard's pass (./guard.ts) hands each row on in the feed's order; a row whose bytes the state
 * must compare waits for a page of them, whose last accepted hashes are asked at once
 * (`Delta.lastHashes`), and the rows after it wait with it, so `settle` still sees every row in
 * order. A nightly run with 1% changed asked a round trip per changed row of a PostgreSQL state
 * (BENCHMARKS.md, "Stop 48"). `flush` settles what is held; call it when the feed ends.
 */
export class ComparePages {
  private held: Held[] = [];
  private compares = 0;

  constructor(
    private readonly delta: Pick<Delta, 'lastHashes' | 'compare'>,
    private readonly settle: (held: Held, compared: Compared | undefined) => void | Promise<void>,
    private readonly page = COMPARE_PAGE,
  ) {}

  /** A row with nothing to compare: settled now, unless rows before it wait. */
  async pass(item: FeedRow, json: Uint8Array | undefined): Promise<void> {
    if (this.held.length === 0) return this.settle({ item, json }, undefined);
    this.held.push({ item, json });
    if (this.held.length >= HELD_MOST) await this.flush();
  }

  /** A row whose bytes the state compares with what it last accepted for `sku`. */
  async compare(item: FeedRow, sku: string, json: Uint8Array): Promise<void> {
    this.held.push({ item, json, sku });
    if (++this.compares >= this.page || this.held.length >= HELD_MOST) await this.flush();
  }

  async flush(): Promise<void> {
    const held = this.held;
    if (held.length === 0) return;
    this.held = [];
    this.compares = 0;
    const lasts = await this.delta.lastHashes(held.flatMap((h) => (h.sku === undefined ? [] : [h.sku])));
    for (const h of held) {
      if (h.sku === undefined) await this.settle(h, undefined);
      else await this.settle(h, await this.delta.compare(h.sku, h.json!, h.item.source, lasts.get(h.sku)));
    }
  }
}
