import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { KEY_TEXT_LENGTH, KnownSources, KnownSourcesBuilder } from '../../feed/index.js';
import { ExitCode, ExitError, UsageError } from '../../shared/errors.js';
import { atExit } from '../../shared/exit-hooks.js';
import { processAlive } from '../../shared/process-alive.js';
import { StringMap } from '../../shared/string-set.js';
import { type Database, openDatabase, type Statement } from '../../storage/sqlite.js';
import { shardName } from '../shard.js';
import { feedUrlHash, feedValidatorsOf } from './feed-validators.js';
import {
  checkNeeded,
  checkNotEmpty,
  createStateFile,
  damaged,
  fullDisk,
  keepLastGood,
  type StateCheck,
  sealState,
  startIntegrityCheck,
  stateProblem,
} from './health.js';
import { KNOWN_PAGE, type KnownPageRow, knownPages } from './known-columns.js';
import {
  type LastComplete,
  lastComplete,
  missingRuns,
  recordComplete,
  recordMissing,
} from './last-complete.js';
import { decideLock, HEARTBEAT_MS, type LockHolder } from './lock.js';
import { type PackEntry, Packs, type Place } from './packs.js';
import { payloadsByPage } from './payload-pages.js';
import { keptPrices, storedPrice } from './prices.js';
import { finishRun, listRuns, runReport, startRun } from './runs.js';
import { migrate, SCHEMA_VERSION, schemaVersion } from './schema.js';
import { SqliteTables } from './sqlite-tables.js';
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

/**
 * The upload state in one SQLite file per target (docs/nightly.md): the embedded default. Its
 * calls are synchronous underneath (better-sqlite3), so a transaction never interleaves with
 * another; the interface's Promises resolve at once.
 */

/**
 * A new file's page size. A pack (./packs.ts) is about 5 KB: SQLite keeps a value larger than a
 * page's share in full overflow pages and the rest in the leaf, so 4 KiB pages waste almost
 * nothing; in 16 KiB pages two packs fit a leaf and a third of it stays empty (BENCHMARKS.md,
 * "The compact state in packs"). A file made with 16 KiB pages keeps them.
 */
const STATE_PAGE_SIZE = 4096;

/** Gone SKUs whose payloads are read at once (`absent`). */
const GONE_PAGE = 500;

/** A body's accepted row with its payload: what `accepted` keeps. */
type KeptRow = PackEntry & { hash: string; source?: string; price: number | null };

export class SqliteState implements UploadState {
  readonly where: string;
  private locked = false;
  private readonly known;
  private readonly packs;
  private readonly placeOf;
  private readonly priceOf;
  private readonly upsertAccepted;
  private readonly moveAccepted;

  private constructor(
    readonly db: Database,
    readonly file: string,
    /** The file's quick_check, when it was asked for and may still run (see `intact`). */
    private readonly check?: StateCheck,
  ) {
    this.where = file;
    this.known = db.prepare<{ hash: string }>('SELECT hash FROM accepted WHERE sku = ?');
    this.packs = new Packs(db);
    this.placeOf = db.prepare<Place>('SELECT pack, at, length FROM accepted WHERE sku = ?');
    this.priceOf = db.prepare<{ price: number | null }>('SELECT price FROM accepted WHERE sku = ?');
    // The source key goes with the payload: NULL when this payload was not made from a feed row
    // (a stock change, a product gone from the feed), so no row is taken for it.
    this.upsertAccepted = db.prepare(
      'INSERT INTO accepted (sku, hash, accepted_at, source, pack, at, length, price) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(sku) DO UPDATE SET hash = excluded.hash, accepted_at = excluded.accepted_at, source = excluded.source, pack = excluded.pack, at = excluded.at, length = excluded.length, price = excluded.price',
    );
    this.moveAccepted = db.prepare('UPDATE accepted SET pack = ?, at = ?, length = ? WHERE sku = ?');
  }

  /**
   * Opens the state of `target` in `dir` for a run: made whole when new, else checked (not empty;
   * intact: quick_check, on a thread of its own while the run reads, unless the file is as a run
   * that ended well sealed it and no copy is due) and migrated; exit 2 for a damaged, newer or
   * foreign file (src/upload/state/health.ts). What the check finds stops the run's first write
   * after its lock and history row (`intact`), so before anything is sent.
   */
  static async open(dir: string, target: StateTarget): Promise<SqliteState> {
    const file = join(dir, stateFileName(target));
    if (!existsSync(file)) createStateFile(file, (db) => migrate(db), STATE_PAGE_SIZE);
    return SqliteState.openFile(file, { target, check: checkNeeded(file) ? 'aside' : false });
  }

  /**
   * Opens a state file as it is (`genser runs`: its target is read from it). `check` reads every
   * page (quick_check, O(size): a run's one look at the whole file): `true` before this returns,
   * `'aside'` while the caller goes on (its writes wait for it). A file to migrate waits for it.
   */
  static async openFile(
    file: string,
    how: { target?: StateTarget; check?: boolean | 'aside' } = {},
  ): Promise<SqliteState> {
    checkNotEmpty(file);
    let db: Database;
    try {
      db = openDatabase(file, { pageSize: STATE_PAGE_SIZE });
    } catch (err) {
      // A missing SQLite backend says so itself: it is not the file's fault.
      throw err instanceof ExitError ? err : stateProblem(file, err);
    }
    const check = how.check ? startIntegrityCheck(file, db.backend) : undefined;
    try {
      if (how.check === true) await throwDamage(check);
      const version = schemaVersion(db);
      if (version === 0) throw damaged(file, 'it is an SQLite database without a genser upload state in it');
      if (version > SCHEMA_VERSION)
        throw new UsageError(
          `the upload state ${file} was written by a newer genser (schema ${version}; this genser knows up to ${SCHEMA_VERSION}): it was not changed`,
          'upgrade genser, or use another state directory with --state DIR',
        );
      if (version < SCHEMA_VERSION) {
        // Checked before it is changed, sealed or not.
        await throwDamage(check ?? startIntegrityCheck(file, db.backend));
        migrate(db);
      }
      if (how.target) checkTarget(db, file, how.target);
      return new SqliteState(db, file, check);
    } catch (err) {
      // A damaged file fails its first reads too: what the check says is said.
      const damage = await check?.verdict;
      db.close();
      throw damage ?? (err instanceof ExitError ? err : stateProblem(file, err));
    }
  }

  /**
   * Resolves once the file is known intact; throws the damage, exit 2 (src/upload/state/health.ts).
   * Every write but the lock's and the history row's waits for it: a run says what is wrong with
   * its state before it sends or records anything.
   */
  async intact(): Promise<void> {
    await throwDamage(this.check);
    this.knownIntact = true;
  }

  /** Set once the check has found the file intact (or none was asked for). */
  private knownIntact = false;

  /**
   * A write once the file is known intact (see `intact`); made at once when it is known, so
   * that writes keep the order of the calls that make them.
   */
  private async checkedWrite<T>(fn: () => T): Promise<T> {
    if (!this.knownIntact) await this.intact();
    return this.write(fn);
  }

  /** Renews the lock's heartbeat while this run holds it (a timer that never keeps the process up). */
  private heartbeat?: NodeJS.Timeout;
  /** Removes the exit hook that releases the lock when the process ends other than through close(). */
  private unhookExit?: () => void;

  /**
   * Takes the run lock (one row, written in a transaction): a stale holder (its process gone on
   * this host, or no heartbeat for LOCK_EXPIRY_MS) is replaced, and `onStale` says whose it was;
   * a live one stops this run with exit 5, naming it and its last heartbeat (./lock.ts).
   */
  async lock(now: Date = new Date(), onStale?: (line: string) => void): Promise<void> {
    const me = { pid: process.pid, host: hostname() };
    const at = now.toISOString();
    const decision = this.db.transaction(() => {
      const held = this.db
        .prepare<LockHolder>('SELECT pid, host, started, heartbeat FROM lock WHERE id = 1')
        .get();
      const d = decideLock(held, me, now, processAlive);
      if (d.kind === 'take')
        this.db
          .prepare(
            'INSERT INTO lock (id, pid, host, started, heartbeat) VALUES (1, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET pid = excluded.pid, host = excluded.host, started = excluded.started, heartbeat = excluded.heartbeat',
          )
          .run(me.pid, me.host, at, at);
      return d;
    });
    if (decision.kind === 'refuse')
      throw new ExitError(ExitCode.locked, decision.message, `${decision.hint}; the lock is in ${this.file}`);
    if (decision.stale) onStale?.(decision.stale);
    this.locked = true;
    this.unhookExit = atExit(() => this.closeNow());
    const renew = this.db.prepare('UPDATE lock SET heartbeat = ? WHERE id = 1 AND pid = ? AND host = ?');
    this.heartbeat = setInterval(() => {
      try {
        renew.run(new Date().toISOString(), me.pid, me.host);
      } catch {
        // A busy or full file: the next beat tries again; ten missed ones lose the lock.
      }
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /**
   * After a run that ended well: a copy of the state, kept for recovering from a damaged file
   * (./health.ts), made when the run closes the state (a full disk leaves the previous copy).
   */
  async keepLastGood(): Promise<void> {
    this.copyOnClose = true;
  }

  /** Set by `keepLastGood`: the copy is made when the run closes the state. */
  private copyOnClose = false;

  /** The hash of the payload last accepted for `sku`, if any. */
  async acceptedHash(sku: string): Promise<string | undefined> {
    return this.known.get(sku)?.hash;
  }

  async acceptedHashesOf(skus: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (const sku of skus) {
      const hash = this.known.get(sku)?.hash;
      if (hash !== undefined) found.set(sku, hash);
    }
    return found;
  }

  async acceptedPrices(skus: readonly string[]): Promise<Map<string, number>> {
    const rows: { sku: string; price: number | null }[] = [];
    for (const sku of skus) {
      const price = this.priceOf.get(sku)?.price;
      if (price !== undefined) rows.push({ sku, price });
    }
    return keptPrices(rows, (unknown) => this.acceptedPayloads(unknown));
  }

  async acceptedPayloads(skus: readonly string[]): Promise<Map<string, Uint8Array>> {
    const places: [string, Place][] = [];
    for (const sku of skus) {
      const place = this.placeOf.get(sku);
      if (place) places.push([sku, place]);
    }
    // By pack: each pack is decompressed once, whatever order the SKUs came in.
    places.sort((a, b) => a[1].pack - b[1].pack);
    return new Map(places.map(([sku, place]) => [sku, this.packs.read(place)]));
  }

  /**
   * Every accepted SKU's hash, read in one pass over the table: for comparing a whole feed, many
   * times cheaper than a lookup per row (each lookup reads a page of the large payload rows;
   * BENCHMARKS.md, "The nightly case").
   */
  async acceptedHashes(): Promise<StringMap<string>> {
    const hashes = new StringMap<string>();
    for (const r of this.db
      .prepare<{ sku: string; hash: string }>('SELECT sku, hash FROM accepted')
      .iterate())
      hashes.set(r.sku, r.hash);
    return hashes;
  }

  /**
   * The table of accepted source keys the feed skips rows by (docs/nightly.md, "Unchanged
   * rows"); empty when the columns do not add up: every row is then mapped and compared. Read
   * in pages, each joined by SQLite in one pass (a row object per SKU cost 0.8 us each on the
   * nightly run's critical path: BENCHMARKS.md). A source is the key (KEY_TEXT_LENGTH
   * characters), then the row's warnings as JSON, if any. A SKU in a batch of an earlier run that
   * was never answered is left out: its row is mapped, and compared with what may have landed
   * (`Delta.inDoubt`). The other shards' keys come after the accepted ones.
   */
  async knownSources(page = KNOWN_PAGE): Promise<KnownSources> {
    const builder = new KnownSourcesBuilder();
    const accepted = `length(source) >= ${KEY_TEXT_LENGTH} AND sku NOT IN (SELECT sku FROM inflight)`;
    for (const [table, by, filter] of [
      ['accepted', 'sku', accepted],
      ['other_shards', 'source', 'TRUE'],
    ] as const) {
      const statement = (op: string) =>
        this.db.prepare<KnownPageRow>(
          `SELECT count(*) AS n, max(${by}) AS last,
                  group_concat(substr(source, 1, ${KEY_TEXT_LENGTH}), '') AS keys,
                  group_concat(sku || substr(source, ${KEY_TEXT_LENGTH + 1}), '') AS skus,
                  group_concat(length(CAST(sku AS BLOB)) || ':' ||
                    length(CAST(substr(source, ${KEY_TEXT_LENGTH + 1}) AS BLOB)), ',') AS lengths
           FROM (SELECT sku, source FROM ${table} WHERE ${by} ${op} ? AND ${filter}
                 ORDER BY ${by} LIMIT ?)`,
        );
      const [first, next] = [statement('>='), statement('>')];
      for await (const columns of knownPages(page, (after) =>
        after === undefined ? first.get('', page) : next.get(after, page),
      ))
        builder.add(columns);
    }
    return builder.finish() ?? KnownSources.build([]);
  }

  /**
   * The source keys of the other shards' rows in the feed just read, whole (a sharded run, read
   * to its end): they replace the last run's, so keys of rows since changed do not pile up.
   */
  async replaceOtherShards(rows: readonly { source: string; sku: string }[]): Promise<void> {
    const insert = this.db.prepare('INSERT OR REPLACE INTO other_shards (source, sku) VALUES (?, ?)');
    await this.checkedWrite(() => {
      this.db.exec('DELETE FROM other_shards');
      for (const r of rows) insert.run(r.source, r.sku);
    });
  }

  /** Every accepted SKU, in the table's order. */
  async *acceptedSkus(): AsyncGenerator<string> {
    for (const r of this.db.prepare<{ sku: string }>('SELECT sku FROM accepted').iterate()) yield r.sku;
  }

  /**
   * Source keys of rows whose payload is the one accepted (same hash): the next run need not map
   * them. Only where the hash still stands, in one transaction.
   */
  async noteSources(rows: readonly { sku: string; hash: string; source: string }[]): Promise<void> {
    if (rows.length === 0) return;
    const update = this.db.prepare('UPDATE accepted SET source = ? WHERE sku = ? AND hash = ?');
    await this.checkedWrite(() => {
      for (const r of rows) update.run(r.source, r.sku, r.hash);
    });
  }

  /**
   * Records one body's accepted products (their exact payload bytes too), in one transaction. A
   * row owed to --retry-failed is paid by it: the service holds a payload made later.
   */
  async accepted(
    rows: readonly AcceptedRow[],
    parts: readonly Uint8Array[],
    now: Date = new Date(),
  ): Promise<void> {
    const at = now.toISOString();
    const owes = this.mayOwe();
    await this.checkedWrite(() => {
      const kept = new Map<string, KeptRow>();
      rows.forEach((r, i) => {
        if (r.sku === undefined) {
          if (owes && r.file !== undefined && r.row !== undefined) this.dropOwedRow(r.file, r.row);
          return;
        }
        if (owes) this.dropOwedSku(r.sku);
        // The last payload of a SKU in the body is the one the service holds.
        if (r.hash !== undefined)
          kept.set(r.sku, {
            sku: r.sku,
            hash: r.hash,
            source: r.source,
            price: storedPrice(r.price),
            bytes: parts[i],
          });
      });
      if (kept.size > 0) this.keepPayloads(kept, at);
    });
  }

  /**
   * The body's payloads written in new packs, with the payloads of the packs they leave under half
   * full (./packs.ts), and each SKU's row pointed at its payload. Inside `accepted`'s transaction.
   */
  private keepPayloads(kept: Map<string, KeptRow>, at: string): void {
    const left = new Map<number, number>();
    for (const sku of kept.keys()) {
      const pack = this.placeOf.get(sku)?.pack;
      if (pack !== undefined) left.set(pack, (left.get(pack) ?? 0) + 1);
    }
    // A SKU accepted now has left its pack: it does not move with the others.
    const moving = this.packs.release(left, (sku) => (kept.has(sku) ? undefined : this.placeOf.get(sku)));
    this.packs.write<PackEntry>([...kept.values(), ...moving], (e, p) => {
      const row = kept.get(e.sku);
      if (row === e)
        this.upsertAccepted.run(e.sku, row.hash, at, row.source ?? null, p.pack, p.at, p.length, row.price);
      else this.moveAccepted.run(p.pack, p.at, p.length, e.sku);
    });
  }

  /** Accepted SKUs for which `keep` is false, with their last accepted payload, in SKU order. */
  async *absent(keep: (sku: string) => boolean): AsyncGenerator<{ sku: string; payload: Uint8Array }> {
    // SKUs first (small), then their payloads a page at a time.
    const gone = this.db
      .prepare<{ sku: string }>('SELECT sku FROM accepted ORDER BY sku')
      .all()
      .filter((r) => !keep(r.sku))
      .map((r) => r.sku);
    yield* payloadsByPage(gone, GONE_PAGE, (page) => this.acceptedPayloads(page));
  }

  /**
   * Rows of run `runId` not accepted: owed to --retry-failed until accepted or superseded (a newer
   * payload for the SKU replaces the one owed), whatever runs in between.
   */
  async owe(runId: string, rows: readonly OwedRow[], parts: readonly Uint8Array[]): Promise<void> {
    const bySku = this.db.prepare(
      'INSERT INTO owed (sku, file, row, line, run_id, payload) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(sku) DO UPDATE SET file = excluded.file, row = excluded.row, line = excluded.line, run_id = excluded.run_id, payload = excluded.payload',
    );
    const noSku = this.db.prepare(
      'INSERT INTO owed (sku, file, row, line, run_id, payload) VALUES (NULL, ?, ?, ?, ?, ?)',
    );
    if (rows.length > 0) this.owing = true;
    await this.checkedWrite(() => {
      rows.forEach((r, i) => {
        if (r.sku !== undefined) bySku.run(r.sku, r.file, r.row, r.line, runId, parts[i]);
        else {
          this.dropOwedRow(r.file, r.row);
          noSku.run(r.file, r.row, r.line, runId, parts[i]);
        }
      });
    });
  }

  private dropBySku?: Statement;
  private dropByRow?: Statement;

  /** The SKU's owed row, paid or superseded (its accepted payload is newer, or the feed's matches it). */
  async dropOwed(sku: string): Promise<void> {
    await this.checkedWrite(() => this.dropOwedSku(sku));
  }

  /**
   * Whether a row may be owed: the table held one when first asked, or this run owed one since.
   * Only this run writes the table while it holds the lock; a first upload then deletes nothing
   * per accepted row (0.35 s at 100k rows).
   */
  private mayOwe(): boolean {
    this.owing ??= this.db.prepare('SELECT 1 FROM owed LIMIT 1').get() !== undefined;
    return this.owing;
  }

  private owing?: boolean;

  private dropOwedSku(sku: string): void {
    this.dropBySku ??= this.db.prepare('DELETE FROM owed WHERE sku = ?');
    this.dropBySku.run(sku);
  }

  private dropOwedRow(file: string, row: number): void {
    this.dropByRow ??= this.db.prepare('DELETE FROM owed WHERE sku IS NULL AND file = ? AND row = ?');
    this.dropByRow.run(file, row);
  }

  /** Every row owed to --retry-failed, in feed order. */
  async owedRows(): Promise<RetryRow[]> {
    return this.db
      .prepare<RetryRow>(
        'SELECT file, row, line, sku, payload, run_id AS runId FROM owed ORDER BY file, row, id',
      )
      .all();
  }

  /** The SKUs owed to --retry-failed (few: a run's failures). */
  async owedSkus(): Promise<Set<string>> {
    const rows = this.db.prepare<{ sku: string }>('SELECT sku FROM owed WHERE sku IS NOT NULL').all();
    return new Set(rows.map((r) => r.sku));
  }

  /** Batches sent but never answered (a crash, a timeout), by SKU. */
  async inflight(): Promise<Map<string, InflightRow>> {
    const rows = this.db
      .prepare<InflightRow>('SELECT envelope_id AS envelopeId, type, position, size, sku, hash FROM inflight')
      .all();
    return new Map(rows.map((r) => [r.sku, r]));
  }

  /** Records a batch before it is sent: its id, type and each row's SKU and hash, in order. */
  async recordInflight(
    envelopeId: string,
    type: string,
    rows: readonly { sku?: string; hash?: string }[],
  ): Promise<void> {
    // A row with no SKU or hash cannot be matched again next run: nothing to resume.
    if (rows.some((r) => r.sku === undefined || r.hash === undefined)) return;
    const insert = this.db.prepare(
      'INSERT OR REPLACE INTO inflight (envelope_id, type, position, size, sku, hash) VALUES (?, ?, ?, ?, ?, ?)',
    );
    await this.checkedWrite(() => {
      rows.forEach((r, i) => {
        insert.run(envelopeId, type, i, rows.length, r.sku!, r.hash!);
      });
    });
  }

  async forgetInflight(envelopeIds: readonly string[]): Promise<void> {
    const del = this.db.prepare('DELETE FROM inflight WHERE envelope_id = ?');
    await this.checkedWrite(() => {
      for (const id of envelopeIds) del.run(id);
    });
  }

  /** How many SKUs the service has accepted from this state. */
  async knownCount(): Promise<number> {
    return Number(this.db.prepare<{ n: number }>('SELECT count(*) AS n FROM accepted').get()?.n ?? 0);
  }

  /** The target this file is for, as its meta table says (the key only as its fingerprint). */
  async target(): Promise<{ apiUrl: string; format: string; shard?: string }> {
    const get = this.db.prepare<{ value: string }>('SELECT value FROM meta WHERE key = ?');
    const shard = get.get('shard')?.value;
    return {
      apiUrl: get.get('api_url')?.value ?? '?',
      format: get.get('format')?.value ?? '?',
      ...(shard !== undefined ? { shard } : {}),
    };
  }

  /**
   * Written while the file's check may still run (see `intact`): a run that stops in the guard's
   * read is then in the history; on a damaged file, this write or the check says so.
   */
  async startRun(feed: string, now?: Date): Promise<string> {
    return this.write(() => startRun(this.db, feed, now));
  }

  async finishRun(id: string, end: RunEnd): Promise<void> {
    await this.checkedWrite(() => finishRun(this.db, id, end));
  }

  async listRuns() {
    return listRuns(this.db);
  }

  async runReport(id: string) {
    return runReport(this.db, id);
  }

  /** Every table as rows (`genser state copy`). */
  tables(): StateTables {
    return new SqliteTables(this.db);
  }

  async lastComplete(): Promise<LastComplete | undefined> {
    return lastComplete(this.db);
  }

  async recordComplete(run: LastComplete, now?: Date): Promise<void> {
    await this.checkedWrite(() => recordComplete(this.db, run, now));
  }

  async missingRuns(): Promise<Map<string, number>> {
    return missingRuns(this.db);
  }

  async recordMissing(absent: Iterable<string>, before: ReadonlyMap<string, number>): Promise<void> {
    await this.checkedWrite(() => recordMissing(this.db, absent, before));
  }

  async feedValidators(url: string): Promise<FeedValidators | undefined> {
    const row = this.db
      .prepare<{ etag: string | null; last_modified: string | null; run_id: string }>(
        'SELECT etag, last_modified, run_id FROM feed_validators WHERE url_hash = ?',
      )
      .get(feedUrlHash(url));
    return row && feedValidatorsOf(row);
  }

  async keepFeedValidators(
    runId: string,
    feeds: readonly { url: string; etag?: string; lastModified?: string }[],
  ): Promise<void> {
    // A feed from files keeps none: no write (a commit then can cost a WAL checkpoint, 0.4 s at 100k SKUs).
    if (feeds.length === 0 && !this.db.prepare('SELECT 1 FROM feed_validators LIMIT 1').get()) return;
    const insert = this.db.prepare(
      'INSERT OR REPLACE INTO feed_validators (url_hash, etag, last_modified, run_id) VALUES (?, ?, ?, ?)',
    );
    await this.checkedWrite(() => {
      this.db.exec('DELETE FROM feed_validators');
      for (const f of feeds) insert.run(feedUrlHash(f.url), f.etag ?? null, f.lastModified ?? null, runId);
    });
  }

  /**
   * One write of the run, in one transaction: a full disk is said as such, naming the file
   * (./health.ts); any other failure is thrown as it is.
   */
  private write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn);
    } catch (err) {
      throw fullDisk(this.file, err) ?? err;
    }
  }

  /**
   * After a run that ended well, the copy (when due) is made only of a file this run checked, and
   * the file is sealed when it was checked or found as sealed (./health.ts): a check stopped
   * unfinished leaves both to the next run.
   */
  async close(): Promise<void> {
    await this.check?.stop();
    this.closeNow();
    if (!this.copyOnClose || (await this.check?.verdict) !== undefined) return;
    if (this.check) keepLastGood(this.file);
    sealState(this.file);
  }

  /** Releases the lock (when held) and closes the file; also run when the process exits. */
  private closeNow(): void {
    clearInterval(this.heartbeat);
    this.unhookExit?.();
    if (!this.db.isOpen) return;
    if (this.locked) {
      this.locked = false;
      try {
        this.db
          .prepare('DELETE FROM lock WHERE id = 1 AND pid = ? AND host = ?')
          .run(process.pid, hostname());
      } catch {
        // Left behind, it is taken over once stale (./lock.ts).
      }
    }
    this.db.close();
  }
}

function checkTarget(db: Database, file: string, target: StateTarget): void {
  const entries: [string, string][] = [
    ['api_url', target.apiUrl],
    ['format', target.format],
    ['key_fingerprint', target.keyFingerprint],
    // A shard's file says which shard it is: `genser runs --shard I/N` reads it.
    ...(target.shard ? [['shard', shardName(target.shard)] as [string, string]] : []),
  ];
  const get = db.prepare<{ value: string }>('SELECT value FROM meta WHERE key = ?');
  db.transaction(() => {
    for (const [key, value] of entries) {
      const have = get.get(key)?.value;
      if (have === undefined) db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(key, value);
      else if (have !== value)
        throw new UsageError(
          `the upload state ${file} belongs to another target (its ${key} differs)`,
          'move the file away, or use another state directory with --state DIR',
        );
    }
  });
}

/** Throws what the check found, once it has finished; nothing when none was asked for. */
async function throwDamage(check: StateCheck | undefined): Promise<void> {
  const damage = await check?.verdict;
  if (damage) throw damage;
}
