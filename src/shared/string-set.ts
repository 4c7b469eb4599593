/**
 * A map from strings with no limit on its size: V8's Map throws past 2^24 entries, as its Set
 * does (every accepted SKU's hash, read at once for a run that compares most rows).
 */
export class StringMap<V> {
  /** Each part holds at most PART entries; a new one starts when the last is full. */
  static readonly PART = 1 << 23;
  private readonly parts: Map<string, V>[] = [new Map()];
  private last = this.parts[0];

  constructor(private readonly part = StringMap.PART) {}

  get size(): number {
    let n = 0;
    for (const p of this.parts) n += p.size;
    return n;
  }

  get(key: string): V | undefined {
    if (this.last.has(key) || this.parts.length === 1) return this.last.get(key);
    for (const p of this.parts) if (p.has(key)) return p.get(key);
    return undefined;
  }

  set(key: string, value: V): this {
    for (const p of this.parts)
      if (p.has(key)) {
        p.set(key, value);
        return this;
      }
    if (this.last.size >= this.part) {
      this.last = new Map();
      this.parts.push(this.last);
    }
    this.last.set(key, value);
    return this;
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const p of this.parts) yield* p;
  }
}

/**
 * A set of strings with no limit on its size (a StringMap underneath). V8's Set holds at most
 * 2^24 entries (16.7M) and throws past it; a feed of more SKUs than that is a real feed
 * (BENCHMARKS.md, "Ten million rows"). Exact, unlike a set of hashes: this one decides which
 * products are marked gone.
 */
export class StringSet {
  static readonly PART = StringMap.PART;
  private readonly map: StringMap<true>;

  constructor(part = StringSet.PART) {
    this.map = new StringMap(part);
  }

  get size(): number {
    return this.map.size;
  }

  has(value: string): boolean {
    return this.map.get(value) !== undefined;
  }

  add(value: string): this {
    this.map.set(value, true);
    return this;
  }
}

/** What a reader of a set of SKUs needs of it. */
export interface HasSku {
  has(sku: string): boolean;
}
