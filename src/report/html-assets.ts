/**
 * The HTML report's inline style and script. They are strings because the report is one file
 * that must work from file:// with no network: nothing is loaded, everything is inlined.
 */

export const REPORT_CSS = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1b1d21; --muted: #4a4f57; --line: #c9cdd3; --card: #f3f4f6;
  --error: #b3261e; --warning: #7a4f00; --ok: #1e6b34; --accent: #1f4fbf;
  --bar: #1f4fbf; --bar-error: #c0352b; --bar-warning: #b07400; --bar-ok: #2e7d32; --bar-other: #6b7280;
  --focus: #1f4fbf;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #15171b; --fg: #e9eaee; --muted: #b4b8c0; --line: #3b4048; --card: #20232a;
    --error: #ff8f85; --warning: #f3c261; --ok: #7fd18f; --accent: #8fb3ff;
    --bar: #7aa2ff; --bar-error: #ff7a6e; --bar-warning: #e9b44c; --bar-ok: #6cc57c; --bar-other: #9aa1ad;
    --focus: #8fb3ff;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "Noto Sans KR", "Noto Sans JP", sans-serif; }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.25rem; }
h1 { font-size: 1.6rem; margin: 0 0 .25rem; }
h2 { font-size: 1.2rem; margin: 1.75rem 0 .6rem; }
h3 { font-size: 1rem; margin: 1rem 0 .5rem; }
p.meta { color: var(--muted); margin: 0; overflow-wrap: anywhere; }
.verdict { display: inline-block; padding: .1rem .55rem; border-radius: .3rem; font-weight: 600; border: 1px solid currentColor; }
.verdict.failed, .verdict.stopped { color: var(--error); }
.verdict.passed { color: var(--ok); }
.stopped-note { border-left: 4px solid var(--error); padding: .4rem .8rem; background: var(--card); }
dl.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(9.5rem, 1fr)); gap: .6rem; margin: 0; }
dl.cards > div { background: var(--card); border: 1px solid var(--line); border-radius: .4rem; padding: .55rem .75rem; }
dl.cards dt { color: var(--muted); font-size: .85rem; }
dl.cards dd { margin: 0; font-size: 1.5rem; font-weight: 650; font-variant-numeric: tabular-nums; }
dd.bad { color: var(--error); } dd.warn { color: var(--warning); } dd.good { color: var(--ok); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(22rem, 1fr)); gap: 1.25rem; }
ol.bars { list-style: none; margin: 0; padding: 0; }
ol.bars li { display: grid; grid-template-columns: minmax(8rem, 40%) 1fr 3.5rem; gap: .5rem; align-items: center; margin: .2rem 0; }
ol.bars .label { overflow-wrap: anywhere; font-size: .9rem; }
ol.bars .track { background: var(--card); border: 1px solid var(--line); height: .95rem; border-radius: .2rem; overflow: hidden; }
ol.bars .fill { display: block; height: 100%; background: var(--bar); }
ol.bars .fill.error { background: var(--bar-error); } ol.bars .fill.warning { background: var(--bar-warning); }
ol.bars .fill.accepted { background: var(--bar-ok); } ol.bars .fill.rejected, ol.bars .fill.failed { background: var(--bar-error); }
ol.bars .fill.invalid { background: var(--bar-warning); } ol.bars .fill.other { background: var(--bar-other); }
ol.bars .n { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: var(--muted); font-size: .85rem; }
.controls { display: flex; flex-wrap: wrap; gap: .75rem 1.25rem; align-items: end; margin: .5rem 0 .75rem; }
.controls label { display: block; font-size: .85rem; color: var(--muted); margin-bottom: .15rem; }
.controls input, .controls select { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--muted);
  border-radius: .3rem; padding: .3rem .45rem; min-width: 12rem; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: .4rem; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
/* The issues table: fixed column shares, so long messages wrap instead of squeezing the hints. */
table#issues { table-layout: fixed; min-width: 60rem; }
caption { text-align: left; padding: .5rem .6rem; color: var(--muted); }
th, td { border-bottom: 1px solid var(--line); padding: .35rem .5rem; text-align: left; vertical-align: top; }
td { overflow-wrap: anywhere; }
#issues th { white-space: nowrap; }
#issues th[data-key="severity"] { width: 8%; } #issues th[data-key="kind"] { width: 10.5%; }
#issues th[data-key="file"] { width: 10%; } #issues th[data-key="row"], #issues th[data-key="line"] { width: 5.5%; }
#issues th[data-key="sku"] { width: 8%; } #issues th[data-key="column"] { width: 9%; }
#issues th[data-key="value"] { width: 10%; } #issues th[data-key="message"] { width: 18%; }
#issues th[data-key="hint"] { width: 15.5%; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
thead th { background: var(--card); position: sticky; top: 0; }
th button { font: inherit; font-weight: 650; color: inherit; background: none; border: 0; padding: 0; cursor: pointer; }
th button::after { content: " \\2195"; color: var(--muted); }
th[aria-sort="ascending"] button::after { content: " \\2191"; color: var(--fg); }
th[aria-sort="descending"] button::after { content: " \\2193"; color: var(--fg); }
td.sev-error { color: var(--error); font-weight: 600; } td.sev-warning { color: var(--warning); font-weight: 600; }
td code, .value { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .85rem; }
.timeline { width: 100%; height: auto; background: var(--card); border: 1px solid var(--line); border-radius: .4rem; }
.timeline .axis { stroke: var(--muted); stroke-width: 1; }
.timeline text { fill: var(--muted); font-size: 11px; }
.timeline .accepted { fill: var(--bar-ok); } .timeline .partial { fill: var(--bar-warning); }
.timeline .rejected, .timeline .failed { fill: var(--bar-error); } .timeline .not_sent, .timeline .dry_run { fill: var(--bar-other); }
.legend { display: flex; flex-wrap: wrap; gap: .35rem 1rem; margin: .4rem 0; padding: 0; list-style: none; font-size: .85rem; }
.legend span.key { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -1px; border-radius: 2px; }
.key.accepted { background: var(--bar-ok); } .key.partial { background: var(--bar-warning); }
.key.rejected, .key.failed { background: var(--bar-error); } .key.not_sent, .key.dry_run { background: var(--bar-other); }
details { margin: .5rem 0; } summary { cursor: pointer; }
footer { max-width: 1200px; margin: 2rem auto; padding: 0 1.25rem; color: var(--muted); font-size: .85rem; }
`;

/**
 * Builds the issues table from the embedded JSON (textContent only: data is never parsed as
 * HTML), then filters and sorts it in place.
 */
export const REPORT_JS = `
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('genser-data').textContent);
  var problems = data.problems;
  var body = document.getElementById('issues-body');
  if (!body) return;
  var status = document.getElementById('issues-status');
  var query = document.getElementById('filter-text');
  var severity = document.getElementById('filter-severity');
  var kind = document.getElementById('filter-kind');
  var file = document.getElementById('filter-file');
  var columns = ['severity', 'kind', 'file', 'row', 'line', 'sku', 'column', 'value', 'message', 'hint'];
  var numeric = { row: true, line: true };
  var rows = problems.map(function (p, i) {
    var tr = document.createElement('tr');
    var values = {
      severity: p.severity, kind: p.field ? p.code + ' ' + p.field : p.code, file: p.file,
      row: p.row || '', line: p.line === undefined ? '' : p.line, sku: p.sku || p.type || '',
      column: p.column || p.field || '', value: p.value === undefined ? '' : p.value,
      message: p.message, hint: p.hint || ''
    };
    columns.forEach(function (c) {
      var td = document.createElement('td');
      td.textContent = String(values[c]);
      td.className = numeric[c] ? 'num' : c === 'severity' ? 'sev-' + p.severity : c;
      tr.appendChild(td);
    });
    var text = columns.map(function (c) { return String(values[c]); }).join('\\u0000').toLowerCase();
    return { tr: tr, values: values, text: text, index: i };
  });
  var sortKey = null;
  var sortDir = 1;
  function compare(a, b) {
    if (sortKey === null) return a.index - b.index;
    var x = a.values[sortKey], y = b.values[sortKey];
    var d;
    if (numeric[sortKey]) d = (x === '' ? Infinity : Number(x)) - (y === '' ? Infinity : Number(y));
    else d = String(x).localeCompare(String(y), undefined, { numeric: true, sensitivity: 'base' });
    return d !== 0 ? d * sortDir : a.index - b.index;
  }
  function render() {
    var q = query.value.trim().toLowerCase();
    var sev = severity.value, k = kind.value, f = file.value;
    var shown = 0;
    var sorted = rows.slice().sort(compare);
    var fragment = document.createDocumentFragment();
    sorted.forEach(function (r) {
      var ok = (!q || r.text.indexOf(q) !== -1) && (!sev || r.values.severity === sev) &&
        (!k || r.values.kind === k) && (!f || r.values.file === f);
      if (ok) { fragment.appendChild(r.tr); shown++; }
    });
    body.replaceChildren(fragment);
    status.textContent = 'Showing ' + shown + ' of ' + rows.length + ' listed issues' +
      (data.unlisted > 0 ? ' (' + data.unlisted + ' more counted but not listed)' : '') + '.';
  }
  document.querySelectorAll('#issues thead th[data-key]').forEach(function (th) {
    th.querySelector('button').addEventListener('click', function () {
      var key = th.getAttribute('data-key');
      if (sortKey === key) sortDir = -sortDir; else { sortKey = key; sortDir = 1; }
      document.querySelectorAll('#issues thead th[data-key]').forEach(function (o) { o.removeAttribute('aria-sort'); });
      th.setAttribute('aria-sort', sortDir === 1 ? 'ascending' : 'descending');
      render();
    });
  });
  [query, severity, kind, file].forEach(function (el) { el.addEventListener('input', render); });
  render();
})();
`;
