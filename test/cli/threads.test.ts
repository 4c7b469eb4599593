import { execFile, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The CLI as users run it (bin/genser.js and its build, both sides of each comparison alike):
// GENSER_THREADS forces the workers the small fixtures would not get, and the output is the same.
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');

function genser(args: string[], threads: '0' | '1' | '2', input?: Buffer) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    input,
    env: { ...process.env, NO_COLOR: '1', GENSER_THREADS: threads },
  });
}

/** As `genser`, without blocking: two runs of a test go side by side (an upload takes seconds). */
function genserAsync(
  args: string[],
  threads: '0' | '2',
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { ...process.env, NO_COLOR: '1', GENSER_THREADS: threads } },
      // A run killed by a signal has no exit code: -1, never taken for a clean 0.
      (err, stdout, stderr) =>
        resolve({ status: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr }),
    );
  });
}

/** Envelope ids are fresh UUIDs per run: the only bytes allowed to differ. */
const sameIds = (s: string) => s.replace(/"id":"[0-9a-f-]{36}"/g, '"id":"ID"');

describe('--threads through the CLI: the same output on this thread and on workers', () => {
  it.each([
    ['validate --json', ['validate', 'fixtures/catalog.csv', 'fixtures/catalog-invalid.csv', '--json'], '2'],
    ['convert --envelope', ['convert', 'fixtures/catalog.csv', '--envelope', '--batch-size', '7'], '2'],
    ['convert legacy', ['convert', 'fixtures/legacy-catalog.csv', '--format', 'legacy'], '1'],
  ] as const)('%s', (_name, args, threads) => {
    const one = genser([...args], '0');
    const workers = genser([...args], threads);
    expect(one.stdout.length).toBeGreaterThan(0);
    expect(workers.status, workers.stderr).toBe(one.status);
    expect(sameIds(workers.stdout)).toBe(sameIds(one.stdout));
    expect(workers.stderr).not.toContain('not built');
  });

  it('reads stdin on a worker', () => {
    const csv = readFileSync(join(root, 'fixtures', 'catalog.csv'));
    const r = genser(['validate', '-', '--input-type', 'csv', '--json'], '2', csv);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual({ total: 25, valid: 25, invalid: 0 });
  });

  it('uploads the same rows into the embedded sandbox and reports the same problems', async () => {
    const outcome = (stdout: string) => {
      const { summary, issues } = JSON.parse(stdout);
      return { accepted: summary.accepted, invalid: summary.invalid, failed: summary.failed, issues };
    };
    const args = ['upload', 'fixtures/catalog-invalid.csv', '--sandbox', '--json', '--batch-size', '4'];
    const [one, workers] = await Promise.all([genserAsync(args, '0'), genserAsync(args, '2')]);
    expect(workers.status, workers.stderr).toBe(one.status);
    expect(outcome(workers.stdout)).toEqual(outcome(one.stdout));
    expect(outcome(workers.stdout).accepted).toBeGreaterThan(0);
  });
});
