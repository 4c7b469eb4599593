import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ExitCode } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { PayloadFormat } from '../shared/types.js';
import { type Shard, shardName } from '../upload/shard.js';
import { Delta } from '../upload/state/delta.js';
import { SqliteState } from '../upload/state/sqlite-state.js';
import type { UploadState } from '../upload/state/store.js';
import {
  canonicalApiUrl,
  defaultStateDir,
  ensureStateDir,
  keyFingerprint,
  type StateTarget,
  stateFileName,
  stateFilePrefix,
  stateSalt,
} from '../upload/state/target.js';
import type { UploadResult } from '../upload/types.js';

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
  /** Records the run's start in the history; returns its id. */
  startRun(files: string[], label?: string): Promise<string>;
  /** Completes the run's history row (never throws: the run's own outcome matters more). */
  finishRun(
    id: string,
    result: UploadResult | undefined,
    exitCode: number,
    report: string | undefined,
    durationMs: number,
  ): Promise<void>;
}

export interface StateWhere {
  apiUrl: string;
  key: string;
  format: PayloadFormat;
  /** The embedded sandbox's --sandbox-db, when it runs embedded. */
  sandbox?: { db?: string };
  /** `--shard I/N`: the shard's own state, lock and history. */
  shard?: Shard;
}

/** Where a target's state lives: its directory and the target that names its file. */
function stateTargetOf(s: { state?: string }, where: StateWhere, env: NodeJS.ProcessEnv) {
  const dir = s.state ?? defaultStateDir(env);
  ensureStateDir(dir);
  const salt = stateSalt(dir);
  const target: StateTarget = {
    // An embedded sandbox gets a new port every run: its file (or the run itself) names it.
    apiUrl: where.sandbox
      ? `sandbox:${where.sandbox.db ? resolve(where.sandbox.db) : canonicalApiUrl(where.apiUrl)}`
      : canonicalApiUrl(where.apiUrl),
    format: where.format,
    keyFingerprint: keyFingerprint(where.key, salt),
    ...(where.shard ? { shard: where.shard } : {}),
  };
  return { dir, target };
}

/**
 * Whether the target has no state of its own but state under another shard count, found
 * without making any: `genser stock` merges into what uploads accepted, so that is the user's
 * setting to fix, not a new empty state to start.
 */
export function stateUnderOtherSharding(
  s: { state?: string },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
): boolean {
  if (where.sandbox && s.state === undefined) return false;
  const { dir, target } = stateTargetOf(s, where, env);
  return otherShardingNote(dir, target) !== undefined;
}

export async function openStateRun(
  s: { state?: string; full?: boolean },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
  log?: Pick<Logger, 'warn'>,
): Promise<StateRun | undefined> {
  if (where.sandbox && s.state === undefined) return undefined;
  const { dir, target } = stateTargetOf(s, where, env);
  const note = otherShardingNote(dir, target);
  const state: UploadState = SqliteState.open(dir, target);
  const full = s.full === true;
  let delta: Delta;
  try {
    await state.lock(new Date(), (line) => log?.warn(`state: ${line}`));
    delta = await Delta.load(state, full);
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
    async startRun(files, label) {
      const id = await state.startRun(label ?? files.map((f) => (f === '-' ? f : resolve(f))).join(' '));
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
                  failed: sum.failed + sum.unconfirmed + sum.notSent,
                  unchanged: sum.unchanged ?? 0,
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

/**
 * Changing the shard count (or sharding a target kept whole) starts a new state per shard
 * (docs/nightly.md, "Shards"): said once, when this run's state file does not exist yet and the
 * target has state under another count.
 */
function otherShardingNote(dir: string, target: StateTarget): string | undefined {
  const own = stateFileName(target);
  if (existsSync(join(dir, own))) return undefined;
  const prefix = stateFilePrefix(target);
  const counts = new Set<string>();
  for (const f of readdirSync(dir)) {
    if (f === own || !f.startsWith(prefix) || !f.endsWith('.sqlite')) continue;
    const m = /-shard-\d+-of-(\d+)\.sqlite$/.exec(f);
    if (f === `${prefix}.sqlite`) counts.add('unsharded');
    else if (m) counts.add(`${m[1]} shards`);
  }
  // Another shard of this same count starting its state is no change of count.
  if (target.shard) counts.delete(`${target.shard.count} shards`);
  if (counts.size === 0) return undefined;
  const now = target.shard ? `shard ${shardName(target.shard)}` : 'the whole feed (no --shard)';
  return `state: no state yet for ${now} of this target, which has state for ${[...counts].sort().join(' and ')}: a new shard count starts a new state per shard, so this run sends every product of ${target.shard ? 'its shard' : 'the feed'} once`;
}
