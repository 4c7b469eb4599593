import type { FeedItem } from '../shared/types.js';

/** An item as the threaded paths hand it on. */
export interface FeedRow extends FeedItem {
  /** A valid row's payload as UTF-8 JSON, made once on a worker; `payload` is then absent. */
  json?: Uint8Array;
  /** With `json`: its price (`priceOf`, src/payload/price.ts), null when it has none. */
  price?: number | null;
}
