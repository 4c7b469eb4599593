import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { REPORT_CSS } from '../../src/report/html-assets.js';
import {
  escapeHtml,
  type HtmlValue,
  scriptJson,
  html as tag,
  trusted,
} from '../../src/report/html-template.js';
import { toModel } from '../../src/report/model.js';
import { rowError, uploadReportOf, validateReportOf } from './samples.js';

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const lum = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => {
      const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/** The colour variables of the light (first) and dark (second) :root blocks. */
function themes(): Record<string, string>[] {
  return [...REPORT_CSS.matchAll(/:root \{([^}]*)\}/g)].map((m) =>
    Object.fromEntries([...m[1].matchAll(/--([a-z-]+): (#[0-9a-f]{6})/g)].map((v) => [v[1], v[2]])),
  );
}

const EVIL = '</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)> & "q" \'s\' \u2028';

function embedded(html: string): unknown {
  const m = /<script type="application\/json" id="genser-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no data');
  return JSON.parse(m[1]);
}

describe('HTML report (pure rendering)', () => {
  it('escapes every data value in the page and embeds the data so no value can end its script', () => {
    const report = validateReportOf(
      [
        rowError(`shop${EVIL}.csv`, 1, {
          sku: EVIL,
          column: EVIL,
          value: EVIL,
          message: EVIL,
          hint: undefined,
        }),
      ],
      { total: 1, valid: 0, invalid: 1 },
    );
    const html = renderHtml(toModel({ command: 'validate', report }));
    // Exactly the two scripts of the report, whatever the data says.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!-- <');
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(1)');
    const data = embedded(html) as { problems: { sku: string; value: string }[] };
    expect(data.problems[0].sku).toBe(EVIL);
    expect(data.problems[0].value).toBe(EVIL);
    expect(scriptJson({ a: '</script>' }).text).toBe('{"a":"\\u003c/script>"}');
    expect(escapeHtml(`<a href="x">'&`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
  });

  it('the html tag escapes every value it is given; only its own markup and trusted assets pass', () => {
    const value = `"><img src=x onerror=alert(1)>`;
    const inner = tag`<b>${value}</b>`;
    const list: HtmlValue[] = [value, 7, undefined, false, null, tag`<i>ok</i>`];
    expect(tag`<p title="${value}">${inner}${list}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"><b>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</b>&quot;&gt;&lt;img src=x onerror=alert(1)&gt;7<i>ok</i></p>',
    );
    // A string that looks like markup is still text: only Html values are inserted as they are.
    expect(tag`${'<i>ok</i>'}`.text).toBe('&lt;i&gt;ok&lt;/i&gt;');
    expect(tag`<style>${trusted('a > b {}')}</style>`.text).toBe('<style>a > b {}</style>');
  });

  it('is self-contained: a CSP that forbids loads, no external resource, light and dark styles', () => {
    const html = renderHtml(toModel({ command: 'upload', report: uploadReportOf() }));
    expect(html).toContain(
      `content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"`,
    );
    expect(html).not.toMatch(/\s(src|href)=/);
    expect(html).not.toMatch(/@import|url\(/);
    expect(html).toContain('@media (prefers-color-scheme: dark)');
    expect(html).toContain('<html lang="en">');
  });

  it('has enough contrast in light and dark: text 4.5:1 (AA), bars 3:1 against their track', () => {
    const [light, dark] = themes();
    expect(Object.keys(light)).toHaveLength(15);
    expect(Object.keys(dark)).toEqual(Object.keys(light));
    for (const t of [light, dark]) {
      for (const text of ['fg', 'muted', 'error', 'warning', 'ok', 'accent'])
        for (const ground of ['bg', 'card']) expect(contrast(t[text], t[ground])).toBeGreaterThanOrEqual(4.5);
      for (const bar of ['bar', 'bar-error', 'bar-warning', 'bar-ok', 'bar-other'])
        expect(contrast(t[bar], t.card)).toBeGreaterThanOrEqual(3);
    }
  });

  it('summary counts and charts come from the report; uploads add outcomes and a batch time line', () => {
    const upload = uploadReportOf();
    const html = renderHtml(toModel({ command: 'upload', report: upload }));
    expect(html).toContain('<dd id="count-total" data-count="total">12</dd>');
    expect(html).toContain('<dd id="count-rejected" data-count="rejected" class="bad">1</dd>');
    expect(html).toContain('<h3 id="timeline-h">Batches over time</h3>');
    expect(html.match(/<rect class="/g)).toHaveLength(3);
    expect(html).toContain('the run took 0.9 s.');
    expect(html).toContain('<th scope="col" class="num">start (ms)</th>');
  });

  it('a clean run says so; a stopped run says why', () => {
    const clean = renderHtml(
      toModel({
        command: 'validate',
        report: validateReportOf([], { total: 5, valid: 5, invalid: 0 }, { files: ['ok.csv'] }),
      }),
    );
    expect(clean).toContain('<span class="verdict passed">passed</span>');
    expect(clean).toContain('<p id="no-issues">No issues.</p>');
    const stopped = validateReportOf([], { total: 8, valid: 8, invalid: 0 }, { files: ['x.csv'] });
    stopped.stopped = { reason: 'input', message: 'bytes at offset 9 are not cp949', lastRowRead: 8 };
    const html = renderHtml(toModel({ command: 'validate', report: stopped }));
    expect(html).toContain('<span class="verdict stopped">stopped</span>');
    expect(html).toContain('<strong>Stopped</strong> (input): bytes at offset 9 are not cp949');
  });

  it('more issues than listed: the status and chart say the columns are of the listed ones', () => {
    const issues = Array.from({ length: 30 }, (_, i) => rowError('a.csv', i + 1));
    const model = toModel({
      command: 'validate',
      report: validateReportOf(issues, { total: 30, valid: 0, invalid: 30 }, { maxIssues: 10 }),
    });
    expect(model.unlisted).toBe(20);
    const html = renderHtml(model);
    expect(html).toContain('Of the 10 listed issues.');
    expect((embedded(html) as { unlisted: number }).unlisted).toBe(20);
  });
});
