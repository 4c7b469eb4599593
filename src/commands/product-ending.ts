import type { NightlyEnding } from '../nightly/ending.js';
import type { EmbeddedTarget, NightlyTarget } from '../nightly/plan.js';
import { uploadReport } from '../report/upload-report.js';
import type { RunningSandbox } from '../sandbox/index.js';
import { redact } from '../shared/secrets.js';
import type { CommandContext } from './context.js';
import { finishReports, type ReportingSettings, reportersOf } from './reporting.js';
import { endRun } from './sending.js';

/** What `upload` and `stock` share around the nightly domain: the embedded target and the ending. */

/** `--sandbox`'s embedded sandbox as the run's target: its own key; its daily batch run at the end. */
export function embeddedTarget(
  sandbox: RunningSandbox,
  db: string | undefined,
): NightlyTarget & { key: string } {
  const embedded: EmbeddedTarget = {
    url: sandbox.url,
    runBatch: () => sandbox.runBatch(),
    ...(db ? { db } : {}),
  };
  return { apiUrl: sandbox.url, key: sandbox.apiKey, keyFrom: 'the sandbox', sandbox: embedded };
}

/**
 * The run's ending printed: the reports (the human summary shows even under --quiet; --json
 * carries it in the document), then the stop, if any, as the exit code.
 */
export function printEnding(
  ending: NightlyEnding,
  interrupt: AbortSignal,
  s: ReportingSettings & { quiet?: boolean },
  ctx: CommandContext,
): number {
  const { result, meta } = ending;
  // A feed that failed before its first row (no such file): its one line and hint, no summary of zeros.
  const nothingRead = result.summary.rows === 0 && result.feed.fileErrors === 0;
  return endRun({ stop: result.stop, nothingRead, code: ending.code }, interrupt, () =>
    finishReports(reportersOf(s, ctx), { command: 'upload', report: uploadReport(result, meta) }, ctx, () => {
      for (const line of ending.lines(ctx.log.fancy, s.quiet === true)) ctx.stderr.write(redact(`${line}\n`));
    }),
  );
}
