import { createHash } from 'node:crypto';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExitCode, ExitError } from '../shared/errors.js';

/**
 * Two cron runs of the same feed to the same target must not overlap: a lock file in the temp
 * directory, named after the files and the target, holds the running process's pid. A lock whose
 * process is gone (a crash, a reboot) is taken over.
 */
export interface Lock {
  path: string;
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockPathFor(files: string[], target: string, dir: string = tmpdir()): string {
  const id = createHash('sha256')
    .update(JSON.stringify([files.map((f) => (f === '-' ? f : resolve(f))), target]))
    .digest('hex')
    .slice(0, 16);
  return join(dir, `genser-upload-${id}.lock`);
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
      let pid = Number.NaN;
      try {
        pid = Number(readFileSync(path, 'utf8').trim());
      } catch {
        // removed meanwhile: try again
      }
      if (Number.isInteger(pid) && pid > 0 && alive(pid))
        throw new ExitError(
          ExitCode.locked,
          `another genser upload of the same feed to the same target is running (pid ${pid})`,
          `wait for it to finish; if it is not running, delete ${path}`,
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
