import { CommanderError } from 'commander';
import { ExitCode, ExitError, errorMessage } from '../shared/errors.js';
import { packageVersion } from '../shared/paths.js';
import { printable } from '../shared/printable.js';
import { redact, redactOptionValues } from '../shared/secrets.js';
import type { Io } from './program.js';

export type { Io } from './program.js';

/**
 * The one place where anything thrown becomes an exit code and one line on stderr (with a hint),
 * and, under --json, still exactly one document on stdout.
 */
export function exitCodeFor(err: unknown, io: Pick<Io, 'stderr'>, debug: boolean): number {
  if (err instanceof CommanderError) {
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code))
      return ExitCode.ok;
    // commander has already printed its message; point at the help of the command in question.
    io.stderr.write(`hint: run '${commandPathOf(err)} --help' for usage and examples\n`);
    return ExitCode.usage;
  }
  if (err instanceof ExitError) {
    // One line each, nothing in them a terminal interprets (a value from the feed may be quoted).
    // Exit 0 (a feed unchanged since the last run): a plain line, not an error.
    const prefix = err.exitCode === ExitCode.ok ? '' : 'genser: ';
    io.stderr.write(`${printable(redact(`${prefix}${err.message}`))}\n`);
    if (err.hint) io.stderr.write(`${printable(redact(`hint: ${err.hint}`))}\n`);
    if (debug && err.stack) io.stderr.write(redact(`${err.stack}\n`));
    return err.exitCode;
  }
  io.stderr.write(`${printable(redact(`genser: internal error: ${errorMessage(err)}`))}\n`);
  if (debug && err instanceof Error && err.stack) io.stderr.write(redact(`${err.stack}\n`));
  else io.stderr.write('hint: this is a bug in genser; run again with --debug for details and report it\n');
  return ExitCode.internal;
}

/** Set on commander's errors by the command that raised them (see `main`). */
const COMMAND_PATH = Symbol('genser.commandPath');

function commandPathOf(err: CommanderError): string {
  return (err as CommanderError & { [COMMAND_PATH]?: string })[COMMAND_PATH] ?? 'genser';
}

export async function main(argv: string[], io: Io): Promise<number> {
  const debug = argv.includes('--debug');
  const json = argv.includes('--json');
  // With --json, stdout holds exactly one document, also when the run fails before writing its own.
  let wrote = false;
  const run: Io = json ? { ...io, stdout: noticingWrites(io.stdout, () => (wrote = true)) } : io;
  const top = argv.slice(2);
  // `genser --version` alone, as commander prints it, without loading the commands and their
  // option table (a third of the start-up: BENCHMARKS.md, "One feed path: before and after").
  if (top.length === 1 && (top[0] === '--version' || top[0] === '-V')) {
    io.stdout.write(`${packageVersion()}\n`);
    return ExitCode.ok;
  }
  const { buildProgram } = await import('./program.js');
  const program = buildProgram(run);
  // Each command tags commander's errors with its own path, for the hint.
  const all = [program];
  for (let i = 0; i < all.length; i++) all.push(...all[i].commands);
  for (const cmd of all) {
    const path: string[] = [];
    for (let c: typeof cmd | null = cmd; c; c = c.parent) path.unshift(c.name());
    cmd.exitOverride((err) => {
      throw Object.assign(err, { [COMMAND_PATH]: path.join(' ') });
    });
  }
  // `genser` alone: the help on stderr, and a usage exit (a script that forgot its command fails).
  if (argv.length <= 2) {
    io.stderr.write(program.helpInformation());
    return ExitCode.usage;
  }
  if (
    json &&
    top.some((a) => a === '--version' || a === '-V') &&
    top.every((a) => /^(--version|-V|--json)$/.test(a))
  ) {
    const { versionInfo } = await import('./version.js');
    io.stdout.write(`${JSON.stringify(versionInfo(), null, 2)}\n`);
    return ExitCode.ok;
  }
  try {
    await program.parseAsync(argv);
    io.exitCode = run.exitCode;
    return run.exitCode;
  } catch (err) {
    const code = exitCodeFor(err, run, debug);
    if (json && !wrote && code !== ExitCode.ok) io.stdout.write(errorDocument(err, code));
    return code;
  }
}

/** The document `--json` prints when a run stops before it has one of its own. */
function errorDocument(err: unknown, exitCode: number): string {
  const message =
    err instanceof CommanderError
      ? redactOptionValues(err.message)
      : err instanceof ExitError
        ? err.message
        : `internal error: ${errorMessage(err)}`;
  const hint = err instanceof ExitError ? err.hint : undefined;
  return redact(`${JSON.stringify({ error: { exitCode, message, ...(hint ? { hint } : {}) } }, null, 2)}\n`);
}

/** The same stream, telling `onWrite` when something is written to it. */
function noticingWrites<S extends NodeJS.WritableStream>(stream: S, onWrite: () => void): S {
  return new Proxy(stream, {
    get(target, property) {
      if (property === 'write')
        return (...args: Parameters<NodeJS.WritableStream['write']>) => {
          onWrite();
          return (target.write as (...a: unknown[]) => boolean)(...args);
        };
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export async function run(argv: string[]): Promise<void> {
  // `genser convert big.csv | head` closes stdout early: that is not an error.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  });
  const io: Io = { stdout: process.stdout, stderr: process.stderr, env: process.env, exitCode: 0 };
  process.exitCode = await main(argv, io);
}
