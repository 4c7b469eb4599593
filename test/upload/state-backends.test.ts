import { mkdtempSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitError } from '../../src/shared/errors.js';
import { connectPostgres } from '../../src/storage/postgres.js';
import { Delta, deltaLine, payloadHash } from '../../src/upload/state/delta.js';
import { connectState } from '../../src/upload/state/pg-open.js';
import { PG_SCHEMA_VERSION } from '../../src/upload/state/pg-schema.js';
import { PgState } from '../../src/upload/state/pg-state.js';
import { KEEP_RUNS } from '../../src/upload/state/runs.js';
import { SqliteState } from '../../src/upload/state/sqlite-state.js';
import type { UploadState } from '../../src/upload/state/store.js';
import type { StateTarget } from '../../src/upload/state/target.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * The upload state's contract, run on both backends (docs/nightly.md): SQLite files in a
 * directory, and a PostgreSQL database (a throwaway server: test/helpers/postgres.ts; skipped,
 * saying so, where PostgreSQL cannot start).
 */
const server = await startPostgres();
afterAll(() => server?.stop());

const dir = mkdtempSync(join(tmpdir(), 'genser-state-backends-'));
let n = 0;

const target = (over: Partial<StateTarget> = {}): StateTarget => ({
  apiUrl: 'https://api.example.com',
  format: 'standard',
  keyFingerprint: 'f'.repeat(64),
  ...over,
});

interface Backend {
  /** A new, empty place for states. */
  place(): Promise<string>;
  open(place: string, t?: StateTarget): Promise<UploadState>;
}

const sqlite: Backend = {
  async place() {
    return mkdtempSync(join(dir, `sqlite-${++n}-`));
  },
  async open(place, t = target()) {
    return SqliteState.open(place, t);
  },
};

const postgres: Backend = {
  place: () => server!.database(),
  async open(url, t = target()) {
    const client = await connectState(url, url, process.env);
    return PgState.open(client, url, t);
  },
};

const backends: [string, Backend, boolean][] = [
  ['sqlite', sqlite, false],
  ['postgres', postgres, !server],
];

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

const text = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString() : undefined);

describe.each(backends)('upload state on %s', (_name, backend, skip) => {
  it.skipIf(skip)(
    'keeps accepted payloads, owed rows and absent SKUs; an accept pays what is owed',
    async () => {
      const state = await backend.open(await backend.place());
      try {
        const p = (sku: string, v = 1) => Buffer.from(JSON.stringify({ sku, v }));
        await state.owe(
          'run00001',
          [
            { file: 'a.csv', row: 2, line: 3, sku: 'B' },
            { file: 'a.csv', row: 5, line: 6 },
            { file: 'a.csv', row: 1, line: 2, sku: 'A' },
          ],
          [p('B'), p('?'), p('A')],
        );
        expect((await state.owedRows()).map((r) => [r.file, r.row, r.sku, r.runId])).toEqual([
          ['a.csv', 1, 'A', 'run00001'],
          ['a.csv', 2, 'B', 'run00001'],
          ['a.csv', 5, null, 'run00001'],
        ]);
        expect(text((await state.owedRows())[0].payload)).toBe('{"sku":"A","v":1}');
        // Owed again by a later run: one row per SKU, the later run's.
        await state.owe('run00002', [{ file: 'a.csv', row: 2, line: 3, sku: 'B' }], [p('B', 2)]);
        expect(await state.owedSkus()).toEqual(new Set(['A', 'B']));
        await state.accepted(
          [
            { file: 'a.csv', row: 1, sku: 'A', hash: 'hA' },
            { file: 'a.csv', row: 5 },
            { file: 'a.csv', row: 7, sku: 'C', hash: 'hC', source: 'k'.repeat(22) },
          ],
          [p('A'), p('?'), p('C')],
        );
        expect((await state.owedRows()).map((r) => [r.sku, r.runId])).toEqual([['B', 'run00002']]);
        expect(await state.knownCount()).toBe(2);
        expect(await state.acceptedHash('A')).toBe('hA');
        expect(await state.acceptedHash('B')).toBeUndefined();
        expect(Object.fromEntries(await state.acceptedHashes())).toEqual({ A: 'hA', C: 'hC' });
        expect(Object.fromEntries(await state.acceptedHashesOf(['Z', 'C', 'A']))).toEqual({
          A: 'hA',
          C: 'hC',
        });
        expect(await state.acceptedHashesOf([])).toEqual(new Map());
        const payloads = await state.acceptedPayloads(['A', 'C', 'Z']);
        expect([...payloads.keys()].sort()).toEqual(['A', 'C']);
        expect(text(payloads.get('C'))).toBe('{"sku":"C","v":1}');
        // A known SKU's payload is replaced.
        await state.accepted([{ sku: 'A', hash: 'hA2' }], [p('A', 2)]);
        expect(text((await state.acceptedPayloads(['A'])).get('A'))).toBe('{"sku":"A","v":2}');
        expect(await collect(state.acceptedSkus())).toEqual(['A', 'C']);
        expect(
          (await collect(state.absent((sku) => sku === 'A'))).map((g) => [g.sku, text(g.payload)]),
        ).toEqual([['C', '{"sku":"C","v":1}']]);
        await state.dropOwed('B');
        expect(await state.owedRows()).toEqual([]);
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    "keeps each accepted payload's price with its SKU; one it was not told is read from the payload",
    async () => {
      const state = await backend.open(await backend.place());
      try {
        const p = (sku: string, price: unknown) =>
          Buffer.from(JSON.stringify({ sku, offers: { price: price ?? 'n/a' } }));
        await state.accepted(
          [
            // Told: the payload's own (priced from the object where it was made).
            { sku: 'A', hash: 'hA', price: 12.5 },
            // Told it has none: the payload is not read (its bytes say otherwise here, to see).
            { sku: 'B', hash: 'hB', price: null },
            // Not told (a stock change, a product gone): read from the payload.
            { sku: 'C', hash: 'hC' },
            { sku: 'D', hash: 'hD' },
          ],
          [p('A', 1), p('B', 30), p('C', '7.25'), p('D', null)],
        );
        // Asked at once, in any order; a SKU never accepted, or without a price, has none.
        expect(Object.fromEntries(await state.acceptedPrices(['Z', 'D', 'C', 'B', 'A']))).toEqual({
          A: 12.5,
          C: 7.25,
        });
        // A new payload's price replaces the last one, told or not.
        await state.accepted(
          [
            { sku: 'A', hash: 'hA2' },
            { sku: 'C', hash: 'hC2', price: 0 },
          ],
          [p('A', 99), p('C', 1)],
        );
        expect(Object.fromEntries(await state.acceptedPrices(['A', 'C']))).toEqual({ A: 99, C: 0 });
        expect(await state.acceptedPrices([])).toEqual(new Map());
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    'the guards keep the last complete run and the runs each SKU has been missing',
    async () => {
      const state = await backend.open(await backend.place());
      try {
        expect(await state.lastComplete()).toBeUndefined();
        await state.recordComplete({ rows: 120, columns: ['sku', 'brand'] });
        expect(await state.lastComplete()).toEqual({ rows: 120, columns: ['sku', 'brand'] });
        await state.recordComplete({ rows: 125 });
        expect(await state.lastComplete()).toEqual({ rows: 125 });
        await state.recordComplete({ rows: 126, columns: ['sku', 'name@en', 'price'] });
        expect(await state.lastComplete()).toEqual({ rows: 126, columns: ['sku', 'name@en', 'price'] });
        await state.recordMissing(['A', 'B'], new Map());
        await state.recordMissing(['B', 'C'], await state.missingRuns());
        expect(await state.missingRuns()).toEqual(
          new Map([
            ['B', 2],
            ['C', 1],
          ]),
        );
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    'delta: new as create, same bytes unchanged, other bytes update; --full sends the unchanged',
    async () => {
      const state = await backend.open(await backend.place());
      const a = Buffer.from('{"sku":"A"}');
      const delta = await Delta.load(state, false);
      const plan = await delta.plan('A', a);
      expect(plan).toEqual({ type: 'create_product', hash: payloadHash(a) });
      // Not accepted yet: still new next time.
      expect((await delta.plan('A', a))?.type).toBe('create_product');
      await delta.accepted([{ file: 'f', row: 1, line: 2, sku: 'A', hash: plan!.hash }], [a]);
      expect(await delta.plan('A', a)).toBeUndefined();
      expect((await delta.plan('A', Buffer.from('{"sku":"A","x":1}')))?.type).toBe('update_product');
      expect((await (await Delta.load(state, true)).plan('A', a))?.type).toBe('update_product');
      expect(delta.counts).toEqual({ new: 2, changed: 1, unchanged: 1 });
      expect(deltaLine({ new: 12, changed: 340, unchanged: 49_648 }, false)).toBe(
        '12 new, 340 changed, 49,648 unchanged (not sent)',
      );
      await state.close();
    },
  );

  it.skipIf(skip)(
    'delta: hashes asked ahead answer the plans without a query each, once, kept up to date',
    async () => {
      const state = await backend.open(await backend.place());
      try {
        const a = Buffer.from('{"sku":"A"}');
        const b = Buffer.from('{"sku":"B"}');
        await (await Delta.load(state, false)).accepted(
          [
            { file: 'f', row: 1, line: 2, sku: 'A', hash: payloadHash(a) },
            { file: 'f', row: 2, line: 3, sku: 'B', hash: payloadHash(b) },
          ],
          [a, b],
        );
        const asked: string[] = [];
        const ask = state.acceptedHash.bind(state);
        const askPage = state.acceptedHashesOf.bind(state);
        state.acceptedHash = (sku) => {
          asked.push(sku);
          return ask(sku);
        };
        state.acceptedHashesOf = (skus) => {
          asked.push(`page ${skus.join(',')}`);
          return askPage(skus);
        };
        const delta = await Delta.load(state, false);
        await delta.askAhead(['A', 'B', 'Z']);
        expect(await delta.plan('A', a)).toBeUndefined();
        expect((await delta.plan('B', Buffer.from('{"sku":"B","x":1}')))?.type).toBe('update_product');
        expect((await delta.plan('Z', Buffer.from('{"sku":"Z"}')))?.type).toBe('create_product');
        expect(asked).toEqual(['page A,B,Z']);
        // Each answer is taken once: the same SKU later in the feed is asked again.
        expect(await delta.plan('A', a)).toBeUndefined();
        expect(asked).toEqual(['page A,B,Z', 'A']);
        // An answer this run replaced before its row came (the same SKU twice) is the new hash.
        const b2 = Buffer.from('{"sku":"B","x":2}');
        await delta.askAhead(['B']);
        await delta.accepted([{ file: 'f', row: 3, line: 4, sku: 'B', hash: payloadHash(b2) }], [b2]);
        expect(await delta.plan('B', b2)).toBeUndefined();
        expect(asked).toEqual(['page A,B,Z', 'A', 'page B']);
        // A page's answers not taken (a row of another shard) go with the next page.
        await delta.askAhead(['A']);
        await delta.askAhead(['Z']);
        expect(await delta.plan('A', a)).toBeUndefined();
        expect(asked).toEqual(['page A,B,Z', 'A', 'page B', 'page A', 'page Z', 'A']);
        expect(delta.counts).toEqual({ new: 1, changed: 1, unchanged: 4 });
        // A new state answers from memory: nothing is asked.
        const fresh = await backend.open(await backend.place());
        try {
          fresh.acceptedHashesOf = () => Promise.reject(new Error('asked'));
          await (await Delta.load(fresh, false)).askAhead(['A']);
        } finally {
          await fresh.close();
        }
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    'a SKU of an unanswered batch with other bytes is sent again, and not skipped by its key',
    async () => {
      const state = await backend.open(await backend.place());
      const a = Buffer.from('{"sku":"A","price":1}');
      const b = Buffer.from('{"sku":"A","price":2}');
      const key = Buffer.alloc(16, 7);
      const source = key.toString('base64url');
      await (await Delta.load(state, false)).accepted(
        [{ file: 'f', row: 1, line: 2, sku: 'A', hash: payloadHash(a), source }],
        [a],
      );
      expect(await (await Delta.load(state, false)).plan('A', a)).toBeUndefined();
      expect((await state.knownSources()).lookup(key)?.sku).toBe('A');
      // A run sent B and died before the answer: B may be on the service. The feed is A again.
      await state.recordInflight('env-b', 'update_product', [{ sku: 'A', hash: payloadHash(b) }]);
      const night = await Delta.load(state, false);
      expect(night.inDoubt('A', payloadHash(a))).toBe(true);
      expect(await night.plan('A', a)).toEqual({ type: 'update_product', hash: payloadHash(a) });
      expect((await state.knownSources()).lookup(key)).toBeUndefined();
      // The same bytes as the unanswered batch: resumed under its id, at its place.
      expect((await (await Delta.load(state, false)).plan('A', b))?.resume).toEqual({
        envelopeId: 'env-b',
        position: 0,
        size: 1,
      });
      await state.forgetInflight(['env-b']);
      expect(await (await Delta.load(state, false)).plan('A', a)).toBeUndefined();
      expect((await state.knownSources()).lookup(key)?.sku).toBe('A');
      await state.close();
    },
  );

  it.skipIf(skip)(
    'source keys: noted where the hash stands; other shards’ keys replace the last run’s',
    async () => {
      const state = await backend.open(await backend.place());
      try {
        const k = (i: number) => Buffer.alloc(16, i);
        const s = (i: number, warn = '') => k(i).toString('base64url') + warn;
        await state.accepted(
          [
            { sku: 'A', hash: 'hA' },
            { sku: 'B', hash: 'hB' },
          ],
          [Buffer.from('a'), Buffer.from('b')],
        );
        await state.noteSources([
          { sku: 'A', hash: 'hA', source: s(1, '[{"w":"ü"}]') },
          { sku: 'B', hash: 'stale', source: s(2) },
        ]);
        await state.replaceOtherShards([{ source: s(3), sku: 'X' }]);
        let table = await state.knownSources();
        expect(table.lookup(k(1))?.sku).toBe('A');
        expect(table.lookup(k(2))).toBeUndefined();
        expect(table.lookup(k(3))?.sku).toBe('X');
        await state.replaceOtherShards([{ source: s(4), sku: 'Y' }]);
        table = await state.knownSources();
        expect(table.lookup(k(3))).toBeUndefined();
        expect(table.lookup(k(4))?.sku).toBe('Y');
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    'source keys: a table of several pages is read whole, accepted keys and other shards alike',
    async () => {
      const state = await backend.open(await backend.place());
      try {
        const page = 7;
        const key = (i: number, tag: number) => {
          const b = Buffer.alloc(16, tag);
          b.writeUInt32LE(i, 0);
          return b;
        };
        // Three full pages (the fourth read finds none), SKUs whose text order is not their
        // number's, one in an unanswered batch (left out, in the middle of a page), warnings kept.
        const sku = (i: number) => `상품-${i}`;
        const rows = Array.from({ length: 3 * page + 1 }, (_, i) => ({ sku: sku(i), hash: `h${i}` }));
        await state.accepted(
          rows,
          rows.map(() => Buffer.from('{}')),
        );
        await state.noteSources(
          rows.map((r, i) => ({ ...r, source: key(i, 1).toString('base64url') + (i === 9 ? '["w"]' : '') })),
        );
        await state.recordInflight('env-1', 'update_product', [{ sku: sku(4), hash: 'h4' }]);
        const others = Array.from({ length: page + 1 }, (_, i) => ({
          source: key(i, 2).toString('base64url'),
          sku: `X${i}`,
        }));
        await state.replaceOtherShards(others);
        const table = await state.knownSources(page);
        expect(table.size).toBe(rows.length - 1 + others.length);
        for (let i = 0; i < rows.length; i++)
          expect(table.lookup(key(i, 1))?.sku, `accepted ${i}`).toBe(i === 4 ? undefined : sku(i));
        expect(table.lookup(key(9, 1))?.warnings).toBe('["w"]');
        for (let i = 0; i < others.length; i++) expect(table.lookup(key(i, 2))?.sku).toBe(`X${i}`);
        // The default page holds them all: the same table.
        expect((await state.knownSources()).size).toBe(table.size);
      } finally {
        await state.close();
      }
    },
  );

  it.skipIf(skip)(
    'history keeps the last 100 runs of each target; a run never finished shows no exit code',
    async () => {
      const place = await backend.place();
      const state = await backend.open(place);
      const other = await backend.open(place, target({ format: 'legacy' }));
      const ids: string[] = [];
      for (let i = 0; i < 105; i++) ids.push(await state.startRun(`feed-${i}.csv`));
      await other.startRun('other.csv');
      await state.finishRun(ids[104], {
        exitCode: 0,
        durationMs: 1500,
        counts: { rows: 3, sent: 3, accepted: 3, rejected: 0, failed: 0, unchanged: 0 },
        report: '{"ok":true}',
      });
      const runs = await state.listRuns();
      expect(runs).toHaveLength(KEEP_RUNS);
      expect(runs[0]).toMatchObject({ id: ids[104], exitCode: 0, rows: 3, durationMs: 1500 });
      expect(runs[1].exitCode).toBeUndefined();
      expect(runs.at(-1)?.feed).toBe('feed-5.csv');
      expect((await state.runReport(ids[104]))?.report).toBe('{"ok":true}');
      expect(await state.runReport(ids[0])).toBeUndefined();
      expect((await other.listRuns()).map((r) => r.feed)).toEqual(['other.csv']);
      expect(await other.target()).toEqual({ apiUrl: 'https://api.example.com', format: 'legacy' });
      await state.close();
      await other.close();
    },
  );

  it.skipIf(skip)(
    'a run counts its unconfirmed and not-sent rows apart; feed validators are kept per target, by URL hash',
    async () => {
      const place = await backend.place();
      const state = await backend.open(place);
      const other = await backend.open(place, target({ format: 'legacy' }));
      try {
        const id = await state.startRun('https://shop.example/feed.csv');
        await state.finishRun(id, {
          exitCode: 4,
          durationMs: 10,
          counts: {
            rows: 9,
            sent: 6,
            accepted: 3,
            rejected: 0,
            failed: 1,
            unchanged: 0,
            unconfirmed: 2,
            notSent: 3,
          },
        });
        expect((await state.listRuns())[0]).toMatchObject({ failed: 1, unconfirmed: 2, notSent: 3 });

        const url = 'https://shop.example/feed.csv?token=s3cret';
        await state.keepFeedValidators(id, [
          { url, etag: '"v1"' },
          { url: 'https://b.example/x.csv', lastModified: 'Tue, 24 Nov 2026 03:00:00 GMT' },
        ]);
        expect(await state.feedValidators(url)).toEqual({ runId: id, etag: '"v1"' });
        expect(await state.feedValidators('https://b.example/x.csv')).toEqual({
          runId: id,
          lastModified: 'Tue, 24 Nov 2026 03:00:00 GMT',
        });
        expect(await other.feedValidators(url)).toBeUndefined();
        // The next run's validators replace the kept ones; none kept: nothing is.
        await state.keepFeedValidators('r2', []);
        expect(await state.feedValidators(url)).toBeUndefined();
      } finally {
        await state.close();
        await other.close();
      }
    },
  );
});

describe.skipIf(!server)('upload state on postgres only', () => {
  it('ten runs opening a new database at once: the schema is made once, one holds the lock, the others exit 5', async () => {
    const url = await server!.database();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, async () => {
        try {
          const state = await postgres.open(url);
          try {
            await state.lock();
            await new Promise((r) => setTimeout(r, 300));
            return '0';
          } finally {
            await state.close();
          }
        } catch (e) {
          return `${(e as ExitError).exitCode ?? 70} ${(e as Error).message}`;
        }
      }),
    );
    expect(outcomes.filter((o) => !/^(0|5 another genser upload)/.test(o))).toEqual([]);
    expect(outcomes.filter((o) => o === '0').length).toBeGreaterThanOrEqual(1);
  });

  // SQLite's lock has its own tests, its holder another process: state.test.ts, state-lock.test.ts.
  it('lock: a second run of the target and shard exits 5 naming the holder; another shard runs; released at close', async () => {
    const place = await postgres.place();
    const shard = { index: 1, count: 2 };
    const first = await postgres.open(place, target({ shard }));
    await first.lock();
    const second = await postgres.open(place, target({ shard }));
    const err = await second.lock().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(5);
    expect((err as ExitError).message).toContain(`pid ${process.pid} on ${hostname()}`);
    const otherShard = await postgres.open(place, target({ shard: { index: 2, count: 2 } }));
    await otherShard.lock();
    await otherShard.close();
    await first.close();
    await second.lock();
    await second.close();
  });

  it('its sessions ask the server to probe them (a vanished machine frees its lock in about a minute), keeping the options of the URL', async () => {
    const url = `${await server!.database()}?options=${encodeURIComponent('-c statement_timeout=5000')}`;
    const client = await connectPostgres(url, 'the test database', {});
    try {
      const show = async (name: string) => (await client.query(`SHOW ${name}`)).rows[0][name];
      expect(await show('tcp_keepalives_idle')).toBe('30');
      expect(await show('tcp_keepalives_interval')).toBe('10');
      expect(await show('tcp_keepalives_count')).toBe('3');
      expect(await show('statement_timeout')).toBe('5s');
    } finally {
      await client.end();
    }
  });

  it('a lock goes with its connection: a run whose connection dropped (killed) leaves it free', async () => {
    const url = await server!.database();
    const held = await postgres.open(url);
    await held.lock();
    // The holder's session ends as a killed process's would: the server drops it.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const { rows } = await admin.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'genser' AND pid <> pg_backend_pid()",
    );
    expect(rows.length).toBeGreaterThan(0);
    const pids = rows.map((r) => r.pid);
    await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    // pg_terminate_backend only signals: the session (and its lock) ends when its process exits,
    // which takes a moment on a busy machine.
    for (;;) {
      const left = await admin.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [pids]);
      if (left.rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const next = await postgres.open(url);
    await next.lock();
    await next.close();
    await held.close();
    await admin.end();
  });

  it("refreshes the accepted rows' statistics when a state wrote more than autovacuum waits for", async () => {
    const url = await server!.database();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const counted = async () =>
      Number(
        (await admin.query("SELECT reltuples FROM pg_class WHERE oid = 'genser_accepted'::regclass")).rows[0]
          .reltuples,
      );
    let next = 0;
    /** A state that accepts `count` new SKUs and notes a key for one, then closes. */
    const run = async (count: number) => {
      const state = await postgres.open(url);
      const rows = Array.from({ length: count }, () => ({ sku: `S${++next}`, hash: 'h' }));
      await state.accepted(
        rows,
        rows.map(() => Buffer.from('{}')),
      );
      await state.noteSources([{ sku: rows[0].sku, hash: 'h', source: 'k'.repeat(22) }]);
      await state.close();
    };
    try {
      // Never counted: 50 rows and one note are enough.
      await run(50);
      expect(await counted()).toBe(50);
      // 50 + 10% of 50 = 55: 30 more (31 writes) wait for autovacuum, 60 (61) do not.
      await run(30);
      expect(await counted()).toBe(50);
      await run(60);
      expect(await counted()).toBe(140);
    } finally {
      await admin.end();
    }
  });

  it('refuses a database written by a newer genser (exit 2) and changes nothing', async () => {
    const url = await server!.database();
    await (await postgres.open(url)).close();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query("UPDATE genser_meta SET value = $1 WHERE key = 'schema_version'", [
      String(PG_SCHEMA_VERSION + 1),
    ]);
    const err = await postgres.open(url).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toContain('written by a newer genser');
    const { rows } = await admin.query("SELECT value FROM genser_meta WHERE key = 'schema_version'");
    expect(rows[0].value).toBe(String(PG_SCHEMA_VERSION + 1));
    await admin.end();
  });
});
