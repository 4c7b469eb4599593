#!/usr/bin/env node
// Sandbox ingest rate: starts the sandbox in this process (startSandbox(), in-memory SQLite)
// and posts pre-built standard envelopes (one JSON body per line of FILE, as recorded from a
// genser upload) at a fixed concurrency, each with its own Idempotency-Key, as genser does.
//
//   node bench/tools/sandbox-ingest.mjs FILE [CONCURRENCY] [MAX_ENVELOPES=200]
//   -> {"envelopes": E, "envelopeSize": S, "products": P, "accepted": A, "ms": T}

import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import { startSandbox } from '../../dist/sandbox/index.js';
import { readLineBuffers } from '../lib/lines.mjs';

const [file, concurrencyArg, maxArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: sandbox-ingest.mjs FILE [CONCURRENCY]\n');
  process.exit(2);
}
const concurrency = Number(concurrencyArg ?? 4);
// The first MAX_ENVELOPES bodies are plenty for a rate (and keep memory modest).
const bodies = readLineBuffers(file, Number(maxArg ?? 200));
// Products per envelope, counted before the clock starts.
const counts = bodies.map((b) => JSON.parse(b.toString('utf8'))['@graph']?.length ?? 0);
const products = counts.reduce((a, b) => a + b, 0);
const envelopeSize = Math.max(0, ...counts);

const sandbox = await startSandbox({ port: 0, quiet: true, apiKey: 'sbx_bench_key' });
const target = new URL('/collectors/products', sandbox.url);
const pool = new Pool(target.origin, { connections: concurrency });
let accepted = 0;
let next = 0;
const failures = new Map();
const started = performance.now();
async function worker() {
  while (next < bodies.length) {
    const i = next++;
    const res = await pool.request({
      path: target.pathname,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        apikey: sandbox.apiKey,
        'idempotency-key': randomUUID(),
      },
      body: bodies[i],
    });
    const text = await res.body.text();
    if (res.statusCode === 200) accepted += counts[i];
    else failures.set(res.statusCode, text.slice(0, 300));
  }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const ms = performance.now() - started;
await pool.close();
await sandbox.close();
for (const [status, text] of failures) process.stderr.write(`sandbox answered ${status}: ${text}\n`);
process.stdout.write(
  `${JSON.stringify({ envelopes: bodies.length, envelopeSize, products, accepted, ms: Math.round(ms) })}\n`,
);
