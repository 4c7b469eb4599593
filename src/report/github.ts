import { redact } from '../shared/secrets.js';
import { COMMAND_TITLES, kindLabel, type Problem, type ReportModel, recordName, rowLabel } from './model.js';

/**
 * GitHub Actions: `::error` / `::warning` workflow commands that become annotations on the
 * files, and a Markdown job summary. GitHub shows only 10 annotations of each kind per step,
 * so the 10 that say the most (one per kind of problem first) are printed, then a notice that
 * counts them all.
 */
export const ANNOTATIONS_PER_KIND = 10;
/** Rows listed in the job summary's table. */
export const SUMMARY_ROWS = 20;

/** @actions/core's escaping of a command's message: `%`, CR and LF. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** @actions/core's escaping of a property value: the message's, plus `:` and `,`. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

export function workflowCommand(
  command: 'error' | 'warning' | 'notice',
  properties: Record<string, string | number | undefined>,
  message: string,
): string {
  const props = Object.entries(properties)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${command}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

/**
 * The most useful `n`: the first problem of every kind, then the second of every kind, ...;
 * nine bad prices and one missing name show both kinds, not nine prices.
 */
export function mostUseful(problems: Problem[], n: number): Problem[] {
  const byKind = new Map<string, Problem[]>();
  for (const p of problems) {
    const key = `${p.code}\0${p.field ?? ''}`;
    const list = byKind.get(key);
    if (list) list.push(p);
    else byKind.set(key, [p]);
  }
  const lists = [...byKind.values()];
  const picked: Problem[] = [];
  for (let round = 0; picked.length < n; round++) {
    let any = false;
    for (const list of lists) {
      if (round < list.length && picked.length < n) {
        picked.push(list[round]);
        any = true;
      }
    }
    if (!any) break;
  }
  // Back in feed order, as people read a file.
  return picked.sort((a, b) => problems.indexOf(a) - problems.indexOf(b));
}

function annotation(p: Problem): string {
  const where = [rowLabel(p), p.column ? `column ${p.column}` : undefined].filter(Boolean).join(', ');
  // Most messages already quote the value (`got ...`): say it once.
  const value = p.value !== undefined && !p.message.includes(p.value) ? ` (value: ${p.value})` : '';
  const message = `${where}: ${p.message}${value}${p.hint ? `\nhint: ${p.hint}` : ''}`;
  return workflowCommand(
    p.severity === 'error' ? 'error' : 'warning',
    { file: p.file || undefined, line: p.line, title: `genser ${kindLabel(p)}` },
    message,
  );
}

function verdict(model: ReportModel): string {
  if (model.stopped) return 'stopped';
  return model.totals.errors > 0 || model.totals.invalid > 0 ? 'failed' : 'passed';
}

function countsLine(model: ReportModel): string {
  const t = model.totals;
  const unit = model.unit;
  return `${t.total} ${unit}s, ${t.valid} valid, ${t.invalid} invalid; ${t.errors} errors, ${t.warnings} warnings`;
}

// Markdown table cells: no pipes or line breaks, and no HTML (GitHub renders it).
const CONTROL = /[\u0000-\u001F\u007F]/g;
export function mdCell(text: string | number | undefined): string {
  if (text === undefined) return '';
  return String(text)
    .replace(CONTROL, ' ')
    .replace(/\\/g, '\\\\')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/`/g, '\\`')
    .replace(/\*/g, '\\*')
    .replace(/_/g, '\\_');
}

/** A Markdown table, every cell escaped; `right`: the columns aligned right. */
export function mdTable(
  head: string[],
  rows: (string | number | undefined)[][],
  right: number[] = [],
): string[] {
  return [
    `| ${head.map(mdCell).join(' | ')} |`,
    `| ${head.map((_, i) => (right.includes(i) ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`),
  ];
}

/**
 * GitHub refuses a job summary over 1 MiB (for the whole step). Ours stays well below, so the
 * step's other summaries fit too: rows are dropped from the problems table until it does, and
 * a summary still too large (thousands of files or kinds) is cut with a note.
 */
export const SUMMARY_MAX_BYTES = 256 * 1024;
/** Files named in the summary; the rest are counted. */
const SUMMARY_FILES = 20;

export function summaryMarkdown(model: ReportModel, rows = SUMMARY_ROWS): string {
  for (let shown = rows; ; shown = Math.floor(shown / 2)) {
    const text = summaryWith(model, shown);
    if (Buffer.byteLength(text) <= SUMMARY_MAX_BYTES) return text;
    if (shown === 0) return cutSummary(text);
  }
}

function cutSummary(text: string): string {
  const note =
    "\n*(cut here: the job summary stays under GitHub's 1 MiB limit; the other reports have the rest)*\n";
  const bytes = Buffer.from(text)
    .subarray(0, SUMMARY_MAX_BYTES - Buffer.byteLength(note))
    .toString('utf8');
  // A partial last line (or a character cut in two) is dropped.
  return `${bytes.slice(0, bytes.lastIndexOf('\n') + 1)}${note}`;
}

function filesLine(files: string[]): string {
  const named = files.slice(0, SUMMARY_FILES).map(mdCell).join(', ');
  return files.length > SUMMARY_FILES ? `${named} and ${files.length - SUMMARY_FILES} more` : named;
}

function summaryWith(model: ReportModel, rows: number): string {
  const t = model.totals;
  const title = COMMAND_TITLES[model.command];
  const lines = [`## ${mdCell(title)}: ${verdict(model)}`, ''];
  if (model.files.length > 0) lines.push(`Files: ${filesLine(model.files)}`, '');
  if (model.stopped)
    lines.push(`**Stopped** (${mdCell(model.stopped.reason)}): ${mdCell(model.stopped.message)}`, '');
  lines.push(
    ...mdTable(
      [`${model.unit}s`, 'valid', 'invalid', 'errors', 'warnings', 'file errors'],
      [[t.total, t.valid, t.invalid, t.errors, t.warnings, t.fileErrors]],
      [0, 1, 2, 3, 4, 5],
    ),
    '',
  );
  const u = model.upload?.summary;
  if (u) {
    lines.push(
      '### Upload',
      '',
      ...mdTable(
        ['sent', 'accepted', 'rejected', 'not delivered', 'batches', 'retries', 'dry run'],
        [[u.sent, u.accepted, u.rejected, u.failed, u.batches, u.retries, u.dryRun ? 'yes' : 'no']],
        [0, 1, 2, 3, 4, 5],
      ),
      '',
    );
  }
  const e = model.events;
  if (e) {
    lines.push(
      '### Sent',
      '',
      ...mdTable(
        ['sent', 'accepted', 'rejected', 'failed', 'retries'],
        [[e.sent, e.accepted, e.rejected, e.failed, e.retries]],
        [0, 1, 2, 3, 4],
      ),
      '',
    );
  }
  if (model.kinds.length > 0) {
    lines.push(
      '### Problems by kind',
      '',
      ...mdTable(
        ['severity', 'kind', 'count'],
        model.kinds.map((k) => [k.severity, kindLabel(k), k.count]),
        [2],
      ),
      '',
    );
  }
  if (model.problems.length > 0) {
    const shown = model.problems.slice(0, rows);
    const total = model.problems.length + model.unlisted;
    lines.push(
      shown.length < total ? `### First ${shown.length} of ${total} problems` : '### Problems',
      '',
      ...mdTable(
        [
          'severity',
          'file',
          model.unit,
          'line',
          model.unit === 'event' ? 'type' : 'sku',
          'column',
          'value',
          'message',
        ],
        shown.map((p) => [
          p.severity,
          p.file,
          p.row || undefined,
          p.line,
          recordName(p),
          p.column ?? p.field,
          p.value,
          p.hint ? `${p.message}; ${p.hint}` : p.message,
        ]),
        [2, 3],
      ),
      '',
    );
  }
  return redact(`${lines.join('\n')}\n`);
}

export interface GithubOutput {
  /** Workflow commands, one per line (the runner reads them on stdout and stderr). */
  lines: string[];
  /** Markdown for the file GITHUB_STEP_SUMMARY names. */
  summaryMarkdown: string;
}

export function renderGithub(model: ReportModel): GithubOutput {
  const errors = model.problems.filter((p) => p.severity === 'error');
  const warnings = model.problems.filter((p) => p.severity === 'warning');
  const lines = [
    ...mostUseful(errors, ANNOTATIONS_PER_KIND).map(annotation),
    ...mostUseful(warnings, ANNOTATIONS_PER_KIND).map(annotation),
  ];
  const t = model.totals;
  const shown =
    t.errors > ANNOTATIONS_PER_KIND || t.warnings > ANNOTATIONS_PER_KIND
      ? `; annotations show at most ${ANNOTATIONS_PER_KIND} errors and ${ANNOTATIONS_PER_KIND} warnings, the job summary and the other reports list more`
      : '';
  const stopped = model.stopped ? `; stopped: ${model.stopped.message}` : '';
  lines.push(
    workflowCommand(
      'notice',
      { title: `${COMMAND_TITLES[model.command]} ${verdict(model)}` },
      `${countsLine(model)}${stopped}${shown}`,
    ),
  );
  return { lines: lines.map(redact), summaryMarkdown: summaryMarkdown(model) };
}
