import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Feeds of 4 MiB or more run on two threads; GENSER_THREADS forces either way, so the small
// fixtures can show that both give the same bytes on stdout and the same exit code.
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');

function genser(args: string[], threads: '0' | '1' | '2') {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', GENSER_THREADS: threads },
  });
}

/** Envelope ids are fresh UUIDs per run: the only bytes allowed to differ. */
const sameIds = (s: string) => s.replace(/"id":"[0-9a-f-]{36}"/g, '"id":"ID"');

describe('one thread or two: the same output', () => {
  const cases: [string, string[]][] = [
    ['validate --json', ['validate', 'fixtures/catalog.csv', 'fixtures/catalog-invalid.csv', '--json']],
    ['convert (NDJSON)', ['convert', 'fixtures/catalog-invalid.csv']],
    ['convert --envelope', ['convert', 'fixtures/catalog.csv', '--envelope', '--batch-size', '7']],
    ['convert legacy', ['convert', 'fixtures/legacy-catalog.csv', '--format', 'legacy']],
    ['convert NDJSON input', ['convert', 'fixtures/catalog.ndjson']],
  ];
  for (const [name, args] of cases) {
    it(name, () => {
      const one = genser(args, '0');
      const two = genser(args, '1');
      expect(one.stdout.length).toBeGreaterThan(0);
      expect(two.status).toBe(one.status);
      expect(sameIds(two.stdout)).toBe(sameIds(one.stdout));
    });
  }

  it('reads stdin on two threads', () => {
    const r = spawnSync(process.execPath, [bin, 'validate', '-', '--input-type', 'csv', '--json'], {
      cwd: root,
      encoding: 'utf8',
      input: readFileSync(join(root, 'fixtures', 'catalog.csv')),
      env: { ...process.env, NO_COLOR: '1', GENSER_THREADS: '1' },
    });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).rows).toEqual({ total: 25, valid: 25, invalid: 0 });
  });
});

describe('upload on two threads', () => {
  /** What must not depend on the threads: the counts, the problems, the rows that failed. */
  const outcome = (stdout: string) => {
    const report = JSON.parse(stdout);
    const { rows, invalid, sent, accepted, rejected, failed, batches } = report.summary;
    return { counts: { rows, invalid, sent, accepted, rejected, failed, batches }, issues: report.issues };
  };

  // One test per feed: each starts two uploads, each with an embedded sandbox.
  it.each(['fixtures/catalog.csv', 'fixtures/catalog-invalid.csv'])(
    'delivers the same rows of %s into the embedded sandbox and reports the same problems',
    (file) => {
      const args = ['upload', file, '--sandbox', '--json', '--batch-size', '4'];
      const one = genser(args, '0');
      const two = genser(args, '1');
      expect(two.status, two.stderr).toBe(one.status);
      expect(outcome(two.stdout)).toEqual(outcome(one.stdout));
      expect(outcome(two.stdout).counts.accepted).toBeGreaterThan(0);
    },
  );
});

describe('the worker pool (GENSER_THREADS=2) through the CLI: the same output as one thread', () => {
  it.each([
    ['validate --json', ['validate', 'fixtures/catalog.csv', 'fixtures/catalog-invalid.csv', '--json']],
    ['convert --envelope', ['convert', 'fixtures/catalog.csv', '--envelope', '--batch-size', '7']],
  ])('%s', (_name, args) => {
    const one = genser(args, '0');
    const pool = genser(args, '2');
    expect(one.stdout.length).toBeGreaterThan(0);
    expect(pool.status, pool.stderr).toBe(one.status);
    expect(sameIds(pool.stdout)).toBe(sameIds(one.stdout));
  });

  it('uploads the same rows into the embedded sandbox and reports the same problems', () => {
    const outcome = (stdout: string) => {
      const { summary, issues } = JSON.parse(stdout);
      return { accepted: summary.accepted, invalid: summary.invalid, failed: summary.failed, issues };
    };
    const args = ['upload', 'fixtures/catalog-invalid.csv', '--sandbox', '--json', '--batch-size', '4'];
    const one = genser(args, '0');
    const pool = genser(args, '2');
    expect(pool.status, pool.stderr).toBe(one.status);
    expect(outcome(pool.stdout)).toEqual(outcome(one.stdout));
    expect(outcome(pool.stdout).accepted).toBeGreaterThan(0);
  });
});
