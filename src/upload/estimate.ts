import { createReadStream } from 'node:fs';

/**
 * For the spinner's ETA: the physical lines of a single plain (not gzipped) input file. Progress
 * is then the line of the last row read over this total, which stays right when quoted values
 * span lines (a row count from lines would not). Several files, stdin or .gz: no ETA.
 */
export async function countLines(files: string[]): Promise<number | undefined> {
  if (files.length !== 1) return undefined;
  const [file] = files;
  if (file === '-' || file.endsWith('.gz')) return undefined;
  let lines = 0;
  let last = 10;
  try {
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      if (chunk.length > 0) last = chunk[chunk.length - 1];
    }
  } catch {
    return undefined;
  }
  // A last line without a final line break still counts.
  return last === 10 ? lines : lines + 1;
}
