#!/usr/bin/env node
// Experiment: keep genser's reader on the main thread (encoding detection, positions, read
// issues: all exactly as now) and spread map -> build -> validate over worker threads, batches
// of records in, results out in order. Compared with parallel-validate.mjs (which splits the
// bytes), this needs no change to the reader, but pays a structured clone per record.
//
//   node bench/experiments/parallel-records.mjs FILE [WORKERS=2] [BATCH=256]
//   WORKERS=0 runs the same loop on the main thread (the baseline).
//   -> {"rows", "valid", "invalid", "workers", "ms"}

import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const load = (p) => import(pathToFileURL(join(dist, p)).href);
const OPTIONS = {
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};
const quietLog = { fancy: false, info() {}, warn() {}, error() {}, debug() {} };

/** What a worker sends back per record: the FeedItem without its payload. */
function slim(item) {
  return { row: item.row, line: item.line, sku: item.sku, valid: item.valid, issues: item.issues };
}

async function mainThread() {
  const [file, workersArg, batchArg] = process.argv.slice(2);
  const nWorkers = Number(workersArg ?? 2);
  const batchSize = Number(batchArg ?? 256);
  const { readFeed } = await load('read/index.js');
  const started = performance.now();
  const stats = { rows: 0, valid: 0, invalid: 0, issues: 0 };
  const count = (item) => {
    stats.rows++;
    if (item.valid) stats.valid++;
    else {
      stats.invalid++;
      stats.issues += item.issues.length;
    }
  };
  const records = readFeed(file, { encoding: 'auto' }, quietLog);

  if (nWorkers === 0) {
    const { FeedProcessor } = await load('pipeline.js');
    const feed = new FeedProcessor(OPTIONS, undefined, [file]);
    feed.startFile(0);
    for await (const it of records) {
      if (it.type !== 'record') continue;
      feed.fileIssuesFor(it.record);
      count(slim(feed.process(it.record)));
    }
  } else {
    const workers = Array.from(
      { length: nWorkers },
      () => new Worker(new URL(import.meta.url), { workerData: { file } }),
    );
    // Results are merged in batch order; at most 3 batches in flight per worker.
    const results = new Map();
    let nextSeq = 0;
    let sent = 0;
    let wake;
    for (const w of workers)
      w.on('message', (m) => {
        results.set(m.seq, m.items);
        wake?.();
      });
    const drain = () => {
      while (results.has(nextSeq)) {
        for (const item of results.get(nextSeq)) count(item);
        results.delete(nextSeq);
        nextSeq++;
      }
    };
    const send = async (batch) => {
      while (sent - nextSeq >= 3 * nWorkers) {
        await new Promise((ok) => {
          wake = ok;
        });
        drain();
      }
      workers[sent % nWorkers].postMessage({ seq: sent, records: batch });
      sent++;
    };
    let batch = [];
    for await (const it of records) {
      if (it.type !== 'record') continue;
      batch.push(it.record);
      if (batch.length === batchSize) {
        await send(batch);
        batch = [];
      }
      drain();
    }
    if (batch.length) await send(batch);
    while (nextSeq < sent) {
      await new Promise((ok) => {
        wake = ok;
      });
      drain();
    }
    for (const w of workers) await w.terminate();
  }
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ ...stats, workers: nWorkers, batch: batchSize, ms: Math.round(ms) })}\n`,
  );
}

async function workerThread() {
  const { FeedProcessor } = await load('pipeline.js');
  const feed = new FeedProcessor(OPTIONS, undefined, [workerData.file]);
  feed.startFile(0);
  parentPort.on('message', ({ seq, records }) => {
    const items = [];
    for (const record of records) {
      feed.fileIssuesFor(record);
      items.push(slim(feed.process(record)));
    }
    parentPort.postMessage({ seq, items });
  });
}

if (isMainThread) {
  if (process.argv[1]?.endsWith('parallel-records.mjs')) await mainThread();
} else {
  await workerThread();
}
