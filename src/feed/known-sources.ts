import { SOURCE_KEY_BYTES } from './source-keys.js';

/**
 * The source keys the service accepted, with their SKUs (docs/nightly.md, "Unchanged rows"), in
 * shared memory: every feed worker looks rows up in the same table, none holds a copy. An
 * open-addressing hash table over the keys (their first 4 bytes are already uniform: SHA-256),
 * about 40 bytes per SKU plus its UTF-8 bytes.
 */
export interface KnownSourcesData {
  /** Entry index + 1 per slot, 0 for empty; a power of two at least twice the entries. */
  slots: Int32Array;
  /** Entry i's key as 4 words from 4 * i. */
  keys: Uint32Array;
  /** The SKUs' UTF-8 bytes, entry i's from ends[i - 1] (0 for the first) to ends[i]. */
  skus: Uint8Array;
  ends: Int32Array;
}

/** The accepted keys and SKUs as the state reads them, column by column. */
export interface KnownColumns {
  /** Every key as base64url (KEY_TEXT_LENGTH characters each), joined. */
  keys: string;
  /** Every SKU, joined. */
  skus: string;
  /** Each SKU's length in UTF-8 bytes. */
  skuBytes: number[];
}

const WORDS = SOURCE_KEY_BYTES / 4;
/** base64url of 16 bytes, unpadded. */
export const KEY_TEXT_LENGTH = Math.ceil((SOURCE_KEY_BYTES * 4) / 3);

export class KnownSources {
  private readonly mask: number;

  constructor(readonly data: KnownSourcesData) {
    this.mask = data.slots.length - 1;
  }

  get size(): number {
    return this.data.ends.length;
  }

  /** The table of `entries` (a key as the state stores it, base64url, and its SKU). */
  static build(entries: readonly { source: string; sku: string }[]): KnownSources {
    const table = KnownSources.fromColumns({
      keys: entries.map((e) => e.source).join(''),
      skus: entries.map((e) => e.sku).join(''),
      skuBytes: entries.map((e) => Buffer.byteLength(e.sku, 'utf8')),
    });
    if (!table) throw new Error('every key must be 22 characters of base64url');
    return table;
  }

  /**
   * The table from the state's columns read in one go (src/upload/state/store.ts): the keys as
   * base64url text joined, the SKUs joined, and each SKU's length in UTF-8 bytes. Undefined
   * when the columns do not add up (a SKU that is not valid Unicode, say): no table, then.
   */
  static fromColumns(columns: KnownColumns): KnownSources | undefined {
    const count = columns.skuBytes.length;
    if (columns.keys.length !== count * KEY_TEXT_LENGTH) return undefined;
    let capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    const skuText = Buffer.from(columns.skus, 'utf8');
    const slots = new Int32Array(new SharedArrayBuffer(capacity * 4));
    const keys = new Uint32Array(new SharedArrayBuffer(Math.max(4, count * SOURCE_KEY_BYTES)));
    const ends = new Int32Array(new SharedArrayBuffer(Math.max(4, count * 4)));
    const skus = new Uint8Array(new SharedArrayBuffer(Math.max(4, skuText.length)));
    skus.set(skuText);
    const key = Buffer.alloc(SOURCE_KEY_BYTES);
    let end = 0;
    for (let n = 0; n < count; n++) {
      key.write(columns.keys.slice(n * KEY_TEXT_LENGTH, (n + 1) * KEY_TEXT_LENGTH), 'base64url');
      end += columns.skuBytes[n];
      ends[n] = end;
      for (let w = 0; w < WORDS; w++) keys[n * WORDS + w] = key.readUInt32LE(w * 4);
      let slot = keys[n * WORDS] & (capacity - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (capacity - 1);
      slots[slot] = n + 1;
    }
    if (end !== skuText.length) return undefined;
    return new KnownSources({ slots, keys, skus, ends: ends.subarray(0, count) });
  }

  /** The SKU accepted with this key, if any. */
  lookup(key: Buffer): string | undefined {
    const { slots, keys, skus, ends } = this.data;
    const w0 = key.readUInt32LE(0);
    const w1 = key.readUInt32LE(4);
    const w2 = key.readUInt32LE(8);
    const w3 = key.readUInt32LE(12);
    for (let slot = w0 & this.mask; ; slot = (slot + 1) & this.mask) {
      const entry = slots[slot];
      if (entry === 0) return undefined;
      const at = (entry - 1) * WORDS;
      if (keys[at] === w0 && keys[at + 1] === w1 && keys[at + 2] === w2 && keys[at + 3] === w3) {
        const start = entry === 1 ? 0 : ends[entry - 2];
        return Buffer.from(skus.buffer, skus.byteOffset + start, ends[entry - 1] - start).toString('utf8');
      }
    }
  }
}
