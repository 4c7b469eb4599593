import type { Logger } from '../shared/logger.js';
import { startSpinner } from '../shared/spinner.js';
import { n, rate } from '../shared/words.js';
import type { LiveStats } from './types.js';

/**
 * Progress while uploading: on a TTY the spinner (src/shared/spinner.ts) (rows read, sent, accepted, rejected, rate,
 * ETA when the row count can be estimated); off a TTY (cron) a plain line about every 10 s.
 * Log lines written during the run go through the returned logger so they do not tear the spinner.
 */
export interface Progress {
  log: Logger;
  stop(): void;
}

/** `totalLines`: the input's physical lines, when known; progress is the last row's line over it. */
export function progressLine(stats: LiveStats, now: number, totalLines?: number): string {
  const elapsed = Math.max(0.001, (now - stats.startedAt) / 1000);
  let eta = '';
  if (totalLines && stats.line > 0 && totalLines > stats.line) {
    const left = Math.round((elapsed * (totalLines - stats.line)) / stats.line);
    eta = `, ETA ~${left >= 60 ? `${Math.floor(left / 60)} min ${left % 60} s` : `${left} s`}`;
  }
  return (
    `read ${n(stats.rows)} rows${stats.invalid ? ` (${n(stats.invalid)} invalid)` : ''}, sent ${n(stats.sent)}, ` +
    `accepted ${n(stats.accepted)}, rejected ${n(stats.rejected)}` +
    `${stats.failed ? `, failed ${n(stats.failed)}` : ''}${stats.unconfirmed ? `, unconfirmed ${n(stats.unconfirmed)}` : ''}` +
    `${stats.notSent ? `, not sent ${n(stats.notSent)}` : ''}${stats.retries ? `, retries ${n(stats.retries)}` : ''}, ` +
    `${rate(stats.rows, elapsed * 1000, 'row')}${eta}`
  );
}

export async function startProgress(
  stats: LiveStats,
  log: Logger,
  options: {
    quiet: boolean;
    stream: NodeJS.WritableStream;
    intervalMs?: number;
    totalLines?: () => number | undefined;
  },
): Promise<Progress> {
  if (options.quiet) return { log, stop() {} };
  const spinner = await startSpinner(log, options.stream, 'uploading');
  if (!spinner) {
    const timer = setInterval(
      () => log.info(`progress: ${progressLine(stats, Date.now(), options.totalLines?.())}`),
      options.intervalMs ?? 10_000,
    );
    timer.unref();
    return { log, stop: () => clearInterval(timer) };
  }
  const timer = setInterval(() => spinner.set(progressLine(stats, Date.now(), options.totalLines?.())), 200);
  timer.unref();
  return {
    log: spinner.log,
    stop() {
      clearInterval(timer);
      spinner.stop();
    },
  };
}
