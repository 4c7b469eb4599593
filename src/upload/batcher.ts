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
}

export interface PendingBatch {
  /** 1-based, in the order batches fill. */
  index: number;
  rows: RowRef[];
  /** Each product's JSON as UTF-8 bytes, in `rows` order. */
  parts: Uint8Array[];
  /** Bytes of the parts plus their separating commas (framing excluded). */
  bytes: number;
}

export interface BatcherSettings {
  maxCount: number;
  maxBytes: number;
  /** Bytes of the framing (envelope head and tail) that every body carries. */
  framingBytes: number;
}

export class Batcher {
  private current: PendingBatch;
  private nextIndex = 1;

  constructor(
    private readonly settings: BatcherSettings,
    private readonly emit: (batch: PendingBatch) => void,
  ) {
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
    return { index: this.nextIndex++, rows: [], parts: [], bytes: 0 };
  }
}
