import type { CommandContext } from '../commands/context.js';
import { redact } from '../shared/secrets.js';
import { stateLocation } from '../upload/state/location.js';
import { defaultStateDir } from '../upload/state/target.js';
import { userConfigPath } from './config-file.js';
import { API_KEY, type KeySpec, SERVICE_KEY } from './key-specs.js';
import { OPTIONS, type OptionName, type OptionSpec, optionsOf } from './option-table.js';
import type { Resolved } from './settings.js';

/**
 * `genser config [command] [its flags]`: the effective settings of a command (from its flags, the
 * environment, the config files and the defaults), each as it was written and where it came from:
 * which file, which profile. A secret shows only as `set (GENSER_API_KEY)`, never its value.
 */
export interface SettingLine {
  name: string;
  flag: string;
  value: unknown;
  from: string;
  file?: string;
  profile?: string;
}

/** Options about the output of `genser config` itself, not settings of the command shown. */
const NOT_SHOWN = ['json', 'quiet', 'debug', 'config', 'profile'];

export function settingLines(resolved: Resolved, env: NodeJS.ProcessEnv): SettingLine[] {
  const lines: SettingLine[] = [];
  for (const name of optionsOf(resolved.command)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    if (spec.hidden || NOT_SHOWN.includes(name)) continue;
    const origin = resolved.origins[name as OptionName];
    const value = (resolved.settings as Record<string, unknown>)[name];
    // A value parsed into a structure shows as written: `20%`, not {"kind":"percent","max":20}.
    const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
    const written = !structured
      ? value
      : origin?.kind === 'default'
        ? (spec.defaultText ?? value)
        : origin?.raw;
    lines.push({
      name,
      flag: spec.flag.replace(/^-\w, /, ''),
      // A password inside a value (a proxy URL's) is a registered secret: masked here too.
      value: spec.secret && value !== undefined ? `set (${origin?.label})` : masked(written),
      from: origin?.label ?? 'unset',
      ...(origin?.file ? { file: origin.file } : {}),
      ...(origin?.profile ? { profile: origin.profile } : {}),
    });
  }
  const command = resolved.command;
  const key =
    command === 'upload' || command === 'plan' || command === 'stock'
      ? API_KEY
      : command === 'events send' || command === 'events backfill'
        ? SERVICE_KEY
        : undefined;
  if (key) lines.push(keyLine(key, resolved, env));
  return lines;
}

const masked = (v: unknown) => (typeof v === 'string' ? redact(v) : (v ?? null));

/** Where the key would come from, without reading it. */
function keyLine(spec: KeySpec, resolved: Resolved, env: NodeJS.ProcessEnv): SettingLine {
  const fileFrom = resolved.origins[spec.fileOption]?.label;
  const from = fileFrom?.startsWith('--') ? fileFrom : env[spec.env] ? spec.env : fileFrom;
  return { name: spec.label, flag: '', value: from ? `set (${from})` : 'not set', from: from ?? 'unset' };
}

/** The state directory `upload`, `runs` and `stock` would use, and why. */
function stateDirectory(
  resolved: Resolved,
  env: NodeJS.ProcessEnv,
): { dir: string | null; from: string } | undefined {
  if (!['upload', 'runs', 'stock'].includes(resolved.command)) return undefined;
  const s = resolved.settings as { state?: string; sandbox?: boolean };
  const origin = resolved.origins.state;
  if (s.state === undefined && s.sandbox)
    return { dir: null, from: '--sandbox keeps no state unless --state is given' };
  const at = stateLocation(s.state, env);
  // A database is shown without its password.
  if (at.kind === 'postgres') return { dir: at.shown, from: origin?.label ?? 'GENSER_STATE_URL' };
  if (s.state !== undefined) return { dir: s.state, from: origin?.label ?? 'default' };
  return {
    dir: defaultStateDir(env),
    from: env.XDG_STATE_HOME?.startsWith('/') ? 'XDG_STATE_HOME' : 'default',
  };
}

export function runConfig(resolved: Resolved, s: { json?: boolean }, ctx: CommandContext): number {
  const lines = settingLines(resolved, ctx.env);
  const { project, user, profile } = resolved.config;
  const files = {
    project: project.path ?? null,
    user: user.path ?? null,
    userPath: userConfigPath(ctx.env),
  };
  const state = stateDirectory(resolved, ctx.env);
  if (s.json) {
    const doc = {
      command: resolved.command,
      profile: profile ?? null,
      configFiles: files,
      ...(state ? { stateDir: state.dir, stateDirFrom: state.from } : {}),
      settings: lines,
    };
    ctx.stdout.write(`${JSON.stringify(doc, null, 2)}\n`);
    return 0;
  }
  const out = (line: string) => ctx.stdout.write(`${line}\n`);
  out(`settings of genser ${resolved.command} (flags > environment > config files > defaults):`);
  out(`  project config file  ${files.project ?? 'none (no ./genser.config.json here)'}`);
  out(`  user config file     ${files.user ?? `none (no ${files.userPath})`}`);
  out(
    `  profile              ${profile ? `${profile} (${resolved.origins.profile?.label ?? 'GENSER_PROFILE'})` : 'none'}`,
  );
  if (state) out(`  state directory      ${state.dir ?? 'none'} (${state.from})`);
  out('');
  const width = Math.max(...lines.map((l) => l.name.length));
  for (const l of lines) {
    const value =
      l.value === null ? '-' : typeof l.value === 'object' ? JSON.stringify(l.value) : String(l.value);
    out(`  ${l.name.padEnd(width)}  ${value.padEnd(24)}  ${l.from}`);
  }
  return 0;
}
