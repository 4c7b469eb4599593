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
import { openDatabase } from '../../src/storage/sqlite.js';
import {
  checkNeeded,
  keepLastGood,
  LAST_GOOD_EVERY_MS,
  lastGoodFile,
  sealFile,
  sealState,
} from '../../src/upload/state/health.js';

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
