#!/usr/bin/env node
// Runs the worker-thread experiments side by side with `genser validate` and the parse-only
// floor, round after round, and prints the median wall time and CPU use of each.
//
//   node bench/experiments/compare-parallel.mjs [ROWS=100000] [ROUNDS=3]

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCatalog } from '../generate.mjs';
import { measure, median } from '../lib/measure.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const rows = Number(process.argv[2] ?? 100_000);
const rounds = Number(process.argv[3] ?? 3);
const { file } = await ensureCatalog(rows);
const node = process.execPath;
const cases = [
  ['papaparse floor (1 thread)', [join(root, 'bench', 'tools', 'papaparse-floor.mjs'), file]],
  ['papaparse floor, 2 workers', [join(here, 'parallel-floor.mjs'), file, '2']],
  ['genser validate (as shipped)', [join(root, 'bin', 'genser.js'), 'validate', file, '--json']],
  ['records loop, main thread only', [join(here, 'parallel-records.mjs'), file, '0']],
  ['records to 1 worker', [join(here, 'parallel-records.mjs'), file, '1']],
  ['records to 2 workers', [join(here, 'parallel-records.mjs'), file, '2']],
  ['byte blocks to 1 worker', [join(here, 'parallel-validate.mjs'), file, '1']],
  ['byte blocks to 2 workers', [join(here, 'parallel-validate.mjs'), file, '2']],
];
const runs = new Map(cases.map(([name]) => [name, []]));
for (let r = 0; r < rounds; r++) {
  for (const [name, args] of cases) {
    const m = await measure(node, args, { stdout: 'pipe' });
    if (m.code !== 0 && m.code !== 1) {
      process.stderr.write(`${name}: exit ${m.code}: ${m.stderr.split('\n')[0]}\n`);
      continue;
    }
    runs.get(name).push(m);
    process.stderr.write(`round ${r + 1}: ${name}: ${(m.ms / 1000).toFixed(2)} s\n`);
  }
}
const base = median(runs.get('genser validate (as shipped)').map((m) => m.ms));
process.stdout.write(
  `${rows} rows, ${rounds} rounds (median)\n\n| case | wall | cores used | peak RSS | vs genser validate |\n| --- | ---: | ---: | ---: | ---: |\n`,
);
for (const [name] of cases) {
  const ms = median(runs.get(name).map((m) => m.ms));
  const cores = median(runs.get(name).map((m) => (m.cpuMs == null ? null : m.cpuMs / m.ms)));
  const rss = Math.max(...runs.get(name).map((m) => m.maxRssKiB ?? 0)) / 1024;
  process.stdout.write(
    `| ${name} | ${ms == null ? '-' : `${(ms / 1000).toFixed(2)} s`} | ${cores == null ? '-' : cores.toFixed(2)} | ${rss.toFixed(0)} MiB | ${ms && base ? `${(ms / base).toFixed(2)}x` : '-'} |\n`,
  );
}
