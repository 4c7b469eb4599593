import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { IssueCollector } from '../../src/shared/issue-collector.js';
import type { Issue } from '../../src/shared/types.js';
import { genser } from '../helpers/run-cli.js';
import { catalogHeader, catalogRows } from '../helpers/sample-catalog.js';

/** The first problems shown are errors, then warnings (issue #30: a feed's error hidden behind 20 warnings). */

const header = catalogHeader;
const sample = catalogRows;

/** 25 rows without a url (a warning each), the last with a price that is no number (an error). */
function lateError(): string {
  const url = header.indexOf('url');
  const price = header.indexOf('price');
  const rows = sample
    .slice(0, 25)
    .map((r, i) => r.filter((_, k) => k !== url).map((v, k) => (i === 24 && k === price ? 'ask us' : v)));
  const file = join(mkdtempSync(join(tmpdir(), 'genser-errors-first-')), 'feed.csv');
  writeFileSync(file, `${Papa.unparse([header.filter((h) => h !== 'url'), ...rows], { newline: '\n' })}\n`);
  return file;
}

/** The issue lines (not the groups' lines): `  error FILE row N (line M)...`. */
const listed = (stderr: string) =>
  stderr.split('\n').filter((l) => /^ {2}(error|warning) .* row \d+ \(line \d+\)/.test(l));

describe('errors before warnings', () => {
  it('the collector keeps errors first, in order, within its bound', () => {
    const c = new IssueCollector(3);
    const issue = (severity: Issue['severity'], row: number): Issue => ({
      severity,
      code: 'x',
      file: 'f',
      row,
      message: `${severity} ${row}`,
    });
    for (let row = 1; row <= 5; row++) c.add(issue('warning', row));
    c.add(issue('error', 6));
    c.add(issue('error', 7));
    expect(c.issues.map((i) => i.message)).toEqual(['error 6', 'error 7', 'warning 1']);
    expect(c.truncated).toBe(true);
  });

  it('validate and upload list the error of row 25 before the warnings of rows 1-24', async () => {
    const file = lateError();
    const v = await genser(['validate', file]);
    expect(v.code).toBe(1);
    expect(listed(v.stderr)[0]).toMatch(/^ {2}error .* row 25 .*offers\.price/);
    const u = await genser(['upload', file, '--dry-run']);
    expect(u.code).toBe(1);
    const shown = listed(u.stderr);
    expect(shown[0], u.stderr).toMatch(/^ {2}error .* row 25 .*offers\.price/);
    expect(shown.length).toBeLessThanOrEqual(20);
  });
});
