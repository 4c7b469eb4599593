import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PayloadFormat } from '../shared/types.js';
import { type Shard, shardName } from '../upload/shard.js';
import { type StateLocation, stateLocation } from '../upload/state/location.js';
import { connectState, databaseSalt, pgShardingCounts } from '../upload/state/pg-open.js';
import { PgState } from '../upload/state/pg-state.js';
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

export interface StateWhere {
  apiUrl: string;
  key: string;
  format: PayloadFormat;
  /** The embedded sandbox's --sandbox-db, when it runs embedded. */
  sandbox?: { db?: string };
  /** `--shard I/N`: the shard's own state, lock and history. */
  shard?: Shard;
}

/** The target that names a state (its file, or its rows in a database), its key fingerprint salted. */
function targetOf(where: StateWhere, salt: Buffer): StateTarget {
  return {
    // An embedded sandbox gets a new port every run: its file (or the run itself) names it.
    apiUrl: where.sandbox
      ? `sandbox:${where.sandbox.db ? resolve(where.sandbox.db) : canonicalApiUrl(where.apiUrl)}`
      : canonicalApiUrl(where.apiUrl),
    format: where.format,
    keyFingerprint: keyFingerprint(where.key, salt),
    ...(where.shard ? { shard: where.shard } : {}),
  };
}

/**
 * A target's state, opened (not locked): in its directory (made when missing) or its database,
 * with the note that a new shard count starts a new state (docs/nightly.md, "Shards"). `dir` is
 * where the guard's spool goes: the state directory, or the default one beside a database.
 */
export async function openTargetState(
  s: { state?: string },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
): Promise<{ state: UploadState; note?: string; dir: string }> {
  const at = stateLocation(s.state, env);
  if (at.kind === 'dir') {
    ensureStateDir(at.dir);
    const target = targetOf(where, stateSalt(at.dir));
    const note = shardingNote(target, dirShardingCounts(at.dir, target));
    return { state: await SqliteState.open(at.dir, target), ...(note ? { note } : {}), dir: at.dir };
  }
  const dir = defaultStateDir(env);
  ensureStateDir(dir);
  const client = await connectState(at.url, at.shown, env);
  try {
    const target = targetOf(where, await databaseSalt(client));
    const note = shardingNote(target, await pgShardingCounts(client, target));
    return { state: await PgState.open(client, at.shown, target), ...(note ? { note } : {}), dir };
  } catch (err) {
    await client.end().catch(() => {});
    throw err;
  }
}

/**
 * Whether the target has no state of its own but state under another shard count, found
 * without making any: `genser stock` merges into what uploads accepted, so that is the user's
 * setting to fix, not a new empty state to start.
 */
export async function stateUnderOtherSharding(
  s: { state?: string },
  where: StateWhere,
  env: NodeJS.ProcessEnv,
): Promise<boolean> {
  if (where.sandbox && s.state === undefined) return false;
  const at: StateLocation = stateLocation(s.state, env);
  if (at.kind === 'dir') {
    ensureStateDir(at.dir);
    const counts = dirShardingCounts(at.dir, targetOf(where, stateSalt(at.dir)));
    return counts !== undefined && counts.size > 0;
  }
  const client = await connectState(at.url, at.shown, env);
  try {
    const counts = await pgShardingCounts(client, targetOf(where, await databaseSalt(client)));
    return counts !== undefined && counts.size > 0;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The shard counts the target has state under in `dir`, when this run's own file does not exist yet. */
function dirShardingCounts(dir: string, target: StateTarget): Set<string> | undefined {
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
  return counts;
}

/** Said once, when this run's state does not exist yet and the target has state under another count. */
function shardingNote(target: StateTarget, counts: Set<string> | undefined): string | undefined {
  if (counts === undefined || counts.size === 0) return undefined;
  const now = target.shard ? `shard ${shardName(target.shard)}` : 'the whole feed (no --shard)';
  return `state: no state yet for ${now} of this target, which has state for ${[...counts].sort().join(' and ')}: a new shard count starts a new state per shard, so this run sends every product of ${target.shard ? 'its shard' : 'the feed'} once`;
}
