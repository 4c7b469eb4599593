import { describe, expect, it } from 'vitest';
import type { FeedRow } from '../../src/feed/index.js';
import { askedAhead } from '../../src/nightly/asked-ahead.js';

const row = (n: number, over: Partial<FeedRow> = {}): FeedRow => ({
  file: 'f.csv',
  row: n,
  line: n + 1,
  issues: [],
  valid: true,
  sku: `S${n}`,
  ...over,
});

async function* feed(rows: FeedRow[], read: number[]): AsyncGenerator<FeedRow> {
  for (const r of rows) {
    read.push(r.row);
    yield r;
  }
}

describe('a streamed feed asks the hashes of its rows a page at a time', () => {
  it('hands every row on in order, marked feed, once the hashes of its page were asked', async () => {
    const rows = [
      row(1),
      row(2, { unchanged: true }),
      row(3, { valid: false }),
      row(4, { sku: undefined }),
      row(5),
      row(6),
      row(7),
    ];
    const read: number[] = [];
    const asked: { skus: string[]; readBefore: number }[] = [];
    const delta = {
      async askAhead(skus: readonly string[]) {
        asked.push({ skus: [...skus], readBefore: read.length });
      },
    };
    const out: [number, string][] = [];
    for await (const r of askedAhead(feed(rows, read), delta, 2)) {
      // A row comes out only after the page that holds it was asked.
      expect(asked.some((a) => a.readBefore >= read.indexOf(r.row) + 1)).toBe(true);
      out.push([r.row, r.origin]);
    }
    expect(out).toEqual(rows.map((r) => [r.row, 'feed']));
    // Skipped by their key, invalid or without a SKU: nothing to ask for them.
    expect(asked).toEqual([
      { skus: ['S1', 'S5'], readBefore: 5 },
      { skus: ['S6', 'S7'], readBefore: 7 },
    ]);
  });

  it('holds 8,192 rows at most while a page fills, and lets the feed go when the consumer stops', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => row(i + 1, i === 0 ? {} : { unchanged: true }));
    const read: number[] = [];
    const asked: string[][] = [];
    const it = askedAhead(feed(rows, read), { askAhead: async (skus) => void asked.push([...skus]) });
    expect((await it.next()).value?.row).toBe(1);
    expect(read).toHaveLength(8192);
    expect(asked).toEqual([['S1']]);
    await it.return?.();
    expect((await it.next()).done).toBe(true);
    expect(read).toHaveLength(8192);
  });
});
