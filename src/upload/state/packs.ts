import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import type { Database } from '../../storage/sqlite.js';
import { damaged } from './health.js';

/**
 * The accepted payloads of a SQLite state, kept compressed in packs (docs/nightly.md, "Where the
 * state is"): the payloads of one accepted body laid end to end, cut at about PACK_BYTES, each cut
 * compressed whole. A payload compressed alone costs 60-115 us and keeps 0.2-0.4 of its bytes (it
 * has no earlier text to refer to); in a pack of 32 KiB, about 5 us and 0.16, and reading one back
 * decompresses its pack: 60 us in a loop, 0.1-0.15 ms in a busy run (BENCHMARKS.md, "The compact
 * state in packs"). An accepted SKU's row says where its payload is: `pack`, `at`, `length` (in
 * the uncompressed pack).
 *
 * A payload replaced leaves its old bytes in their pack. Each pack counts its `live` payloads; one
 * without any is deleted, and one whose live payloads fall under half its `size` is taken apart:
 * they move into the pack being written. So the dead payloads stay fewer than the live ones.
 */

/** Raw bytes a pack gathers before it is cut: a larger pack compresses better and costs more to read one payload from. */
export const PACK_BYTES = 32 * 1024;

/** Decompressed packs kept for reads that come in runs (a nightly run's changed rows, the SKUs gone). */
const CACHED_PACKS = 16;

const BROTLI = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 0, [constants.BROTLI_PARAM_LGWIN]: 17 },
};

export interface PackEntry {
  sku: string;
  bytes: Uint8Array;
}

export interface Place {
  pack: number;
  at: number;
  length: number;
}

/** Entries in packs of at least PACK_BYTES each (the last may be smaller), in their order. Pure. */
export function packGroups<E extends PackEntry>(entries: readonly E[], limit = PACK_BYTES): E[][] {
  const groups: E[][] = [];
  let group: E[] = [];
  let bytes = 0;
  for (const e of entries) {
    group.push(e);
    bytes += e.bytes.length;
    if (bytes >= limit) {
      groups.push(group);
      group = [];
      bytes = 0;
    }
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

export function compressPack(parts: readonly Uint8Array[]): Uint8Array {
  return brotliCompressSync(Buffer.concat(parts), BROTLI);
}

export function decompressPack(data: Uint8Array): Uint8Array {
  return brotliDecompressSync(data);
}

/** The schema's packs table (SQLite state schema 11). */
export const PACKS_TABLE = `CREATE TABLE packs (
  id INTEGER PRIMARY KEY,
  data BLOB NOT NULL,
  skus TEXT NOT NULL,
  size INTEGER NOT NULL,
  live INTEGER NOT NULL
)`;

/** One state file's packs: written by body, read by SKU through a small cache. */
export class Packs {
  private readonly cache = new Map<number, Uint8Array>();
  private readonly statements;
  private readonly file: string;

  constructor(db: Database) {
    this.file = db.file;
    this.statements = {
      insert: db.prepare('INSERT INTO packs (data, skus, size, live) VALUES (?, ?, ?, ?)'),
      data: db.prepare<{ data: Uint8Array }>('SELECT data FROM packs WHERE id = ?'),
      count: db.prepare<{ skus: string; size: number; live: number }>(
        'SELECT skus, size, live FROM packs WHERE id = ?',
      ),
      live: db.prepare('UPDATE packs SET live = ? WHERE id = ?'),
      remove: db.prepare('DELETE FROM packs WHERE id = ?'),
    };
  }

  /**
   * Writes `entries` in new packs, in their order, and says where each went (`placed` writes the
   * SKU's row). Inside the caller's transaction.
   */
  write<E extends PackEntry>(entries: readonly E[], placed: (entry: E, place: Place) => void): void {
    this.cache.clear();
    for (const group of packGroups(entries)) {
      const skus = JSON.stringify(group.map((e) => e.sku));
      const data = compressPack(group.map((e) => e.bytes));
      const pack = Number(this.statements.insert.run(data, skus, group.length, group.length).lastInsertRowid);
      let at = 0;
      for (const e of group) {
        placed(e, { pack, at, length: e.bytes.length });
        at += e.bytes.length;
      }
    }
  }

  /**
   * Payloads leave their packs (`left`: how many from each pack): a pack left empty is deleted; one
   * left under half full is taken apart, and its live payloads are returned to be written again
   * (`where` says where a SKU's payload is now, so that payloads since moved are not).
   */
  release(left: ReadonlyMap<number, number>, where: (sku: string) => Place | undefined): PackEntry[] {
    this.cache.clear();
    const moving: PackEntry[] = [];
    for (const [pack, n] of left) {
      const row = this.statements.count.get(pack);
      if (!row) continue;
      const live = row.live - n;
      if (live > 0 && live * 2 >= row.size) {
        this.statements.live.run(live, pack);
        continue;
      }
      if (live > 0) {
        const bytes = this.unpack(pack);
        for (const sku of JSON.parse(row.skus) as string[]) {
          const p = where(sku);
          if (p?.pack === pack) moving.push({ sku, bytes: bytes.subarray(p.at, p.at + p.length) });
        }
      }
      this.statements.remove.run(pack);
    }
    return moving;
  }

  /** The payload at `place` (its own bytes: the cached pack stays as it is). */
  read(place: Place): Uint8Array {
    // A copy (Buffer's own `slice` would be a view).
    return new Uint8Array(this.unpack(place.pack).subarray(place.at, place.at + place.length));
  }

  private unpack(pack: number): Uint8Array {
    const cached = this.cache.get(pack);
    if (cached) {
      // Most recently used last: the first key is the one to let go.
      this.cache.delete(pack);
      this.cache.set(pack, cached);
      return cached;
    }
    const row = this.statements.data.get(pack);
    if (!row) throw this.damage(`pack ${pack} is missing`);
    let bytes: Uint8Array;
    try {
      bytes = decompressPack(row.data);
    } catch {
      // Bytes that do not decompress were damaged where SQLite could not see it.
      throw this.damage(`pack ${pack} does not decompress`);
    }
    if (this.cache.size >= CACHED_PACKS) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(pack, bytes);
    return bytes;
  }

  /** The file's damage, as SQLite's own is said (exit 2, the copy to restore), whoever reads it. */
  private damage(what: string) {
    return damaged(this.file, `it is damaged: ${what} (SQLITE_CORRUPT)`);
  }
}
