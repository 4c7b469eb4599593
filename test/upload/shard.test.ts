import { describe, expect, it } from 'vitest';
import { ExitError } from '../../src/shared/errors.js';
import {
  inShard,
  parseShard,
  parseShardCount,
  resolveShard,
  type Shard,
  shardLine,
  shardOf,
  shardRows,
} from '../../src/upload/shard.js';

/** The usage error `fn` throws (exit 2), as `message | hint`. */
function usage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).hint).toBeTruthy();
    return `${(err as ExitError).message} | ${(err as ExitError).hint}`;
  }
  throw new Error('no usage error');
}

const skus = Array.from({ length: 10_000 }, (_, i) => `SKU-${String(i).padStart(6, '0')}`);

describe('shardOf: a stable hash of the SKU', () => {
  it('has fixed known values: the first 4 bytes of SHA-256 (big-endian) mod N, plus 1', () => {
    // sha256("") starts e3b0c442 (3,820,012,610): the documented rule, checked by hand.
    expect(shardOf('', 4)).toBe((0xe3b0c442 % 4) + 1);
    expect(shardOf('', 4)).toBe(3);
    // Further values computed once with the documented rule: a change of the hash fails here.
    expect([shardOf('SKU-0001', 2), shardOf('SKU-0001', 4), shardOf('SKU-0001', 7)]).toEqual([1, 1, 3]);
    expect([shardOf('SKU-0002', 2), shardOf('SKU-0002', 4), shardOf('SKU-0002', 7)]).toEqual([2, 4, 7]);
    expect([shardOf('sku-1', 2), shardOf('sku-1', 4), shardOf('sku-1', 7)]).toEqual([1, 3, 6]);
    // UTF-8 bytes of the SKU, not UTF-16 code units.
    expect([shardOf('상품-001', 2), shardOf('상품-001', 4), shardOf('상품-001', 7)]).toEqual([1, 1, 7]);
    // Case matters: SKUs are compared as they are.
    expect(shardOf('sku-0002', 1_000_003)).not.toBe(shardOf('SKU-0002', 1_000_003));
  });

  it('is deterministic and puts every SKU in exactly one shard from 1 to N', () => {
    for (const n of [1, 2, 3, 4, 7, 16]) {
      const sizes = new Array<number>(n).fill(0);
      const wrong: string[] = [];
      for (const [i, sku] of skus.slice(0, 3000).entries()) {
        const s = shardOf(sku, n);
        if (s !== shardOf(sku, n) || !(s >= 1 && s <= n)) wrong.push(sku);
        else sizes[s - 1]++;
        // The row filter agrees: exactly one shard keeps the row, the one shardOf names.
        if (i >= 1000) continue;
        let owners = 0;
        for (let index = 1; index <= n; index++)
          if (inShard({ row: 1, sku }, { index, count: n })) owners += index === s ? 1 : 100;
        if (owners !== 1) wrong.push(sku);
      }
      expect(wrong).toEqual([]);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(3000);
    }
  });

  it('splits 10,000 SKUs roughly evenly', () => {
    for (const n of [2, 4, 10]) {
      const sizes = new Array<number>(n).fill(0);
      for (const sku of skus) sizes[shardOf(sku, n) - 1]++;
      const even = skus.length / n;
      // Binomial spread at 10k is about 1-2%; 10% off the even share would mean a bad hash.
      for (const size of sizes) expect(Math.abs(size - even) / even).toBeLessThan(0.1);
    }
  });
});

describe('rows of a shard', () => {
  it('rows without a SKU go to shard 1 only; file-level items to every shard', () => {
    expect(inShard({ row: 5 }, { index: 1, count: 3 })).toBe(true);
    expect(inShard({ row: 5 }, { index: 2, count: 3 })).toBe(false);
    expect(inShard({ row: 5 }, { index: 3, count: 3 })).toBe(false);
    for (const index of [1, 2, 3]) expect(inShard({ row: 0 }, { index, count: 3 })).toBe(true);
  });

  it('shardRows keeps the shard, counts the feed rows and passes the extra rows on', async () => {
    const rows = [
      { row: 0 },
      ...skus.slice(0, 200).map((sku, i) => ({ row: i + 1, sku })),
      { row: 201 },
      { row: 202, sku: 'gone', extra: true },
    ];
    async function* source() {
      yield* rows;
    }
    const shard: Shard = { index: 2, count: 4 };
    const counts = { rows: 0, mine: 0 };
    const kept: typeof rows = [];
    for await (const r of shardRows(source(), shard, counts, (r) => 'extra' in r)) kept.push(r);
    const mine = skus.slice(0, 200).filter((sku) => shardOf(sku, 4) === 2);
    expect(mine.length).toBeGreaterThan(20);
    expect(kept.map((r) => r.sku)).toEqual([undefined, ...mine, 'gone']);
    expect(counts).toEqual({ rows: 201, mine: mine.length });
    expect(shardLine(shard, { rows: 10_000, mine: 2_481 })).toBe(
      'shard 2/4: 2,481 of 10,000 rows; 7,519 in other shards (not sent)',
    );
  });
});

describe('--shard and --shard-count', () => {
  it('parses I/N and refuses 0/N, I > N, N < 1 and non-numbers with a hint', () => {
    expect(parseShard('2/4', '--shard')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ', 'GENSER_SHARD')).toEqual({ index: 1, count: 1 });
    expect(usage(() => parseShard('0/4', '--shard'))).toMatch(
      /^--shard: shards count from 1, so 0\/4 names none \| /,
    );
    expect(usage(() => parseShard('5/4', '--shard'))).toContain('--shard: shard 5 is more than the 4 shards');
    expect(usage(() => parseShard('1/0', 'GENSER_SHARD'))).toContain(
      'GENSER_SHARD: the shard count N must be at least 1',
    );
    expect(usage(() => parseShard('two/4', '--shard'))).toContain(
      '--shard must be I/N (shard I of N); got "two/4"',
    );
    expect(usage(() => parseShard('2', '--shard'))).toContain('got "2"');
    expect(usage(() => parseShard('-1/4', '--shard'))).toContain('must be I/N');
    expect(parseShardCount('4', '--shard-count')).toBe(4);
    expect(usage(() => parseShardCount('0', '--shard-count'))).toContain(
      '--shard-count must be a whole number of shards from 1; got "0"',
    );
    expect(usage(() => parseShardCount('four', 'GENSER_SHARD_COUNT'))).toContain(
      'GENSER_SHARD_COUNT must be',
    );
  });

  it('takes the shard from JOB_COMPLETION_INDEX (0-based) with --shard-count; 1/1 is the whole feed', () => {
    expect(resolveShard({})).toBeUndefined();
    expect(resolveShard({ shard: { index: 1, count: 1 } })).toBeUndefined();
    expect(resolveShard({ shard: { index: 3, count: 4 } })).toEqual({ index: 3, count: 4 });
    expect(resolveShard({ shardCount: 4, jobIndex: '0' })).toEqual({ index: 1, count: 4 });
    expect(resolveShard({ shardCount: 4, jobIndex: '3' })).toEqual({ index: 4, count: 4 });
    expect(resolveShard({ shardCount: 1, jobIndex: '0' })).toBeUndefined();
    // Kubernetes sets it in every Indexed Job: without --shard-count it means nothing here.
    expect(resolveShard({ jobIndex: '2' })).toBeUndefined();
    // Both, agreeing.
    expect(resolveShard({ shard: { index: 2, count: 4 }, shardCount: 4, jobIndex: '1' })).toEqual({
      index: 2,
      count: 4,
    });
    expect(resolveShard({ shard: { index: 2, count: 4 }, shardCount: 4 })).toEqual({ index: 2, count: 4 });
  });

  it('refuses --shard-count without JOB_COMPLETION_INDEX, an index out of range, and disagreements', () => {
    expect(usage(() => resolveShard({ shardCount: 4 }))).toContain(
      '--shard-count 4 takes the shard from JOB_COMPLETION_INDEX, which is not set | run it in a Kubernetes Indexed Job',
    );
    expect(usage(() => resolveShard({ shardCount: 4, jobIndex: ' ' }))).toContain('which is not set');
    expect(usage(() => resolveShard({ shardCount: 4, jobIndex: '4' }))).toContain(
      'JOB_COMPLETION_INDEX must be a whole number from 0 to 3 (--shard-count 4); got "4"',
    );
    expect(usage(() => resolveShard({ shardCount: 4, jobIndex: 'x' }))).toContain('got "x"');
    expect(usage(() => resolveShard({ shardCount: 4, jobIndex: '-1' }))).toContain('got "-1"');
    expect(
      usage(() => resolveShard({ shard: { index: 2, count: 4 }, shardCount: 3, jobIndex: '1' })),
    ).toContain('--shard 2/4 and --shard-count 3 disagree on the number of shards');
    expect(
      usage(() => resolveShard({ shard: { index: 2, count: 4 }, shardCount: 4, jobIndex: '2' })),
    ).toContain('--shard 2/4 and JOB_COMPLETION_INDEX 2 (shard 3) disagree');
  });
});
