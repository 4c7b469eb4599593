import {
  type Backend,
  type BackendChoice,
  type RawDatabase,
  type RawStatement,
  resolveBackend,
} from './drivers.js';
import { SqliteError, toSqliteError } from './sqlite-error.js';

/**
 * genser's one way to SQLite (the sandbox's store, upload state): a database in a file (WAL) or
 * in memory, statements, transactions, close. The same behaviour on both drivers of
 * src/storage/drivers.ts: errors carry SQLite's result code name (`SQLITE_NOTADB`), blobs come
 * back as Uint8Array, a busy file is waited on for up to 5 s, foreign keys are enforced.
 */
export { type Backend, type BackendChoice, isAvailable, parseBackendChoice } from './drivers.js';
export { SqliteError } from './sqlite-error.js';

export type SqlValue = null | number | bigint | string | Uint8Array;
/** Positional values, or one object of named ones (`:name`, `@name` or `$name` in the SQL). */
export type SqlParams = SqlValue[] | [Record<string, SqlValue>];
export type Row = Record<string, SqlValue>;

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface OpenOptions {
  /** Which driver (default 'auto': node:sqlite where Node has it, else better-sqlite3). */
  backend?: BackendChoice;
  /** Milliseconds to wait for a file another connection holds locked (default 5000). */
  busyTimeoutMs?: number;
  /** Page size in bytes for a new file (SQLite's default 4096); an existing file keeps its own. */
  pageSize?: number;
}

export const MEMORY = ':memory:';

/** Every database still open, closed when the process exits: a native handle left to the exit is what crashes. */
const open = new Set<Database>();
let exitHook = false;

function closeAllAtExit(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const db of open) db.close();
  });
}

export class Statement<R = Row> {
  constructor(
    private readonly raw: RawStatement,
    private readonly sql: string,
  ) {}

  run(...params: SqlParams): RunResult {
    try {
      const r = this.raw.run(...params);
      return { changes: Number(r.changes), lastInsertRowid: r.lastInsertRowid };
    } catch (err) {
      throw toSqliteError(err, this.sql);
    }
  }

  get(...params: SqlParams): R | undefined {
    try {
      return this.raw.get(...params) as R | undefined;
    } catch (err) {
      throw toSqliteError(err, this.sql);
    }
  }

  all(...params: SqlParams): R[] {
    try {
      return this.raw.all(...params) as R[];
    } catch (err) {
      throw toSqliteError(err, this.sql);
    }
  }

  /** Rows one at a time, for results too large to hold; finish (or break) before the next write. */
  *iterate(...params: SqlParams): Generator<R, void, undefined> {
    let rows: IterableIterator<unknown>;
    try {
      rows = this.raw.iterate(...params);
    } catch (err) {
      throw toSqliteError(err, this.sql);
    }
    try {
      while (true) {
        let next: IteratorResult<unknown>;
        try {
          next = rows.next();
        } catch (err) {
          throw toSqliteError(err, this.sql);
        }
        if (next.done) return;
        yield next.value as R;
      }
    } finally {
      // A loop left early resets the statement, so the database is not left with a reader open.
      rows.return?.();
    }
  }
}

export class Database {
  private depth = 0;
  private closed = false;
  private readonly control;

  constructor(
    private readonly raw: RawDatabase,
    readonly backend: Backend,
    readonly file: string,
  ) {
    open.add(this);
    closeAllAtExit();
    this.control = {
      // A write lock from the start: a transaction that reads, then writes, while another
      // process writes would fail with SQLITE_BUSY at once instead of waiting its turn.
      begin: this.prepare('BEGIN IMMEDIATE'),
      commit: this.prepare('COMMIT'),
      rollback: this.prepare('ROLLBACK'),
    };
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  get inTransaction(): boolean {
    return this.depth > 0;
  }

  /** One or more statements without results (schema, PRAGMA settings). */
  exec(sql: string): void {
    this.check();
    try {
      this.raw.exec(sql);
    } catch (err) {
      throw toSqliteError(err, sql);
    }
  }

  prepare<R = Row>(sql: string): Statement<R> {
    this.check();
    try {
      return new Statement<R>(this.raw.prepare(sql), sql);
    } catch (err) {
      throw toSqliteError(err, sql);
    }
  }

  /** The first value a PRAGMA answers (`pragma('journal_mode')` -> 'wal'), or undefined. */
  pragma(text: string): SqlValue | undefined {
    const row = this.prepare(`PRAGMA ${text}`).get();
    return row ? Object.values(row)[0] : undefined;
  }

  /**
   * Runs `fn` in a transaction: committed when it returns, rolled back when it throws. Nested
   * calls are savepoints, so an inner failure that the outer function catches undoes only its
   * own writes. `fn` must be synchronous: a transaction cannot stay open across an await.
   */
  transaction<T>(fn: () => T): T {
    this.check();
    const outer = this.depth === 0;
    const savepoint = `genser_${this.depth}`;
    if (outer) this.control.begin.run();
    else this.exec(`SAVEPOINT ${savepoint}`);
    this.depth++;
    let result: T;
    try {
      result = fn();
      if (result instanceof Promise) throw new TypeError('a transaction function must not return a promise');
    } catch (err) {
      this.depth--;
      this.undo(outer, savepoint);
      throw err;
    }
    this.depth--;
    try {
      if (outer) this.control.commit.run();
      else this.exec(`RELEASE ${savepoint}`);
    } catch (err) {
      this.undo(outer, savepoint);
      throw err;
    }
    return result;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    open.delete(this);
    this.raw.close();
  }

  private undo(outer: boolean, savepoint: string): void {
    try {
      if (outer) this.control.rollback.run();
      else this.raw.exec(`ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
    } catch {
      // SQLite already rolled back (some errors end the transaction themselves): nothing to undo.
    }
  }

  private check(): void {
    if (this.closed) throw new SqliteError('SQLITE_MISUSE', `the database ${this.file} is closed`);
  }
}

/**
 * Opens (and creates) the database `file`, or a private in-memory one for ':memory:' or ''.
 * A file is put in WAL mode: readers do not block the writer, and a crash loses at most the last
 * transaction.
 */
export function openDatabase(file: string = MEMORY, options: OpenOptions = {}): Database {
  const { backend, open } = resolveBackend(options.backend);
  let raw: RawDatabase;
  try {
    raw = open(file);
  } catch (err) {
    const error = toSqliteError(err);
    // better-sqlite3 says a missing directory with a TypeError: the same failure as node:sqlite's.
    throw error instanceof SqliteError ? error : new SqliteError('SQLITE_CANTOPEN', (err as Error).message);
  }
  const db = new Database(raw, backend, file === '' ? MEMORY : file);
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000))}`);
    db.exec('PRAGMA foreign_keys = ON');
    // Only takes effect before the first table is made (and before WAL mode, which fixes it).
    if (options.pageSize !== undefined) db.exec(`PRAGMA page_size = ${Math.trunc(options.pageSize)}`);
    if (file !== MEMORY && file !== '') {
      db.pragma('journal_mode = WAL');
      db.exec('PRAGMA synchronous = NORMAL');
    }
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}
