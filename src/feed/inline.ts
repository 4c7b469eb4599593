import type { Mapping } from '../map/mapping-file.js';
import { resolveFeedMapping } from '../map/presets.js';
import { transformReads } from '../map/transforms/index.js';
import { readFeed, sourceName } from '../read/index.js';
import { flatten } from '../shared/flatten.js';
import type { Logger } from '../shared/logger.js';
import type { FeedOptions, ReadItem } from '../shared/types.js';
import type { FeedRow } from './feed-row.js';
import { FeedProcessor, FileReads, type SourceKeying, withRunDate } from './pipeline.js';
import { isChecked, type PieceAt, type ProcessedItem, type SettleOptions, Settler } from './settle.js';

/**
 * The feed on this thread (docs/reading.md, "Threads"): what `feedRows` runs without workers,
 * and what unit tests feed in memory. Apart from the feed worker's modules, so that a worker
 * loads no reader it does not use (src/feed/worker.ts).
 */
export function feedItems(
  sources: string[],
  options: FeedOptions,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
  keying?: SourceKeying,
): AsyncIterableIterator<FeedRow> {
  const run = withRunDate(options);
  const readerOptions = { encoding: run.encoding, delimiter: run.delimiter, inputType: run.inputType };
  const read = (source: string) => readFeed(source, readerOptions, log, stdin);
  return processReads(sources, read, run, resolveFeedMapping(run), keying);
}

/** Any reader's items through the processor and settler, one row at a time (see processBatches). */
export function processReads(...args: Parameters<typeof processBatches>): AsyncIterableIterator<FeedRow> {
  return flatten(processBatches(...args));
}

/**
 * Any reader's items through the same processor and settler as the rows of the feed's workers,
 * in batches: the rows settled from one read (a record, and what it brought to light).
 */
export async function* processBatches(
  sources: string[],
  read: (source: string) => AsyncIterable<ReadItem> | Promise<AsyncIterable<ReadItem>>,
  options: FeedOptions,
  mapping?: Mapping,
  keying?: SourceKeying,
  settle?: SettleOptions,
): AsyncGenerator<FeedRow[]> {
  options = withRunDate(options);
  const feed = new FeedProcessor(options, mapping, sources, keying);
  const settler = new Settler(sources.map(sourceName), options, settle);
  const runDate = new Date(options.runDate!);
  const out: ProcessedItem[] = [];
  try {
    for (let fileIndex = 0; fileIndex < sources.length; fileIndex++) {
      // A shop preset's transform reshapes the rows (variants, drafts) before they are mapped.
      const reads = transformReads(mapping?.transform, await read(sources[fileIndex]), { runDate });
      feed.startFile(fileIndex);
      const file = new FileReads(feed);
      const at = { fileIndex };
      for await (const item of reads) {
        file.take(item, out);
        const rows = settleAll(settler, at, out);
        if (rows.length > 0) yield rows;
      }
      file.end(out);
      const rows = settleAll(settler, at, out);
      if (rows.length > 0) yield rows;
    }
  } finally {
    settler.close();
  }
}

function settleAll(settler: Settler, at: PieceAt, items: ProcessedItem[]): FeedRow[] {
  const rows: FeedRow[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const columns = item.columns;
    if (columns) delete item.columns;
    settler.take(at, { row: item, checked: isChecked(item), columns }, rows);
  }
  items.length = 0;
  return rows;
}
