import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lateBadFeed } from './late-bad-feed.js';

// End to end: the built bin (npm run build first), as users and CI run it.
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const fixture = (name: string) => join('fixtures', name);

function genser(args: string[], input?: string) {
  return spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    input,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
}

describe('genser validate', () => {
  it('caps the JSON issue list by GENSER_MAX_ERRORS as by --max-errors', () => {
    const r = spawnSync(process.execPath, [bin, 'validate', fixture('catalog-invalid.csv'), '--json'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', GENSER_MAX_ERRORS: '3' },
    });
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.issues).toHaveLength(3);
    expect(report.truncated).toBe(true);
  });

  it('exits 0 on the Quick start catalog, with a one-line verdict on stderr and nothing on stdout', () => {
    const r = genser(['validate', fixture('catalog.csv')]);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/OK: 25 row\(s\), 25 valid, 0 invalid/);
  });

  it('--json: exactly one JSON document on stdout; exit 1 on invalid rows; --report writes the same', () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-validate-'));
    const reportPath = join(dir, 'report.json');
    const r = genser(['validate', fixture('catalog-invalid.csv'), '--json', '--report', reportPath]);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      format: 'standard',
      files: [fixture('catalog-invalid.csv')],
      rows: { total: 10, valid: 1, invalid: 9 },
      truncated: false,
    });
    expect(report.issues[0]).toEqual({
      severity: 'error',
      code: 'type',
      file: fixture('catalog-invalid.csv'),
      row: 2,
      line: 3,
      sku: 'GS-0002',
      column: 'price',
      field: 'offers.price',
      value: '12,000원',
      message: expect.stringMatching(/^offers\.price must be a number; got `12,000원`; declare a thousands/),
      hint: expect.stringMatching(/^declare a thousands/),
    });
    expect(JSON.parse(readFileSync(reportPath, 'utf8'))).toEqual(report);
    expect(r.stderr).not.toMatch(/\u001b\[/);
  });

  it('human output groups by problem and --max-errors caps the detail list', () => {
    const r = genser(['validate', fixture('catalog-invalid.csv'), '--max-errors', '2']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('Problems by kind:');
    expect(r.stderr).toContain('error duplicate_sku sku: 1 (rows 8)');
    expect(r.stderr).toContain('First 2 of 9 issues:');
    expect(r.stderr).toContain('row 2 (line 3), sku GS-0002, column price: offers.price must be a number');
    expect(r.stderr).toMatch(/FAILED: 10 row\(s\), 1 valid, 9 invalid/);
  });

  it('reads stdin, JSON, NDJSON and a ready envelope; legacy with --strict', () => {
    const stdin = genser(
      ['validate', '-', '--input-type', 'csv', '--json'],
      readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'),
    );
    expect(stdin.status).toBe(0);
    expect(JSON.parse(stdin.stdout).rows.total).toBe(25);
    const many = genser(['validate', fixture('catalog.ndjson'), fixture('envelope.json'), '--json']);
    expect(many.status).toBe(0);
    expect(JSON.parse(many.stdout).rows).toEqual({ total: 13, valid: 13, invalid: 0 });
    // catalog.json holds the envelope's products too: duplicates across files are found.
    const dup = genser(['validate', fixture('catalog.json'), fixture('envelope.json'), '--json']);
    expect(dup.status).toBe(1);
    expect(JSON.parse(dup.stdout).issues[0]).toMatchObject({
      code: 'duplicate_sku',
      file: fixture('envelope.json'),
      message: expect.stringContaining(`first seen at row 1 of ${fixture('catalog.json')}`),
    });
    const legacy = genser(['validate', fixture('legacy-catalog.csv'), '--format', 'legacy', '--strict']);
    expect(legacy.status).toBe(0);
  });

  it('usage errors exit 2 with one clear line: missing file, bad mapping file (with its JSON pointer)', () => {
    const missing = genser(['validate', 'nope.csv']);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('genser: input file nope.csv does not exist');
    const dir = mkdtempSync(join(tmpdir(), 'genser-mapping-'));
    const mapping = join(dir, 'm.json');
    writeFileSync(mapping, JSON.stringify({ fields: { price: { column: 'p', thousands: ';' } } }));
    const bad = genser(['validate', fixture('catalog.csv'), '--mapping', mapping]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`genser: mapping file ${mapping}: /fields/price/thousands must be one of`);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });

  it('--json still prints exactly one document when the run fails before it has one', () => {
    const missing = genser(['validate', 'nope.csv', '--json']);
    expect(missing.status).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      error: {
        exitCode: 2,
        message: 'input file nope.csv does not exist',
        hint: 'check the path (use - to read stdin)',
      },
    });
    const flag = genser(['validate', fixture('catalog.csv'), '--json', '--no-such-flag']);
    expect(flag.status).toBe(2);
    expect(JSON.parse(flag.stdout).error.message).toContain("unknown option '--no-such-flag'");
    // A run that stops with its own report (upload, service unreachable) prints that one only.
    const down = spawnSync(
      process.execPath,
      [bin, 'upload', fixture('catalog.csv'), '--api-url', 'http://127.0.0.1:9', '--retries', '0', '--json'],
      { cwd: root, encoding: 'utf8', env: { ...process.env, GENSER_API_KEY: 'k-123' } },
    );
    expect(down.status).toBe(4);
    const doc = JSON.parse(down.stdout);
    expect(doc.stopped.reason).toBe('unavailable');
    expect(doc.error).toBeUndefined();
  });

  // Rows 1 and 2 share a SKU; then good rows up to 8,000; then a byte that is not UTF-8. One
  // run per test: each spawns genser over 8,000 rows.
  const halfWay = () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-validate-'));
    return { dir, file: lateBadFeed(dir, 8_000, (rows) => [rows[0], rows[0]]) };
  };

  it('a feed that stops half-way (a byte that is not UTF-8) still shows the problems of the rows before it, then exits 2', () => {
    const { file } = halfWay();
    const r = genser(['validate', file]);
    expect(r.status).toBe(2);
    const stderr = r.stderr.split('\n');
    const at = (re: RegExp) => stderr.findIndex((l) => re.test(l));
    expect(
      at(/error .*row 2 \(line 3\), sku GS-0001: SKU GS-0001 appears again; first seen at row 1/),
    ).toBeGreaterThan(-1);
    expect(
      at(/^STOPPED after 8,000 row\(s\), 7,999 valid, 1 invalid; the rest of the feed was not read$/),
    ).toBeGreaterThan(at(/SKU GS-0001 appears again/));
    expect(
      at(
        /^genser: .*late-bad\.csv: the text is not valid utf-8 as detected: invalid byte 0xFF .*\(line 8002\)$/,
      ),
    ).toBeGreaterThan(at(/^STOPPED/));
  });

  it('a feed that stops half-way, with --json: still exactly one document on stdout, the error', () => {
    const { file } = halfWay();
    const json = genser(['validate', file, '--json']);
    expect(json.status).toBe(2);
    expect(JSON.parse(json.stdout).error.message).toContain('invalid byte 0xFF');
    expect(json.stderr).not.toContain('STOPPED');
  });

  it('a feed that stops half-way, with --report FILE: the rows read, their problems, and why and where the run stopped', () => {
    const { dir, file } = halfWay();
    const reportFile = join(dir, 'report.json');
    const withReport = genser(['validate', file, '--report', reportFile, '--json']);
    expect(withReport.status).toBe(2);
    expect(JSON.parse(withReport.stdout).error.exitCode).toBe(2);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    expect(report.rows).toEqual({ total: 8000, valid: 7999, invalid: 1 });
    expect(report.issues.map((i: { code: string; row: number }) => [i.code, i.row])).toEqual([
      ['duplicate_sku', 2],
    ]);
    expect(report.stopped).toEqual({
      reason: 'input',
      message: expect.stringMatching(
        /late-bad\.csv: the text is not valid utf-8 as detected: invalid byte 0xFF/,
      ),
      lastRowRead: 8000,
    });
    // Nothing read at all (no such file): the usage error alone, no report.
    const none = join(dir, 'none.json');
    expect(genser(['validate', join(dir, 'missing.csv'), '--report', none]).status).toBe(2);
    expect(existsSync(none)).toBe(false);
  });
});

// Copies of real shop exports (fixtures/real/SOURCE.md says where each comes from), so a clean clone tests them.
const magento = join(root, 'fixtures', 'real', 'magento-configurable-products.csv');

describe('genser validate on the real Magento export', () => {
  it('reads it with fixtures/mappings/magento.json and names what the export lacks', () => {
    const r = genser([
      'validate',
      magento,
      '--mapping',
      fixture('mappings/magento.json'),
      '--json',
      '--max-errors',
      '5',
    ]);
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.rows.total).toBe(1994);
    expect(report.truncated).toBe(true);
    const errors = report.groups.filter((g: { severity: string }) => g.severity === 'error');
    expect(errors.map((g: { field: string; count: number }) => [g.field, g.count]).sort()).toEqual([
      ['offers.availabilityEnds', 1994],
      ['offers.availabilityStarts', 1994],
      ['offers.gtin', 1994],
    ]);
  });
});
