import type { NightlyEnding } from '../nightly/ending.js';
import type { NightlyPlan } from '../nightly/plan.js';
import type { RejectsFile } from '../report/rejects.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions } from '../shared/types.js';

/** Writes the rows owed to `--rejects` (read again from their files) and says what was written. */
export async function finishRejects(
  rejects: RejectsFile,
  files: string[],
  feed: FeedOptions,
  log: Logger,
): Promise<void> {
  const read = { encoding: feed.encoding, delimiter: feed.delimiter, inputType: feed.inputType };
  const missed = await rejects.finish(files, read, log);
  log.info(`--rejects: ${rejects.written} row(s) written to ${rejects.path}`);
  if (missed > 0)
    log.warn(
      `--rejects: ${missed} row(s) could not be written (their feed came from stdin or a URL, which is read once); the report names them`,
    );
}

/**
 * `--rejects`: the rows the service rejected are owed to the file once the run is over (invalid
 * rows were written as they passed); the file is finished even when the run fails.
 */
export async function withRejects(
  rejects: RejectsFile | undefined,
  files: string[],
  plan: NightlyPlan,
  log: Logger,
  run: () => Promise<NightlyEnding>,
): Promise<NightlyEnding> {
  if (!rejects) return run();
  let ending: NightlyEnding | undefined;
  try {
    ending = await run();
    return ending;
  } finally {
    for (const f of ending?.result.failures ?? [])
      if (f.kind === 'rejected') rejects.rejected(f.file, f.row, f.line, f.message);
    await finishRejects(rejects, files, plan.feed, log);
  }
}
