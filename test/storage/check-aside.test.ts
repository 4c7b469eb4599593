import { closeSync, mkdtempSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quickCheckAside } from '../../src/storage/check-aside.js';
import { type Backend, isAvailable, openDatabase, SqliteError } from '../../src/storage/sqlite.js';
import { startIntegrityCheck } from '../../src/upload/state/health.js';

/**
 * The state's quick_check on a thread of its own (docs/nightly.md, "A damaged state"): the same
 * verdicts as the check run in place, on both drivers (one this Node cannot load is skipped).
 */
const dir = mkdtempSync(join(tmpdir(), 'genser-check-aside-'));
let n = 0;

/** A WAL database of a few hundred 4 KiB pages, closed (the WAL folded into the file). */
function database(backend: Backend): string {
  const file = join(dir, `db-${++n}.sqlite`);
  const db = openDatabase(file, { backend, pageSize: 4096 });
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE, body BLOB)');
  const insert = db.prepare('INSERT INTO t (name, body) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run(`name-${i}`, new Uint8Array(500).fill(i & 0xff));
  });
  db.close();
  return file;
}

/** Bytes that are no page at all, over pages 20 to 40 (page 1, the header, stays readable). */
function damage(file: string): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, Buffer.alloc(20 * 4096, 0x5a), 0, 20 * 4096, 20 * 4096);
  closeSync(fd);
}

describe.each<Backend>(['node', 'better-sqlite3'])('quick_check aside on %s', (backend) => {
  const available = isAvailable(backend);

  it.runIf(available)('an intact file: no problems, and no verdict', async () => {
    const file = database(backend);
    expect(await quickCheckAside(file, backend).problems).toEqual([]);
    expect(await startIntegrityCheck(file, backend).verdict).toBeUndefined();
  });

  it.runIf(available)(
    'damaged pages: the check says so, as the usage error naming the file (exit 2)',
    async () => {
      const file = database(backend);
      damage(file);
      const found = await quickCheckAside(file, backend).problems.then(
        (problems) => problems,
        (err: unknown) => err,
      );
      // SQLite answers with the problems it lists, or stops with SQLITE_CORRUPT: never "ok".
      if (Array.isArray(found)) expect(found.length).toBeGreaterThan(0);
      else expect((found as SqliteError).code).toBe('SQLITE_CORRUPT');
      const verdict = await startIntegrityCheck(file, backend).verdict;
      expect(verdict?.exitCode).toBe(2);
      expect(verdict?.message).toContain(`the upload state ${file} cannot be used: it is damaged`);
    },
  );

  it.runIf(available)('a file that is no database: SQLITE_NOTADB, said as such', async () => {
    const file = join(dir, `text-${++n}.sqlite`);
    writeFileSync(file, 'not a database at all, just text'.repeat(200));
    const err = await quickCheckAside(file, backend).problems.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SqliteError);
    expect((err as SqliteError).code).toBe('SQLITE_NOTADB');
    expect((await startIntegrityCheck(file, backend).verdict)?.message).toContain(
      'it is not an SQLite database',
    );
  });
});
