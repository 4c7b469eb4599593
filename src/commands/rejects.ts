import { Readable } from 'node:stream';
import type { NightlyEnding } from '../nightly/ending.js';
import type { NightlyPlan } from '../nightly/plan.js';
import type { RemoteSettings } from '../read/index.js';
import type { RejectsFile } from '../report/rejects.js';
import type { Logger } from '../shared/logger.js';
import { printable } from '../shared/printable.js';
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
  if (rejects.leftOut.size > 0)
    log.warn(
      `--rejects: the CSV file has the columns of the first file it took rows from; ${printable([...rejects.leftOut].slice(0, 5).join(', '))}${rejects.leftOut.size > 5 ? ` and ${rejects.leftOut.size - 5} more` : ''} of a later file are not in it (give each file its own run to keep every column)`,
    );
  if (missed > 0)
    log.warn(
      `--rejects: ${missed} row(s) could not be written${rejects.notes.length > 0 ? ` (${rejects.notes.join('; ')})` : ''}; the report names them`,
    );
}

/**
 * The feed's inputs with `--rejects`: stdin and every URL copied beside the rejects file as they
 * are read once, so the rows owed at the end (a duplicate SKU, a row the service rejected) are
 * read again from the copy. Without --rejects, the inputs as they are.
 */
export function copiedInputs(
  rejects: RejectsFile | undefined,
  remote: RemoteSettings,
  stdin: NodeJS.ReadableStream | undefined,
): { remote: RemoteSettings; stdin?: NodeJS.ReadableStream } {
  if (!rejects) return { remote, ...(stdin ? { stdin } : {}) };
  return {
    remote: { ...remote, copy: rejects.copyOf },
    ...(stdin ? { stdin: Readable.from(rejects.copyOf('-', stdin as AsyncIterable<Buffer>)) } : {}),
  };
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
