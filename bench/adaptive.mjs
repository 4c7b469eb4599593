#!/usr/bin/env node
// The adaptive sender against a host that takes at most K requests at once (issue 26, item 5),
// and request compression (item 6). Run on its own: `npm run build && node bench/adaptive.mjs`.
//
//   node bench/adaptive.mjs [--k 4] [--latency 50] [--batch 50] [--rows 20000]
//                           [--concurrency 8,16] [--runs 3] [--write]
//
// A local server answers each request after --latency ms, and at once with 429 (no Retry-After,
// as a gateway counting connections does) while K requests are already in flight. The ideal is
// K x batch / latency products per second. For each --concurrency, the fixed sender (every slot
// busy whatever the answers, as genser sent before: a 429 waits its backoff) and the adaptive
// one (src/http/pacer.ts) run back to back, round after round; each figure is the median of
// --runs. The server counts every SKU it accepted: no row may fail and none may come twice.
// Then bytes on the wire with and without --compress gzip, for the same products.
// Drives the built engine (dist/) directly: what is measured is the sender, not the feed.
// With --write the table replaces the marked section of BENCHMARKS.md.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { uploadFeed } = await import(join(root, 'dist/upload/engine.js'));
const { UndiciSender } = await import(join(root, 'dist/http/sender.js'));
const { Pacer } = await import(join(root, 'dist/http/pacer.js'));
const { memoryLogger } = await import(join(root, 'dist/shared/logger.js'));

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const K = Number(arg('k', 4));
const LATENCY = Number(arg('latency', 50));
const BATCH = Number(arg('batch', 50));
const ROWS = Number(arg('rows', 20000));
const RUNS = Number(arg('runs', 3));
const CONCURRENCY = String(arg('concurrency', '8,16')).split(',').map(Number);
const WRITE = process.argv.includes('--write');
const IDEAL = (K * BATCH) / (LATENCY / 1000);

// Real product nodes (the shipped example catalog, converted), given unique SKUs.
const converted = spawnSync(
  process.execPath,
  [join(root, 'bin/genser.js'), 'convert', join(root, 'fixtures/catalog.csv')],
  {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  },
);
const nodes = converted.stdout
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

function server() {
  let inFlight = 0;
  const seen = new Map();
  const stats = { requests: 0, refused: 0, wireBytes: 0, bodyBytes: 0, maxInFlight: 0 };
  const s = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      stats.requests++;
      const raw = Buffer.concat(chunks);
      stats.wireBytes += raw.length;
      if (inFlight >= K) {
        stats.refused++;
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, inFlight);
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      stats.bodyBytes += body.length;
      setTimeout(() => {
        inFlight--;
        for (const p of JSON.parse(body.toString('utf8'))['@graph'])
          seen.set(p.sku, (seen.get(p.sku) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }, LATENCY);
    });
  });
  return new Promise((r) =>
    s.listen(0, '127.0.0.1', () =>
      r({
        url: `http://127.0.0.1:${s.address().port}`,
        seen,
        stats,
        close: () => new Promise((c) => s.close(c)),
      }),
    ),
  );
}

/** Small products for the sender runs (the CPU goes to sending, not serializing); real ones for the bytes. */
async function* items(real) {
  for (let row = 1; row <= ROWS; row++) {
    const node = nodes[row % nodes.length];
    const sku = `B-${row}`;
    const payload = real ? { ...node, sku, offers: { ...node.offers, sku } } : { '@type': 'Product', sku };
    yield { file: 'bench.csv', row, line: row + 1, sku, valid: true, issues: [], payload };
  }
}

/** A limit that never moves: the sender as it was, every slot busy whatever the host answers. */
const fixedPacer = (max) => new Pacer({ max, limit: max, peak: max, generation: 0, record() {} });

async function once(mode, concurrency, compress) {
  const srv = await server();
  const poster = new UndiciSender({
    apiUrl: srv.url,
    connections: concurrency,
    timeoutMs: 60_000,
    userAgent: 'bench',
    keyHeader: 'apiKey',
    key: 'bench-key-0123456789',
    network: { env: {}, compress: compress ?? 'none' },
  });
  const settings = {
    format: 'standard',
    path: '/collectors/products',
    batchSize: BATCH,
    maxBatchBytes: 5 * 1024 * 1024,
    concurrency,
    retries: 100,
    backoff: { baseMs: 500, capMs: 30_000, retryAfterCapMs: 10_000 },
    type: 'create_product',
    agentName: 'bench',
    dryRun: false,
    maxErrors: 20,
    graceMs: 500,
  };
  const started = performance.now();
  const result = await uploadFeed(items(compress !== undefined), settings, {
    poster,
    log: memoryLogger(),
    ...(mode === 'fixed' ? { pacer: fixedPacer(concurrency) } : {}),
  });
  const seconds = (performance.now() - started) / 1000;
  await poster.close();
  await srv.close();
  const twice = [...srv.seen.values()].filter((n) => n > 1).length;
  const s = result.summary;
  return {
    productsPerSecond: ROWS / seconds,
    failed: s.failed + s.unconfirmed + s.notSent + s.rejected,
    twice,
    missing: ROWS - srv.seen.size,
    refused: srv.stats.refused,
    retries: s.retries,
    reached: s.concurrency?.reached,
    wireBytes: srv.stats.wireBytes,
    bodyBytes: srv.stats.bodyBytes,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
// The reference: a fixed sender tuned to exactly K, which never meets a 429; on a busy machine it
// is below the ideal too. Every round runs it, then fixed and adaptive at each --concurrency.
const runsOf = { ref: [] };
for (let run = 0; run < RUNS; run++) {
  runsOf.ref.push(await once('fixed', K));
  for (const c of CONCURRENCY)
    for (const mode of ['fixed', 'adaptive']) {
      const r = await once(mode, c);
      runsOf[`${mode} ${c}`] = [...(runsOf[`${mode} ${c}`] ?? []), r];
      process.stderr.write(
        `bench adaptive: --concurrency ${c} ${mode} run ${run + 1}: ${Math.round(r.productsPerSecond)} products/s, ${r.refused} 429s\n`,
      );
    }
}
const row = (concurrency, mode, rs) => {
  const pps = median(rs.map((r) => r.productsPerSecond));
  return {
    concurrency,
    mode,
    pps,
    ofIdeal: pps / IDEAL,
    refused: median(rs.map((r) => r.refused)),
    reached: mode === 'adaptive' ? median(rs.map((r) => r.reached)) : concurrency,
    failed: Math.max(...rs.map((r) => r.failed)),
    twice: Math.max(...rs.map((r) => r.twice + r.missing)),
  };
};
rows.push(row(K, 'fixed at K (reference)', runsOf.ref));
for (const c of CONCURRENCY)
  for (const mode of ['fixed', 'adaptive']) rows.push(row(c, mode, runsOf[`${mode} ${c}`]));
const plain = await once('adaptive', CONCURRENCY[0], 'none');
const gz = await once('adaptive', CONCURRENCY[0], 'gzip');

const pct = (x) => `${(x * 100).toFixed(0)}%`;
const mib = (b) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
const table = [
  `K = ${K} requests at once, ${LATENCY} ms latency, ${BATCH} products a batch, ${ROWS.toLocaleString('en')} products; ideal ${Math.round(IDEAL).toLocaleString('en')} products/s; median of ${RUNS} rounds, each running every sender back to back (${new Date().toISOString().slice(0, 16)} UTC, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}).`,
  '',
  '| --concurrency | sender | products/s | of ideal | of the reference | 429s | concurrency reached | rows failed | sent twice or lost |',
  '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.concurrency} | ${r.mode} | ${Math.round(r.pps).toLocaleString('en')} | ${pct(r.ofIdeal)} | ${pct(r.pps / rows[0].pps)} | ${r.refused} | ${r.reached} | ${r.failed} | ${r.twice} |`,
  ),
  '',
  `Request bodies on the wire for the same ${ROWS.toLocaleString('en')} products (adaptive, --concurrency ${CONCURRENCY[0]}): ${mib(plain.wireBytes)} without compression, ${mib(gz.wireBytes)} with \`--compress gzip\` (${(plain.wireBytes / gz.wireBytes).toFixed(1)}x smaller; ${Math.round(plain.productsPerSecond).toLocaleString('en')} and ${Math.round(gz.productsPerSecond).toLocaleString('en')} products/s).`,
].join('\n');
process.stdout.write(`${table}\n`);

if (WRITE) {
  const file = join(root, 'BENCHMARKS.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:adaptive:start (written by `node bench/adaptive.mjs --write`) -->';
  const end = '<!-- bench:adaptive:end -->';
  const section = `${start}\n${table}\n${end}`;
  const at = text.indexOf(start);
  const next =
    at === -1
      ? `${text.trimEnd()}\n\n### Sending that adapts, and request compression (issue 26)\n\n${section}\n`
      : text.slice(0, at) + section + text.slice(text.indexOf(end) + end.length);
  writeFileSync(file, next);
}
