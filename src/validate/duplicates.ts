import { HashRuns } from '../storage/hash-runs.js';

/**
 * Duplicate SKUs across a whole run, in little memory: SKUs are not kept, only a 64-bit hash
 * (two independent 32-bit FNV-1a variants) and where each was first seen, in typed arrays with
 * open addressing (see SkuSet): 32-80 bytes per distinct SKU up to SPILL_AT SKUs, on disk after that.
 * A false "duplicate" needs a 64-bit collision: about 1 in 10^7 for a 1M-row feed.
 */
export interface FirstSeen {
  fileIndex: number;
  row: number;
  /** The tag given with the first add (a tagged set only). */
  tag?: number;
}

export function hashA(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function hashB(s: string): number {
  let h = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return (h ^ (h >>> 13)) >>> 0;
}

/** Entries a set keeps in memory before it moves them to disk (src/storage/hash-runs.ts): 16-20 MiB. */
export const SPILL_AT = 1 << 19;

/**
 * Open addressing (linear probing) over a table holding the entries themselves (a, b, row, file
 * index and, when tagged, the tag: 16 or 20 bytes a slot), at most half full: 32-80 bytes per
 * distinct SKU as it grows. At `spillAt` entries the table goes to disk as it is, read in slot
 * order in one pass (src/storage/hash-runs.ts), and memory starts again empty: a set's memory
 * stops growing there (BENCHMARKS.md, "Duplicate checks on disk"). A hash of (0, 0) is kept as
 * (0, 1): (0, 0) marks an empty slot.
 */
export class SkuSet {
  /** Slot i at table[i * width]: a, b, row, file index, then the tag when tagged. */
  private table: Uint32Array;
  /** Slots - 1 (a power of two). */
  private mask: number;
  private size = 0;
  private readonly width: number;
  private runs: HashRuns | undefined;

  constructor(
    initialCapacity = 1 << 14,
    private readonly tagged = false,
    private readonly spillAt = SPILL_AT,
  ) {
    this.width = tagged ? 5 : 4;
    this.table = new Uint32Array(initialCapacity * this.width);
    this.mask = initialCapacity - 1;
  }

  get count(): number {
    return this.size + (this.runs?.count ?? 0);
  }

  /** Whether the SKU was added (a 64-bit hash match: see above). */
  has(sku: string): boolean {
    const ha = hashA(sku);
    const hb = notEmpty(ha, hashB(sku));
    return this.slotOf(ha, hb) >= 0 || this.runs?.find(ha, hb) !== undefined;
  }

  /** Records the SKU; returns where it was first seen when it is a duplicate. */
  add(sku: string, fileIndex: number, row: number, tag = 0): FirstSeen | undefined {
    return this.addHashed(hashA(sku), hashB(sku), fileIndex, row, tag);
  }

  /** `add` of a SKU by its two hashes (made where the row was, a feed worker say). */
  addHashed(ha: number, b: number, fileIndex: number, row: number, tag = 0): FirstSeen | undefined {
    const hb = notEmpty(ha, b);
    const slot = this.slotOf(ha, hb);
    if (slot >= 0) return this.firstSeen(this.table, slot * this.width);
    const spilled = this.runs?.find(ha, hb);
    if (spilled) return this.firstSeen(spilled, 0);
    const at = ~slot * this.width;
    const table = this.table;
    table[at] = ha;
    table[at + 1] = hb;
    table[at + 2] = row;
    table[at + 3] = fileIndex;
    if (this.tagged) table[at + 4] = tag;
    if (++this.size === this.spillAt) this.spill();
    else if (this.size * 2 > this.mask + 1) this.grow();
    return undefined;
  }

  /** Lets go of the entries on disk, if any. */
  close(): void {
    this.runs?.close();
  }

  /** The slot holding (a, b), or ~slot of the empty one where it would go. */
  private slotOf(ha: number, hb: number): number {
    const table = this.table;
    const width = this.width;
    const mask = this.mask;
    for (let i = ha & mask; ; i = (i + 1) & mask) {
      const a = table[i * width];
      const b = table[i * width + 1];
      if (a === ha && b === hb) return i;
      if (a === 0 && b === 0) return ~i;
    }
  }

  private firstSeen(words: Uint32Array, at: number): FirstSeen {
    return { fileIndex: words[at + 3], row: words[at + 2], tag: this.tagged ? words[at + 4] : undefined };
  }

  private spill(): void {
    this.runs ??= new HashRuns(
      this.width,
      `a run's sets of SKUs and GTINs keep their entries past the first ${this.spillAt.toLocaleString('en-US')} there (20-24 bytes each)`,
    );
    this.runs.spill(this.table, this.mask);
    this.table.fill(0);
    this.size = 0;
  }

  /** A table twice the size, the entries placed again (at most `spillAt` of them). */
  private grow(): void {
    const old = this.table;
    const width = this.width;
    this.table = new Uint32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let at = 0; at < old.length; at += width) {
      if (old[at] === 0 && old[at + 1] === 0) continue;
      const to = ~this.slotOf(old[at], old[at + 1]) * width;
      for (let w = 0; w < width; w++) this.table[to + w] = old[at + w];
    }
  }
}

/** A key's `b` as kept: (0, 0) marks an empty slot, so that hash is kept as (0, 1). */
function notEmpty(a: number, b: number): number {
  return a === 0 && b === 0 ? 1 : b;
}
