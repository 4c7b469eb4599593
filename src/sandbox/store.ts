import { type BackendChoice, type Database, MEMORY, openDatabase } from '../storage/sqlite.js';

/**
 * The sandbox's storage: one SQLite database (in memory by default, or a file in WAL mode that
 * survives restarts), through src/storage (node:sqlite, or better-sqlite3 on Node 20).
 * Statements are prepared once; each request's writes run in one transaction.
 */
export type ProductFormat = 'standard' | 'legacy' | 'legacy-content' | 'legacy-filter';
export type ProductStatus = 'pending' | 'applied';

export interface ProductView {
  sku: string;
  format: ProductFormat;
  status: ProductStatus;
  receivedCount: number;
  receivedAt: string;
  appliedAt: string | null;
  /** Legacy stock as last received (applied at once); null when never sent. */
  inStock: boolean | null;
  /** Standard envelopes whose type did not match what the sandbox had (docs/sandbox.md). */
  mismatches: MismatchView[];
  /** The latest data received. */
  data: unknown;
  /** What search sees: the data of the last batch (with immediate stock changes); null before it. */
  applied: unknown;
}

/**
 * `update-unknown`: an `update_product` named a SKU the sandbox never stored (applied as a
 * create); `create-known`: a `create_product` named one it already had (applied as an update).
 */
export type MismatchKind = 'update-unknown' | 'create-known';

export interface MismatchView {
  kind: MismatchKind;
  count: number;
  lastAt: string;
}

export interface StoredResponse {
  fingerprint: string;
  status: number;
  contentType: string | null;
  body: string;
  createdAt: number;
}

export interface OutboxNotice {
  id: number;
  to: string;
  subject: string;
  body: string;
  applied: number;
  createdAt: string;
}

export interface EventView {
  seq: number;
  type: string;
  requestId: string | null;
  idempotencyKey: string | null;
  receivedAt: string;
  body: unknown;
  /** DI and CL only: whether their requestId is one a search answer gave. */
  requestKnown?: boolean;
}

/** Bumped when the tables change; a file from another version is refused with a clear message. */
const SCHEMA_VERSION = 3;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS bodies (
  id INTEGER PRIMARY KEY, json TEXT NOT NULL, items TEXT NOT NULL, received_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS products (
  format TEXT NOT NULL, sku TEXT NOT NULL, status TEXT NOT NULL, received_count INTEGER NOT NULL,
  body INTEGER NOT NULL, idx INTEGER NOT NULL, applied_body INTEGER, applied_idx INTEGER,
  in_stock INTEGER, received_at INTEGER NOT NULL, applied_at INTEGER,
  PRIMARY KEY (format, sku)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT NOT NULL, request_id TEXT,
  idempotency_key TEXT, received_at INTEGER NOT NULL, body TEXT NOT NULL, known_request INTEGER
);
CREATE TABLE IF NOT EXISTS searches (
  request_id TEXT PRIMARY KEY, query TEXT NOT NULL, codes TEXT NOT NULL, created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS events_type ON events (type, seq);
CREATE TABLE IF NOT EXISTS replies (
  scope TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, status INTEGER NOT NULL,
  content_type TEXT, body TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (scope, key)
) WITHOUT ROWID;
-- create_product for a SKU already stored, update_product for one never stored (docs/sandbox.md,
-- "Create and update"): applied as an upsert, and counted here per SKU and kind. Added without a
-- version bump: CREATE IF NOT EXISTS gives a version-3 file the table at its next start.
CREATE TABLE IF NOT EXISTS mismatches (
  sku TEXT NOT NULL, kind TEXT NOT NULL, count INTEGER NOT NULL, last_at INTEGER NOT NULL,
  PRIMARY KEY (sku, kind)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT, to_addr TEXT NOT NULL, subject TEXT NOT NULL,
  body TEXT NOT NULL, applied INTEGER NOT NULL, created_at INTEGER NOT NULL
);
`;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

interface ProductRow {
  format: ProductFormat;
  sku: string;
  status: ProductStatus;
  received_count: number;
  in_stock: number | null;
  received_at: number;
  applied_at: number | null;
}

interface ProductRowWithData extends ProductRow {
  data: string;
  applied_data: string | null;
}

function summary(row: ProductRow): Omit<ProductView, 'data' | 'applied' | 'mismatches'> {
  return {
    sku: row.sku,
    format: row.format,
    status: row.status,
    receivedCount: row.received_count,
    receivedAt: iso(row.received_at)!,
    appliedAt: iso(row.applied_at),
    inStock: row.in_stock === null ? null : row.in_stock === 1,
  };
}

function toView(row: ProductRowWithData, mismatches: MismatchView[]): ProductView {
  const view = { ...summary(row), mismatches };
  const applied =
    row.applied_data === null ? null : (JSON.parse(row.applied_data) as Record<string, unknown>);
  // Legacy stock applies at once: what search sees carries the latest isInStock.
  if (applied && view.inStock !== null) applied.isInStock = view.inStock;
  return { ...view, data: JSON.parse(row.data), applied };
}

/** The JSON path of item `idx` in a stored body: `$."@graph"[3]` or `$[3]`. */
const ITEM_PATH = `CASE WHEN b.items = '' THEN '$' ELSE '$.' || b.items END || '[' || p.idx || ']'`;
const PRODUCT_WITH_DATA = `
  SELECT p.*, json_extract(b.json, ${ITEM_PATH}) AS data,
    (SELECT json_extract(a.json, CASE WHEN a.items = '' THEN '$' ELSE '$.' || a.items END || '[' || p.applied_idx || ']')
       FROM bodies a WHERE a.id = p.applied_body) AS applied_data
  FROM products p JOIN bodies b ON b.id = p.body`;

export class StoreVersionError extends Error {
  constructor(readonly file: string) {
    super(`${file} was written by another version of the sandbox`);
  }
}

export class SandboxStore {
  readonly db: Database;
  private readonly stmt;

  /** `backend` picks the SQLite driver (default: node:sqlite where Node has it). */
  constructor(file = MEMORY, options: { backend?: BackendChoice } = {}) {
    this.db = openDatabase(file, { backend: options.backend });
    let version: unknown;
    let fresh: { n: number } | undefined;
    try {
      version = this.db.pragma('user_version');
      fresh = this.db
        .prepare<{ n: number }>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'")
        .get();
    } catch (err) {
      this.db.close();
      throw err;
    }
    if (fresh && fresh.n > 0 && version !== SCHEMA_VERSION) {
      this.db.close();
      throw new StoreVersionError(file);
    }
    this.db.exec(SCHEMA);
    this.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
    const db = this.db;
    this.stmt = {
      // A body arrives as text or as its UTF-8 bytes (a blob, stored as the same text without a
      // conversion: about half the cost of binding a long string, measured in BENCHMARKS.md).
      insertBody: db.prepare('INSERT INTO bodies (json, items, received_at) VALUES (CAST(? AS TEXT), ?, ?)'),
      // One statement per request over the items' [sku, inStock] pairs: SQLite walks the list
      // (json_each) instead of one call from JS per product, ~3x cheaper (BENCHMARKS.md). Rows
      // are upserted in list order, so a SKU repeated in one request counts twice, the last wins.
      upsertAll: db.prepare(`
        INSERT INTO products (format, sku, status, received_count, body, idx, in_stock, received_at)
        SELECT ?, item.value ->> 0, 'pending', 1, ?, item.key, item.value ->> 1, ?
          FROM json_each(?) AS item WHERE true
        ON CONFLICT (format, sku) DO UPDATE SET
          status = 'pending', received_count = received_count + 1, body = excluded.body,
          idx = excluded.idx, received_at = excluded.received_at,
          in_stock = COALESCE(excluded.in_stock, in_stock)`),
      product: db.prepare(`${PRODUCT_WITH_DATA} WHERE p.sku = ? ORDER BY p.received_at DESC LIMIT 1`),
      productOfFormat: db.prepare(`${PRODUCT_WITH_DATA} WHERE p.sku = ? AND p.format = ?`),
      insertEvent: db.prepare(
        'INSERT INTO events (type, request_id, idempotency_key, received_at, body, known_request) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      insertSearch: db.prepare(
        'INSERT INTO searches (request_id, query, codes, created_at) VALUES (?, ?, ?, ?)',
      ),
      search: db.prepare('SELECT 1 FROM searches WHERE request_id = ?'),
      legacyStock: db.prepare(
        "SELECT sku, in_stock FROM products WHERE format = 'legacy' AND in_stock IS NOT NULL AND sku IN (SELECT value FROM json_each(?))",
      ),
      appliedProducts: db.prepare(`
        SELECT p.format, p.sku, p.in_stock, json_extract(a.json, CASE WHEN a.items = '' THEN '$' ELSE '$.' || a.items END || '[' || p.applied_idx || ']') AS data
          FROM products p JOIN bodies a ON a.id = p.applied_body WHERE p.format IN ('standard', 'legacy')`),
      reply: db.prepare('SELECT * FROM replies WHERE scope = ? AND key = ?'),
      putReply: db.prepare(
        'INSERT OR REPLACE INTO replies (scope, key, fingerprint, status, content_type, body, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      deleteReply: db.prepare('DELETE FROM replies WHERE scope = ? AND key = ?'),
      expireReplies: db.prepare('DELETE FROM replies WHERE created_at <= ?'),
      countPending: db.prepare("SELECT count(*) AS n FROM products WHERE status = 'pending'"),
      applyPending: db.prepare(
        "UPDATE products SET status = 'applied', applied_body = body, applied_idx = idx, applied_at = ? WHERE status = 'pending'",
      ),
      // Bodies no product points at any more (every item re-sent since, or applied over).
      dropUnusedBodies: db.prepare(
        'DELETE FROM bodies WHERE id NOT IN (SELECT body FROM products UNION SELECT applied_body FROM products WHERE applied_body IS NOT NULL)',
      ),
      insertNotice: db.prepare(
        'INSERT INTO outbox (to_addr, subject, body, applied, created_at) VALUES (?, ?, ?, ?, ?)',
      ),
      // Which of a request's SKUs the sandbox already holds in the standard format.
      knownStandard: db.prepare(
        "SELECT sku FROM products WHERE format = 'standard' AND sku IN (SELECT value FROM json_each(?))",
      ),
      noteMismatch: db.prepare(
        'INSERT INTO mismatches (sku, kind, count, last_at) VALUES (?, ?, 1, ?) ON CONFLICT (sku, kind) DO UPDATE SET count = count + 1, last_at = excluded.last_at',
      ),
      mismatchesOf: db.prepare('SELECT kind, count, last_at FROM mismatches WHERE sku = ? ORDER BY kind'),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?'),
      setMeta: db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
    };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn);
  }

  /**
   * Stores a validated request body once, and points each of its items' (format, sku) at it:
   * the latest data per SKU without re-serializing a single product. `itemsKey` is the member
   * holding the items (`"@graph"`), or '' when the body is the array itself. `inStock[i]` is
   * item i's legacy `isInStock` (applied at once), or null. Call inside `transaction`.
   */
  upsertProducts(
    format: ProductFormat,
    json: string | Uint8Array,
    itemsKey: string,
    skus: readonly string[],
    inStock: readonly (boolean | null)[] | null,
    now: number,
  ): void {
    const body = this.stmt.insertBody.run(json, itemsKey, now).lastInsertRowid;
    const items = skus.map((sku, i) => {
      const stock = inStock ? inStock[i] : null;
      return [sku, stock === null ? null : stock ? 1 : 0];
    });
    this.stmt.upsertAll.run(format, body, now, JSON.stringify(items));
  }

  /**
   * Before a standard body's upsert (same transaction): notes each SKU whose envelope type does
   * not match the store, an `update_product` of a SKU never stored or a `create_product` of one
   * already stored. Both are then applied as the upsert they are (docs/sandbox.md).
   */
  noteMismatches(type: 'create_product' | 'update_product', skus: readonly string[], now: number): number {
    const known = new Set(
      (this.stmt.knownStandard.all(JSON.stringify(skus)) as { sku: string }[]).map((r) => r.sku),
    );
    const kind: MismatchKind = type === 'update_product' ? 'update-unknown' : 'create-known';
    let noted = 0;
    for (const sku of new Set(skus)) {
      if (known.has(sku) !== (type === 'create_product')) continue;
      this.stmt.noteMismatch.run(sku, kind, now);
      noted++;
    }
    return noted;
  }

  private mismatchesOf(sku: string): MismatchView[] {
    return (this.stmt.mismatchesOf.all(sku) as { kind: MismatchKind; count: number; last_at: number }[]).map(
      (r) => ({ kind: r.kind, count: r.count, lastAt: iso(r.last_at)! }),
    );
  }

  /** `knownRequest`: for DI and CL, whether a search answer gave their requestId; null for the rest. */
  insertEvent(
    type: string,
    requestId: string | null,
    key: string | null,
    body: string,
    now: number,
    knownRequest: boolean | null = null,
  ): void {
    this.stmt.insertEvent.run(
      type,
      requestId,
      key,
      now,
      body,
      knownRequest === null ? null : knownRequest ? 1 : 0,
    );
  }

  /** A search answer's requestId, with the query and the codes it answered. */
  insertSearch(requestId: string, query: string, codes: readonly string[], now: number): void {
    this.stmt.insertSearch.run(requestId, query, JSON.stringify(codes), now);
  }

  /** Legacy isInStock as last received (it applies at once), for these codes. */
  legacyStock(codes: readonly string[]): Map<string, boolean> {
    const rows = this.stmt.legacyStock.all(JSON.stringify(codes)) as { sku: string; in_stock: number }[];
    return new Map(rows.map((r) => [r.sku, r.in_stock === 1]));
  }

  hasSearch(requestId: string): boolean {
    return this.stmt.search.get(requestId) !== undefined;
  }

  /** What search sees: the applied data of standard and legacy products (legacy stock as received). */
  *appliedProducts(): IterableIterator<{ format: 'standard' | 'legacy'; sku: string; data: unknown }> {
    for (const row of this.stmt.appliedProducts.iterate() as IterableIterator<{
      format: 'standard' | 'legacy';
      sku: string;
      in_stock: number | null;
      data: string | null;
    }>) {
      if (row.data === null) continue;
      const data = JSON.parse(row.data) as Record<string, unknown>;
      if (row.in_stock !== null && data && typeof data === 'object') data.isInStock = row.in_stock === 1;
      yield { format: row.format, sku: row.sku, data };
    }
  }

  getProduct(sku: string, format?: string): ProductView | undefined {
    const row = (format ? this.stmt.productOfFormat.get(sku, format) : this.stmt.product.get(sku)) as
      | ProductRowWithData
      | undefined;
    if (!row) return undefined;
    // Mismatches are of the standard API: other formats have no create/update.
    return toView(row, row.format === 'standard' ? this.mismatchesOf(sku) : []);
  }

  listProducts(
    filter: { status?: string; format?: string },
    limit: number,
    offset: number,
  ): { total: number; items: Omit<ProductView, 'data' | 'applied' | 'mismatches'>[] } {
    const where: string[] = [];
    const args: string[] = [];
    if (filter.status) {
      where.push('status = ?');
      args.push(filter.status);
    }
    if (filter.format) {
      where.push('format = ?');
      args.push(filter.format);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (
      this.db.prepare(`SELECT count(*) AS n FROM products ${clause}`).get(...args) as { n: number }
    ).n;
    const rows = this.db
      .prepare<ProductRow>(
        `SELECT format, sku, status, received_count, in_stock, received_at, applied_at FROM products ${clause} ORDER BY format, sku LIMIT ? OFFSET ?`,
      )
      .all(...args, limit, offset);
    return { total, items: rows.map(summary) };
  }

  listEvents(type: string | undefined, limit: number): { total: number; items: EventView[] } {
    const clause = type ? 'WHERE type = ?' : '';
    const args = type ? [type] : [];
    const total = (
      this.db.prepare(`SELECT count(*) AS n FROM events ${clause}`).get(...args) as { n: number }
    ).n;
    const rows = this.db
      .prepare(`SELECT * FROM events ${clause} ORDER BY seq DESC LIMIT ?`)
      .all(...args, limit) as {
      seq: number;
      type: string;
      request_id: string | null;
      idempotency_key: string | null;
      received_at: number;
      body: string;
      known_request: number | null;
    }[];
    return {
      total,
      items: rows.map((r) => ({
        seq: r.seq,
        type: r.type,
        requestId: r.request_id,
        idempotencyKey: r.idempotency_key,
        receivedAt: iso(r.received_at)!,
        body: JSON.parse(r.body),
        ...(r.known_request === null ? {} : { requestKnown: r.known_request === 1 }),
      })),
    };
  }

  /** A stored reply (idempotency key or standard envelope id), unless older than `expiredBefore`. */
  getReply(scope: string, key: string, expiredBefore: number): StoredResponse | undefined {
    const row = this.stmt.reply.get(scope, key) as
      | { fingerprint: string; status: number; content_type: string | null; body: string; created_at: number }
      | undefined;
    if (!row) return undefined;
    if (row.created_at <= expiredBefore) {
      this.stmt.deleteReply.run(scope, key);
      return undefined;
    }
    return {
      fingerprint: row.fingerprint,
      status: row.status,
      contentType: row.content_type,
      body: row.body,
      createdAt: row.created_at,
    };
  }

  putReply(scope: string, key: string, reply: StoredResponse): void {
    this.stmt.putReply.run(
      scope,
      key,
      reply.fingerprint,
      reply.status,
      reply.contentType,
      reply.body,
      reply.createdAt,
    );
  }

  expireReplies(expiredBefore: number): void {
    this.stmt.expireReplies.run(expiredBefore);
  }

  /** The daily batch: pending -> applied, and a completion notice in the outbox. */
  runBatch(
    now: number,
    to: string,
    describe: (applied: number) => { subject: string; body: string },
  ): number {
    return this.transaction(() => {
      const applied = this.stmt.applyPending.run(now).changes;
      this.stmt.dropUnusedBodies.run();
      const notice = describe(applied);
      this.stmt.insertNotice.run(to, notice.subject, notice.body, applied, now);
      this.stmt.setMeta.run('lastBatchAt', String(now));
      return applied;
    });
  }

  pendingCount(): number {
    return (this.stmt.countPending.get() as { n: number }).n;
  }

  outbox(): OutboxNotice[] {
    const rows = this.db.prepare('SELECT * FROM outbox ORDER BY id').all() as {
      id: number;
      to_addr: string;
      subject: string;
      body: string;
      applied: number;
      created_at: number;
    }[];
    return rows.map((r) => ({
      id: r.id,
      to: r.to_addr,
      subject: r.subject,
      body: r.body,
      applied: r.applied,
      createdAt: iso(r.created_at)!,
    }));
  }

  getMeta(key: string): string | undefined {
    return (this.stmt.getMeta.get(key) as { value: string } | undefined)?.value;
  }

  setMeta(key: string, value: string): void {
    this.stmt.setMeta.run(key, value);
  }

  counts(): {
    products: Record<string, Record<ProductStatus, number>>;
    events: Record<string, number>;
    outbox: number;
    mismatches: Record<MismatchKind, number>;
  } {
    const products: Record<string, Record<ProductStatus, number>> = {};
    for (const r of this.db
      .prepare('SELECT format, status, count(*) AS n FROM products GROUP BY format, status')
      .all() as {
      format: string;
      status: ProductStatus;
      n: number;
    }[]) {
      products[r.format] ??= { pending: 0, applied: 0 };
      products[r.format][r.status] = r.n;
    }
    const events: Record<string, number> = {};
    for (const r of this.db.prepare('SELECT type, count(*) AS n FROM events GROUP BY type').all() as {
      type: string;
      n: number;
    }[]) {
      events[r.type] = r.n;
    }
    const outbox = (this.db.prepare('SELECT count(*) AS n FROM outbox').get() as { n: number }).n;
    const mismatches: Record<MismatchKind, number> = { 'update-unknown': 0, 'create-known': 0 };
    for (const r of this.db.prepare('SELECT kind, sum(count) AS n FROM mismatches GROUP BY kind').all() as {
      kind: MismatchKind;
      n: number;
    }[])
      mismatches[r.kind] = r.n;
    return { products, events, outbox, mismatches };
  }

  reset(): void {
    this.db.exec(
      'DELETE FROM products; DELETE FROM bodies; DELETE FROM events; DELETE FROM replies; DELETE FROM outbox; DELETE FROM meta; DELETE FROM searches; DELETE FROM mismatches;',
    );
  }

  close(): void {
    this.db.close();
  }
}
