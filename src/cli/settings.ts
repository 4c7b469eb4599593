import { type ConfigFile, loadConfigFile, resolveFromConfig } from './config-file.js';
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
 * One resolution for every command: flags, then environment, then the config file, then the
 * table's defaults. Each value remembers where it came from (`genser config` shows it, and a
 * mapping file's own defaults apply only under values that nobody set).
 */
export type OriginKind = 'flag' | 'env' | 'config' | 'default';

export interface Origin {
  kind: OriginKind;
  /** `--timeout`, `GENSER_TIMEOUT`, `genser.config.json "timeout"`, or `default`. */
  label: string;
}

export interface Resolved {
  command: CommandName;
  settings: Settings;
  origins: Partial<Record<OptionName, Origin>>;
  config: ConfigFile;
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
  const config = loadConfigFile(
    configFlag ?? configEnv,
    configFlag ? '--config' : 'GENSER_CONFIG',
    CONFIG_KEYS,
    cwd,
  );
  const settings: Record<string, unknown> = {};
  const origins: Partial<Record<OptionName, Origin>> = {};
  for (const name of optionsOf(command)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    const parse = spec.parse ?? p.bool;
    const fromFlag = given(spec, flags);
    const fromEnv = spec.env ? env[spec.env] : undefined;
    const fromConfig = spec.noConfig ? undefined : config.values[name];
    if (fromFlag !== undefined) {
      const label = longFlag(spec.flag);
      settings[name] = typeof fromFlag === 'boolean' && !spec.parse ? fromFlag : parse(fromFlag, label);
      origins[name] = { kind: 'flag', label };
    } else if (fromEnv !== undefined && fromEnv !== '') {
      settings[name] = parse(fromEnv, spec.env as string);
      origins[name] = { kind: 'env', label: spec.env as string };
    } else if (fromConfig !== undefined) {
      const label = `${config.path ?? 'genser.config.json'} "${name}"`;
      const value = parse(fromConfig, label);
      settings[name] = spec.isPath && typeof value === 'string' ? resolveFromConfig(config, value) : value;
      origins[name] = { kind: 'config', label };
    } else {
      const fallback = typeof spec.default === 'function' ? spec.default(command) : spec.default;
      settings[name] = fallback;
      if (fallback !== undefined) origins[name] = { kind: 'default', label: 'default' };
    }
  }
  if (configFlag) origins.config = { kind: 'flag', label: '--config' };
  else if (configEnv) origins.config = { kind: 'env', label: 'GENSER_CONFIG' };
  settings.config = config.path;
  return { command, settings: settings as Settings, origins, config };
}

/** True when the user set the option (flag, environment or config file), not the default. */
export function isSet(resolved: Resolved, name: OptionName): boolean {
  const kind = resolved.origins[name]?.kind;
  return kind !== undefined && kind !== 'default';
}
