#!/usr/bin/env node
// Experiment: `genser validate` with the per-row work spread over worker threads. Does it pay
// on a 2-core machine, and by how much? Uses genser's own compiled reader (dist/read/csv.js)
// and FeedProcessor (map -> build -> validate) inside each worker; only the split is new.
//
// The main thread reads the file in blocks and cuts each at its last record boundary (a line
// feed outside quotes: RFC 4180 doubles quotes inside fields, so quote parity tells inside
// from outside), counts the block's line feeds (for line numbers), and transfers the bytes to
// a worker. A worker decodes its block, parses it behind the header line, maps, builds and
// validates every row, and returns counts, the issues of invalid rows and the SKUs. The main
// thread merges results in block order: it renumbers rows and lines, and checks duplicate SKUs
// across the whole file (genser's SkuSet), so the output is what the sequential pipeline gives.
//
//   node bench/experiments/parallel-validate.mjs FILE [WORKERS=2] [BLOCK_MIB=2]
//   -> {"rows", "valid", "invalid", "duplicates", "workers", "ms"}
//
// Limits of the experiment: UTF-8 CSV with a plain header only (no encoding detection, no
// mapping file, no `sep=` line); issues are not formatted into a report.

import { closeSync, openSync, readSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const load = (p) => import(pathToFileURL(join(dist, p)).href);

/** Index just past the last record boundary in block[from, end), and the quote state at end. */
export function cutBlock(block, from, end, inQuotes) {
  const quotes = [];
  for (let p = block.indexOf(34, from); p !== -1 && p < end; p = block.indexOf(34, p + 1)) quotes.push(p);
  let cut = -1;
  let nl = block.lastIndexOf(10, end - 1);
  while (nl >= from) {
    let lo = 0;
    let hi = quotes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (quotes[mid] < nl) lo = mid + 1;
      else hi = mid;
    }
    if ((lo % 2 === 1) === inQuotes) {
      cut = nl + 1;
      break;
    }
    nl = block.lastIndexOf(10, quotes[lo - 1] - 1);
  }
  return { cut, inQuotes: quotes.length % 2 === 1 ? !inQuotes : inQuotes };
}

function countLineFeeds(buf, from, to) {
  let n = 0;
  for (let p = buf.indexOf(10, from); p !== -1 && p < to; p = buf.indexOf(10, p + 1)) n++;
  return n;
}

async function mainThread() {
  const [file, workersArg, blockArg] = process.argv.slice(2);
  const nWorkers = Number(workersArg ?? 2);
  const blockBytes = Math.round(Number(blockArg ?? 2) * 1024 * 1024);
  const { SkuSet } = await load('validate/duplicates.js');
  const started = performance.now();

  const fd = openSync(file, 'r');
  // The header: the first line (a header with quoted line breaks is out of scope here).
  const head = Buffer.alloc(64 * 1024);
  const headLen = readSync(fd, head, 0, head.length, 0);
  const headerEnd = head.indexOf(10);
  if (headerEnd < 0 || headerEnd >= headLen) throw new Error('no header line in the first 64 KiB');
  const header = head.toString('utf8', 0, headerEnd + 1);

  const workers = Array.from(
    { length: nWorkers },
    () => new Worker(new URL(import.meta.url), { workerData: { file, header } }),
  );
  const idle = [...workers];
  const waiting = [];
  const take = () => (idle.length ? Promise.resolve(idle.pop()) : new Promise((ok) => waiting.push(ok)));
  const give = (w) => (waiting.length ? waiting.shift()(w) : idle.push(w));

  // Results merged in block order.
  const done = new Map();
  let nextToMerge = 0;
  let rowOffset = 0;
  const stats = { rows: 0, valid: 0, invalid: 0, duplicates: 0, issues: 0, first: [] };
  const skus = new SkuSet();
  const lineStartOf = new Map();
  const merge = () => {
    while (done.has(nextToMerge)) {
      const r = done.get(nextToMerge);
      done.delete(nextToMerge);
      const lineStart = lineStartOf.get(nextToMerge);
      lineStartOf.delete(nextToMerge);
      for (let i = 0; i < r.skus.length; i++) {
        const sku = r.skus[i];
        if (sku && skus.add(sku, 0, rowOffset + i + 1)) stats.duplicates++;
      }
      for (const issue of r.issues) {
        // Block-relative row and line (the header is line 1 of every block) to file positions.
        issue.row += rowOffset;
        issue.line += lineStart - 2;
        if (stats.first.length < 3) stats.first.push(`${issue.row}:${issue.line}:${issue.column}`);
      }
      stats.rows += r.rows;
      stats.valid += r.valid;
      stats.invalid += r.invalid;
      stats.issues += r.issues.length;
      rowOffset += r.rows;
      nextToMerge++;
    }
  };
  let pending = 0;
  let allSent;
  const allDone = new Promise((ok) => {
    allSent = ok;
  });
  let sending = true;
  for (const w of workers)
    w.on('message', (m) => {
      done.set(m.index, m);
      pending--;
      merge();
      give(w);
      if (!sending && pending === 0) allSent();
    });

  let carry = Buffer.alloc(0);
  let inQuotes = false;
  let position = headerEnd + 1;
  let line = 2;
  let index = 0;
  for (;;) {
    const block = Buffer.allocUnsafeSlow(carry.length + blockBytes);
    carry.copy(block, 0);
    const got = readSync(fd, block, carry.length, blockBytes, position);
    position += got;
    const end = carry.length + got;
    let cut = end;
    if (got > 0) {
      const c = cutBlock(block, carry.length, end, inQuotes);
      inQuotes = c.inQuotes;
      if (c.cut < 0) {
        carry = Buffer.from(block.subarray(0, end));
        continue;
      }
      cut = c.cut;
    }
    carry = Buffer.from(block.subarray(cut, end));
    if (cut > 0) {
      const w = await take();
      pending++;
      lineStartOf.set(index, line);
      line += countLineFeeds(block, 0, cut);
      const ab = block.buffer;
      w.postMessage({ index, ab, start: block.byteOffset, end: block.byteOffset + cut }, [ab]);
      index++;
    }
    if (got === 0) break;
  }
  closeSync(fd);
  sending = false;
  if (pending > 0) await allDone;
  for (const w of workers) await w.terminate();
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ ...stats, workers: nWorkers, ms: Math.round(ms) })}\n`);
}

async function workerThread() {
  const { readCsv } = await load('read/csv.js');
  const { FeedProcessor } = await load('pipeline.js');
  const { file, header } = workerData;
  const options = {
    format: 'standard',
    kind: 'products',
    encoding: 'utf-8',
    language: 'ko',
    strict: false,
    country: 'KR',
  };
  const feed = new FeedProcessor(options, undefined, [file]);
  feed.startFile(0);
  const decoder = new TextDecoder();
  let queue = Promise.resolve();
  parentPort.on('message', (m) => {
    // One block at a time, in arrival order.
    queue = queue.then(async () => {
      const text = header + decoder.decode(new Uint8Array(m.ab, m.start, m.end - m.start));
      const out = { index: m.index, rows: 0, valid: 0, invalid: 0, issues: [], skus: [] };
      for await (const item of readCsv([text], { file, delimiter: ',', autoEncoding: false })) {
        if (item.type === 'issue') {
          out.issues.push(item.issue);
          continue;
        }
        feed.fileIssuesFor(item.record);
        const fi = feed.process(item.record);
        out.rows++;
        out.skus.push(fi.sku ?? '');
        if (fi.valid) out.valid++;
        else {
          out.invalid++;
          for (const issue of fi.issues) out.issues.push(issue);
        }
      }
      parentPort.postMessage(out);
    });
  });
}

if (isMainThread) {
  if (process.argv[1]?.endsWith('parallel-validate.mjs')) await mainThread();
} else {
  await workerThread();
}
