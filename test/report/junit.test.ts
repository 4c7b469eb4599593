import { describe, expect, it } from 'vitest';
import { renderJunit, xmlAttr, xmlText } from '../../src/report/junit.js';
import { toModel } from '../../src/report/model.js';
import { clearSecrets, registerSecret } from '../../src/shared/secrets.js';
import { junitXsdValid, xpath } from '../helpers/xmllint.js';
import { rowError, uploadReportOf, validateReportOf, validateReportOfFixture } from './samples.js';

function count(xml: string, re: RegExp): number {
  return (xml.match(re) ?? []).length;
}

describe('JUnit XML', () => {
  it('one suite per file, one case per row with problems, one failure per error; valid against the XSD', async () => {
    const report = validateReportOf(
      [
        rowError('a.csv', 7),
        rowError('a.csv', 7, {
          code: 'currency',
          column: 'currency',
          field: 'offers.priceCurrency',
          value: 'WON',
          message: 'bad currency',
          hint: undefined,
        }),
        {
          ...rowError('a.csv', 9),
          severity: 'warning',
          code: 'recommended',
          message: 'gtin is recommended',
          hint: undefined,
        },
        rowError('b.csv', 2),
      ],
      { total: 30, valid: 27, invalid: 3 },
      { files: ['a.csv', 'b.csv', 'clean.csv'] },
    );
    const xml = renderJunit(toModel({ command: 'validate', report }));
    await junitXsdValid(xml, 'basic.xml');
    expect(count(xml, /<testsuite /g)).toBe(3);
    expect(xml).toContain('<testsuites name="genser validate" tests="4" failures="2" errors="0">');
    expect(xml).toContain('<testsuite name="a.csv" tests="2" failures="1" errors="0" skipped="0">');
    expect(xml).toContain('<testcase name="row 7 (line 8) SKU-00007" classname="a.csv">');
    // Two errors of row 7: two failures in one case.
    const row7 = xml.slice(xml.indexOf('row 7 (line 8)'), xml.indexOf('row 9 (line 10)'));
    expect(count(row7, /<failure /g)).toBe(2);
    expect(row7).toContain('type="type offers.price"');
    expect(row7).toContain('column: price\nfield: offers.price\nvalue: 12,000원');
    expect(row7).toContain('hint: declare a thousands separator');
    // The message attribute carries the message without its hint.
    expect(row7).toContain('message="offers.price must be a number; got `12,000원`"');
    // A warning-only row passes, its warning in system-out.
    const row9 = xml.slice(xml.indexOf('row 9 (line 10)'), xml.indexOf('<testsuite name="b.csv"'));
    expect(row9).not.toContain('<failure');
    expect(row9).toContain('<system-out>warning recommended offers.price');
    // A clean file is one passing case.
    expect(xml).toContain('<testsuite name="clean.csv" tests="1" failures="0" errors="0" skipped="0">');
    expect(xml).toContain('<testcase name="no problems in clean.csv" classname="clean.csv">');
  });

  it('the report of fixtures/catalog-invalid.csv: a failing case per invalid row, counts as the report says', async () => {
    const report = await validateReportOfFixture();
    const xml = renderJunit(toModel({ command: 'validate', report }));
    await junitXsdValid(xml, 'fixture.xml');
    const invalid = report.rows.invalid;
    expect(xml).toContain(
      `<testsuites name="genser validate" tests="${invalid}" failures="${invalid}" errors="0">`,
    );
    expect(count(xml, /<failure /g)).toBe(report.counts.errors);
    expect(xml).toContain(
      '<testcase name="row 2 (line 3) GS-0002" classname="fixtures/catalog-invalid.csv">',
    );
  });

  it('escapes markup, quotes and line breaks, and shows the control characters XML 1.0 cannot carry', async () => {
    const nasty = 'a<b>&"c\'\u0001\u0008\u001b\u007f\ud800 tab\tend\r\nnext ]]> </testcase>';
    const report = validateReportOf(
      [
        rowError('we<ird>&"name.csv', 1, {
          sku: nasty,
          value: nasty,
          message: `bad ${nasty}`,
          hint: undefined,
        }),
      ],
      { total: 1, valid: 0, invalid: 1 },
    );
    const xml = renderJunit(toModel({ command: 'validate', report }));
    await junitXsdValid(xml, 'nasty.xml');
    expect(xml).not.toMatch(/[\u0001\u0008\u001b\u007f]/);
    expect(xml).toContain('\\u0001\\u0008\\u001B\\u007F\\uD800');
    expect(xml).toContain('name="we&lt;ird&gt;&amp;&quot;name.csv"');
    expect(xml).not.toContain('</testcase> ');
    // Attribute line breaks survive as references.
    expect(xmlAttr('a\tb\r\nc')).toBe('a&#9;b&#13;&#10;c');
    expect(xmlText('x\ud83d\ude00y')).toBe('x\ud83d\ude00y');
    // xmllint reads the values back as they were (minus the shown characters).
    const sku = await xpath(xml, 'string(//testcase/@name)');
    expect(sku).toBe(
      `row 1 (line 2) a<b>&"c'\\u0001\\u0008\\u001B\\u007F\\uD800 tab\tend\r\nnext ]]> </testcase>`,
    );
  });

  it('a feed with 100k invalid rows: the first N rows as cases, the rest in one summary case', async () => {
    const issues = Array.from({ length: 100_000 }, (_, i) => rowError('big.csv', i + 1));
    const report = validateReportOf(
      issues,
      { total: 100_000, valid: 0, invalid: 100_000 },
      { maxIssues: 100_000 },
    );
    const xml = renderJunit(toModel({ command: 'validate', report }), { maxCases: 500 });
    await junitXsdValid(xml, 'big.xml');
    expect(count(xml, /<testcase /g)).toBe(501);
    expect(xml).toContain('<testsuite name="big.csv" tests="501" failures="501" errors="0" skipped="0">');
    expect(xml).toContain('<testcase name="99500 more rows with problems"');
    expect(xml).toContain('99500 more rows have 99500 problems (99500 errors); only the first 500 rows');
  });

  it('problems counted but not listed (--max-errors) are one more failing case with the kinds counted', async () => {
    const issues = Array.from({ length: 50 }, (_, i) => rowError('a.csv', i + 1));
    const report = validateReportOf(issues, { total: 50, valid: 0, invalid: 50 }, { maxIssues: 20 });
    const xml = renderJunit(toModel({ command: 'validate', report }));
    await junitXsdValid(xml, 'unlisted.xml');
    expect(xml).toContain('<testsuites name="genser validate" tests="21" failures="21" errors="0">');
    expect(xml).toContain('<testsuite name="genser validate: not listed" tests="1" failures="1"');
    expect(xml).toContain('30 more problems (30 errors) were counted but not listed');
    expect(xml).toContain('<system-out>error type offers.price: 50</system-out>');
  });

  it('uploads: rejected rows fail, rows not delivered are errors', async () => {
    const xml = renderJunit(toModel({ command: 'upload', report: uploadReportOf() }));
    await junitXsdValid(xml, 'upload.xml');
    expect(xml).toContain('<testsuite name="shop.csv" tests="5" failures="2" errors="2" skipped="0">');
    expect(xml).toMatch(
      /<testcase name="row 11 \(line 12\) SKU-00011"[^>]*>\n {6}<error type="not_delivered"/,
    );
    expect(xml).toMatch(/<testcase name="row 3 \(line 4\) SKU-00003"[^>]*>\n {6}<failure type="rejected"/);
  });

  it('events: a suite per file and a case per invalid event', async () => {
    const xml = renderJunit(
      toModel({
        command: 'events validate',
        report: {
          files: ['ev.ndjson'],
          events: { total: 3, valid: 1, invalid: 2 },
          issues: [
            {
              severity: 'error',
              code: 'invalid_event',
              file: 'ev.ndjson',
              row: 1,
              line: 1,
              type: 'product_view',
              field: '/sku',
              message: 'required',
            },
            {
              severity: 'error',
              code: 'invalid_event',
              file: 'ev.ndjson',
              row: 3,
              line: 3,
              message: 'bad JSON',
            },
          ],
          problemCount: 2,
          truncated: false,
        },
      }),
    );
    await junitXsdValid(xml, 'events.xml');
    expect(xml).toContain('<testsuite name="ev.ndjson" tests="2" failures="2"');
    expect(xml).toContain('<testcase name="row 1 (line 1) product_view"');
  });

  it('never shows a registered secret', () => {
    registerSecret('sk-live-0123456789');
    try {
      const report = validateReportOf([rowError('a.csv', 1, { value: 'sk-live-0123456789' })], {
        total: 1,
        valid: 0,
        invalid: 1,
      });
      const xml = renderJunit(toModel({ command: 'validate', report }));
      expect(xml).not.toContain('sk-live-0123456789');
      expect(xml).toContain('***');
    } finally {
      clearSecrets();
    }
  });
});
