import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/shared/errors.js';
import {
  type Backend,
  isAvailable,
  openDatabase,
  parseBackendChoice,
  SqliteError,
} from '../../src/storage/sqlite.js';

const [major, minor] = process.versions.node.split('.').map(Number);
const hasBuiltIn = major > 22 || (major === 22 && minor >= 13);
const dir = mkdtempSync(join(tmpdir(), 'genser-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const tempFile = () => join(dir, `db-${files++}.sqlite`);

describe('the SQLite backend this Node needs', () => {
  it('is there, and auto picks node:sqlite where Node has it, better-sqlite3 only where not', () => {
    const db = openDatabase();
    try {
      expect(db.backend).toBe(hasBuiltIn ? 'node' : 'better-sqlite3');
    } finally {
      db.close();
    }
    expect(isAvailable('node')).toBe(hasBuiltIn);
  });

  it.runIf(!hasBuiltIn)('names what is missing when node:sqlite is forced on a Node without it', () => {
    expect(() => openDatabase(':memory:', { backend: 'node' })).toThrow(
      /SQLite backend node is not available: Node v20\.\d+\.\d+ has no node:sqlite \(it needs Node >= 22\.13\)/,
    );
  });

  it('parses a backend choice, and refuses an unknown one with the choices', () => {
    expect(parseBackendChoice(undefined)).toBe('auto');
    expect(parseBackendChoice('')).toBe('auto');
    expect(parseBackendChoice(' Node ')).toBe('node');
    expect(parseBackendChoice('better-sqlite3')).toBe('better-sqlite3');
    let error: unknown;
    try {
      parseBackendChoice('sqlite4');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe("unknown SQLite backend 'sqlite4'");
    expect((error as UsageError).hint).toMatch(/auto, node, better-sqlite3/);
  });
});

// The same behaviour on both drivers; a driver this Node cannot load is skipped (and named).
describe.each<Backend>(['node', 'better-sqlite3'])('SQLite on %s', (backend) => {
  const available = isAvailable(backend);
  const open = (file?: string) => openDatabase(file, { backend });

  it.runIf(available)('runs, reads and iterates rows, with positional and named values and blobs', () => {
    const db = open();
    expect(db.backend).toBe(backend);
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, data BLOB, n INTEGER)');
    const insert = db.prepare('INSERT INTO t (name, data, n) VALUES (?, ?, ?)');
    expect(insert.run('a', new Uint8Array([0, 1, 255]), 1)).toEqual({ changes: 1, lastInsertRowid: 1 });
    expect(insert.run('b', null, 2)).toEqual({ changes: 1, lastInsertRowid: 2 });
    db.prepare('INSERT INTO t (name, n) VALUES (:name, :n)').run({ name: 'c', n: 3 });
    const row = db
      .prepare<{ name: string; data: Uint8Array; n: number }>('SELECT * FROM t WHERE id = ?')
      .get(1);
    expect(row?.name).toBe('a');
    expect(row?.data).toBeInstanceOf(Uint8Array);
    expect([...(row?.data ?? [])]).toEqual([0, 1, 255]);
    expect(db.prepare('SELECT * FROM t WHERE id = ?').get(99)).toBeUndefined();
    expect(
      db
        .prepare('SELECT name FROM t ORDER BY id')
        .all()
        .map((r) => r.name),
    ).toEqual(['a', 'b', 'c']);
    expect([...db.prepare<{ n: number }>('SELECT n FROM t ORDER BY id').iterate()].map((r) => r.n)).toEqual([
      1, 2, 3,
    ]);
    expect(db.prepare('UPDATE t SET n = n + 1').run().changes).toBe(3);
    expect(db.pragma('user_version')).toBe(0);
    db.close();
  });

  it.runIf(available)('resets a statement whose iteration stopped early, so writes go on', () => {
    const db = open(tempFile());
    db.exec('CREATE TABLE t (n INTEGER)');
    for (let i = 0; i < 5; i++) db.prepare('INSERT INTO t VALUES (?)').run(i);
    for (const _row of db.prepare('SELECT n FROM t').iterate()) break;
    db.exec('DROP TABLE t');
    expect(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE name = 't'").get()?.n).toBe(0);
    db.close();
  });

  it.runIf(available)('keeps a file in WAL mode, across connections and reopening', () => {
    const file = tempFile();
    const db = open(file);
    expect(db.pragma('journal_mode')).toBe('wal');
    expect(db.pragma('busy_timeout')).toBe(5000);
    db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)');
    db.prepare('INSERT INTO kv VALUES (?, ?)').run('a', '1');
    const other = open(file);
    expect(other.prepare('SELECT v FROM kv WHERE k = ?').get('a')?.v).toBe('1');
    other.close();
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false); // the last close checkpoints the log
    const again = open(file);
    expect(again.prepare('SELECT count(*) AS n FROM kv').get()?.n).toBe(1);
    again.close();
  });

  it.runIf(available)('commits a transaction that returns, rolls back one that throws', () => {
    const db = open();
    db.exec('CREATE TABLE t (n INTEGER)');
    const add = db.prepare('INSERT INTO t VALUES (?)');
    const count = () => db.prepare<{ n: number }>('SELECT count(*) AS n FROM t').get()?.n;
    expect(db.transaction(() => add.run(1).changes)).toBe(1);
    const boom = new Error('boom');
    expect(() =>
      db.transaction(() => {
        add.run(2);
        throw boom;
      }),
    ).toThrow(boom);
    expect(count()).toBe(1);
    expect(db.inTransaction).toBe(false);
    // A promise would leave the transaction open across an await: refused, and rolled back.
    expect(() => db.transaction(() => Promise.resolve(add.run(3)))).toThrow(/must not return a promise/);
    expect(count()).toBe(1);
    db.close();
  });

  it.runIf(available)('nests transactions as savepoints: an inner failure undoes only its own writes', () => {
    const db = open();
    db.exec('CREATE TABLE t (n INTEGER)');
    const add = db.prepare('INSERT INTO t VALUES (?)');
    db.transaction(() => {
      add.run(1);
      expect(db.inTransaction).toBe(true);
      try {
        db.transaction(() => {
          add.run(2);
          throw new Error('inner');
        });
      } catch {
        // the outer transaction goes on
      }
      db.transaction(() => add.run(3));
    });
    expect(
      db
        .prepare<{ n: number }>('SELECT n FROM t ORDER BY n')
        .all()
        .map((r) => r.n),
    ).toEqual([1, 3]);
    db.close();
  });

  it.runIf(available)('reports SQLite failures with the same code on both drivers', () => {
    const db = open();
    db.exec('CREATE TABLE t (k TEXT PRIMARY KEY)');
    db.prepare('INSERT INTO t VALUES (?)').run('a');
    const codeOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        expect(err).toBeInstanceOf(SqliteError);
        return (err as SqliteError).code;
      }
      return 'no error';
    };
    expect(codeOf(() => db.prepare('INSERT INTO t VALUES (?)').run('a'))).toBe('SQLITE_CONSTRAINT');
    expect(codeOf(() => db.exec('SELEC 1'))).toBe('SQLITE_ERROR');
    expect(codeOf(() => db.prepare('SELECT * FROM missing'))).toBe('SQLITE_ERROR');
    db.close();
    db.close(); // twice is fine
    expect(db.isOpen).toBe(false);
    expect(codeOf(() => db.prepare('SELECT 1'))).toBe('SQLITE_MISUSE');

    const notADatabase = tempFile();
    writeFileSync(notADatabase, 'this is not a database'.repeat(100));
    expect(codeOf(() => open(notADatabase))).toBe('SQLITE_NOTADB');
    expect(codeOf(() => open(join(dir, 'no-such-dir', 'x.db')))).toBe('SQLITE_CANTOPEN');
  });

  it.skipIf(available)(`is not loadable on Node ${process.version}: forcing it fails clearly`, () => {
    expect(() => open()).toThrow(new RegExp(`^SQLite backend ${backend} is not available: `));
  });
});

describe('a process using SQLite', () => {
  const built = pathToFileURL(resolve('dist/storage/sqlite.js')).href;
  const run = (code: string) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 15_000 });

  it('shows no node:sqlite ExperimentalWarning, and still shows other warnings', () => {
    const r = run(
      `const { openDatabase } = await import(${JSON.stringify(built)});
       openDatabase().close();
       process.emitWarning('something else', 'ExperimentalWarning');`,
    );
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/SQLite is an experimental feature/);
    expect(r.stderr).toMatch(/ExperimentalWarning: something else/);
  });

  it('closes a database left open when it exits, and exits cleanly', () => {
    const file = tempFile();
    const r = run(
      `const { openDatabase } = await import(${JSON.stringify(built)});
       const db = openDatabase(${JSON.stringify(file)});
       db.exec('CREATE TABLE t (n INTEGER)');
       db.prepare('INSERT INTO t VALUES (1)').run();
       process.exit(0);`,
    );
    expect({ status: r.status, signal: r.signal, stderr: r.stderr }).toEqual({
      status: 0,
      signal: null,
      stderr: '',
    });
    expect(existsSync(`${file}-wal`)).toBe(false);
  });
});
