import type { FileHandle } from 'node:fs/promises';
import { open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { errorMessage, UsageError } from '../shared/errors.js';

/** Bytes per read; the first read is the sample the encoding is detected from. */
export const READ_CHUNK = 256 * 1024;

/** The raw bytes of a file, or of stdin for `-`. Fatal problems become a UsageError naming the file. */
export async function openBytes(
  source: string,
  file: string,
  stdin: () => NodeJS.ReadableStream,
): Promise<AsyncIterable<Buffer>> {
  if (source === '-') return asBuffers(stdin() as AsyncIterable<Buffer | string>);
  await checkFile(source, file);
  let handle: FileHandle;
  try {
    handle = await open(source, 'r');
  } catch (err) {
    throw openError(err, file);
  }
  const stream = handle.createReadStream({ highWaterMark: READ_CHUNK });
  return readOrFail(stream, file);
}

/** Throws a UsageError when `source` is missing or a directory. */
export async function checkFile(source: string, file: string): Promise<void> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(source)).isDirectory();
  } catch (err) {
    throw openError(err, file);
  }
  if (isDirectory) {
    throw new UsageError(
      `${file}: is a directory, not a feed file`,
      'Give the path of a CSV, JSON or NDJSON file.',
    );
  }
}

function openError(err: unknown, file: string): UsageError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT')
    return new UsageError(
      `${file}: no such file`,
      'Check the path (it is relative to the current directory).',
    );
  if (code === 'EACCES' || code === 'EPERM') {
    return new UsageError(
      `${file}: permission denied`,
      'Make the file readable for the user running genser.',
    );
  }
  if (code === 'EISDIR') return new UsageError(`${file}: is a directory, not a feed file`);
  return new UsageError(`${file}: cannot read the file (${errorMessage(err)})`);
}

async function* readOrFail(stream: AsyncIterable<Buffer>, file: string): AsyncGenerator<Buffer> {
  try {
    yield* stream;
  } catch (err) {
    throw openError(err, file);
  }
}

async function* asBuffers(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer> {
  for await (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

/** The first bytes of a stream, and the stream going on from there (head included). */
export interface Peeked {
  head: Buffer;
  all: AsyncIterable<Buffer>;
  /** Stops reading (closes the file) when the rest is not wanted. */
  close(): Promise<void>;
}

/** Reads at least `size` bytes (less only at the end) without losing them for the consumer. */
export async function peek(chunks: AsyncIterable<Buffer>, size: number): Promise<Peeked> {
  const iterator = chunks[Symbol.asyncIterator]();
  const parts: Buffer[] = [];
  let length = 0;
  let done = false;
  while (length < size) {
    const next = await iterator.next();
    if (next.done) {
      done = true;
      break;
    }
    parts.push(next.value);
    length += next.value.length;
  }
  const head = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
  const all = continueWith(head, iterator, done);
  return {
    head,
    all,
    close: async () => {
      await all.return(undefined);
      if (!done) await iterator.return?.();
    },
  };
}

async function* continueWith(
  head: Buffer,
  rest: AsyncIterator<Buffer>,
  done: boolean,
): AsyncGenerator<Buffer> {
  try {
    if (head.length > 0) yield head;
    if (done) return;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    if (!done) await rest.return?.();
  }
}

export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** Decompresses gzip on the fly (several members, as `cat a.gz b.gz` makes, included). */
export async function* gunzip(chunks: AsyncIterable<Buffer>, file: string): AsyncGenerator<Buffer> {
  const unzip = createGunzip();
  const done = pipeline(Readable.from(chunks, { objectMode: false }), unzip).catch(() => {
    // The same error surfaces through the iteration below.
  });
  try {
    for await (const chunk of unzip) yield chunk as Buffer;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(
      `${file}: cannot decompress the gzip data (${errorMessage(err)})`,
      'The file looks truncated or damaged: download or export it again.',
    );
  } finally {
    unzip.destroy();
    await done;
  }
}
