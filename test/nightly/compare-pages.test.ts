import { describe, expect, it } from 'vitest';
import type { FeedRow } from '../../src/feed/index.js';
import { type Compared, ComparePages, type Held } from '../../src/nightly/compare-pages.js';

const row = (n: number, sku?: string): FeedRow => ({
  file: 'f.csv',
  row: n,
  line: n + 1,
  issues: [],
  valid: true,
  ...(sku !== undefined ? { sku } : {}),
});
const bytes = (text: string) => Buffer.from(text);

describe('the guard compares rows with the state a page at a time', () => {
  it('settles every row in the feed order, asking the last hashes once a page', async () => {
    const accepted = new Map([
      ['A', 'hA'],
      ['C', 'hC'],
    ]);
    const asked: string[][] = [];
    const delta = {
      async lastHashes(skus: readonly string[]) {
        asked.push([...skus]);
        return new Map(skus.flatMap((s) => (accepted.has(s) ? [[s, accepted.get(s)!] as const] : [])));
      },
      async compare(sku: string, json: Uint8Array, _source: string | undefined, last: string | undefined) {
        return { hash: `h${sku}`, last, same: last === Buffer.from(json).toString() };
      },
    };
    const settled: [number, string | undefined, Compared | undefined][] = [];
    const pages = new ComparePages(
      delta,
      (h: Held, c) => {
        settled.push([h.item.row, h.json && Buffer.from(h.json).toString(), c]);
      },
      2,
    );
    // Nothing waits: settled at once.
    await pages.pass(row(0), undefined);
    expect(settled).toHaveLength(1);
    await pages.compare(row(1, 'A'), 'A', bytes('hA'));
    // Rows after a row to compare wait with it, whatever they are.
    await pages.pass(row(2, 'X'), bytes('x'));
    expect(settled).toHaveLength(1);
    await pages.compare(row(3, 'B'), 'B', bytes('new'));
    // A page of two: asked at once, then settled in order.
    expect(asked).toEqual([['A', 'B']]);
    expect(settled.map((s) => s[0])).toEqual([0, 1, 2, 3]);
    await pages.compare(row(4, 'C'), 'C', bytes('changed'));
    await pages.pass(row(5), undefined);
    await pages.flush();
    await pages.flush();
    expect(asked).toEqual([['A', 'B'], ['C']]);
    expect(settled).toEqual([
      [0, undefined, undefined],
      [1, 'hA', { hash: 'hA', last: 'hA', same: true }],
      [2, 'x', undefined],
      [3, 'new', { hash: 'hB', last: undefined, same: false }],
      [4, 'changed', { hash: 'hC', last: 'hC', same: false }],
      [5, undefined, undefined],
    ]);
  });

  it('settles what it holds past 8,192 rows, however few of them compare', async () => {
    let asks = 0;
    const delta = {
      async lastHashes() {
        asks++;
        return new Map<string, string>();
      },
      async compare() {
        return { hash: 'h', same: false };
      },
    };
    let settled = 0;
    const pages = new ComparePages(delta, () => {
      settled++;
    });
    await pages.compare(row(1, 'A'), 'A', bytes('a'));
    for (let n = 2; n <= 8192; n++) await pages.pass(row(n), undefined);
    expect(settled).toBe(8192);
    expect(asks).toBe(1);
  });
});
