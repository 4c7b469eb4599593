import type { Logger } from '../shared/logger.js';
import { printable } from '../shared/printable.js';
import { redact } from '../shared/secrets.js';

export interface TerminalOptions {
  json?: boolean;
  quiet?: boolean;
  debug?: boolean;
}

type Writable = { write(chunk: string): unknown; isTTY?: boolean };

/** Colour and spinners only on a TTY, and never under NO_COLOR, TERM=dumb, CI or --json. */
export function isFancy(
  stream: Writable,
  env: NodeJS.ProcessEnv = process.env,
  options: TerminalOptions = {},
): boolean {
  if (!stream.isTTY) return false;
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
  const fancy = isFancy(stream, env, options);
  // One line per message, nothing in it a terminal interprets (src/shared/printable.ts).
  const write = (prefix: string, message: string) =>
    stream.write(`${printable(redact(`${prefix}${message}`))}\n`);
  return {
    fancy,
    info: (m) => {
      if (!options.quiet) write('', m);
    },
    warn: (m) => write('warning: ', m),
    error: (m) => write('error: ', m),
    debug: (m) => {
      if (options.debug) write('debug: ', m);
    },
  };
}
