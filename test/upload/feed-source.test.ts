import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveFeedOptions } from '../../src/cli/options.js';
import { memoryLogger } from '../../src/cli/terminal.js';
import { ExitError } from '../../src/errors.js';
import { type UploadItem, uploadItems } from '../../src/upload/feed-source.js';

const root = join(import.meta.dirname, '..', '..');
const workerUrl = new URL('../../dist/upload/feed-worker.js', import.meta.url);
const feed = resolveFeedOptions({ flags: {}, env: {}, config: {} });

async function collect(files: string[], threaded: boolean): Promise<UploadItem[]> {
  const out: UploadItem[] = [];
  for await (const item of uploadItems(files, feed, memoryLogger(), process.stdin, { threaded, workerUrl }))
    out.push(item);
  return out;
}

/** What the engine sends for an item (valid rows only): the worker's bytes, or the payload serialized. */
const sent = (i: UploadItem) =>
  !i.valid ? undefined : i.json ? Buffer.from(i.json).toString() : JSON.stringify(i.payload);

describe('the feed on a worker thread', () => {
  it('yields the same rows, issues and product JSON as the in-thread pipeline', async () => {
    expect(existsSync(workerUrl), 'run `npm run build` first').toBe(true);
    const files = [join(root, 'fixtures', 'catalog.csv'), join(root, 'fixtures', 'catalog-invalid.csv')];
    const [threaded, inThread] = await Promise.all([collect(files, true), collect(files, false)]);
    expect(threaded.length).toBe(inThread.length);
    expect(threaded.some((i) => i.json !== undefined)).toBe(true);
    expect(threaded.map((i) => [i.file, i.row, i.line, i.sku, i.valid, i.issues])).toEqual(
      inThread.map((i) => [i.file, i.row, i.line, i.sku, i.valid, i.issues]),
    );
    expect(threaded.map(sent)).toEqual(inThread.map(sent));
  });

  it('passes a usage error from the worker on with its exit code', async () => {
    let err: unknown;
    try {
      await collect([join(root, 'fixtures', 'no-such-file.csv')], true);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toContain('no-such-file.csv');
  });

  it('stops the worker when the consumer stops early', async () => {
    let n = 0;
    for await (const _ of uploadItems(
      [join(root, 'fixtures', 'catalog.csv')],
      feed,
      memoryLogger(),
      process.stdin,
      {
        threaded: true,
        workerUrl,
      },
    )) {
      if (++n === 3) break;
    }
    expect(n).toBe(3);
  });
});
