import { spawnSync } from 'node:child_process';

/**
 * Whether a system binary a test needs is here (`npm ci` does not bring it); when it is not, the
 * test is skipped and says so in one line, naming what to install. `.ci/run` installs them all,
 * so CI never skips.
 */
export function hasBinary(
  name: string,
  why: string,
  check: (versionText: string) => boolean = () => true,
): boolean {
  const run = spawnSync(name, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  const found = !run.error && check(`${run.stdout}${run.stderr}`);
  if (!found) process.stderr.write(`skipped: ${why}: no ${name} on this machine\n`);
  return found;
}
