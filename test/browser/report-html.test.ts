import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { toModel } from '../../src/report/model.js';
import type { UploadReport } from '../../src/report/upload-report.js';
import type { ValidateReport } from '../../src/report/validate-report.js';
import { uploadReportOf, validateReportOfFixture } from '../report/samples.js';
import { HAVE_CHROMIUM, launchChromium, type RunningBrowser, SCREENSHOT_DIR } from './chromium.js';

/**
 * The HTML report opened from file:// in Debian's chromium: the counts it shows are the JSON
 * report's, the table filters and sorts, nothing is logged to the console, light and dark.
 */
let run: RunningBrowser;
let dir: string;
let validateReport: ValidateReport;
let uploadReport: UploadReport;
let validatePage: string;
let uploadPage: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'genser-html-'));
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const browserReady = async () => {
    run = await launchChromium();
    page = await newPage();
  };
  [, validateReport] = await Promise.all([browserReady(), validateReportOfFixture()]);
  uploadReport = uploadReportOf();
  validatePage = join(dir, 'validate.html');
  uploadPage = join(dir, 'upload.html');
  writeFileSync(validatePage, renderHtml(toModel({ command: 'validate', report: validateReport })));
  writeFileSync(uploadPage, renderHtml(toModel({ command: 'upload', report: uploadReport })));
});

afterAll(async () => {
  await run?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Console errors and warnings, page errors and any request off file:// since the last open. */
let problems: string[] = [];
let page: Page;

/** One page for all tests (a new page costs a new browser context), listening for problems. */
async function newPage(): Promise<Page> {
  const p = await run.browser.newPage({ viewport: { width: 1280, height: 900 } });
  p.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  p.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  p.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request: ${r.url()}`);
  });
  return p;
}

/** Opens a report from file:// in the given colour scheme. */
async function open(
  path: string,
  colorScheme: 'light' | 'dark',
): Promise<{ page: Page; problems: string[] }> {
  problems = [];
  await page.emulateMedia({ colorScheme });
  await page.goto(pathToFileURL(path).href);
  return { page, problems };
}

// Page functions run in the browser; the project's types have no DOM (lib: ES2023 only).
declare const document: any, getComputedStyle: any;

/** What the page shows, read in one round trip (the machine is slow and shared). */
interface Shown {
  counts: Record<string, number>;
  status: string;
  /** The issues table's visible rows, cell texts. */
  rows: string[][];
  charts: Record<string, [string, number][]>;
  sort: Record<string, string | null>;
}

function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => {
    const counts: Record<string, number> = {};
    for (const dd of document.querySelectorAll('[data-count]'))
      counts[dd.getAttribute('data-count')!] = Number(dd.textContent!.replace(/,/g, ''));
    const charts: Record<string, [string, number][]> = {};
    for (const ol of document.querySelectorAll('[data-chart]'))
      charts[ol.getAttribute('data-chart')!] = [...ol.querySelectorAll('li')].map((li) => [
        li.querySelector('.label')!.textContent!,
        Number(li.querySelector('.n')!.textContent!.replace(/,/g, '')),
      ]);
    const sort: Record<string, string | null> = {};
    for (const th of document.querySelectorAll('#issues th[data-key]'))
      sort[th.getAttribute('data-key')!] = th.getAttribute('aria-sort');
    return {
      counts,
      status: document.getElementById('issues-status')?.textContent ?? '',
      rows: [...document.querySelectorAll('#issues-body tr')].map((tr) =>
        [...tr.querySelectorAll('td')].map((td) => td.textContent ?? ''),
      ),
      charts,
      sort,
    };
  });
}

/** Cells of the table's columns, by heading key. */
const COLUMNS = ['severity', 'kind', 'file', 'row', 'line', 'sku', 'column', 'value', 'message', 'hint'];
const cells = (s: Shown, key: string) => s.rows.map((r) => r[COLUMNS.indexOf(key)]);

describe.skipIf(!HAVE_CHROMIUM)('HTML report in a browser', () => {
  for (const scheme of ['light', 'dark'] as const) {
    it(`validate report (${scheme}): the counts are the JSON report's, accessible, no console errors`, async () => {
      const { page, problems } = await open(validatePage, scheme);
      const r = validateReport;
      expect(r.rows.invalid).toBeGreaterThan(0);
      const s = await shown(page);
      expect(s.counts).toEqual({
        total: r.rows.total,
        valid: r.rows.valid,
        invalid: r.rows.invalid,
        errors: r.counts.errors,
        warnings: r.counts.warnings,
      });
      expect(s.rows).toHaveLength(r.issues.length);
      expect(cells(s, 'sku')).toEqual(r.issues.map((i) => i.sku ?? ''));
      expect(s.status).toBe(`Showing ${r.issues.length} of ${r.issues.length} listed issues.`);
      // The kind chart counts every group.
      expect(s.charts['chart-kind'].map(([, n]) => n)).toEqual(r.groups.map((g) => g.count));
      const a11y = await page.evaluate(() => ({
        unlabeled: [...document.querySelectorAll('input, select')]
          .filter((e) => !document.querySelector(`label[for="${e.id}"]`))
          .map((e) => e.id),
        scoped: [...document.querySelectorAll('th')].every((th) => th.getAttribute('scope') === 'col'),
        headings: [...document.querySelectorAll('h1, h2')].map((h) => h.textContent),
        bg: getComputedStyle(document.body).backgroundColor,
      }));
      expect(a11y.unlabeled).toEqual([]);
      expect(a11y.scoped).toBe(true);
      expect(a11y.headings).toEqual(['genser validate report failed', 'Summary', 'Problems', 'Issues']);
      // The theme follows the system's.
      expect(a11y.bg).toBe(scheme === 'dark' ? 'rgb(21, 23, 27)' : 'rgb(255, 255, 255)');
      await page.screenshot({
        path: join(SCREENSHOT_DIR, `report-validate-${scheme}.png`),
        fullPage: true,
      });
      expect(problems).toEqual([]);
    });
  }

  it('validate report: the table filters by text, kind and severity, and sorts by any column', async () => {
    const { page, problems } = await open(validatePage, 'light');
    const r = validateReport;
    await page.fill('#filter-text', 'gs-0003');
    let s = await shown(page);
    expect(cells(s, 'sku')).toEqual(['GS-0003']);
    expect(s.status).toBe(`Showing 1 of ${r.issues.length} listed issues.`);
    await page.fill('#filter-text', '');
    await page.selectOption('#filter-kind', 'gtin offers.gtin');
    expect(cells(await shown(page), 'kind')).toEqual(['gtin offers.gtin']);
    await page.selectOption('#filter-kind', '');
    await page.selectOption('#filter-severity', 'warning');
    expect((await shown(page)).rows).toEqual([]);
    await page.selectOption('#filter-severity', '');

    // Text sorts as text; rows as numbers (10 after 9), and a second click reverses.
    await page.click('#issues th[data-key="column"] button');
    s = await shown(page);
    const columns = cells(s, 'column');
    expect(columns).toEqual(
      [...columns].sort((a, b) => a.localeCompare(b, undefined, { numeric: true, sensitivity: 'base' })),
    );
    expect(s.sort.column).toBe('ascending');
    await page.click('#issues th[data-key="row"] button');
    expect(cells(await shown(page), 'row').map(Number)).toEqual(
      r.issues.map((i) => i.row!).sort((a, b) => a - b),
    );
    await page.click('#issues th[data-key="row"] button');
    s = await shown(page);
    expect(s.sort).toMatchObject({ row: 'descending', column: null });
    expect(cells(s, 'row').map(Number)).toEqual(r.issues.map((i) => i.row!).sort((a, b) => b - a));
    expect(s.rows).toHaveLength(r.issues.length);
    expect(problems).toEqual([]);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`upload report (${scheme}): outcomes, batches over time, refused rows in the table`, async () => {
      const { page, problems } = await open(uploadPage, scheme);
      const r = uploadReport;
      let s = await shown(page);
      expect(s.counts).toMatchObject({
        total: r.rows.total,
        invalid: r.rows.invalid,
        warnings: r.counts.warnings,
        accepted: r.summary.accepted,
        rejected: r.summary.rejected,
        failed: r.summary.failed,
      });
      expect(s.charts['chart-outcome']).toEqual([
        ['accepted', r.summary.accepted],
        ['rejected', r.summary.rejected],
        ['not delivered', r.summary.failed],
        ['invalid (not sent)', r.summary.invalid],
      ]);
      const timeline = await page.$$eval('svg.timeline rect', (rects) =>
        rects.map((rect) => [rect.getAttribute('class'), rect.querySelector('title')?.textContent]),
      );
      expect(timeline.map(([c]) => c)).toEqual(r.batches.map((b) => b.status));
      expect(timeline[2][1]).toBe('batch 3: rows 11-12 (2), failed, HTTP 503, 570 ms');
      // Issues of the rows plus the rows the service refused or never got.
      expect(s.rows).toHaveLength(r.issues.length + r.failures.length);
      await page.fill('#filter-text', 'not delivered');
      s = await shown(page);
      expect(cells(s, 'row')).toEqual(['11', '12']);
      await page.fill('#filter-text', '');
      await page.screenshot({ path: join(SCREENSHOT_DIR, `report-upload-${scheme}.png`), fullPage: true });
      expect(problems).toEqual([]);
    });
  }
});
