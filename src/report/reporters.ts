import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { UsageError } from '../shared/errors.js';
import { writeWholeFile } from '../shared/output-file.js';
import { redact } from '../shared/secrets.js';
import { withEventJsonIssues } from './events-shapes.js';
import { type GithubOutput, renderGithub } from './github.js';
import { renderHtml } from './html.js';
import { renderHuman } from './human.js';
import { renderJunit } from './junit.js';
import { type ModelSource, type ReportSource, toModel } from './model.js';
import { planLines } from './plan-report.js';
import { renderPlanGithub, renderPlanHtml, renderPlanJunit } from './plan-reports.js';
import { REPORTER_NAMES, type ReporterName } from './reporter-names.js';
import { validateReportJson, withJsonIssues } from './validate-report.js';

/**
 * `--reporter NAME[=FILE]`, repeatable: which reports a run writes, and where. Parsing is pure;
 * `writeReports` renders each reporter once and writes it to its file or stream.
 */
export { REPORTER_NAMES, type ReporterName };

export interface Reporter {
  name: ReporterName;
  /** Absent: the reporter's stream (stderr for human and github, stdout for the others). */
  file?: string;
}

const HINT = `use ${REPORTER_NAMES.join(', ')}, optionally with =FILE, e.g. --reporter junit=reports/genser.xml`;

/**
 * Where a reporter without a file writes. Annotations are messages about the data, so they go
 * to stderr with the human summary (the Actions runner reads workflow commands on both
 * streams); stdout stays for one document: json, junit or html.
 */
export function streamOf(name: ReporterName): 'stdout' | 'stderr' {
  return name === 'human' || name === 'github' ? 'stderr' : 'stdout';
}

/**
 * The reporters named by `--reporter` values. None named: `human`, and `github` too when
 * running in GitHub Actions (`GITHUB_ACTIONS=true`). `FILE` `-` means the stream.
 */
export function parseReporters(
  values: string[],
  env: Record<string, string | undefined>,
  /** What already writes to stdout, if anything (`convert` without -o: "the payloads"). */
  options: { stdoutTakenBy?: string } = {},
): Reporter[] {
  if (values.length === 0) {
    const defaults: Reporter[] = [{ name: 'human' }];
    if (env.GITHUB_ACTIONS === 'true') defaults.push({ name: 'github' });
    return defaults;
  }
  const out: Reporter[] = [];
  for (const value of values) {
    const eq = value.indexOf('=');
    const rawName = (eq < 0 ? value : value.slice(0, eq)).trim().toLowerCase();
    const file = eq < 0 ? undefined : value.slice(eq + 1);
    if (!REPORTER_NAMES.includes(rawName as ReporterName))
      throw new UsageError(`unknown reporter "${rawName}" in --reporter ${value}`, HINT);
    const name = rawName as ReporterName;
    if (file !== undefined && file.trim() === '')
      throw new UsageError(
        `--reporter ${value} names no file`,
        `give one after =, e.g. --reporter ${name}=report.out, or drop the =`,
      );
    const reporter: Reporter = file === undefined || file === '-' ? { name } : { name, file };
    if (!out.some((r) => r.name === reporter.name && r.file === reporter.file)) out.push(reporter);
  }
  const stdout = out.filter((r) => r.file === undefined && streamOf(r.name) === 'stdout').map((r) => r.name);
  if (stdout.length > 0 && options.stdoutTakenBy)
    throw new UsageError(
      `reporter ${stdout[0]} would write to stdout, where ${options.stdoutTakenBy} go`,
      `give it a file, e.g. --reporter ${stdout[0]}=report.out`,
    );
  if (stdout.length > 1)
    throw new UsageError(
      `reporters ${stdout.join(' and ')} would both write to stdout`,
      `give all but one a file, e.g. --reporter ${stdout[1]}=report.out`,
    );
  const files = new Map<string, ReporterName>();
  for (const r of out) {
    if (r.file === undefined) continue;
    const other = files.get(r.file);
    if (other)
      throw new UsageError(
        `reporters ${other} and ${r.name} would both write ${r.file}`,
        'give each reporter its own file',
      );
    files.set(r.file, r.name);
  }
  return out;
}

export interface ReportIO {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  /** The command's own human output (colours, its log): used for `human` on stderr when given. */
  printHuman?: () => void;
  /** Defaults write the file (creating its folder) and append to it. */
  writeFile?: (path: string, text: string) => void;
  appendFile?: (path: string, text: string) => void;
}

export interface ReportOptions {
  /** JUnit: rows per file listed as test cases. */
  junitMaxCases?: number;
  /** HTML: a time to show under the title. */
  generatedAt?: string;
}

/** Complete or not at all: a full disk leaves the previous report, never a truncated one. */
function defaultWrite(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeWholeFile(path, text);
}

function defaultAppend(path: string, text: string): void {
  appendFileSync(path, text);
}

/** The existing JSON report of the command, as `--json` prints it. */
export function renderJson(source: ReportSource): string {
  if (source.command === 'plan') return redact(`${JSON.stringify(source.report, null, 2)}\n`);
  if (source.command === 'validate' || source.command === 'convert') return validateReportJson(source.report);
  // The events commands print their document on one line (docs/events.md).
  if (source.command === 'events validate' || source.command === 'events send')
    return redact(
      `${JSON.stringify(withEventJsonIssues(source.report, source.command === 'events send'))}\n`,
    );
  return redact(`${JSON.stringify(withJsonIssues(source.report), null, 2)}\n`);
}

/** Appends the job summary to the file `GITHUB_STEP_SUMMARY` names; no variable, nothing done. */
export function appendStepSummary(
  markdown: string,
  env: Record<string, string | undefined>,
  append: (path: string, text: string) => void = defaultAppend,
): string | undefined {
  const path = env.GITHUB_STEP_SUMMARY;
  if (!path) return undefined;
  append(path, markdown.endsWith('\n') ? `${markdown}\n` : `${markdown}\n\n`);
  return path;
}

function cannotWrite(what: string, path: string, err: unknown): UsageError {
  const code = (err as NodeJS.ErrnoException).code ?? String(err);
  return new UsageError(
    `cannot write the ${what} report to ${path}: ${code}`,
    code === 'ENOSPC'
      ? 'the disk is full: free some space; the previous report there, if any, is left as it was'
      : 'check that the folder is writable, or give another file with --reporter NAME=FILE',
  );
}

interface Renderers {
  human(): string;
  junit(): string;
  html(): string;
  github(): GithubOutput;
}

/** A plan's own renderers, or the model's (flattened once, so the formats agree on every count). */
function renderersOf(source: ReportSource, options: ReportOptions): Renderers {
  if (source.command === 'plan') {
    const doc = source.report;
    return {
      human: () => redact(`${planLines(doc).join('\n')}\n`),
      junit: () => renderPlanJunit(doc),
      html: () => renderPlanHtml(doc, { generatedAt: options.generatedAt }),
      github: () => renderPlanGithub(doc),
    };
  }
  const model = toModel(source satisfies ModelSource);
  return {
    human: () => renderHuman(model),
    junit: () => renderJunit(model, { maxCases: options.junitMaxCases }),
    html: () => renderHtml(model, { generatedAt: options.generatedAt }),
    github: () => renderGithub(model),
  };
}

/**
 * Renders every reporter and writes it. Returns the files written. A file that cannot be
 * written is a usage error naming it; the other reports are still written first.
 */
export function writeReports(
  reporters: Reporter[],
  source: ReportSource,
  io: ReportIO,
  options: ReportOptions = {},
): string[] {
  const render = renderersOf(source, options);
  const write = io.writeFile ?? defaultWrite;
  const append = io.appendFile ?? defaultAppend;
  const written: string[] = [];
  let failure: UsageError | undefined;
  const put = (r: Reporter, text: string) => {
    if (r.file === undefined) {
      (streamOf(r.name) === 'stdout' ? io.stdout : io.stderr).write(text);
      return;
    }
    try {
      write(r.file, text);
      written.push(r.file);
    } catch (err) {
      failure ??= cannotWrite(r.name, r.file, err);
    }
  };
  for (const r of reporters) {
    switch (r.name) {
      case 'human':
        if (r.file === undefined && io.printHuman) io.printHuman();
        else put(r, render.human());
        break;
      case 'json':
        put(r, renderJson(source));
        break;
      case 'junit':
        put(r, render.junit());
        break;
      case 'html':
        put(r, render.html());
        break;
      case 'github': {
        const out = render.github();
        put(r, `${out.lines.join('\n')}\n`);
        try {
          const path = appendStepSummary(out.summaryMarkdown, io.env, append);
          if (path) written.push(path);
        } catch (err) {
          failure ??= cannotWrite('GitHub job summary', io.env.GITHUB_STEP_SUMMARY ?? '', err);
        }
        break;
      }
    }
  }
  if (failure) throw failure;
  return written;
}
