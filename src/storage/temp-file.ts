import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fullDiskCode, UsageError } from '../shared/errors.js';

/**
 * A temporary file of a run's own, for what memory no longer keeps (issue 32: memory flat at ten
 * million rows): made in a new directory of TMPDIR, readable by this user only, and unlinked as
 * soon as it is open, so it goes with the process however it ends. Where an open file cannot be
 * unlinked, `path` stays set and `removeTempFile` takes it away.
 */
export interface TempFile {
  fd: number;
  path?: string;
}

/** Opens a new temporary file; its error, as `tempFileProblem` says it, when it cannot. */
export function openTempFile(why: string): TempFile {
  let dir: string | undefined;
  let fd: number | undefined;
  try {
    dir = mkdtempSync(join(tmpdir(), 'genser-'));
    const path = join(dir, 'entries');
    fd = openSync(path, 'w+', 0o600);
    try {
      unlinkSync(path);
      rmdirSync(dir);
    } catch {
      return { fd, path };
    }
    return { fd };
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (dir) rmSync(dir, { recursive: true, force: true });
    throw tempFileProblem(err, why);
  }
}

/** Closes a temporary file and removes what is left of it. */
export function removeTempFile(file: TempFile): void {
  closeSync(file.fd);
  if (file.path) rmSync(join(file.path, '..'), { recursive: true, force: true });
}

/** A read or write of a temporary file that failed, said for the user: a full disk as such. */
export function tempFileProblem(err: unknown, why: string): UsageError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `the temporary directory ${tmpdir()}`;
  if (fullDiskCode(err))
    return new UsageError(
      `the disk of ${where} is full (${code})`,
      `free some space there or set TMPDIR to a larger disk: ${why}`,
    );
  return new UsageError(
    `cannot use a temporary file in ${where}${code ? ` (${code})` : ''}`,
    `set TMPDIR to a writable directory with room: ${why}`,
  );
}
