import { Chalk } from 'chalk';
import type { FeedStats } from '../feed/index.js';
import { type IssueCollector, type IssueGroup, messageWithHint } from '../shared/issue-collector.js';
import { printable } from '../shared/printable.js';
import { redact } from '../shared/secrets.js';
import type { Issue, LegacyKind, PayloadFormat } from '../shared/types.js';
import { n } from '../shared/words.js';

/**
 * The validate report (docs/architecture.md section 7) as pure functions: the JSON document and the
 * human summary. `upload` can reuse both for its invalid rows.
 */
export interface ValidateReport {
  format: PayloadFormat;
  kind?: LegacyKind;
  files: string[];
  rows: { total: number; valid: number; invalid: number };
  /** Counts of all issues, also those not listed. */
  counts: { errors: number; warnings: number; fileErrors: number };
  issues: Issue[];
  truncated: boolean;
  groups: IssueGroup[];
  /**
   * Present when the feed stopped being read half-way (bytes that do not decode, a bug): the
   * report covers the rows read until then. Same shape as upload's.
   */
  stopped?: { reason: 'input' | 'internal'; message: string; lastRowRead: number };
}

export function buildValidateReport(input: {
  format: PayloadFormat;
  kind: LegacyKind;
  files: string[];
  stats: FeedStats;
  collector: IssueCollector;
}): ValidateReport {
  const { stats, collector } = input;
  const report: ValidateReport = {
    format: input.format,
    files: input.files,
    rows: { total: stats.rows, valid: stats.valid, invalid: stats.invalid },
    counts: { errors: stats.errors, warnings: stats.warnings, fileErrors: stats.fileErrors },
    issues: collector.issues,
    truncated: collector.truncated,
    groups: collector.groups(),
  };
  if (input.format === 'legacy') report.kind = input.kind;
  return report;
}

/**
 * An issue as the JSON reports write it (docs/feeds.md): `message` ends with `; <hint>`, as it
 * always has (scripts that print it go on showing the hint), and `hint` is the hint alone.
 */
export function issueJson(issue: Issue): Issue {
  return issue.hint ? { ...issue, message: messageWithHint(issue) } : issue;
}

/** A report with its issues as the JSON reports write them. */
export function withJsonIssues<T extends { issues: Issue[] }>(report: T): T {
  return { ...report, issues: report.issues.map(issueJson) };
}

/** One JSON document, secrets masked. */
export function validateReportJson(report: ValidateReport): string {
  return redact(JSON.stringify(withJsonIssues(report), null, 2)) + '\n';
}

function where(r: { file: string; row?: number; line?: number }): string {
  if (r.row === undefined || r.row === 0) return `${r.file} (file)`;
  return `${r.file} row ${r.row}${r.line !== undefined ? ` (line ${r.line})` : ''}`;
}

/**
 * One line per issue, always naming the file (grep-able in a cron log, also with one file).
 * Values from the feed are made printable (src/shared/printable.ts): escapes in a value must
 * not reach the terminal.
 */
export function formatIssue(issue: Issue): string {
  return printable(issueText(issue));
}

function issueText(issue: Issue): string {
  // Read issues already say where they are ("row 3 (line 4) has 5 fields ...").
  const parts = [issue.row && issue.message.startsWith(`row ${issue.row} `) ? issue.file : where(issue)];
  if (issue.sku) parts.push(`sku ${issue.sku}`);
  if (issue.column) parts.push(`column ${issue.column}`);
  const prefix = parts.filter(Boolean).join(', ');
  return prefix ? `${prefix}: ${messageWithHint(issue)}` : messageWithHint(issue);
}

/** The human summary for stderr: groups by problem, then the first issues, then the totals. */
export function validateSummaryLines(
  report: ValidateReport,
  /** `stopped`: the feed was not read to its end; the last line says so instead of a verdict. */
  /** `quiet`: the errors listed and the last line only (no groups, no warnings). */
  options: { color?: boolean; maxErrors: number; stopped?: boolean; warnings?: boolean; quiet?: boolean },
): string[] {
  const c = new Chalk({ level: options.color ? 1 : 0 });
  const oneFile = report.files.length <= 1;
  const lines: string[] = [];
  // --no-warnings: warnings are counted on the last line, not listed.
  const shown = (severity: string) => (options.warnings !== false && !options.quiet) || severity === 'error';
  const groups = options.quiet ? [] : report.groups.filter((g) => shown(g.severity));
  if (groups.length > 0) {
    lines.push('Problems by kind:');
    for (const g of groups) {
      const label = g.severity === 'error' ? c.red('error') : c.yellow('warning');
      const rows = g.rows
        .filter((r) => r.row !== undefined && r.row > 0)
        .map((r) => (oneFile ? String(r.row) : `${r.file}:${r.row}`));
      const more = g.count > g.rows.length ? ', ...' : '';
      const at = rows.length > 0 ? ` (rows ${rows.join(', ')}${more})` : '';
      lines.push(`  ${label} ${printable(`${g.code}${g.field ? ` ${g.field}` : ''}: ${g.count}${at}`)}`);
      lines.push(`      e.g. ${printable(g.example)}`);
    }
  }
  const listed = report.issues.filter((i) => shown(i.severity)).slice(0, options.maxErrors);
  if (listed.length > 0) {
    const total = report.counts.errors + (shown('warning') ? report.counts.warnings : 0);
    lines.push(total > listed.length ? `First ${listed.length} of ${total} issues:` : `Issues:`);
    for (const issue of listed) {
      const label = issue.severity === 'error' ? c.red('error') : c.yellow('warning');
      lines.push(`  ${label} ${formatIssue(issue)}`);
    }
    if (total > listed.length)
      lines.push(`  ... ${total - listed.length} more (raise --max-errors, or use --json / --report FILE)`);
  }
  const { total, valid, invalid } = report.rows;
  const warn = report.counts.warnings > 0 ? `, ${n(report.counts.warnings)} warning(s)` : '';
  const fileErr = report.counts.fileErrors > 0 ? `, ${n(report.counts.fileErrors)} file-level error(s)` : '';
  const counts = `${n(total)} row(s), ${n(valid)} valid, ${n(invalid)} invalid${warn}${fileErr}`;
  if (options.stopped) lines.push(`${c.red('STOPPED')} after ${counts}; the rest of the feed was not read`);
  else {
    const verdict = invalid === 0 && report.counts.fileErrors === 0 ? c.green('OK') : c.red('FAILED');
    lines.push(`${verdict}: ${counts}`);
  }
  return lines.map((l) => redact(l));
}
