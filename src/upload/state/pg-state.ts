import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { KEY_TEXT_LENGTH, KnownSources, KnownSourcesBuilder } from '../../feed/index.js';
import { ExitCode, ExitError, UsageError } from '../../shared/errors.js';
import { StringMap } from '../../shared/string-set.js';
import { type PgClient, postgresProblem } from '../../storage/postgres.js';
import { shardName } from '../shard.js';
import { feedUrlHash, feedValidatorsOf } from './feed-validators.js';
import { KNOWN_PAGE, type KnownPageRow, knownPages } from './known-columns.js';
import { columnsText, type LastComplete, lastCompleteOf } from './last-complete.js';
import { payloadsByPage } from './payload-pages.js';
import { PgTables } from './pg-tables.js';
import { keptPrices, storedPrice } from './prices.js';
import { KEEP_RUNS, type RunRow, runEndValues, runRecord } from './runs.js';
import type {
  AcceptedRow,
  FeedValidators,
  InflightRow,
  OwedRow,
  RetryRow,
  RunEnd,
  UploadState,
} from './store.js';
import type { StateTables } from './tables.js';
import { type StateTarget, stateFileName } from './target.js';

/** Payloads read per query when walking the products gone from the feed. */
const PAYLOAD_PAGE = 200;
/** SKUs read per query when walking every accepted SKU. */
const SKU_PAGE = 10_000;

/** The key a target's rows carry: its SQLite file's name, without `.sqlite`. */
export function pgTargetKey(target: StateTarget): string {
  return stateFileName(target).replace(/\.sqlite$/, '');
}

/** The last of each SKU (a body names a SKU once; kept so that one upsert never touches a row twice). */
function lastPerSku<T extends { sku: string }>(rows: T[]): T[] {
  return [...new Map(rows.map((r) => [r.sku, r])).values()];
}

/**
 * The upload state of one target and shard in a PostgreSQL database shared by many machines
 * (docs/nightly.md, "State in PostgreSQL"). Every row carries the target's key; each write is
 * one transaction of multi-row statements (arrays unnested), and the calls of one run go one at a
 * time on its connection. The run lock is a session advisory lock: a run killed anyhow loses it
 * with its connection; a row beside it names the holder.
 */
export class PgState implements UploadState {
  private locked = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Rows of `genser_accepted` this state wrote (accepted payloads, noted keys): `freshenStatistics`. */
  private acceptedWrites = 0;

  constructor(
    private readonly client: PgClient,
    private readonly key: string,
    readonly where: string,
    private readonly ownsClient = true,
  ) {}

  /** The state of `target`: its row made (or checked: one key, one target) on first use. */
  static async open(
    client: PgClient,
    shown: string,
    target: StateTarget,
    ownsClient = true,
  ): Promise<PgState> {
    const key = pgTargetKey(target);
    const state = new PgState(client, key, `${shown} (${key})`, ownsClient);
    const shard = target.shard ? shardName(target.shard) : null;
    const row = [key, target.apiUrl, target.format, target.keyFingerprint, shard];
    const have = await state.q<{
      api_url: string;
      format: string;
      key_fingerprint: string;
      shard: string | null;
    }>(
      `INSERT INTO genser_targets (target, api_url, format, key_fingerprint, shard) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (target) DO UPDATE SET target = excluded.target RETURNING api_url, format, key_fingerprint, shard`,
      row,
    );
    const t = have[0];
    if (t.api_url !== row[1] || t.format !== row[2] || t.key_fingerprint !== row[3] || t.shard !== shard)
      throw new UsageError(
        `the upload state ${state.where} belongs to another target`,
        'use another database with --state URL',
      );
    return state;
  }

  /** One call at a time on the connection: a transaction never interleaves with another call. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  private async q<R extends object = Record<string, unknown>>(
    sql: string,
    params: unknown[] = [],
  ): Promise<R[]> {
    try {
      return (await this.client.query<R>(sql, params)).rows;
    } catch (err) {
      throw err instanceof ExitError ? err : postgresProblem(this.where, err);
    }
  }

  private read<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.serial(() => this.q<R>(sql, [this.key, ...params]));
  }

  /** `statements` in one transaction, each with the target's key as $1. */
  private write(statements: [string, unknown[]][]): Promise<void> {
    return this.serial(async () => {
      await this.q('BEGIN');
      try {
        for (const [sql, params] of statements) await this.q(sql, [this.key, ...params]);
        await this.q('COMMIT');
      } catch (err) {
        await this.client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    });
  }

  /** A database server keeps its own pages whole: nothing to wait for. */
  async intact(): Promise<void> {}

  async lock(): Promise<void> {
    const [got] = await this.read<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok',
    );
    if (!got.ok) {
      const [held] = await this.read<{ pid: number; host: string; started: string }>(
        'SELECT pid, host, started FROM genser_lock WHERE target = $1',
      );
      const who = held
        ? `pid ${held.pid} on ${held.host}, started ${held.started}`
        : 'a session of the database';
      throw new ExitError(
        ExitCode.locked,
        `another genser upload or stock run on the same target is running (${who})`,
        `wait for it to finish; a run killed anyhow (kill -9, an evicted pod) loses the lock when its database connection drops (docs/nightly.md, "The run lock"); the lock is in ${this.where}`,
      );
    }
    this.locked = true;
    await this.write([
      [
        `INSERT INTO genser_lock (target, pid, host, started) VALUES ($1, $2, $3, $4)
         ON CONFLICT (target) DO UPDATE SET pid = excluded.pid, host = excluded.host, started = excluded.started`,
        [process.pid, hostname(), new Date().toISOString()],
      ],
    ]);
  }

  /** The database server keeps its own backups: nothing to copy here. */
  async keepLastGood(): Promise<void> {}

  async acceptedHash(sku: string): Promise<string | undefined> {
    const rows = await this.read<{ hash: string }>(
      'SELECT hash FROM genser_accepted WHERE target = $1 AND sku = $2',
      [sku],
    );
    return rows[0]?.hash;
  }

  async acceptedHashesOf(skus: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.read<{ sku: string; hash: string }>(
      'SELECT sku, hash FROM genser_accepted WHERE target = $1 AND sku = ANY($2::text[])',
      [skus],
    );
    return new Map(rows.map((r) => [r.sku, r.hash]));
  }

  async acceptedPrices(skus: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.read<{ sku: string; price: number | null }>(
      'SELECT sku, price FROM genser_accepted WHERE target = $1 AND sku = ANY($2::text[])',
      [skus],
    );
    return keptPrices(rows, (unknown) => this.acceptedPayloads(unknown));
  }

  async acceptedPayloads(skus: readonly string[]): Promise<Map<string, Uint8Array>> {
    const rows = await this.read<{ sku: string; payload: Buffer }>(
      'SELECT sku, payload FROM genser_payloads WHERE target = $1 AND sku = ANY($2::text[])',
      [skus],
    );
    return new Map(rows.map((r) => [r.sku, r.payload]));
  }

  async acceptedHashes(): Promise<StringMap<string>> {
    // Arrays, not row objects: a million SKUs come back without a million objects.
    const result = await this.serial(() =>
      this.client
        .query<[string, string]>({
          text: 'SELECT sku, hash FROM genser_accepted WHERE target = $1',
          values: [this.key],
          rowMode: 'array',
        })
        .catch((err: unknown) => Promise.reject(postgresProblem(this.where, err))),
    );
    const hashes = new StringMap<string>();
    for (const [sku, hash] of result.rows) hashes.set(sku, hash);
    return hashes;
  }

  /** As the SQLite state's (in pages): SKUs of unanswered batches left out (`Delta.inDoubt`), other shards' keys in. */
  async knownSources(page = KNOWN_PAGE): Promise<KnownSources> {
    const L = KEY_TEXT_LENGTH;
    const builder = new KnownSourcesBuilder();
    // SKUs of unanswered batches are not skipped by their key (`Delta.inDoubt`). Read once, not
    // joined in each page: the rows a run deletes from genser_inflight stay in its index until
    // autovacuum, and each page's join walked them all (1M: 200 ms a page; BENCHMARKS.md, "Stop 49").
    const inflight = await this.read<{ sku: string }>(
      'SELECT DISTINCT sku FROM genser_inflight WHERE target = $1',
    );
    const accepted = `length(source) >= ${L}
      AND NOT EXISTS (SELECT 1 FROM unnest($4::text[]) AS i(sku) WHERE i.sku = t.sku)`;
    const skus = inflight.map((r) => r.sku);
    for (const [table, by, filter, more] of [
      ['genser_accepted', 'sku', accepted, [skus]],
      ['genser_other_shards', 'source', 'TRUE', []],
    ] as const) {
      const read = async (after: string | undefined) => {
        const [row] = await this.read<KnownPageRow>(
          `SELECT count(*) AS n, max(${by}) AS last,
                  string_agg(substr(source, 1, ${L}), '' ORDER BY ${by}) AS keys,
                  string_agg(sku || substr(source, ${L + 1}), '' ORDER BY ${by}) AS skus,
                  string_agg(octet_length(sku) || ':' || octet_length(substr(source, ${L + 1})), ',' ORDER BY ${by}) AS lengths
           FROM (SELECT sku, source FROM ${table} t WHERE target = $1 AND ($2::text IS NULL OR ${by} > $2)
                   AND ${filter} ORDER BY ${by} LIMIT $3) p`,
          [after ?? null, page, ...more],
        );
        return row;
      };
      for await (const columns of knownPages(page, read)) builder.add(columns);
    }
    return builder.finish() ?? KnownSources.build([]);
  }

  async replaceOtherShards(rows: readonly { source: string; sku: string }[]): Promise<void> {
    const last = [...new Map(rows.map((r) => [r.source, r])).values()];
    await this.write([
      ['DELETE FROM genser_other_shards WHERE target = $1', []],
      [
        'INSERT INTO genser_other_shards (target, source, sku) SELECT $1, * FROM unnest($2::text[], $3::text[])',
        [last.map((r) => r.source), last.map((r) => r.sku)],
      ],
    ]);
  }

  async *acceptedSkus(): AsyncGenerator<string> {
    let after = '';
    for (;;) {
      const page = await this.read<{ sku: string }>(
        'SELECT sku FROM genser_accepted WHERE target = $1 AND sku > $2 ORDER BY sku LIMIT $3',
        [after, SKU_PAGE],
      );
      for (const r of page) yield r.sku;
      if (page.length < SKU_PAGE) return;
      after = page[page.length - 1].sku;
    }
  }

  async noteSources(rows: readonly { sku: string; hash: string; source: string }[]): Promise<void> {
    if (rows.length === 0) return;
    const last = lastPerSku([...rows]);
    this.acceptedWrites += last.length;
    await this.write([
      [
        `UPDATE genser_accepted a SET source = u.source
         FROM unnest($2::text[], $3::text[], $4::text[]) AS u(sku, hash, source)
         WHERE a.target = $1 AND a.sku = u.sku AND a.hash = u.hash`,
        [last.map((r) => r.sku), last.map((r) => r.hash), last.map((r) => r.source)],
      ],
    ]);
  }

  async accepted(
    rows: readonly AcceptedRow[],
    parts: readonly Uint8Array[],
    now: Date = new Date(),
  ): Promise<void> {
    const noSku = rows.filter((r) => r.sku === undefined && r.file !== undefined && r.row !== undefined);
    const paid = rows.flatMap((r) => (r.sku !== undefined ? [r.sku] : []));
    const kept = lastPerSku(
      rows.flatMap((r, i) =>
        r.sku !== undefined && r.hash !== undefined
          ? [
              {
                sku: r.sku,
                hash: r.hash,
                source: r.source ?? null,
                price: storedPrice(r.price),
                payload: Buffer.from(parts[i]),
              },
            ]
          : [],
      ),
    );
    this.acceptedWrites += kept.length;
    await this.write([
      [
        'DELETE FROM genser_owed o USING unnest($2::text[], $3::int[]) AS u(file, row) WHERE o.target = $1 AND o.sku IS NULL AND o.file = u.file AND o.row = u.row',
        [noSku.map((r) => r.file), noSku.map((r) => r.row)],
      ],
      ['DELETE FROM genser_owed WHERE target = $1 AND sku = ANY($2::text[])', [paid]],
      [
        `INSERT INTO genser_payloads (target, sku, payload) SELECT $1, * FROM unnest($2::text[], $3::bytea[])
         ON CONFLICT (target, sku) DO UPDATE SET payload = excluded.payload`,
        [kept.map((r) => r.sku), kept.map((r) => r.payload)],
      ],
      [
        `INSERT INTO genser_accepted (target, sku, hash, accepted_at, source, price)
         SELECT $1, u.sku, u.hash, $5, u.source, u.price
         FROM unnest($2::text[], $3::text[], $4::text[], $6::float8[]) AS u(sku, hash, source, price)
         ON CONFLICT (target, sku) DO UPDATE SET hash = excluded.hash, accepted_at = excluded.accepted_at, source = excluded.source, price = excluded.price`,
        [
          kept.map((r) => r.sku),
          kept.map((r) => r.hash),
          kept.map((r) => r.source),
          now.toISOString(),
          kept.map((r) => r.price),
        ],
      ],
    ]);
  }

  async *absent(keep: (sku: string) => boolean): AsyncGenerator<{ sku: string; payload: Uint8Array }> {
    const gone: string[] = [];
    for await (const sku of this.acceptedSkus()) if (!keep(sku)) gone.push(sku);
    yield* payloadsByPage(gone, PAYLOAD_PAGE, (page) => this.acceptedPayloads(page));
  }

  async owe(runId: string, rows: readonly OwedRow[], parts: readonly Uint8Array[]): Promise<void> {
    const all = rows.map((r, i) => ({ ...r, payload: Buffer.from(parts[i]) }));
    const bySku = lastPerSku(all.flatMap((r) => (r.sku !== undefined ? [{ ...r, sku: r.sku }] : [])));
    const noSku = all.filter((r) => r.sku === undefined);
    const columns = (list: typeof all) => [
      list.map((r) => r.sku ?? null),
      list.map((r) => r.file),
      list.map((r) => r.row),
      list.map((r) => r.line),
      list.map((r) => r.payload),
    ];
    const insert = `INSERT INTO genser_owed (target, sku, file, row, line, run_id, payload)
       SELECT $1, u.sku, u.file, u.row, u.line, $7, u.payload
       FROM unnest($2::text[], $3::text[], $4::int[], $5::int[], $6::bytea[]) WITH ORDINALITY AS u(sku, file, row, line, payload, n)
       ORDER BY u.n`;
    await this.write([
      [
        `${insert} ON CONFLICT (target, sku) WHERE sku IS NOT NULL DO UPDATE SET file = excluded.file, row = excluded.row,
           line = excluded.line, run_id = excluded.run_id, payload = excluded.payload`,
        [...columns(bySku), runId],
      ],
      [
        'DELETE FROM genser_owed o USING unnest($2::text[], $3::int[]) AS u(file, row) WHERE o.target = $1 AND o.sku IS NULL AND o.file = u.file AND o.row = u.row',
        [noSku.map((r) => r.file), noSku.map((r) => r.row)],
      ],
      [insert, [...columns(noSku), runId]],
    ]);
  }

  async dropOwed(sku: string): Promise<void> {
    await this.write([['DELETE FROM genser_owed WHERE target = $1 AND sku = $2', [sku]]]);
  }

  async owedRows(): Promise<RetryRow[]> {
    const rows = await this.read<RetryRow & { payload: Buffer }>(
      'SELECT file, row, line, sku, payload, run_id AS "runId" FROM genser_owed WHERE target = $1 ORDER BY file, row, id',
    );
    return rows.map((r) => ({ ...r, payload: new Uint8Array(r.payload) }));
  }

  async owedSkus(): Promise<Set<string>> {
    const rows = await this.read<{ sku: string }>(
      'SELECT sku FROM genser_owed WHERE target = $1 AND sku IS NOT NULL',
    );
    return new Set(rows.map((r) => r.sku));
  }

  async inflight(): Promise<Map<string, InflightRow>> {
    const rows = await this.read<InflightRow>(
      'SELECT envelope_id AS "envelopeId", type, position, size, sku, hash FROM genser_inflight WHERE target = $1',
    );
    return new Map(rows.map((r) => [r.sku, r]));
  }

  async recordInflight(
    envelopeId: string,
    type: string,
    rows: readonly { sku?: string; hash?: string }[],
  ): Promise<void> {
    if (rows.some((r) => r.sku === undefined || r.hash === undefined)) return;
    await this.write([
      [
        `INSERT INTO genser_inflight (target, envelope_id, type, position, size, sku, hash)
         SELECT $1, $2, $3, u.n - 1, $4, u.sku, u.hash FROM unnest($5::text[], $6::text[]) WITH ORDINALITY AS u(sku, hash, n)
         ON CONFLICT (target, envelope_id, position) DO UPDATE SET type = excluded.type, size = excluded.size, sku = excluded.sku, hash = excluded.hash`,
        [envelopeId, type, rows.length, rows.map((r) => r.sku), rows.map((r) => r.hash)],
      ],
    ]);
  }

  async forgetInflight(envelopeIds: readonly string[]): Promise<void> {
    await this.write([
      ['DELETE FROM genser_inflight WHERE target = $1 AND envelope_id = ANY($2::text[])', [envelopeIds]],
    ]);
  }

  async knownCount(): Promise<number> {
    const [row] = await this.read<{ n: string }>(
      'SELECT count(*) AS n FROM genser_accepted WHERE target = $1',
    );
    return Number(row.n);
  }

  async target(): Promise<{ apiUrl: string; format: string; shard?: string }> {
    const [t] = await this.read<{ api_url: string; format: string; shard: string | null }>(
      'SELECT api_url, format, shard FROM genser_targets WHERE target = $1',
    );
    return { apiUrl: t?.api_url ?? '?', format: t?.format ?? '?', ...(t?.shard ? { shard: t.shard } : {}) };
  }

  async startRun(feed: string, now: Date = new Date()): Promise<string> {
    const id = randomBytes(4).toString('hex');
    await this.write([
      [
        'INSERT INTO genser_runs (target, id, started, pid, feed) VALUES ($1, $2, $3, $4, $5)',
        [id, now.toISOString(), process.pid, feed],
      ],
      [
        'DELETE FROM genser_runs WHERE target = $1 AND seq < (SELECT min(seq) FROM (SELECT seq FROM genser_runs WHERE target = $1 ORDER BY seq DESC LIMIT $2) k)',
        [KEEP_RUNS],
      ],
    ]);
    return id;
  }

  async finishRun(id: string, end: RunEnd): Promise<void> {
    await this.write([
      [
        `UPDATE genser_runs SET duration_ms = $3, rows = $4, sent = $5, accepted = $6, rejected = $7, failed = $8,
           unchanged = $9, unconfirmed = $10, not_sent = $11, exit_code = $12, report = $13
         WHERE target = $1 AND id = $2`,
        [id, ...runEndValues(end)],
      ],
    ]);
  }

  async listRuns() {
    const rows = await this.read<RunRow>('SELECT * FROM genser_runs WHERE target = $1 ORDER BY seq DESC');
    return rows.map(runRecord);
  }

  async runReport(id: string) {
    const [row] = await this.read<RunRow & { report: string | null }>(
      'SELECT * FROM genser_runs WHERE target = $1 AND id = $2',
      [id],
    );
    if (!row) return undefined;
    return { run: runRecord(row), ...(row.report !== null ? { report: row.report } : {}) };
  }

  async lastComplete(): Promise<LastComplete | undefined> {
    const [row] = await this.read<{ rows: number; columns: string | null }>(
      'SELECT rows, columns FROM genser_last_complete WHERE target = $1',
    );
    return lastCompleteOf(row);
  }

  async recordComplete(run: LastComplete, now: Date = new Date()): Promise<void> {
    await this.write([
      [
        `INSERT INTO genser_last_complete (target, rows, finished, columns) VALUES ($1, $2, $3, $4)
         ON CONFLICT (target) DO UPDATE SET rows = excluded.rows, finished = excluded.finished, columns = excluded.columns`,
        [run.rows, now.toISOString(), columnsText(run)],
      ],
    ]);
  }

  async missingRuns(): Promise<Map<string, number>> {
    const rows = await this.read<{ sku: string; runs: number }>(
      'SELECT sku, runs FROM genser_missing_runs WHERE target = $1',
    );
    return new Map(rows.map((r) => [r.sku, Number(r.runs)]));
  }

  async recordMissing(absent: Iterable<string>, before: ReadonlyMap<string, number>): Promise<void> {
    const skus = [...new Set(absent)];
    await this.write([
      ['DELETE FROM genser_missing_runs WHERE target = $1', []],
      [
        'INSERT INTO genser_missing_runs (target, sku, runs) SELECT $1, * FROM unnest($2::text[], $3::int[])',
        [skus, skus.map((sku) => (before.get(sku) ?? 0) + 1)],
      ],
    ]);
  }

  async feedValidators(url: string): Promise<FeedValidators | undefined> {
    const [row] = await this.read<{ etag: string | null; last_modified: string | null; run_id: string }>(
      'SELECT etag, last_modified, run_id FROM genser_feed_validators WHERE target = $1 AND url_hash = $2',
      [feedUrlHash(url)],
    );
    return row && feedValidatorsOf(row);
  }

  async keepFeedValidators(
    runId: string,
    feeds: readonly { url: string; etag?: string; lastModified?: string }[],
  ): Promise<void> {
    await this.write([
      ['DELETE FROM genser_feed_validators WHERE target = $1', []],
      [
        `INSERT INTO genser_feed_validators (target, url_hash, etag, last_modified, run_id)
         SELECT $1, h, e, m, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS f(h, e, m)`,
        [
          feeds.map((f) => feedUrlHash(f.url)),
          feeds.map((f) => f.etag ?? null),
          feeds.map((f) => f.lastModified ?? null),
          runId,
        ],
      ],
    ]);
  }

  /** Every table of this target as rows (`genser state copy`). */
  tables(): StateTables {
    return new PgTables(this.client, this.key, this.where);
  }

  /** Releases the lock (its row, then the advisory lock) and the connection (when this state owns it). */
  /**
   * The planner's statistics of the accepted rows, refreshed when this state wrote more of them
   * than autovacuum's own rule waits for (50 + 10% of the rows last counted), instead of at
   * autovacuum's next round: until then a target of 300k rows was taken for about a thousand, and
   * each page of 2,000 noted keys hashed the whole table (170-200 ms against 25 ms; BENCHMARKS.md,
   * "Stop 49"). A user who does not own the table gets a warning from the server, not an error.
   */
  private async freshenStatistics(): Promise<void> {
    if (this.acceptedWrites === 0) return;
    const [row] = await this.q<{ tuples: number }>(
      "SELECT reltuples AS tuples FROM pg_class WHERE oid = 'genser_accepted'::regclass",
    );
    if (this.acceptedWrites <= 50 + 0.1 * Math.max(row?.tuples ?? 0, 0)) return;
    this.acceptedWrites = 0;
    await this.q('ANALYZE genser_accepted');
  }

  async close(): Promise<void> {
    await this.serial(() => this.freshenStatistics()).catch(() => {});
    if (this.locked) {
      this.locked = false;
      await this.read('DELETE FROM genser_lock WHERE target = $1 AND pid = $2 AND host = $3', [
        process.pid,
        hostname(),
      ]).catch(() => {});
      await this.read('SELECT pg_advisory_unlock(hashtextextended($1, 0))').catch(() => {});
    }
    if (this.ownsClient) await this.client.end().catch(() => {});
  }
}
