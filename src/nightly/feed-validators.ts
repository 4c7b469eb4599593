import { isUrl, type RemoteSettings, type Validators } from '../read/index.js';
import type { NightlyDeps, NightlyPlan } from './plan.js';
import type { StateRun } from './state-run.js';

/**
 * A feed fetched from a URL, against the target's state (docs/reading.md, "Feeds from a URL"):
 * a run of one URL sends the ETag / Last-Modified the last run that ended well saw, so an
 * unchanged feed is not downloaded (the read throws FeedUnchanged: exit 0). After each run with a
 * feed, the validators its URLs answered are kept when it ended with exit 0, and dropped
 * otherwise: a run that failed, or a feed from a file, leaves nothing to compare with.
 */
export interface ConditionalFeed {
  remote: RemoteSettings;
  /** The validators sent with the one URL (those of the last run that ended well), if any. */
  since?: Validators;
  /** After the run: keep (exit 0) or drop (else) the validators its URLs answered. */
  keep(runId: string, exitCode: number): Promise<void>;
}

export async function conditionalFeed(
  plan: NightlyPlan,
  deps: NightlyDeps,
  stateRun: StateRun | undefined,
): Promise<ConditionalFeed | undefined> {
  if (!stateRun || plan.retry || !deps.remote) return undefined;
  const { state } = stateRun;
  // Several files: one unchanged among changed ones cannot be skipped (its products would be gone).
  const only = plan.files.length === 1 && isUrl(plan.files[0]) && !plan.full ? plan.files[0] : undefined;
  const kept = only ? await state.feedValidators(only) : undefined;
  const seen = new Map<string, Validators>();
  return {
    ...(kept ? { since: kept } : {}),
    remote: {
      ...deps.remote,
      ...(kept ? { since: (source: string) => (source === only ? kept : undefined) } : {}),
      seen: (source, validators) => seen.set(source, validators),
    },
    keep: (runId, exitCode) =>
      state.keepFeedValidators(runId, exitCode === 0 ? [...seen].map(([url, v]) => ({ url, ...v })) : []),
  };
}
