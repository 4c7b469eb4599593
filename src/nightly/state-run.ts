import { resolve } from 'node:path';
import { isUrl, sourceName } from '../read/index.js';
import { ExitCode } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { Delta } from '../upload/state/delta.js';
import type { UploadState } from '../upload/state/store.js';
import type { UploadResult } from '../upload/types.js';
import type { FeedColumns } from './feed-columns.js';
import { openTargetState, type StateWhere } from './state-open.js';

export { type StateWhere, stateUnderOtherSharding } from './state-open.js';

/**
 * The upload state of a run (docs/nightly.md): opened and locked before the feed is read, for
 * every real upload; an embedded `--sandbox` run keeps none unless `--state` is given, so the
 * Quick start stays stateless. A dry run sends nothing and keeps none.
 */
export interface StateRun {
  state: UploadState;
  delta: Delta;
  full: boolean;
  /** Set when this (new) state starts beside the state of another shard count of the target. */
  note?: string;
  /** The state directory (the guard's spool is written there). */
  dir: string;
  /** Products gone from the feed and sent as out of stock (`--missing out-of-stock`), once counted. */
  gone?: number;
  /** The feed's rows, all shards', as the guards' pass counted them (when it ran). */
  feedRows?: number;
  /** A guard tripped and the run held back its removals: it is no complete run for the guards. */
  held?: boolean;
  /** The feed's columns as the run reads them (mapping drift), when it reads a feed. */
  columns?: FeedColumns;
  /** The mapping drift was said (by the guards' pass), not to be said again at the end. */
  driftSaid?: boolean;
  /** Per SKU absent from the feed, the complete runs in a row it has been (`--missing-after`). */
  missingRuns: ReadonlyMap<string, number>;
  /** Records the run's start in the history; returns its id. */
  startRun(files: string[], label?: string): Promise<string>;
  /** Closes the state (its lock released, its copy and seal made when due) and the delta's sets. */
  close(): Promise<void>;
  /** Completes the run's history row (never throws: the run's own outcome matters more). */
  finishRun(
    id: string,
    result: UploadResult | undefined,
    exitCode: number,
    report: string | undefined,
    durationMs: number,
  ): Promise<void>;
}

export async function openStateRun(
  s: { state?: string; full?: boolean; marksSeen?: boolean },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
  log?: Pick<Logger, 'warn'>,
): Promise<StateRun | undefined> {
  if (where.sandbox && s.state === undefined) return undefined;
  const { state, note, dir } = await openTargetState(s, where, env);
  const full = s.full === true;
  let delta: Delta;
  try {
    await state.lock(new Date(), (line) => log?.warn(`state: ${line}`));
    delta = await Delta.load(state, full, s.marksSeen);
  } catch (err) {
    await state.close();
    throw err;
  }
  return {
    state,
    delta,
    full,
    ...(note ? { note } : {}),
    dir,
    missingRuns: await state.missingRuns(),
    async close() {
      delta.close();
      await state.close();
    },
    async startRun(files, label) {
      const id = await state.startRun(
        label ?? files.map((f) => (f === '-' ? f : isUrl(f) ? sourceName(f) : resolve(f))).join(' '),
      );
      delta.runId = id;
      return id;
    },
    async finishRun(id, result, exitCode, report, durationMs) {
      const sum = result?.summary;
      try {
        await state.finishRun(id, {
          exitCode,
          durationMs,
          ...(report !== undefined ? { report } : {}),
          ...(sum
            ? {
                counts: {
                  rows: sum.rows,
                  sent: sum.sent,
                  accepted: sum.accepted,
                  rejected: sum.rejected,
                  failed: sum.failed,
                  unchanged: sum.unchanged ?? 0,
                  unconfirmed: sum.unconfirmed,
                  notSent: sum.notSent,
                },
              }
            : {}),
        });
      } catch {
        // A history row left open reads as a run that did not finish: true enough.
      }
      // A run that ended (not stopped by the service or a bug): its state is the last good one.
      if (exitCode === ExitCode.ok || exitCode === ExitCode.data) await state.keepLastGood();
    },
  };
}
