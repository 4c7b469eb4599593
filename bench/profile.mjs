#!/usr/bin/env node
// Profiles one genser command with `node --cpu-prof` and prints where the time goes.
//
//   node bench/profile.mjs [--rows 100000] [--shape long|short] [--top 25] [-- <genser args>]
//   node bench/profile.mjs --read FILE.cpuprofile      (summarise an existing profile)
//
// Default: `genser validate <the generated 100k catalog> --json`. Each thread writes its own
// profile: a run on several threads gets a line a thread first, then each summary. They are kept under
// bench/out/prof/ (open it in Chrome DevTools or speedscope for the flame); the summary lists
// self time by file/package, then the functions with the most self and total time.

import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCatalog } from './generate.mjs';
import { byDirectory, summarizeProfile, threadOfProfile, topByTotal } from './lib/cpuprofile.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function formatSummary(summary, top = 25) {
  const lines = [];
  const row = (cells) => `| ${cells.join(' | ')} |`;
  lines.push(`total sampled: ${summary.totalMs} ms`, '', 'self time by file / package:', '');
  lines.push(row(['file', 'self ms', 'self %']), row(['---', '---:', '---:']));
  for (const f of summary.files.slice(0, 15)) lines.push(row([f.file, f.selfMs, f.selfPct]));
  lines.push('', 'self time by directory (pipeline stage):', '');
  lines.push(row(['directory', 'self ms', 'self %']), row(['---', '---:', '---:']));
  for (const d of byDirectory(summary).slice(0, 15)) lines.push(row([d.dir, d.selfMs, d.selfPct]));
  lines.push('', `top ${top} functions by self time:`, '');
  lines.push(row(['function', 'self ms', 'self %', 'total %']), row(['---', '---:', '---:', '---:']));
  for (const f of summary.functions.slice(0, top)) lines.push(row([f.key, f.selfMs, f.selfPct, f.totalPct]));
  lines.push('', `top ${top} of genser's own functions by total time:`, '');
  lines.push(row(['function', 'total ms', 'total %', 'self %']), row(['---', '---:', '---:', '---:']));
  for (const f of topByTotal(summary, top, (f) => / (src|dist)\//.test(f.key)))
    lines.push(row([f.key, f.totalMs, f.totalPct, f.selfPct]));
  return lines.join('\n');
}

/** One line a thread: its life, its busy time (not idle), and where the busy time went. */
export function formatThreads(threads) {
  const lines = ['threads (0 is the main thread; busy = sampled, not idle):', ''];
  lines.push('| thread | life ms | busy ms | busy % | garbage collector ms | top directories (self ms) |');
  lines.push('| ---: | ---: | ---: | ---: | ---: | --- |');
  for (const t of threads) {
    const s = t.summary;
    const gc = s.files.find((f) => f.file === '(garbage collector)')?.selfMs ?? 0;
    const dirs = byDirectory(s)
      .filter((d) => d.dir !== '(idle)' && d.dir !== '(program)')
      .slice(0, 5)
      .map((d) => `${d.dir} ${d.selfMs}`)
      .join(', ');
    const busyPct = s.wallMs ? Math.round((s.busyMs / s.wallMs) * 100) : 0;
    lines.push(`| ${t.thread ?? '?'} | ${s.wallMs} | ${s.busyMs} | ${busyPct} | ${gc} | ${dirs} |`);
  }
  return lines.join('\n');
}

async function main(argv) {
  let rows = 100_000;
  let shape = 'long';
  let top = 25;
  let readFile;
  let genserArgs;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      genserArgs = argv.slice(i + 1);
      break;
    }
    if (a === '--rows') rows = Number(argv[++i]);
    else if (a === '--shape') shape = argv[++i];
    else if (a === '--top') top = Number(argv[++i]);
    else if (a === '--read') readFile = argv[++i];
    else {
      process.stderr.write(`profile: unknown argument ${a}\n`);
      return 2;
    }
  }
  if (!readFile) {
    const outDir = join(root, 'bench', 'out', 'prof');
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    if (!genserArgs) {
      const { file } = await ensureCatalog(rows, { shape, log: (l) => process.stderr.write(`${l}\n`) });
      genserArgs = ['validate', file, '--json'];
    }
    process.stderr.write(`profiling: genser ${genserArgs.join(' ')}\n`);
    const res = spawnSync(
      process.execPath,
      ['--cpu-prof', '--cpu-prof-dir', outDir, join(root, 'bin', 'genser.js'), ...genserArgs],
      { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NO_COLOR: '1' } },
    );
    if (res.status === null || res.status >= 2) {
      process.stderr.write(`profile: genser exited with ${res.status ?? res.signal}\n`);
      return 1;
    }
    const profiles = readdirSync(outDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort((a, b) => (threadOfProfile(a) ?? 0) - (threadOfProfile(b) ?? 0));
    if (profiles.length === 0) {
      process.stderr.write('profile: no .cpuprofile was written\n');
      return 1;
    }
    const threads = profiles.map((f) => ({
      file: join(outDir, f),
      thread: threadOfProfile(f),
      summary: summarizeProfile(JSON.parse(readFileSync(join(outDir, f), 'utf8')), { root }),
    }));
    if (threads.length > 1) process.stdout.write(`${formatThreads(threads)}\n\n`);
    for (const t of threads)
      process.stdout.write(`## thread ${t.thread ?? '?'}: ${t.file}\n\n${formatSummary(t.summary, top)}\n\n`);
    return 0;
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(readFile, 'utf8')), { root });
  process.stdout.write(`profile: ${readFile}\n\n${formatSummary(summary, top)}\n`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
