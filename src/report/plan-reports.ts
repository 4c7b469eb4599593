import { redact } from '../shared/secrets.js';
import { shorten } from '../shared/words.js';
import { type GithubOutput, mdCell, mdTable, workflowCommand } from './github.js';
import { pageHead } from './html.js';
import { type Html, html } from './html-template.js';
import { xmlAttr, xmlText } from './junit.js';
import { MAX_TEXT_CHARS, MAX_VALUE_CHARS } from './model.js';
import { driftLine, type PlanDocument } from './plan-report.js';

/**
 * `genser plan --reporter junit|github|html` (docs/ci.md, docs/nightly.md "Before and after the
 * run"): the plan's counts, field changes, largest price moves and guards in each CI format.
 * What fails is what makes the plan exit non-zero: a guard that would refuse the upload (exit 6)
 * and refused rows (exit 1); a guard tripped under `--on-guard hold-removals` lets the upload go,
 * so it is a warning. SKUs and file names come from the feed or the command line: each format's
 * own escaping, as the other reporters use it, and every value bounded.
 */

const TITLE = 'genser plan';
const n = (x: number) => x.toLocaleString('en-US');

type Verdict = 'would send' | 'would hold back removals' | 'would refuse' | 'rows refused';

function verdictOf(doc: PlanDocument): Verdict {
  if (doc.guards.outcome === 'refuse') return 'would refuse';
  if (doc.refused > 0) return 'rows refused';
  return doc.guards.outcome === 'hold-removals' ? 'would hold back removals' : 'would send';
}

const failed = (v: Verdict) => v === 'would refuse' || v === 'rows refused';

/** The plan with its feed-borne texts bounded, as every reporter sees it. */
function bounded(doc: PlanDocument): PlanDocument {
  return {
    ...doc,
    files: doc.files.map((f) => shorten(f, MAX_VALUE_CHARS)),
    absentColumns: doc.absentColumns.map((c) => shorten(c, MAX_VALUE_CHARS)),
    largestPriceMoves: doc.largestPriceMoves.map((m) => ({ ...m, sku: shorten(m.sku, MAX_VALUE_CHARS) })),
    guards: {
      ...doc.guards,
      tripped: doc.guards.tripped.map((t) => ({
        ...t,
        message: shorten(t.message, MAX_TEXT_CHARS),
        hint: shorten(t.hint, MAX_TEXT_CHARS),
      })),
    },
  };
}

/** Each count with its name, in the order the text plan lists them. */
function counts(doc: PlanDocument): [string, number][] {
  const out: [string, number][] = [
    ['rows', doc.rows],
    ['known', doc.known],
    ['created', doc.created],
    ['updated', doc.updated],
    ['unchanged', doc.unchanged],
  ];
  if (doc.outOfStock !== undefined) out.push(['out of stock', doc.outOfStock]);
  if (doc.heldBack !== undefined) out.push(['held back', doc.heldBack]);
  out.push(['refused', doc.refused]);
  return out;
}

const movesText = (doc: PlanDocument) =>
  doc.largestPriceMoves.map(
    (m) => `${m.sku} ${m.from} -> ${m.to} (${m.percent > 0 ? '+' : ''}${m.percent}%)`,
  );

const refusedText = (doc: PlanDocument) =>
  `${n(doc.refused)} invalid ${doc.refused === 1 ? 'row' : 'rows'} would be refused (never sent)`;

const REFUSED_HINT = "'genser validate' with the same feed shows each row and why";

const guardText = (t: PlanDocument['guards']['tripped'][number]) => `--${t.guard}: ${t.message}; ${t.hint}`;

// JUnit -------------------------------------------------------------------------------------

interface Case {
  name: string;
  failure?: { type: string; message: string; detail: string };
  out?: string;
}

function junitCases(doc: PlanDocument): Case[] {
  const fields = Object.entries(doc.fields).map(([f, c]) => `${f} ${n(c)}`);
  const summary = [
    `target: ${doc.target}`,
    counts(doc)
      .map(([k, v]) => `${k} ${n(v)}`)
      .join(', '),
    fields.length > 0 ? `fields changed: ${fields.join(', ')}` : undefined,
    doc.largestPriceMoves.length > 0 ? `largest price moves: ${movesText(doc).join(', ')}` : undefined,
    doc.absentColumns.length > 0 ? driftLine(doc.absentColumns) : undefined,
  ].filter((l) => l !== undefined);
  const cases: Case[] = [{ name: 'what the upload would send', out: summary.join('\n') }];
  cases.push(
    doc.refused > 0
      ? {
          name: 'invalid rows',
          failure: {
            type: 'refused',
            message: refusedText(doc),
            detail: `${refusedText(doc)}\nhint: ${REFUSED_HINT}`,
          },
        }
      : { name: 'invalid rows: none' },
  );
  const refuse = doc.guards.outcome === 'refuse';
  for (const t of doc.guards.tripped)
    cases.push(
      refuse
        ? {
            name: `guard --${t.guard}`,
            failure: {
              type: `guard ${t.guard}`,
              message: t.message,
              detail: `${guardText(t)}\nthe upload would refuse the run and send nothing (exit 6)`,
            },
          }
        : {
            name: `guard --${t.guard} (held back removals)`,
            out: `${guardText(t)}\n--on-guard hold-removals: the upload would send the creates and updates and hold back every out-of-stock mark`,
          },
    );
  if (doc.guards.tripped.length === 0) cases.push({ name: 'guards: none would trip' });
  if (!doc.guards.decided)
    cases.push({
      name: 'guards: judged on the size only',
      out: 'the feed could not be read fully: only its size is judged',
    });
  return cases;
}

export function renderPlanJunit(plan: PlanDocument): string {
  const doc = bounded(plan);
  const suite = `${TITLE}: ${doc.files.join(', ')}`;
  const cases = junitCases(doc);
  const failures = cases.filter((c) => c.failure).length;
  const xml = cases.map((c) => {
    const parts = [`    <testcase name="${xmlAttr(c.name)}" classname="${xmlAttr(TITLE)}">`];
    if (c.failure)
      parts.push(
        `      <failure type="${xmlAttr(c.failure.type)}" message="${xmlAttr(c.failure.message)}">${xmlText(c.failure.detail)}</failure>`,
      );
    if (c.out) parts.push(`      <system-out>${xmlText(c.out)}</system-out>`);
    parts.push('    </testcase>');
    return parts.join('\n');
  });
  return redact(
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<testsuites name="${xmlAttr(TITLE)}" tests="${cases.length}" failures="${failures}" errors="0">`,
      `  <testsuite name="${xmlAttr(suite)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`,
      ...xml,
      '  </testsuite>',
      '</testsuites>',
      '',
    ].join('\n'),
  );
}

// GitHub ------------------------------------------------------------------------------------

function planMarkdown(doc: PlanDocument, verdict: Verdict): string {
  const lines = [
    `## ${TITLE}: ${verdict}`,
    '',
    `Target: ${mdCell(doc.target)}`,
    '',
    `Files: ${doc.files.map(mdCell).join(', ')}`,
    '',
  ];
  const c = counts(doc);
  lines.push(
    ...mdTable(
      c.map(([k]) => k),
      [c.map(([, v]) => n(v))],
    ),
    '',
  );
  const fields = Object.entries(doc.fields);
  if (fields.length > 0)
    lines.push(
      '### Fields changed',
      '',
      ...mdTable(
        ['field', 'updates'],
        fields.map(([f, k]) => [f, n(k)]),
      ),
      '',
    );
  if (doc.largestPriceMoves.length > 0)
    lines.push(
      '### Largest price moves',
      '',
      ...mdTable(
        ['sku', 'from', 'to', 'move'],
        doc.largestPriceMoves.map((m) => [m.sku, m.from, m.to, `${m.percent > 0 ? '+' : ''}${m.percent}%`]),
      ),
      '',
    );
  if (doc.absentColumns.length > 0)
    lines.push(`**Mapping drift**: ${mdCell(driftLine(doc.absentColumns))}`, '');
  lines.push('### Guards', '');
  if (doc.guards.tripped.length === 0) lines.push('None would trip.', '');
  else
    lines.push(
      ...mdTable(
        ['guard', 'what it found', 'to let the run go'],
        doc.guards.tripped.map((t) => [`--${t.guard}`, t.message, t.hint]),
      ),
      '',
      `--on-guard ${mdCell(doc.guards.onGuard)}: ${doc.guards.outcome === 'refuse' ? 'the upload would refuse the run and send nothing (exit 6)' : 'the upload would send the creates and updates and hold back every out-of-stock mark'}`,
      '',
    );
  return `${lines.join('\n')}\n`;
}

export function renderPlanGithub(plan: PlanDocument): GithubOutput {
  const doc = bounded(plan);
  const verdict = verdictOf(doc);
  const lines: string[] = [];
  const refuse = doc.guards.outcome === 'refuse';
  for (const t of doc.guards.tripped)
    lines.push(
      workflowCommand(
        refuse ? 'error' : 'warning',
        { title: `${TITLE}: guard --${t.guard}` },
        `${t.message}\nhint: ${t.hint}`,
      ),
    );
  // Mapping drift without --strict (with it, it is a guard above): the upload goes, fields left out.
  if (doc.absentColumns.length > 0 && !doc.guards.tripped.some((t) => t.guard === 'strict'))
    lines.push(
      workflowCommand('warning', { title: `${TITLE}: mapping drift` }, driftLine(doc.absentColumns)),
    );
  if (doc.refused > 0)
    lines.push(
      workflowCommand(
        'error',
        { title: `${TITLE}: invalid rows` },
        `${refusedText(doc)}\nhint: ${REFUSED_HINT}`,
      ),
    );
  const summary = counts(doc)
    .map(([k, v]) => `${k} ${n(v)}`)
    .join(', ');
  lines.push(workflowCommand('notice', { title: `${TITLE} ${verdict}` }, `${doc.target}: ${summary}`));
  return { lines: lines.map(redact), summaryMarkdown: redact(planMarkdown(doc, verdict)) };
}

// HTML --------------------------------------------------------------------------------------

function countCards(doc: PlanDocument): Html {
  const bad = (k: string, v: number) =>
    v > 0 && (k === 'refused' || k === 'held back') ? html` class="bad"` : undefined;
  return html`<dl class="cards">
${counts(doc).map(
  ([k, v]) => html`<div><dt>${k}</dt><dd data-count="${k}"${bad(k, v)}>${n(v)}</dd></div>
`,
)}</dl>`;
}

function rowsTable(id: string, caption: string, head: string[], rows: (string | number)[][]): Html {
  return html`<div class="table-wrap"><table id="${id}">
<caption>${caption}</caption>
<thead><tr>${head.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>
${rows.map(
  (
    r,
  ) => html`<tr>${r.map((v) => html`<td${typeof v === 'number' ? html` class="num"` : undefined}>${v}</td>`)}</tr>
`,
)}</tbody></table></div>`;
}

function guardsSection(doc: PlanDocument): Html {
  const g = doc.guards;
  const then =
    g.outcome === 'refuse'
      ? 'The upload would refuse the run and send nothing (exit 6).'
      : g.outcome === 'hold-removals'
        ? 'The upload would send the creates and updates and hold back every out-of-stock mark (--on-guard hold-removals).'
        : 'None would trip: the upload would send the above.';
  const tripped =
    g.tripped.length > 0
      ? rowsTable(
          'guards',
          'Guards that would trip',
          ['guard', 'what it found', 'to let the run go'],
          g.tripped.map((t) => [`--${t.guard}`, t.message, t.hint]),
        )
      : undefined;
  const partly = g.decided
    ? undefined
    : html`<p class="note">The feed could not be read fully: only its size is judged (the upload reports the file error).</p>`;
  return html`<section aria-labelledby="guards-h">
<h2 id="guards-h">Guards</h2>
${partly}<p id="guards-outcome"${g.outcome === 'refuse' ? html` role="alert"` : undefined}>${then}</p>
${tripped}
</section>`;
}

export function renderPlanHtml(plan: PlanDocument, options: { generatedAt?: string } = {}): string {
  const doc = bounded(plan);
  const verdict = verdictOf(doc);
  const cls = failed(verdict) ? 'failed' : 'passed';
  const files = doc.files.length > 0 ? doc.files.join(', ') : '(no files)';
  const fields = Object.entries(doc.fields);
  const page = html`${pageHead(`${TITLE}: ${verdict} - ${files}`, false)}
<body>
<header>
<h1>${TITLE} report <span class="verdict ${cls}">${verdict}</span></h1>
<p class="meta">Target: ${doc.target}</p>
<p class="meta">Files: ${files}</p>
${options.generatedAt ? html`<p class="meta">Generated ${options.generatedAt}</p>` : undefined}
</header>
<main>
<section aria-labelledby="summary-h">
<h2 id="summary-h">What the upload would do</h2>
<p class="note">Nothing was sent. Unchanged products are ${doc.full ? 'sent again (--full)' : 'not sent'}; refused rows are invalid and never sent.</p>
${countCards(doc)}
</section>
${fields.length > 0 ? html`<section aria-labelledby="fields-h"><h2 id="fields-h">Fields changed</h2>${rowsTable('fields', 'How many updates change each field', ['field', 'updates'], fields)}</section>` : undefined}
${
  doc.largestPriceMoves.length > 0
    ? html`<section aria-labelledby="moves-h"><h2 id="moves-h">Largest price moves</h2>${rowsTable(
        'moves',
        'The largest moves either way',
        ['sku', 'from', 'to', 'move (%)'],
        doc.largestPriceMoves.map((m) => [m.sku, m.from, m.to, m.percent]),
      )}</section>`
    : undefined
}
${doc.absentColumns.length > 0 ? html`<section aria-labelledby="drift-h"><h2 id="drift-h">Mapping drift</h2><p id="drift">${driftLine(doc.absentColumns)}</p></section>` : undefined}
${guardsSection(doc)}
</main>
<footer>Made by genser. The same data is in the JSON plan (--json).</footer>
</body>
</html>
`;
  return redact(page.text);
}
