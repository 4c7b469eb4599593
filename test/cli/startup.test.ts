import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `genser --version` and `--help` are what a cron wrapper or a shell completion calls most: they
 * must not load the HTTP client, the schema validator or a database driver (the start-up target
 * in BENCHMARKS.md). An eager import of undici once made `--version` take three times the CPU.
 */
const root = join(import.meta.dirname, '..', '..');
const heavy = ['undici', 'ajv', 'better-sqlite3', 'pg', 'papaparse', 'iconv-lite'];

function packagesLoaded(args: string[]): string[] {
  const run = spawnSync(
    process.execPath,
    ['--import', join(root, 'test', 'helpers', 'load-log.mjs'), join(root, 'bin', 'genser.js'), ...args],
    { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } },
  );
  expect(run.status, run.stderr).toBe(0);
  const urls = run.stderr.split('\n').filter((l) => l.startsWith('LOAD '));
  expect(urls.length).toBeGreaterThan(5);
  return [
    ...new Set(
      urls
        .filter((u) => u.includes('/node_modules/'))
        .map((u) => u.split('/node_modules/').pop()?.split('/')[0]),
    ),
  ].filter((p): p is string => p !== undefined);
}

describe('start-up', () => {
  it.each([[['--version']], [['--help']], [['upload', '--help']]])(
    'genser %j loads no heavy package',
    (args) => {
      const loaded = packagesLoaded(args);
      expect(loaded).toContain('commander');
      expect(loaded.filter((p) => heavy.includes(p))).toEqual([]);
    },
  );
});
