import {
  closeSync,
  mkdtempSync,
  openSync,
  readSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
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

/** Writes `length` bytes of `bytes` at `position`, all of them; a failure said by `tempFileProblem`. */
export function writeTempFile(
  file: TempFile,
  bytes: Buffer,
  length: number,
  position: number,
  why: string,
): void {
  try {
    for (let done = 0; done < length; )
      done += writeSync(file.fd, bytes, done, length - done, position + done);
  } catch (err) {
    throw tempFileProblem(err, why);
  }
}

/** Reads `length` bytes at `position` into `into` from `at`, all of them (a short file is an error). */
export function readTempFile(
  file: TempFile,
  into: Buffer,
  at: number,
  length: number,
  position: number,
  why: string,
): void {
  try {
    for (let done = 0; done < length; ) {
      const got = readSync(file.fd, into, at + done, length - done, position + done);
      if (got === 0) throw Object.assign(new Error('the file ended early'), { code: 'EOF' });
      done += got;
    }
  } catch (err) {
    throw tempFileProblem(err, why);
  }
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
