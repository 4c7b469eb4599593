import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { duration, exitText, failureLines, num, runsTable, type TargetRuns } from '../report/runs-text.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import { type Shard, shardName } from '../upload/shard.js';
import { stateFileProblem } from '../upload/state/health.js';
import { SqliteState } from '../upload/state/sqlite-state.js';
import type { UploadState } from '../upload/state/store.js';
import { defaultStateDir } from '../upload/state/target.js';
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
 * `fn` on one state file; a file that cannot be read (damaged, emptied, unreadable) is named on
 * stderr with what is wrong and how to recover, and skipped: the other targets still show.
 */
async function withState<T>(
  file: string,
  fn: (state: UploadState) => Promise<T>,
  damaged: string[],
): Promise<T | undefined> {
  try {
    const state = SqliteState.openFile(file);
    try {
      return await fn(state);
    } finally {
      await state.close();
    }
  } catch (err) {
    const problem = stateFileProblem(file, err);
    damaged.push(`${printable(problem.message)}${problem.hint ? `\nhint: ${printable(problem.hint)}` : ''}`);
    return undefined;
  }
}

async function allRuns(dir: string, shard: Shard | undefined, damaged: string[]): Promise<TargetRuns[]> {
  const all: TargetRuns[] = [];
  for (const file of stateFiles(dir)) {
    const runs = await withState(
      file,
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
    if (runs !== undefined && wanted(runs, shard)) all.push(runs);
  }
  return all;
}

export async function runRuns(words: string[], s: RunsSettings, ctx: CommandContext): Promise<number> {
  const dir = s.state ?? defaultStateDir(ctx.env);
  const [action, id, ...rest] = words;
  // Damaged state files are said after the others are listed, and the exit code is 2.
  const damaged: string[] = [];
  const ended = () => {
    for (const d of damaged) ctx.stderr.write(`genser: ${d}\n`);
    return damaged.length > 0 ? ExitCode.usage : ExitCode.ok;
  };
  if (action === undefined) {
    const targets = await allRuns(dir, s.shard, damaged);
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
  for (const file of stateFiles(dir)) {
    const found = await withState(
      file,
      async (state) => {
        const r = await state.runReport(id);
        const target = await state.target();
        return r && wanted(target, s.shard) ? { ...r, target } : undefined;
      },
      damaged,
    );
    if (!found) continue;
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
      `rows ${num(r.rows)}, sent ${num(r.sent)}, accepted ${num(r.accepted)}, rejected ${num(r.rejected)}, failed ${num(r.failed)}, unchanged ${num(r.unchanged)}`,
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
