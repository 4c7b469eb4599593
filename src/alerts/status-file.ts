import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { RunReport } from './run-report.js';

/**
 * `--status-file FILE`: the last run's outcome in the Prometheus textfile-collector format
 * (node_exporter reads `*.prom` files from a folder), so an alert fires when the nightly job
 * failed or stopped running. Written to a temporary file and renamed, as the collector asks, so
 * it never reads half a file.
 */

/** A label value as the exposition format wants it: backslash, quote and line feed escaped. */
export function labelValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

interface Metric {
  name: string;
  help: string;
  samples: Array<[labels: Record<string, string>, value: number]>;
}

function metricText(m: Metric, base: Record<string, string>): string {
  const lines = [`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} gauge`];
  for (const [labels, value] of m.samples) {
    const all = Object.entries({ ...base, ...labels })
      .map(([k, v]) => `${k}="${labelValue(v)}"`)
      .join(',');
    lines.push(`${m.name}{${all}} ${value}`);
  }
  return lines.join('\n');
}

export function statusFileText(report: RunReport): string {
  const base: Record<string, string> = { command: report.command, target: report.target.url };
  if (report.target.shard !== undefined) base.shard = report.target.shard;
  const ended = report.startedAt.getTime() + report.durationMs;
  const metrics: Metric[] = [
    {
      name: 'genser_last_run_success',
      help: '1 when the last run exited 0, else 0.',
      samples: [[{}, report.exitCode === 0 ? 1 : 0]],
    },
    {
      name: 'genser_last_run_exit_code',
      help: "The last run's exit code.",
      samples: [[{}, report.exitCode]],
    },
    {
      name: 'genser_last_run_start_timestamp_seconds',
      help: 'When the last run started (Unix time).',
      samples: [[{}, Math.floor(report.startedAt.getTime() / 1000)]],
    },
    {
      name: 'genser_last_run_end_timestamp_seconds',
      help: 'When the last run ended (Unix time).',
      samples: [[{}, Math.floor(ended / 1000)]],
    },
    {
      name: 'genser_last_run_duration_seconds',
      help: 'How long the last run took.',
      samples: [[{}, report.durationMs / 1000]],
    },
    {
      name: 'genser_last_run_rows',
      help: "The last run's rows by outcome.",
      samples: Object.entries(report.counts).map(([outcome, n]) => [{ outcome }, n]),
    },
  ];
  return `${metrics.map((m) => metricText(m, base)).join('\n')}\n`;
}

/** Writes FILE whole or not at all: a temporary file in the same folder, synced, then renamed. */
export function writeStatusFile(path: string, text: string): void {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    const fd = openSync(temp, 'wx', 0o644);
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}
