import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  countsLine,
  duration,
  exitText,
  failureLines,
  runsTable,
  type TargetRuns,
} from '../report/runs-text.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import { type Shard, shardName } from '../upload/shard.js';
import { stateFileProblem } from '../upload/state/health.js';
import { stateLocation } from '../upload/state/location.js';
import { connectState } from '../upload/state/pg-open.js';
import { PgState } from '../upload/state/pg-state.js';
import { SqliteState } from '../upload/state/sqlite-state.js';
import type { UploadState } from '../upload/state/store.js';
import type { CommandContext } from './context.js';

/**
 * `genser runs`: the upload history kept in the state directory, every target's runs newest
 * first; `genser runs show ID` prints one run's report (docs/nightly.md).
 */
export interface RunsSettings {
  state?: string;
  json?: boolean;
  /** `--shard I/N`: only that shard's history (1/1: the unsharded targets). */
  shard?: Shard;
}

/** Whether a state file's target is the shard asked for (every file without `--shard`). */
function wanted(t: { shard?: string }, shard: Shard | undefined): boolean {
  if (shard === undefined) return true;
  return shard.count === 1 ? t.shard === undefined : t.shard === shardName(shard);
}

function stateFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((f) => f.endsWith('.sqlite'))
      .map((f) => join(dir, f));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new UsageError(
      `cannot read the state directory ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      'check --state DIR or GENSER_STATE_DIR',
    );
  }
}

/**
 * `fn` on every target's state, in turn: the files of a state directory (one that cannot be read,
 * damaged, emptied or unreadable, is named in `damaged` with what is wrong and how to recover,
 * and skipped: the other targets still show), or the targets of a PostgreSQL database.
 */
async function eachState<T>(
  where: string | undefined,
  env: NodeJS.ProcessEnv,
  fn: (state: UploadState) => Promise<T | undefined>,
  damaged: string[],
): Promise<T[]> {
  const at = stateLocation(where, env);
  const out: T[] = [];
  if (at.kind === 'postgres') {
    const client = await connectState(at.url, at.shown, env);
    try {
      const { rows } = await client.query<{ target: string }>(
        'SELECT target FROM genser_targets ORDER BY target',
      );
      for (const r of rows) {
        const found = await fn(new PgState(client, r.target, `${at.shown} (${r.target})`, false));
        if (found !== undefined) out.push(found);
      }
    } finally {
      await client.end().catch(() => {});
    }
    return out;
  }
  for (const file of stateFiles(at.dir)) {
    try {
      const state = await SqliteState.openFile(file);
      try {
        const found = await fn(state);
        if (found !== undefined) out.push(found);
      } finally {
        await state.close();
      }
    } catch (err) {
      const problem = stateFileProblem(file, err);
      damaged.push(
        `${printable(problem.message)}${problem.hint ? `\nhint: ${printable(problem.hint)}` : ''}`,
      );
    }
  }
  return out;
}

async function allRuns(s: RunsSettings, env: NodeJS.ProcessEnv, damaged: string[]): Promise<TargetRuns[]> {
  const all = await eachState(
    s.state,
    env,
    async (state) => {
      const t = await state.target();
      return {
        target: `${t.apiUrl} (${t.format})`,
        ...(t.shard !== undefined ? { shard: t.shard } : {}),
        runs: await state.listRuns(),
      };
    },
    damaged,
  );
  return all.filter((t) => wanted(t, s.shard));
}

export async function runRuns(words: string[], s: RunsSettings, ctx: CommandContext): Promise<number> {
  const at = stateLocation(s.state, ctx.env);
  const dir = at.kind === 'dir' ? at.dir : at.shown;
  const [action, id, ...rest] = words;
  // Damaged state files are said after the others are listed, and the exit code is 2.
  const damaged: string[] = [];
  const ended = () => {
    for (const d of damaged) ctx.stderr.write(`genser: ${d}\n`);
    return damaged.length > 0 ? ExitCode.usage : ExitCode.ok;
  };
  if (action === undefined) {
    const targets = await allRuns(s, ctx.env, damaged);
    if (s.json) ctx.stdout.write(`${JSON.stringify(targets, null, 2)}\n`);
    else if (targets.every((t) => t.runs.length === 0))
      ctx.log.info(`no upload runs recorded in ${dir}${s.shard ? ` for shard ${shardName(s.shard)}` : ''}`);
    else for (const l of runsTable(targets)) ctx.stdout.write(`${l}\n`);
    return ended();
  }
  if (action !== 'show' || id === undefined || rest.length > 0)
    throw new UsageError(
      `unknown runs command '${words.join(' ')}'`,
      'use `genser runs` or `genser runs show ID`',
    );
  const [found] = await eachState(
    s.state,
    ctx.env,
    async (state) => {
      const r = await state.runReport(id);
      const target = await state.target();
      return r && wanted(target, s.shard) ? { ...r, target } : undefined;
    },
    damaged,
  );
  if (found) {
    if (s.json) {
      if (found.report === undefined)
        throw new UsageError(
          `run ${id} has no report: it did not finish (exit code ${exitText(found.run)})`,
          'its products that were not confirmed are sent again by the next run',
        );
      ctx.stdout.write(found.report.endsWith('\n') ? found.report : `${found.report}\n`);
      return 0;
    }
    const r = found.run;
    // The state file's values (feed name, server URL, rejection texts) are outside data.
    const lines = [
      `run ${r.id}: ${found.target.apiUrl} (${found.target.format}${found.target.shard ? `, shard ${found.target.shard}` : ''})`,
      `started ${r.started} by pid ${r.pid}, took ${duration(r.durationMs)}, exit code ${exitText(r)}`,
      `feed: ${r.feed}`,
      countsLine(r),
      ...failureLines(found.report),
    ];
    for (const l of lines) ctx.stdout.write(`${printable(l)}\n`);
    return 0;
  }
  ended();
  throw new UsageError(
    `no run ${id} in ${dir}`,
    '`genser runs` lists the runs kept (the last 100 of each target)',
  );
}
