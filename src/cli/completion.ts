import { UsageError } from '../shared/errors.js';
import { OPTIONS, type OptionSpec, optionsOf } from './option-table.js';

/**
 * `genser completion bash|zsh|fish`: a completion script made from the command list and the one
 * option table, so it never lists a flag genser does not have: the commands, each command's own
 * flags, and the values of the flags that take one of a list (--format, --preset, --reporter...).
 */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

interface Flag {
  names: string[];
  help: string;
  /** The values it takes, when they are a list; [] when it takes a free value (a file, a number). */
  values?: string[];
}

interface CompletedCommand {
  name: string;
  description: string;
  flags: Flag[];
}

/** Values of flags whose parser takes names the table lists elsewhere than `choices`. */
const EXTRA_VALUES: Record<string, string[]> = {
  preset: ['shopify', 'woocommerce', 'magento', 'google-merchant'],
  reporter: ['human', 'json', 'junit', 'github', 'html'],
};

/** What the script needs of a command: its words and what it does (src/cli/commands.ts). */
export interface CommandWords {
  name: string;
  description: string;
}

function flagsOf(command: string): Flag[] {
  const flags: Flag[] = [];
  for (const name of optionsOf(command as never)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    if (spec.hidden) continue;
    const names = spec.flag.split(/,\s*/).map((part) => part.replace(/\s.*$/, ''));
    const takesValue = /[<[]/.test(spec.flag);
    const values = takesValue ? [...(spec.choices ?? EXTRA_VALUES[name] ?? [])] : undefined;
    flags.push({ names, help: spec.help, values });
    if (spec.negatable)
      flags.push({ names: [names[names.length - 1].replace(/^--/, '--no-')], help: `turn off ${names[0]}` });
  }
  flags.push({ names: ['-h', '--help'], help: 'help of this command' });
  return flags;
}

function completed(defs: readonly CommandWords[]): CompletedCommand[] {
  return defs.map((d) => ({ name: d.name, description: d.description, flags: flagsOf(d.name) }));
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(all: CompletedCommand[]): string {
  const top = [...new Set(all.map((c) => c.name.split(' ')[0]))];
  const subs = all.filter((c) => c.name.startsWith('events ')).map((c) => c.name.split(' ')[1]);
  const flagCases = all
    .map((c) => `    ${quote(c.name)}) flags=${quote(c.flags.flatMap((f) => f.names).join(' '))} ;;`)
    .join('\n');
  const valueCases = all
    .flatMap((c) =>
      c.flags
        .filter((f) => f.values)
        .map((f) => {
          const reply = f.values?.length
            ? `COMPREPLY=($(compgen -W ${quote(f.values.join(' '))} -- "$cur"))`
            : 'COMPREPLY=($(compgen -f -- "$cur"))';
          return `    ${f.names.map((n) => quote(`${c.name}:${n}`)).join('|')}) ${reply}; return ;;`;
        }),
    )
    .join('\n');
  return `# genser completion for bash, made by \`genser completion bash\` from genser's option table.
# Load it: eval "$(genser completion bash)" in ~/.bashrc
_genser() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="\${COMP_WORDS[1]}" at=2 flags
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W ${quote(top.join(' '))} -- "$cur")); return
  fi
  if [ "$cmd" = completion ] && [ "$COMP_CWORD" -eq 2 ]; then
    COMPREPLY=($(compgen -W ${quote(SHELLS.join(' '))} -- "$cur")); return
  fi
  if [ "$cmd" = events ]; then
    if [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=($(compgen -W ${quote(subs.join(' '))} -- "$cur")); return; fi
    cmd="events \${COMP_WORDS[2]}"; at=3
  fi
  if [ "$COMP_CWORD" -ge "$at" ]; then
    case "$cmd:$prev" in
${valueCases}
    esac
  fi
  case "$cmd" in
${flagCases}
    *) return ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _genser genser
`;
}

function zsh(all: CompletedCommand[]): string {
  // zsh runs the bash function through its bashcompinit layer: one script, the same answers.
  return `#compdef genser
# genser completion for zsh, made by \`genser completion zsh\` from genser's option table.
# Load it: eval "$(genser completion zsh)" in ~/.zshrc (after compinit)
autoload -U +X bashcompinit && bashcompinit
${bash(all).split('\n').slice(2).join('\n')}`;
}

function fish(all: CompletedCommand[]): string {
  const top = all.filter((c) => !c.name.includes(' '));
  const subs = all.filter((c) => c.name.startsWith('events ')).map((c) => c.name.split(' ')[1]);
  const lines = [
    "# genser completion for fish, made by `genser completion fish` from genser's option table.",
    '# Load it: genser completion fish > ~/.config/fish/completions/genser.fish',
    'complete -c genser -f',
    ...top.map((c) => `complete -c genser -n __fish_use_subcommand -a ${c.name} -d ${quote(c.description)}`),
    "complete -c genser -n __fish_use_subcommand -a events -d 'behaviour events: example, validate, send, backfill'",
    ...all
      .filter((c) => c.name.startsWith('events '))
      .map(
        (c) =>
          `complete -c genser -n ${quote(`__fish_seen_subcommand_from events; and not __fish_seen_subcommand_from ${subs.join(' ')}`)} -a ${c.name.split(' ')[1]} -d ${quote(c.description)}`,
      ),
  ];
  lines.push(
    `complete -c genser -n '__fish_seen_subcommand_from completion' -a ${quote(SHELLS.join(' '))} -d 'shell'`,
  );
  for (const c of all) {
    const [first, second] = c.name.split(' ');
    const when = second
      ? `__fish_seen_subcommand_from events; and __fish_seen_subcommand_from ${second}`
      : `__fish_seen_subcommand_from ${first}; and not __fish_seen_subcommand_from events`;
    // A command's other words are files (feeds, mappings), as in bash: `-f` above is for the first word.
    if (first !== 'completion') lines.push(`complete -c genser -n ${quote(when)} -F`);
    for (const f of c.flags) {
      const names = f.names
        .map((n) => (n.startsWith('--') ? `-l ${n.slice(2)}` : `-s ${n.slice(1)}`))
        .join(' ');
      const value = f.values ? (f.values.length ? ` -x -a ${quote(f.values.join(' '))}` : ' -r -F') : '';
      lines.push(`complete -c genser -n ${quote(when)} ${names}${value} -d ${quote(f.help.slice(0, 80))}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: string, defs: readonly CommandWords[]): string {
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new UsageError(`no completion for the shell "${shell}"`, `name one of ${SHELLS.join(', ')}`);
  return { bash, zsh, fish }[shell as Shell](completed(defs));
}
