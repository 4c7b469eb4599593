import { feedRows } from '../feed/threads.js';
import { ExitCode, ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions } from '../shared/types.js';
import type { InvalidBudget } from '../upload/budget.js';
import { payloadHash } from '../upload/state/delta.js';
import type { MissingMode } from '../upload/state/missing.js';
import type { UploadState } from '../upload/state/store.js';

/**
 * The mass-change guard (`--max-change`, docs/nightly.md): before anything is sent, a pass over
 * the feed counts the known products it changes and (with `--missing out-of-stock`) those gone
 * from it. Over the limit, nothing is sent and the run exits 1. Skipped for a first run (nothing
 * known), for stdin (it cannot be read twice) and for a limit of 100% or more.
 */
export async function checkMassChange(
  files: string[],
  feed: FeedOptions,
  state: UploadState,
  limit: InvalidBudget,
  missing: MissingMode,
  log: Logger,
): Promise<void> {
  const known = state.knownCount();
  if (known === 0 || (limit.kind === 'percent' && limit.max >= 100)) return;
  if (files.includes('-')) {
    log.warn('--max-change: the feed is read from stdin, which cannot be read twice: the guard is skipped');
    return;
  }
  const seen = new Set<string>();
  let changed = 0;
  const quiet: Logger = { ...log, info() {}, warn() {}, debug() {} };
  for await (const item of feedRows(files, feed, quiet, undefined, { serialize: true })) {
    // A feed that cannot be read fully is the real run's to report; no guard decision on it.
    if (item.row === 0) {
      if (!item.valid) return;
      continue;
    }
    if (item.sku === undefined) continue;
    seen.add(item.sku);
    const json = item.valid ? (item.json ?? Buffer.from(JSON.stringify(item.payload))) : undefined;
    if (json === undefined) continue;
    const last = state.acceptedHash(item.sku);
    if (last !== undefined && last !== payloadHash(json)) changed++;
  }
  let gone = 0;
  if (missing === 'out-of-stock') for (const _ of state.absent((sku) => seen.has(sku))) gone++;
  const total = changed + gone;
  const max = limit.kind === 'count' ? limit.max : Math.floor((known * limit.max) / 100);
  if (total <= max) return;
  const n = (x: number) => x.toLocaleString('en-US');
  const what =
    missing === 'out-of-stock'
      ? `${n(changed)} changed and ${n(gone)} gone from the feed`
      : `${n(changed)} changed`;
  throw new ExitError(
    ExitCode.data,
    `${what} of ${n(known)} known products (${n(total)}) is more than --max-change allows (${limit.kind === 'count' ? n(limit.max) : `${limit.max}%`}, ${n(max)}): nothing was sent`,
    'check the feed; if the change is meant, run again with a higher --max-change (e.g. --max-change 100%)',
  );
}
