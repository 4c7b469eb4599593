// The scale run (issue 32, "Ten million products on one machine"): `node bench/run.mjs --scale
// [--scale-rows 1000000,10000000]`. Not part of the default run: at 10M rows it takes most of an
// hour and tens of GB of disk.
//
// For each size N (short rows, generate.mjs `--shape short`), each step once: `genser validate`,
// the first `genser upload --state DIR` to the local sink, and the second upload of a copy with 1%
// of rows priced differently, on the first run's state. Per step: wall, CPU, peak RSS (GNU time),
// and the RSS and CPU of the genser process sampled every second (flat or growing: the peak alone
// does not say); the state's files after each upload. Run at two sizes, the peaks side by side.
// The catalogs and the changed copies stay in bench/data/ for the next run; the state goes.

import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, release, tmpdir, totalmem, type } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { catalogPath, DATA_DIR, ensureCatalog, GENERATOR_VERSION, readCatalogMeta } from './generate.mjs';
import { measure, median } from './lib/measure.mjs';
import { MiB } from './lib/report.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const GiB = 1024 * MiB;
export const SCALE_ROWS = [1_000_000, 10_000_000];
const SHAPE = 'short';

// Disk needed, upper bounds: the short catalog is about 336 bytes a row (and its changed copy as
// much); the state holds the SQLite file and WAL, its `.last-good` copy, and while the copy is
// remade (VACUUM INTO) a third one: about 1.1 KB a SKU each, 3.4 KB a row at most seen on disk
// during a second run at 200k rows. 4 KiB a row covers that.
const CATALOG_BYTES_PER_ROW = 400;
const STATE_BYTES_PER_ROW = 4096;
const DISK_MARGIN = 2 * GiB;
const SAMPLE_MS = 1000;

const mib = (kib) => (kib == null ? null : Math.round((kib / 1024) * 10) / 10);

/** The catalog's copy with 1% of rows priced one unit higher, kept beside it for the next run. */
async function changedCopy(n, meta, h) {
  const file = catalogPath(n, DATA_DIR, SHAPE).replace(/\.csv$/, '-changed.csv');
  const want = {
    generatorVersion: GENERATOR_VERSION,
    seed: meta.seed,
    rows: n,
    changed: h.nightlyChanged(n),
  };
  try {
    const got = JSON.parse(readFileSync(`${file}.meta.json`, 'utf8'));
    if (existsSync(file) && JSON.stringify(got) === JSON.stringify(want)) return file;
  } catch {}
  h.log(`scale: writing ${n} rows with ${want.changed} changed -> ${file}`);
  // Under a temporary name until whole, as generate.mjs does: a killed run leaves no half copy.
  await h.writeNightlyCopy(n, meta.seed, `${file}.partial`, SHAPE);
  renameSync(`${file}.partial`, file);
  writeFileSync(`${file}.meta.json`, `${JSON.stringify(want, null, 2)}\n`);
  return file;
}

/** Refuses (throws) when the disk cannot hold what the run writes; returns the estimate. */
export function checkDisk(sizes, dataDir = DATA_DIR, workDir = tmpdir()) {
  let catalogs = 0;
  for (const n of sizes) {
    const have = readCatalogMeta(catalogPath(n, dataDir, SHAPE), undefined, SHAPE)?.rows === n;
    const copy = catalogPath(n, dataDir, SHAPE).replace(/\.csv$/, '-changed.csv');
    catalogs += (have ? 0 : n * CATALOG_BYTES_PER_ROW) + (existsSync(copy) ? 0 : n * CATALOG_BYTES_PER_ROW);
  }
  // One size at a time: the state of the largest is the most there is at once.
  const state = Math.max(...sizes) * STATE_BYTES_PER_ROW;
  const free = (dir) => {
    let d = dir;
    while (!existsSync(d)) d = dirname(d);
    const s = statfsSync(d);
    return { bytes: s.bavail * s.bsize, dev: statSync(d).dev };
  };
  const data = free(dataDir);
  const work = free(workDir);
  const gib = (b) => `${(b / GiB).toFixed(1)} GiB`;
  const needs =
    data.dev === work.dev
      ? [[dataDir, catalogs + state + DISK_MARGIN, data.bytes]]
      : [
          [dataDir, catalogs + DISK_MARGIN, data.bytes],
          [workDir, state + DISK_MARGIN, work.bytes],
        ];
  for (const [dir, need, have] of needs)
    if (need > have)
      throw new Error(
        `not enough disk for --scale-rows ${sizes.join(',')}: ${dir} has ${gib(have)} free, the run needs ` +
          `up to ${gib(need)} (catalogs ${gib(catalogs)}, state ${gib(state)}, margin ${gib(DISK_MARGIN)}); ` +
          'free some space or pick smaller --scale-rows',
      );
  return { catalogBytes: catalogs, stateBytes: state, freeBytes: data.bytes };
}

/** The state directory's files: the SQLite file and WAL, the `.last-good` copy, the rest. */
export function stateFiles(dir) {
  const out = { sqliteBytes: 0, lastGoodBytes: 0, otherBytes: 0, files: {} };
  for (const f of readdirSync(dir)) {
    const bytes = statSync(join(dir, f)).size;
    out.files[f] = bytes;
    if (f.endsWith('.sqlite') || f.endsWith('.sqlite-wal')) out.sqliteBytes += bytes;
    else if (f.endsWith('.last-good')) out.lastGoodBytes += bytes;
    else out.otherBytes += bytes;
  }
  return out;
}

/** The sample nearest `share` of the run's wall time. */
function sampleAt(samples, ms, share) {
  let best = null;
  for (const s of samples)
    if (!best || Math.abs(s.ms - ms * share) < Math.abs(best.ms - ms * share)) best = s;
  return best;
}

/**
 * A measured step's figures. `shape`: RSS at each tenth of the run and the cores used in each
 * tenth (CPU between samples over wall), which show where memory grows and which phase is busy.
 */
function stepFigures(r, rows, { peakDiskBytes, sent, batchSize }) {
  const ok = !r.timedOut && (r.code === 0 || r.code === 1);
  const at = (p) => mib(sampleAt(r.samples, r.ms, p)?.rssKiB);
  const tenths = [];
  let prev = { ms: 0, cpuMs: 0 };
  let prevSent = { ms: 0, requests: 0 };
  for (let i = 1; i <= 10; i++) {
    const s = sampleAt(r.samples, r.ms, i / 10);
    const cores =
      s && s.ms > prev.ms ? Math.round(((s.cpuMs - prev.cpuMs) / (s.ms - prev.ms)) * 100) / 100 : null;
    const tenth = { rssMiB: mib(s?.rssKiB), cores };
    if (s && s.ms > prev.ms) prev = s;
    // Rows the sink received in this tenth, per second (batches of batchSize; the last may be short).
    const q = sent.length ? sampleAt(sent, r.ms, i / 10) : null;
    if (q && q.ms > prevSent.ms) {
      tenth.sentPerSec = Math.round(
        ((q.requests - prevSent.requests) * batchSize) / ((q.ms - prevSent.ms) / 1000),
      );
      prevSent = q;
    }
    tenths.push(tenth);
  }
  const last = r.samples.at(-1);
  return {
    ok,
    code: r.code,
    signal: r.signal,
    timedOut: r.timedOut,
    ms: Math.round(r.ms),
    cpuMs: r.cpuMs,
    cores: r.cpuMs == null ? null : Math.round((r.cpuMs / r.ms) * 100) / 100,
    rowsPerSec: Math.round(rows / (r.ms / 1000)),
    maxRssMiB: mib(r.maxRssKiB),
    sampledPeakRssMiB: mib(Math.max(0, ...r.samples.map((s) => s.rssKiB))),
    rssAt10MiB: at(0.1),
    rssAt50MiB: at(0.5),
    rssAt90MiB: at(0.9),
    tenths,
    samples: r.samples.map((s) => [s.ms, s.rssKiB, s.cpuMs]),
    ...(sent.length ? { sent: sent.map((q) => [q.ms, q.requests]) } : {}),
    ...(peakDiskBytes != null ? { statePeakBytes: peakDiskBytes } : {}),
    ...(ok ? {} : { lastRssMiB: mib(last?.rssKiB), lastSampleMs: last?.ms, stderrTail: tail(r.stderr, 15) }),
  };
}

const tail = (text, lines) => String(text).trimEnd().split('\n').slice(-lines).join('\n');

/**
 * Runs one genser step, sampling it; beside it, every second, the machine's load average (other
 * work shares these cores), the state directory's bytes on disk and the requests the sink has
 * received (the upload's progress over time), when given.
 */
async function step(h, label, args, { rows, cwd, stateDir, sink, batchSize }) {
  h.log(`scale: ${label}`);
  let peak = stateDir ? 0 : null;
  const load = [];
  const sent = [];
  const started = Date.now();
  const sampleDisk = () => {
    try {
      peak = Math.max(
        peak,
        Object.values(stateFiles(stateDir).files).reduce((a, b) => a + b, 0),
      );
    } catch {}
  };
  const beside = setInterval(() => {
    load.push(loadavg()[0]);
    if (stateDir) sampleDisk();
    sink?.stats().then(
      (st) => sent.push({ ms: Date.now() - started, requests: st.requests }),
      () => {},
    );
  }, SAMPLE_MS);
  try {
    const r = await h.genser(args, {
      cwd,
      sampleEveryMs: SAMPLE_MS,
      // Hung, not slow: 0.6 ms a row is several times the slowest step seen.
      timeoutMs: Math.max(30 * 60_000, rows * 0.6),
    });
    // Once more at the end: the last second (the `.last-good` copy is made then) is not missed.
    if (stateDir) sampleDisk();
    const f = stepFigures(r, rows, { peakDiskBytes: peak, sent, batchSize });
    if (load.length) f.load = [Math.min(...load), Math.max(...load)].map((l) => Math.round(l * 100) / 100);
    return { figures: f, report: h.parseJsonOut(r.stdout) };
  } finally {
    clearInterval(beside);
  }
}

/** One size: validate, run 1 into a new state, run 2 (1% changed) on it. Stops at a failed step. */
async function scaleOne(n, o, h) {
  const { file, meta, generated } = await ensureCatalog(n, { log: h.log, shape: SHAPE });
  const copy = await changedCopy(n, meta, h);
  const valid = meta.rows - meta.invalidRows;
  const changed = h.nightlyChanged(n);
  const out = { rows: n, bytes: meta.bytes, invalidRows: meta.invalidRows, changedRows: changed, steps: {} };
  if (generated) out.catalogGenerated = true;
  const checks = [];
  const work = mkdtempSync(join(tmpdir(), 'genser-bench-scale-'));
  const stateDir = join(work, 'state');
  const sink = await h.startSink();
  const upload = (feed) => [
    ...['upload', feed, '--api-url', sink.url, '--state', stateDir],
    ...['--concurrency', String(o.concurrency), '--batch-size', String(o.batchSize), '--json'],
  ];
  try {
    const v = await step(h, `validate, ${n} rows`, ['validate', file, '--json'], { rows: n, cwd: work });
    out.steps.validate = v.figures;
    if (!v.figures.ok) return out;
    checks.push(['validate: invalid rows', v.report?.rows?.invalid, meta.invalidRows]);

    await sink.reset();
    const opts = { rows: n, cwd: work, stateDir, sink, batchSize: o.batchSize };
    const u1 = await step(h, `run 1, ${n} rows into a new state`, upload(file), opts);
    out.steps.first = u1.figures;
    out.first = { summary: u1.report?.summary, sink: await sink.stats() };
    if (!u1.figures.ok) return out;
    checks.push(['run 1: accepted', u1.report?.summary?.accepted, valid]);
    out.stateAfterFirst = stateFiles(stateDir);

    await sink.reset();
    const u2 = await step(h, `run 2, ${changed} of ${n} rows changed`, upload(copy), opts);
    out.steps.second = u2.figures;
    out.second = { summary: u2.report?.summary, sink: await sink.stats() };
    if (!u2.figures.ok) return out;
    checks.push(['run 2: accepted', u2.report?.summary?.accepted, changed]);
    checks.push(['run 2: unchanged', u2.report?.summary?.unchanged, valid - changed]);
    out.stateAfterSecond = stateFiles(stateDir);
    return out;
  } finally {
    out.checks = checks.map(([what, got, want]) => ({ what, got: got ?? null, want, ok: got === want }));
    await sink.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

function machine() {
  const head = (() => {
    try {
      return execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    } catch {
      return null;
    }
  })();
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model?.trim() ?? 'unknown',
    memGiB: Math.round((totalmem() / GiB) * 10) / 10,
    node: process.versions.node,
    os: `${type()} ${release()}`,
    head,
  };
}

/**
 * The machine's speed now (it varies by the hour, "The machine varies" in BENCHMARKS.md): CPU time
 * of papaparse alone over 100k short rows, the median of three, so runs on other days compare.
 */
async function calibrate(h) {
  const { file } = await ensureCatalog(100_000, { log: h.log, shape: SHAPE });
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const r = await measure(process.execPath, [join(root, 'bench', 'tools', 'papaparse-floor.mjs'), file]);
    if (r.code === 0) runs.push(r);
  }
  return { floorCpuMs: median(runs.map((r) => r.cpuMs)), floorMs: Math.round(median(runs.map((r) => r.ms))) };
}

/**
 * The scale section: every size in turn, smallest first; a failed size does not stop the next.
 * `h.save(results)` after each size keeps what was measured if a later size takes the harness down.
 */
export async function benchScale(o, h) {
  const sizes = [...o.scaleRows].sort((a, b) => a - b);
  const disk = checkDisk(sizes);
  const results = {
    generatedAt: new Date().toISOString(),
    machine: machine(),
    loadAtStart: loadavg().map((l) => Math.round(l * 100) / 100),
    concurrency: o.concurrency,
    batchSize: o.batchSize,
    disk,
    calibration: { start: await calibrate(h) },
    sizes: {},
  };
  for (const n of sizes) {
    const started = Date.now();
    try {
      results.sizes[n] = await scaleOne(n, o, h);
    } catch (err) {
      results.sizes[n] = { rows: n, error: String(err?.stack ?? err) };
      h.log(`scale: ${n} rows failed: ${err?.stack ?? err}`);
    }
    results.sizes[n].totalMs = Date.now() - started;
    h.save?.(results);
  }
  results.calibration.end = await calibrate(h);
  results.loadAtEnd = loadavg().map((l) => Math.round(l * 100) / 100);
  return results;
}

// --- the report -----------------------------------------------------------------------------------

const STEPS = [
  ['validate', '`genser validate FILE --json`'],
  ['first', 'run 1: `genser upload --state DIR`, everything new'],
  ['second', 'run 2: the copy with 1% changed, same state'],
];
const int = (v) => (v == null ? 'n/a' : Math.round(v).toLocaleString('en'));
const secs = (ms) => {
  if (ms == null) return 'n/a';
  const s = ms / 1000;
  return s < 100
    ? `${s.toFixed(1)} s`
    : `${s.toFixed(0)} s (${Math.floor(s / 60)} min ${Math.round(s % 60)} s)`;
};
const mibs = (v) => (v == null ? 'n/a' : `${Math.round(v)} MiB`);
const bytes = (b) => {
  if (b == null) return 'n/a';
  if (b >= GiB) return `${(b / GiB).toFixed(2)} GiB`;
  return b >= 100 * 1024 ? `${(b / MiB).toFixed(1)} MiB` : `${int(b)} B`;
};
const cores = (c) => (c == null ? 'n/a' : c.toFixed(2));

function checkCell(size, key) {
  const prefix = { validate: 'validate', first: 'run 1', second: 'run 2' }[key];
  const mine = (size.checks ?? []).filter((c) => c.what.startsWith(prefix));
  return mine
    .map(
      (c) =>
        `${c.what.slice(prefix.length + 2)} ${int(c.got)}${c.ok ? '' : ` (expected ${int(c.want)}: MISMATCH)`}`,
    )
    .join(', ');
}

function stepRows(size) {
  return STEPS.filter(([key]) => size.steps?.[key]).map(([key, label]) => {
    const f = size.steps[key];
    const failed = f.ok
      ? ''
      : ` **failed: ${f.timedOut ? 'timed out' : f.signal ? `killed by ${f.signal}` : `exit ${f.code}`}**`;
    return (
      `| ${int(size.rows)} | ${label}${failed} | ${secs(f.ms)} | ${secs(f.cpuMs)} | ${cores(f.cores)} | ` +
      `${int(f.rowsPerSec)} | ${mibs(f.maxRssMiB)} | ${mibs(f.rssAt10MiB)} / ${mibs(f.rssAt50MiB)} / ${mibs(f.rssAt90MiB)} | ` +
      `${f.load ? f.load.map((l) => l.toFixed(1)).join('-') : 'n/a'} | ${checkCell(size, key)} |`
    );
  });
}

function stateRows(size) {
  const skus = size.rows - size.invalidRows;
  const sent = size.first?.sink?.bytes;
  return [
    ['after run 1', size.stateAfterFirst, size.steps?.first?.statePeakBytes],
    ['after run 2', size.stateAfterSecond, size.steps?.second?.statePeakBytes],
  ]
    .filter(([, st]) => st)
    .map(
      ([when, st, peak]) =>
        `| ${int(size.rows)} | ${when} | ${bytes(st.sqliteBytes)} | ${int(st.sqliteBytes / skus)} B | ` +
        `${sent ? `${(st.sqliteBytes / sent).toFixed(2)}x` : 'n/a'} | ${bytes(st.lastGoodBytes)} | ` +
        `${bytes(st.otherBytes)} | ${bytes(peak)} |`,
    );
}

function shapeLines(size) {
  return STEPS.filter(([key]) => size.steps?.[key]?.tenths).map(([key, label]) => {
    const t = size.steps[key].tenths;
    return (
      `- ${int(size.rows)} rows, ${label.replace(/`/g, '').split(':')[0]}: RSS (MiB) ` +
      `${t.map((x) => (x.rssMiB == null ? '-' : Math.round(x.rssMiB))).join(', ')}; cores used ` +
      `${t.map((x) => (x.cores == null ? '-' : cores(x.cores))).join(', ')}` +
      (t.some((x) => x.sentPerSec != null)
        ? `; rows/s the sink received ${t.map((x) => (x.sentPerSec == null ? '-' : int(x.sentPerSec))).join(', ')}`
        : '')
    );
  });
}

function failureLines(size) {
  const out = [];
  if (size.error) out.push(`- ${int(size.rows)} rows: the harness failed: ${size.error.split('\n')[0]}`);
  for (const [key, label] of STEPS) {
    const f = size.steps?.[key];
    if (!f || f.ok) continue;
    out.push(
      `- ${int(size.rows)} rows, ${label}: exit code ${f.code}, signal ${f.signal ?? 'none'}` +
        `${f.timedOut ? ', killed by the harness at its time limit' : ''}, after ${secs(f.ms)}; RSS at the last ` +
        `sample (${secs(f.lastSampleMs)}) ${mibs(f.lastRssMiB)}, peak ${mibs(f.maxRssMiB)}. Last lines of stderr:`,
      '',
      ...(f.stderrTail || '(none)').split('\n').map((l) => `      ${l}`),
      '',
    );
  }
  return out;
}

/** The machine's speed at the start and the end: papaparse alone over 100k short rows. */
function calibrationLine(c) {
  if (!c?.start?.floorCpuMs) return '';
  const s2 = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const end = c.end?.floorCpuMs ? `, ${s2(c.end.floorCpuMs)} at the end` : '';
  return (
    ` The machine's speed: papaparse alone over 100k short rows (bench/tools/papaparse-floor.mjs) took ` +
    `${s2(c.start.floorCpuMs)} of CPU at the start${end} (median of three).`
  );
}

/** The Markdown of the scale section. */
export function renderScale(results) {
  const sizes = Object.values(results.sizes);
  const m = results.machine;
  const load = (l) => l?.map((x) => x.toFixed(2)).join(' ') ?? 'n/a';
  const lines = [
    `Run ${results.generatedAt.slice(0, 16).replace('T', ' ')} UTC, HEAD ${m.head ?? 'n/a'}; ${m.cpus} x ${m.cpuModel}, ` +
      `${m.memGiB} GiB RAM, Node ${m.node}; load average at the start ${load(results.loadAtStart)}, at the end ` +
      `${load(results.loadAtEnd)}. Short rows (about 336 bytes, 17 columns); each step once; uploads in batches of ` +
      `${results.batchSize}, concurrency ${results.concurrency}, to the local sink; run 2 on run 1's state. RSS sampled ` +
      `every second from /proc (VmRSS of the genser process); peak RSS from GNU time; "load average": the ` +
      `lowest and highest one-minute load average seen during the step (other work shares the cores).` +
      calibrationLine(results.calibration),
    '',
    '| rows | step | wall | CPU (user + sys) | cores used | rows/s | peak RSS | RSS at 10% / 50% / 90% of the run | load average | checked |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...sizes.flatMap(stepRows),
    '',
    'The state (`--state DIR`: the SQLite file and its WAL; the `.last-good` copy kept after each run; other files; ' +
      'the most the directory held while the run went, sampled every second):',
    '',
    '| rows | state | SQLite file + WAL | per SKU | / request bytes of run 1 | `.last-good` copy | other files | most on disk during the run |',
    '| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...sizes.flatMap(stateRows),
  ];
  const sent = sizes
    .filter((s) => s.first?.sink)
    .map(
      (s) =>
        `${int(s.rows)} rows: run 1 sent ${bytes(s.first.sink.bytes)} in ${int(s.first.sink.requests)} requests` +
        (s.second?.sink ? `, run 2 ${bytes(s.second.sink.bytes)} in ${int(s.second.sink.requests)}` : ''),
    );
  if (sent.length) lines.push('', `Request bytes the sink received: ${sent.join('; ')}.`);
  if (sizes.length > 1) {
    const [a, b] = [sizes[0], sizes.at(-1)];
    lines.push(
      '',
      `Peak RSS at ${int(a.rows)} and ${int(b.rows)} rows, side by side:`,
      '',
      `| step | ${int(a.rows)} rows | ${int(b.rows)} rows | ratio |`,
      '| --- | ---: | ---: | ---: |',
      ...STEPS.filter(([k]) => a.steps?.[k] && b.steps?.[k]).map(([k, label]) => {
        const [x, y] = [a.steps[k].maxRssMiB, b.steps[k].maxRssMiB];
        return `| ${label} | ${mibs(x)} | ${mibs(y)} | ${x && y ? `${(y / x).toFixed(2)}x` : 'n/a'} |`;
      }),
    );
  }
  lines.push('', 'RSS and cores used in each tenth of the run (CPU between samples over wall time):', '');
  lines.push(...sizes.flatMap(shapeLines));
  const failures = sizes.flatMap(failureLines);
  if (failures.length) lines.push('', '**Failures**:', '', ...failures);
  return lines.join('\n').trimEnd();
}

const START = '<!-- bench:scale:start (written by `node bench/run.mjs --scale --write`) -->';
const END = '<!-- bench:scale:end -->';

/** Replaces the marked scale section of BENCHMARKS.md (appends it, with a heading, when absent). */
export function writeScaleSection(text, file = join(root, 'BENCHMARKS.md')) {
  const doc = readFileSync(file, 'utf8');
  const block = `${START}\n${text}\n${END}`;
  const a = doc.indexOf(START);
  const b = doc.indexOf(END);
  writeFileSync(
    file,
    a >= 0 && b > a
      ? doc.slice(0, a) + block + doc.slice(b + END.length)
      : `${doc.trimEnd()}\n\n## Ten million rows (issue 32)\n\n${block}\n`,
  );
}
