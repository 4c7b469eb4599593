import type { ReportSource } from '../report/model.js';
import { parseReporters, type Reporter, writeReports } from '../report/reporters.js';
import { UsageError } from '../shared/errors.js';
import type { CommandContext } from './context.js';

/**
 * The reports a command writes at its end (docs/ci.md): `--reporter NAME[=FILE]`, plus the two
 * older ways of asking for the JSON report, `--json` (to stdout) and `--report FILE`. Parsed
 * when the command starts, so a bad value stops it (exit 2) before any work.
 */
export interface ReportingSettings {
  reporter?: string[];
  json?: boolean;
  report?: string;
}

/**
 * No reporter named: `human` (and `github` under GitHub Actions), as before reporters existed;
 * `--json` alone is the JSON document on stdout and nothing else, as it always was.
 */
export function reportersFrom(
  s: ReportingSettings,
  env: Record<string, string | undefined>,
  options: { stdoutTakenBy?: string } = {},
): Reporter[] {
  const named = s.reporter ?? [];
  if (s.json && options.stdoutTakenBy)
    throw new UsageError(
      `--json needs -o FILE: without it stdout carries ${options.stdoutTakenBy}`,
      'add -o FILE, or use --report FILE for the JSON report',
    );
  if (named.length === 0 && !s.json) {
    const defaults = parseReporters([], env);
    return s.report ? [...defaults, ...parseReporters([`json=${s.report}`], env, options)] : defaults;
  }
  const values = [...named];
  if (s.json) values.push('json');
  if (s.report) values.push(`json=${s.report}`);
  return parseReporters(values, env, options);
}

/** The reporters parsed at the start (`ctx.reporters`), or parsed now for direct callers. */
export function reportersOf(
  s: ReportingSettings,
  ctx: Pick<CommandContext, 'env' | 'reporters'>,
  options: { stdoutTakenBy?: string } = {},
): Reporter[] {
  return ctx.reporters ?? reportersFrom(s, ctx.env, options);
}

/** Writes every report of the run; `printHuman` is the command's own stderr summary. */
export function finishReports(
  reporters: Reporter[],
  source: ReportSource,
  ctx: Pick<CommandContext, 'stdout' | 'stderr' | 'env'>,
  printHuman: () => void,
): void {
  writeReports(reporters, source, { stdout: ctx.stdout, stderr: ctx.stderr, env: ctx.env, printHuman });
}
