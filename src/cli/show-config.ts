import type { CommandContext } from '../commands/context.js';
import { UsageError } from '../shared/errors.js';
import { API_KEY, type KeySpec, SERVICE_KEY } from './keys.js';
import {
  COMMANDS,
  type CommandName,
  OPTIONS,
  type OptionName,
  type OptionSpec,
  optionsOf,
} from './option-table.js';
import { resolveSettings } from './settings.js';

/**
 * `genser config [command]`: the effective settings of a command (from the environment, the
 * config file and the defaults) and where each came from. A secret shows only as
 * `set (GENSER_API_KEY)`, never its value.
 */
export interface SettingLine {
  name: string;
  flag: string;
  value: unknown;
  from: string;
}

const ALL_BUT_CONFIG: readonly CommandName[] = COMMANDS.filter((c) => c !== 'config');

export function settingLines(
  command: CommandName,
  env: NodeJS.ProcessEnv,
  configFile?: string,
): SettingLine[] {
  const resolved = resolveSettings(command, configFile ? { config: configFile } : {}, env);
  const lines: SettingLine[] = [];
  for (const name of optionsOf(command)) {
    const spec = OPTIONS[name] as OptionSpec<unknown>;
    if (spec.hidden || ['json', 'quiet', 'debug', 'config'].includes(name)) continue;
    const origin = resolved.origins[name as OptionName];
    const value = (resolved.settings as Record<string, unknown>)[name];
    lines.push({
      name,
      flag: spec.flag.replace(/^-\w, /, ''),
      value: spec.secret && value !== undefined ? `set (${origin?.label})` : (value ?? null),
      from: origin?.label ?? 'unset',
    });
  }
  const key =
    command === 'upload' || command === 'stock'
      ? API_KEY
      : command === 'events send'
        ? SERVICE_KEY
        : undefined;
  if (key) lines.push(keyLine(key, resolved.origins[key.fileOption]?.label, env, resolved.config.values));
  return lines;
}

/** Where the key would come from, without reading it. */
function keyLine(
  spec: KeySpec,
  fileFrom: string | undefined,
  env: NodeJS.ProcessEnv,
  config: Record<string, unknown>,
): SettingLine {
  const from = fileFrom?.startsWith('--')
    ? fileFrom
    : env[spec.env]
      ? spec.env
      : (fileFrom ??
        (typeof config[spec.configValue] === 'string' ? `config "${spec.configValue}"` : undefined));
  return { name: spec.label, flag: '', value: from ? `set (${from})` : 'not set', from: from ?? 'unset' };
}

export function runConfig(
  target: string | undefined,
  s: { json?: boolean; config?: string },
  ctx: CommandContext,
): number {
  const command = (target ?? 'upload') as CommandName;
  if (!ALL_BUT_CONFIG.includes(command))
    throw new UsageError(
      `unknown command "${target}"`,
      `name one of ${ALL_BUT_CONFIG.join(', ')} (quote the two-word ones: 'events send')`,
    );
  const lines = settingLines(command, ctx.env, s.config);
  if (s.json) {
    ctx.stdout.write(`${JSON.stringify({ command, settings: lines }, null, 2)}\n`);
    return 0;
  }
  const width = Math.max(...lines.map((l) => l.name.length));
  ctx.stdout.write(`settings of genser ${command} (flags > environment > config file > defaults):\n`);
  for (const l of lines) {
    const value =
      l.value === null ? '-' : typeof l.value === 'object' ? JSON.stringify(l.value) : String(l.value);
    ctx.stdout.write(`  ${l.name.padEnd(width)}  ${value.padEnd(24)}  ${l.from}\n`);
  }
  return 0;
}
