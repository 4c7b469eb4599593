import {
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { ExitError, fullDiskCode, UsageError } from '../../shared/errors.js';
import { quickCheckAside } from '../../storage/check-aside.js';
import { type Backend, type Database, openDatabase, SqliteError } from '../../storage/sqlite.js';

/**
 * A state file's health (docs/nightly.md, "A damaged state"): a new state is made whole beside
 * its name and linked into place, so a file at a state's name is never legitimately empty; an
 * existing one is checked (SQLite's quick_check) before anything is sent, unless it is exactly as
 * a run that ended well left it and no copy is due; a copy of it is made once a week by a run that
 * ended well, and a damaged file is named with what is wrong and how to recover. Nothing here
 * guesses: an empty or damaged file stops the run.
 */

/** The copy of the last good state, beside the state: `NAME.sqlite.last-good`. */
export function lastGoodFile(file: string): string {
  return `${file}.last-good`;
}

/** Removes a database file and the WAL files SQLite keeps beside it. */
export function removeDatabaseFiles(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
}

/**
 * A new state: made complete (schema migrated) under a temporary name, closed (which folds the
 * WAL into the file), then linked to its name; a run that made it first wins and this copy goes.
 */
export function createStateFile(file: string, build: (db: Database) => void, pageSize: number): void {
  const temp = `${file}.new-${process.pid}`;
  removeDatabaseFiles(temp);
  try {
    const db = openDatabase(temp, { pageSize });
    try {
      build(db);
    } finally {
      db.close();
    }
    try {
      linkSync(temp, file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  } catch (err) {
    throw stateProblem(file, err);
  } finally {
    removeDatabaseFiles(temp);
  }
}

/** An existing state file that is empty: emptied or truncated from outside, never made so by genser. */
export function checkNotEmpty(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (err) {
    throw stateProblem(file, err);
  }
  if (size === 0) throw damaged(file, 'it is empty (0 bytes): it was emptied or truncated');
}

/** A state file's check under way: its verdict (the damage, or undefined), and how to stop it. */
export interface StateCheck {
  verdict: Promise<UsageError | undefined>;
  stop(): Promise<void>;
}

/**
 * SQLite's quick_check (the pages and their structure, not the index contents: O(size)), on a
 * thread of its own (src/storage/check-aside.ts): the damage it finds as the usage error to
 * stop with, undefined when the file is intact. Never rejects.
 */
export function startIntegrityCheck(file: string, backend: Backend): StateCheck {
  const check = quickCheckAside(file, backend);
  const verdict = check.problems.then(
    (problems) =>
      problems.length > 0 ? damaged(file, `it is damaged (SQLite's check says: ${problems[0]})`) : undefined,
    (err: unknown) => stateProblem(file, err),
  );
  return { verdict, stop: check.stop };
}

/**
 * The last good copy is made again once it is this old (a week, less 4 hours so that a weekly run
 * started a little earlier still makes it). The copy rewrites the whole state (2.7 GB at 10M short
 * products, payloads packed; 10 GB before), and the run that makes it reads every page to check it
 * first: with the payloads one a row, 0.3-1.9 s of a 3-3.6 s nightly run at 100k products
 * (BENCHMARKS.md, "The copy's cadence"), more than the run's own writes. Restoring it is followed
 * by a run with --full anyway (what changed since is sent again), so an older copy loses only the
 * run history and --retry-failed's rows since.
 */
export const LAST_GOOD_EVERY_MS = 164 * 3600_000;

/**
 * Keeps a copy of the state, renamed over the last copy, unless that copy is younger than
 * LAST_GOOD_EVERY_MS: called once the run that ended well has closed it (every write of the run
 * in the file, the WAL folded in). A connection of its own holds the write lock and a read
 * snapshot while the file is copied, so nothing can change it meanwhile; the copy is a clone where
 * the file system has them, else a kernel copy (VACUUM INTO rebuilt every table: 1.6 s at 100k
 * SKUs). After the run's own last write, so that no sync of the run waits for the copy's bytes to
 * reach the disk (BENCHMARKS.md, "The nightly case"). Says 'recent' when the copy was young
 * enough, 'failed' when it could not be made (a full disk, or another run already writing): the
 * previous copy stays.
 */
export function keepLastGood(file: string, now = Date.now()): 'copied' | 'recent' | 'failed' {
  const copy = lastGoodFile(file);
  if (!copyDue(file, now)) return 'recent';
  const temp = `${copy}.new-${process.pid}`;
  rmSync(temp, { force: true });
  let db: Database | undefined;
  try {
    const own = openDatabase(file);
    db = own;
    const copied = own.transaction(() => {
      // The snapshot starts here; with the WAL empty the file alone holds all of it.
      own.prepare('SELECT count(*) FROM sqlite_schema').get();
      if (walBytes(file) > 0) return false;
      copyFileSync(file, temp, constants.COPYFILE_FICLONE);
      return true;
    });
    if (!copied) return 'failed';
    renameSync(temp, copy);
    return 'copied';
  } catch {
    rmSync(temp, { force: true });
    return 'failed';
  } finally {
    db?.close();
  }
}

/**
 * Whether a run must check the file before it writes (docs/nightly.md, "A damaged state"): not
 * when it is exactly as the last run that ended well left it (its seal, below, matches and no WAL
 * is beside it) and its copy is not due, since that copy is made only of a file checked in the
 * same run. Reading every page is then left to the run that makes the next copy, at most
 * LAST_GOOD_EVERY_MS on: a nightly state is read whole once a week (10 GiB at 10M products).
 */
export function checkNeeded(file: string, now = Date.now()): boolean {
  if (copyDue(file, now) || walBytes(file) > 0) return true;
  try {
    return readFileSync(sealFile(file), 'utf8') !== `${identity(file)}\n`;
  } catch {
    return true;
  }
}

/** Whether the last good copy is to be made again (none yet, or older than LAST_GOOD_EVERY_MS). */
export function copyDue(file: string, now = Date.now()): boolean {
  return madeAt(lastGoodFile(file)) <= now - LAST_GOOD_EVERY_MS;
}

/** The seal of a state: how the last run that ended well left it, `NAME.sqlite.sealed`. */
export function sealFile(file: string): string {
  return `${file}.sealed`;
}

/**
 * Seals a state a run that ended well has closed (its copy made, if it was due): the file's
 * device, inode, size and modification and change times, which any write changes (the change
 * time cannot be set back), as does a copy or a file renamed over it. A seal that cannot be
 * written is removed: the next run checks.
 */
export function sealState(file: string): void {
  const seal = sealFile(file);
  const temp = `${seal}.new-${process.pid}`;
  try {
    writeFileSync(temp, `${identity(file)}\n`, { mode: 0o600 });
    renameSync(temp, seal);
  } catch {
    for (const f of [temp, seal]) {
      try {
        rmSync(f, { force: true });
      } catch {
        // A seal left behind holds the file as it was before this run's writes: it cannot match.
      }
    }
  }
}

function identity(file: string): string {
  const s = statSync(file, { bigint: true });
  return `${s.dev} ${s.ino} ${s.size} ${s.mtimeNs} ${s.ctimeNs}`;
}

/** When the copy was made (its modification time); 0 when there is none. */
function madeAt(copy: string): number {
  try {
    return statSync(copy).mtimeMs;
  } catch {
    return 0;
  }
}

function walBytes(file: string): number {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
}

/** How to recover from a damaged state: the last good copy when there is one, else start over. */
function recovery(file: string): string {
  const copy = lastGoodFile(file);
  const startOver = `move ${file} away and the next run starts a new state: every product is sent again (as new), and the run history, the products known for --missing and the rows owed to --retry-failed are lost`;
  if (!existsSync(copy)) return startOver;
  const made = statSync(copy).mtime.toISOString();
  return `restore the last good copy, made by a run that ended well (${made}): \`mv ${file} ${file}.damaged && cp ${copy} ${file}\`, then run the next upload once with --full (what changed since that copy is sent again); or ${startOver}`;
}

/** A state file that cannot be used as it is: exit 2, naming it, what is wrong and how to recover. */
export function damaged(file: string, what: string): UsageError {
  return new UsageError(`the upload state ${file} cannot be used: ${what}`, recovery(file));
}

/** Any failure to read a state file (`genser runs`): its own usage error, else one naming the file; a bug stays a bug. */
export function stateFileProblem(file: string, err: unknown): ExitError {
  if (err instanceof ExitError) return err;
  if (err instanceof SqliteError) return stateProblem(file, err);
  throw err;
}

/** Any failure to open or write a state file, as a usage error naming it and what to do. */
export function stateProblem(file: string, err: unknown): UsageError {
  if (err instanceof UsageError) return err;
  const code = err instanceof SqliteError ? err.code : (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'SQLITE_NOTADB') return damaged(file, 'it is not an SQLite database (SQLITE_NOTADB)');
  if (code === 'SQLITE_CORRUPT') return damaged(file, 'it is damaged (SQLITE_CORRUPT)');
  const full = fullDisk(file, err);
  if (full) return full;
  return new UsageError(
    `cannot use the upload state ${file}${code ? ` (${code})` : ''}`,
    'check the permissions of the state directory and its files (--state DIR or GENSER_STATE_DIR)',
  );
}

/**
 * A write of the state that failed for want of space (before or while the run sends), as its
 * own usage error (exit 2) naming the file; undefined for any other failure. A batch whose
 * answer could not be recorded stays in doubt: the next run sends it again with its id.
 */
export function fullDisk(file: string, err: unknown): UsageError | undefined {
  const code = fullDiskCode(err);
  if (code === undefined) return undefined;
  return new UsageError(
    `the disk is full: the upload state ${file} could not be written (${code})`,
    'free some space on that disk (or give --state DIR on another), then run again: the state is as of its last complete write, and batches whose answer it could not record are sent again with their own id (the service does not store them twice)',
  );
}
