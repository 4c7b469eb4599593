import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getValidator } from '../../src/validate/schemas.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');

function genser(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
}

describe('genser convert', () => {
  it('writes NDJSON of standard product nodes to stdout, each valid against the product schema', () => {
    const r = genser(['convert', 'fixtures/catalog.csv']);
    expect(r.status).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(25);
    const validate = getValidator('standard-product');
    for (const line of lines) expect(validate(JSON.parse(line))).toBe(true);
    expect(r.stderr).toContain('wrote 25 product(s)');
  });

  it('--envelope writes request envelopes of --batch-size products to -o FILE', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'genser-convert-')), 'env.ndjson');
    const r = genser([
      'convert',
      'fixtures/catalog.csv',
      '--envelope',
      '--batch-size',
      '10',
      '-o',
      out,
      '--type',
      'update_product',
    ]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    const envelopes = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(envelopes.map((e) => e['@graph'].length)).toEqual([10, 10, 5]);
    expect(new Set(envelopes.map((e) => e.id)).size).toBe(3);
    const validate = getValidator('standard-envelope');
    for (const e of envelopes) {
      expect(validate(e)).toBe(true);
      expect(e.type).toBe('update_product');
    }
  });

  it('legacy: one JSON array', () => {
    const r = genser(['convert', 'fixtures/legacy-catalog.csv', '--format', 'legacy']);
    expect(r.status).toBe(0);
    const array = JSON.parse(r.stdout);
    expect(array).toHaveLength(12);
    const validate = getValidator('legacy-product');
    for (const item of array) expect(validate(item)).toBe(true);
  });

  it('leaves invalid rows out, reports them on stderr and exits 1', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'genser-convert-')), 'out.ndjson');
    const r = genser(['convert', 'fixtures/catalog-invalid.csv', '-o', out]);
    expect(r.status).toBe(1);
    const written = readFileSync(out, 'utf8').trim().split('\n');
    expect(written.map((l) => JSON.parse(l).sku)).toEqual(['GS-0001']);
    expect(r.stderr).toContain('row 3 (line 4), sku GS-0003, column currency');
    expect(r.stderr).toMatch(/FAILED: 10 row\(s\), 1 valid, 9 invalid/);
  });

  it('refuses --json without -o (stdout carries the data): exit 2', () => {
    const r = genser(['convert', 'fixtures/catalog.csv', '--json']);
    expect(r.status).toBe(2);
    // No data went out: stdout holds the one --json document, the error.
    expect(JSON.parse(r.stdout).error.message).toContain('--json needs -o FILE');
    expect(r.stderr).toContain('--json needs -o FILE');
  });
});
