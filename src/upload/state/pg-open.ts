import { randomBytes } from 'node:crypto';
import { connectPostgres, type PgClient, postgresProblem } from '../../storage/postgres.js';
import { migratePg } from './pg-schema.js';
import { pgTargetKey } from './pg-state.js';
import { type StateTarget, stateFilePrefix } from './target.js';

/**
 * Opening the upload state in PostgreSQL: one connection per run, the schema brought up to date
 * (or a newer one refused), and the database's salt for key fingerprints (made once, in the
 * database: every machine that shares it agrees).
 */
export async function connectState(url: string, shown: string, env: NodeJS.ProcessEnv): Promise<PgClient> {
  const client = await connectPostgres(url, shown, env);
  try {
    await migratePg(client, shown);
  } catch (err) {
    await client.end().catch(() => {});
    throw err instanceof Error && 'exitCode' in err ? err : postgresProblem(shown, err);
  }
  return client;
}

export async function databaseSalt(client: PgClient): Promise<Buffer> {
  await client.query(
    "INSERT INTO genser_meta (key, value) VALUES ('salt', $1) ON CONFLICT (key) DO NOTHING",
    [randomBytes(32).toString('hex')],
  );
  const { rows } = await client.query<{ value: string }>("SELECT value FROM genser_meta WHERE key = 'salt'");
  return Buffer.from(rows[0].value, 'hex');
}

/**
 * The note that a target starts a new state under a new shard count (as in a state directory):
 * said when this target has no row yet and the target has rows under another count.
 */
export async function pgShardingCounts(
  client: PgClient,
  target: StateTarget,
): Promise<Set<string> | undefined> {
  const own = pgTargetKey(target);
  const { rows } = await client.query<{ target: string; shard: string | null }>(
    'SELECT target, shard FROM genser_targets WHERE target = $1 OR starts_with(target, $2)',
    [own, stateFilePrefix(target)],
  );
  if (rows.some((r) => r.target === own)) return undefined;
  const counts = new Set<string>();
  for (const r of rows) counts.add(r.shard ? `${r.shard.split('/')[1]} shards` : 'unsharded');
  if (target.shard) counts.delete(`${target.shard.count} shards`);
  return counts;
}
