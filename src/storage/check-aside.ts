import { Worker } from 'node:worker_threads';
import { type Backend, betterSqlite3Module } from './drivers.js';
import { toSqliteError } from './sqlite-error.js';

/**
 * SQLite's quick_check of a database file on a thread of its own, through a connection of its
 * own (WAL: it reads a snapshot while the caller reads and writes): the check reads every page
 * (O(size), 280 ms at 100k products of state), and a nightly run has other work for its main
 * thread meanwhile (docs/nightly.md, "A damaged state"). The thread is given its code as text,
 * not a module file, so it runs the same from dist/ and under the tests' sources.
 */

/** What the thread answers: the check's lines other than `ok`, or the error that stopped it. */
type Answer = { problems: string[] } | { error: { message: string; code?: unknown; errcode?: unknown } };

const CHECK_THREAD = `
const { parentPort, workerData: w } = require('node:worker_threads');
try {
  let db;
  if (w.backend === 'node') {
    // The main thread said node:sqlite's experimental warning already, if at all.
    process.emitWarning = () => {};
    db = new (process.getBuiltinModule('node:sqlite').DatabaseSync)(w.file);
  } else db = new (require(w.module))(w.file, { fileMustExist: true });
  let problems;
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    const rows = db.prepare('PRAGMA quick_check(5)').all();
    problems = rows.map((r) => String(Object.values(r)[0])).filter((v) => v !== 'ok');
  } finally {
    // Closed before the answer: the last connection to close folds the WAL into the file, and
    // that must not be this one after the run has closed and sealed it.
    db.close();
  }
  parentPort.postMessage({ problems });
} catch (err) {
  parentPort.postMessage({ error: { message: String(err && err.message), code: err && err.code, errcode: err && err.errcode } });
}
`;

export interface CheckAside {
  /** The lines of the check that are not `ok` (none: intact); rejects with the SqliteError that stopped it. */
  readonly problems: Promise<string[]>;
  /** Stops the thread if it still runs (a run that ends before it needed the answer). */
  stop(): Promise<void>;
}

export function quickCheckAside(file: string, backend: Backend): CheckAside {
  const module = backend === 'better-sqlite3' ? betterSqlite3Module() : '';
  const worker = new Worker(CHECK_THREAD, { eval: true, workerData: { file, backend, module } });
  let done = false;
  const problems = new Promise<string[]>((resolve, reject) => {
    worker.once('message', (m: Answer) => {
      done = true;
      if ('problems' in m) resolve(m.problems);
      else reject(toSqliteError(Object.assign(new Error(m.error.message), m.error)));
    });
    worker.once('error', (err) => {
      done = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!done) reject(new Error(`the state's check stopped (exit code ${code})`));
      done = true;
    });
  });
  // A rejection nobody awaited (a run stopped before it asked) is not an unhandled one.
  problems.catch(() => undefined);
  return {
    problems,
    async stop() {
      if (!done) await worker.terminate();
    },
  };
}
