import type { Database } from '../../storage/sqlite.js';
import { PACKS_TABLE, Packs } from './packs.js';

/**
 * The state database's schema, versioned in its `meta` table. Each migration takes the schema
 * from its index to the next; a file whose version is above the last one was written by a newer
 * genser and is refused, never rewritten.
 */
export const MIGRATIONS: readonly (string | ((db: Database) => void))[] = [
  // 0 -> 1
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE lock (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     pid INTEGER NOT NULL,
     host TEXT NOT NULL,
     started TEXT NOT NULL
   );
   CREATE TABLE products (
     sku TEXT PRIMARY KEY,
     hash TEXT NOT NULL,
     accepted_at TEXT NOT NULL,
     payload BLOB NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE inflight (
     envelope_id TEXT NOT NULL,
     type TEXT NOT NULL,
     position INTEGER NOT NULL,
     size INTEGER NOT NULL,
     sku TEXT NOT NULL,
     hash TEXT NOT NULL,
     PRIMARY KEY (envelope_id, position)
   ) WITHOUT ROWID;
   CREATE TABLE retry (
     run_id TEXT NOT NULL,
     seq INTEGER NOT NULL,
     file TEXT NOT NULL,
     row INTEGER NOT NULL,
     line INTEGER NOT NULL,
     sku TEXT,
     payload BLOB NOT NULL,
     PRIMARY KEY (run_id, seq)
   ) WITHOUT ROWID;
   CREATE TABLE runs (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     id TEXT NOT NULL UNIQUE,
     started TEXT NOT NULL,
     pid INTEGER NOT NULL,
     feed TEXT NOT NULL,
     duration_ms INTEGER,
     rows INTEGER,
     sent INTEGER,
     accepted INTEGER,
     rejected INTEGER,
     failed INTEGER,
     unchanged INTEGER,
     exit_code INTEGER,
     report TEXT
   );`,
  // 1 -> 2: the payloads apart from the per-SKU rows. In a WITHOUT ROWID table a 2.8 KB row keeps
  // about 1 KB in its leaf and spills the rest to an overflow page of its own: the file was 2.3x
  // the payload bytes, and each hash read touched the payload's page. Payloads in a rowid table
  // fit their leaves (1.4x), and the SKU rows scan fast (BENCHMARKS.md, "The nightly case").
  `CREATE TABLE payloads (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
   CREATE TABLE accepted (
     sku TEXT PRIMARY KEY,
     hash TEXT NOT NULL,
     accepted_at TEXT NOT NULL,
     payload_id INTEGER NOT NULL
   ) WITHOUT ROWID;
   INSERT INTO payloads (id, payload) SELECT row_number() OVER (ORDER BY sku), payload FROM products;
   INSERT INTO accepted (sku, hash, accepted_at, payload_id)
     SELECT sku, hash, accepted_at, row_number() OVER (ORDER BY sku) FROM products;
   DROP TABLE products;`,
  // 2 -> 3: each accepted payload's source key (docs/nightly.md, "Unchanged rows"): a row with the
  // same key is not mapped again. NULL where unknown (accepted before, or not from a feed row).
  `ALTER TABLE accepted ADD COLUMN source TEXT;`,
  // 3 -> 4: a sharded target's state also keeps the keys of the other shards' rows, with their
  // SKUs: those rows are not mapped again either, only to be left to their shard.
  `CREATE TABLE IF NOT EXISTS other_shards (source TEXT PRIMARY KEY, sku TEXT NOT NULL) WITHOUT ROWID;`,
  // 4 -> 5: the lock's heartbeat, renewed by its holder while it runs: a lock of another host
  // (which cannot be checked from here) expires when it stops (docs/nightly.md, "The run lock").
  `ALTER TABLE lock ADD COLUMN heartbeat TEXT;`,
  // 5 -> 6: rows owed to --retry-failed, one per SKU (a row without a SKU by its file and row),
  // kept whatever runs in between until accepted or superseded (docs/nightly.md, "Retrying failed
  // rows"); they were kept per run, and only the last run's were sent. What the last run owed
  // carries over.
  `CREATE TABLE owed (
     id INTEGER PRIMARY KEY,
     sku TEXT UNIQUE,
     file TEXT NOT NULL,
     row INTEGER NOT NULL,
     line INTEGER NOT NULL,
     run_id TEXT NOT NULL,
     payload BLOB NOT NULL
   );
   INSERT OR REPLACE INTO owed (sku, file, row, line, run_id, payload)
     SELECT sku, file, row, line, run_id, payload FROM retry
     WHERE run_id = (SELECT id FROM runs ORDER BY seq DESC LIMIT 1) ORDER BY seq;
   DROP TABLE retry;`,
  // 6 -> 7: what the guards compare a run with (docs/nightly.md, "Before and after the run"): the
  // feed rows of the last complete run (one read to its end, not refused, not stopped), and per
  // SKU absent from the feed how many complete runs in a row it has been (`--missing-after`).
  `CREATE TABLE IF NOT EXISTS last_complete (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     rows INTEGER NOT NULL,
     finished TEXT NOT NULL
   );
   CREATE TABLE IF NOT EXISTS missing_runs (sku TEXT PRIMARY KEY, runs INTEGER NOT NULL) WITHOUT ROWID;`,
  // 7 -> 8: the ETag / Last-Modified of each feed URL of the last run that ended well, by the
  // URL's SHA-256 (a token in its query is not stored), so an unchanged feed is not downloaded
  // (docs/reading.md, "Feeds from a URL").
  `CREATE TABLE feed_validators (
     url_hash TEXT PRIMARY KEY,
     etag TEXT,
     last_modified TEXT,
     run_id TEXT NOT NULL
   ) WITHOUT ROWID;`,
  // 8 -> 9: a run's rows that were never sent, or sent without a clear answer, counted apart
  // from those the service failed (`genser runs` labelled all three "failed"). Older runs keep
  // their sum in `failed`.
  `ALTER TABLE runs ADD COLUMN unconfirmed INTEGER;
   ALTER TABLE runs ADD COLUMN not_sent INTEGER;`,
  // 9 -> 10: the source columns the last complete run mapped, a JSON list (NULL: not known), so
  // a column mapped then and absent tonight is named, and refused with --strict (docs/nightly.md,
  // "Before and after the run").
  `ALTER TABLE last_complete ADD COLUMN columns TEXT;`,
  // 10 -> 11: the payloads compressed in packs (./packs.ts): the file was 1.15x the bytes sent.
  toPacks,
  // 11 -> 12: each payload's price with its SKU (./prices.ts), so the price-shock guard does not
  // decompress a pack per changed product. NULL (read from the payload) for the rows there are.
  `ALTER TABLE accepted ADD COLUMN price REAL;`,
];

/** Every accepted payload moved into packs, in SKU order; the SKU rows say where. */
function toPacks(db: Database): void {
  db.exec(`${PACKS_TABLE};
    CREATE TABLE accepted_packed (
      sku TEXT PRIMARY KEY,
      hash TEXT NOT NULL,
      accepted_at TEXT NOT NULL,
      source TEXT,
      pack INTEGER NOT NULL,
      at INTEGER NOT NULL,
      length INTEGER NOT NULL
    ) WITHOUT ROWID;`);
  const packs = new Packs(db);
  // By the SKU rows' key, each payload by its id: no scan per page.
  const page = (op: string) =>
    db.prepare<{ sku: string; hash: string; accepted_at: string; source: string | null; bytes: Uint8Array }>(
      `SELECT a.sku, a.hash, a.accepted_at, a.source, p.payload AS bytes
       FROM accepted a JOIN payloads p ON p.id = a.payload_id WHERE a.sku ${op} ? ORDER BY a.sku LIMIT 2000`,
    );
  // The first page from the least key (an empty SKU included), each next one after the last.
  const [first, next] = [page('>='), page('>')];
  const insert = db.prepare('INSERT INTO accepted_packed VALUES (?, ?, ?, ?, ?, ?, ?)');
  for (let after: string | undefined; ; ) {
    const rows = after === undefined ? first.all('') : next.all(after);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].sku;
    packs.write(rows, (r, p) => insert.run(r.sku, r.hash, r.accepted_at, r.source, p.pack, p.at, p.length));
  }
  db.exec('DROP TABLE accepted; DROP TABLE payloads; ALTER TABLE accepted_packed RENAME TO accepted;');
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/** The file's schema version: 0 for a new (empty) database. */
export function schemaVersion(db: Database): number {
  const table = db.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (!table) return 0;
  const row = db.prepare<{ value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get();
  return row ? Number(row.value) : 0;
}

/** The first version with the payloads in packs: a file migrated to it is vacuumed once. */
const PACKED = 11;

/**
 * Runs the migrations from the file's version up, in one write transaction: the version is read
 * again inside it, so two runs opening an old file at once migrate it once. A file whose payloads
 * were just packed is then rewritten without the pages they left (VACUUM, which cannot run in a
 * transaction; the file keeps its page size).
 */
export function migrate(db: Database): void {
  const from = migrateSchema(db);
  if (from !== undefined && from > 0 && from < PACKED) db.exec('VACUUM');
}

/** The version migrated from, undefined when there was nothing to do. */
function migrateSchema(db: Database): number | undefined {
  return db.transaction(() => {
    const from = schemaVersion(db);
    if (from >= SCHEMA_VERSION) return undefined;
    for (let v = from; v < SCHEMA_VERSION; v++) {
      const step = MIGRATIONS[v];
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.prepare(
      "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(String(SCHEMA_VERSION));
    return from;
  });
}
