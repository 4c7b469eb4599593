import { describe, expect, it } from 'vitest';
import type { FeedRow } from '../../src/feed/index.js';
import { retryRows, withOrigin } from '../../src/nightly/rows.js';
import { untilStopped } from '../../src/shared/until-stopped.js';

/** The row source's parts that need no state: origins, and the stop that ends a waiting read. */
describe('untilStopped', () => {
  it('passes every item through when nothing stops it', async () => {
    async function* three() {
      yield* [1, 2, 3];
    }
    const got: number[] = [];
    for await (const x of untilStopped(three(), new AbortController().signal)) got.push(x);
    expect(got).toEqual([1, 2, 3]);
  });

  it('ends at the stop while a read is still waiting (a pipe whose writer never ends it)', async () => {
    const never = new Promise<number>(() => {});
    async function* slow() {
      yield 1;
      yield await never;
    }
    const stop = new AbortController();
    const got: number[] = [];
    const done = (async () => {
      for await (const x of untilStopped(slow(), stop.signal)) {
        got.push(x);
        setTimeout(() => stop.abort('SIGTERM'), 10);
      }
    })();
    await done;
    expect(got).toEqual([1]);
  });

  it('yields nothing once stopped before the first read', async () => {
    const stop = new AbortController();
    stop.abort('SIGINT');
    let pulled = false;
    async function* source() {
      pulled = true;
      yield 1;
    }
    const got: number[] = [];
    for await (const x of untilStopped(source(), stop.signal)) got.push(x);
    expect(got).toEqual([]);
    expect(pulled).toBe(false);
  });
});

describe('row origins', () => {
  it('marks the feed rows and the retry rows with where they come from', async () => {
    async function* feed(): AsyncGenerator<FeedRow> {
      yield { file: 'f.csv', row: 1, line: 2, sku: 'A', issues: [], valid: true };
    }
    const rows = [];
    for await (const r of withOrigin(feed(), 'feed')) rows.push(r);
    for await (const r of retryRows([
      { file: 'f.csv', row: 7, line: 8, sku: 'B', payload: Buffer.from('{}'), runId: 'r1' },
    ]))
      rows.push(r);
    expect(rows.map((r) => [r.origin, r.file, r.row, r.sku])).toEqual([
      ['feed', 'f.csv', 1, 'A'],
      ['retry', 'f.csv', 7, 'B'],
    ]);
  });
});
