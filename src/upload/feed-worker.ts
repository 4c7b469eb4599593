import { parentPort, workerData } from 'node:worker_threads';
import type { Logger } from '../cli/terminal.js';
import { ExitError } from '../errors.js';
import { feedItems } from '../pipeline.js';
import type { FeedOptions } from '../types.js';
import type { WireItem, WorkerMessage } from './feed-source.js';

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

async function send(items: WireItem[], texts: string[]): Promise<void> {
  while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
  credit--;
  // All of the chunk's products in one buffer, transferred (not copied) to the main thread.
  let capacity = 0;
  for (const t of texts) capacity += t.length * 3;
  const bytes = Buffer.allocUnsafeSlow(capacity);
  let at = 0;
  let k = 0;
  for (const item of items) {
    if (item.len === undefined) continue;
    item.at = at;
    item.len = bytes.write(texts[k++], at);
    at += item.len;
  }
  const buffer = bytes.buffer as ArrayBuffer;
  port.postMessage({ t: 'items', items, bytes: buffer } satisfies WorkerMessage, [buffer]);
}

async function run(): Promise<void> {
  let items: WireItem[] = [];
  let texts: string[] = [];
  for await (const item of feedItems(files, feed, log)) {
    const { payload, ...rest } = item;
    if (item.valid && payload !== undefined) {
      texts.push(JSON.stringify(payload));
      items.push({ ...rest, len: 0 });
    } else items.push(rest);
    if (items.length >= chunkRows) {
      await send(items, texts);
      items = [];
      texts = [];
    }
  }
  if (items.length > 0) await send(items, texts);
  post({ t: 'end' });
}

run().catch((err: unknown) => {
  if (err instanceof ExitError) post({ t: 'error', code: err.exitCode, m: err.message, hint: err.hint });
  else
    post({ t: 'error', m: err instanceof Error ? err.message : String(err), stack: (err as Error)?.stack });
});
