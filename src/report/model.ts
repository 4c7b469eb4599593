import type { EventFailure } from '../events/send.js';
import type { Issue, Severity } from '../shared/types.js';
import { shorten } from '../shared/words.js';
import type { BatchOutcome, UploadSummary } from '../upload/types.js';
import type { EventsSendReport, EventsSummary, EventsValidateReport } from './events-shapes.js';
import type { PlanDocument } from './plan-report.js';
import type { UploadReport } from './upload-report.js';
import type { ValidateReport } from './validate-report.js';

/**
 * What the reporters render: the report of one command, in one shape. Each command's JSON
 * report (validate/convert, upload, events validate, events send) comes in as a
 * `ReportSource` and is flattened here once, so JUnit, GitHub and HTML agree on every count.
 */
export type ReportSource =
  | { command: 'validate' | 'convert'; report: ValidateReport }
  | { command: 'upload'; report: UploadReport }
  | { command: 'events validate'; report: EventsValidateReport }
  | { command: 'events send'; report: EventsSendReport }
  | { command: 'plan'; report: PlanDocument };

/** The sources flattened into the model: a plan has reporters of its own (./plan-reports.ts). */
export type ModelSource = Exclude<ReportSource, { command: 'plan' }>;

export type ReportCommand = ModelSource['command'];

/**
 * One listed problem: a row's issue, an event's problem, or a product the server refused. The
 * issue's shape, with the message alone (without `; hint`: the hint is apart).
 */
export type Problem = Issue;

/** Problems counted by severity, code and field: every one, also the ones not listed. */
export interface ProblemKind {
  severity: Severity;
  code: string;
  field?: string;
  count: number;
}

export interface ReportModel {
  command: ReportCommand;
  /** What a record is called: product rows or events. */
  unit: 'row' | 'event';
  files: string[];
  totals: {
    total: number;
    valid: number;
    invalid: number;
    /** Errors and warnings counted (listed or not). */
    errors: number;
    warnings: number;
    fileErrors: number;
  };
  /** The listed problems, in feed order. */
  problems: Problem[];
  /** Problems counted but not listed (the report's list is capped by --max-errors). */
  unlisted: number;
  kinds: ProblemKind[];
  /** Present when the run stopped before its end. */
  stopped?: { reason: string; message: string };
  upload?: { summary: UploadSummary; batches: BatchOutcome[]; target?: string };
  events?: EventsSummary;
}

function fromValidate(command: ReportCommand, report: ValidateReport | UploadReport): ReportModel {
  const problems: Problem[] = report.issues.map(asProblem);
  const kinds: ProblemKind[] = report.groups.map((g) => ({
    severity: g.severity,
    code: g.code,
    ...(g.field ? { field: g.field } : {}),
    count: g.count,
  }));
  const counted = report.counts.errors + report.counts.warnings;
  return {
    command,
    unit: 'row',
    files: report.files,
    totals: { ...report.rows, ...report.counts },
    problems,
    unlisted: Math.max(0, counted - problems.length),
    kinds,
    ...(report.stopped
      ? { stopped: { reason: report.stopped.reason, message: report.stopped.message } }
      : {}),
  };
}

/** Rows the service refused or that never got through: problems too, listed in full. */
function fromUpload(report: UploadReport): ReportModel {
  const model = fromValidate('upload', report);
  const rejected = report.failures.filter((f) => f.kind === 'rejected').length;
  const failed = report.failures.length - rejected;
  for (const f of report.failures) {
    const status = typeof f.status === 'number' ? `HTTP ${f.status}` : f.status.replace(/_/g, ' ');
    model.problems.push({
      severity: 'error',
      code: f.kind === 'rejected' ? 'rejected' : 'not_delivered',
      file: f.file,
      row: f.row,
      line: f.line,
      ...(f.sku !== undefined ? { sku: f.sku } : {}),
      message: `${f.kind === 'rejected' ? 'rejected by the service' : 'not delivered'} (${status}, batch ${f.batch}): ${f.message}`,
      hint:
        f.kind === 'rejected'
          ? 'fix the row and upload it again'
          : 'send the feed again; rows already accepted are replaced, not duplicated',
    });
  }
  if (rejected > 0) model.kinds.push({ severity: 'error', code: 'rejected', count: rejected });
  if (failed > 0) model.kinds.push({ severity: 'error', code: 'not_delivered', count: failed });
  model.totals.errors += report.failures.length;
  model.upload = {
    summary: report.summary,
    batches: report.batches,
    ...(report.target ? { target: report.target } : {}),
  };
  return model;
}

/** A listed problem: the issue as it is, without a row for the whole file. */
function asProblem(i: Issue): Problem {
  const p: Problem = { ...i };
  if (p.row === 0) delete p.row;
  return p;
}

/** Events have no groups in their report: count the listed problems by pointer. */
function kindsOf(problems: Problem[]): ProblemKind[] {
  const map = new Map<string, ProblemKind>();
  for (const p of problems) {
    const key = `${p.severity}\0${p.code}\0${p.field ?? ''}`;
    const k = map.get(key) ?? {
      severity: p.severity,
      code: p.code,
      ...(p.field ? { field: p.field } : {}),
      count: 0,
    };
    k.count++;
    map.set(key, k);
  }
  return [...map.values()].sort((a, b) => b.count - a.count);
}

function fromEventsValidate(report: EventsValidateReport): ReportModel {
  const problems = report.issues.map(asProblem);
  return {
    command: 'events validate',
    unit: 'event',
    files: report.files,
    totals: {
      ...report.events,
      errors: report.problemCount,
      warnings: 0,
      fileErrors: problems.filter((p) => p.row === undefined).length,
    },
    problems,
    unlisted: Math.max(0, report.problemCount - problems.length),
    kinds: kindsOf(problems),
  };
}

/** How each outcome of a valid event that was not accepted reads in the reports. */
const NOT_ACCEPTED: Record<EventFailure['kind'], { code: string; words: string }> = {
  rejected: { code: 'rejected', words: 'rejected by the collection host' },
  failed: { code: 'not_delivered', words: 'not delivered' },
  unconfirmed: { code: 'unconfirmed', words: 'sent, but not confirmed (it may have landed)' },
  not_sent: { code: 'not_delivered', words: 'not sent: the run stopped before it' },
};

function fromEventsSend(report: EventsSendReport): ReportModel {
  const s = report.summary;
  const problems = report.issues.map(asProblem);
  for (const f of report.failures) {
    const o = NOT_ACCEPTED[f.kind];
    const status = typeof f.status === 'number' ? `HTTP ${f.status}` : f.status.replace(/_/g, ' ');
    problems.push({
      severity: 'error',
      code: o.code,
      file: f.file,
      row: f.row,
      line: f.line,
      type: f.type,
      message: `${o.words} (${status}): ${f.message}`,
    });
  }
  // Each invalid event and each unreadable part of a file is at least one problem.
  const invalidProblems = Math.max(s.invalid + s.fileErrors, report.issues.length);
  return {
    command: 'events send',
    unit: 'event',
    files: report.files,
    totals: {
      total: s.rows,
      valid: s.rows - s.invalid,
      invalid: s.invalid,
      errors: invalidProblems + report.failures.length,
      warnings: 0,
      fileErrors: s.fileErrors,
    },
    problems,
    unlisted: report.truncated ? Math.max(1, invalidProblems - report.issues.length) : 0,
    kinds: kindsOf(problems),
    ...(report.stopped
      ? { stopped: { reason: report.stopped.reason, message: report.stopped.message } }
      : {}),
    events: s,
  };
}

function fromSource(source: ModelSource): ReportModel {
  switch (source.command) {
    case 'validate':
    case 'convert':
      return fromValidate(source.command, source.report);
    case 'upload':
      return fromUpload(source.report);
    case 'events validate':
      return fromEventsValidate(source.report);
    case 'events send':
      return fromEventsSend(source.report);
  }
}

/** Longest value (and SKU, column, field, file name) in a report for people; longer are shortened. */
export const MAX_VALUE_CHARS = 200;
/** Longest message or hint (a server's rejection text can be any length). */
export const MAX_TEXT_CHARS = 1000;

/** Every text of a problem bounded: reporters never see a value longer than these. */
function bounded(p: Problem): Problem {
  const out: Problem = {
    ...p,
    file: shorten(p.file, MAX_VALUE_CHARS),
    message: shorten(p.message, MAX_TEXT_CHARS),
  };
  for (const key of ['sku', 'type', 'column', 'field', 'value'] as const) {
    const v = p[key];
    if (v !== undefined) out[key] = shorten(v, MAX_VALUE_CHARS);
  }
  if (p.hint !== undefined) out.hint = shorten(p.hint, MAX_TEXT_CHARS);
  return out;
}

export function toModel(source: ModelSource): ReportModel {
  const model = fromSource(source);
  model.problems = model.problems.map(bounded);
  model.files = model.files.map((f) => shorten(f, MAX_VALUE_CHARS));
  if (model.stopped) model.stopped.message = shorten(model.stopped.message, MAX_TEXT_CHARS);
  return model;
}

/** What names the record: a product's SKU or an event's type. */
export function recordName(p: { sku?: string; type?: string }): string | undefined {
  return p.sku ?? p.type;
}

/** `row 7 (line 9) SKU-00007`, `row 3 (line 3) view_product`, `file` for file-level problems. */
export function rowLabel(p: { row?: number; line?: number; sku?: string; type?: string }): string {
  if (!p.row) return 'file';
  const name = recordName(p);
  return `row ${p.row}${p.line !== undefined ? ` (line ${p.line})` : ''}${name ? ` ${name}` : ''}`;
}

/** A kind's name as people read it: `type offers.price`, `duplicate_sku`. */
export function kindLabel(k: { code: string; field?: string }): string {
  return k.field ? `${k.code} ${k.field}` : k.code;
}

/** Problems counted by source column, from the listed problems (groups do not keep columns). */
export function columnsOf(problems: Problem[]): { column: string; count: number }[] {
  const map = new Map<string, number>();
  for (const p of problems) {
    const column = p.column ?? (p.row ? '(no column)' : '(file)');
    map.set(column, (map.get(column) ?? 0) + 1);
  }
  return [...map.entries()].map(([column, count]) => ({ column, count })).sort((a, b) => b.count - a.count);
}

export const COMMAND_TITLES: Record<ReportCommand, string> = {
  validate: 'genser validate',
  convert: 'genser convert',
  upload: 'genser upload',
  'events validate': 'genser events validate',
  'events send': 'genser events send',
};
