#!/usr/bin/env node
// The benchmark harness (issue 5). `npm run bench` builds, then runs this.
//
//   node bench/run.mjs [--runs 3] [--quick] [--only validate,convert,upload,sandbox,startup,nightly,adaptive]
//                      [--sizes 100000,1000000] [--short-sizes 100000,300000,1000000]
//                      [--thread-rows 300000] [--upload-rows 300000] [--concurrency 4]
//                      [--batch-size 500] [--startup-runs 15] [--sandbox-envelopes 200]
//                      [--big-runs N (runs on catalogs of 1M rows and more; default --runs)]
//                      [--write | --no-write] [--from-json FILE (re-render saved results)]
//   node bench/run.mjs --scale [--scale-rows 1000000,10000000] [--write] [--from-json FILE]
//
// Every figure is the median of --runs runs; each tool is its own process (isolation, and
// peak RSS per process via GNU time). Figures compared in a ratio are run back to back in the
// same round, round after round, and the ratio is the median of the per-round ratios.
// Writes a table to stdout, bench/results.json, and the marked section of BENCHMARKS.md
// (a --quick or --only run writes only bench/out/results.json, unless --write).
// The validate section (issue 12) runs both catalog shapes: the long rows (about 1.6 KB) at
// --sizes and the short rows (about 336 bytes) at --short-sizes, then on 100k rows of each shape
// the CPU time per row of `validate` on one thread (GENSER_THREADS=0) against papaparse's, and
// `--threads 2` against `--threads 1` on --thread-rows short rows.
// A genser command that is not built (yet) is reported as "not available", never a crash.
// --scale (issue 32; not part of the default run, it takes most of an hour) runs only the scale
// section (bench/scale.mjs): validate, a first upload with --state and a second with 1% changed,
// once each, on --scale-rows short rows; wall, CPU, peak RSS, RSS over time, the state's size.
// It writes bench/out/scale.json, and with --write the marked `bench:scale` section.

import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  columnsOf,
  createRowGenerator,
  createShortRowGenerator,
  csvField,
  ensureCatalog,
} from './generate.mjs';
import { copyFlushed, firstLine, hasGnuTime, max, measure, median } from './lib/measure.mjs';
import { startCluster } from './lib/postgres.mjs';
import { evaluateTargets, formatJson, MiB, renderResults, replaceMarked } from './lib/report.mjs';
import { benchScale, renderScale, SCALE_ROWS, writeScaleSection } from './scale.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'genser.js');
const OUT = join(root, 'bench', 'out');
const NODE = process.execPath;
const API_KEY = 'bench-key-0123456789';
const genserEnv = { ...process.env, NO_COLOR: '1', GENSER_API_KEY: API_KEY };
delete genserEnv.GENSER_API_URL;

const log = (line) => process.stderr.write(`bench: ${line}\n`);

// --- options ------------------------------------------------------------------------------------

export function parseArgs(argv) {
  const o = {
    runs: 3,
    quick: false,
    only: null,
    sizes: [100_000, 1_000_000],
    shortSizes: [100_000, 300_000, 1_000_000],
    threadRows: 300_000,
    uploadRows: 300_000,
    concurrency: 4,
    batchSize: 500,
    startupRuns: 15,
    sandboxEnvelopes: 200,
    bigRuns: undefined,
    write: undefined,
    scale: false,
    scaleRows: SCALE_ROWS,
  };
  const list = (v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  const count = (v, name) => {
    const n = Number(String(v).replaceAll('_', ''));
    if (!Number.isInteger(n) || n < 1) throw new Error(`${name} needs a positive whole number, got "${v}"`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === '--runs') o.runs = count(val(), a);
    else if (a === '--quick') o.quick = true;
    else if (a === '--only') o.only = new Set(list(val()));
    else if (a === '--sizes') o.sizes = list(val()).map((s) => count(s, a));
    else if (a === '--short-sizes') o.shortSizes = list(val()).map((s) => count(s, a));
    else if (a === '--thread-rows') o.threadRows = count(val(), a);
    else if (a === '--upload-rows') o.uploadRows = count(val(), a);
    else if (a === '--concurrency') o.concurrency = count(val(), a);
    else if (a === '--batch-size') o.batchSize = count(val(), a);
    else if (a === '--startup-runs') o.startupRuns = count(val(), a);
    else if (a === '--sandbox-envelopes') o.sandboxEnvelopes = count(val(), a);
    else if (a === '--big-runs') o.bigRuns = count(val(), a);
    else if (a === '--no-write') o.write = false;
    else if (a === '--write') o.write = true;
    else if (a === '--from-json') o.fromJson = val();
    else if (a === '--scale') o.scale = true;
    else if (a === '--scale-rows') o.scaleRows = list(val()).map((s) => count(s, a));
    else if (a === '--help' || a === '-h') o.help = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (o.quick) {
    o.sizes = [100_000];
    if (!argv.includes('--short-sizes')) o.shortSizes = [100_000];
    if (!argv.includes('--thread-rows')) o.threadRows = 100_000;
    o.uploadRows = 100_000;
    if (!argv.includes('--runs')) o.runs = 1;
    if (!argv.includes('--startup-runs')) o.startupRuns = 5;
  }
  if (argv.includes('--scale-rows') && !o.scale) throw new Error('--scale-rows goes with --scale');
  if (o.scale && (o.only || o.quick))
    throw new Error('--scale runs on its own: no --only or --quick with it');
  // Partial runs do not overwrite the published figures unless asked to (--write).
  o.write ??= !o.quick && !o.only && !o.scale;
  const known = ['validate', 'convert', 'upload', 'sandbox', 'startup', 'nightly', 'adaptive'];
  for (const s of o.only ?? [])
    if (!known.includes(s)) throw new Error(`--only: unknown section "${s}" (${known.join(', ')})`);
  return o;
}

// --- environment --------------------------------------------------------------------------------

function machine() {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model?.trim() ?? 'unknown',
    memGiB: Math.round((totalmem() / 1024 ** 3) * 10) / 10,
    node: process.versions.node,
    os: `${type()} ${release()}`,
    loadAtStart: loadavg()
      .map((l) => l.toFixed(2))
      .join(' '),
  };
}

function mlrVersion() {
  const r = spawnSync('mlr', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Which genser commands are built: a placeholder says "(not built yet)" in its help. */
function genserCommands() {
  const avail = { validate: false, convert: false, upload: false, sandbox: false, startup: false, why: {} };
  if (!existsSync(join(root, 'dist', 'cli', 'main.js'))) {
    avail.why.all = 'dist/ is missing: run `npm run build` (npm run bench does)';
    return avail;
  }
  avail.startup = true;
  for (const cmd of ['validate', 'convert', 'upload', 'sandbox']) {
    const r = spawnSync(NODE, [BIN, cmd, '--help'], { encoding: 'utf8', env: genserEnv });
    const text = `${r.stdout}${r.stderr}`;
    avail[cmd] = r.status === 0 && !text.includes('not built yet');
    if (!avail[cmd]) avail.why[cmd] = `genser ${cmd} is not built yet`;
  }
  if (avail.sandbox && !existsSync(join(root, 'dist', 'sandbox', 'index.js'))) {
    avail.sandbox = false;
    avail.why.sandbox = 'dist/sandbox/index.js (startSandbox) is missing';
  }
  return avail;
}

// --- helpers ----------------------------------------------------------------------------------

const genser = (args, opts = {}) => measure(NODE, [BIN, ...args], { env: genserEnv, ...opts });

function parseJsonOut(text) {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function figure(runs, rows, bytes) {
  const ms = median(runs.map((r) => r.ms));
  const rss = max(runs.map((r) => r.maxRssKiB));
  return {
    ms: ms == null ? null : Math.round(ms),
    runsMs: runs.map((r) => Math.round(r.ms)),
    rowsPerSec: ms ? Math.round(rows / (ms / 1000)) : null,
    mibPerSec: ms && bytes ? Math.round((bytes / MiB / (ms / 1000)) * 10) / 10 : null,
    // CPU time / wall time: above 1 means more than one core was busy.
    cores: (() => {
      const c = median(runs.map((r) => (r.cpuMs == null ? null : r.cpuMs / r.ms)));
      return c == null ? null : Math.round(c * 100) / 100;
    })(),
    maxRssMiB: rss == null ? null : Math.round((rss / 1024) * 10) / 10,
    runsRssMiB: runs.map((r) => (r.maxRssKiB == null ? null : Math.round((r.maxRssKiB / 1024) * 10) / 10)),
  };
}

/** Starts the sink server; resolves with `{ url, stop(), stats() }`. */
export function startSink(recordFile) {
  const args = [join(root, 'bench', 'tools', 'sink-server.mjs')];
  if (recordFile) args.push('--record', recordFile);
  const child = spawn(NODE, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveSink, reject) => {
    let buf = '';
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`sink server exited early (${code})`)));
    child.stdout.on('data', (c) => {
      buf += c;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const { port } = JSON.parse(buf.slice(0, nl));
      child.removeAllListeners('exit');
      const url = `http://127.0.0.1:${port}`;
      resolveSink({
        url,
        stats: async () => (await fetch(`${url}/_stats`)).json(),
        reset: async () => {
          await fetch(`${url}/_reset`, { method: 'POST' });
        },
        stop: () =>
          new Promise((done) => {
            child.once('exit', done);
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

// --- sections -----------------------------------------------------------------------------------

async function benchValidate(o, ctx, catalogs, sizes = o.sizes, shape = 'long') {
  const out = {};
  const mlr = ctx.mlr;
  for (const n of sizes) {
    const { file, meta } = catalogs[n];
    log(
      `validate: ${n} ${shape} rows, ${n >= 1_000_000 ? (o.bigRuns ?? o.runs) : o.runs} round(s) of papaparse, genser${mlr ? ', mlr' : ''}`,
    );
    const pp = [];
    const gs = [];
    const ml = [];
    const ratios = [];
    const entry = { papaparse: null, genser: null, mlr: null, ratio: null };
    const rounds = n >= 1_000_000 ? (o.bigRuns ?? o.runs) : o.runs;
    for (let i = 0; i < rounds; i++) {
      const p = await measure(NODE, [join(root, 'bench', 'tools', 'papaparse-floor.mjs'), file]);
      const pj = parseJsonOut(p.stdout);
      if (p.code !== 0 || pj?.rows !== meta.rows) {
        ctx.notes.push(
          `papaparse floor failed on ${n} ${shape} rows: ${firstLine(p.stderr) || `counted ${pj?.rows}`}`,
        );
        break;
      }
      pp.push(p);
      if (ctx.avail.validate) {
        const g = await genser(['validate', file, '--json']);
        const report = parseJsonOut(g.stdout);
        if (g.code !== 0 && g.code !== 1) {
          entry.genser = { ms: null, note: `failed (exit ${g.code}): ${firstLine(g.stderr)}` };
        } else {
          if (report?.rows?.total !== meta.rows || report?.rows?.invalid !== meta.invalidRows) {
            const note =
              `genser validate on ${n} ${shape} rows counted ${report?.rows?.total} rows / ${report?.rows?.invalid} invalid; ` +
              `the catalog has ${meta.rows} / ${meta.invalidRows}`;
            if (!ctx.notes.includes(note)) ctx.notes.push(note);
          }
          gs.push(g);
          ratios.push(g.ms / p.ms);
        }
      }
      if (mlr) {
        const m = await measure('mlr', ['--icsv', '--ojsonl', 'cat', file], { stdout: 'ignore' });
        if (m.code === 0) ml.push(m);
        else entry.mlr = { ms: null, note: `mlr failed: ${firstLine(m.stderr)}` };
      }
    }
    if (pp.length) entry.papaparse = figure(pp, meta.rows, meta.bytes);
    if (gs.length) entry.genser = figure(gs, meta.rows, meta.bytes);
    else if (!entry.genser) entry.genser = { ms: null, note: ctx.avail.why.validate ?? 'not available' };
    if (ml.length) entry.mlr = figure(ml, meta.rows, meta.bytes);
    else if (!entry.mlr)
      entry.mlr = { ms: null, note: 'skipped: `mlr` not installed (apt-get install miller)' };
    if (ratios.length) entry.ratio = Math.round(median(ratios) * 100) / 100;
    out[n] = entry;
  }
  return out;
}

/** A file holding only the catalog's header line: the start-up cost of a tool, without rows. */
function headerOnly(file, shape) {
  const head = Buffer.alloc(65536);
  const fd = openSync(file, 'r');
  const got = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const text = head.subarray(0, got).toString('utf8');
  const target = join(OUT, `header-only-${shape}.csv`);
  writeFileSync(target, text.slice(0, text.indexOf('\n') + 1));
  return target;
}

/**
 * CPU time per row on one thread (GENSER_THREADS=0) of `genser validate` against papaparse's, on
 * one catalog: whole-process CPU (user + sys, GNU time), and net of each tool's start-up (the same
 * command on a header-only file). The ratio is the median of the per-round ratios of net figures.
 */
async function benchOneThread(o, ctx, { file, meta }, shape) {
  if (!ctx.avail.validate) return { note: ctx.avail.why.validate ?? 'not available' };
  if (!hasGnuTime()) return { note: 'needs GNU time (/usr/bin/time) for CPU figures' };
  const empty = headerOnly(file, shape);
  const oneThread = { env: { ...genserEnv, GENSER_THREADS: '0' } };
  const floor = (f) => measure(NODE, [join(root, 'bench', 'tools', 'papaparse-floor.mjs'), f]);
  log(`one thread: ${meta.rows} ${shape} rows, ${o.runs} round(s) of CPU time, genser and papaparse`);
  const g = [];
  const p = [];
  const g0 = [];
  const p0 = [];
  const ratios = [];
  for (let i = 0; i < o.runs; i++) {
    const gr = await genser(['validate', file, '--json'], { ...oneThread, stdout: 'ignore' });
    const pr = await floor(file);
    const ge = await genser(['validate', empty, '--json'], { ...oneThread, stdout: 'ignore' });
    const pe = await floor(empty);
    if (![gr, ge].every((r) => r.code === 0 || r.code === 1) || pr.code !== 0 || pe.code !== 0) {
      ctx.notes.push(`one-thread CPU on ${shape} rows: a run failed: ${firstLine(gr.stderr || pr.stderr)}`);
      break;
    }
    g.push(gr.cpuMs);
    p.push(pr.cpuMs);
    g0.push(ge.cpuMs);
    p0.push(pe.cpuMs);
    ratios.push((gr.cpuMs - ge.cpuMs) / (pr.cpuMs - pe.cpuMs));
  }
  if (!ratios.length) return { note: 'no complete round' };
  const us = (ms) => Math.round(((ms * 1000) / meta.rows) * 100) / 100;
  const net = (a, b) => median(a.map((v, i) => v - b[i]));
  return {
    rows: meta.rows,
    genserCpuMs: median(g),
    papaparseCpuMs: median(p),
    genserStartCpuMs: median(g0),
    papaparseStartCpuMs: median(p0),
    genserUsPerRow: us(median(g)),
    papaparseUsPerRow: us(median(p)),
    genserNetUsPerRow: us(net(g, g0)),
    papaparseNetUsPerRow: us(net(p, p0)),
    runsCpuMs: g,
    ratio: Math.round(median(ratios) * 100) / 100,
  };
}

/** `--threads 1` against `--threads 2`, back to back per round: wall time, CPU and the speed-up. */
async function benchThreads(o, ctx, { file, meta }, shape) {
  if (!ctx.avail.validate) return { note: ctx.avail.why.validate ?? 'not available' };
  log(`threads: ${meta.rows} ${shape} rows, ${o.runs} round(s) of --threads 1 and --threads 2`);
  const one = [];
  const two = [];
  const ratios = [];
  for (let i = 0; i < o.runs; i++) {
    const a = await genser(['validate', file, '--json', '--threads', '1'], { stdout: 'ignore' });
    const b = await genser(['validate', file, '--json', '--threads', '2'], { stdout: 'ignore' });
    if (![a, b].every((r) => r.code === 0 || r.code === 1)) {
      ctx.notes.push(`threads on ${shape} rows: a run failed: ${firstLine(a.stderr || b.stderr)}`);
      break;
    }
    one.push(a);
    two.push(b);
    ratios.push(a.ms / b.ms);
  }
  if (!ratios.length) return { note: 'no complete round' };
  return {
    rows: meta.rows,
    shape,
    threads1: figure(one, meta.rows, meta.bytes),
    threads2: figure(two, meta.rows, meta.bytes),
    cpuMs1: median(one.map((r) => r.cpuMs)),
    cpuMs2: median(two.map((r) => r.cpuMs)),
    speedup: Math.round(median(ratios) * 100) / 100,
  };
}

async function benchConvert(o, ctx, catalogs) {
  const out = {};
  const n = o.sizes[0];
  const { file, meta } = catalogs[n];
  if (!ctx.avail.convert) return { [n]: { ms: null, note: ctx.avail.why.convert } };
  log(`convert: ${n} rows, ${o.runs} run(s)`);
  const target = join(OUT, `convert-${n}.out`);
  const runs = [];
  for (let i = 0; i < o.runs; i++) {
    const r = await genser(['convert', file, '-o', target]);
    if (r.code !== 0 && r.code !== 1) {
      out[n] = { ms: null, note: `failed (exit ${r.code}): ${firstLine(r.stderr)}` };
      break;
    }
    runs.push(r);
  }
  rmSync(target, { force: true });
  if (runs.length) out[n] = figure(runs, meta.rows, meta.bytes);
  return out;
}

async function benchUpload(o, ctx, catalogs) {
  const n = o.uploadRows;
  const { file, meta } = catalogs[n];
  const base = { rows: n, concurrency: o.concurrency, batchSize: o.batchSize };
  if (!ctx.avail.upload) return { ...base, note: ctx.avail.why.upload };
  const uploadArgs = (url) => [
    'upload',
    file,
    '--api-url',
    url,
    '--concurrency',
    String(o.concurrency),
    '--batch-size',
    String(o.batchSize),
    '--json',
  ];
  const runUpload = async (url) => {
    // A fresh working directory per run, holding the run's upload state: nothing carried over,
    // and no state file per sink port left in the default state directory (~/.local/state).
    const cwd = mkdtempSync(join(tmpdir(), 'genser-bench-upload-'));
    try {
      return await genser(uploadArgs(url), { cwd, env: { ...genserEnv, GENSER_STATE_DIR: cwd } });
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  };

  // 1. Record the exact batches genser sends (not timed): the bare loop replays them.
  const recorded = join(OUT, `batches-${n}.ndjson`);
  log(`upload: recording the batches of ${n} rows`);
  let sink = await startSink(recorded);
  let rec;
  let recStats;
  try {
    rec = await runUpload(sink.url);
    recStats = await sink.stats();
  } finally {
    await sink.stop();
  }
  if (rec.code !== 0 && rec.code !== 1)
    return { ...base, note: `genser upload failed (exit ${rec.code}): ${firstLine(rec.stderr)}` };
  const report = parseJsonOut(rec.stdout);
  const expectSent = meta.rows - meta.invalidRows;
  if (report?.summary?.accepted !== expectSent)
    ctx.notes.push(
      `genser upload of ${n} rows reported accepted=${report?.summary?.accepted}, sent=${report?.summary?.sent}; ` +
        `the catalog has ${expectSent} valid rows`,
    );
  ctx.recordedBatches = recorded;

  // 2. Rounds of validate, upload and the bare loop against one sink.
  sink = await startSink();
  const vs = [];
  const us = [];
  const bs = [];
  const ratios = [];
  const floors = [];
  try {
    for (let i = 0; i < o.runs; i++) {
      log(`upload: round ${i + 1}/${o.runs}`);
      const v = await genser(['validate', file, '--json']);
      await sink.reset();
      const u = await runUpload(sink.url);
      if (u.code !== 0 && u.code !== 1) {
        ctx.notes.push(`genser upload round ${i + 1} failed (exit ${u.code}): ${firstLine(u.stderr)}`);
        break;
      }
      const st = await sink.stats();
      if (st.requests !== recStats.requests)
        ctx.notes.push(
          `upload round ${i + 1} sent ${st.requests} requests, the recording ${recStats.requests}`,
        );
      const b = await measure(NODE, [
        join(root, 'bench', 'tools', 'bare-post.mjs'),
        `${sink.url}/collectors/products`,
        recorded,
        String(o.concurrency),
      ]);
      const bj = parseJsonOut(b.stdout);
      if (b.code !== 0 || !bj) {
        ctx.notes.push(`bare post failed: ${firstLine(b.stderr)}`);
        break;
      }
      vs.push(v);
      us.push(u);
      bs.push(bj.ms);
      ratios.push(u.ms / (v.ms + bj.ms));
      // The least time upload's own CPU work allows on this machine's cores, against this
      // round's denominator: above 1, no overlap of reading and sending meets "<= validate +
      // bare post". Taken per round, like the ratio, so it never exceeds the round's ratio.
      if (u.cpuMs != null) floors.push(u.cpuMs / cpus().length / (v.ms + bj.ms));
    }
  } finally {
    await sink.stop();
  }
  if (!us.length) return { ...base, note: 'no complete round' };
  const vf = figure(vs, meta.rows, meta.bytes);
  const uf = figure(us, meta.rows, meta.bytes);
  const cpu = (runs) => {
    const c = median(runs.map((r) => r.cpuMs));
    return c == null ? null : Math.round(c);
  };
  const floor = floors.length === us.length ? median(floors) : null;
  return {
    ...base,
    batches: recStats.requests,
    bytesSent: recStats.bytes,
    validateMs: vf.ms,
    validateRssMiB: vf.maxRssMiB,
    validateRunsMs: vf.runsMs,
    validateCpuMs: cpu(vs),
    uploadMs: uf.ms,
    uploadRunsMs: uf.runsMs,
    uploadRssMiB: uf.maxRssMiB,
    uploadCpuMs: cpu(us),
    bareMs: Math.round(median(bs)),
    bareRunsMs: bs,
    cpuFloorRatio: floor == null ? null : Math.round(floor * 100) / 100,
    ratio: Math.round(median(ratios) * 100) / 100,
  };
}

async function benchSandbox(o, ctx) {
  if (!ctx.avail.sandbox) return { note: ctx.avail.why.sandbox };
  if (!ctx.recordedBatches) return { note: 'needs the recorded upload batches: run with the upload section' };
  log('sandbox: ingesting the recorded envelopes');
  const runs = [];
  let last;
  for (let i = 0; i < o.runs; i++) {
    const r = await measure(
      NODE,
      [
        join(root, 'bench', 'tools', 'sandbox-ingest.mjs'),
        ctx.recordedBatches,
        String(o.concurrency),
        String(o.sandboxEnvelopes),
      ],
      {
        env: genserEnv,
      },
    );
    const j = parseJsonOut(r.stdout);
    if (r.code !== 0 || !j) return { note: `sandbox ingest failed: ${firstLine(r.stderr)}` };
    runs.push(j);
    last = j;
  }
  const ms = median(runs.map((r) => r.ms));
  return {
    products: last.products,
    accepted: last.accepted,
    envelopes: last.envelopes,
    envelopeSize: last.envelopeSize,
    concurrency: o.concurrency,
    ms: Math.round(ms),
    runsMs: runs.map((r) => r.ms),
    productsPerSec: Math.round(last.accepted / (ms / 1000)),
    note:
      last.accepted === last.products
        ? undefined
        : `${last.products - last.accepted} products were not accepted`,
  };
}

async function benchStartup(o) {
  log(`start-up: ${o.startupRuns} round(s)`);
  const nodeMs = [];
  const versionMs = [];
  const helpMs = [];
  const vr = [];
  const hr = [];
  const opts = { env: genserEnv, useGnuTime: false };
  for (let i = 0; i < o.startupRuns; i++) {
    const a = await measure(NODE, ['-e', '0'], opts);
    const b = await measure(NODE, [BIN, '--version'], opts);
    const c = await measure(NODE, [BIN, '--help'], opts);
    nodeMs.push(a.ms);
    versionMs.push(b.ms);
    helpMs.push(c.ms);
    vr.push(b.ms / a.ms);
    hr.push(c.ms / a.ms);
  }
  const r1 = (v) => Math.round(v * 10) / 10;
  const r2 = (v) => Math.round(v * 100) / 100;
  return {
    nodeMs: r1(median(nodeMs)),
    versionMs: r1(median(versionMs)),
    helpMs: r1(median(helpMs)),
    versionRatio: r2(median(vr)),
    helpRatio: r2(median(hr)),
  };
}

// --- the nightly case (issue 11) ----------------------------------------------------------------

/** Rows whose price the nightly copy changes: every 100th (never one of the invalid rows). */
const NIGHTLY_EVERY = 100;
const NIGHTLY_OFFSET = 37;
export const nightlyChanged = (rows) =>
  rows < NIGHTLY_OFFSET ? 0 : Math.floor((rows - NIGHTLY_OFFSET) / NIGHTLY_EVERY) + 1;

/**
 * The catalog of `rows` again, byte for byte, but for 1% of rows priced one unit higher. `shape`
 * is the catalog's (generate.mjs): the long rows by default, `short` for the scale run.
 */
export async function writeNightlyCopy(rows, seed, file, shape = 'long') {
  const out = createWriteStream(file);
  const done = new Promise((ok, fail) => {
    out.on('finish', ok);
    out.on('error', fail);
  });
  const write = async (text) => {
    if (!out.write(text)) await new Promise((ok) => out.once('drain', ok));
  };
  const columns = columnsOf(shape);
  const row = shape === 'short' ? createShortRowGenerator(seed) : createRowGenerator(seed);
  const price = columns.indexOf('price');
  await write(`${columns.join(',')}\r\n`);
  let lines = [];
  for (let n = 1; n <= rows; n++) {
    const values = row(n);
    if (n % NIGHTLY_EVERY === NIGHTLY_OFFSET) {
      const p = values[price];
      const dot = p.indexOf('.');
      values[price] = (Number(p) + 1).toFixed(dot < 0 ? 0 : p.length - dot - 1);
    }
    lines.push(values.map(csvField).join(','));
    if (lines.length === 2000 || n === rows) {
      await write(`${lines.join('\r\n')}\r\n`);
      lines = [];
    }
  }
  out.end();
  await done;
}

/** Bytes of the state's SQLite files (database and WAL; not the salt). */
function stateBytes(dir) {
  let bytes = 0;
  for (const f of readdirSync(dir))
    if (f.endsWith('.sqlite') || f.endsWith('.sqlite-wal')) bytes += statSync(join(dir, f)).size;
  return bytes;
}

/**
 * Run 1 uploads the catalog into a new state (timed once); then each round, side by side: a plain
 * `validate` of the copy with 1% of rows changed, its upload with a fresh copy of run 1's state
 * (the default --max-change guard: one read, the changes spooled), and the same with
 * `--max-change 100%` (no guard: the feed streamed). One sink throughout: the state is per API url.
 * Each copy is first run once more on the unchanged catalog, untimed: a copied file no longer
 * matches its seal, so that run checks it whole and seals it, and the timed run finds the state as
 * six nights in seven do, as last night's run left it (docs/nightly.md, "A damaged state";
 * `bench/compare.mjs` times the seventh, whose check and copy are due).
 */
async function benchNightly(o, ctx, catalogs) {
  const n = o.uploadRows;
  const { file, meta } = catalogs[n];
  const valid = meta.rows - meta.invalidRows;
  const changed = nightlyChanged(n);
  const base = { rows: n, changedRows: changed, concurrency: o.concurrency, batchSize: o.batchSize };
  if (!ctx.avail.upload) return { ...base, note: ctx.avail.why.upload };
  const copy = join(OUT, `nightly-${n}.csv`);
  log(`nightly: writing ${n} rows with ${changed} changed -> ${copy}`);
  await writeNightlyCopy(n, meta.seed, copy);
  const work = mkdtempSync(join(tmpdir(), 'genser-bench-nightly-'));
  const seeded = join(work, 'after-run-1');
  const sink = await startSink();
  const args = (feed, state, extra = []) => [
    'upload',
    feed,
    '--api-url',
    sink.url,
    '--state',
    state,
    '--concurrency',
    String(o.concurrency),
    '--batch-size',
    String(o.batchSize),
    '--json',
    ...extra,
  ];
  /** An upload of the copy from a fresh copy of run 1's state (a directory, or `database`); its report checked. */
  const second = async (label, extra, database) => {
    // (The PostgreSQL state has no file to check: its copy is taken as it is.)
    const state = database ?? join(work, `state-${label}`);
    if (!database) {
      copyFlushed(seeded, state);
      await genser(args(file, state), { cwd: work });
    }
    await sink.reset();
    const r = await genser(args(copy, state, extra), { cwd: work });
    if (!database) rmSync(state, { recursive: true, force: true });
    const sum = parseJsonOut(r.stdout)?.summary;
    if ((r.code !== 0 && r.code !== 1) || sum?.accepted !== changed || sum?.unchanged !== valid - changed)
      throw new Error(
        `the second run (${label}) exited ${r.code}, accepted ${sum?.accepted} and left ${sum?.unchanged} unchanged; ` +
          `expected ${changed} and ${valid - changed}: ${firstLine(r.stderr)}`,
      );
    return r;
  };
  try {
    log(`nightly: run 1, ${n} rows into a new state`);
    const first = await genser(args(file, seeded), { cwd: work });
    const sum = parseJsonOut(first.stdout)?.summary;
    if ((first.code !== 0 && first.code !== 1) || sum?.accepted !== valid)
      return {
        ...base,
        note: `run 1 failed (exit ${first.code}, accepted ${sum?.accepted} of ${valid}): ${firstLine(first.stderr)}`,
      };
    const bytes = stateBytes(seeded);
    // The bodies of run 1 as the sink received them: every payload once, in its envelopes.
    const sent = (await sink.stats()).bytes;
    const vs = [];
    const us = [];
    const ss = [];
    const ratios = [];
    const streamRatios = [];
    for (let i = 0; i < o.runs; i++) {
      log(`nightly: round ${i + 1}/${o.runs}`);
      const v = await genser(['validate', copy, '--json']);
      const u = await second(`spooled-${i}`, []);
      const st = await second(`streamed-${i}`, ['--max-change', '100%']);
      vs.push(v);
      us.push(u);
      ss.push(st);
      ratios.push(u.ms / v.ms);
      streamRatios.push(st.ms / v.ms);
    }
    const cpu = (runs) => {
      const c = median(runs.map((r) => r.cpuMs));
      return c == null ? null : Math.round(c);
    };
    const r2 = (x) => Math.round(x * 100) / 100;
    const vf = figure(vs, n, meta.bytes);
    const uf = figure(us, n, meta.bytes);
    const sf = figure(ss, n, meta.bytes);
    const pgf = await nightlyOnPostgres(o, { file, valid, args, second, cpu, work });
    return {
      ...base,
      ...pgf,
      ...(pgf.pgSecondMs != null ? { pgRatio: r2(pgf.pgSecondMs / uf.ms) } : {}),
      firstMs: Math.round(first.ms),
      firstCpuMs: first.cpuMs == null ? null : Math.round(first.cpuMs),
      firstRssMiB: figure([first], n, meta.bytes).maxRssMiB,
      stateBytes: bytes,
      stateSkus: valid,
      stateBytesPer100k: Math.round((bytes / valid) * 100_000),
      sentBytes: sent,
      sentBytesPer100k: Math.round((sent / valid) * 100_000),
      stateRatio: Math.round((bytes / sent) * 1000) / 1000,
      validateMs: vf.ms,
      validateRunsMs: vf.runsMs,
      validateCpuMs: cpu(vs),
      validateRssMiB: vf.maxRssMiB,
      secondMs: uf.ms,
      secondRunsMs: uf.runsMs,
      secondCpuMs: cpu(us),
      secondRssMiB: uf.maxRssMiB,
      streamedMs: sf.ms,
      streamedRunsMs: sf.runsMs,
      streamedCpuMs: cpu(ss),
      streamedRssMiB: sf.maxRssMiB,
      ratio: r2(median(ratios)),
      streamedRatio: r2(median(streamRatios)),
      loadAtEnd: loadavg()
        .map((l) => l.toFixed(2))
        .join(' '),
    };
  } finally {
    await sink.stop();
    rmSync(work, { recursive: true, force: true });
    rmSync(copy, { force: true });
  }
}

/**
 * The nightly case with the state in PostgreSQL (docs/nightly.md, "State in PostgreSQL"): run 1
 * into a new database of a throwaway server (bench/lib/postgres.mjs), then each round's second
 * run (guard on) from a copy of it (CREATE DATABASE ... TEMPLATE). Skipped, with a note, where
 * PostgreSQL cannot start.
 */
async function nightlyOnPostgres(o, { file, valid, args, second, cpu, work }) {
  let cluster;
  try {
    cluster = await startCluster();
  } catch (err) {
    return { pgNote: `PostgreSQL: not measured (${firstLine(String(err.message ?? err))})` };
  }
  try {
    const seeded = await cluster.database();
    log('nightly: run 1 into a new PostgreSQL state');
    const first = await genser(args(file, seeded), { cwd: work });
    const sum = parseJsonOut(first.stdout)?.summary;
    if ((first.code !== 0 && first.code !== 1) || sum?.accepted !== valid)
      return { pgNote: `PostgreSQL run 1 failed (exit ${first.code}): ${firstLine(first.stderr)}` };
    const runs = [];
    for (let i = 0; i < o.runs; i++) {
      log(`nightly: PostgreSQL round ${i + 1}/${o.runs}`);
      runs.push(await second(`pg-${i}`, [], await cluster.database(new URL(seeded).pathname.slice(1))));
    }
    const f = figure(runs, o.uploadRows, 0);
    return {
      pgFirstMs: Math.round(first.ms),
      pgFirstCpuMs: first.cpuMs == null ? null : Math.round(first.cpuMs),
      pgSecondMs: f.ms,
      pgSecondRunsMs: f.runsMs,
      pgSecondCpuMs: cpu(runs),
      pgSecondRssMiB: f.maxRssMiB,
    };
  } finally {
    await cluster.stop();
  }
}

/** Table to stdout; with `write`, bench/results.json and the marked section of BENCHMARKS.md. */
/**
 * The adaptive sender against a host that takes K requests at once (issue 26): its own script,
 * run as one process so its server and the senders share nothing with the other sections. It
 * writes its own marked section of BENCHMARKS.md; the table is kept in results.json too.
 */
function benchAdaptive(o) {
  const args = [join(root, 'bench', 'adaptive.mjs'), '--runs', String(o.runs)];
  if (o.write) args.push('--write');
  const run = spawnSync(NODE, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`bench/adaptive.mjs exited ${run.status}`);
  return { table: run.stdout.trim() };
}

function publish(results, write) {
  const text = renderResults(results);
  process.stdout.write(`${text}\n`);
  if (!write) return;
  writeFileSync(join(root, 'bench', 'results.json'), formatJson(results));
  const docFile = join(root, 'BENCHMARKS.md');
  const doc = existsSync(docFile) ? readFileSync(docFile, 'utf8') : '# Benchmarks\n';
  writeFileSync(docFile, replaceMarked(doc, text));
  log('wrote bench/results.json and BENCHMARKS.md');
}

// --- main ---------------------------------------------------------------------------------------

/** The scale run (issue 32), or its saved results (--from-json) published again. */
async function runScale(o) {
  let results;
  if (o.fromJson) results = JSON.parse(readFileSync(o.fromJson, 'utf8'));
  else {
    const avail = genserCommands();
    if (!avail.validate || !avail.upload) {
      log(
        `--scale needs genser validate and upload: ${avail.why.all ?? avail.why.upload ?? avail.why.validate}`,
      );
      return 1;
    }
    mkdirSync(OUT, { recursive: true });
    try {
      // Saved after each size too: a later size that takes the harness down loses nothing before it.
      const save = (r) => writeFileSync(join(OUT, 'scale.json'), formatJson(r));
      results = await benchScale(o, {
        genser,
        startSink,
        writeNightlyCopy,
        nightlyChanged,
        parseJsonOut,
        log,
        save,
      });
    } catch (err) {
      log(err.message);
      return 1;
    }
    writeFileSync(join(OUT, 'scale.json'), formatJson(results));
    log('wrote bench/out/scale.json');
  }
  const text = renderScale(results);
  process.stdout.write(`${text}\n`);
  if (o.write) {
    writeScaleSection(text);
    log('wrote the bench:scale section of BENCHMARKS.md');
  }
  return 0;
}

async function main(argv) {
  let o;
  try {
    o = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`bench: ${err.message}\nhint: node bench/run.mjs --help\n`);
    return 2;
  }
  if (o.help) {
    const source = readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(1);
    const head = source.slice(
      0,
      source.findIndex((l) => !l.startsWith('//')),
    );
    process.stdout.write(`${head.map((l) => l.replace(/^\/\/ ?/, '')).join('\n')}\n`);
    return 0;
  }
  if (o.scale) return runScale(o);
  if (o.fromJson) {
    // Re-render saved results (e.g. bench/out/results.json of a --no-write run) without measuring.
    const saved = JSON.parse(readFileSync(o.fromJson, 'utf8'));
    saved.targets = evaluateTargets(saved);
    publish(saved, o.write ?? true);
    return 0;
  }
  const on = (s) => !o.only || o.only.has(s);
  mkdirSync(OUT, { recursive: true });
  const ctx = { avail: genserCommands(), mlr: on('validate') ? mlrVersion() : null, notes: [] };
  const results = {
    generatedAt: new Date().toISOString(),
    quick: o.quick,
    runs: o.runs,
    machine: machine(),
    tools: { gnuTime: hasGnuTime(), mlr: ctx.mlr },
    available: Object.fromEntries(Object.entries(ctx.avail).filter(([k]) => k !== 'why')),
    catalogs: {},
  };
  if (!hasGnuTime()) ctx.notes.push('GNU time not found: peak RSS polled from /proc/<pid>/status VmHWM');
  if (on('validate') && !ctx.mlr) ctx.notes.push('Miller (`mlr`) not installed: its column is skipped');
  for (const [k, why] of Object.entries(ctx.avail.why)) ctx.notes.push(`${k}: ${why}`);

  const needed = new Set();
  if (on('validate') || on('convert')) for (const n of o.sizes) needed.add(n);
  if (on('upload') || on('sandbox') || on('nightly')) needed.add(o.uploadRows);
  const catalogs = {};
  for (const n of [...needed].sort((a, b) => a - b)) {
    catalogs[n] = await ensureCatalog(n, { log });
    results.catalogs[n] = {
      bytes: catalogs[n].meta.bytes,
      invalidRows: catalogs[n].meta.invalidRows,
      file: catalogs[n].file.slice(root.length + 1),
    };
  }
  // The short-row catalog (issue 12): validate's sizes, and the threads comparison.
  const shortCatalogs = {};
  if (on('validate')) {
    results.shortCatalogs = {};
    const shortNeeded = new Set([...o.shortSizes, o.threadRows, o.sizes[0]]);
    for (const n of [...shortNeeded].sort((a, b) => a - b)) {
      shortCatalogs[n] = await ensureCatalog(n, { log, shape: 'short' });
      results.shortCatalogs[n] = {
        bytes: shortCatalogs[n].meta.bytes,
        invalidRows: shortCatalogs[n].meta.invalidRows,
        file: shortCatalogs[n].file.slice(root.length + 1),
      };
    }
  }

  // One section failing (a crash in a tool, a port in use) must not lose the others' figures.
  const section = async (name, fn) => {
    try {
      return await fn();
    } catch (err) {
      ctx.notes.push(`${name}: the harness failed: ${err?.message ?? err}`);
      log(`${name} failed: ${err?.stack ?? err}`);
      return undefined;
    }
  };
  if (on('validate')) {
    results.validate = await section('validate', () => benchValidate(o, ctx, catalogs));
    results.validateShort = await section('validate (short rows)', () =>
      benchValidate(o, ctx, shortCatalogs, o.shortSizes, 'short'),
    );
    const n = o.sizes[0];
    results.oneThread = {
      long: await section('one thread (long rows)', () => benchOneThread(o, ctx, catalogs[n], 'long')),
      short: await section('one thread (short rows)', () =>
        benchOneThread(o, ctx, shortCatalogs[n], 'short'),
      ),
    };
    results.threads = await section('threads', () =>
      benchThreads(o, ctx, shortCatalogs[o.threadRows], 'short'),
    );
  }
  if (on('convert')) results.convert = await section('convert', () => benchConvert(o, ctx, catalogs));
  if (on('upload') || on('sandbox'))
    results.upload = await section('upload', () => benchUpload(o, ctx, catalogs));
  if (!on('upload')) delete results.upload;
  if (on('sandbox')) results.sandbox = await section('sandbox', () => benchSandbox(o, ctx));
  if (on('nightly')) results.nightly = await section('nightly', () => benchNightly(o, ctx, catalogs));
  if (on('startup') && ctx.avail.startup) results.startup = await section('start-up', () => benchStartup(o));
  if (on('adaptive')) results.adaptive = await section('adaptive', () => benchAdaptive(o));
  results.notes = ctx.notes;
  results.targets = evaluateTargets(results);

  writeFileSync(join(OUT, 'results.json'), formatJson(results));
  publish(results, o.write);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
