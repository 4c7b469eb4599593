import { grownFrom } from '../shared/typed-arrays.js';
import {
  closeKnownFile,
  KNOWN_ON_DISK_AT,
  KnownFile,
  type KnownFileData,
  KnownFileWriter,
} from './known-file.js';
import { SOURCE_KEY_BYTES } from './source-keys.js';

/**
 * The source keys the service accepted, with their SKUs (docs/nightly.md, "Unchanged rows"), in
 * shared memory: every feed worker looks rows up in the same table, none holds a copy. An
 * open-addressing hash table over the keys (their first 4 bytes are already uniform: SHA-256),
 * about 40 bytes per SKU plus its UTF-8 bytes; past KNOWN_ON_DISK_AT entries a sorted file
 * instead (./known-file.ts), so that memory stops growing with the state.
 */
export type KnownSourcesData = KnownInMemory | KnownFileData;

export interface KnownInMemory {
  /** Entry index + 1 per slot, 0 for empty; a power of two at least twice the entries. */
  slots: Int32Array;
  /** Entry i's key as 4 words from 4 * i. */
  keys: Uint32Array;
  /**
   * The entries' UTF-8 bytes, entry i's from ends[i - 1] (0 for the first) to ends[i]: its SKU up
   * to skuEnds[i], then what was kept with its key (its warnings and GTIN: `keptWithKey`), if any.
   */
  skus: Uint8Array;
  ends: Int32Array;
  skuEnds: Int32Array;
}

/** What the table knows of a key: the SKU accepted with it, and its row's warnings (JSON) if any. */
export interface KnownEntry {
  sku: string;
  warnings?: string;
}

/** The accepted keys and SKUs as the state reads them, column by column. */
export interface KnownColumns {
  /** Every key as base64url (KEY_TEXT_LENGTH characters each), joined. */
  keys: string;
  /** Every SKU followed by its warnings (JSON, or nothing), joined. */
  skus: string;
  /** Each SKU's length in UTF-8 bytes. */
  skuBytes: number[];
  /** Each entry's warnings' length in UTF-8 bytes (0: none); all 0 when absent. */
  warningBytes?: number[];
}

const WORDS = SOURCE_KEY_BYTES / 4;
/** base64url of 16 bytes, unpadded. */
export const KEY_TEXT_LENGTH = Math.ceil((SOURCE_KEY_BYTES * 4) / 3);

export class KnownSources {
  private readonly mask: number = 0;
  /** The entries' bytes as a Buffer (a view of the shared memory, made once), to decode from. */
  private readonly text: Buffer = Buffer.alloc(0);
  private readonly file: KnownFile | undefined;

  constructor(readonly data: KnownSourcesData) {
    if ('fd' in data) {
      this.file = new KnownFile(data);
      return;
    }
    this.mask = data.slots.length - 1;
    this.text = Buffer.from(data.skus.buffer, data.skus.byteOffset, data.skus.byteLength);
  }

  get size(): number {
    return 'fd' in this.data ? this.data.count : this.data.ends.length;
  }

  /** Lets a table's file go (the feed that asked for the table, once its workers are gone). */
  close(): void {
    if (this.file) closeKnownFile(this.file.data);
  }

  /**
   * The table of `entries`: a source as the state stores it (the key in base64url, then the
   * row's warnings as JSON if it had some) and its SKU.
   */
  static build(entries: readonly { source: string; sku: string }[], onDiskAt?: number): KnownSources {
    const warnings = entries.map((e) => e.source.slice(KEY_TEXT_LENGTH));
    const table = KnownSources.fromColumns(
      {
        keys: entries.map((e) => e.source.slice(0, KEY_TEXT_LENGTH)).join(''),
        skus: entries.map((e, i) => e.sku + warnings[i]).join(''),
        skuBytes: entries.map((e) => Buffer.byteLength(e.sku, 'utf8')),
        warningBytes: warnings.map((w) => Buffer.byteLength(w, 'utf8')),
      },
      onDiskAt,
    );
    // A source shorter than a key leaves the keys' text short: fromColumns refuses it.
    if (!table) throw new Error('every source must start with a key of 22 characters of base64url');
    return table;
  }

  /** The table of one page of columns (`build`'s); undefined when they do not add up (KnownSourcesBuilder). */
  static fromColumns(columns: KnownColumns, onDiskAt?: number): KnownSources | undefined {
    return new KnownSourcesBuilder(onDiskAt).add(columns).finish();
  }

  /** The SKU accepted with this key (and its row's warnings), if any. */
  lookup(key: Buffer): KnownEntry | undefined {
    if ('fd' in this.data) return this.file!.lookup(key);
    const { slots, keys, ends, skuEnds } = this.data;
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
        const skuEnd = skuEnds[entry - 1];
        const end = ends[entry - 1];
        const found: KnownEntry = { sku: this.text.toString('utf8', start, skuEnd) };
        if (end > skuEnd) found.warnings = this.text.toString('utf8', skuEnd, end);
        return found;
      }
    }
  }
}

/**
 * The table from the state's columns read a page at a time: a state of millions of SKUs is never
 * one text (V8's strings end at 2^29 - 24 characters: the SKUs and kept texts of about 20M
 * products with a 12-character SKU and a GTIN, fewer with longer ones or warnings; and all the
 * texts at once cost 1.25 GiB of peak RSS at 10M SKUs against 0.65-0.76 GiB in pages:
 * BENCHMARKS.md, "Ten million rows"). Each page is the keys as base64url text joined, the SKUs
 * (each with its warnings) joined, and their lengths in UTF-8 bytes; a page whose columns do not
 * add up (a SKU that is not valid Unicode, say) means no table.
 */
export class KnownSourcesBuilder {
  // In shared memory as they grow: the table is views of them, never a copy at the end (pages
  // past what is written are never touched, so they take no memory).
  private keys = new Uint32Array(shared(256 * SOURCE_KEY_BYTES));
  private bytes = Buffer.from(shared(16 * 1024));
  private ends = new Int32Array(shared(256 * 4));
  private skuEnds = new Int32Array(shared(256 * 4));
  private count = 0;
  private used = 0;
  private broken = false;
  private readonly key = Buffer.alloc(SOURCE_KEY_BYTES);
  /** Past `onDiskAt` entries: the entries on their way to a file, and memory's arrays let go. */
  private file: KnownFileWriter | undefined;

  constructor(private readonly onDiskAt = KNOWN_ON_DISK_AT) {}

  add(page: KnownColumns): this {
    const count = page.skuBytes.length;
    if (page.keys.length !== count * KEY_TEXT_LENGTH) this.broken = true;
    if (page.warningBytes && page.warningBytes.length !== count) this.broken = true;
    if (this.broken) return this;
    if (this.file || this.count + count > this.onDiskAt) return this.onDisk(() => this.addToFile(page));
    this.room(count, page.skus.length * 3);
    const start = this.used;
    this.used += this.bytes.write(page.skus, this.used, 'utf8');
    let end = start;
    for (let n = 0; n < count; n++) {
      const at = this.count + n;
      this.key.write(page.keys.slice(n * KEY_TEXT_LENGTH, (n + 1) * KEY_TEXT_LENGTH), 'base64url');
      for (let w = 0; w < WORDS; w++) this.keys[at * WORDS + w] = this.key.readUInt32LE(w * 4);
      end += page.skuBytes[n];
      this.skuEnds[at] = end;
      end += page.warningBytes?.[n] ?? 0;
      this.ends[at] = end;
    }
    if (end !== this.used) this.broken = true;
    this.count += count;
    return this;
  }

  /** The table (views of the shared arrays, or the file), or undefined when a page did not add up. */
  finish(): KnownSources | undefined {
    if (this.broken) {
      this.file?.abandon();
      return undefined;
    }
    if (this.file) return new KnownSources(this.file.finish());
    const count = this.count;
    let capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    const slots = new Int32Array(shared(capacity * 4));
    const keys = this.keys.subarray(0, count * WORDS);
    for (let n = 0; n < count; n++) {
      let slot = keys[n * WORDS] & (capacity - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (capacity - 1);
      slots[slot] = n + 1;
    }
    return new KnownSources({
      slots,
      keys,
      skus: new Uint8Array(this.bytes.buffer, 0, this.used),
      ends: this.ends.subarray(0, count),
      skuEnds: this.skuEnds.subarray(0, count),
    });
  }

  /** Work on the file (made first when there is none); a failed write lets it go before it is said. */
  private onDisk(work: () => this): this {
    try {
      if (!this.file) this.toFile();
      return work();
    } catch (err) {
      this.file?.abandon();
      this.file = undefined;
      this.broken = true;
      throw err;
    }
  }

  /** The entries so far into a file, and memory's arrays let go. */
  private toFile(): void {
    const file = new KnownFileWriter();
    this.file = file;
    for (let n = 0; n < this.count; n++) {
      for (let w = 0; w < WORDS; w++) this.key.writeUInt32LE(this.keys[n * WORDS + w], w * 4);
      file.add(this.key, this.bytes, n === 0 ? 0 : this.ends[n - 1], this.skuEnds[n], this.ends[n]);
    }
    this.keys = new Uint32Array(shared(0));
    this.bytes = Buffer.from(shared(0));
    this.ends = new Int32Array(shared(0));
    this.skuEnds = new Int32Array(shared(0));
  }

  private addToFile(page: KnownColumns): this {
    const text = Buffer.from(page.skus, 'utf8');
    let end = 0;
    for (let n = 0; n < page.skuBytes.length; n++) {
      const start = end;
      const skuEnd = start + page.skuBytes[n];
      end = skuEnd + (page.warningBytes?.[n] ?? 0);
      if (end > text.length) break;
      this.key.write(page.keys.slice(n * KEY_TEXT_LENGTH, (n + 1) * KEY_TEXT_LENGTH), 'base64url');
      this.file!.add(this.key, text, start, skuEnd, end);
    }
    if (end !== text.length) this.broken = true;
    this.count += page.skuBytes.length;
    return this;
  }

  /** Room for `count` more entries and `bytes` more bytes: each array doubled as needed. */
  private room(count: number, bytes: number): void {
    const entries = this.count + count;
    if (entries > this.ends.length) {
      const size = Math.max(entries, this.ends.length * 2);
      this.keys = grownFrom(
        new Uint32Array(shared(size * SOURCE_KEY_BYTES)),
        this.keys.subarray(0, this.count * WORDS),
      );
      this.ends = grownFrom(new Int32Array(shared(size * 4)), this.ends.subarray(0, this.count));
      this.skuEnds = grownFrom(new Int32Array(shared(size * 4)), this.skuEnds.subarray(0, this.count));
    }
    if (this.used + bytes > this.bytes.length) {
      const more = Buffer.from(shared(Math.max(this.used + bytes, this.bytes.length * 2)));
      this.bytes.copy(more, 0, 0, this.used);
      this.bytes = more;
    }
  }
}

const shared = (bytes: number): SharedArrayBuffer => new SharedArrayBuffer(bytes);
