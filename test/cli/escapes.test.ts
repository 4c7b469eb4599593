import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/terminal.js';
import { printable } from '../../src/shared/printable.js';

// Terminal escapes from the feed (issue 19.5): messages for people show control characters as
// visible escapes; the JSON output keeps the data.

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-escapes-'));

const PWNED = '\x1b[2J\x1b]0;pwned\x07';
/** Anything a terminal interprets, except the newline that ends each line. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('printable', () => {
  it('writes C0, DEL, C1, line breaks and bidi controls as visible escapes', () => {
    expect(printable(PWNED)).toBe('\\x1b[2J\\x1b]0;pwned\\x07');
    expect(printable('a\tb\nc\r\x00\x7f')).toBe('a\\x09b\\x0ac\\x0d\\x00\\x7f');
    expect(printable('\u009b31m \u202egpj.exe')).toBe('\\u009b31m \\u202egpj.exe');
  });

  it('leaves ordinary text alone, Korean and Japanese included', () => {
    const text = '가죽 토트백 | レザー "quoted" \\ back-slash, ~ 100%';
    expect(printable(text)).toBe(text);
  });
});

describe('escapes in messages', () => {
  it('the logger writes one line, escaped', () => {
    let out = '';
    const log = createLogger({}, { write: (s: string) => (out += s) }, {});
    log.error(`bad value ${PWNED}\nsecond line`);
    expect(out).toBe('error: bad value \\x1b[2J\\x1b]0;pwned\\x07\\x0asecond line\n');
  });

  it('validate prints feed values escaped on stderr and keeps them as they are in the JSON report', () => {
    const file = join(dir, 'escapes.csv');
    const header =
      'sku,name,brand_id,brand_name,category_name,description,price,currency,availability,image_urls';
    // The value is quoted, so the tab and newline inside it are data.
    writeFileSync(
      file,
      `${header}\nA-1,n,b,b,c,d,"${PWNED}\t1\n2",KRW,InStock,https://cdn.example.com/a.jpg\n`,
    );
    const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined };
    const reportFile = join(dir, 'escapes-report.json');
    const human = spawnSync(process.execPath, [bin, 'validate', file, '--report', reportFile], {
      encoding: 'utf8',
      env,
    });
    expect(human.status).toBe(1);
    expect(human.stderr).toContain('\\x1b[2J\\x1b]0;pwned\\x07\\x091\\x0a2');
    for (const line of human.stderr.split('\n')) expect(line).not.toMatch(CONTROL);
    const report = JSON.parse(readFileSync(reportFile, 'utf8'));
    const price = report.issues.find((i: { field?: string }) => i.field === 'offers.price');
    expect(price.value).toBe(`${PWNED}\t1\n2`);
  });
});
