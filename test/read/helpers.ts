import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { type ReadOptions, readFeed } from '../../src/read/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { Issue, ReadItem, SourceRecord } from '../../src/shared/types.js';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const fixture = (name: string) => join(repoRoot, 'fixtures', 'read', name);
/** Copies of real shop exports (fixtures/real/SOURCE.md says where each comes from). */
export const realData = (name: string) => join(repoRoot, 'fixtures', 'real', name);

export interface Read {
  items: ReadItem[];
  records: SourceRecord[];
  issues: Issue[];
  log: string[];
}

export async function collect(items: AsyncIterable<ReadItem>, log: string[] = []): Promise<Read> {
  const all: ReadItem[] = [];
  for await (const item of items) all.push(item);
  return {
    items: all,
    records: all.flatMap((i) => (i.type === 'record' ? [i.record] : [])),
    issues: all.flatMap((i) => (i.type === 'issue' ? [i.issue] : [])),
    log,
  };
}

export async function read(source: string, options: Partial<ReadOptions> = {}): Promise<Read> {
  const log = memoryLogger();
  return collect(readFeed(source, { encoding: 'auto', ...options }, log), log.lines);
}

/** Reads bytes through stdin ('-'), cut into chunks of `size` bytes. */
export async function readBytes(
  bytes: Buffer,
  options: Partial<ReadOptions> = {},
  size = 64 * 1024,
): Promise<Read> {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  const log = memoryLogger();
  const stdin = Readable.from(chunks);
  return collect(readFeed('-', { encoding: 'auto', inputType: 'csv', ...options }, log, stdin), log.lines);
}

/** Text pieces as an async iterable (what a reader gets from the decoder). */
export async function* pieces(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** The promise's rejection, for asserting on thrown errors. */
export async function rejection(
  promise: Promise<unknown>,
): Promise<Error & { exitCode?: number; hint?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}
