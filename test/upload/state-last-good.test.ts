import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/storage/sqlite.js';
import { keepLastGood, LAST_GOOD_EVERY_MS, lastGoodFile } from '../../src/upload/state/health.js';

/**
 * The last good copy (docs/nightly.md, "A damaged state"): the closed state file copied whole
 * under SQLite's write lock, never a file another connection is changing, and made again only
 * once the last copy is LAST_GOOD_EVERY_MS old.
 */
const dir = mkdtempSync(join(tmpdir(), 'genser-last-good-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stateWith(name: string, rows: number): string {
  const file = join(dir, name);
  const db = openDatabase(file);
  db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY, v TEXT)');
  const insert = db.prepare('INSERT INTO t (n, v) VALUES (?, ?)');
  db.transaction(() => {
    for (let n = 1; n <= rows; n++) insert.run(n, `row ${n} ${'x'.repeat(200)}`);
  });
  db.close();
  return file;
}

function countIn(file: string): number {
  const db = openDatabase(file);
  try {
    return Number(db.prepare<{ n: number }>('SELECT count(*) AS n FROM t').get()!.n);
  } finally {
    db.close();
  }
}

describe('keepLastGood', () => {
  it('copies a closed state whole: the copy opens alone and holds every row', () => {
    const file = stateWith('whole.sqlite', 5000);
    expect(keepLastGood(file)).toBe('copied');
    const copy = lastGoodFile(file);
    // No WAL beside the copy: the file alone is the state.
    expect(existsSync(`${copy}-wal`)).toBe(false);
    expect(countIn(copy)).toBe(5000);
    expect(readdirSync(dir).some((f) => f.includes('.new-'))).toBe(false);
  });

  it('makes no copy while another connection holds writes not yet in the file; the previous copy stays', () => {
    const file = stateWith('busy.sqlite', 100);
    expect(keepLastGood(file)).toBe('copied');
    const later = Date.now() + LAST_GOOD_EVERY_MS + 1000;
    let other: Database | undefined;
    try {
      other = openDatabase(file);
      // Committed into the WAL, not yet folded into the file (the connection stays open).
      other.exec('PRAGMA wal_autocheckpoint = 0');
      other.prepare('INSERT INTO t (n, v) VALUES (?, ?)').run(101, 'late');
      expect(keepLastGood(file, later)).toBe('failed');
    } finally {
      other?.close();
    }
    expect(countIn(lastGoodFile(file))).toBe(100);
    expect(readdirSync(dir).some((f) => f.includes('.new-'))).toBe(false);
    // Once that connection has closed (the WAL folded in), the copy is made again, with its row.
    expect(keepLastGood(file, later)).toBe('copied');
    expect(countIn(lastGoodFile(file))).toBe(101);
  });

  it('keeps a copy younger than LAST_GOOD_EVERY_MS as it is: a nightly state is copied once a week', () => {
    const file = stateWith('hourly.sqlite', 10);
    expect(keepLastGood(file)).toBe('copied');
    const db = openDatabase(file);
    db.prepare('INSERT INTO t (n, v) VALUES (?, ?)').run(11, 'an hour later');
    db.close();
    const made = Date.now();
    expect(keepLastGood(file, made + 24 * 3600_000)).toBe('recent');
    expect(keepLastGood(file, made + 6 * 24 * 3600_000)).toBe('recent');
    expect(countIn(lastGoodFile(file))).toBe(10);
    expect(keepLastGood(file, made + LAST_GOOD_EVERY_MS + 1000)).toBe('copied');
    expect(countIn(lastGoodFile(file))).toBe(11);
  });
});
