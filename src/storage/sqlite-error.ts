/**
 * An SQLite failure with the same `code` on both drivers: SQLite's primary result code name
 * (`SQLITE_NOTADB`, `SQLITE_CONSTRAINT`, `SQLITE_BUSY`). better-sqlite3 names extended codes
 * (`SQLITE_CONSTRAINT_PRIMARYKEY`) and node:sqlite gives numbers (`errcode` 26): callers should
 * not have to know which driver ran.
 */
export class SqliteError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'SqliteError';
  }
}

// sqlite3.h, primary result codes 0..28.
const NAMES = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
];

/** The SQLite code name of a driver's error, or undefined when it is not an SQLite error. */
export function sqliteCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as { code?: unknown; errcode?: unknown };
  if (typeof e.errcode === 'number') {
    const name = NAMES[e.errcode & 0xff];
    return name ? `SQLITE_${name}` : 'SQLITE_ERROR';
  }
  if (typeof e.code === 'string' && e.code.startsWith('SQLITE_')) return /^SQLITE_[A-Z]+/.exec(e.code)?.[0];
  return undefined;
}

/** A driver's SQLite error as a SqliteError; anything else (a bad argument, a bug) unchanged. */
export function toSqliteError(err: unknown, sql?: string): unknown {
  if (err instanceof SqliteError) return err;
  const code = sqliteCode(err);
  if (code === undefined) return err;
  const message = (err as Error).message;
  const error = new SqliteError(code, message);
  // The statement helps whoever reads a --debug stack; it is never part of the message.
  if (sql !== undefined) Object.defineProperty(error, 'sql', { value: sql, enumerable: false });
  error.cause = err;
  return error;
}
