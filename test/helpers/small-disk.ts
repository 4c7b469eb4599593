import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const mounted = new Set<string>();

/**
 * A tmpfs of `size` (`64k`, `2m`) for the full-disk tests, or undefined where it cannot be
 * mounted (mounting needs root, and a kernel that lets us); `unmountDisk` removes it, and so does
 * the end of the test file when no test did (one skipped, or filtered out).
 */
export function smallDisk(size: string): string | undefined {
  const mnt = mkdtempSync(join(tmpdir(), 'genser-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mnt], { stdio: 'ignore' });
  } catch {
    rmdirSync(mnt);
    return undefined;
  }
  mounted.add(mnt);
  afterAll(() => unmountDisk(mnt));
  return mnt;
}

export function unmountDisk(mnt: string): void {
  if (!mounted.delete(mnt)) return;
  try {
    execFileSync('umount', [mnt], { stdio: 'pipe' });
  } catch (err) {
    // A file a test left open keeps it busy: detached all the same (the test still fails), so that
    // no mount outlives the run.
    execFileSync('umount', ['--lazy', mnt]);
    rmdirSync(mnt);
    throw err;
  }
  rmdirSync(mnt);
}
