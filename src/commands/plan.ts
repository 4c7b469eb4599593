import type { NightlyTarget } from '../nightly/plan.js';
import { planDocument, planLines } from '../nightly/plan-report.js';
import { planNightly } from '../nightly/plan-run.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import { redact } from '../shared/secrets.js';
import type { CommandContext } from './context.js';
import { embeddedTarget } from './product-ending.js';
import { withSending } from './sending.js';
import { checkTarget, planOf, type UploadCommandSettings } from './upload.js';

type Key = { value: string; from: string };

/**
 * The `genser plan` action (docs/nightly.md, "Before and after the run"): the upload's own
 * settings and target, the feed read against the target's state, nothing sent; the plan on
 * stdout (text, or one JSON document with --json). Exit 6 when a guard would refuse the upload,
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
          ...(files.includes('-') ? { stdin: process.stdin } : {}),
        },
      );
      const where = running
        ? `the embedded sandbox${s.sandboxDb ? ` (${s.sandboxDb})` : ''}`
        : `POST ${(to?.apiUrl ?? '').replace(/\/+$/, '')}${plan.settings.path}`;
      const doc = planDocument(planned, { target: redact(where), files });
      if (s.json) ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
      else for (const line of planLines(doc)) ctx.stdout.write(`${line}\n`);
      if (planned.interrupted)
        return stop.signal.reason === 'SIGTERM' ? ExitCode.terminated : ExitCode.interrupted;
      if (doc.guards.outcome === 'refuse') return ExitCode.guard;
      return doc.refused > 0 ? ExitCode.data : ExitCode.ok;
    },
  );
}
