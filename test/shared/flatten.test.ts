import { describe, expect, it } from 'vitest';
import { flatten } from '../../src/shared/flatten.js';

describe('flatten', () => {
  it('hands out every item of every batch in order, empty batches skipped', async () => {
    async function* batches() {
      yield [1, 2];
      yield [];
      yield [3];
      yield [4, 5, 6];
    }
    const out: number[] = [];
    for await (const n of flatten(batches())) out.push(n);
    expect(out).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("throws the source's error after the items before it", async () => {
    async function* batches() {
      yield ['a', 'b'];
      throw new Error('bad bytes at 42');
    }
    const out: string[] = [];
    await expect(
      (async () => {
        for await (const s of flatten(batches())) out.push(s);
      })(),
    ).rejects.toThrow('bad bytes at 42');
    expect(out).toEqual(['a', 'b']);
  });

  it('closes the source when the consumer stops in the middle of a batch', async () => {
    let closed = false;
    let pulled = 0;
    async function* batches() {
      try {
        for (;;) {
          pulled++;
          yield [1, 2, 3];
        }
      } finally {
        closed = true;
      }
    }
    const out: number[] = [];
    for await (const n of flatten(batches())) {
      out.push(n);
      if (out.length === 5) break;
    }
    expect(out).toEqual([1, 2, 3, 1, 2]);
    expect(pulled).toBe(2);
    expect(closed).toBe(true);
  });

  it('a stop ends the items at once, mid-batch, and closes the source', async () => {
    let closed = false;
    async function* batches() {
      try {
        for (;;) yield [1, 2, 3];
      } finally {
        closed = true;
      }
    }
    const stop = new AbortController();
    const out: number[] = [];
    for await (const n of flatten(batches(), stop.signal)) {
      out.push(n);
      if (out.length === 2) stop.abort();
    }
    expect(out).toEqual([1, 2]);
    expect(closed).toBe(true);
  });
});
