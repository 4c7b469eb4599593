import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

// End to end through the built bin (npm run build first): what a user sees for bad inputs.
// One run per test: a start of the CLI takes seconds on a loaded machine.
const bin = join(repoRoot, 'bin', 'genser.js');
const tmp = mkdtempSync(join(tmpdir(), 'genser-read-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function validate(name: string, content: string | Buffer) {
  const file = join(tmp, name);
  writeFileSync(file, content);
  const r = spawnSync(process.execPath, [bin, 'validate', file], {
    cwd: repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Two valid products of the sample catalog, as JSON texts. */
const [p1, p2] = (JSON.parse(readFileSync(join(repoRoot, 'fixtures', 'catalog.json'), 'utf8')) as unknown[])
  .slice(0, 2)
  .map((p) => JSON.stringify(p));

describe('genser validate on broken feeds', () => {
  it('a trailing comma is not "OK: 2 valid": exit 1, naming line and column', () => {
    const r = validate('trailing.json', `[${p1},\n${p2},\n]`);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('malformed at line 3, column 1: a value is missing before "]"');
    expect(r.stderr).not.toMatch(/^OK/m);
  });

  it('5,000 levels of nesting: a bad row, the rest read, no crash (was exit 70)', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    const r = validate('deep.json', `[{"sku":"A","name":${deep}},\n${p2}]`);
    expect(r.stderr).not.toContain('Maximum call stack');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/element 1 \(line 1\) nests arrays or objects more than 62 levels deep/);
    expect(r.stderr).toMatch(/1 valid/);
  });

  it('Shift_JIS `A1,ｶﾊﾞﾝ` stops with the --encoding hint instead of turning into Korean', () => {
    const r = validate('kana.csv', iconv.encode('sku,name\nA1,ｶﾊﾞﾝ\n', 'shift_jis'));
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('cannot detect the encoding');
    expect(r.stderr).toMatch(/hint: .*--encoding/);
    expect(r.stderr).not.toContain('cp949 (auto-detected');
  });

  it('a spreadsheet: exit 2 saying it is one and how to export CSV (was "cannot tell the input type")', () => {
    const xlsx = validate('catalog.xlsx', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0]));
    expect(xlsx.status).toBe(2);
    expect(xlsx.stderr).toContain('catalog.xlsx is a spreadsheet (an Excel workbook (.xlsx))');
    expect(xlsx.stderr).toContain('"CSV UTF-8 (Comma delimited) (*.csv)"');
  });
});
