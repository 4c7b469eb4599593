import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import {
  KEY_TEXT_LENGTH,
  type KnownInMemory,
  KnownSources,
  KnownSourcesBuilder,
} from '../../src/feed/known-sources.js';
import { smallDisk } from '../helpers/small-disk.js';

/**
 * The accepted source keys' table (docs/nightly.md, "Unchanged rows"): what every feed worker
 * looks rows up in. A wrong answer here skips a changed row or sends an unchanged one again.
 */

const keyText = (bytes: Buffer) => bytes.toString('base64url');
/** The table's arrays, for one in shared memory. */
const inMemory = (table: KnownSources) => {
  expect('fd' in table.data).toBe(false);
  return table.data as KnownInMemory;
};
const keyBytes = (text: string) => Buffer.from(text, 'base64url');

/** `n` random keys whose first 4 bytes (the slot the table starts at) are `prefix`. */
function keysWithPrefix(prefix: Buffer, n: number): string[] {
  return Array.from({ length: n }, () => keyText(Buffer.concat([prefix, randomBytes(12)])));
}

describe('KnownSources', () => {
  it('answers each key with its SKU and others with nothing, over many entries and colliding slots', () => {
    const entries: { source: string; sku: string }[] = [];
    const seen = new Set<string>();
    const add = (source: string, sku: string) => {
      if (seen.has(source)) return;
      seen.add(source);
      entries.push({ source, sku });
    };
    for (let i = 0; i < 3000; i++) add(keyText(randomBytes(16)), `SKU-${i}`);
    // 200 keys that start in the same slot, and 50 more in the slot after it: long probe runs
    // that wrap around the table's end (0xffffffff is the last slot at any size).
    const shared = Buffer.from([0xff, 0xff, 0xff, 0xff]);
    const crowded: [Buffer, number, string][] = [
      [shared, 200, 'WRAP'],
      [Buffer.from([0, 0, 0, 0]), 50, 'ZERO'],
      [Buffer.from([7, 0, 0, 0]), 50, 'SEVEN'],
    ];
    for (const [prefix, n, name] of crowded) {
      for (const [i, k] of keysWithPrefix(prefix, n).entries()) add(k, `${name}-${i}`);
    }
    const table = KnownSources.build(entries);
    expect(table.size).toBe(entries.length);
    expect(inMemory(table).slots.length).toBeGreaterThanOrEqual(entries.length * 2);
    for (const e of entries) expect(table.lookup(keyBytes(e.source))?.sku, e.sku).toBe(e.sku);
    // Absent keys: random ones, ones in the crowded slots, and present keys with one bit flipped
    // in each of their 4 words.
    const absent = [
      ...Array.from({ length: 500 }, () => keyText(randomBytes(16))),
      ...keysWithPrefix(shared, 100),
      ...keysWithPrefix(Buffer.from([0, 0, 0, 0]), 20),
    ].filter((k) => !seen.has(k));
    for (const e of entries.slice(-300)) {
      for (const byte of [0, 5, 10, 15]) {
        const flipped = keyBytes(e.source);
        flipped[byte] ^= 1;
        if (!seen.has(keyText(flipped))) absent.push(keyText(flipped));
      }
    }
    for (const k of absent) expect(table.lookup(keyBytes(k)), k).toBeUndefined();
  });

  it('keeps non-ASCII SKUs whole: Korean, Japanese, emoji, and an empty one', () => {
    const skus = ['한글-상품-001', 'ソックス/L', '😀🎁', 'e\u0301', '', 'A'.repeat(300), '가'];
    const entries = skus.map((sku) => ({ source: keyText(randomBytes(16)), sku }));
    const table = KnownSources.build(entries);
    for (const e of entries) expect(table.lookup(keyBytes(e.source))?.sku).toBe(e.sku);
  });

  it('is the same table read in pages of any size as read in one go; a page that does not add up gives none', () => {
    const entries = Array.from({ length: 1000 }, (_, i) => ({
      source: keyText(randomBytes(16)) + (i % 7 === 0 ? `[{"message":"경고 ${i}"}]` : ''),
      sku: i % 3 === 0 ? `상품-${i}` : i % 3 === 1 ? `ソックス/${i}` : `SKU-${i}`,
    }));
    const columns = (part: typeof entries) => ({
      keys: part.map((e) => e.source.slice(0, KEY_TEXT_LENGTH)).join(''),
      skus: part.map((e) => e.sku + e.source.slice(KEY_TEXT_LENGTH)).join(''),
      skuBytes: part.map((e) => Buffer.byteLength(e.sku)),
      warningBytes: part.map((e) => Buffer.byteLength(e.source.slice(KEY_TEXT_LENGTH))),
    });
    const whole = KnownSources.fromColumns(columns(entries))!;
    for (const page of [1, 2, 255, 256, 257, 999, 1000]) {
      const builder = new KnownSourcesBuilder();
      for (let at = 0; at < entries.length; at += page) builder.add(columns(entries.slice(at, at + page)));
      // An empty last page, as a database's read past the end gives.
      const table = builder.add(columns([])).finish()!;
      expect(table.size).toBe(entries.length);
      expect(inMemory(table).skus).toEqual(inMemory(whole).skus);
      for (const e of entries)
        expect(table.lookup(keyBytes(e.source.slice(0, KEY_TEXT_LENGTH)))).toEqual(
          whole.lookup(keyBytes(e.source.slice(0, KEY_TEXT_LENGTH))),
        );
    }
    const broken = columns(entries.slice(10, 20));
    broken.skuBytes[3]++;
    expect(
      new KnownSourcesBuilder()
        .add(columns(entries.slice(0, 10)))
        .add(broken)
        .finish(),
    ).toBeUndefined();
  });

  it('is empty when nothing was accepted: every lookup misses', () => {
    const table = KnownSources.build([]);
    expect(table.size).toBe(0);
    for (let i = 0; i < 100; i++) expect(table.lookup(randomBytes(16))).toBeUndefined();
    const fromColumns = KnownSources.fromColumns({ keys: '', skus: '', skuBytes: [] });
    expect(fromColumns?.size).toBe(0);
    expect(fromColumns?.lookup(randomBytes(16))).toBeUndefined();
  });

  it("keeps each key's warnings after its SKU: entries with and without them, in any order", () => {
    const warned = (n: number) =>
      JSON.stringify([{ severity: 'warning', code: 'required', message: `상품 ${n}` }]);
    const entries = Array.from({ length: 300 }, (_, i) => ({
      source: keyText(randomBytes(16)) + (i % 3 === 0 ? warned(i) : ''),
      sku: i % 2 === 0 ? `상품-${i}` : `SKU-${i}`,
    }));
    const table = KnownSources.build(entries);
    entries.forEach((e, i) => {
      const found = table.lookup(keyBytes(e.source.slice(0, KEY_TEXT_LENGTH)));
      expect(found?.sku).toBe(e.sku);
      expect(found?.warnings).toBe(i % 3 === 0 ? warned(i) : undefined);
    });
    // The state's columns: SKU and warnings lengths apart; a warnings length off by one is refused.
    const key = keyText(randomBytes(16));
    const w = warned(1);
    const columns = { keys: key, skus: `한${w}`, skuBytes: [3], warningBytes: [Buffer.byteLength(w)] };
    expect(KnownSources.fromColumns(columns)?.lookup(keyBytes(key))).toEqual({ sku: '한', warnings: w });
    expect(
      KnownSources.fromColumns({ ...columns, warningBytes: [Buffer.byteLength(w) - 1] }),
    ).toBeUndefined();
  });

  it('refuses keys of the wrong length, and columns that do not add up', () => {
    const good = keyText(randomBytes(16));
    expect(good.length).toBe(KEY_TEXT_LENGTH);
    expect(() => KnownSources.build([{ source: good.slice(1), sku: 'A' }])).toThrow(/22 characters/);
    expect(() =>
      KnownSources.build([
        { source: good, sku: 'A' },
        { source: '', sku: 'B' },
      ]),
    ).toThrow(/22 characters/);
    // The keys column one character short or long for its count.
    expect(KnownSources.fromColumns({ keys: good.slice(1), skus: 'A', skuBytes: [1] })).toBeUndefined();
    expect(KnownSources.fromColumns({ keys: `${good}${good}`, skus: 'A', skuBytes: [1] })).toBeUndefined();
    expect(KnownSources.fromColumns({ keys: good, skus: 'AB', skuBytes: [1, 1] })).toBeUndefined();
    // SKU byte lengths that do not sum to the SKUs' UTF-8 bytes (한 is 3 bytes, not 1).
    expect(KnownSources.fromColumns({ keys: good, skus: '한', skuBytes: [1] })).toBeUndefined();
    expect(KnownSources.fromColumns({ keys: good, skus: 'AB', skuBytes: [1] })).toBeUndefined();
    expect(KnownSources.fromColumns({ keys: good, skus: 'A', skuBytes: [2] })).toBeUndefined();
    // The columns as the state reads them, adding up.
    const second = keyText(randomBytes(16));
    const table = KnownSources.fromColumns({ keys: good + second, skus: '한A', skuBytes: [3, 1] });
    expect(table?.lookup(keyBytes(good))?.sku).toBe('한');
    expect(table?.lookup(keyBytes(second))?.sku).toBe('A');
  });

  it('is shared with a worker thread, not copied: the worker answers the same SKUs from the same memory', async () => {
    // The worker runs the built module, as the feed workers do.
    const built = new URL('../../dist/feed/known-sources.js', import.meta.url);
    expect(existsSync(built), 'run `npm run build` first').toBe(true);
    const entries = Array.from({ length: 500 }, (_, i) => ({
      source: keyText(randomBytes(16)),
      sku: i % 2 === 0 ? `상품-${i}` : `SKU-${i}`,
    }));
    const table = KnownSources.build(entries);
    for (const array of Object.values(table.data)) expect(array.buffer).toBeInstanceOf(SharedArrayBuffer);
    const asked = [...entries.map((e) => e.source), keyText(randomBytes(16))];
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       let table;
       parentPort.on('message', async (m) => {
         if (m.known) {
           const { KnownSources } = await import(${JSON.stringify(built.href)});
           table = new KnownSources(m.known);
           const shared = Object.values(m.known).every((a) => a.buffer instanceof SharedArrayBuffer);
           parentPort.postMessage({ shared });
           return;
         }
         parentPort.postMessage({ skus: m.ask.map((k) => table.lookup(Buffer.from(k, "base64url"))?.sku ?? null) });
       });`,
      { eval: true },
    );
    const replies: unknown[] = [];
    const waiters: ((m: unknown) => void)[] = [];
    worker.on('message', (m) => {
      const w = waiters.shift();
      if (w) w(m);
      else replies.push(m);
    });
    const next = () =>
      new Promise<unknown>((resolve, reject) => {
        const r = replies.shift();
        if (r !== undefined) resolve(r);
        else waiters.push(resolve);
        worker.once('error', reject);
      });
    try {
      // As the pool sends it (src/feed/pool.ts, KnownMessage).
      worker.postMessage({ known: table.data });
      expect(await next()).toEqual({ shared: true });
      worker.postMessage({ ask: asked });
      expect(await next()).toEqual({ skus: [...entries.map((e) => e.sku), null] });
      // A byte changed here is seen there: one memory. (SKU-1's first byte, S -> T.)
      const start = inMemory(table).ends[0];
      expect(String.fromCharCode(inMemory(table).skus[start])).toBe('S');
      inMemory(table).skus[start] = 'T'.charCodeAt(0);
      worker.postMessage({ ask: [entries[1].source] });
      expect(await next()).toEqual({ skus: ['TKU-1'] });
    } finally {
      await worker.terminate();
    }
  });
});

/** The process's open descriptors (Linux): a table's file must not outlive its `close`. */
const openFds = () => readdirSync('/proc/self/fd').length;
const HAVE_PROC = existsSync('/proc/self/fd');
/** A TMPDIR that fills (a tmpfs; only where one can be mounted). */
const disk = smallDisk('256k');

describe('KnownSources past its size in memory: a sorted file (KNOWN_ON_DISK_AT)', () => {
  /** Entries of every kind the file must keep whole; keys at both ends and sharing first words. */
  function mixedEntries(n: number): { source: string; sku: string }[] {
    const seen = new Set<string>();
    const out: { source: string; sku: string }[] = [];
    const add = (key: string, sku: string, kept = '') => {
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ source: key + kept, sku });
    };
    add(keyText(Buffer.alloc(16, 0)), 'ZERO');
    add(keyText(Buffer.alloc(16, 0xff)), 'ONES');
    for (const [i, k] of keysWithPrefix(Buffer.from([9, 9, 9, 9]), 40).entries()) add(k, `SAME-${i}`);
    // Longer than a block (4 KiB) and than a part's buffer (16 KiB).
    add(keyText(randomBytes(16)), 'LONG-1', JSON.stringify([{ message: '경'.repeat(2000) }]));
    add(keyText(randomBytes(16)), 'L'.repeat(20_000));
    for (let i = 0; i < n; i++) {
      const kept = i % 5 === 0 ? 'g8800000010373' : i % 7 === 0 ? `[{"message":"경고 ${i}"}]` : '';
      add(
        keyText(randomBytes(16)),
        i % 3 === 0 ? `상품-${i}` : i % 3 === 1 ? `ソックス/${i}` : `SKU-${i}`,
        kept,
      );
    }
    return out;
  }

  const columns = (part: { source: string; sku: string }[]) => ({
    keys: part.map((e) => e.source.slice(0, KEY_TEXT_LENGTH)).join(''),
    skus: part.map((e) => e.sku + e.source.slice(KEY_TEXT_LENGTH)).join(''),
    skuBytes: part.map((e) => Buffer.byteLength(e.sku)),
    warningBytes: part.map((e) => Buffer.byteLength(e.source.slice(KEY_TEXT_LENGTH))),
  });

  /** Keys the table must not know: random, below the first and above the last, one bit off a known one. */
  function absentKeys(entries: { source: string }[]): Buffer[] {
    const known = new Set(entries.map((e) => e.source.slice(0, KEY_TEXT_LENGTH)));
    const out = [Buffer.from([0, ...Array(15).fill(0)]), Buffer.alloc(16, 0xfe)];
    out[0][15] = 1;
    for (let i = 0; i < 300; i++) out.push(randomBytes(16));
    for (const e of entries.slice(0, 300))
      for (const byte of [0, 3, 4, 15]) {
        const flipped = keyBytes(e.source.slice(0, KEY_TEXT_LENGTH));
        flipped[byte] ^= 1;
        out.push(flipped);
      }
    return out.filter((k) => !known.has(keyText(k)));
  }

  it('answers every key as the table in memory does, whichever page it went to disk in', () => {
    const entries = mixedEntries(5000);
    const memory = KnownSources.build(entries);
    const absent = absentKeys(entries);
    for (const [onDiskAt, page] of [
      [0, 5000],
      [100, 7],
      [1000, 333],
      [entries.length - 1, 1000],
    ]) {
      const builder = new KnownSourcesBuilder(onDiskAt);
      for (let at = 0; at < entries.length; at += page) builder.add(columns(entries.slice(at, at + page)));
      const table = builder.add(columns([])).finish()!;
      try {
        expect('fd' in table.data, `on disk at ${onDiskAt}`).toBe(true);
        expect(table.size).toBe(entries.length);
        for (const e of entries) {
          const key = keyBytes(e.source.slice(0, KEY_TEXT_LENGTH));
          expect(table.lookup(key), e.sku.slice(0, 40)).toEqual(memory.lookup(key));
        }
        for (const k of absent) expect(table.lookup(k), keyText(k)).toBeUndefined();
      } finally {
        table.close();
      }
    }
    // At the limit exactly, the table stays in memory.
    const at = new KnownSourcesBuilder(entries.length).add(columns(entries)).finish()!;
    expect('fd' in at.data).toBe(false);
  });

  it('is empty on disk too, and refuses a page that does not add up there', () => {
    const empty = KnownSources.build([], 0);
    expect(empty.size).toBe(0);
    expect(empty.lookup(randomBytes(16))).toBeUndefined();
    empty.close();
    const entries = mixedEntries(50);
    const broken = columns(entries.slice(10, 20));
    broken.skuBytes[3]++;
    expect(
      new KnownSourcesBuilder(5)
        .add(columns(entries.slice(0, 10)))
        .add(broken)
        .finish(),
    ).toBeUndefined();
    expect(
      KnownSources.fromColumns({ keys: keyText(randomBytes(16)), skus: '한', skuBytes: [1] }, 0),
    ).toBeUndefined();
  });

  it.skipIf(!HAVE_PROC)('lets its files go: none open once the table is closed or refused', () => {
    const before = openFds();
    const table = KnownSources.build(mixedEntries(2000), 100);
    expect(openFds()).toBe(before + 1);
    table.close();
    const broken = columns(mixedEntries(20));
    broken.skuBytes[0]++;
    expect(new KnownSourcesBuilder(0).add(broken).finish()).toBeUndefined();
    expect(openFds()).toBe(before);
  });

  it.skipIf(disk === undefined || !HAVE_PROC)(
    'stops on a full TMPDIR with the disk named and a hint, leaving no file open',
    () => {
      // About 5 MB: past what the parts' buffers hold before they are written (4 MiB).
      const entries = mixedEntries(100_000);
      const before = openFds();
      const was = process.env.TMPDIR;
      process.env.TMPDIR = disk;
      try {
        // Moved to disk at the first page, or later (the entries in memory written first).
        for (const onDiskAt of [0, 50_000]) {
          const builder = new KnownSourcesBuilder(onDiskAt);
          const fill = () => {
            for (let at = 0; at < entries.length; at += 2000)
              builder.add(columns(entries.slice(at, at + 2000)));
            builder.finish()?.close();
          };
          expect(fill).toThrow(
            expect.objectContaining({
              message: `the disk of the temporary directory ${disk} is full (ENOSPC)`,
              hint: expect.stringContaining('set TMPDIR to a larger disk'),
            }),
          );
          expect(openFds()).toBe(before);
          expect(readdirSync(disk!)).toEqual([]);
        }
      } finally {
        if (was === undefined) delete process.env.TMPDIR;
        else process.env.TMPDIR = was;
      }
    },
  );

  it('is read by a worker thread through the same descriptor: the same answers there', async () => {
    const built = new URL('../../dist/feed/known-sources.js', import.meta.url);
    expect(existsSync(built), 'run `npm run build` first').toBe(true);
    const entries = mixedEntries(3000);
    const table = KnownSources.build(entries, 0);
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', async (m) => {
         const { KnownSources } = await import(${JSON.stringify(built.href)});
         const table = new KnownSources(m.known);
         parentPort.postMessage(m.ask.map((k) => table.lookup(Buffer.from(k, 'base64url')) ?? null));
       });`,
      { eval: true },
    );
    try {
      const asked = [...entries.map((e) => e.source.slice(0, KEY_TEXT_LENGTH)), keyText(randomBytes(16))];
      const answer = new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      worker.postMessage({ known: table.data, ask: asked });
      expect(await answer).toEqual([...asked.slice(0, -1).map((k) => table.lookup(keyBytes(k))), null]);
    } finally {
      await worker.terminate();
      table.close();
    }
  });
});
