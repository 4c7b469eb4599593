import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { ExitCode } from '../shared/errors.js';
import { processAlive } from '../shared/process-alive.js';
import { type BackendChoice, resolveBackend } from '../storage/drivers.js';
import { openDatabase } from '../storage/sqlite.js';
import type { Check } from './report.js';

/** The checks of this machine: Node, the SQLite backend, the state directory and its locks. */

const SUPPORTED = [
  [20, 18, 1],
  [22, 13, 0],
  [24, 0, 0],
] as const;

export function nodeCheck(version: string = process.versions.node): Check {
  const [major, minor, patch] = version.split('.').map(Number);
  const line = SUPPORTED.find(([m]) => m === major) ?? (major > 24 ? [major, 0, 0] : undefined);
  const ok = line !== undefined && (minor > line[1] || (minor === line[1] && patch >= line[2]));
  return ok
    ? { step: 'node', status: 'pass', detail: `Node ${version}` }
    : {
        step: 'node',
        status: 'fail',
        detail: `Node ${version} is not supported`,
        hint: 'use Node 20.18.1+ (20.x), 22.13+ (22.x) or 24+',
        exitCode: ExitCode.usage,
      };
}

export function sqliteCheck(choice: BackendChoice): Check {
  try {
    const { backend } = resolveBackend(choice);
    const db = openDatabase(':memory:', { backend: choice });
    const version = db.prepare<{ v: string }>('SELECT sqlite_version() AS v').get()?.v;
    db.close();
    return { step: 'sqlite', status: 'pass', detail: `${backend} (SQLite ${version})` };
  } catch (err) {
    const e = err as { message?: string; hint?: string };
    return {
      step: 'sqlite',
      status: 'fail',
      detail: e.message ?? String(err),
      hint: e.hint,
      exitCode: ExitCode.usage,
    };
  }
}

/** The state directory: made if missing, a file written and removed in it. */
export function stateDirCheck(dir: string): Check {
  const probe = join(dir, `.doctor-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    rmSync(probe);
    return { step: 'state', status: 'pass', detail: `${dir} is writable` };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    return {
      step: 'state',
      status: 'fail',
      detail: `${dir} is not writable (${code})`,
      hint: 'choose another with --state DIR or GENSER_STATE_DIR, or fix its permissions',
      exitCode: ExitCode.usage,
    };
  }
}

interface Holder {
  pid: number;
  host: string;
  started: string;
}

/** Each state file's run lock: free, held by a live run, left by a dead one, or held from another host. */
export function lockChecks(dir: string, choice: BackendChoice): Check[] {
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.sqlite'));
  } catch {
    return [];
  }
  if (files.length === 0)
    return [{ step: 'lock', status: 'pass', detail: 'no state yet (the first upload makes it)' }];
  return files.map((file): Check => {
    let held: Holder | undefined;
    try {
      const db = openDatabase(join(dir, file), { backend: choice });
      try {
        held = db.prepare<Holder>('SELECT pid, host, started FROM lock WHERE id = 1').get();
      } finally {
        db.close();
      }
    } catch (err) {
      return { step: 'lock', status: 'warn', detail: `${file}: cannot be read (${(err as Error).message})` };
    }
    if (!held) return { step: 'lock', status: 'pass', detail: `${file}: free` };
    const since = `since ${held.started}`;
    if (held.host !== hostname())
      return {
        step: 'lock',
        status: 'fail',
        detail: `${file}: held by pid ${held.pid} on host ${held.host} ${since}`,
        hint: 'a run on another host holds it; if that run is gone, see docs/nightly.md for freeing the lock',
        exitCode: ExitCode.locked,
      };
    return processAlive(held.pid)
      ? { step: 'lock', status: 'warn', detail: `${file}: a run is in progress (pid ${held.pid}, ${since})` }
      : {
          step: 'lock',
          status: 'pass',
          detail: `${file}: left by pid ${held.pid}, which is gone; the next run takes it over`,
        };
  });
}
