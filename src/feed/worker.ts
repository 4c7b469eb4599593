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
  const reads = job.kind === 'range' ? ranges!.rangeReads(job, files[job.fileIndex]) : batchReads(job);
  let failure: unknown;
  try {
    processor.startFile(job.fileIndex);
    const file = new FileReads(processor);
    const out: ProcessedItem[] = [];
    for await (const read of reads) {
      file.take(read, out);
      for (const item of out) packer.add(item);
      out.length = 0;
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

async function* batchReads(job: RecordsJob): AsyncGenerator<ReadItem> {
  const make = job.keys ? makerFor(job.keys) : undefined;
  for (const item of job.items) {
    if (item.type !== 'values') yield item;
    else {
      const { file, row, line, values } = item;
      yield { type: 'record', record: { file, row, line, fields: make!(values as string[]), shape: 'rows' } };
    }
  }
}
