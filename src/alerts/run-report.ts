import { printable } from '../shared/printable.js';
import { shorten } from '../shared/words.js';

/**
 * What an unattended run tells the outside when it ends (docs/nightly.md, "Before and after the
 * run"): the webhook's JSON, the heartbeat and the status file are all made from this one value.
 * It holds no secret: the caller gives the target's URL already masked.
 */
export interface RunReport {
  command: string;
  /** The service's URL without credentials, the format and the shard (`2/4`), when there is one. */
  target: { url: string; format: string; shard?: string };
  exitCode: number;
  /** What the exit code means, in a few words (`rows the service rejected`). */
  outcome: string;
  /** Rows by outcome: rows, invalid, unchanged, accepted, rejected, failed, unconfirmed, notSent. */
  counts: Record<string, number>;
  /** The guard that refused the run or held back its removals, in one line. */
  guard?: string;
  /** The first problems, errors before warnings, each one line. */
  problems: ProblemLine[];
  startedAt: Date;
  durationMs: number;
}

export interface ProblemLine {
  file?: string;
  row?: number;
  line?: number;
  sku?: string;
  message: string;
}

/** How many problems a notification names; the rest are counted. */
export const NOTIFY_PROBLEMS = 5;
/** A value longer than this is cut, with its length said, so one huge value cannot flood a chat. */
const MAX_VALUE = 300;

/** One line for a chat: outside text escaped, a long value cut with its length said. */
export function shortened(text: string, max = MAX_VALUE): string {
  return printable(shorten(text, max));
}

const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}`;

/** `upload to https://api.example.com (standard, shard 2/4)`. */
export function targetText(report: RunReport): string {
  const { url, format, shard } = report.target;
  return `${report.command} to ${url} (${format}${shard ? `, shard ${shard}` : ''})`;
}

function problemText(p: ProblemLine): string {
  const where = [p.file, p.row === undefined ? undefined : `row ${p.row}`, p.sku ? `SKU ${p.sku}` : undefined]
    .filter((x) => x !== undefined)
    .map((x) => shortened(String(x), 120));
  return `${where.length > 0 ? `${where.join(', ')}: ` : ''}${shortened(p.message)}`;
}

/** The lines a person reads in a chat: what ran, how it ended, the counts, the first problems. */
export function reportText(report: RunReport): string {
  const ok = report.exitCode === 0;
  const counts = Object.entries(report.counts)
    .filter(([name, n]) => n > 0 || name === 'rows')
    .map(([name, n]) => plural(n, name))
    .join(', ');
  const lines = [
    `genser ${targetText(report)}: ${ok ? 'succeeded' : `FAILED with exit ${report.exitCode}`} (${report.outcome})`,
    counts,
  ];
  if (report.guard !== undefined) lines.push(`guard: ${shortened(report.guard)}`);
  for (const p of report.problems.slice(0, NOTIFY_PROBLEMS)) lines.push(`- ${problemText(p)}`);
  if (report.problems.length > NOTIFY_PROBLEMS) {
    lines.push(`- and ${plural(report.problems.length - NOTIFY_PROBLEMS, 'more problem(s)')}`);
  }
  return lines.join('\n');
}

/** The webhook's JSON: `text` for Slack or Teams incoming webhooks, the rest for machines. */
export function notifyBody(report: RunReport): Record<string, unknown> {
  return {
    text: reportText(report),
    command: report.command,
    target: report.target,
    exitCode: report.exitCode,
    success: report.exitCode === 0,
    outcome: report.outcome,
    counts: report.counts,
    ...(report.guard === undefined ? {} : { guard: shortened(report.guard) }),
    problems: report.problems.slice(0, NOTIFY_PROBLEMS).map((p) => ({ ...p, message: shortened(p.message) })),
    startedAt: report.startedAt.toISOString(),
    durationMs: report.durationMs,
  };
}
