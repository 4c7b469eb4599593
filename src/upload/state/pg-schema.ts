import { UsageError } from '../../shared/errors.js';
import type { PgClient } from '../../storage/postgres.js';

/**
 * The upload state's schema in PostgreSQL (docs/nightly.md, "State in PostgreSQL"): one set of
 * `genser_` tables in the database for every target and shard, each row keyed by its state's
 * `target` (the name its SQLite file would have, without `.sqlite`). Versioned in `genser_meta`
 * as the SQLite state is: each migration takes the schema from its index to the next; a database
 * whose version is above the last one was written by a newer genser and is refused, never
 * rewritten.
 */
export const PG_MIGRATIONS: readonly string[] = [
  // 0 -> 1
  `CREATE TABLE genser_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE genser_targets (
     target TEXT PRIMARY KEY, api_url TEXT NOT NULL, format TEXT NOT NULL,
     key_fingerprint TEXT NOT NULL, shard TEXT
   );
   CREATE TABLE genser_lock (
     target TEXT PRIMARY KEY, pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL
   );
   CREATE TABLE genser_accepted (
     target TEXT NOT NULL, sku TEXT NOT NULL, hash TEXT NOT NULL, accepted_at TEXT NOT NULL, source TEXT,
     PRIMARY KEY (target, sku)
   );
   CREATE TABLE genser_payloads (
     target TEXT NOT NULL, sku TEXT NOT NULL, payload BYTEA NOT NULL, PRIMARY KEY (target, sku)
   );
   CREATE TABLE genser_other_shards (
     target TEXT NOT NULL, source TEXT NOT NULL, sku TEXT NOT NULL, PRIMARY KEY (target, source)
   );
   CREATE TABLE genser_inflight (
     target TEXT NOT NULL, envelope_id TEXT NOT NULL, type TEXT NOT NULL, position INTEGER NOT NULL,
     size INTEGER NOT NULL, sku TEXT NOT NULL, hash TEXT NOT NULL,
     PRIMARY KEY (target, envelope_id, position)
   );
   CREATE TABLE genser_owed (
     id BIGSERIAL PRIMARY KEY, target TEXT NOT NULL, sku TEXT, file TEXT NOT NULL, row INTEGER NOT NULL,
     line INTEGER NOT NULL, run_id TEXT NOT NULL, payload BYTEA NOT NULL
   );
   CREATE UNIQUE INDEX genser_owed_sku ON genser_owed (target, sku) WHERE sku IS NOT NULL;
   CREATE TABLE genser_runs (
     seq BIGSERIAL PRIMARY KEY, target TEXT NOT NULL, id TEXT NOT NULL UNIQUE, started TEXT NOT NULL,
     pid INTEGER NOT NULL, feed TEXT NOT NULL, duration_ms INTEGER, rows INTEGER, sent INTEGER,
     accepted INTEGER, rejected INTEGER, failed INTEGER, unchanged INTEGER, exit_code INTEGER, report TEXT
   );
   CREATE INDEX genser_runs_target ON genser_runs (target, seq);`,
  // 1 -> 2: what the guards keep of the last complete run, and per SKU how many complete runs in
  // a row it has been missing (`--missing-after`), as the SQLite state's schema 7.
  `CREATE TABLE genser_last_complete (target TEXT PRIMARY KEY, rows INTEGER NOT NULL, finished TEXT NOT NULL);
   CREATE TABLE genser_missing_runs (target TEXT NOT NULL, sku TEXT NOT NULL, runs INTEGER NOT NULL, PRIMARY KEY (target, sku));`,
  // 2 -> 3: as the SQLite state's schemas 8 and 9: the ETag / Last-Modified of each feed URL of
  // the last run that ended well, by the URL's SHA-256; a run's rows not sent and unconfirmed,
  // apart from those the service failed.
  `CREATE TABLE genser_feed_validators (
     target TEXT NOT NULL, url_hash TEXT NOT NULL, etag TEXT, last_modified TEXT, run_id TEXT NOT NULL,
     PRIMARY KEY (target, url_hash)
   );
   ALTER TABLE genser_runs ADD COLUMN unconfirmed INTEGER;
   ALTER TABLE genser_runs ADD COLUMN not_sent INTEGER;`,
  // 3 -> 4: as the SQLite state's schema 10: the source columns the last complete run mapped.
  `ALTER TABLE genser_last_complete ADD COLUMN columns TEXT;`,
  // 4 -> 5: as the SQLite state's schema 12: each payload's price with its SKU (./prices.ts).
  `ALTER TABLE genser_accepted ADD COLUMN price DOUBLE PRECISION;`,
];

export const PG_SCHEMA_VERSION = PG_MIGRATIONS.length;

/** Serializes schema changes across machines (a transaction-scoped advisory lock). */
const MIGRATION_LOCK = 0x67656e73; // 'gens'

/** The schema version of the database: 0 when it holds no genser state yet. */
export async function versionOf(client: PgClient): Promise<number> {
  const table = await client.query("SELECT to_regclass('genser_meta') IS NOT NULL AS present");
  if (!table.rows[0].present) return 0;
  const row = await client.query<{ value: string }>(
    "SELECT value FROM genser_meta WHERE key = 'schema_version'",
  );
  return row.rows.length > 0 ? Number(row.rows[0].value) : 0;
}

/**
 * Brings the database's schema up to this genser's, in one transaction under an advisory lock
 * (many shards starting at once migrate it once); refuses a newer one (exit 2), changing nothing.
 */
export async function migratePg(client: PgClient, shown: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    const from = await versionOf(client);
    if (from > PG_SCHEMA_VERSION)
      throw new UsageError(
        `the upload state ${shown} was written by a newer genser (schema ${from}; this genser knows up to ${PG_SCHEMA_VERSION}): it was not changed`,
        'upgrade genser, or use another database with --state URL',
      );
    for (let v = from; v < PG_SCHEMA_VERSION; v++) await client.query(PG_MIGRATIONS[v]);
    if (from < PG_SCHEMA_VERSION)
      await client.query(
        "INSERT INTO genser_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [String(PG_SCHEMA_VERSION)],
      );
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  }
}
