import { redact } from './secrets.js';

/**
 * Where messages go. Data goes to stdout through `out`; everything a person reads goes to
 * stderr through `log`. Passed in (not imported) so tests can capture it without mocks.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
  /** true when stderr is an interactive terminal that may get colour and spinners. */
  readonly fancy: boolean;
}

/** A logger that keeps its lines, for tests. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    fancy: false,
    lines,
    info: (m) => lines.push(redact(m)),
    warn: (m) => lines.push(redact(`warning: ${m}`)),
    error: (m) => lines.push(redact(`error: ${m}`)),
    debug: (m) => lines.push(redact(`debug: ${m}`)),
  };
}

export interface LoggerOptions {
  quiet?: boolean;
  debug?: boolean;
  /** false: warnings are left out (`--no-warnings`). */
  warnings?: boolean;
}

type Writable = { write(chunk: string): unknown };

/**
 * Plain lines on a stream (stderr), every secret masked. `fancy` is for the CLI to decide (it
 * knows the terminal); embedded uses (the sandbox inside a test) get plain lines.
 */
export function streamLogger(options: LoggerOptions, stream: Writable, fancy = false): Logger {
  const write = (prefix: string, message: string) => stream.write(`${redact(`${prefix}${message}`)}\n`);
  return {
    fancy,
    info: (m) => {
      if (!options.quiet) write('', m);
    },
    warn: (m) => {
      if (options.warnings !== false) write('warning: ', m);
    },
    error: (m) => write('error: ', m),
    debug: (m) => {
      if (options.debug) write('debug: ', m);
    },
  };
}
