import { printable } from './printable.js';
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
    info: (m) => lines.push(printable(redact(m))),
    warn: (m) => lines.push(printable(redact(`warning: ${m}`))),
    error: (m) => lines.push(printable(redact(`error: ${m}`))),
    debug: (m) => lines.push(printable(redact(`debug: ${m}`))),
  };
}
