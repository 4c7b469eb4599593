import { type Configs, loadConfigs, resolveFromConfig } from './config-file.js';
import {
  attributeOf,
  type CommandName,
  longFlag,
  OPTIONS,
  type OptionName,
  type OptionSpec,
  optionsOf,
  type Settings,
} from './option-table.js';
import * as p from './parsers.js';

/**
 * One resolution for every command: flags, then environment, then the config files (the
 * selected profile's settings first, the project file over the user file: src/cli/config-file.ts),
 * then the table's defaults. Each value remembers where it came from and as what it was written
 * (`genser config` shows both, and a mapping file's own defaults apply only under values that
 * nobody set).
 */
export type OriginKind = 'flag' | 'env' | 'config' | 'default';

export interface Origin {
  kind: OriginKind;
  /** `--timeout`, `GENSER_TIMEOUT`, `/path/genser.config.json "timeout"`, or `default`. */
  label: string;
  /** The config file it came from, and the profile in it. */
  file?: string;
  profile?: string;
  /** As written (flag or environment text, config value), before parsing. */
  raw?: unknown;
}

export interface Resolved {
  command: CommandName;
  settings: Settings;
  origins: Partial<Record<OptionName, Origin>>;
  config: Configs;
}

/** Keys a config file may hold: every option that is read from it. */
export const CONFIG_KEYS: readonly string[] = (Object.keys(OPTIONS) as OptionName[]).filter(
  (name) => !(OPTIONS[name] as OptionSpec<unknown>).noConfig,
);

function given(spec: OptionSpec<unknown>, flags: Record<string, unknown>): unknown {
  const value = flags[attributeOf(spec.flag)];
  // A lone `--no-x` makes commander default x to true: only false means the flag was given.
  if (spec.flag.startsWith('--no-')) return value === false ? false : undefined;
  return value;
}

export function resolveSettings(
  command: CommandName,
  flags: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): Resolved {
  const configFlag = flags.config as string | undefined;
  const configEnv = env.GENSER_CONFIG || undefined;
  const profileFlag = flags.profile as string | undefined;
  const profileEnv = env.GENSER_PROFILE || undefined;
  const profile = profileFlag
    ? { name: profileFlag, from: '--profile' }
    : profileEnv
      ? { name: profileEnv, from: 'GENSER_PROFILE' }
      : undefined;
  const config = loadConfigs(
    configFlag ?? configEnv,
    configFlag ? '--config' : 'GENSER_CONFIG',
    CONFIG_KEYS,
    env,
    profile,
    cwd,
  );
  const settings: Record<string, unknown> = {};
  const origins: Partial<Record<OptionName, Origin>> = {};
  for (const name of optionsOf(command)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    const parse = spec.parse ?? p.bool;
    const fromFlag = given(spec, flags);
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const layer = spec.noConfig ? undefined : config.layers.find((l) => l.values[name] !== undefined);
    if (fromFlag !== undefined) {
      const label = longFlag(spec.flag);
      settings[name] = typeof fromFlag === 'boolean' && !spec.parse ? fromFlag : parse(fromFlag, label);
      origins[name] = { kind: 'flag', label, raw: fromFlag };
    } else if (fromEnv !== undefined && fromEnv !== '') {
      settings[name] = parse(fromEnv, spec.env as string);
      origins[name] = { kind: 'env', label: spec.env as string, raw: fromEnv };
    } else if (layer) {
      const raw = layer.values[name];
      const label = `${layer.path}${layer.profile ? ` profile "${layer.profile}"` : ''} "${name}"`;
      const value = parse(raw, label);
      settings[name] =
        spec.isPath && typeof value === 'string' && !/^\w+:\/\//.test(value)
          ? resolveFromConfig(layer.path, value)
          : value;
      origins[name] = { kind: 'config', label, file: layer.path, profile: layer.profile, raw };
    } else {
      const fallback = typeof spec.default === 'function' ? spec.default(command) : spec.default;
      settings[name] = fallback;
      if (fallback !== undefined) origins[name] = { kind: 'default', label: 'default' };
    }
  }
  if (configFlag) origins.config = { kind: 'flag', label: '--config' };
  else if (configEnv) origins.config = { kind: 'env', label: 'GENSER_CONFIG' };
  settings.config = config.project.path;
  return { command, settings: settings as Settings, origins, config };
}

/** True when the user set the option (flag, environment or config file), not the default. */
export function isSet(resolved: Resolved, name: OptionName): boolean {
  const kind = resolved.origins[name]?.kind;
  return kind !== undefined && kind !== 'default';
}
