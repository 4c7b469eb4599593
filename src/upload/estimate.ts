import { createReadStream } from 'node:fs';

/**
 * A rough row count for the spinner's ETA: line breaks in the plain (not gzipped) input files,
 * minus a CSV header each. Quoted line breaks make it an over-estimate; it is only an ETA.
 */
export async function estimateRows(files: string[]): Promise<number | undefined> {
  let total = 0;
  for (const file of files) {
    if (file === '-' || file.endsWith('.gz')) return undefined;
    let lines = 0;
    try {
      for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      }
    } catch {
      return undefined;
    }
    total += /\.(csv|tsv|txt)$/i.test(file) ? Math.max(0, lines - 1) : lines;
  }
  return total;
}
