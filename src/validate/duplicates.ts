/**
 * Duplicate SKUs across a whole run, in little memory: SKUs are not kept, only a 64-bit hash
 * (two independent 32-bit FNV-1a variants) and where each was first seen, in typed arrays with
 * open addressing: about 24 bytes per distinct SKU (1M SKUs: ~24 MiB, no per-entry objects).
 * A false "duplicate" needs a 64-bit collision: about 1 in 10^7 for a 1M-row feed.
 */
export interface FirstSeen {
  fileIndex: number;
  row: number;
}

function hashA(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function hashB(s: string): number {
  let h = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    h = Math.imul(h ^ s.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  return (h ^ (h >>> 13)) >>> 0;
}

export class SkuSet {
  private capacity: number;
  private size = 0;
  private a: Uint32Array;
  private b: Uint32Array;
  private rows: Uint32Array;
  private files: Uint16Array;
  private used: Uint8Array;

  constructor(initialCapacity = 1 << 14) {
    this.capacity = initialCapacity;
    this.a = new Uint32Array(initialCapacity);
    this.b = new Uint32Array(initialCapacity);
    this.rows = new Uint32Array(initialCapacity);
    this.files = new Uint16Array(initialCapacity);
    this.used = new Uint8Array(initialCapacity);
  }

  get count(): number {
    return this.size;
  }

  /** Records the SKU; returns where it was first seen when it is a duplicate. */
  add(sku: string, fileIndex: number, row: number): FirstSeen | undefined {
    const ha = hashA(sku);
    const hb = hashB(sku);
    const mask = this.capacity - 1;
    let i = ha & mask;
    while (this.used[i] === 1) {
      if (this.a[i] === ha && this.b[i] === hb) return { fileIndex: this.files[i], row: this.rows[i] };
      i = (i + 1) & mask;
    }
    this.used[i] = 1;
    this.a[i] = ha;
    this.b[i] = hb;
    this.rows[i] = row;
    this.files[i] = fileIndex;
    this.size++;
    if (this.size * 2 > this.capacity) this.grow();
    return undefined;
  }

  private grow(): void {
    const { a, b, rows, files, used, capacity } = this;
    this.capacity = capacity * 2;
    this.a = new Uint32Array(this.capacity);
    this.b = new Uint32Array(this.capacity);
    this.rows = new Uint32Array(this.capacity);
    this.files = new Uint16Array(this.capacity);
    this.used = new Uint8Array(this.capacity);
    const mask = this.capacity - 1;
    for (let j = 0; j < capacity; j++) {
      if (used[j] !== 1) continue;
      let i = a[j] & mask;
      while (this.used[i] === 1) i = (i + 1) & mask;
      this.used[i] = 1;
      this.a[i] = a[j];
      this.b[i] = b[j];
      this.rows[i] = rows[j];
      this.files[i] = files[j];
    }
  }
}
