import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getValidator } from '../../src/schema/schemas.js';
import { lateBadFeed } from './late-bad-feed.js';

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

  describe('-o FILE is replaced only by a complete output', () => {
    it('a run that stops on an undecodable byte half-way leaves the previous file untouched, and no temporary file', () => {
      const dir = mkdtempSync(join(tmpdir(), 'genser-convert-'));
      const out = join(dir, 'products.ndjson');
      writeFileSync(out, 'yesterday\n');
      const r = genser(['convert', lateBadFeed(dir, 8_000), '-o', out]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(
        /not valid utf-8 as detected: invalid byte 0xFF at byte offset \d+ \(line 8002\)/,
      );
      expect(r.stderr).toContain(
        'STOPPED after 8,000 row(s), 8,000 valid, 0 invalid; the rest of the feed was not read',
      );
      expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
      expect(readdirSync(dir).sort()).toEqual(['late-bad.csv', 'products.ndjson']);
      // --report FILE says what was read and why the run stopped, though no output was written.
      const report = join(dir, 'report.json');
      expect(genser(['convert', join(dir, 'late-bad.csv'), '-o', out, '--report', report]).status).toBe(2);
      const doc = JSON.parse(readFileSync(report, 'utf8'));
      expect(doc.rows.total).toBe(8000);
      expect(doc.stopped).toMatchObject({ reason: 'input', lastRowRead: 8000 });
      expect(readFileSync(out, 'utf8')).toBe('yesterday\n');
    });

    it('a complete run replaces the file, keeping its permissions', () => {
      const dir = mkdtempSync(join(tmpdir(), 'genser-convert-'));
      const out = join(dir, 'products.ndjson');
      writeFileSync(out, 'yesterday\n');
      chmodSync(out, 0o640);
      const r = genser(['convert', 'fixtures/catalog.csv', '-o', out]);
      expect(r.status).toBe(0);
      expect(readFileSync(out, 'utf8').trim().split('\n')).toHaveLength(25);
      expect(statSync(out).mode & 0o777).toBe(0o640);
      expect(readdirSync(dir)).toEqual(['products.ndjson']);
    });

    it('Ctrl-C or SIGTERM mid-run removes the partial output and leaves FILE as it was', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'genser-convert-'));
      const out = join(dir, 'products.ndjson');
      // stdin stays open: the run is certainly mid-way when the signal comes.
      const child = spawn(process.execPath, [bin, 'convert', '-', '--input-type', 'csv', '-o', out], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1' },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      child.stdin.write(readFileSync(join(root, 'fixtures', 'catalog.csv')));
      const started = Date.now();
      while (!readdirSync(dir).some((f) => f.endsWith('.tmp')) && Date.now() - started < 20_000) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(readdirSync(dir)).toHaveLength(1);
      child.kill('SIGTERM');
      const [code, signal] = await once(child, 'exit');
      expect({ code, signal }).toEqual({ code: null, signal: 'SIGTERM' });
      expect(readdirSync(dir)).toEqual([]);
    });

    it('a device or pipe (-o /dev/stdout) is written directly', () => {
      // Through a shell pipe: /dev/stdout is then a FIFO (Node's own stdio pipes are sockets, which Linux will not open by path).
      const r = spawnSync(
        'sh',
        ['-c', `"${process.execPath}" "${bin}" convert fixtures/catalog.csv -o /dev/stdout | cat`],
        {
          cwd: root,
          encoding: 'utf8',
        },
      );
      expect(r.status).toBe(0);
      expect(r.stdout.trim().split('\n')).toHaveLength(25);
      expect(statSync('/dev/stdout').isFile()).toBe(false);
    });
  });
});
