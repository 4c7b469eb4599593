// Running one measured process: wall time, peak RSS, exit status, output.
//
// Peak RSS comes from GNU time (`/usr/bin/time -v`, "Maximum resident set size") when it is
// installed; otherwise from polling /proc/<pid>/status VmHWM (the kernel's own high-water
// mark, so polling only misses growth in the last interval before exit).

import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GNU_TIME = '/usr/bin/time';

let gnuTime;
export function hasGnuTime() {
  if (gnuTime === undefined) {
    // BusyBox and BSD `time` print other things for -v; check for the line we parse.
    gnuTime =
      existsSync(GNU_TIME) &&
      parseGnuTimeMaxRss(spawnSync(GNU_TIME, ['-v', 'true'], { encoding: 'utf8' }).stderr ?? '') !== null;
  }
  return gnuTime;
}

/** Parses the `Maximum resident set size (kbytes)` line of `time -v`; null when absent. */
export function parseGnuTimeMaxRss(text) {
  const m = /Maximum resident set size \(kbytes\):\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : null;
}

/** User + system CPU seconds of `time -v`, in ms; null when absent. */
export function parseGnuTimeCpuMs(text) {
  const u = /User time \(seconds\):\s*([\d.]+)/.exec(text);
  const s = /System time \(seconds\):\s*([\d.]+)/.exec(text);
  return u && s ? Math.round((Number(u[1]) + Number(s[1])) * 1000) : null;
}

function readVmHwm(pid) {
  try {
    const m = /VmHWM:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (USER_HZ: 100 on Linux's ABI). */
const USER_HZ = 100;

/**
 * One sample of a process: `{ rssKiB, cpuMs }` (VmRSS now, user + system CPU so far), or null
 * when it is gone.
 */
export function sampleProcess(pid) {
  try {
    const rss = /VmRSS:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    // The fields after the command name's ")" (which may hold spaces): utime, stime are 14, 15.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuMs = ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ;
    return rss ? { rssKiB: Number(rss[1]), cpuMs } : null;
  } catch {
    return null;
  }
}

/** The first child of `pid` (the command GNU time runs), or null before it has started. */
function childOf(pid) {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0];
    return first ? Number(first) : null;
  } catch {
    return null;
  }
}

/**
 * Runs `command args` and resolves with
 * `{ ms, maxRssKiB, cpuMs, code, signal, stdout, stderr, timedOut, samples }` (cpuMs: user +
 * system, from GNU time only).
 * `stdout: 'ignore'` discards output (for converters whose output is not needed).
 * `sampleEveryMs` samples the command's RSS and CPU while it runs (GNU time gives only the peak
 * and the total): `samples` is `[{ ms, rssKiB, cpuMs }]`, ms since the start.
 */
export function measure(command, args, opts = {}) {
  const {
    cwd,
    env,
    stdout = 'pipe',
    timeoutMs = 30 * 60_000,
    useGnuTime = hasGnuTime(),
    sampleEveryMs,
  } = opts;
  let timeDir;
  let argv0 = command;
  let argv = args;
  if (useGnuTime) {
    timeDir = mkdtempSync(join(tmpdir(), 'genser-bench-time-'));
    argv0 = GNU_TIME;
    argv = ['-v', '-o', join(timeDir, 'time.txt'), command, ...args];
  }
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv0, argv, {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', stdout === 'ignore' ? 'ignore' : 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout?.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    let polledRss = null;
    const poll = useGnuTime
      ? null
      : setInterval(() => {
          const v = readVmHwm(child.pid);
          if (v !== null) polledRss = Math.max(polledRss ?? 0, v);
        }, 10);
    const samples = [];
    const sampler = sampleEveryMs
      ? setInterval(() => {
          const pid = useGnuTime ? childOf(child.pid) : child.pid;
          const got = pid ? sampleProcess(pid) : null;
          if (got) samples.push({ ms: Math.round(Number(process.hrtime.bigint() - started) / 1e6), ...got });
        }, sampleEveryMs)
      : null;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      if (sampler) clearInterval(sampler);
      reject(e);
    });
    child.on('close', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      if (sampler) clearInterval(sampler);
      let maxRssKiB = polledRss;
      let cpuMs = null;
      if (timeDir) {
        try {
          const text = readFileSync(join(timeDir, 'time.txt'), 'utf8');
          maxRssKiB = parseGnuTimeMaxRss(text);
          cpuMs = parseGnuTimeCpuMs(text);
        } catch {
          maxRssKiB = null;
        }
        rmSync(timeDir, { recursive: true, force: true });
      }
      resolve({
        ms,
        maxRssKiB,
        cpuMs,
        code,
        signal,
        timedOut,
        samples,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    });
  });
}

export function median(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function max(values) {
  const v = values.filter((x) => typeof x === 'number' && Number.isFinite(x));
  return v.length ? Math.max(...v) : null;
}

/** First non-empty line of a process's stderr, for "why did it fail" notes. */
export function firstLine(text) {
  return (
    String(text)
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l) ?? ''
  );
}

/**
 * Copies a state directory and flushes the copy to disk before anything is timed: a copy left in
 * the page cache is written back while the next command runs, and its first fsync waits for it
 * (hundreds of megabytes of a state measured as the command's time, more for the build whose state
 * directory is the larger; BENCHMARKS.md, "Stop 41").
 */
export function copyFlushed(from, to) {
  cpSync(from, to, { recursive: true });
  const flush = (path) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const at = join(path, entry.name);
      if (entry.isDirectory()) flush(at);
      else if (entry.isFile()) {
        const fd = openSync(at, 'r');
        try {
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
    }
  };
  flush(to);
}
