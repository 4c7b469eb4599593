import type { GuardRules, OnGuard, PriceShock } from '../nightly/guard-rules.js';
import type { NightlyPlan, NightlyTarget } from '../nightly/plan.js';
import type { MissingMode } from '../nightly/rows.js';
import { runNightly } from '../nightly/run.js';
import { RejectsFile, rejectsKind } from '../report/rejects.js';
import { UsageError } from '../shared/errors.js';
import type { BackendChoice } from '../storage/sqlite.js';
import type { InvalidBudget } from '../upload/budget.js';
import { type UploadInputs, uploadSettingsFrom } from '../upload/settings.js';
import { resolveShard, type Shard } from '../upload/shard.js';
import { type AlertInputs, withAlerts } from './alerting.js';
import type { CommandContext } from './context.js';
import { feedRemote } from './feed-remote.js';
import { type FeedSettings, feedOptionsFrom, workersFrom } from './feed-settings.js';
import { embeddedTarget, printEnding } from './product-ending.js';
import { copiedInputs, withRejects } from './rejects.js';
import { requireTarget, withSending } from './sending.js';

export interface UploadCommandSettings extends FeedSettings, UploadInputs, AlertInputs {
  apiUrl?: string;
  /** Seconds. */
  timeout: number;
  maxInvalid?: InvalidBudget;
  sandbox?: boolean;
  sandboxDb?: string;
  sqlite?: BackendChoice;
  state?: string;
  full?: boolean;
  missing?: MissingMode;
  missingAfter?: number;
  maxChange?: InvalidBudget;
  minRows?: number;
  minShare?: number;
  priceShock?: PriceShock | 'off';
  onGuard?: OnGuard;
  retryFailed?: boolean;
  shard?: Shard;
  shardCount?: number;
}

type Key = { value: string; from: string };

/**
 * The `genser upload` action: the settings resolved into the nightly run's plan, the shared
 * sending skeleton (embedded sandbox, orderly stop), the run (src/nightly/), then its summary,
 * reports and exit code.
 */
export async function runUpload(
  files: string[],
  s: UploadCommandSettings,
  loadedKey: Key | undefined,
  ctx: CommandContext,
): Promise<number> {
  const plan = planOf(files, s, ctx);
  const log = ctx.log;
  // An embedded sandbox is started unless the run sends nothing anyway.
  const embedded = s.sandbox === true && !plan.settings.dryRun;
  const target = embedded ? undefined : checkTarget(s, plan.settings.dryRun, loadedKey);
  const sandbox = embedded
    ? {
        service: 'products' as const,
        wanted: { country: plan.feed.country, db: s.sandboxDb, sqlite: s.sqlite },
        givenUrl: s.apiUrl,
      }
    : undefined;
  const alerted = {
    command: 'upload' as const,
    url: s.sandbox ? undefined : s.apiUrl,
    format: plan.feed.format,
    ...(plan.shard ? { shard: `${plan.shard.index}/${plan.shard.count}` } : {}),
  };
  return withAlerts(s, alerted, ctx, (note) =>
    withSending(
      log,
      {
        stopMessage: 'finishing the requests in flight',
        ...(sandbox ? { sandbox } : {}),
        ...(files.includes('-') ? { stdin: process.stdin } : {}),
      },
      async ({ stop, sandbox: running }) => {
        const to: NightlyTarget | undefined = running ? embeddedTarget(running, s.sandboxDb) : target;
        const rejects = s.rejects
          ? new RejectsFile(s.rejects, rejectsKind(files, plan.feed.inputType))
          : undefined;
        if (rejects) plan.feed.keepRecords = true;
        const inputs = copiedInputs(
          rejects,
          feedRemote(ctx),
          files.includes('-') ? process.stdin : undefined,
        );
        const ending = await withRejects(rejects, files, plan, log, () =>
          runNightly(
            { ...plan, ...(to ? { target: to } : {}) },
            {
              log,
              env: ctx.env,
              interrupt: stop.signal,
              ...(ctx.network ? { network: ctx.network } : {}),
              ...inputs,
              ...(rejects ? { rejects } : {}),
              ...(s.quiet || s.json ? {} : { progress: ctx.stderr }),
              onLogger: (say) => {
                stop.say = say;
              },
            },
          ),
        );
        note(ending);
        return printEnding(ending, stop.signal, s, ctx);
      },
    ),
  );
}

/** The run's plan from the settings; a feed with --retry-failed (or none without it) is a usage error. */
export function planOf(files: string[], s: UploadCommandSettings, ctx: CommandContext): NightlyPlan {
  const retry = s.retryFailed === true;
  if (retry && files.length > 0)
    throw new UsageError(
      '--retry-failed takes no feed: it sends the saved rows of the last run',
      'drop the file names, or drop --retry-failed to upload the feed',
    );
  if (!retry && files.length === 0)
    throw new UsageError(
      'no feed to upload',
      'name the feed files (or "-" for stdin), or use --retry-failed',
    );
  if (retry && (s.dryRun || (s.sandbox && s.state === undefined)))
    throw new UsageError(
      '--retry-failed needs the upload state of a real target',
      'run it with the same --api-url, key and format as the failed run (with --sandbox, give --state and --sandbox-db)',
    );
  const feed = feedOptionsFrom(s, ctx);
  const shard = resolveShard({
    shard: s.shard,
    shardCount: s.shardCount,
    jobIndex: ctx.env.JOB_COMPLETION_INDEX,
  });
  return {
    files,
    feed,
    settings: uploadSettingsFrom(s, feed),
    timeoutMs: s.timeout * 1000,
    ...(s.state !== undefined ? { state: s.state } : {}),
    full: s.full === true,
    missing: s.missing ?? 'ignore',
    missingAfter: s.missingAfter ?? 1,
    ...(retry ? {} : { guards: guardRulesFrom(s) }),
    ...(s.maxInvalid ? { maxInvalid: s.maxInvalid } : {}),
    ...(shard ? { shard } : {}),
    retry,
    workers: workersFrom({ threads: s.threads }),
  };
}

/**
 * The guards' rules (docs/nightly.md, "Before and after the run"). Their defaults are the option
 * table's; a setting left out (a caller without the table) is a guard off.
 */
function guardRulesFrom(s: UploadCommandSettings): GuardRules {
  return {
    maxChange: s.maxChange ?? { kind: 'percent', max: 100 },
    minRows: s.minRows ?? 0,
    minShare: s.minShare ?? 0,
    priceShock: s.priceShock ?? 'off',
    strict: s.strict === true,
    onGuard: s.onGuard ?? 'refuse',
  };
}

/**
 * Where to send, checked before anything is read: a missing URL or key is a usage error. A dry
 * run needs neither (a url given still names the target in the report).
 */
export function checkTarget(
  s: UploadCommandSettings,
  dryRun: boolean,
  key: Key | undefined,
): NightlyTarget | undefined {
  if (dryRun || s.sandbox) return s.apiUrl && !s.sandbox ? { apiUrl: s.apiUrl } : undefined;
  const to = requireTarget('products', {
    url: s.apiUrl,
    key: key?.value,
    urlHint: 'or try it locally first with --sandbox, or check the feed with --dry-run',
    keyHint: 'or try it locally first with --sandbox',
  });
  return { apiUrl: to.url, key: to.key, keyFrom: key?.from ?? 'the environment' };
}
