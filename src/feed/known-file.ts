import { grownFrom } from '../shared/typed-arrays.js';
import {
  openTempFile,
  readTempFile,
  removeTempFile,
  type TempFile,
  writeTempFile,
} from '../storage/temp-file.js';

/**
 * The accepted source keys' table past KNOWN_ON_DISK_AT entries (issue 32: memory flat at ten
 * million products; docs/nightly.md, "Unchanged rows"): the entries in a temporary file, sorted
 * by key, in blocks of about 4 KiB, and in shared memory only each block's first key and where it
 * starts (about 0.5 bytes a key). A lookup finds its block by binary search and reads it: one
 * read a row, from the page cache once the file has been read. The file is unlinked as soon as it
 * is open; the feed's workers read it through the same descriptor (the threads of one process
 * share them) and the feed closes it once its workers are gone.
 */

/** Entries the table keeps in shared memory; past this many it is a file (about 64 MiB in memory). */
export const KNOWN_ON_DISK_AT = 1 << 20;

/** What crosses to the feed's workers with each job: the file's descriptor and its index. */
export interface KnownFileData {
  fd: number;
  /** Set only where an open file cannot be unlinked (temp-file.ts): removed at `closeKnownFile`. */
  path?: string;
  count: number;
  /** Each block's first key, as 4 big-endian words (the file's order). */
  firstKeys: Uint32Array;
  /** Where each block starts in the file, and the file's size last. */
  offsets: Float64Array;
}

/** An entry in the file: its key, its SKU's and kept text's lengths (UTF-8 bytes), then both. */
const HEAD = 24;
/** A block ends before the entry that would take it past this (a longer entry is a block alone). */
const BLOCK = 4096;
/** Entries are first appended by their key's first byte, in buffers of PART_BUFFER bytes. */
const PARTS = 256;
const PART_BUFFER = 16 * 1024;
/** An entry's index in its part, below its key's first word, in a float64's 53 bits. */
const INDEX_BITS = 21;

const WHY = 'a nightly run keeps its accepted source keys there past 1,048,576 products, about 50 bytes each';

/** The entries' key and text while the table is made: appended by part, sorted by `finish`. */
export class KnownFileWriter {
  private readonly spill: TempFile = openTempFile(WHY);
  private spilled = 0;
  private readonly buffers = Array.from({ length: PARTS }, () => Buffer.allocUnsafe(PART_BUFFER));
  private readonly fill = new Array<number>(PARTS).fill(0);
  /** Each part's pieces in the spill file: offset, length, offset, length... */
  private readonly pieces: number[][] = Array.from({ length: PARTS }, () => []);
  private count = 0;

  /** One entry: `key` (16 bytes) and, from `text`, the SKU's bytes then the kept text's. */
  add(key: Buffer, text: Buffer, start: number, skuEnd: number, end: number): void {
    const part = key[0];
    const size = HEAD + end - start;
    if (this.fill[part] + size > PART_BUFFER) this.flush(part);
    if (size > PART_BUFFER) {
      const alone = Buffer.allocUnsafe(size);
      writeEntry(alone, 0, key, text, start, skuEnd, end);
      this.pieces[part].push(this.append(alone, size), size);
    } else {
      writeEntry(this.buffers[part], this.fill[part], key, text, start, skuEnd, end);
      this.fill[part] += size;
    }
    this.count++;
  }

  /** The sorted file and its index; the spill file is let go. */
  finish(): KnownFileData {
    try {
      const out = new SortedWriter();
      try {
        for (let part = 0; part < PARTS; part++) {
          const bytes = this.partBytes(part);
          for (const at of sortedEntries(bytes)) out.put(bytes, at);
        }
        return out.finish(this.count);
      } catch (err) {
        out.abandon();
        throw err;
      }
    } finally {
      removeTempFile(this.spill);
    }
  }

  /** Lets the files go without a table (a page that did not add up). */
  abandon(): void {
    removeTempFile(this.spill);
  }

  private flush(part: number): void {
    const length = this.fill[part];
    if (length === 0) return;
    this.pieces[part].push(this.append(this.buffers[part], length), length);
    this.fill[part] = 0;
  }

  private append(bytes: Buffer, length: number): number {
    const at = this.spilled;
    writeTempFile(this.spill, bytes, length, at, WHY);
    this.spilled += length;
    return at;
  }

  /** A part's entries, read back whole (about 2 MB a part at 10M products). */
  private partBytes(part: number): Buffer {
    const pieces = this.pieces[part];
    let total = this.fill[part];
    for (let i = 1; i < pieces.length; i += 2) total += pieces[i];
    const bytes = Buffer.allocUnsafe(total);
    let to = 0;
    for (let i = 0; i < pieces.length; i += 2) {
      readTempFile(this.spill, bytes, to, pieces[i + 1], pieces[i], WHY);
      to += pieces[i + 1];
    }
    this.buffers[part].copy(bytes, to, 0, this.fill[part]);
    return bytes;
  }
}

/** The sorted file as it is written, and the index of its blocks. */
class SortedWriter {
  private readonly file: TempFile = openTempFile(WHY);
  private readonly out = Buffer.allocUnsafe(1 << 16);
  private used = 0;
  private written = 0;
  private blockStart = 0;
  private firstKeys = new Uint32Array(1024);
  private readonly offsets: number[] = [];

  put(bytes: Buffer, at: number): void {
    const size = entrySize(bytes, at);
    const pos = this.written + this.used;
    if (this.offsets.length === 0 || pos - this.blockStart + size > BLOCK) {
      const block = this.offsets.length;
      if ((block + 1) * 4 > this.firstKeys.length)
        this.firstKeys = grownFrom(new Uint32Array(this.firstKeys.length * 2), this.firstKeys);
      for (let w = 0; w < 4; w++) this.firstKeys[block * 4 + w] = bytes.readUInt32BE(at + w * 4);
      this.offsets.push(pos);
      this.blockStart = pos;
    }
    if (this.used + size > this.out.length) this.drain();
    if (size > this.out.length) {
      writeTempFile(this.file, bytes.subarray(at, at + size), size, this.written, WHY);
      this.written += size;
    } else {
      bytes.copy(this.out, this.used, at, at + size);
      this.used += size;
    }
  }

  finish(count: number): KnownFileData {
    this.drain();
    const blocks = this.offsets.length;
    const firstKeys = new Uint32Array(new SharedArrayBuffer(blocks * 16));
    firstKeys.set(this.firstKeys.subarray(0, blocks * 4));
    const offsets = new Float64Array(new SharedArrayBuffer((blocks + 1) * 8));
    offsets.set(this.offsets);
    offsets[blocks] = this.written;
    return { ...this.file, count, firstKeys, offsets };
  }

  abandon(): void {
    removeTempFile(this.file);
  }

  private drain(): void {
    writeTempFile(this.file, this.out, this.used, this.written, WHY);
    this.written += this.used;
    this.used = 0;
  }
}

/** What the file knows of a key, read by any thread of the process that made it. */
export class KnownFile {
  private block = Buffer.allocUnsafe(2 * BLOCK);

  constructor(readonly data: KnownFileData) {}

  /** The SKU accepted with `key` and what was kept with it (its warnings and GTIN), if any. */
  lookup(key: Buffer): { sku: string; warnings?: string } | undefined {
    const { firstKeys, offsets } = this.data;
    const w0 = key.readUInt32BE(0);
    const w1 = key.readUInt32BE(4);
    const w2 = key.readUInt32BE(8);
    const w3 = key.readUInt32BE(12);
    // The last block whose first key is at or before the key.
    let lo = 0;
    let hi = offsets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareWords(firstKeys, mid * 4, w0, w1, w2, w3) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo === 0) return undefined;
    const length = offsets[lo] - offsets[lo - 1];
    if (length > this.block.length) this.block = Buffer.allocUnsafe(length);
    const bytes = this.block;
    readTempFile(this.data, bytes, 0, length, offsets[lo - 1], WHY);
    for (let at = 0; at < length; at += entrySize(bytes, at)) {
      const c = compareAt(bytes, at, w0, w1, w2, w3);
      if (c > 0) return undefined;
      if (c === 0) {
        const skuEnd = at + HEAD + bytes.readUInt32LE(at + 16);
        const sku = bytes.toString('utf8', at + HEAD, skuEnd);
        const kept = bytes.readUInt32LE(at + 20);
        return kept === 0 ? { sku } : { sku, warnings: bytes.toString('utf8', skuEnd, skuEnd + kept) };
      }
    }
    return undefined;
  }
}

/** Lets the table's file go: by the thread that made it, once no other reads it. */
export function closeKnownFile(data: KnownFileData): void {
  removeTempFile(data);
}

/** The offsets of a part's entries, in key order. */
function sortedEntries(bytes: Buffer): number[] {
  const starts: number[] = [];
  for (let at = 0; at < bytes.length; at += entrySize(bytes, at)) starts.push(at);
  if (starts.length >= 2 ** INDEX_BITS)
    throw new Error(`too many accepted source keys for one part of the table (${starts.length})`);
  // By each key's first word and the entry's index in one number, sorted natively; equal first
  // words (a few a part) then by their whole key.
  const order = new Float64Array(starts.length);
  for (let i = 0; i < starts.length; i++) order[i] = bytes.readUInt32BE(starts[i]) * 2 ** INDEX_BITS + i;
  order.sort();
  const sorted = Array.from(order, (v) => starts[v % 2 ** INDEX_BITS]);
  for (let i = 0; i < sorted.length; ) {
    let j = i + 1;
    const first = bytes.readUInt32BE(sorted[i]);
    while (j < sorted.length && bytes.readUInt32BE(sorted[j]) === first) j++;
    if (j - i > 1) {
      const run = sorted.slice(i, j).sort((a, b) => bytes.compare(bytes, b, b + 16, a, a + 16));
      sorted.splice(i, j - i, ...run);
    }
    i = j;
  }
  return sorted;
}

function writeEntry(
  to: Buffer,
  at: number,
  key: Buffer,
  text: Buffer,
  start: number,
  skuEnd: number,
  end: number,
): void {
  key.copy(to, at, 0, 16);
  to.writeUInt32LE(skuEnd - start, at + 16);
  to.writeUInt32LE(end - skuEnd, at + 20);
  text.copy(to, at + HEAD, start, end);
}

function entrySize(bytes: Buffer, at: number): number {
  return HEAD + bytes.readUInt32LE(at + 16) + bytes.readUInt32LE(at + 20);
}

/** An entry's key against (w0..w3): negative when it sorts before. */
function compareAt(bytes: Buffer, at: number, w0: number, w1: number, w2: number, w3: number): number {
  return (
    bytes.readUInt32BE(at) - w0 ||
    bytes.readUInt32BE(at + 4) - w1 ||
    bytes.readUInt32BE(at + 8) - w2 ||
    bytes.readUInt32BE(at + 12) - w3
  );
}

function compareWords(
  words: Uint32Array,
  at: number,
  w0: number,
  w1: number,
  w2: number,
  w3: number,
): number {
  return words[at] - w0 || words[at + 1] - w1 || words[at + 2] - w2 || words[at + 3] - w3;
}
