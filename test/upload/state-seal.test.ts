import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitError } from '../../src/shared/errors.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import {
  checkNeeded,
  keepLastGood,
  LAST_GOOD_EVERY_MS,
  lastGoodFile,
  sealFile,
  sealState,
} from '../../src/upload/state/health.js';
import { SCHEMA_VERSION } from '../../src/upload/state/schema.js';
import { SqliteState } from '../../src/upload/state/sqlite-state.js';
import { stateFileName } from '../../src/upload/state/target.js';

/**
 * The seal (docs/nightly.md, "A damaged state"): a run leaves out the state's check only when
 * the file is exactly as the last run that ended well left it and its copy is not due.
 */
const dir = mkdtempSync(join(tmpdir(), 'genser-seal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/**
 * Waits past the file system's clock tick (Linux stamps files from a clock of a few milliseconds):
 * a write in the same tick as the seal could leave the times as they were.
 */
const nextTick = () => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 30);

/** A closed state with its copy made and its seal written, as a run that ended well leaves it. */
function sealed(): string {
  const file = join(dir, `state-${++n}.sqlite`);
  const db = openDatabase(file);
  db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)');
  db.prepare('INSERT INTO t (n, v) VALUES (1, ?)').run('x'.repeat(5000));
  db.close();
  expect(keepLastGood(file)).toBe('copied');
  sealState(file);
  return file;
}

describe('checkNeeded', () => {
  it('is false for a file as its run sealed it, with its copy younger than LAST_GOOD_EVERY_MS', () => {
    const file = sealed();
    expect(checkNeeded(file)).toBe(false);
    expect(checkNeeded(file, Date.now() + LAST_GOOD_EVERY_MS / 2)).toBe(false);
  });

  it('is true once the copy is due, however the file stands', () => {
    const file = sealed();
    expect(checkNeeded(file, Date.now() + LAST_GOOD_EVERY_MS + 1000)).toBe(true);
    rmSync(lastGoodFile(file));
    expect(checkNeeded(file)).toBe(true);
  });

  it("is true without a seal, or with one that is not the file's", () => {
    const file = sealed();
    writeFileSync(sealFile(file), 'garbage\n');
    expect(checkNeeded(file)).toBe(true);
    rmSync(sealFile(file));
    expect(checkNeeded(file)).toBe(true);
  });

  it('is true after a write through SQLite', () => {
    const file = sealed();
    nextTick();
    const db = openDatabase(file);
    db.prepare('INSERT INTO t (n, v) VALUES (2, ?)').run('y');
    db.close();
    expect(checkNeeded(file)).toBe(true);
  });

  it('is true after bytes written in place with the size and modification time put back', () => {
    const file = join(dir, `state-${++n}.sqlite`);
    writeFileSync(file, Buffer.alloc(8192, 1));
    // A whole second, which utimes can put back exactly.
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    copyFileSync(file, lastGoodFile(file));
    sealState(file);
    expect(checkNeeded(file)).toBe(false);
    const before = statSync(file, { bigint: true });
    nextTick();
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('damage'), 0, 6, 4096);
    closeSync(fd);
    utimesSync(file, 1_700_000_000, 1_700_000_000);
    const after = statSync(file, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    // The change time moved, and cannot be set back.
    expect(checkNeeded(file)).toBe(true);
  });

  it('is true for a copy renamed over the file (another inode), even with the same bytes', () => {
    const file = sealed();
    copyFileSync(file, `${file}.other`);
    renameSync(`${file}.other`, file);
    expect(checkNeeded(file)).toBe(true);
  });

  it('is true with a WAL beside the file that holds frames', () => {
    const file = sealed();
    writeFileSync(`${file}-wal`, Buffer.alloc(4096));
    expect(checkNeeded(file)).toBe(true);
    writeFileSync(`${file}-wal`, Buffer.alloc(0));
    expect(checkNeeded(file)).toBe(false);
  });

  it('a seal that cannot be written is removed: the next run checks', () => {
    const file = sealed();
    // A directory where the seal's temporary file would go: the write fails.
    const temp = `${sealFile(file)}.new-${process.pid}`;
    mkdirSync(temp);
    sealState(file);
    expect(() => statSync(sealFile(file))).toThrow();
    expect(checkNeeded(file)).toBe(true);
    rmSync(temp, { recursive: true });
  });
});

describe('a sealed state', () => {
  const target = { apiUrl: 'https://api.example.com', format: 'standard' as const, keyFingerprint: '' };

  it('is checked all the same before a migration changes it', async () => {
    const d = join(dir, `migrate-${++n}`);
    mkdirSync(d);
    await (await SqliteState.open(d, target)).close();
    const file = join(d, stateFileName(target));
    const db = openDatabase(file);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION - 1));
    // The run history with rows in it: a page of cells, none of which the version is read from.
    const insert = db.prepare(
      "INSERT INTO runs (id, started, pid, feed) VALUES (?, '2026-11-27T00:00:00Z', 1, ?)",
    );
    for (let r = 0; r < 40; r++) insert.run(`run${r}`, 'x'.repeat(200));
    const root = Number(
      db.prepare<{ p: number }>("SELECT rootpage AS p FROM sqlite_schema WHERE name = 'runs'").get()!.p,
    );
    const page = Number(db.pragma('page_size'));
    db.close();
    // A page the schema's version is not read from, damaged; then sealed as if a run left it so.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(page / 2, 0xab), 0, page / 2, root * page - page / 2);
    closeSync(fd);
    copyFileSync(file, lastGoodFile(file));
    sealState(file);
    expect(checkNeeded(file)).toBe(false);
    const err = await SqliteState.open(d, target).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).message).toContain("it is damaged (SQLite's check says:");
  });

  it('makes no copy when its check was left out, even once one falls due during the run; it is sealed again', async () => {
    const d = join(dir, `due-${++n}`);
    mkdirSync(d);
    const first = await SqliteState.open(d, target);
    await first.intact();
    await first.keepLastGood();
    await first.close();
    const file = join(d, stateFileName(target));
    expect(checkNeeded(file)).toBe(false);
    const state = await SqliteState.open(d, target);
    await state.lock();
    // The copy falls due while the run goes on.
    const dueAgo = (Date.now() - LAST_GOOD_EVERY_MS) / 1000 - 3600;
    utimesSync(lastGoodFile(file), dueAgo, dueAgo);
    await state.keepLastGood();
    await state.close();
    expect(Math.round(statSync(lastGoodFile(file)).mtimeMs / 1000)).toBe(Math.round(dueAgo));
    // Sealed as this run left it: the next run checks only because the copy is due.
    expect(checkNeeded(file)).toBe(true);
    utimesSync(lastGoodFile(file), new Date(), new Date());
    expect(checkNeeded(file)).toBe(false);
  });
});
