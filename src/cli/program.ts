import { Command, Option } from 'commander';
import type { CommandContext } from '../commands/context.js';
import { UsageError } from '../shared/errors.js';
import { packageVersion } from '../shared/paths.js';
import { redactOptionValues } from '../shared/secrets.js';
import { COMMAND_DEFS, type CommandDef } from './commands.js';
import { networkSettings } from './network-settings.js';
import {
  COMMANDS,
  type CommandName,
  OPTIONS,
  type OptionName,
  type OptionSpec,
  optionsOf,
} from './option-table.js';
import { type Resolved, resolveSettings } from './settings.js';
import { createLogger } from './terminal.js';

/**
 * The commander program, built from the command list and the option table. Options carry no
 * commander defaults: "not given" must stay visible so the environment and config file get
 * their say (`src/cli/settings.ts`).
 */
export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  env: NodeJS.ProcessEnv;
  exitCode: number;
}

const EXIT_CODES = `Exit codes: 0 ok, 1 invalid or rejected rows, 2 usage, 3 auth, 4 unavailable, 5 locked,
70 internal error, 130 interrupted. Docs: README.md and docs/ in the package.`;

/**
 * The help line of an option in one command's --help: what it does there, then its choices, that
 * command's default and the environment variable (`commandHelp` keeps other commands' details out).
 */
export function optionHelp(spec: OptionSpec<unknown>, command: CommandName): string {
  const own = spec.commandHelp?.[command];
  const extra: string[] = [];
  if (spec.choices) extra.push(spec.choices.join('|'));
  const shown =
    own && 'defaultText' in own
      ? own.defaultText
      : typeof spec.default === 'function'
        ? spec.default(command)
        : (spec.defaultText ?? spec.default);
  // Switches are off unless given; a `--no-x` switch is on unless given.
  if (shown !== undefined && typeof shown !== 'boolean') extra.push(`default: ${String(shown)}`);
  if (spec.env) extra.push(`env ${spec.env}`);
  const help = own?.help ?? spec.help;
  return extra.length ? `${help} (${extra.join('; ')})` : help;
}

function addOptions(cmd: Command, def: CommandDef): void {
  for (const name of optionsOf(def.name)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    const option = new Option(spec.flag, optionHelp(spec, def.name));
    if (spec.hidden) option.hideHelp();
    if (spec.repeatable)
      option.argParser((value: string, previous: unknown) => [...((previous as string[]) ?? []), value]);
    cmd.addOption(option);
    if (spec.negatable)
      cmd.addOption(new Option(spec.flag.replace(/^--/, '--no-').replace(/ <.*$/, '')).hideHelp());
  }
  // Keys are never flag values (flags show in `ps` and shell history): refuse them by name.
  if (def.name === 'upload' || def.name === 'plan')
    refuseKeyFlag(cmd, 'API key', '--api-key', 'GENSER_API_KEY', '--api-key-file');
  if (def.name === 'events send' || def.name === 'events backfill')
    refuseKeyFlag(cmd, 'service key', '--service-key', 'GENSER_SERVICE_KEY', '--service-key-file');
}

function refuseKeyFlag(cmd: Command, label: string, flag: string, env: string, fileFlag: string): void {
  cmd.addOption(
    new Option(`${flag} <key>`).hideHelp().argParser(() => {
      throw new UsageError(
        `the ${label} is never taken from a flag (flags show in \`ps\` and shell history): ${flag} is refused`,
        `set ${env}, or put the key in a file and pass ${fileFlag} FILE`,
      );
    }),
  );
}

export function buildProgram(io: Io, onResolved?: (resolved: Resolved) => void): Command {
  const writeOut = (s: string) => io.stdout.write(s);
  const writeErr = (s: string) => io.stderr.write(s);
  const program = new Command('genser')
    .description(
      'Validate, convert and upload product feeds and behaviour events; run a local sandbox of the service.',
    )
    .version(packageVersion(), '-V, --version')
    .showSuggestionAfterError()
    .addHelpText(
      'after',
      `\nExamples:\n${COMMAND_DEFS.flatMap((d) => d.examples.slice(0, 1))
        .map((e) => `  $ ${e}`)
        .join('\n')}\n\n${EXIT_CODES}`,
    );
  const groups = new Map<string, Command>();
  for (const def of COMMAND_DEFS) {
    const words = def.name.split(' ');
    let parent = program;
    if (words.length === 2) {
      let group = groups.get(words[0]);
      if (!group) {
        group = program
          .command(words[0])
          .description('print example behaviour events, validate event files, send them, backfill them');
        groups.set(words[0], group);
      }
      parent = group;
    }
    const cmd = parent.command(words[words.length - 1]).description(def.description);
    for (const [syntax, help] of def.args) cmd.argument(syntax, help);
    addOptions(cmd, def);
    // `genser config upload --format legacy`: the flags are upload's, parsed by upload's options.
    if (def.name === 'config') cmd.allowUnknownOption();
    cmd.addHelpText(
      'after',
      `\nExamples:\n${def.examples.map((e) => `  $ ${e}`).join('\n')}\n\n${EXIT_CODES}`,
    );
    cmd.action(async (...received: unknown[]) => {
      // commander passes the arguments, then the options object, then the command.
      const flags = received[received.length - 2] as Record<string, unknown>;
      const args = received.slice(0, received.length - 2);
      const resolved =
        def.name === 'config'
          ? resolveConfigTarget(program, args[0] as string[], flags, io.env)
          : resolveSettings(def.name, flags, io.env);
      onResolved?.(resolved);
      const s = resolved.settings as Record<OptionName, unknown>;
      const log = createLogger(
        {
          json: s.json === true,
          quiet: s.quiet === true,
          debug: s.debug === true,
          warnings: s.warnings !== false,
        },
        io.stderr,
        io.env,
      );
      const explicit = new Set(
        Object.entries(resolved.origins)
          .filter(([, o]) => o && o.kind !== 'default')
          .map(([name]) => name),
      );
      const ctx: CommandContext = { stdout: io.stdout, stderr: io.stderr, env: io.env, log, explicit };
      if (optionsOf(def.name).includes('proxy')) ctx.network = networkSettings(resolved, io.env);
      try {
        io.exitCode = await def.run(args, resolved, ctx);
      } finally {
        log.flush?.();
      }
    });
  }
  // Every command inherits the output settings and the exit override.
  const all: Command[] = [program];
  for (let i = 0; i < all.length; i++) all.push(...all[i].commands);
  for (const cmd of all) {
    cmd.exitOverride();
    cmd.configureOutput({ writeOut, writeErr, outputError: (s, write) => write(redactOptionValues(s)) });
  }
  return program;
}

/** The settings of the command `genser config` names, with that command's flags given after it. */
function resolveConfigTarget(
  program: Command,
  words: string[],
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): Resolved {
  const firstFlag = words.findIndex((w) => w.startsWith('-'));
  const names = firstFlag === -1 ? words : words.slice(0, firstFlag);
  const name = (names.length ? names.join(' ') : 'upload') as CommandName;
  const shown: readonly CommandName[] = COMMANDS.filter((c) => c !== 'config');
  if (!shown.includes(name))
    throw new UsageError(
      `unknown command "${names.join(' ')}"`,
      `name one of ${shown.join(', ')}, then its flags: genser config upload --format legacy`,
    );
  let target = program;
  for (const word of name.split(' ')) target = target.commands.find((c) => c.name() === word) as Command;
  const { operands, unknown } = target.parseOptions(firstFlag === -1 ? [] : words.slice(firstFlag));
  const stray = unknown[0] ?? operands[0];
  if (stray !== undefined)
    throw new UsageError(
      `genser ${name} has no option ${stray}`,
      `'genser ${name} --help' lists its options; put the command first: genser config ${name} --flag`,
    );
  return resolveSettings(name, { ...flags, ...target.opts() }, env);
}
