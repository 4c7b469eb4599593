import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byDirectory, summarizeProfile, threadOfProfile, topByTotal } from '../../bench/lib/cpuprofile.mjs';
import { copyFlushed, hasGnuTime, measure, median, parseGnuTimeMaxRss } from '../../bench/lib/measure.mjs';
import {
  END,
  evaluateTargets,
  formatJson,
  renderResults,
  replaceMarked,
  START,
} from '../../bench/lib/report.mjs';

describe('bench harness pieces', () => {
  it('measures wall time and the peak RSS of a child that allocates 120 MiB', async () => {
    const grow =
      'const b = Buffer.alloc(120 * 1024 * 1024, 1); setTimeout(() => process.exit(b[5] === 1 ? 3 : 4), 50)';
    for (const useGnuTime of hasGnuTime() ? [true, false] : [false]) {
      const r = await measure(process.execPath, ['-e', grow], { useGnuTime });
      expect(r.code).toBe(3);
      expect(r.ms).toBeGreaterThanOrEqual(50);
      expect(r.maxRssKiB).toBeGreaterThan(120 * 1024);
      expect(r.maxRssKiB).toBeLessThan(400 * 1024);
    }
  });

  it('copies a state directory, nested files included, before flushing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-bench-copy-'));
    mkdirSync(join(dir, 'from', 'shard-1'), { recursive: true });
    writeFileSync(join(dir, 'from', 'a.sqlite'), 'state');
    writeFileSync(join(dir, 'from', 'shard-1', 'b.sqlite'), 'shard');
    try {
      copyFlushed(join(dir, 'from'), join(dir, 'to'));
      expect(readFileSync(join(dir, 'to', 'a.sqlite'), 'utf8')).toBe('state');
      expect(readFileSync(join(dir, 'to', 'shard-1', 'b.sqlite'), 'utf8')).toBe('shard');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('takes medians of odd and even lists and ignores missing values', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([null, 5, undefined])).toBe(5);
    expect(median([])).toBeNull();
    expect(parseGnuTimeMaxRss('\tMaximum resident set size (kbytes): 81234\n')).toBe(81234);
  });

  it('attributes self and total time in a CPU profile', () => {
    const frame = (functionName: string, line: number) => ({
      functionName,
      url: `file:///repo/dist/read/${functionName}.js`,
      lineNumber: line,
      columnNumber: 0,
    });
    const profile = {
      nodes: [
        {
          id: 1,
          callFrame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 },
          children: [2],
        },
        { id: 2, callFrame: frame('outer', 9), children: [3] },
        { id: 3, callFrame: frame('inner', 19), children: [] },
      ],
      // Sample i lasts timeDeltas[i + 1] microseconds.
      samples: [3, 3, 2, 3],
      timeDeltas: [0, 1000, 1000, 2000, 4000],
    };
    const s = summarizeProfile(profile, { root: '/repo' });
    const get = (name: string) => s.functions.find((f) => f.key.startsWith(name));
    expect(s.totalMs).toBe(8);
    expect(get('inner')).toMatchObject({ key: 'inner dist/read/inner.js:20', selfMs: 6, totalMs: 6 });
    expect(get('outer')).toMatchObject({ selfMs: 2, totalMs: 8, totalPct: 100 });
    expect(topByTotal(s, 1)[0].key).toMatch(/^outer/);
    expect(s.files[0]).toEqual({ file: 'dist/read/inner.js', selfMs: 6, selfPct: 75 });
    expect(byDirectory(s)[0]).toEqual({ dir: 'dist/read', selfMs: 8, selfPct: 100 });
  });

  it("tells a thread's busy time from its life, and which thread a profile is", () => {
    const idle = { functionName: '(idle)', url: '', lineNumber: -1, columnNumber: -1 };
    const work = {
      functionName: 'work',
      url: 'file:///repo/dist/map/work.js',
      lineNumber: 0,
      columnNumber: 0,
    };
    const profile = {
      nodes: [
        { id: 1, callFrame: { ...idle, functionName: '(root)' }, children: [2, 3] },
        { id: 2, callFrame: idle, children: [] },
        { id: 3, callFrame: work, children: [] },
      ],
      startTime: 1_000_000,
      endTime: 1_010_000,
      samples: [2, 3, 2],
      timeDeltas: [0, 3000, 1000, 4000],
    };
    const s = summarizeProfile(profile, { root: '/repo' });
    expect(s).toMatchObject({ totalMs: 8, busyMs: 1, wallMs: 10 });
    expect(threadOfProfile('CPU.20261129.111843.15098.0.001.cpuprofile')).toBe(0);
    expect(threadOfProfile('CPU.20261129.111843.15098.12.003.cpuprofile')).toBe(12);
    expect(threadOfProfile('notes.txt')).toBeUndefined();
  });

  it('judges the targets and leaves unmeasured ones open', () => {
    const targets = evaluateTargets({
      validate: {
        100000: { genser: { ms: 1000, rowsPerSec: 100_000, maxRssMiB: 100 }, ratio: 1.2 },
        1000000: { genser: { ms: 5000, rowsPerSec: 200_000, maxRssMiB: 130 }, ratio: 1.5 },
      },
      validateShort: {
        100000: { genser: { ms: 500, rowsPerSec: 200_000, maxRssMiB: 90 }, ratio: 1.4 },
        1000000: { genser: { ms: 6000, rowsPerSec: 160_000, maxRssMiB: 100 }, ratio: 1.1 },
      },
      oneThread: { short: { ratio: 2.5 }, long: { ratio: 1.5 } },
      threads: { speedup: 1.8 },
      startup: { versionRatio: 1.4 },
    });
    const by = Object.fromEntries(targets.map((t) => [t.id, t.status]));
    expect(by).toEqual({
      'validate-ratio': 'FAIL',
      'validate-ratio-short': 'pass',
      'validate-cpu-row': 'FAIL',
      'validate-throughput': 'pass',
      'threads-speedup': 'pass',
      'rss-1m': 'pass',
      'rss-flat': 'FAIL',
      'upload-overlap': 'n/a',
      'nightly-postgres': 'n/a',
      'nightly-ratio': 'n/a',
      'state-size': 'n/a',
      'sandbox-ingest': 'n/a',
      startup: 'pass',
    });
    const value = Object.fromEntries(targets.map((t) => [t.id, t.value]));
    // Throughput and the ratio are judged on the largest short catalog; RSS on the larger shape.
    expect(value['validate-throughput']).toBe(160_000);
    expect(value['rss-1m']).toBe(130);
    expect(value['rss-flat']).toBeCloseTo(1.3);
  });

  it('renders the short-row table, CPU per row on one thread and the threads side by side', () => {
    const results: Record<string, unknown> = {
      machine: { cpus: 2, cpuModel: 'x', memGiB: 1, node: '20', os: 'Linux', loadAtStart: '0' },
      runs: 1,
      shortCatalogs: { 300000: { bytes: 100 * 1024 * 1024 } },
      validateShort: {
        300000: {
          papaparse: { ms: 800, rowsPerSec: 375_000, mibPerSec: 125, maxRssMiB: 60, cores: 1 },
          genser: { ms: 2400, rowsPerSec: 125_000, mibPerSec: 41.7, maxRssMiB: 140, cores: 1.9 },
          ratio: 3,
        },
      },
      oneThread: {
        short: {
          rows: 100000,
          genserCpuMs: 1500,
          papaparseCpuMs: 300,
          genserStartCpuMs: 300,
          papaparseStartCpuMs: 70,
          genserUsPerRow: 15,
          papaparseUsPerRow: 3,
          genserNetUsPerRow: 12,
          papaparseNetUsPerRow: 2.3,
          ratio: 5.22,
        },
      },
      threads: {
        rows: 300000,
        shape: 'short',
        threads1: { ms: 4000, rowsPerSec: 75_000, cores: 1.1, maxRssMiB: 150 },
        threads2: { ms: 2500, rowsPerSec: 120_000, cores: 1.8, maxRssMiB: 160 },
        cpuMs1: 4400,
        cpuMs2: 4500,
        speedup: 1.6,
      },
    };
    results.targets = evaluateTargets(results);
    const text = renderResults(results);
    expect(text).toContain('short rows (about 336 bytes)');
    expect(text).toContain(
      '| 300,000 rows (100 MiB) | genser validate | 2.40 s | 125,000 | 41.7 | 140 MiB | 1.90 | 3.00x |',
    );
    expect(text).toContain(
      '| short rows, 100,000 | 1.50 s | 0.30 s | 15.00 / 3.00 us | 12.00 / 2.30 us | 300 / 70 ms | 5.22x |',
    );
    expect(text).toContain('| 300,000 short rows | 2 | 2.50 s | 120,000 | 4.50 s | 1.80 | 160 MiB |');
    expect(text).toContain('--threads 2 is 1.60x as fast as --threads 1');
    expect(text).toMatch(
      /threads 2` against `--threads 1` \(wall time\) \| >= 1\.7x faster \| 1\.60x \| FAIL/,
    );
  });

  it("writes upload's CPU time and the least ratio it allows on the machine's cores", () => {
    const results: Record<string, unknown> = {
      machine: { cpus: 2, cpuModel: 'x', memGiB: 1, node: '20', os: 'Linux', loadAtStart: '0' },
      runs: 1,
      upload: {
        rows: 300000,
        batches: 600,
        batchSize: 500,
        concurrency: 4,
        validateMs: 10000,
        validateCpuMs: 17000,
        bareMs: 500,
        uploadMs: 16000,
        uploadCpuMs: 29400,
        ratio: 1.52,
        cpuFloorRatio: 1.4,
      },
    };
    results.targets = evaluateTargets(results);
    const text = renderResults(results);
    expect(text).toContain('| genser upload | 16.00 s | 18,750 | 29.40 s |');
    expect(text).toContain("upload's CPU time / 2 cores / (validate + bare post) = 1.40");
  });

  it('writes the nightly case: the second run against validate, the target, the state per 100k SKUs', () => {
    const results: Record<string, unknown> = {
      machine: { cpus: 2, cpuModel: 'x', memGiB: 1, node: '20', os: 'Linux', loadAtStart: '0' },
      runs: 1,
      nightly: {
        rows: 300000,
        changedRows: 3000,
        batchSize: 500,
        concurrency: 4,
        firstMs: 30000,
        firstCpuMs: 45000,
        firstRssMiB: 250,
        stateBytes: 60 * 1024 * 1024,
        stateSkus: 299700,
        stateBytesPer100k: 20 * 1024 * 1024,
        sentBytes: 240 * 1024 * 1024,
        sentBytesPer100k: 80 * 1024 * 1024,
        stateRatio: 0.25,
        validateMs: 10000,
        validateCpuMs: 17000,
        validateRssMiB: 200,
        secondMs: 11500,
        secondCpuMs: 19000,
        secondRssMiB: 210,
        streamedMs: 11000,
        streamedCpuMs: 18500,
        streamedRssMiB: 205,
        ratio: 1.15,
        streamedRatio: 1.1,
      },
    };
    results.targets = evaluateTargets(results);
    expect(results.targets).toContainEqual(
      expect.objectContaining({ id: 'nightly-ratio', shown: '1.15x', status: 'pass' }),
    );
    const text = renderResults(results);
    expect(text).toContain(
      '| second run: upload, guard on (one read) | 11.50 s | 26,087 | 19.00 s | 210 MiB |',
    );
    expect(text).toContain('second run / validate = 1.15x (without the guard: 1.10x)');
    expect(text).toContain(
      'state after run 1: 60.0 MiB for 299,700 SKUs, 20.0 MiB per 100k SKUs (SQLite file and WAL); run 1 sent 80.0 MiB per 100k SKUs (request bodies): state / sent = 0.25x.',
    );
    expect(results.targets).toContainEqual(
      expect.objectContaining({ id: 'state-size', shown: '0.25x', status: 'pass' }),
    );
    const over = evaluateTargets({ nightly: { ratio: 1.4 } }).find((t) => t.id === 'nightly-ratio');
    expect(over?.status).toBe('FAIL');
  });

  it('rewrites only the marked section of BENCHMARKS.md', () => {
    const doc = `# B\n\nprose\n\n${START}\n\nold\n\n${END}\n\nafter\n`;
    const next = replaceMarked(doc, 'new');
    expect(next).toContain('prose');
    expect(next).toContain('after');
    expect(next).toContain('new');
    expect(next).not.toContain('old');
    expect(replaceMarked(next, 'newer')).toBe(replaceMarked(doc, 'newer'));
    expect(replaceMarked('# B\n', 'x')).toContain(`${START}\n\nx\n\n${END}`);
  });
});

describe('bench options', () => {
  it('sizes the short-row catalog and the threads comparison, smaller under --quick', async () => {
    // @ts-expect-error plain ESM without types
    const { parseArgs } = await import('../../bench/run.mjs');
    expect(parseArgs([])).toMatchObject({ shortSizes: [100_000, 300_000, 1_000_000], threadRows: 300_000 });
    expect(parseArgs(['--quick'])).toMatchObject({ shortSizes: [100_000], threadRows: 100_000 });
    expect(parseArgs(['--short-sizes', '2000,3_000', '--thread-rows', '5000'])).toMatchObject({
      shortSizes: [2000, 3000],
      threadRows: 5000,
    });
    expect(() => parseArgs(['--thread-rows', '0'])).toThrow(/positive whole number/);
  });
});

describe('results.json formatting', () => {
  it('round-trips and puts short arrays of plain values on one line, as the formatter does', () => {
    const value = { a: { runsMs: [1, 2, 3], notes: ['x', 'y'], nested: [{ b: 1 }] }, empty: [] };
    const text = formatJson(value);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('"runsMs": [1, 2, 3]');
    expect(text).toContain('"notes": ["x", "y"]');
    expect(text).toContain('"nested": [\n');
    const long = formatJson({ k: Array.from({ length: 40 }, (_, i) => 1000 + i) });
    expect(long.split('\n').every((l) => l.length <= 110)).toBe(true);
  });
});
