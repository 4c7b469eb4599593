import type { Database, SqlValue } from '../../storage/sqlite.js';
import { Packs, type Place } from './packs.js';
import { COPY_PAGE, STATE_TABLES, type StateTable, type StateTables, type TableRow } from './tables.js';

const READ: Record<StateTable, string> = {
  // In the packs' order: each pack is decompressed once (./packs.ts).
  accepted: 'SELECT sku, hash, accepted_at, source, price, pack, at, length FROM accepted ORDER BY pack, at',
  other_shards: 'SELECT source, sku FROM other_shards ORDER BY source',
  inflight:
    'SELECT envelope_id, type, position, size, sku, hash FROM inflight ORDER BY envelope_id, position',
  owed: 'SELECT sku, file, row, line, run_id, payload FROM owed ORDER BY id',
  // One row (id 1): a new file's first row takes that id.
  last_complete: 'SELECT rows, finished, columns FROM last_complete',
  missing_runs: 'SELECT sku, runs FROM missing_runs ORDER BY sku',
  feed_validators: 'SELECT url_hash, etag, last_modified, run_id FROM feed_validators ORDER BY url_hash',
  runs: `SELECT ${STATE_TABLES.runs.join(', ')} FROM runs ORDER BY seq`,
};

/** A SQLite state file's tables (src/upload/state/tables.ts). */
export class SqliteTables implements StateTables {
  constructor(private readonly db: Database) {}

  async identity() {
    const get = this.db.prepare<{ value: string }>('SELECT value FROM meta WHERE key = ?');
    const shard = get.get('shard')?.value;
    return {
      apiUrl: get.get('api_url')?.value ?? '?',
      format: get.get('format')?.value ?? '?',
      keyFingerprint: get.get('key_fingerprint')?.value ?? '',
      ...(shard !== undefined ? { shard } : {}),
    };
  }

  async *readTable(table: StateTable): AsyncGenerator<TableRow[]> {
    let page: TableRow[] = [];
    const packs = table === 'accepted' ? new Packs(this.db) : undefined;
    for (const row of this.db.prepare<TableRow>(READ[table]).iterate()) {
      if (packs) {
        const { pack, at, length, ...rest } = row as TableRow & Place;
        page.push({ ...rest, payload: packs.read({ pack, at, length }) });
      } else page.push(row);
      if (page.length === COPY_PAGE) {
        yield page;
        page = [];
      }
    }
    if (page.length > 0) yield page;
  }

  async writeTable(table: StateTable, rows: readonly TableRow[]): Promise<void> {
    this.db.transaction(() => {
      if (table === 'accepted') {
        const accepted = this.db.prepare(
          'INSERT INTO accepted (sku, hash, accepted_at, source, price, pack, at, length) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        );
        const entries = (rows as readonly Record<string, SqlValue>[]).map((r) => ({
          row: r,
          sku: r.sku as string,
          bytes: r.payload as Uint8Array,
        }));
        new Packs(this.db).write(entries, ({ row: r }, p) =>
          accepted.run(
            r.sku,
            r.hash,
            r.accepted_at,
            r.source ?? null,
            r.price ?? null,
            p.pack,
            p.at,
            p.length,
          ),
        );
        return;
      }
      const columns = STATE_TABLES[table];
      const insert = this.db.prepare(
        `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
      );
      for (const r of rows as readonly Record<string, SqlValue>[])
        insert.run(...columns.map((c) => r[c] ?? null));
    });
  }
}
