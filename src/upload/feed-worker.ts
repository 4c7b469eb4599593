import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../cli/terminal.js';
import { ExitError } from '../errors.js';
import { feedItems } from '../pipeline.js';
import type { FeedItem, FeedOptions } from '../types.js';
import type { WorkerMessage } from './feed-source.js';

/**
 * Runs read -> map -> build -> validate (and each product's one JSON.stringify) on a second
 * thread, so the main thread only batches and sends: on two cores, uploading costs about the
 * validate time, not validate + serialize + send. Rows go to the main thread in chunks, at most
 * `ahead` chunks in advance (credit-based backpressure: memory stays flat).
 */
const port = parentPort!;
const { files, feed, chunkRows, ahead } = workerData as {
  files: string[];
  feed: FeedOptions;
  chunkRows: number;
  ahead: number;
};

let credit = ahead;
let wake: (() => void) | undefined;
port.on('message', (m: unknown) => {
  if (m === 'more') {
    credit++;
    wake?.();
    wake = undefined;
  }
});

const post = (m: WorkerMessage) => port.postMessage(m);
const log: Logger = {
  fancy: false,
  info: (m) => post({ t: 'log', level: 'info', m }),
  warn: (m) => post({ t: 'log', level: 'warn', m }),
  error: (m) => post({ t: 'log', level: 'error', m }),
  debug: (m) => post({ t: 'log', level: 'debug', m }),
};

/**
 * One chunk on the wire, cheap to clone: plain valid rows as typed arrays plus their JSON text
 * (the main thread, idle otherwise, encodes it); rows with issues travel as whole objects.
 */
class Chunk {
  rows: number[] = [];
  lines: number[] = [];
  fileIndex: number[] = [];
  skus: (string | undefined)[] = [];
  texts: (string | null)[] = [];
  others: [number, Omit<FeedItem, 'payload'>][] = [];
}

const fileNames: string[] = [];
const fileIndexOf = new Map<string, number>();

async function send(chunk: Chunk): Promise<void> {
  while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
  credit--;
  const rows = Int32Array.from(chunk.rows);
  const lines = Int32Array.from(chunk.lines);
  const fileIndex = Uint16Array.from(chunk.fileIndex);
  const message: WorkerMessage = {
    t: 'items',
    files: fileNames,
    rows,
    lines,
    fileIndex,
    skus: chunk.skus,
    texts: chunk.texts,
    others: chunk.others,
  };
  port.postMessage(message, [rows.buffer, lines.buffer, fileIndex.buffer]);
}

async function run(): Promise<void> {
  let chunk = new Chunk();
  for await (const item of feedItems(files, feed, log)) {
    const { payload, ...rest } = item;
    let fi = fileIndexOf.get(item.file);
    if (fi === undefined) {
      fi = fileNames.push(item.file) - 1;
      fileIndexOf.set(item.file, fi);
    }
    const i = chunk.rows.length;
    chunk.rows.push(item.row);
    chunk.lines.push(item.line);
    chunk.fileIndex.push(fi);
    chunk.skus.push(item.sku);
    chunk.texts.push(item.valid && payload !== undefined ? JSON.stringify(payload) : null);
    if (!item.valid || item.issues.length > 0) chunk.others.push([i, rest]);
    if (i + 1 >= chunkRows) {
      await send(chunk);
      chunk = new Chunk();
    }
  }
  if (chunk.rows.length > 0) await send(chunk);
  post({ t: 'end' });
}

run().catch((err: unknown) => {
  if (err instanceof ExitError) post({ t: 'error', code: err.exitCode, m: err.message, hint: err.hint });
  else
    post({ t: 'error', m: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack });
});
