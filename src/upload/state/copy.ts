import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../../shared/errors.js';
import type { PgClient } from '../../storage/postgres.js';
import type { StateLocation } from './location.js';
import { connectState } from './pg-open.js';
import { PgState } from './pg-state.js';
import { SqliteState } from './sqlite-state.js';
import { STATE_TABLES, type StateTable, type StateTables } from './tables.js';
import { ensureStateDir, type StateTarget } from './target.js';

/**
 * `genser state copy FROM TO` (docs/nightly.md, "Moving a state"): every target's state from a
 * directory or database into another, as it is: accepted payloads and hashes, source keys,
 * batches in flight, owed rows, the run history. Both sides are locked while it copies (a run
 * going on either side stops it with exit 5); a target that already has state at TO is refused,
 * never merged. Key fingerprints are salted: TO takes FROM's salt, and one with another salt and
 * state in it is refused.
 */
type Side = StateLocation & { client?: PgClient };
type Opened = SqliteState | PgState;

async function saltOf(side: Side): Promise<string | undefined> {
  if (side.kind === 'dir') {
    const file = join(side.dir, 'salt');
    return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  }
  const { rows } = await side.client!.query<{ value: string }>(
    "SELECT value FROM genser_meta WHERE key = 'salt'",
  );
  return rows[0]?.value;
}

async function setSalt(side: Side, salt: string): Promise<void> {
  if (side.kind === 'dir') writeFileSync(join(side.dir, 'salt'), salt, { mode: 0o600 });
  else
    await side.client!.query(
      "INSERT INTO genser_meta (key, value) VALUES ('salt', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [salt],
    );
}

/** The states at `side`, opened one at a time by the caller. */
async function sources(side: Side): Promise<(() => Promise<Opened>)[]> {
  if (side.kind === 'dir') {
    if (!existsSync(side.dir))
      throw new UsageError(`no state directory ${side.dir}`, 'give the directory given to --state');
    return readdirSync(side.dir)
      .filter((f) => f.endsWith('.sqlite'))
      .map((f) => async () => SqliteState.openFile(join(side.dir, f), { check: true }));
  }
  const { rows } = await side.client!.query<{ target: string }>(
    'SELECT target FROM genser_targets ORDER BY target',
  );
  return rows.map(
    (r) => async () => new PgState(side.client!, r.target, `${side.shown} (${r.target})`, false),
  );
}

function targetOf(id: {
  apiUrl: string;
  format: string;
  keyFingerprint: string;
  shard?: string;
}): StateTarget {
  const [index, count] = (id.shard ?? '').split('/').map(Number);
  return {
    apiUrl: id.apiUrl,
    format: id.format,
    keyFingerprint: id.keyFingerprint,
    ...(id.shard ? { shard: { index, count } } : {}),
  } as StateTarget;
}

async function openAt(side: Side, target: StateTarget): Promise<Opened> {
  if (side.kind === 'dir') return SqliteState.open(side.dir, target);
  return PgState.open(side.client!, side.shown, target, false);
}

async function isEmpty(state: Opened): Promise<boolean> {
  return (
    (await state.knownCount()) === 0 &&
    (await state.listRuns()).length === 0 &&
    (await state.owedRows()).length === 0
  );
}

async function copyTables(from: StateTables, to: StateTables): Promise<Record<StateTable, number>> {
  const counts = {} as Record<StateTable, number>;
  for (const table of Object.keys(STATE_TABLES) as StateTable[]) {
    counts[table] = 0;
    for await (const rows of from.readTable(table)) {
      await to.writeTable(table, rows);
      counts[table] += rows.length;
    }
  }
  return counts;
}

async function open(at: StateLocation, env: NodeJS.ProcessEnv): Promise<Side> {
  if (at.kind === 'dir') return at;
  return { ...at, client: await connectState(at.url, at.shown, env) };
}

/** Copies every state at `fromAt` to `toAt`; returns one line per target copied. */
export async function copyStates(
  fromAt: StateLocation,
  toAt: StateLocation,
  env: NodeJS.ProcessEnv,
): Promise<string[]> {
  const from = await open(fromAt, env);
  if (toAt.kind === 'dir') ensureStateDir(toAt.dir);
  const to = await open(toAt, env).catch(async (err) => {
    await from.client?.end();
    throw err;
  });
  try {
    const salt = await saltOf(from);
    const each = await sources(from);
    if (salt === undefined || each.length === 0) return [];
    const toSalt = await saltOf(to);
    if (toSalt !== undefined && toSalt !== salt && (await sources(to)).length > 0)
      throw new UsageError(
        'the destination already holds upload state made with another salt: its key fingerprints cannot be matched',
        'copy into an empty directory or database',
      );
    if (toSalt !== salt) await setSalt(to, salt);
    const lines: string[] = [];
    for (const openSource of each) lines.push(await copyOne(await openSource(), to));
    return lines;
  } finally {
    await from.client?.end().catch(() => {});
    await to.client?.end().catch(() => {});
  }
}

async function copyOne(source: Opened, to: Side): Promise<string> {
  try {
    await source.lock();
    const id = await source.tables().identity();
    const dest = await openAt(to, targetOf(id));
    try {
      await dest.lock();
      if (!(await isEmpty(dest)))
        throw new UsageError(
          `${dest.where} already holds state for ${id.apiUrl} (${id.format}${id.shard ? `, shard ${id.shard}` : ''}): nothing was copied into it`,
          'copy into an empty directory or database; a state is never merged into another',
        );
      const n = await copyTables(source.tables(), dest.tables());
      return `copied ${id.apiUrl} (${id.format}${id.shard ? `, shard ${id.shard}` : ''}): ${n.accepted} products, ${n.runs} runs, ${n.owed} rows owed, ${n.inflight} in flight, ${n.other_shards} other shards' keys`;
    } finally {
      await dest.close();
    }
  } finally {
    await source.close();
  }
}
