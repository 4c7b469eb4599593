/**
 * Duplicate SKUs across a whole run, in little memory: SKUs are not kept, only a 64-bit hash
 * (two independent 32-bit FNV-1a variants) and where each was first seen, in typed arrays with
 * open addressing (see SkuSet): 22-30 bytes per distinct SKU (1M SKUs: ~23 MiB, no per-entry objects).
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

/**
 * Open addressing over a table of entry numbers (4 bytes a slot, at most half full) into dense
 * per-entry arrays (14 bytes an entry): about 22-30 bytes per distinct SKU, and a table that
 * grows without copying the entries. Slot value 0 is empty; entry n is stored as n + 1.
 */
export class SkuSet {
  private slots: Uint32Array;
  private size = 0;
  private a: Uint32Array;
  private b: Uint32Array;
  private rows: Uint32Array;
  private files: Uint16Array;
  /** A 32-bit tag per entry (the GTIN set keeps its first SKU's hash); empty when untagged. */
  private tags: Uint32Array;

  constructor(initialCapacity = 1 << 14, tagged = false) {
    this.slots = new Uint32Array(initialCapacity);
    const entries = initialCapacity >>> 1;
    this.a = new Uint32Array(entries);
    this.b = new Uint32Array(entries);
    this.rows = new Uint32Array(entries);
    this.files = new Uint16Array(entries);
    this.tags = new Uint32Array(tagged ? entries : 0);
  }

  get count(): number {
    return this.size;
  }

  /** Whether the SKU was added (a 64-bit hash match: see above). */
  has(sku: string): boolean {
    const ha = hashA(sku);
    const hb = hashB(sku);
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let i = ha & mask, n = slots[i]; n !== 0; i = (i + 1) & mask, n = slots[i])
      if (this.a[n - 1] === ha && this.b[n - 1] === hb) return true;
    return false;
  }

  /** Records the SKU; returns where it was first seen when it is a duplicate. */
  add(sku: string, fileIndex: number, row: number, tag = 0): FirstSeen | undefined {
    return this.addHashed(hashA(sku), hashB(sku), fileIndex, row, tag);
  }

  /** `add` of a SKU by its two hashes (made where the row was, a feed worker say). */
  addHashed(ha: number, hb: number, fileIndex: number, row: number, tag = 0): FirstSeen | undefined {
    const slots = this.slots;
    const mask = slots.length - 1;
    let i = ha & mask;
    for (let n = slots[i]; n !== 0; n = slots[i]) {
      const e = n - 1;
      if (this.a[e] === ha && this.b[e] === hb)
        return {
          fileIndex: this.files[e],
          row: this.rows[e],
          tag: this.tags.length > 0 ? this.tags[e] : undefined,
        };
      i = (i + 1) & mask;
    }
    const e = this.size++;
    if (e === this.a.length) this.growEntries();
    this.a[e] = ha;
    this.b[e] = hb;
    this.rows[e] = row;
    this.files[e] = fileIndex;
    if (this.tags.length > 0) this.tags[e] = tag;
    slots[i] = e + 1;
    if (this.size * 2 > slots.length) this.growSlots();
    return undefined;
  }

  private growEntries(): void {
    const n = this.a.length * 2;
    const grown = <T extends Uint32Array | Uint16Array>(old: T, make: (n: number) => T): T => {
      const next = make(n);
      next.set(old);
      return next;
    };
    this.a = grown(this.a, (k) => new Uint32Array(k));
    this.b = grown(this.b, (k) => new Uint32Array(k));
    this.rows = grown(this.rows, (k) => new Uint32Array(k));
    this.files = grown(this.files, (k) => new Uint16Array(k));
    if (this.tags.length > 0) this.tags = grown(this.tags, (k) => new Uint32Array(k));
  }

  /** A table twice the size, filled again from the entries (the entries themselves stay put). */
  private growSlots(): void {
    const slots = new Uint32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let e = 0; e < this.size; e++) {
      let i = this.a[e] & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = e + 1;
    }
    this.slots = slots;
  }
}
