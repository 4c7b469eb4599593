import { redact } from '../shared/secrets.js';
import type { BatchOutcome } from '../upload/types.js';
import { REPORT_CSS, REPORT_JS } from './html-assets.js';
import { type Html, html, scriptJson, trusted } from './html-template.js';
import { COMMAND_TITLES, columnsOf, kindLabel, type ReportModel } from './model.js';

/**
 * The HTML report: one self-contained file (inline style and script, a CSP that forbids any
 * load) that works from file://. The summary and charts are static HTML; the issues table is
 * built by the script from the report's data, embedded as JSON. Every piece of markup comes from
 * the `html` tag (html-template.ts), which escapes whatever value it is given.
 */
export interface HtmlOptions {
  /** Shown under the title, e.g. the run's time; omitted when absent (the output stays reproducible). */
  generatedAt?: string;
}

const n = (x: number) => x.toLocaleString('en-US');

function verdict(model: ReportModel): 'passed' | 'failed' | 'stopped' {
  if (model.stopped) return 'stopped';
  return model.totals.errors > 0 || model.totals.invalid > 0 ? 'failed' : 'passed';
}

interface Bar {
  label: string;
  count: number;
  cls: string;
}

/** A bar chart as an ordered list: read as text by screen readers, drawn as bars by CSS. */
function bars(id: string, title: string, items: Bar[], note?: string): Html | undefined {
  if (items.length === 0) return undefined;
  const max = Math.max(...items.map((b) => b.count), 1);
  const lis = items.map(
    (b) =>
      html`<li><span class="label">${b.label}</span><span class="track" aria-hidden="true"><span class="fill ${b.cls}" style="width:${((b.count / max) * 100).toFixed(1)}%"></span></span><span class="n">${n(b.count)}</span></li>
`,
  );
  return html`<div><h3 id="${id}">${title}</h3>
<ol class="bars" aria-labelledby="${id}" data-chart="${id}">
${lis}</ol>${note ? html`<p class="note">${note}</p>` : undefined}</div>`;
}

function card(key: string, label: string, value: number, cls = ''): Html {
  const klass = cls ? html` class="${cls}"` : undefined;
  return html`<div><dt>${label}</dt><dd id="count-${key}" data-count="${key}"${klass}>${n(value)}</dd></div>`;
}

function summary(model: ReportModel): Html {
  const t = model.totals;
  const unit = model.unit === 'event' ? 'Events' : 'Rows';
  const cards = [
    card('total', unit, t.total),
    card('valid', 'Valid', t.valid, 'good'),
    card('invalid', 'Invalid', t.invalid, t.invalid > 0 ? 'bad' : ''),
    card('errors', 'Errors', t.errors, t.errors > 0 ? 'bad' : ''),
    card('warnings', 'Warnings', t.warnings, t.warnings > 0 ? 'warn' : ''),
  ];
  if (t.fileErrors > 0) cards.push(card('fileErrors', 'File errors', t.fileErrors, 'bad'));
  const u = model.upload?.summary;
  if (u) {
    cards.push(
      card('sent', u.dryRun ? 'Would send' : 'Sent', u.sent),
      card('accepted', 'Accepted', u.accepted, 'good'),
      card('rejected', 'Rejected', u.rejected, u.rejected > 0 ? 'bad' : ''),
      card('failed', 'Not delivered', u.failed, u.failed > 0 ? 'bad' : ''),
    );
  }
  const e = model.events;
  if (e) {
    cards.push(
      card('accepted', 'Accepted', e.accepted, 'good'),
      card('rejected', 'Rejected', e.rejected, e.rejected > 0 ? 'bad' : ''),
      card('failed', 'Not delivered', e.failed, e.failed > 0 ? 'bad' : ''),
    );
  }
  const stopped = model.stopped
    ? html`<p class="stopped-note" role="alert"><strong>Stopped</strong> (${model.stopped.reason}): ${model.stopped.message}</p>`
    : undefined;
  return html`<section aria-labelledby="summary-h">
<h2 id="summary-h">Summary</h2>
${stopped}<dl class="cards">
${cards.map(
  (c) => html`${c}
`,
)}</dl>
</section>`;
}

function problemCharts(model: ReportModel): Html | undefined {
  if (model.kinds.length === 0) return undefined;
  const kinds = model.kinds.map((k) => ({
    label: `${k.severity}: ${kindLabel(k)}`,
    count: k.count,
    cls: k.severity,
  }));
  const columns = columnsOf(model.problems).map((c) => ({ label: c.column, count: c.count, cls: 'other' }));
  const note = model.unlisted > 0 ? `Of the ${n(model.problems.length)} listed issues.` : undefined;
  return html`<section aria-labelledby="charts-h">
<h2 id="charts-h">Problems</h2>
<div class="charts">
${bars('chart-kind', 'By kind', kinds)}
${bars('chart-column', 'By column', columns, note)}
</div>
</section>`;
}

const STATUSES = ['accepted', 'partial', 'rejected', 'failed', 'not_sent', 'dry_run'] as const;

/** Batches on a time line (when the report has their times), else in the order sent. */
function timeline(batches: BatchOutcome[]): Html {
  const timed = batches.every((b) => b.startedMs !== undefined && b.endedMs !== undefined);
  const width = 800;
  const left = 40;
  const plot = width - left - 10;
  const lane = Math.max(2, Math.min(14, Math.floor(240 / Math.max(batches.length, 1))));
  const height = batches.length * lane + 30;
  const end = timed ? Math.max(...batches.map((b) => b.endedMs!), 1) : batches.length;
  const x = (v: number) => left + (v / end) * plot;
  const rects = batches.map((b, i) => {
    const from = timed ? b.startedMs! : i;
    const to = timed ? Math.max(b.endedMs!, from) : i + 1;
    const w = Math.max(1.5, x(to) - x(from));
    const took = timed ? `, ${n(to - from)} ms` : '';
    const label = `batch ${b.index}: rows ${b.firstRow}-${b.lastRow} (${b.rows}), ${b.status.replace('_', ' ')}${b.httpStatus ? `, HTTP ${b.httpStatus}` : ''}${took}`;
    return html`<rect class="${b.status}" x="${x(from).toFixed(1)}" y="${5 + i * lane}" width="${w.toFixed(1)}" height="${Math.max(1, lane - 1)}"><title>${label}</title></rect>`;
  });
  const axisY = batches.length * lane + 10;
  const endLabel = timed ? `${(end / 1000).toFixed(1)} s` : `${batches.length} batches`;
  const desc = timed
    ? `Each bar is a batch, from its first request to its last answer; the run took ${(end / 1000).toFixed(1)} s.`
    : 'Each bar is a batch, in the order sent (the report has no times).';
  const legend = STATUSES.filter((s) => batches.some((b) => b.status === s)).map(
    (s) =>
      html`<li><span class="key ${s}" aria-hidden="true"></span>${s.replace('_', ' ')}: ${batches.filter((b) => b.status === s).length}</li>`,
  );
  return html`<h3 id="timeline-h">Batches over time</h3>
<p class="note" id="timeline-desc">${desc}</p>
<ul class="legend">${legend}</ul>
<svg class="timeline" role="img" aria-labelledby="timeline-h" aria-describedby="timeline-desc" viewBox="0 0 ${width} ${height + 10}" preserveAspectRatio="xMinYMin meet">
<line class="axis" x1="${left}" y1="${axisY}" x2="${width - 10}" y2="${axisY}"/>
<text x="${left}" y="${axisY + 14}">0</text><text x="${width - 10}" y="${axisY + 14}" text-anchor="end">${endLabel}</text>
${rects}
</svg>`;
}

function batchTable(batches: BatchOutcome[]): Html {
  const timed = batches.some((b) => b.startedMs !== undefined);
  const rows = batches.map((b) => {
    const times = timed
      ? html`<td class="num">${b.startedMs}</td><td class="num">${b.startedMs !== undefined && b.endedMs !== undefined ? b.endedMs - b.startedMs : undefined}</td>`
      : undefined;
    return html`<tr><td class="num">${b.index}</td><td class="num">${b.firstRow}-${b.lastRow}</td><td class="num">${n(b.rows)}</td><td>${b.status.replace('_', ' ')}</td><td class="num">${b.httpStatus}</td><td class="num">${b.attempts}</td><td class="num">${b.requests}</td>${times}</tr>
`;
  });
  const timeHead = timed
    ? html`<th scope="col" class="num">start (ms)</th><th scope="col" class="num">took (ms)</th>`
    : undefined;
  return html`<details><summary>Every batch (${batches.length})</summary>
<div class="table-wrap"><table id="batches">
<caption>Batches in the order sent</caption>
<thead><tr><th scope="col" class="num">batch</th><th scope="col" class="num">rows</th><th scope="col" class="num">count</th><th scope="col">status</th><th scope="col" class="num">HTTP</th><th scope="col" class="num">attempts</th><th scope="col" class="num">requests</th>${timeHead}</tr></thead>
<tbody>
${rows}</tbody></table></div></details>`;
}

function uploadSection(model: ReportModel): Html | undefined {
  const up = model.upload;
  if (!up) return undefined;
  const s = up.summary;
  const outcomes: Bar[] = [
    { label: 'accepted', count: s.accepted, cls: 'accepted' },
    { label: 'rejected', count: s.rejected, cls: 'rejected' },
    { label: 'not delivered', count: s.failed, cls: 'failed' },
    { label: 'invalid (not sent)', count: s.invalid, cls: 'invalid' },
  ];
  const byHttp = new Map<string, number>();
  for (const b of up.batches) {
    const key = b.httpStatus !== undefined ? `HTTP ${b.httpStatus}` : b.status.replace('_', ' ');
    byHttp.set(key, (byHttp.get(key) ?? 0) + 1);
  }
  const http = [...byHttp.entries()].map(([label, count]) => ({ label, count, cls: 'other' }));
  const target = up.target ? html`<p class="meta">Target: ${up.target}</p>` : undefined;
  const batches =
    up.batches.length > 0 ? [timeline(up.batches), batchTable(up.batches)] : html`<p>No batch was sent.</p>`;
  return html`<section aria-labelledby="upload-h">
<h2 id="upload-h">Upload</h2>
${target}<div class="charts">
${bars('chart-outcome', 'Rows by outcome', outcomes)}
${bars('chart-http', 'Batches by last HTTP status', http)}
</div>
${batches}
</section>`;
}

function issuesSection(model: ReportModel): Html {
  const kinds = [...new Set(model.problems.map((p) => kindLabel(p)))].sort();
  const files = [...new Set(model.problems.map((p) => p.file))];
  const option = (v: string) => html`<option value="${v}">${v}</option>`;
  const skuHead = model.unit === 'event' ? 'type' : 'sku';
  const head = [
    ['severity', 'severity'],
    ['kind', 'kind'],
    ['file', 'file'],
    ['row', model.unit],
    ['line', 'line'],
    ['sku', skuHead],
    ['column', 'column'],
    ['value', 'value'],
    ['message', 'message'],
    ['hint', 'hint'],
  ].map(
    ([key, label]) =>
      html`<th scope="col" data-key="${key}"${key === 'row' || key === 'line' ? html` class="num"` : undefined}><button type="button">${label}</button></th>`,
  );
  if (model.problems.length === 0) {
    return html`<section aria-labelledby="issues-h"><h2 id="issues-h">Issues</h2><p id="no-issues">No issues.</p></section>`;
  }
  return html`<section aria-labelledby="issues-h">
<h2 id="issues-h">Issues</h2>
<div class="controls" role="search">
<div><label for="filter-text">Filter text</label><input id="filter-text" type="search" placeholder="sku, column, message..."></div>
<div><label for="filter-severity">Severity</label><select id="filter-severity"><option value="">all</option>${option('error')}${option('warning')}</select></div>
<div><label for="filter-kind">Kind</label><select id="filter-kind"><option value="">all</option>${kinds.map(option)}</select></div>
<div><label for="filter-file">File</label><select id="filter-file"><option value="">all</option>${files.map(option)}</select></div>
</div>
<p id="issues-status" role="status" aria-live="polite"></p>
<noscript><p>The issues table needs JavaScript; the JSON report lists the same issues.</p></noscript>
<div class="table-wrap"><table id="issues">
<caption>Every listed issue; the column headings sort</caption>
<thead><tr>${head}</tr></thead>
<tbody id="issues-body"></tbody>
</table></div>
</section>`;
}

/**
 * The start of a report page up to its body: one self-contained file whose CSP forbids any load;
 * `script`: the page runs its own inline script (the issues table), else none may run.
 */
export function pageHead(title: string, script: boolean): Html {
  // genser's own text, taken as it is (the tag would escape its quotes).
  const csp = script
    ? "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
    : "default-src 'none'; style-src 'unsafe-inline'";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${trusted(csp)}">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<style>${trusted(REPORT_CSS)}</style>
</head>`;
}

export function renderHtml(model: ReportModel, options: HtmlOptions = {}): string {
  const title = COMMAND_TITLES[model.command];
  const v = verdict(model);
  const files = model.files.length > 0 ? model.files.join(', ') : '(no files)';
  const data = {
    command: model.command,
    unit: model.unit,
    files: model.files,
    totals: model.totals,
    unlisted: model.unlisted,
    problems: model.problems,
  };
  const page = html`${pageHead(`${title}: ${v} - ${files}`, true)}
<body>
<header>
<h1>${title} report <span class="verdict ${v}">${v}</span></h1>
<p class="meta">Files: ${files}</p>
${options.generatedAt ? html`<p class="meta">Generated ${options.generatedAt}</p>` : undefined}
</header>
<main>
${summary(model)}
${problemCharts(model)}
${uploadSection(model)}
${issuesSection(model)}
</main>
<footer>Made by genser. The same data is in the JSON report (--reporter json).</footer>
<script type="application/json" id="genser-data">${scriptJson(data)}</script>
<script>${trusted(REPORT_JS)}</script>
</body>
</html>
`;
  return redact(page.text);
}
