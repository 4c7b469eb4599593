import { type Logger, type LoggerOptions, streamLogger } from '../shared/logger.js';

export interface TerminalOptions extends LoggerOptions {
  json?: boolean;
}

type Writable = { write(chunk: string): unknown; isTTY?: boolean; columns?: number; rows?: number };

/**
 * Colour and spinners only on a TTY that reports a real size, and never under NO_COLOR,
 * TERM=dumb, CI or --json. A pty of 0x0 (some job runners) gets plain lines: a spinner that
 * cannot measure the line would redraw for ever.
 */
export function isFancy(
  stream: Writable,
  env: NodeJS.ProcessEnv = process.env,
  options: TerminalOptions = {},
): boolean {
  if (!stream.isTTY) return false;
  if (!(Number(stream.columns) > 0) || !(Number(stream.rows) > 0)) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  if (env.CI !== undefined && env.CI !== '' && env.CI !== 'false') return false;
  if (options.json) return false;
  return true;
}

export function createLogger(
  options: TerminalOptions = {},
  stream: Writable = process.stderr,
  env: NodeJS.ProcessEnv = process.env,
): Logger {
  return streamLogger(options, stream, isFancy(stream, env, options));
}
