import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A tmpfs of `size` (`64k`, `2m`) for the full-disk tests, or undefined where it cannot be
 * mounted (mounting needs root, and a kernel that lets us); `unmountDisk` removes it.
 */
export function smallDisk(size: string): string | undefined {
  const mnt = mkdtempSync(join(tmpdir(), 'genser-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', mnt], { stdio: 'ignore' });
    return mnt;
  } catch {
    rmdirSync(mnt);
    return undefined;
  }
}

export function unmountDisk(mnt: string): void {
  execFileSync('umount', [mnt]);
  rmdirSync(mnt);
}
