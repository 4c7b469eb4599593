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
  /** Says how many repeated warnings were held back (called once, at the end of a run). */
  flush?(): void;
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
  // One line per message, nothing in it a terminal interprets (src/shared/printable.ts).
  const write = (prefix: string, message: string) =>
    stream.write(`${printable(redact(`${prefix}${message}`))}\n`);
  const repeats = new RepeatedWarnings();
  return {
    fancy,
    info: (m) => {
      if (!options.quiet) write('', m);
    },
    warn: (m) => {
      // --quiet: only errors and the summary; --no-warnings: no warnings at all.
      if (!options.quiet && options.warnings !== false && repeats.show(m)) write('warning: ', m);
    },
    flush: () => {
      for (const line of repeats.summary()) write('warning: ', line);
    },
    error: (m) => write('error: ', m),
    debug: (m) => {
      if (options.debug) write('debug: ', m);
    },
  };
}

/**
 * The same warning for row after row (a legacy feed's respelled key, say) is shown a few times,
 * then counted: "the same warning on 1,980 more rows". Two warnings are "the same" when they
 * differ only in numbers (rows, lines, offsets).
 */
export class RepeatedWarnings {
  private readonly seen = new Map<string, { first: string; held: number; shown: number }>();

  constructor(private readonly shownPerKind = 3) {}

  /** True when this warning is to be written. */
  show(message: string): boolean {
    const shape = message.replace(/\d+/g, '#');
    const entry = this.seen.get(shape) ?? { first: message, held: 0, shown: 0 };
    this.seen.set(shape, entry);
    if (entry.shown < this.shownPerKind) {
      entry.shown++;
      return true;
    }
    entry.held++;
    return false;
  }

  summary(): string[] {
    const lines: string[] = [];
    for (const { first, held } of this.seen.values())
      if (held > 0)
        lines.push(
          `the same warning on ${held.toLocaleString('en-US')} more ${held === 1 ? 'row' : 'rows'} (as: ${first})`,
        );
    this.seen.clear();
    return lines;
  }
}

/** The logger without its info, warnings and debug (a second read of a feed, said once already). */
export function errorsOnly(log: Logger): Logger {
  return { ...log, info() {}, warn() {}, debug() {} };
}
