/**
 * Groups serialized products into batches by count and by body bytes, whichever fills first.
 * Each product is serialized and UTF-8 encoded once, by the caller; a request body is the
 * framing's head, the products' bytes joined by commas, and its tail: one copy, no re-encoding.
 */

/** Where a product came from, kept so every outcome can name its row. */
export interface RowRef {
  file: string;
  row: number;
  line: number;
  sku?: string;
  /** Hash of the product's payload bytes, kept in the upload state once accepted. */
  hash?: string;
  /** The row's source key, kept with the hash (docs/nightly.md, "Unchanged rows"). */
  source?: string;
  /** The payload's price, kept with the hash for the price-shock guard (null: it has none). */
  price?: number | null;
}

export interface PendingBatch {
  /** 1-based, in the order batches fill. */
  index: number;
  rows: RowRef[];
  /** Each product's JSON as UTF-8 bytes, in `rows` order. */
  parts: Uint8Array[];
  /** Bytes of the parts plus their separating commas (framing excluded). */
  bytes: number;
  /** The envelope type of this batch, when not the run's `--type` (the state sorts new from known). */
  type?: 'create_product' | 'update_product';
  /** The envelope id to send it with (a batch resumed from a crashed run); else a new one. */
  requestId?: string;
}

export interface BatcherSettings {
  maxCount: number;
  maxBytes: number;
  /** Bytes of the framing (envelope head and tail) that every body carries. */
  framingBytes: number;
  /** Stamped on every batch. */
  type?: 'create_product' | 'update_product';
  /** Shared by batchers of one run, so batch numbers stay unique. */
  counter?: { next: number };
}

export class Batcher {
  private current: PendingBatch;
  private readonly counter: { next: number };

  constructor(
    private readonly settings: BatcherSettings,
    private readonly emit: (batch: PendingBatch) => void,
  ) {
    this.counter = settings.counter ?? { next: 1 };
    this.current = this.fresh();
  }

  /** Adds one product (its JSON as UTF-8); completed batches go to `emit`. */
  add(json: Uint8Array, ref: RowRef): void {
    const { maxCount, maxBytes, framingBytes } = this.settings;
    const bytes = json.length;
    const batch = this.current;
    // A product too big to fit next to the others goes out in the next batch (alone if it must).
    if (batch.parts.length > 0 && framingBytes + batch.bytes + 1 + bytes > maxBytes) this.flushCurrent();
    const target = this.current;
    target.bytes += target.parts.length > 0 ? bytes + 1 : bytes;
    target.parts.push(json);
    target.rows.push(ref);
    if (target.parts.length >= maxCount) this.flushCurrent();
  }

  /** Emits the last, partly filled batch. */
  finish(): void {
    if (this.current.parts.length > 0) this.flushCurrent();
  }

  private flushCurrent(): void {
    const full = this.current;
    this.current = this.fresh();
    this.emit(full);
  }

  private fresh(): PendingBatch {
    const batch: PendingBatch = { index: this.counter.next++, rows: [], parts: [], bytes: 0 };
    if (this.settings.type) batch.type = this.settings.type;
    return batch;
  }
}
