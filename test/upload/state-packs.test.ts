import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/sqlite.js';
import { compressPack, decompressPack, PACK_BYTES, packGroups } from '../../src/upload/state/packs.js';
import { SCHEMA_VERSION } from '../../src/upload/state/schema.js';
import { SqliteState } from '../../src/upload/state/sqlite-state.js';
import { stateFileName } from '../../src/upload/state/target.js';
import { TO_SCHEMA_10_TABLES } from '../helpers/state-v10.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-packs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const target = { apiUrl: 'https://api.example.com', format: 'standard' as const, keyFingerprint: '' };

/** A payload like a product's: JSON text, Korean in it, about 1-3 KB, different per SKU and version. */
function payload(sku: string, version: number): Uint8Array {
  const words = randomBytes(40).toString('base64');
  const name = '가방 '.repeat(1 + (version % 7));
  return Buffer.from(
    JSON.stringify({
      '@type': 'Product',
      sku,
      version,
      name,
      description: `${words} ${'설명 '.repeat(200 + (sku.length % 300))}`,
    }),
  );
}

async function openState(name: string): Promise<SqliteState> {
  const d = join(dir, `${name}-${++n}`);
  mkdirSync(d);
  return SqliteState.open(d, target);
}

/** Every pack: how many SKU rows point into it, against its own count and size. */
function packShape(state: SqliteState) {
  return state.db
    .prepare<{ id: number; size: number; live: number; pointing: number }>(
      `SELECT p.id, p.size, p.live, (SELECT count(*) FROM accepted a WHERE a.pack = p.id) AS pointing FROM packs p`,
    )
    .all()
    .map((r) => ({
      id: Number(r.id),
      size: Number(r.size),
      live: Number(r.live),
      pointing: Number(r.pointing),
    }));
}

describe('packs', () => {
  it('cuts entries in order into groups of at least the limit, the last one smaller', () => {
    const entries = [5, 3, 9, 1, 1, 1, 8, 2].map((size, i) => ({
      sku: `S${i}`,
      bytes: new Uint8Array(size),
    }));
    const groups = packGroups(entries, 10);
    expect(groups.map((g) => g.map((e) => e.sku))).toEqual([
      ['S0', 'S1', 'S2'],
      ['S3', 'S4', 'S5', 'S6'],
      ['S7'],
    ]);
    expect(packGroups([], 10)).toEqual([]);
  });

  it('decompresses to the bytes laid end to end', () => {
    const parts = [payload('A', 1), Buffer.from('{"name":"東京"}'), new Uint8Array(0), randomBytes(5000)];
    expect(Buffer.from(decompressPack(compressPack(parts))).equals(Buffer.concat(parts))).toBe(true);
  });

  it('keeps every SKU at its last accepted payload over nights of changes, and dead bytes under the live ones', async () => {
    const state = await openState('nights');
    try {
      const held = new Map<string, Uint8Array>();
      const prices = new Map<string, number>();
      const skus = Array.from({ length: 600 }, (_, i) => `SKU-${String(i).padStart(4, '0')}`);
      const send = async (list: string[], version: number) => {
        for (let i = 0; i < list.length; i += 100) {
          const body = list.slice(i, i + 100);
          const parts = body.map((sku) => payload(sku, version));
          await state.accepted(
            body.map((sku) => ({ sku, hash: `h${version}-${sku}`, price: version + 0.5 })),
            parts,
          );
          for (const [j, sku] of body.entries()) {
            held.set(sku, parts[j]);
            prices.set(sku, version + 0.5);
          }
        }
      };
      await send(skus, 0);
      let random = 7;
      const next = () => {
        random = (random * 1103515245 + 12345) % 2 ** 31;
        return random / 2 ** 31;
      };
      for (let night = 1; night <= 12; night++) {
        // Some nights a few, some nights most: packs are left a little or mostly empty.
        const share = night % 4 === 0 ? 0.6 : 0.08;
        await send(
          skus.filter(() => next() < share),
          night,
        );
        for (const p of packShape(state)) {
          expect(p.live).toBe(p.pointing);
          expect(p.live * 2).toBeGreaterThanOrEqual(p.size);
        }
      }
      // Asked in an order of their own (the reads go by pack): each SKU its own payload.
      const got = await state.acceptedPayloads(
        [...skus].sort((a, b) => (a.slice(-2) + a < b.slice(-2) + b ? -1 : 1)),
      );
      expect(got.size).toBe(600);
      for (const sku of skus) {
        expect(Buffer.from(got.get(sku)!).equals(Buffer.from(held.get(sku)!))).toBe(true);
      }
      // Each price stayed with its row as the payloads moved from pack to pack.
      expect(await state.acceptedPrices(skus)).toEqual(prices);
      // The pack cache hands out copies: a caller that writes into one changes nothing kept.
      got.get(skus[0])!.fill(0);
      expect(
        Buffer.from((await state.acceptedPayloads([skus[0]])).get(skus[0])!).equals(
          Buffer.from(held.get(skus[0])!),
        ),
      ).toBe(true);
      const gone = [];
      for await (const g of state.absent((sku) => sku > 'SKU-0590')) gone.push(g);
      expect(gone.map((g) => g.sku)).toEqual(skus.filter((s) => s <= 'SKU-0590'));
      for (const g of gone) expect(Buffer.from(g.payload).equals(Buffer.from(held.get(g.sku)!))).toBe(true);
      expect(await state.knownCount()).toBe(600);
      // Compressed: the packs hold well under the payload bytes.
      const stored = Number(
        state.db.prepare<{ b: number }>('SELECT sum(length(data)) AS b FROM packs').get()!.b,
      );
      const live = [...held.values()].reduce((a, b) => a + b.length, 0);
      expect(stored).toBeLessThan(live * 0.5);
    } finally {
      await state.close();
    }
  });

  it('keeps the last of two payloads of one SKU in a body', async () => {
    const state = await openState('twice');
    try {
      await state.accepted(
        [
          { sku: 'A', hash: 'h1' },
          { sku: 'A', hash: 'h2' },
        ],
        [Buffer.from('{"v":1}'), Buffer.from('{"v":2}')],
      );
      expect(await state.acceptedHash('A')).toBe('h2');
      expect(Buffer.from((await state.acceptedPayloads(['A'])).get('A')!).toString()).toBe('{"v":2}');
      expect(packShape(state)).toEqual([{ id: 1, size: 1, live: 1, pointing: 1 }]);
    } finally {
      await state.close();
    }
  });

  it('says a pack that does not decompress, or is gone, is the damage of the file (exit 2, the copy to restore)', async () => {
    const state = await openState('damaged');
    try {
      await state.accepted(
        [
          { sku: 'A', hash: 'h1' },
          { sku: 'B', hash: 'h2', price: 5 },
          { sku: 'C', hash: 'h2' },
        ],
        [payload('A', 1), payload('B', 1), payload('C', 1)],
      );
      state.db.prepare('UPDATE packs SET data = ?').run(Buffer.from('bytes a disk changed'));
      // A price kept with its row is read without its pack; one not kept is read from the payload.
      expect(await state.acceptedPrices(['B'])).toEqual(new Map([['B', 5]]));
      for (const read of [
        () => state.acceptedPayloads(['A']),
        () => state.acceptedPrices(['A', 'B']),
        async () => {
          for await (const _ of state.absent(() => false));
        },
      ])
        await expect(read()).rejects.toMatchObject({
          exitCode: 2,
          message: expect.stringMatching(
            /upload state .* cannot be used: it is damaged: pack 1 does not decompress \(SQLITE_CORRUPT\)$/,
          ),
        });
      // A body that takes the damaged pack apart (it leaves it under half live) says the same.
      await expect(
        state.accepted(
          [
            { sku: 'A', hash: 'h3' },
            { sku: 'C', hash: 'h3' },
          ],
          [payload('A', 3), payload('C', 3)],
        ),
      ).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining('it is damaged: pack 1 does not decompress (SQLITE_CORRUPT)'),
      });
      expect(await state.acceptedHash('A')).toBe('h1');
      state.db.exec('DELETE FROM packs');
      await expect(state.acceptedPayloads(['B'])).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringContaining('it is damaged: pack 1 is missing (SQLITE_CORRUPT)'),
      });
    } finally {
      await state.close();
    }
  });

  it('migrates a version 10 file (one row a payload) into packs, keeping every payload, hash and source key', async () => {
    const d = join(dir, `v10-${++n}`);
    mkdirSync(d);
    await (await SqliteState.open(d, target)).close();
    const file = join(d, stateFileName(target));
    const db = openDatabase(file);
    db.exec(`${TO_SCHEMA_10_TABLES} UPDATE meta SET value = '10' WHERE key = 'schema_version';`);
    const held = new Map<string, Uint8Array>();
    // More than one page of the migration (2,000 rows) and many packs; ids not in SKU order.
    for (let i = 0; i < 2500; i++) {
      const sku = `S${String((i * 7919) % 2500).padStart(5, '0')}`;
      const bytes = payload(sku, i);
      held.set(sku, bytes);
      db.prepare('INSERT INTO payloads (id, payload) VALUES (?, ?)').run(i + 1, bytes);
      db.prepare('INSERT INTO accepted VALUES (?, ?, ?, ?, ?)').run(
        sku,
        `h-${sku}`,
        '2026-11-24T00:00:00Z',
        i + 1,
        i % 3 === 0 ? null : `key-${sku}`,
      );
    }
    // An empty SKU is a key like any other: the least of them, on the first page.
    const empty = payload('', 0);
    held.set('', empty);
    db.prepare('INSERT INTO payloads (id, payload) VALUES (?, ?)').run(3000, empty);
    db.prepare('INSERT INTO accepted VALUES (?, ?, ?, ?, ?)').run(
      '',
      'h-',
      '2026-11-24T00:00:00Z',
      3000,
      null,
    );
    // A payload row no SKU points at any more is not carried over.
    db.prepare('INSERT INTO payloads (id, payload) VALUES (?, ?)').run(9999, Buffer.from('{}'));
    // In 16 KiB pages, as schema 10's files were made.
    db.exec('PRAGMA journal_mode = DELETE; PRAGMA page_size = 16384; VACUUM; PRAGMA journal_mode = WAL;');
    db.close();
    const before = statSync(file).size;
    const raw = [...held.values()].reduce((a, b) => a + b.length, 0);

    const state = await SqliteState.open(d, target);
    try {
      expect(
        state.db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get()!
          .value,
      ).toBe(String(SCHEMA_VERSION));
      const got = await state.acceptedPayloads([...held.keys()]);
      expect(got.size).toBe(2501);
      for (const [sku, bytes] of held)
        expect(Buffer.from(got.get(sku)!).equals(Buffer.from(bytes))).toBe(true);
      const rows = state.db
        .prepare<{ sku: string; hash: string; source: string | null; price: number | null }>(
          'SELECT sku, hash, source, price FROM accepted',
        )
        .all();
      expect(rows).toHaveLength(2501);
      for (const r of rows) expect(r.hash).toBe(`h-${r.sku}`);
      // No price is known yet: the price-shock guard reads it from the payload (none here).
      for (const r of rows) expect(r.price).toBeNull();
      expect(await state.acceptedPrices(['S00001'])).toEqual(new Map());
      expect(rows.filter((r) => r.source !== null)).toHaveLength(1666);
      const shape = packShape(state);
      // Each pack at least PACK_BYTES but the last of a migration page (two pages here), less
      // than that and one payload more.
      const most = Math.max(...[...held.values()].map((b) => b.length));
      expect(shape.length).toBeLessThanOrEqual(Math.floor(raw / PACK_BYTES) + 2);
      expect(shape.length).toBeGreaterThanOrEqual(Math.floor(raw / (PACK_BYTES + most)));
      for (const p of shape) expect(p).toMatchObject({ live: p.size, pointing: p.size });
      expect(
        state.db.prepare("SELECT name FROM sqlite_master WHERE name = 'payloads'").get(),
      ).toBeUndefined();
      expect(state.db.pragma('page_size')).toBe(16384);
    } finally {
      await state.close();
    }
    // Vacuumed: the pages the payloads left are given back.
    expect(before).toBeGreaterThan(raw);
    expect(statSync(file).size).toBeLessThan(before / 2);
  });
});
