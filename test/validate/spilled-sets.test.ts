import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import { HashRuns } from '../../src/storage/hash-runs.js';
import { GtinSet } from '../../src/validate/duplicate-gtins.js';
import { hashA, hashB, SkuSet } from '../../src/validate/duplicates.js';

// A set past its `spillAt` entries keeps the older ones in runs on disk
// (src/storage/hash-runs.ts); it must answer exactly as a set that kept everything in memory.

const tmp = process.env.TMPDIR;
afterEach(() => {
  if (tmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmp;
});

describe('a SKU set that spills to disk', () => {
  it('property: answers every add and has as a set kept in memory does, tags too', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.boolean()), { minLength: 1, maxLength: 600 }),
        fc.integer({ min: 2, max: 64 }),
        (ops, spillAt) => {
          const spilled = new SkuSet(4, true, spillAt);
          const kept = new SkuSet(4, true, 1 << 20);
          try {
            ops.forEach(([n, isAdd], row) => {
              const sku = `SKU-${n}`;
              if (isAdd)
                expect(spilled.add(sku, row % 5, row, n * 7)).toEqual(kept.add(sku, row % 5, row, n * 7));
              else expect(spilled.has(sku)).toBe(kept.has(sku));
            });
            expect(spilled.count).toBe(kept.count);
          } finally {
            spilled.close();
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('finds the first row of 200,000 SKUs kept in 48 runs, and no SKU it was not given', () => {
    const set = new SkuSet(1 << 10, false, 4096);
    try {
      let said = 0;
      for (let i = 0; i < 200_000; i++) if (set.add(`GS-${i}`, i % 3, i + 1)) said++;
      expect(said).toBe(0);
      expect(set.count).toBe(200_000);
      for (let i = 0; i < 200_000; i += 373)
        expect(set.add(`GS-${i}`, 9, 0)).toEqual({ fileIndex: i % 3, row: i + 1 });
      let found = 0;
      for (let i = 200_000; i < 220_000; i++) if (set.has(`GS-${i}`)) found++;
      expect(found).toBe(0);
      expect(set.count).toBe(200_000);
    } finally {
      set.close();
    }
  });

  it('probes a run on disk as the table did: past block edges, around the end, to an empty slot', () => {
    // A table of 4,096 slots filled by linear probing: 300 keys at home slot 10 (slots 10-309),
    // then 600 at home slot 4,000: 96 to the end, 10 from slot 0, the rest after the first 300.
    const width = 4;
    const table = new Uint32Array(4096 * width);
    const put = (a: number, b: number, row: number) => {
      let i = a & 4095;
      while (table[i * width] !== 0 || table[i * width + 1] !== 0) i = (i + 1) & 4095;
      table.set([a, b, row, 0], i * width);
    };
    for (let e = 0; e < 900; e++) put(e < 300 ? 10 : 4000, 1000 + e, e);
    const runs = new HashRuns(width, 'a test');
    try {
      runs.spill(table, 4095);
      expect(runs.count).toBe(900);
      for (const e of [0, 255, 299, 300, 395, 396, 405, 406, 511, 512, 899]) {
        const a = e < 300 ? 10 : 4000;
        expect(Array.from(runs.find(a, 1000 + e) ?? []).slice(0, 4)).toEqual([a, 1000 + e, e, 0]);
      }
      expect(runs.find(10, 999)).toBeUndefined();
      expect(runs.find(4000, 5000)).toBeUndefined();
      expect(runs.find(900, 1000)).toBeUndefined();
      expect(runs.find(4096 + 10, 1000)).toBeUndefined();
    } finally {
      runs.close();
    }
  });

  it('holds its memory at the spill size while the entries grow', () => {
    // What the set keeps, after a collection: without one, the filters it outgrew and dropped
    // still count until the collector runs, which depends on what else the worker did (CI saw
    // 2.08 MiB against 2 MiB once).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const grow = (set: SkuSet) => {
      gc();
      const before = process.memoryUsage().arrayBuffers;
      for (let i = 0; i < 400_000; i++) set.addHashed(hashA(`M-${i}`), hashB(`M-${i}`), 0, i);
      gc();
      return process.memoryUsage().arrayBuffers - before;
    };
    const spilled = new SkuSet(1 << 10, false, 8192);
    const kept = new SkuSet(1 << 10, false, 1 << 20);
    try {
      // In memory: 400,000 entries in a table of 2^20 slots of 16 bytes (16 MiB).
      expect(grow(kept)).toBeGreaterThan(8 * 2 ** 20);
      // Spilled: a table for 8,192 and about 3 bytes of filters an entry on disk.
      expect(grow(spilled)).toBeLessThan(2 * 2 ** 20);
    } finally {
      spilled.close();
    }
  });

  it('leaves nothing in the temporary directory, and names it when it cannot be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'spill-test-'));
    try {
      process.env.TMPDIR = dir;
      const set = new SkuSet(4, false, 8);
      for (let i = 0; i < 100; i++) set.add(`T-${i}`, 0, i);
      expect(readdirSync(dir)).toEqual([]);
      expect(set.add('T-3', 0, 500)).toEqual({ fileIndex: 0, row: 3 });
      set.close();

      process.env.TMPDIR = join(dir, 'missing');
      const failing = new SkuSet(4, false, 8);
      let thrown: unknown;
      try {
        for (let i = 0; i < 8; i++) failing.add(`T-${i}`, 0, i);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).message).toBe(
        `cannot use a temporary file in the temporary directory ${join(dir, 'missing')} (ENOENT)`,
      );
      expect((thrown as UsageError).hint).toMatch(
        /^set TMPDIR to a writable directory with room: .*past the first 8 there/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a GTIN set that spills to disk', () => {
  it('still tells another SKU of a GTIN from the same SKU again', () => {
    const gtins = new GtinSet(16);
    const at = (g: string) => [hashA(g), hashB(g)] as const;
    try {
      for (let i = 0; i < 1000; i++) expect(gtins.add(...at(`G${i}`), i, 0, i + 1)).toBeUndefined();
      // G5's first SKU (tag 5) again: its duplicate SKU is reported elsewhere, not here.
      expect(gtins.add(...at('G5'), 5, 0, 2000)).toBeUndefined();
      expect(gtins.add(...at('G5'), 6, 1, 2001)).toMatchObject({ fileIndex: 0, row: 6 });
    } finally {
      gtins.close();
    }
  });
});
