import { redact } from '../shared/secrets.js';
import { COMMAND_TITLES, kindLabel, type Problem, type ReportModel, rowLabel } from './model.js';

/**
 * JUnit XML as Jenkins and GitLab read it (test/fixtures/jenkins-junit.xsd): one testsuite per
 * input file, one testcase per row with problems, one <failure> per error. Warnings do not fail
 * a case: they go to its system-out. A clean file is one passing case. Past `maxCases` rows per
 * file, the rest are summarised in one case so a feed with 100k bad rows stays readable.
 */
export interface JunitOptions {
  /** Rows listed as test cases per file; the rest are counted in one summary case. */
  maxCases?: number;
}

export const JUNIT_MAX_CASES = 1000;

// XML 1.0 allows TAB, LF, CR and everything from U+0020 except surrogates and U+FFFE/U+FFFF;
// DEL and the C1 controls are allowed but invisible, so they are shown too.
const NOT_XML =
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Characters XML cannot carry become visible `\u0001` text. */
function visible(text: string): string {
  return text.replace(NOT_XML, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

export function xmlText(text: string): string {
  return visible(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values: also quotes, and TAB/LF/CR as references so parsers keep them. */
export function xmlAttr(text: string): string {
  return xmlText(text)
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#9;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;');
}

interface Case {
  name: string;
  failures: Problem[];
  /** Not-delivered rows: the service, not the data, failed (JUnit `error`). */
  errors: Problem[];
  warnings: Problem[];
}

interface Suite {
  name: string;
  cases: Case[];
  /** The case of each row number (0: the file itself). */
  rows: Map<number, Case>;
  /** Rows past maxCases: counted, then summarised. */
  more: Set<number>;
  moreProblems: number;
  moreErrors: number;
}

function detail(p: Problem): string {
  const lines = [
    p.file ? `file: ${p.file}` : undefined,
    p.row ? `row: ${p.row}` : undefined,
    p.line !== undefined ? `line: ${p.line}` : undefined,
    p.sku ? `sku: ${p.sku}` : undefined,
    p.type ? `type: ${p.type}` : undefined,
    p.column ? `column: ${p.column}` : undefined,
    p.field ? `field: ${p.field}` : undefined,
    p.value !== undefined ? `value: ${p.value}` : undefined,
    `message: ${p.message}`,
    p.hint ? `hint: ${p.hint}` : undefined,
  ];
  return lines.filter((l) => l !== undefined).join('\n');
}

function caseXml(c: Case, classname: string): string {
  const out = [`    <testcase name="${xmlAttr(c.name)}" classname="${xmlAttr(classname)}">`];
  const element = (tag: 'failure' | 'error', p: Problem) =>
    `      <${tag} type="${xmlAttr(kindLabel(p))}" message="${xmlAttr(p.message)}">${xmlText(detail(p))}</${tag}>`;
  // The XSD's order: errors, then failures, then system-out.
  for (const p of c.errors) out.push(element('error', p));
  for (const p of c.failures) out.push(element('failure', p));
  if (c.warnings.length > 0) {
    const text = c.warnings
      .map((w) => `warning ${kindLabel(w)}: ${detail(w).replace(/\n/g, '; ')}`)
      .join('\n');
    out.push(`      <system-out>${xmlText(text)}</system-out>`);
  }
  out.push('    </testcase>');
  return out.join('\n');
}

function suitesOf(model: ReportModel, maxCases: number): Suite[] {
  const suites = new Map<string, Suite>();
  const suite = (file: string) => {
    let s = suites.get(file);
    if (!s) {
      s = { name: file, cases: [], rows: new Map(), more: new Set(), moreProblems: 0, moreErrors: 0 };
      suites.set(file, s);
    }
    return s;
  };
  for (const file of model.files) suite(file);
  for (const p of model.problems) {
    const s = suite(p.file);
    const row = p.row ?? 0;
    let c = s.rows.get(row);
    if (!c) {
      if (s.cases.length >= maxCases) {
        s.more.add(row);
        s.moreProblems++;
        if (p.severity === 'error') s.moreErrors++;
        continue;
      }
      c = { name: rowLabel(p), failures: [], errors: [], warnings: [] };
      s.rows.set(row, c);
      s.cases.push(c);
    }
    if (p.severity === 'warning') c.warnings.push(p);
    else if (p.code === 'not_delivered') c.errors.push(p);
    else c.failures.push(p);
  }
  return [...suites.values()];
}

export function renderJunit(model: ReportModel, options: JunitOptions = {}): string {
  const maxCases = Math.max(1, options.maxCases ?? JUNIT_MAX_CASES);
  const title = COMMAND_TITLES[model.command];
  const suites = suitesOf(model, maxCases);
  const unit = model.unit;
  const parts: string[] = [];
  let tests = 0;
  let failures = 0;
  let errors = 0;
  const addSuite = (name: string, cases: Case[], extra: string[] = []) => {
    const f = cases.filter((c) => c.failures.length > 0 && c.errors.length === 0).length;
    const e = cases.filter((c) => c.errors.length > 0).length;
    tests += cases.length;
    failures += f;
    errors += e;
    parts.push(
      `  <testsuite name="${xmlAttr(name)}" tests="${cases.length}" failures="${f}" errors="${e}" skipped="0">`,
      ...cases.map((c) => caseXml(c, name)),
      ...extra,
      '  </testsuite>',
    );
  };
  for (const suite of suites) {
    const cases = [...suite.cases];
    if (suite.more.size > 0) cases.push(summaryCase(suite, unit, maxCases));
    if (cases.length === 0)
      cases.push({ name: `no problems in ${suite.name}`, failures: [], errors: [], warnings: [] });
    addSuite(suite.name, cases);
  }
  // Problems the report counted but did not list: their rows are not known, only their number.
  if (model.unlisted > 0) {
    const listedErrors = model.problems.filter((p) => p.severity === 'error').length;
    const unlistedErrors = Math.max(0, model.totals.errors - listedErrors);
    const note: Problem = {
      severity: unlistedErrors > 0 ? 'error' : 'warning',
      code: 'not_listed',
      file: '',
      message: `${model.unlisted} more problems (${unlistedErrors} errors) were counted but not listed`,
      hint: 'raise --max-errors to list them; the problem kinds in system-out count them all',
    };
    const more: Case = {
      name: `${model.unlisted} more problems not listed in the report`,
      failures: unlistedErrors > 0 ? [note] : [],
      errors: [],
      warnings: unlistedErrors > 0 ? [] : [note],
    };
    const kinds = model.kinds.map((k) => `${k.severity} ${kindLabel(k)}: ${k.count}`).join('\n');
    addSuite(`${title}: not listed`, [more], [`    <system-out>${xmlText(kinds)}</system-out>`]);
  }
  const head = `<testsuites name="${xmlAttr(title)}" tests="${tests}" failures="${failures}" errors="${errors}">`;
  return redact(['<?xml version="1.0" encoding="UTF-8"?>', head, ...parts, '</testsuites>', ''].join('\n'));
}

function summaryCase(suite: Suite, unit: string, maxCases: number): Case {
  const note: Problem = {
    severity: suite.moreErrors > 0 ? 'error' : 'warning',
    code: 'more_rows',
    file: '',
    message: `${suite.more.size} more ${unit}s have ${suite.moreProblems} problems (${suite.moreErrors} errors); only the first ${maxCases} ${unit}s with problems are test cases`,
    hint: 'see the JSON or HTML report for every listed problem',
  };
  return {
    name: `${suite.more.size} more ${unit}s with problems`,
    failures: suite.moreErrors > 0 ? [note] : [],
    errors: [],
    warnings: suite.moreErrors > 0 ? [] : [note],
  };
}
