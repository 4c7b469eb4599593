import type { Logger } from './logger.js';

/**
 * The one spinner of genser (ora), for `validate`, `convert` and `upload` alike. Drawn only when
 * the logger may draw (a TTY with a size, no NO_COLOR, CI or --json) and the stream is at least
 * 20 columns wide: a terminal that reports no width (some ptys) would make ora's redraw
 * arithmetic clear endless lines. Log lines written while it spins go through its logger, each
 * on a line of its own.
 */
export interface Spinner {
  log: Logger;
  /** The text after the spinner. */
  set(text: string): void;
  stop(): void;
}

/** A spinner on `stream`, started; undefined where none may be drawn (the caller prints plain lines). */
export async function startSpinner(
  log: Logger,
  stream: NodeJS.WritableStream,
  text: string,
): Promise<Spinner | undefined> {
  const columns = (stream as { columns?: number }).columns;
  if (!log.fancy || !columns || columns < 20) return undefined;
  const { default: ora } = await import('ora');
  // The logger already decided: ora need not guess again.
  const spinner = ora({ stream, text, discardStdin: false, isEnabled: true }).start();
  const around =
    (write: (m: string) => void) =>
    (m: string): void => {
      spinner.clear();
      write(m);
      spinner.render();
    };
  return {
    log: {
      fancy: true,
      info: around(log.info),
      warn: around(log.warn),
      error: around(log.error),
      debug: around(log.debug),
      flush: log.flush,
    },
    set(next) {
      spinner.text = next;
    },
    stop() {
      spinner.stop();
    },
  };
}
