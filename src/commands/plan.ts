import type { NightlyTarget } from '../nightly/plan.js';
import { planDocument } from '../nightly/plan-report.js';
import { planNightly } from '../nightly/plan-run.js';
import { sourceName } from '../read/index.js';
import { planLines } from '../report/plan-report.js';
import { streamOf } from '../report/reporters.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import { redact } from '../shared/secrets.js';
import type { CommandContext } from './context.js';
import { feedRemote } from './feed-remote.js';
import { embeddedTarget } from './product-ending.js';
import { finishReports, reportersOf } from './reporting.js';
import { withSending } from './sending.js';
import { checkTarget, planOf, type UploadCommandSettings } from './upload.js';

type Key = { value: string; from: string };

/**
 * The `genser plan` action (docs/nightly.md, "Before and after the run"): the upload's own
 * settings and target, the feed read against the target's state, nothing sent; the plan on
 * stdout (text, or one JSON document with --json), and any other reporter (junit, github, html;
 * src/report/plan-reports.ts). Exit 6 when a guard would refuse the upload,
 * 1 when rows are invalid, else 0: the code the upload would end with before it sends.
 */
export async function runPlan(
  files: string[],
  s: UploadCommandSettings,
  loadedKey: Key | undefined,
  ctx: CommandContext,
): Promise<number> {
  if (s.retryFailed)
    throw new UsageError(
      'genser plan takes a feed: --retry-failed has nothing to plan',
      'drop --retry-failed',
    );
  if (s.rejects !== undefined)
    throw new UsageError(
      'genser plan writes no rejects file: it reads the feed to count, and sends nothing',
      'write the refused rows with genser validate FILE --rejects OUT, or drop --rejects',
    );
  if (s.sandbox && s.state === undefined)
    throw new UsageError(
      'a plan needs the upload state of a target: --sandbox keeps none without --state',
      'give --state DIR and --sandbox-db FILE, as the uploads to that sandbox do',
    );
  const plan = planOf(files, { ...s, dryRun: false }, ctx);
  const target = s.sandbox ? undefined : checkTarget({ ...s, dryRun: false }, false, loadedKey);
  const sandbox = s.sandbox
    ? {
        service: 'products' as const,
        wanted: { country: plan.feed.country, db: s.sandboxDb, sqlite: s.sqlite },
        givenUrl: s.apiUrl,
      }
    : undefined;
  return withSending(
    ctx.log,
    { stopMessage: 'stopping the read', ...(sandbox ? { sandbox } : {}) },
    async ({ stop, sandbox: running }) => {
      const to: NightlyTarget | undefined = running ? embeddedTarget(running, s.sandboxDb) : target;
      const planned = await planNightly(
        { ...plan, ...(to ? { target: to } : {}) },
        {
          log: ctx.log,
          env: ctx.env,
          interrupt: stop.signal,
          ...(ctx.network ? { network: ctx.network } : {}),
          remote: feedRemote(ctx),
          ...(files.includes('-') ? { stdin: process.stdin } : {}),
        },
      );
      const where = running
        ? `the embedded sandbox${s.sandboxDb ? ` (${s.sandboxDb})` : ''}`
        : `POST ${(to?.apiUrl ?? '').replace(/\/+$/, '')}${plan.settings.path}`;
      const doc = planDocument(planned, { target: redact(where), files: files.map(sourceName) });
      const reporters = reportersOf(s, ctx);
      // The plan's text is its data: on stdout, unless a reporter (json, junit, html) writes there.
      const taken = reporters.some((r) => r.file === undefined && streamOf(r.name) === 'stdout');
      const out = taken ? ctx.stderr : ctx.stdout;
      finishReports(reporters, { command: 'plan', report: doc }, ctx, () => {
        for (const line of planLines(doc)) out.write(`${line}\n`);
      });
      if (planned.interrupted)
        return stop.signal.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
      if (doc.guards.outcome === 'refuse') return ExitCode.guard;
      return doc.refused > 0 ? ExitCode.data : ExitCode.ok;
    },
  );
}
