import type { Database } from '../../src/storage/sqlite.js';
import { Packs } from '../../src/upload/state/packs.js';

/** Schema 10's payload tables in place of schema 11's, empty. */
export const TO_SCHEMA_10_TABLES = `DROP TABLE accepted; DROP TABLE packs;
  CREATE TABLE payloads (id INTEGER PRIMARY KEY, payload BLOB NOT NULL);
  CREATE TABLE accepted (sku TEXT PRIMARY KEY, hash TEXT NOT NULL, accepted_at TEXT NOT NULL,
    payload_id INTEGER NOT NULL, source TEXT) WITHOUT ROWID;`;

/**
 * Takes a state file's accepted payloads back to schema 10's layout (one row a payload, before
 * packs), for tests of the migrations from older files. Leaves `schema_version` to the caller.
 */
export function unpackPayloads(db: Database): void {
  const packs = new Packs(db);
  const rows = db
    .prepare<{
      sku: string;
      hash: string;
      accepted_at: string;
      source: string | null;
      pack: number;
      at: number;
      length: number;
    }>('SELECT sku, hash, accepted_at, source, pack, at, length FROM accepted ORDER BY pack, at')
    .all()
    .map((r) => ({ ...r, payload: packs.read(r) }));
  db.exec(TO_SCHEMA_10_TABLES);
  const payload = db.prepare('INSERT INTO payloads (id, payload) VALUES (?, ?)');
  const accepted = db.prepare('INSERT INTO accepted VALUES (?, ?, ?, ?, ?)');
  rows.forEach((r, i) => {
    payload.run(i + 1, r.payload);
    accepted.run(r.sku, r.hash, r.accepted_at, i + 1, r.source);
  });
}
