import { workerData } from 'node:worker_threads';
import { resolveFeedMapping } from '../map/presets.js';
import { type RecordMaker, recordMaker } from '../read/record-maker.js';
import type { ReadItem } from '../shared/types.js';
import { serveTasks } from '../shared/worker-pool.js';
import type { Job, JobResult, RecordsJob, WorkerInput } from './jobs.js';
import { ResultPacker } from './jobs.js';
import { FeedProcessor, FileReads, type SourceKeying } from './pipeline.js';
import type { ProcessedItem } from './settle.js';

/**
 * The feed worker: one job at a time (src/feed/jobs.ts), through the same processor as the
 * feed on one thread, into one compact answer.
 */
const { files, feed, serialize, keyed } = workerData as WorkerInput;
const keying: SourceKeying | undefined = keyed ? { settings: keyed.settings } : undefined;
const processor = new FeedProcessor(feed, resolveFeedMapping(feed), files, keying);
/**
 * The readers, for byte ranges only: a worker given batches of records (one worker, the usual
 * case) never loads them, nor has V8 compile their modules and hot loops a second time.
 */
let ranges: typeof import('./range-reads.js') | undefined;

serveTasks<Job, JobResult>(async (job) => {
  if (keying) keying.known = job.known;
  const packer = new ResultPacker(serialize, keying !== undefined);
  if (job.kind === 'range') ranges ??= await import('./range-reads.js');
  let failure: unknown;
  try {
    processor.startFile(job.fileIndex);
    const file = new FileReads(processor);
    const out: ProcessedItem[] = [];
    const take = (read: ReadItem) => {
      file.take(read, out);
      for (const item of out) packer.add(item);
      out.length = 0;
    };
    // Records are in hand: a plain loop (a promise per record cost as much as mapping it).
    if (job.kind === 'range')
      for await (const read of ranges!.rangeReads(job, files[job.fileIndex])) take(read);
    else {
      const make = job.keys ? makerFor(job.keys) : undefined;
      for (const item of job.items) take(readOf(item, make));
    }
    file.end(out);
    for (const item of out) packer.add(item);
  } catch (err) {
    failure = err;
  }
  return packer.finish(job.kind === 'range' ? ranges!.lineFeeds(job.body) : 0, failure);
});

/** Compiled once per column set, as the reader compiles it: the same objects as on the main thread. */
const makers = new Map<string, RecordMaker>();

function makerFor(keys: string[]): RecordMaker {
  const id = keys.join('\u0000');
  let maker = makers.get(id);
  if (!maker) {
    maker = recordMaker(keys);
    makers.set(id, maker);
  }
  return maker;
}

/** A read of a records job: values made into a record by the column set's maker, the rest as it came. */
function readOf(item: RecordsJob['items'][number], make: RecordMaker | undefined): ReadItem {
  if (item.type !== 'values') return item;
  const { file, row, line, values } = item;
  return { type: 'record', record: { file, row, line, fields: make!(values as string[]), shape: 'rows' } };
}
