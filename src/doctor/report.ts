import { ExitCode, type ExitCodeValue } from '../shared/errors.js';

/**
 * What `genser doctor` found (docs/networks.md, "genser doctor"): one check per step, in the order
 * a run needs them. A failing check carries the exit code of its class (docs/architecture.md
 * section 5); the doctor exits with the first one, 0 when none failed.
 */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface Check {
  /** node, sqlite, state, lock, proxy, dns, tcp, tls, http, key, clock. */
  step: string;
  /** The host's role and URL, for the per-host steps: `API https://api.example.com`. */
  host?: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
  /** The exit code of a failing check's class. */
  exitCode?: ExitCodeValue;
}

export interface DoctorReport {
  ok: boolean;
  exitCode: ExitCodeValue;
  checks: Check[];
}

export function doctorReport(checks: Check[]): DoctorReport {
  const failed = checks.find((c) => c.status === 'fail');
  return {
    ok: failed === undefined,
    exitCode: failed ? (failed.exitCode ?? ExitCode.usage) : ExitCode.ok,
    checks,
  };
}

const MARK: Record<CheckStatus, string> = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' };

/** The human form: one line a check, the hint under a failure or warning. */
export function formatDoctor(report: DoctorReport): string {
  const lines: string[] = [];
  let host: string | undefined;
  for (const c of report.checks) {
    if (c.host !== host) {
      host = c.host;
      if (host) lines.push(`${host}:`);
    }
    lines.push(`${host ? '  ' : ''}${MARK[c.status]} ${c.step.padEnd(6)} ${c.detail}`);
    if (c.hint && (c.status === 'fail' || c.status === 'warn'))
      lines.push(`${host ? '  ' : ''}     hint: ${c.hint}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  lines.push(
    report.ok
      ? 'doctor: every check passed'
      : `doctor: ${failed} check${failed === 1 ? '' : 's'} failed (exit ${report.exitCode})`,
  );
  return `${lines.join('\n')}\n`;
}
