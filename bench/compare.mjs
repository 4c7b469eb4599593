#!/usr/bin/env node
// Two builds of genser side by side in one run (issue 25: "measure before and after"): the same
// commands on the same catalogs, the two builds alternating within each round (which goes first
// alternates too), so a change in the machine's load falls on both alike.
//
//   npm run build && node bench/compare.mjs --before DIR [--runs 5] [--rows 100000]
//                                           [--big 1000000] [--write]
//
// DIR is another checkout of genser, built (`npm run build` there). Cases: validate of --rows
// and --big catalog rows, convert of --rows to a file, upload of --rows to a sink server, the
// nightly second run (1% of rows changed, from a copy of the build's own first-run state), and
// `genser --version`. Each figure is the median of --runs rounds: wall time, CPU time (user +
// system) and peak RSS, with GNU time when it is installed. With --write the table replaces the
// marked section `bench:compare` of BENCHMARKS.md. The nightly second run is measured on a state
// as the build's last run left it, twice: as six nights in seven find it, and on the night a week
// whose copy is due (the state checked whole and copied).

import { mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCatalog } from './generate.mjs';
import { copyFlushed, firstLine, measure, median } from './lib/measure.mjs';
import { nightlyChanged, startSink, writeNightlyCopy } from './run.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const BEFORE = arg('before');
if (!BEFORE) {
  process.stderr.write('compare: --before DIR is required (another built checkout of genser)\n');
  process.exit(2);
}
const RUNS = Number(arg('runs', 5));
const ROWS = Number(arg('rows', 100_000));
const BIG = Number(arg('big', 1_000_000));
const WRITE = process.argv.includes('--write');
const builds = [
  { name: 'before', bin: join(resolve(BEFORE), 'bin', 'genser.js') },
  { name: 'after', bin: join(root, 'bin', 'genser.js') },
];
const env = { ...process.env, NO_COLOR: '1', GENSER_API_KEY: 'bench-key-0123456789' };
const log = (m) => process.stderr.write(`compare: ${m}\n`);
const work = mkdtempSync(join(tmpdir(), 'genser-compare-'));

const small = await ensureCatalog(ROWS, { log });
const big = BIG ? await ensureCatalog(BIG, { log }) : null;
const changedCopy = join(work, 'nightly.csv');
await writeNightlyCopy(ROWS, small.meta.seed, changedCopy);
const sink = await startSink();

/** One command of one build; an exit other than 0 or 1 (invalid rows) stops the comparison. */
async function run(build, args, opts = {}) {
  const r = await measure(process.execPath, [build.bin, ...args], { env, stdout: 'ignore', ...opts });
  if (r.code !== 0 && r.code !== 1)
    throw new Error(`${build.name}: genser ${args[0]} exited ${r.code}: ${firstLine(r.stderr)}`);
  return r;
}

const upload = (feed, state, extra = []) => [
  'upload',
  feed,
  '--api-url',
  sink.url,
  '--state',
  state,
  '--json',
  ...extra,
];

// Each build's own first-run state for the nightly case (the state formats differ between builds).
for (const b of builds) {
  b.seeded = join(work, `seeded-${b.name}`);
  log(`${b.name}: first run of ${ROWS} rows into its own state`);
  await sink.reset();
  await run(b, upload(small.file, b.seeded));
}

/**
 * The state as last night's run left it: a copy of the build's first-run state (another file, so
 * its seal no longer matches), run once more on the unchanged catalog, untimed, so that the build's
 * own run checks and seals it. With copyDue the last good copy is then made 8 days old: this night
 * checks the state whole and copies it, as one night a week does (docs/nightly.md, "A damaged
 * state"); otherwise it is the six nights in seven that do neither.
 */
async function lastNight(build, state, copyDue) {
  copyFlushed(build.seeded, state);
  await sink.reset();
  await run(build, upload(small.file, state));
  if (!copyDue) return;
  const weekAgo = Date.now() / 1000 - 8 * 86_400;
  for (const f of readdirSync(state))
    if (f.endsWith('.last-good')) utimesSync(join(state, f), weekAgo, weekAgo);
}

const cases = [
  {
    name: `validate ${ROWS.toLocaleString('en')} rows`,
    go: (b) => run(b, ['validate', small.file, '--json']),
  },
  ...(big
    ? [
        {
          name: `validate ${BIG.toLocaleString('en')} rows`,
          go: (b) => run(b, ['validate', big.file, '--json']),
        },
      ]
    : []),
  {
    name: `convert ${ROWS.toLocaleString('en')} rows to a file`,
    go: (b) => run(b, ['convert', small.file, '-o', join(work, `convert-${b.name}.ndjson`)]),
  },
  {
    name: `upload ${ROWS.toLocaleString('en')} rows to a sink`,
    go: async (b) => {
      await sink.reset();
      const state = join(work, `upload-${b.name}`);
      try {
        return await run(b, upload(small.file, state));
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    },
  },
  ...[
    ['', false],
    [', its weekly copy due', true],
  ].map(([label, copyDue]) => ({
    name: `nightly second run${label}, ${nightlyChanged(ROWS).toLocaleString('en')} of ${ROWS.toLocaleString('en')} changed`,
    go: async (b) => {
      const state = join(work, `nightly-${b.name}`);
      await lastNight(b, state, copyDue);
      await sink.reset();
      try {
        return await run(b, upload(changedCopy, state));
      } finally {
        rmSync(state, { recursive: true, force: true });
      }
    },
  })),
  { name: 'genser --version', go: (b) => run(b, ['--version']) },
];

const results = cases.map(() => ({ before: [], after: [] }));
try {
  for (let round = 0; round < RUNS; round++) {
    log(`round ${round + 1}/${RUNS}`);
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const [i, c] of cases.entries()) for (const b of order) results[i][b.name].push(await c.go(b));
  }
} finally {
  await sink.stop();
  rmSync(work, { recursive: true, force: true });
}

const ms = (runs) => median(runs.map((r) => r.ms));
const cpu = (runs) => (runs.some((r) => r.cpuMs == null) ? null : median(runs.map((r) => r.cpuMs)));
const rss = (runs) =>
  runs.some((r) => r.maxRssKiB == null) ? null : Math.max(...runs.map((r) => r.maxRssKiB));
const s = (x) => (x == null ? 'n/a' : x < 1000 ? `${Math.round(x)} ms` : `${(x / 1000).toFixed(2)} s`);
const m = (k) => (k == null ? 'n/a' : `${Math.round(k / 1024)} MiB`);
const pct = (a, b) =>
  a == null || b == null ? 'n/a' : `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)}%`;
const head = (await import('node:child_process'))
  .execFileSync('git', ['-C', resolve(BEFORE), 'rev-parse', '--short', 'HEAD'], {
    encoding: 'utf8',
  })
  .trim();
const table = [
  `Before: ${head}; after: this checkout. Median of ${RUNS} rounds, the two builds alternating within each round; peak RSS is the highest of the rounds (${new Date().toISOString().slice(0, 16)} UTC, load average at the end ${loadavg()[0].toFixed(1)}).`,
  '',
  '| case | wall before | wall after | change | CPU before | CPU after | change | peak RSS before | after |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...cases.map((c, i) => {
    const { before, after } = results[i];
    return `| ${c.name} | ${s(ms(before))} | ${s(ms(after))} | ${pct(ms(before), ms(after))} | ${s(cpu(before))} | ${s(cpu(after))} | ${pct(cpu(before), cpu(after))} | ${m(rss(before))} | ${m(rss(after))} |`;
  }),
].join('\n');
process.stdout.write(`${table}\n`);

if (WRITE) {
  const file = join(root, 'BENCHMARKS.md');
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:compare:start (written by `node bench/compare.mjs --write`) -->';
  const end = '<!-- bench:compare:end -->';
  const section = `${start}\n${table}\n${end}`;
  const at = text.indexOf(start);
  writeFileSync(
    file,
    at === -1
      ? `${text.trimEnd()}\n\n### One feed path: before and after (issue 25)\n\n${section}\n`
      : text.slice(0, at) + section + text.slice(text.indexOf(end) + end.length),
  );
}
