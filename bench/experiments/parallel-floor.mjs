#!/usr/bin/env node
// Experiment: does parsing in worker threads pay on this machine? The main thread reads the
// file in blocks and cuts each block at its last record boundary (a line feed outside quotes:
// RFC 4180 doubles quotes inside fields, so quote parity tells inside from outside); workers
// decode their block and parse it with papaparse, making one object per row like
// `header: true`. Blocks move to workers without copying (transferred ArrayBuffers).
//
//   node bench/experiments/parallel-floor.mjs FILE [WORKERS=2] [BLOCK_MIB=4]
//   -> {"rows": N, "workers": W, "ms": T}

import { closeSync, openSync, readSync } from 'node:fs';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import Papa from 'papaparse';

if (isMainThread) {
  const [file, workersArg, blockArg] = process.argv.slice(2);
  const nWorkers = Number(workersArg ?? 2);
  const blockBytes = Number(blockArg ?? 4) * 1024 * 1024;
  const started = performance.now();
  const workers = Array.from({ length: nWorkers }, () => new Worker(new URL(import.meta.url)));
  const idle = [...workers];
  const waiting = [];
  let rows = 0;
  let workMs = 0;
  let pending = 0;
  const take = () => (idle.length ? Promise.resolve(idle.pop()) : new Promise((ok) => waiting.push(ok)));
  const give = (w) => (waiting.length ? waiting.shift()(w) : idle.push(w));
  for (const w of workers)
    w.on('message', (m) => {
      rows += m.rows;
      workMs += m.ms;
      pending--;
      give(w);
    });

  const fd = openSync(file, 'r');
  let carry = Buffer.alloc(0);
  let inQuotes = false;
  let header;
  for (;;) {
    const block = Buffer.allocUnsafeSlow(carry.length + blockBytes);
    carry.copy(block, 0);
    const got = readSync(fd, block, carry.length, blockBytes, null);
    const end = carry.length + got;
    // Scan only the new bytes (the carry's quote state is in `inQuotes`), with indexOf: a
    // byte loop in JS runs at ~100 MiB/s here, memchr at several GiB/s.
    const quotes = [];
    for (let p = block.indexOf(34, carry.length); p !== -1 && p < end; p = block.indexOf(34, p + 1))
      quotes.push(p);
    let last = -1;
    let nl = block.lastIndexOf(10, end - 1);
    while (nl >= carry.length) {
      // Quotes before nl: binary search.
      let lo = 0;
      let hi = quotes.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (quotes[mid] < nl) lo = mid + 1;
        else hi = mid;
      }
      if ((lo % 2 === 1) === inQuotes) {
        last = nl;
        break;
      }
      // Inside quotes: the record boundary can only be before the quote that opened them.
      nl = block.lastIndexOf(10, quotes[lo - 1] - 1);
    }
    if (quotes.length % 2 === 1) inQuotes = !inQuotes;
    // At the end of the file the whole rest is one block.
    const cut = got === 0 ? end : last + 1;
    if (cut <= 0 && got > 0) {
      carry = block.subarray(0, end);
      continue;
    }
    let start = 0;
    if (header === undefined) {
      // The header is the first record (assumed unquoted here: the experiment's catalogs).
      const nl = block.indexOf(10);
      header = block.toString('utf8', 0, nl).replace(/\r$/, '').split(',');
      start = nl + 1;
      for (const w of workers) w.postMessage({ header });
    }
    carry = Buffer.from(block.subarray(cut, end));
    if (cut > start) {
      const w = await take();
      pending++;
      const ab = block.buffer;
      w.postMessage({ ab, start: block.byteOffset + start, end: block.byteOffset + cut }, [ab]);
    }
    if (got === 0) break;
  }
  closeSync(fd);
  while (pending > 0) await new Promise((ok) => setTimeout(ok, 5));
  for (const w of workers) await w.terminate();
  const ms = performance.now() - started;
  process.stdout.write(
    `${JSON.stringify({ rows, workers: nWorkers, ms: Math.round(ms), workerMs: Math.round(workMs) })}\n`,
  );
} else {
  const decoder = new TextDecoder();
  let header;
  parentPort.on('message', (m) => {
    if (m.header) {
      header = m.header;
      return;
    }
    const t0 = performance.now();
    const text = decoder.decode(new Uint8Array(m.ab, m.start, m.end - m.start));
    const result = Papa.parse(text, { header: false, skipEmptyLines: true });
    let rows = 0;
    for (const values of result.data) {
      const row = {};
      for (let i = 0; i < header.length; i++) row[header[i]] = values[i];
      if (row.sku !== undefined) rows++;
    }
    parentPort.postMessage({ rows, ms: performance.now() - t0 });
  });
}
