#!/usr/bin/env node
// The bare undici loop: posts pre-built request bodies (one JSON body per line of FILE, as
// recorded from a genser upload) to URL at a fixed concurrency, through one keep-alive Pool,
// with nothing else to do. Bodies are loaded into memory before the clock starts.
//
//   node bench/tools/bare-post.mjs URL FILE CONCURRENCY  ->  {"batches": N, "bytes": B, "ms": T}

import { Pool } from 'undici';
import { readLineBuffers } from '../lib/lines.mjs';

const [url, file, concurrencyArg] = process.argv.slice(2);
if (!url || !file) {
  process.stderr.write('usage: bare-post.mjs URL FILE [CONCURRENCY]\n');
  process.exit(2);
}
const concurrency = Number(concurrencyArg ?? 4);
const bodies = readLineBuffers(file);
const target = new URL(url);
const pool = new Pool(target.origin, { connections: concurrency, pipelining: 1 });
const headers = { 'content-type': 'application/json', apikey: 'bench-key' };

const started = performance.now();
let next = 0;
let bytes = 0;
async function worker() {
  while (next < bodies.length) {
    const body = bodies[next++];
    const res = await pool.request({ path: target.pathname, method: 'POST', headers, body });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
    bytes += body.length;
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
await pool.close();
process.stdout.write(`${JSON.stringify({ batches: bodies.length, bytes, ms: Math.round(ms) })}\n`);
