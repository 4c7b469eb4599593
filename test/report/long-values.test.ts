import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderGithub, SUMMARY_MAX_BYTES } from '../../src/report/github.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJunit } from '../../src/report/junit.js';
import { toModel } from '../../src/report/model.js';
import { renderJson, writeReports } from '../../src/report/reporters.js';
import { UsageError } from '../../src/shared/errors.js';
import { rowError, validateReportOf } from './samples.js';

const MB = 1024 * 1024;

function hugeSource() {
  const issues = [
    rowError('feed.csv', 1, { value: 'x'.repeat(MB), message: `bad: ${'y'.repeat(MB)}` }),
    rowError('feed.csv', 2, { value: '가'.repeat(100_000), sku: 's'.repeat(5000) }),
  ];
  return {
    command: 'validate' as const,
    report: validateReportOf(issues, { total: 2, valid: 0, invalid: 2 }),
  };
}

describe('long values in the reports people read', () => {
  it('are shortened with their length shown; the JSON report keeps them whole', () => {
    const source = hugeSource();
    const html = renderHtml(toModel(source));
    expect(html.length).toBeLessThan(100_000);
    expect(html).toContain('… (1,048,576 characters)');
    expect(html).toContain('… (100,000 characters)');
    expect(renderJunit(toModel(source)).length).toBeLessThan(100_000);
    expect(renderJson(source).length).toBeGreaterThan(2 * MB);
  });

  it("two 1 MB values make a job summary far under GitHub's 1 MiB limit", () => {
    const out = renderGithub(toModel(hugeSource()));
    expect(Buffer.byteLength(out.summaryMarkdown)).toBeLessThan(20_000);
    expect(out.summaryMarkdown).toContain('(1,048,576 characters)');
    for (const line of out.lines) expect(line.length).toBeLessThan(5000);
  });

  it('a summary with thousands of problem kinds and files is cut under the limit, with a note', () => {
    const issues = Array.from({ length: 6000 }, (_, i) =>
      rowError(`feed-${i}-${'f'.repeat(150)}.csv`, i + 1, { field: `field_${i}_${'z'.repeat(150)}` }),
    );
    const source = {
      command: 'validate' as const,
      report: validateReportOf(issues, { total: 6000, valid: 0, invalid: 6000 }),
    };
    const md = renderGithub(toModel(source)).summaryMarkdown;
    expect(Buffer.byteLength(md)).toBeLessThanOrEqual(SUMMARY_MAX_BYTES);
    expect(md).toContain("stays under GitHub's 1 MiB limit");
    expect(md).toContain('and 5980 more');
  });
});

/** A full disk, for real: a 256 KiB tmpfs (needs root and mount; skipped elsewhere). */
function mountTmpfs(dir: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const disk = mkdtempSync(join(tmpdir(), 'genser-full-disk-'));
const mounted = mountTmpfs(disk);

describe.skipIf(!mounted)('reports on a full disk (needs a tmpfs: root and mount)', () => {
  beforeAll(() => {
    writeFileSync(join(disk, 'report.xml'), 'the previous report');
    // Fill the disk to its last few KiB.
    try {
      writeFileSync(join(disk, 'filler'), Buffer.alloc(256 * 1024));
    } catch {
      // ENOSPC: full, as wanted
    }
  });
  afterAll(() => {
    execFileSync('umount', [disk]);
    rmSync(disk, { recursive: true, force: true });
  });

  it('leave the previous report whole and no temporary file: the failure names the file and the disk', () => {
    const issues = Array.from({ length: 200 }, (_, i) => rowError('feed.csv', i + 1));
    const source = {
      command: 'validate' as const,
      report: validateReportOf(issues, { total: 200, valid: 0, invalid: 200 }),
    };
    const file = join(disk, 'report.xml');
    const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {} };
    let err: unknown;
    try {
      writeReports([{ name: 'junit', file }], source, io);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(`cannot write the junit report to ${file}: ENOSPC`);
    expect((err as UsageError).hint).toContain('the disk is full');
    expect(readFileSync(file, 'utf8')).toBe('the previous report');
    expect(readdirSync(disk).sort()).toEqual(['filler', 'report.xml']);
  });
});
