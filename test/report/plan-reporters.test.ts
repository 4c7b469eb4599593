import { describe, expect, it } from 'vitest';
import type { PlanDocument } from '../../src/report/plan-report.js';
import { renderPlanGithub, renderPlanHtml, renderPlanJunit } from '../../src/report/plan-reports.js';
import { junitXsdValid, xpath } from '../helpers/xmllint.js';

/** `genser plan --reporter junit|github|html`: the plan's counts, changes and guards in each format. */

const EVIL = '<b>A&1</b>"|`_*\u001b[31m%\n::error::x';

function plan(extra: Partial<PlanDocument> = {}): PlanDocument {
  return {
    target: 'POST https://api.example.com/collectors/products',
    files: ['feed.csv'],
    rows: 22,
    known: 20,
    created: 4,
    updated: 2,
    unchanged: 15,
    refused: 0,
    outOfStock: 2,
    alreadyOutOfStock: 0,
    fields: { 'offers.price': 2, name: 1 },
    largestPriceMoves: [
      { sku: EVIL, from: 45000, to: 4500, percent: -90 },
      { sku: 'GS-2', from: 100, to: 110, percent: 10 },
    ],
    guards: { decided: true, tripped: [], onGuard: 'refuse', outcome: 'send' },
    lastCompleteRows: 20,
    absentColumns: [],
    full: false,
    ...extra,
  };
}

const trip = {
  guard: 'min-share',
  message: "the feed has 9 rows, 45% of the last complete run's 20: less than --min-share 50% (10)",
  hint: 'a truncated export? if the feed shrank on purpose, run again with --min-share 0',
};
const refusing = (onGuard = 'refuse') =>
  plan({
    guards: {
      decided: true,
      tripped: [trip],
      onGuard,
      outcome: onGuard === 'refuse' ? 'refuse' : 'hold-removals',
    },
  });

describe('genser plan --reporter junit', () => {
  it('is valid JUnit: the counts and changes in system-out, a guard that would refuse a failure', async () => {
    const clean = renderPlanJunit(plan());
    await junitXsdValid(clean);
    expect(await xpath(clean, 'string(/testsuites/@failures)')).toBe('0');
    const out = await xpath(clean, 'string(//testcase[1]/system-out)');
    expect(out).toContain('created 4, updated 2, unchanged 15, out of stock 2, refused 0');
    expect(out).toContain('fields changed: offers.price 2, name 1');
    // The SKU read back by a parser is the SKU (the escape character shown, as XML cannot carry it).
    expect(out).toContain('<b>A&1</b>"|`_*\\u001B[31m%');

    const refused = renderPlanJunit(refusing());
    await junitXsdValid(refused);
    expect(await xpath(refused, 'string(/testsuites/@failures)')).toBe('1');
    expect(await xpath(refused, 'string(//testcase[@name="guard --min-share"]/failure/@message)')).toBe(
      trip.message,
    );
    // Held back under hold-removals, the upload still goes: not a failure.
    const held = renderPlanJunit(refusing('hold-removals'));
    await junitXsdValid(held);
    expect(await xpath(held, 'string(/testsuites/@failures)')).toBe('0');
    expect(held).toContain('guard --min-share (held back removals)');
  });

  it('refused rows are a failure (the plan exits 1)', async () => {
    const xml = renderPlanJunit(plan({ refused: 3 }));
    await junitXsdValid(xml);
    expect(await xpath(xml, 'string(//testcase[@name="invalid rows"]/failure/@message)')).toBe(
      '3 invalid rows would be refused (never sent)',
    );
  });
});

describe('genser plan --reporter github', () => {
  it('an error annotation per guard that would refuse, a notice with the counts, a job summary', () => {
    const out = renderPlanGithub(refusing());
    expect(out.lines[0]).toBe(
      `::error title=genser plan%3A guard --min-share::${trip.message.replace(/%/g, '%25')}%0Ahint: ${trip.hint}`,
    );
    expect(out.lines.at(-1)).toMatch(/^::notice title=genser plan would refuse::POST https:\/\/api/);
    expect(out.lines).toHaveLength(2);
    expect(out.summaryMarkdown).toContain('## genser plan: would refuse');
    expect(out.summaryMarkdown).toContain('| --min-share |');
    // The SKU in the summary's table: no HTML, no table break, no line break.
    expect(out.summaryMarkdown).toContain(
      '&lt;b&gt;A&amp;1&lt;/b&gt;"\\|\\`\\_\\* [31m% ::error::x | 45000 | 4500 | -90% |',
    );
    expect(renderPlanGithub(refusing('hold-removals')).lines[0]).toMatch(/^::warning /);
    expect(renderPlanGithub(plan({ refused: 2 })).lines[0]).toBe(
      "::error title=genser plan%3A invalid rows::2 invalid rows would be refused (never sent)%0Ahint: 'genser validate' with the same feed shows each row and why",
    );
    expect(renderPlanGithub(plan()).lines).toHaveLength(1);
  });
});

describe('genser plan --reporter html', () => {
  it('one page with the counts, fields, price moves and guards, every value escaped', () => {
    const page = renderPlanHtml(refusing(), { generatedAt: '2026-11-26 03:00' });
    expect(page).toContain('<span class="verdict failed">would refuse</span>');
    expect(page).toContain('<dt>created</dt><dd data-count="created">4</dd>');
    expect(page).toContain('<td>offers.price</td><td class="num">2</td>');
    expect(page).toContain('<td>&lt;b&gt;A&amp;1&lt;/b&gt;&quot;|`_*\u001b[31m%\n::error::x</td>');
    expect(page).not.toContain('<b>A');
    expect(page).toContain('<td>--min-share</td>');
    expect(page).toContain('The upload would refuse the run and send nothing (exit 6).');
    expect(page).not.toMatch(/<script/);
    // Self-contained, and no script may run in it.
    expect(page).toContain(`content="default-src 'none'; style-src 'unsafe-inline'">`);
    expect(renderPlanHtml(plan())).toContain('<span class="verdict passed">would send</span>');
  });
});

describe('genser plan reporters: mapping drift', () => {
  it('names the columns (escaped) in each format; a warning unless --strict made it a guard', async () => {
    const drift = plan({ absentColumns: ['seo_title', '<i>x</i>'] });
    const line =
      'mapping: "seo_title", "<i>x</i>" mapped in the last complete run, absent from this feed: the fields they fed would be left out (--strict refuses the upload)';
    const xml = renderPlanJunit(drift);
    await junitXsdValid(xml);
    expect(await xpath(xml, 'string(//testcase[1]/system-out)')).toContain(line);
    const gh = renderPlanGithub(drift);
    expect(gh.lines[0]).toBe(`::warning title=genser plan%3A mapping drift::${line}`);
    expect(gh.summaryMarkdown).toContain('&lt;i&gt;x&lt;/i&gt;');
    expect(renderPlanHtml(drift)).toContain(
      '<p id="drift">mapping: &quot;seo_title&quot;, &quot;&lt;i&gt;x&lt;/i&gt;&quot;',
    );
    const strict = plan({
      absentColumns: ['seo_title'],
      guards: {
        decided: true,
        tripped: [
          { guard: 'strict', message: 'column "seo_title" was mapped', hint: 'run again without --strict' },
        ],
        onGuard: 'refuse',
        outcome: 'refuse',
      },
    });
    expect(renderPlanGithub(strict).lines.filter((l) => l.startsWith('::warning'))).toEqual([]);
  });
});
