import { type PgClient, postgresProblem } from '../../storage/postgres.js';
import { COPY_PAGE, STATE_TABLES, type StateTable, type StateTables, type TableRow } from './tables.js';

const ORDER: Record<StateTable, string> = {
  accepted: 'a.sku',
  other_shards: 'source',
  inflight: 'envelope_id, position',
  owed: 'id',
  last_complete: 'target',
  missing_runs: 'sku',
  feed_validators: 'url_hash',
  runs: 'seq',
};

/** Each column's type, for the arrays a multi-row insert unnests. */
const TYPES: Record<string, string> = {
  payload: 'bytea',
  price: 'float8',
  position: 'int',
  size: 'int',
  row: 'int',
  line: 'int',
  pid: 'int',
  duration_ms: 'int',
  rows: 'int',
  sent: 'int',
  accepted: 'int',
  rejected: 'int',
  failed: 'int',
  unchanged: 'int',
  unconfirmed: 'int',
  not_sent: 'int',
  exit_code: 'int',
  runs: 'int',
};

/** One target's tables in a PostgreSQL state (src/upload/state/tables.ts). */
export class PgTables implements StateTables {
  constructor(
    private readonly client: PgClient,
    private readonly key: string,
    private readonly where: string,
  ) {}

  async identity() {
    const { rows } = await this.client.query<{
      api_url: string;
      format: string;
      key_fingerprint: string;
      shard: string | null;
    }>('SELECT api_url, format, key_fingerprint, shard FROM genser_targets WHERE target = $1', [this.key]);
    const t = rows[0];
    return {
      apiUrl: t.api_url,
      format: t.format,
      keyFingerprint: t.key_fingerprint,
      ...(t.shard ? { shard: t.shard } : {}),
    };
  }

  async *readTable(table: StateTable): AsyncGenerator<TableRow[]> {
    const from =
      table === 'accepted'
        ? 'genser_accepted a JOIN genser_payloads p USING (target, sku) WHERE a.target = $1'
        : `genser_${table} WHERE target = $1`;
    const columns =
      table === 'accepted'
        ? 'a.sku, a.hash, a.accepted_at, a.source, a.price, p.payload'
        : STATE_TABLES[table].join(', ');
    // Keyset pages would need each table's key; a cursor reads any of them in order, page by page.
    await this.client.query('BEGIN');
    try {
      await this.client.query(
        `DECLARE genser_copy NO SCROLL CURSOR FOR SELECT ${columns} FROM ${from} ORDER BY ${ORDER[table]}`,
        [this.key],
      );
      for (;;) {
        const { rows } = await this.client.query<TableRow>(`FETCH ${COPY_PAGE} FROM genser_copy`);
        if (rows.length > 0) yield rows;
        if (rows.length < COPY_PAGE) break;
      }
    } finally {
      await this.client.query('COMMIT').catch(() => {});
    }
  }

  async writeTable(table: StateTable, rows: readonly TableRow[]): Promise<void> {
    const value = (v: unknown) =>
      v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v) : (v ?? null);
    const arrays = (columns: readonly string[]) => columns.map((c) => rows.map((r) => value(r[c])));
    const unnest = (columns: readonly string[], from: number) =>
      `unnest(${columns.map((c, i) => `$${from + i}::${TYPES[c] ?? 'text'}[]`).join(', ')})`;
    await this.client.query('BEGIN');
    try {
      if (table === 'accepted') {
        await this.client.query(
          `INSERT INTO genser_payloads (target, sku, payload) SELECT $1, * FROM ${unnest(['sku', 'payload'], 2)}`,
          [this.key, ...arrays(['sku', 'payload'])],
        );
        const columns = ['sku', 'hash', 'accepted_at', 'source', 'price'];
        await this.client.query(
          `INSERT INTO genser_accepted (target, ${columns.join(', ')}) SELECT $1, * FROM ${unnest(columns, 2)}`,
          [this.key, ...arrays(columns)],
        );
      } else {
        const columns = STATE_TABLES[table];
        await this.client.query(
          `INSERT INTO genser_${table} (target, ${columns.join(', ')})
           SELECT $1, ${columns.map((c) => `u.${c}`).join(', ')} FROM ${unnest(columns, 2)} WITH ORDINALITY AS u(${columns.join(', ')}, n) ORDER BY n`,
          [this.key, ...arrays(columns)],
        );
      }
      await this.client.query('COMMIT');
    } catch (err) {
      await this.client.query('ROLLBACK').catch(() => {});
      throw postgresProblem(this.where, err);
    }
  }
}
