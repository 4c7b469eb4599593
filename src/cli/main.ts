import { Command, CommanderError } from 'commander';
import { ExitCode, ExitError, errorMessage } from '../shared/errors.js';
import { packageVersion } from '../shared/paths.js';
import { redact } from '../shared/secrets.js';
import * as convert from './commands/convert.js';
import * as events from './commands/events.js';
import * as sandbox from './commands/sandbox.js';
import * as upload from './commands/upload.js';
import * as validate from './commands/validate.js';

/**
 * Passed to every command. A command's action sets `exitCode`; anything it throws is turned
 * into an exit code here, in `run`, and nowhere else.
 */
export interface CommandContext {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  exitCode: number;
}

const EXAMPLES = `
Examples:
  $ genser validate catalog.csv                     check a feed, print problems by row
  $ genser validate catalog.csv --json > report.json
  $ genser convert catalog.csv -o products.ndjson   write the standard JSON-LD products
  $ genser upload catalog.csv --sandbox             upload into an embedded local sandbox
  $ GENSER_API_KEY=... genser upload catalog.csv --api-url https://api.example.com
  $ genser sandbox --port 8080                      run the emulated service
  $ genser events example view_product              print a valid example event

Exit codes: 0 ok, 1 invalid or rejected rows, 2 usage, 3 auth, 4 unavailable, 5 locked,
70 internal error, 130 interrupted. Docs: README.md`;

export function buildProgram(ctx: CommandContext): Command {
  const program = new Command('genser')
    .description(
      'Validate, convert and upload product feeds and behaviour events; run a local sandbox of the service.',
    )
    .version(packageVersion(), '-V, --version')
    .showSuggestionAfterError()
    .addHelpText('after', EXAMPLES)
    .configureOutput({
      writeOut: (s) => ctx.stdout.write(s),
      writeErr: (s) => ctx.stderr.write(s),
    })
    .exitOverride();
  for (const command of [validate, convert, upload, sandbox, events]) command.register(program, ctx);
  // Subcommands inherit exitOverride and output settings only when set before they are added.
  for (const sub of program.commands) {
    sub.exitOverride();
    sub.configureOutput({ writeOut: (s) => ctx.stdout.write(s), writeErr: (s) => ctx.stderr.write(s) });
  }
  return program;
}

/** Turns anything thrown into a one-line message and an exit code. */
export function exitCodeFor(err: unknown, ctx: CommandContext, debug: boolean): number {
  if (err instanceof CommanderError) {
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code))
      return ExitCode.ok;
    // commander has already printed its message.
    ctx.stderr.write("hint: run 'genser --help' for usage\n");
    return ExitCode.usage;
  }
  if (err instanceof ExitError) {
    ctx.stderr.write(redact(`genser: ${err.message}\n`));
    if (err.hint) ctx.stderr.write(redact(`hint: ${err.hint}\n`));
    if (debug && err.stack) ctx.stderr.write(redact(`${err.stack}\n`));
    return err.exitCode;
  }
  ctx.stderr.write(redact(`genser: internal error: ${errorMessage(err)}\n`));
  if (debug && err instanceof Error && err.stack) ctx.stderr.write(redact(`${err.stack}\n`));
  else ctx.stderr.write('hint: this is a bug in genser; run again with --debug for details and report it\n');
  return ExitCode.internal;
}

export async function main(argv: string[], ctx: CommandContext): Promise<number> {
  const debug = argv.includes('--debug');
  const json = argv.includes('--json');
  // With --json, stdout holds exactly one document, also when the run fails before writing its own.
  let wrote = false;
  const run: CommandContext = json
    ? { ...ctx, stdout: noticingWrites(ctx.stdout, () => (wrote = true)) }
    : ctx;
  try {
    await buildProgram(run).parseAsync(argv);
    ctx.exitCode = run.exitCode;
    return run.exitCode;
  } catch (err) {
    const code = exitCodeFor(err, run, debug);
    if (json && !wrote && code !== ExitCode.ok) ctx.stdout.write(errorDocument(err, code));
    return code;
  }
}

/** The document `--json` prints when a run stops before it has one of its own. */
function errorDocument(err: unknown, exitCode: number): string {
  const message =
    err instanceof CommanderError || err instanceof ExitError
      ? err.message
      : `internal error: ${errorMessage(err)}`;
  const hint = err instanceof ExitError ? err.hint : undefined;
  return redact(`${JSON.stringify({ error: { exitCode, message, ...(hint ? { hint } : {}) } }, null, 2)}\n`);
}

/** The same stream, telling `onWrite` when something is written to it. */
function noticingWrites(stream: NodeJS.WritableStream, onWrite: () => void): NodeJS.WritableStream {
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
  const ctx: CommandContext = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    exitCode: 0,
  };
  process.exitCode = await main(argv, ctx);
}
