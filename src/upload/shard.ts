import { hash } from 'node:crypto';
import type { FeedRow } from '../feed/index.js';
import { UsageError } from '../shared/errors.js';

/**
 * Shards (`--shard I/N`, docs/nightly.md "Shards"): N machines split one feed by a stable hash
 * of each row's SKU, so a SKU always falls in the same shard, on every machine, platform and
 * Node version. The hash: SHA-256 of the SKU's UTF-8 bytes, its first 4 bytes read as an
 * unsigned big-endian integer, modulo N, plus 1 (shards count from 1).
 */
export interface Shard {
  /** From 1 to `count`. */
  index: number;
  count: number;
}

/** The shard (1 to `count`) that `sku` falls in. */
export function shardOf(sku: string, count: number): number {
  // crypto.hash (a string is hashed as its UTF-8 bytes) is about 1.5x createHash for short input.
  return (hash('sha256', sku, 'buffer').readUInt32BE(0) % count) + 1;
}

/** `2/4`, as the state, the history and the messages name a shard. */
export const shardName = (s: Shard) => `${s.index}/${s.count}`;

const SHARD_HINT =
  'write I/N with 1 <= I <= N, e.g. --shard 2/4 for the second of four; in a Kubernetes Indexed Job give --shard-count N instead';

/** `--shard I/N` (1-based). `1/1` is the whole feed. */
export function parseShard(raw: unknown, from: string): Shard {
  const text = String(raw).trim();
  const m = /^(\d+)\s*\/\s*(\d+)$/.exec(text);
  if (!m) throw new UsageError(`${from} must be I/N (shard I of N); got "${text}"`, SHARD_HINT);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(count) || count < 1)
    throw new UsageError(`${from}: the shard count N must be at least 1; got "${text}"`, SHARD_HINT);
  if (index < 1) throw new UsageError(`${from}: shards count from 1, so ${text} names none`, SHARD_HINT);
  if (index > count)
    throw new UsageError(
      `${from}: shard ${index} is more than the ${count} shards; got "${text}"`,
      SHARD_HINT,
    );
  return { index, count };
}

/** `--shard-count N`: a whole number from 1. */
export function parseShardCount(raw: unknown, from: string): number {
  const text = String(raw).trim();
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    throw new UsageError(
      `${from} must be a whole number of shards from 1; got "${text}"`,
      'e.g. --shard-count 4 with a Kubernetes Indexed Job of 4 completions',
    );
  return n;
}

/**
 * The shard of this run, from `--shard I/N`, or from `--shard-count N` and a Kubernetes Indexed
 * Job's `JOB_COMPLETION_INDEX` (0-based: shard = index + 1). Undefined for the whole feed
 * (no shard, or 1/1: the same state as an unsharded run).
 */
export function resolveShard(given: {
  shard?: Shard;
  shardCount?: number;
  /** The environment's JOB_COMPLETION_INDEX, as it is. */
  jobIndex?: string;
}): Shard | undefined {
  const { shard, shardCount } = given;
  const jobIndex = given.jobIndex?.trim() === '' ? undefined : given.jobIndex?.trim();
  let fromJob: Shard | undefined;
  if (shardCount !== undefined) {
    if (jobIndex === undefined) {
      if (shard === undefined)
        throw new UsageError(
          `--shard-count ${shardCount} takes the shard from JOB_COMPLETION_INDEX, which is not set`,
          'run it in a Kubernetes Indexed Job (completionMode: Indexed), or give --shard I/N instead',
        );
    } else {
      const index = Number(jobIndex);
      if (!/^\d+$/.test(jobIndex) || index >= shardCount)
        throw new UsageError(
          `JOB_COMPLETION_INDEX must be a whole number from 0 to ${shardCount - 1} (--shard-count ${shardCount}); got "${jobIndex}"`,
          "the Indexed Job's completions must equal --shard-count (its indexes run from 0 to N-1)",
        );
      fromJob = { index: index + 1, count: shardCount };
    }
    if (shard !== undefined && shard.count !== shardCount)
      throw new UsageError(
        `--shard ${shardName(shard)} and --shard-count ${shardCount} disagree on the number of shards`,
        'give one of them: --shard I/N, or --shard-count N with JOB_COMPLETION_INDEX',
      );
    if (shard !== undefined && fromJob !== undefined && fromJob.index !== shard.index)
      throw new UsageError(
        `--shard ${shardName(shard)} and JOB_COMPLETION_INDEX ${jobIndex} (shard ${fromJob.index}) disagree`,
        'give one of them: --shard I/N, or --shard-count N with JOB_COMPLETION_INDEX',
      );
  }
  const chosen = shard ?? fromJob;
  return chosen && chosen.count > 1 ? chosen : undefined;
}

/** How many rows a shard kept, and how many it left to the other shards. */
export interface ShardCounts {
  rows: number;
  mine: number;
}

/**
 * Which shard a row belongs to: the shard of its SKU; a row without a SKU (it cannot be sent by
 * key, and is usually a broken row) to shard 1 only, so each problem is reported by exactly one
 * shard. File-level items (row 0) pass to every shard: each run is affected by them.
 */
export function inShard(item: Pick<FeedRow, 'row' | 'sku'>, shard: Shard): boolean {
  if (item.row === 0) return true;
  return (item.sku === undefined ? 1 : shardOf(item.sku, shard.count)) === shard.index;
}

/**
 * The feed's rows of one shard. `isExtra` marks rows added after the feed (products gone from
 * it, all of this shard's state): passed on, not counted as feed rows.
 */
export async function* shardRows<T extends Pick<FeedRow, 'row' | 'sku'>>(
  items: AsyncIterable<T>,
  shard: Shard,
  counts: ShardCounts,
  isExtra: (item: T) => boolean = () => false,
): AsyncGenerator<T> {
  for await (const item of items) {
    if (item.row === 0 || isExtra(item)) {
      yield item;
      continue;
    }
    counts.rows++;
    if (!inShard(item, shard)) continue;
    counts.mine++;
    yield item;
  }
}

/** The report's `shard` member. */
export function shardReport(shard: Shard, counts: ShardCounts) {
  return { index: shard.index, count: shard.count, feedRows: counts.rows, shardRows: counts.mine };
}

/** `shard 2/4: 2,481 of 10,000 rows; 7,519 in other shards (not sent)`. */
export function shardLine(shard: Shard, counts: ShardCounts): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const rows = counts.rows === 1 ? 'row' : 'rows';
  return `shard ${shardName(shard)}: ${n(counts.mine)} of ${n(counts.rows)} ${rows}; ${n(counts.rows - counts.mine)} in other shards (not sent)`;
}
