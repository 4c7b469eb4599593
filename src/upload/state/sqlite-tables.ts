import type { Database, SqlValue } from '../../storage/sqlite.js';
import { COPY_PAGE, STATE_TABLES, type StateTable, type StateTables, type TableRow } from './tables.js';

const READ: Record<StateTable, string> = {
  accepted:
    'SELECT a.sku, a.hash, a.accepted_at, a.source, p.payload FROM accepted a JOIN payloads p ON p.id = a.payload_id ORDER BY a.sku',
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
    for (const row of this.db.prepare<TableRow>(READ[table]).iterate()) {
      page.push(row);
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
        const payload = this.db.prepare('INSERT INTO payloads (payload) VALUES (?)');
        const accepted = this.db.prepare(
          'INSERT INTO accepted (sku, hash, accepted_at, source, payload_id) VALUES (?, ?, ?, ?, last_insert_rowid())',
        );
        for (const r of rows as readonly Record<string, SqlValue>[]) {
          payload.run(r.payload);
          accepted.run(r.sku, r.hash, r.accepted_at, r.source);
        }
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
