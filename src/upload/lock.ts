import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, realpathSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExitCode, ExitError } from '../shared/errors.js';
import { processAlive } from '../shared/process-alive.js';

/**
 * Two cron runs of the same feed to the same target must not overlap: a lock file in the temp
 * directory, named after the files and the target, holds the running process's pid. A lock whose
 * process is gone (a crash, a reboot) is taken over.
 *
 * The name is made from canonical forms, so two spellings of one feed or one target are one lock:
 * a feed by its real path (symlinks resolved), a URL with its host in lower case, without a
 * default port or trailing slash, and `localhost`, `127.0.0.1` and `[::1]` as one host.
 */
export interface Lock {
  path: string;
  release(): void;
}

/** A lock file with no pid in it yet (made, not yet written) is held for this long. */
export const EMPTY_LOCK_GRACE_MS = 5000;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A URL in canonical form (see above); text that is not a URL is kept as it is. */
export function canonicalUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return text;
  }
  // WHATWG URL parsing already lower-cases the scheme and host and drops a default port.
  const host = LOOPBACK.has(url.hostname) ? 'localhost' : url.hostname;
  const port = url.port ? `:${url.port}` : '';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${host}${port}${path}${url.search}`;
}

/** `POST https://API.example.com:443/x/` -> `POST https://api.example.com/x`. */
export function canonicalTarget(target: string): string {
  const m = /^(\S+\s+)?(\S+:\/\/\S*)$/.exec(target.trim());
  return m ? `${m[1] ?? ''}${canonicalUrl(m[2])}` : target;
}

/** A feed file by its real path; one that cannot be resolved (missing) by its absolute path. */
export function canonicalFile(file: string): string {
  if (file === '-') return file;
  try {
    return realpathSync(file);
  } catch {
    return resolve(file);
  }
}

export function lockPathFor(files: string[], target: string, dir: string = tmpdir()): string {
  const id = createHash('sha256')
    .update(JSON.stringify([files.map(canonicalFile), canonicalTarget(target)]))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `genser-upload-${id}.lock`);
}

/** What a lock file says: a pid, or nothing yet (with the file's age), or gone. */
function readLock(path: string): { pid: number } | { ageMs: number } | 'gone' {
  try {
    const text = readFileSync(path, 'utf8').trim();
    const pid = Number(text);
    if (text !== '' && Number.isInteger(pid) && pid > 0) return { pid };
    return { ageMs: Date.now() - statSync(path).mtimeMs };
  } catch {
    return 'gone';
  }
}

export function acquireLock(path: string): Lock {
  for (let tries = 0; tries < 2; tries++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        path,
        release() {
          try {
            unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const seen = readLock(path);
      if (seen === 'gone') continue;
      if ('pid' in seen && processAlive(seen.pid))
        throw new ExitError(
          ExitCode.locked,
          `another genser upload of the same feed to the same target is running (pid ${seen.pid})`,
          `wait for it to finish; if it is not running, delete ${path}`,
        );
      // Made a moment ago and not written yet: another run is starting, not a stale lock.
      if ('ageMs' in seen && seen.ageMs < EMPTY_LOCK_GRACE_MS)
        throw new ExitError(
          ExitCode.locked,
          'another genser upload of the same feed to the same target is starting',
          `wait for it to finish; if none is running, delete ${path}`,
        );
      try {
        unlinkSync(path);
      } catch {
        // another process took it over first; the next openSync decides
      }
    }
  }
  throw new ExitError(
    ExitCode.locked,
    `could not take the lock ${path}`,
    'another run is starting; try again',
  );
}
