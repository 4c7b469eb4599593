import { type AlertSettings, type ProblemLine, RunAlerts, type RunReport } from '../alerts/index.js';
import { dispatcherFor } from '../http/network.js';
import type { NightlyEnding } from '../nightly/ending.js';
import { ExitCode, ExitError } from '../shared/errors.js';
import type { CommandContext } from './context.js';

/**
 * `--notify`, `--ping` and `--status-file` around an `upload` or `stock` run (docs/nightly.md,
 * "Alerts and monitoring"): the start ping before anything is read; the notification, the end
 * ping and the status file once the exit code is known, whatever ended the run (a stop, a lock
 * held, a refused key). Nothing here changes that exit code.
 */
export interface AlertInputs {
  notify?: string;
  notifyOn: 'failure' | 'always';
  ping?: string;
  statusFile?: string;
}

export interface AlertedRun {
  command: 'upload' | 'stock';
  /** The service's URL as given (credentials are dropped before it is shown anywhere). */
  url?: string;
  format: string;
  shard?: string;
}

const OUTCOMES: Record<number, string> = {
  [ExitCode.ok]: 'all sent rows accepted',
  [ExitCode.data]: 'invalid rows, or rows the service rejected',
  [ExitCode.usage]: 'a usage or configuration error',
  [ExitCode.auth]: 'the service refused the key',
  [ExitCode.unavailable]: 'the service was unavailable',
  [ExitCode.locked]: 'another run holds the lock',
  [ExitCode.guard]: 'a guard refused the run: nothing was sent',
  [ExitCode.interrupted]: 'interrupted (Ctrl-C)',
  [ExitCode.terminated]: 'stopped (SIGTERM)',
};

/** The URL without user, password, query or fragment: what a report may show of a target. */
export function shownUrl(url: string | undefined): string {
  if (url === undefined) return '(no service: a dry run or an embedded sandbox)';
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(an invalid URL)';
  }
}

function problemsOf(ending: NightlyEnding | undefined, thrown: unknown): ProblemLine[] {
  if (ending === undefined) return thrown instanceof Error ? [{ message: (thrown as Error).message }] : [];
  const { result } = ending;
  // Errors before warnings: the first thing a person reads is what broke.
  const issues = [...result.issues].sort(
    (a, b) => Number(a.severity !== 'error') - Number(b.severity !== 'error'),
  );
  const fromIssues = issues.map((i) => ({
    file: i.file,
    row: i.row,
    line: i.line,
    sku: i.sku,
    message: i.message,
  }));
  const fromFailures = result.failures.map((f) => ({
    file: f.file,
    row: f.row,
    line: f.line,
    sku: f.sku,
    message: f.message,
  }));
  const stop = result.stop ? [{ message: result.stop.message }] : [];
  return [...stop, ...fromFailures, ...fromIssues];
}

export function runReportOf(
  run: AlertedRun,
  code: number,
  startedAt: Date,
  ending: NightlyEnding | undefined,
  thrown?: unknown,
): RunReport {
  const s = ending?.result.summary;
  const counts: Record<string, number> = s
    ? {
        rows: s.rows,
        invalid: s.invalid,
        unchanged: s.unchanged ?? 0,
        accepted: s.accepted,
        rejected: s.rejected,
        failed: s.failed,
        unconfirmed: s.unconfirmed,
        notSent: s.notSent,
      }
    : { rows: 0 };
  return {
    command: run.command,
    target: { url: shownUrl(run.url), format: run.format, ...(run.shard ? { shard: run.shard } : {}) },
    exitCode: code,
    outcome: OUTCOMES[code] ?? 'a bug in genser',
    counts,
    problems: problemsOf(ending, thrown),
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
  };
}

/**
 * Runs `body` between the alerts. `body` hands its ending to `note` (when the run got as far
 * as one), and returns or throws as it would without alerts.
 */
export async function withAlerts(
  inputs: AlertInputs,
  run: AlertedRun,
  ctx: CommandContext,
  body: (note: (ending: NightlyEnding) => void) => Promise<number>,
): Promise<number> {
  const settings: AlertSettings = { notifyOn: inputs.notifyOn };
  if (inputs.notify !== undefined) settings.notify = inputs.notify;
  if (inputs.ping !== undefined) settings.ping = inputs.ping;
  if (inputs.statusFile !== undefined) settings.statusFile = inputs.statusFile;
  const network = ctx.network;
  const http = {
    timeoutMs: 10_000,
    // The proxy and CAs of every other request (docs/networks.md), for the webhook's own host.
    ...(network
      ? {
          dispatcher: (url: URL) =>
            dispatcherFor(url, network, { connections: 1, timeoutMs: 10_000 }).dispatcher,
        }
      : {}),
  };
  const alerts = new RunAlerts(settings, http, ctx.log);
  if (!alerts.active) return body(() => {});
  const startedAt = new Date();
  await alerts.started();
  let ending: NightlyEnding | undefined;
  try {
    const code = await body((e) => {
      ending = e;
    });
    await alerts.finished(runReportOf(run, code, startedAt, ending));
    return code;
  } catch (err) {
    const code = err instanceof ExitError ? err.exitCode : ExitCode.internal;
    await alerts.finished(runReportOf(run, code, startedAt, ending, err));
    throw err;
  }
}
