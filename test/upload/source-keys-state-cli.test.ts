import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { shardOf } from '../../src/upload/shard.js';
import { SCHEMA_VERSION } from '../../src/upload/state/schema.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { genser } from '../helpers/run-cli.js';
import { unpackPayloads } from '../helpers/state-v10.js';
import {
  Catalog,
  closeServices,
  converted,
  fresh,
  KEY,
  type Service,
  startService,
} from './source-keys-catalog.js';

/**
 * Source keys and the upload state through the real CLI (src/feed/source-keys.ts, kept in
 * `accepted.source` by src/upload/state/store.ts): a night without change, rows with issues, a
 * state from before the keys, a stock change, a product gone and back, and --full. Each run is
 * checked against `genser convert` of its feed and against what the server on 127.0.0.1 got.
 */
afterEach(async () => {
  await closeServices();
  clearSecrets();
});

const SET = ['--set', 'currency=KRW'];

/** One nightly upload of `file` to the service with the state in `state`; its report too. */
async function upload(svc: Service, state: string, file: string, flags: string[] = []) {
  svc.night.length = 0;
  const run = await genser(['upload', file, '--state', state, '--json', ...SET, ...flags], {
    GENSER_API_URL: svc.server.url,
    GENSER_API_KEY: KEY,
  });
  expect(run.stderr).not.toContain(KEY);
  const report = JSON.parse(run.stdout) as {
    summary: { rows: number; invalid: number; accepted: number; unchanged?: number };
    issues: { severity: string; code: string; row?: number; sku?: string; field?: string }[];
  };
  return { ...run, report, sent: svc.night.map((p) => p.sku).sort() };
}

/** The rows the guard's pass did not map again, from its --debug line (undefined: no such line). */
function notMapped(stderr: string): number | undefined {
  const m = /; (\d+) rows not mapped again \(source key accepted before\)/.exec(stderr);
  return m ? Number(m[1]) : undefined;
}

/** The server holds, for every SKU of the feed, exactly the payload `genser convert` makes. */
async function holdsConverted(svc: Service, file: string, code = 0) {
  const want = await converted(file, SET, code);
  expect(want.size).toBeGreaterThan(0);
  for (const [sku, payload] of want) expect(svc.held.get(sku), sku).toBe(payload);
}

/** The state file's accepted rows: SKU, whether it has a source key, and the schema version. */
function stateOf(dir: string) {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sqlite'));
  expect(files).toHaveLength(1);
  const db = openDatabase(join(dir, files[0]));
  try {
    const version = db
      .prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'")
      .get()?.value;
    const columns = db
      .prepare<{ name: string }>('PRAGMA table_info(accepted)')
      .all()
      .map((c) => c.name);
    const keyed = columns.includes('source')
      ? db.prepare<{ sku: string }>('SELECT sku FROM accepted WHERE source IS NOT NULL ORDER BY sku').all()
      : [];
    return { version, keyed: keyed.map((r) => r.sku), file: join(dir, files[0]) };
  } finally {
    db.close();
  }
}

describe('a night without change', () => {
  it('maps no valid row again and sends nothing; a row with a warning is skipped and its warning reported every night', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(21, 30);
    const warned = c.rows[4];
    warned.url = ''; // a recommended field missing: a warning
    const invalid = c.rows[9];
    invalid.price = '12,000원'; // not a number: an error, never sent
    const file = c.csv();
    const warnings = (r: Awaited<ReturnType<typeof upload>>) =>
      r.report.issues.filter((i) => i.severity === 'warning').map((i) => [i.row, i.sku, i.field]);
    const errors = (r: Awaited<ReturnType<typeof upload>>) =>
      r.report.issues.filter((i) => i.severity === 'error').map((i) => [i.row, i.sku, i.field]);

    const first = await upload(svc, state, file, ['--debug']);
    expect(first.code).toBe(1); // the invalid row
    expect(first.sent).toHaveLength(29);
    expect(first.sent).not.toContain(invalid.sku);
    await holdsConverted(svc, file, 1);
    const requests = svc.server.requests.length;

    for (const night of [2, 3]) {
      const again = await upload(svc, state, file, ['--debug']);
      const where = `night ${night}: ${again.stderr}`;
      expect(again.code, where).toBe(1);
      expect(again.sent, where).toEqual([]);
      expect(svc.server.requests.length).toBe(requests);
      // 29 valid rows, all unchanged and skipped by their key (the warned one with its warning).
      expect(again.report.summary).toMatchObject({ rows: 30, invalid: 1, accepted: 0, unchanged: 29 });
      expect(notMapped(again.stderr), where).toBe(29);
      expect(warnings(again), where).toEqual(warnings(first));
      expect(warnings(again)).toEqual([[5, warned.sku, 'url']]);
      expect(errors(again), where).toEqual(errors(first));
      expect(errors(again)).toEqual([[10, invalid.sku, 'offers.price']]);
    }
    // Kept in the state with a key: the 29 valid rows, the warned one too (with its warning).
    expect(stateOf(state).keyed).toEqual(
      c.rows
        .filter((r) => r !== invalid)
        .map((r) => r.sku)
        .sort(),
    );

    // The streamed path (--max-change 100%) too: nothing sent, the same issues.
    const streamed = await upload(svc, state, file, ['--max-change', '100%', ...GUARDS_OFF]);
    expect(streamed.sent).toEqual([]);
    expect(streamed.report.summary).toMatchObject({ rows: 30, invalid: 1, accepted: 0, unchanged: 29 });
    expect(warnings(streamed)).toEqual(warnings(first));
    expect(errors(streamed)).toEqual(errors(first));
  });
});

/** Takes a state file back to schema 2, as a genser before source keys left it. */
function toSchema2(dir: string) {
  const db = openDatabase(stateOf(dir).file);
  try {
    unpackPayloads(db);
    db.exec(`ALTER TABLE accepted DROP COLUMN source;
      ALTER TABLE lock DROP COLUMN heartbeat;
      DROP TABLE owed;
      DROP TABLE feed_validators;
      ALTER TABLE runs DROP COLUMN unconfirmed;
      ALTER TABLE runs DROP COLUMN not_sent;
      ALTER TABLE last_complete DROP COLUMN columns;
      CREATE TABLE retry (run_id TEXT NOT NULL, seq INTEGER NOT NULL, file TEXT NOT NULL, row INTEGER NOT NULL,
        line INTEGER NOT NULL, sku TEXT, payload BLOB NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      UPDATE meta SET value = '2' WHERE key = 'schema_version';`);
  } finally {
    db.close();
  }
  expect(stateOf(dir)).toMatchObject({ version: '2', keyed: [] });
}

describe('a state from before source keys (schema 2)', () => {
  it('guarded: the next run maps every row, sends none and notes their keys; the run after skips them', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(31, 30);
    const file = c.csv();
    expect((await upload(svc, state, file)).sent).toHaveLength(30);
    toSchema2(state);

    const upgraded = await upload(svc, state, file, ['--debug']);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.sent).toEqual([]);
    expect(upgraded.report.summary).toMatchObject({ rows: 30, accepted: 0, unchanged: 30 });
    expect(notMapped(upgraded.stderr)).toBe(0);
    expect(stateOf(state)).toMatchObject({
      version: String(SCHEMA_VERSION),
      keyed: c.rows.map((r) => r.sku).sort(),
    });

    const next = await upload(svc, state, file, ['--debug']);
    expect(next.sent).toEqual([]);
    expect(notMapped(next.stderr)).toBe(30);
    await holdsConverted(svc, file);
  });

  it('streamed (--max-change 100%): the next run maps every row, sends only the changed one, and notes every key', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(32, 30);
    expect((await upload(svc, state, c.csv())).sent).toHaveLength(30);
    toSchema2(state);

    const changed = new Set<string>();
    c.change('price', changed);
    const file = c.csv();
    const upgraded = await upload(svc, state, file, ['--max-change', '100%', ...GUARDS_OFF]);
    expect(upgraded.code, upgraded.stderr).toBe(0);
    expect(upgraded.sent).toEqual([...changed]);
    expect(upgraded.report.summary).toMatchObject({ rows: 30, accepted: 1, unchanged: 29 });
    // The changed row's key came with its accepted payload; the 29 others' were noted.
    expect(stateOf(state)).toMatchObject({
      version: String(SCHEMA_VERSION),
      keyed: c.rows.map((r) => r.sku).sort(),
    });
    await holdsConverted(svc, file);

    const next = await upload(svc, state, file, ['--debug']);
    expect(next.sent).toEqual([]);
    expect(notMapped(next.stderr)).toBe(30);
  });
});

describe('payloads not made from a feed row', () => {
  it('genser stock on one SKU: the next upload of the unchanged feed sends that SKU again, skips the others', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(41, 30);
    const file = c.csv();
    expect((await upload(svc, state, file)).sent).toHaveLength(30);
    const row = c.rows.find((r) => r.availability === 'InStock')!;
    const stockFile = `${fresh('stock')}.csv`;
    writeFileSync(stockFile, `sku,availability\n${row.sku},OutOfStock\n`);

    svc.night.length = 0;
    const stock = await genser(['stock', stockFile, '--api-url', svc.server.url, '--state', state], {
      GENSER_API_KEY: KEY,
    });
    expect(stock.code, stock.stderr).toBe(0);
    expect(svc.night).toEqual([{ sku: row.sku, type: 'update_product' }]);
    expect(JSON.parse(svc.held.get(row.sku)!).offers.availability).toBe('OutOfStock');
    expect(stateOf(state).keyed).not.toContain(row.sku);

    // The feed still says InStock: the feed wins, sent as a change; only that row is mapped.
    const night = await upload(svc, state, file, ['--debug']);
    expect(night.code, night.stderr).toBe(0);
    expect(night.sent).toEqual([row.sku]);
    expect(svc.night).toEqual([{ sku: row.sku, type: 'update_product' }]);
    expect(notMapped(night.stderr)).toBe(29);
    await holdsConverted(svc, file);

    const after = await upload(svc, state, file, ['--debug']);
    expect(after.sent).toEqual([]);
    expect(notMapped(after.stderr)).toBe(30);
  });

  it('--missing out-of-stock: a product gone, sent out of stock, and back unchanged is sent again', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(42, 30);
    const all = c.csv();
    const missing = ['--missing', 'out-of-stock'];
    expect((await upload(svc, state, all, missing)).sent).toHaveLength(30);
    // One in stock (sent again as out of stock) and one already out of stock (its bytes the same).
    const inStock = c.rows.find((r) => r.availability === 'InStock')!;
    const outOfStock = c.rows.find((r) => r.availability === 'OutOfStock')!;
    const rows = [...c.rows];
    c.rows.splice(0, c.rows.length, ...rows.filter((r) => r !== inStock && r !== outOfStock));
    const fewer = c.csv();

    const gone = await upload(svc, state, fewer, missing);
    expect(gone.code, gone.stderr).toBe(0);
    expect(gone.sent).toEqual([inStock.sku]);
    expect(JSON.parse(svc.held.get(inStock.sku)!).offers.availability).toBe('OutOfStock');
    expect(stateOf(state).keyed).not.toContain(inStock.sku);
    expect(stateOf(state).keyed).toContain(outOfStock.sku);

    // Back with the rows of the first night: the one the service now has out of stock goes again.
    const back = await upload(svc, state, all, [...missing, '--debug']);
    expect(back.code, back.stderr).toBe(0);
    expect(back.sent).toEqual([inStock.sku]);
    expect(notMapped(back.stderr)).toBe(29);
    await holdsConverted(svc, all);
  });
});

describe('--full', () => {
  it('sends everything (guarded or streamed); the run after still skips every row', async () => {
    const svc = await startService();
    const state = fresh('state');
    const c = new Catalog(51, 30);
    const file = c.csv();
    const skus = c.rows.map((r) => r.sku).sort();
    expect((await upload(svc, state, file)).sent).toEqual(skus);

    for (const flags of [['--full'], ['--full', '--max-change', '100%', ...GUARDS_OFF]]) {
      const full = await upload(svc, state, file, flags);
      expect(full.code, full.stderr).toBe(0);
      expect(full.sent, flags.join(' ')).toEqual(skus);
      expect(new Set(svc.night.map((p) => p.type))).toEqual(new Set(['update_product']));
      expect(stateOf(state).keyed).toEqual(skus);

      const after = await upload(svc, state, file, ['--debug']);
      expect(after.sent, flags.join(' ')).toEqual([]);
      expect(notMapped(after.stderr), flags.join(' ')).toBe(30);
    }
    await holdsConverted(svc, file);
  });
});

describe('shards', () => {
  it("keeps the other shards' keys: from the third night no row of the feed is mapped in either shard, and a changed row only where it is needed", async () => {
    const svc = await startService();
    const c = new Catalog(31, 24);
    const file = c.csv();
    const states = [fresh('shard-1'), fresh('shard-2')];
    const mine = (i: number) => c.rows.filter((r) => shardOf(r.sku, 2) === i + 1).length;
    expect(mine(0)).toBeGreaterThan(0);
    expect(mine(1)).toBeGreaterThan(0);
    const night = async () => {
      const runs = [];
      for (const [i, state] of states.entries())
        runs.push(await upload(svc, state, file, ['--shard', `${i + 1}/2`, '--debug']));
      return runs;
    };
    // Night 1: nothing known (streamed). Night 2: each shard skips its own rows, maps the others'
    // and keeps their keys. Night 3: nothing is mapped anywhere.
    await night();
    const second = await night();
    expect(second.map((r) => notMapped(r.stderr))).toEqual([mine(0), mine(1)]);
    const third = await night();
    expect(third.map((r) => notMapped(r.stderr))).toEqual([24, 24]);
    for (const r of third) expect(r.sent).toEqual([]);

    // A price changes in shard 2: shard 1 maps that one row (to learn its shard) and sends nothing;
    // shard 2 maps and sends it.
    const changed = c.rows.find((r) => shardOf(r.sku, 2) === 2)!;
    changed.price = String(Number(changed.price) + 1);
    const changedFile = c.csv();
    const fourth = [];
    for (const [i, state] of states.entries())
      fourth.push(await upload(svc, state, changedFile, ['--shard', `${i + 1}/2`, '--debug']));
    expect(fourth.map((r) => notMapped(r.stderr))).toEqual([23, 23]);
    expect(fourth.map((r) => r.sent)).toEqual([[], [changed.sku]]);
    await holdsConverted(svc, changedFile);
  });
});
