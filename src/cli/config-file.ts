import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { closest } from '../shared/closest.js';
import { UsageError } from '../shared/errors.js';
import { KEY_SPECS } from './key-specs.js';

/**
 * The config files (docs/architecture.md, "Settings"): the project file (`genser.config.json` in
 * the working directory, or the file `--config` / GENSER_CONFIG names) over the user file
 * (`$XDG_CONFIG_HOME/genser/config.json`, else `~/.config/genser/config.json`). Keys are option
 * names (the flags in camelCase, as `genser config` lists them), plus `profiles`: named sets of
 * the same settings, one of which `--profile NAME` / GENSER_PROFILE selects. An unknown key is an
 * error naming the closest known one, so a mistyped setting never goes unnoticed; a key itself
 * (`apiKey`, `serviceKey`) is refused: a config file is shared, copied and committed.
 */
export const CONFIG_FILE_NAME = 'genser.config.json';

export interface ConfigFile {
  /** Where it was read from; undefined when there is none. */
  path?: string;
  values: Record<string, unknown>;
  profiles: Record<string, Record<string, unknown>>;
}

/** One place a setting may come from: a file's settings, or one of its profiles. */
export interface ConfigLayer {
  path: string;
  profile?: string;
  values: Record<string, unknown>;
}

export interface Configs {
  project: ConfigFile;
  user: ConfigFile;
  profile?: string;
  /** In order of precedence: the profile in the project file, in the user file, then the plain settings of each. */
  layers: ConfigLayer[];
}

/** `$XDG_CONFIG_HOME/genser/config.json`, else `~/.config/genser/config.json`. */
export function userConfigPath(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is to be ignored.
  const base = xdg?.startsWith('/') ? xdg : join(env.HOME || homedir(), '.config');
  return join(base, 'genser', 'config.json');
}

export function loadConfigs(
  explicitPath: string | undefined,
  from: string,
  knownKeys: readonly string[],
  env: NodeJS.ProcessEnv,
  profile: { name: string; from: string } | undefined,
  cwd: string = process.cwd(),
): Configs {
  const project = loadConfigFile(explicitPath, from, knownKeys, cwd);
  const userPath = userConfigPath(env);
  const user = project.path === userPath ? emptyConfig() : readConfigFile(userPath, knownKeys, false);
  const layers: ConfigLayer[] = [];
  if (profile) {
    for (const file of [project, user]) {
      const values = file.profiles[profile.name];
      if (file.path && values) layers.push({ path: file.path, profile: profile.name, values });
    }
    if (layers.length === 0) throw unknownProfile(profile, [project, user]);
  }
  for (const file of [project, user]) if (file.path) layers.push({ path: file.path, values: file.values });
  return { project, user, profile: profile?.name, layers };
}

function unknownProfile(profile: { name: string; from: string }, files: ConfigFile[]): UsageError {
  const defined = files.flatMap((f) => Object.keys(f.profiles));
  const read = files.flatMap((f) => (f.path ? [f.path] : []));
  return new UsageError(
    `no profile "${profile.name}" (${profile.from}) in ${read.length ? read.join(' or ') : 'any config file (there is none)'}`,
    defined.length
      ? `profiles defined: ${[...new Set(defined)].join(', ')}`
      : 'define it under "profiles" in genser.config.json or the user config file (genser config shows where)',
  );
}

const emptyConfig = (): ConfigFile => ({ values: {}, profiles: {} });

/** The project file: `explicitPath` (which must exist), else `genser.config.json` here when present. */
export function loadConfigFile(
  explicitPath: string | undefined,
  from: string,
  knownKeys: readonly string[],
  cwd: string = process.cwd(),
): ConfigFile {
  const path = resolve(cwd, explicitPath ?? CONFIG_FILE_NAME);
  if (explicitPath && !existsSync(path))
    throw new UsageError(`config file ${explicitPath} (${from}) does not exist`, 'check the path');
  return readConfigFile(path, knownKeys, true);
}

function readConfigFile(path: string, knownKeys: readonly string[], isProject: boolean): ConfigFile {
  if (!existsSync(path)) return emptyConfig();
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(
      `cannot read config file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `config file ${path} is not valid JSON: ${(err as Error).message}`,
      isProject ? 'fix the file or pass --config' : 'fix the file (the user config file)',
    );
  }
  const { profiles, ...values } = settingsObject(parsed, path, knownKeys, true);
  const named: Record<string, Record<string, unknown>> = {};
  if (profiles !== undefined) {
    if (profiles === null || typeof profiles !== 'object' || Array.isArray(profiles))
      throw new UsageError(
        `config file ${path}: "profiles" must be an object of named settings`,
        'e.g. "profiles": {"staging": {"apiUrl": "https://staging.example.com"}}',
      );
    for (const [name, set] of Object.entries(profiles))
      named[name] = settingsObject(set, `${path} profile "${name}"`, knownKeys, false);
  }
  return { path, values, profiles: named };
}

/** The settings of a file or profile, every key checked. */
function settingsObject(
  parsed: unknown,
  where: string,
  knownKeys: readonly string[],
  topLevel: boolean,
): Record<string, unknown> {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(
      `config file ${where}: ${topLevel ? 'the top level' : 'a profile'} must be an object of settings`,
    );
  for (const key of Object.keys(parsed)) {
    if (knownKeys.includes(key) || (topLevel && (key === '$schema' || key === 'profiles'))) continue;
    const secret = KEY_SPECS.find((k) => k.configValue === key);
    if (secret)
      throw new UsageError(
        `config file ${where}: "${key}" holds the ${secret.label} itself, which a config file must not (it is shared, copied and committed)`,
        `put the key in a file readable only by you (chmod 600) and name it with "${secret.fileOption}", or set ${secret.env}`,
      );
    const near = closest(key, knownKeys);
    throw new UsageError(
      `config file ${where}: unknown setting "${key}"${near ? `; did you mean "${near}"?` : ''}`,
      "'genser config' lists every setting with its key",
    );
  }
  return parsed as Record<string, unknown>;
}

/** A path from a config file is relative to that file, not to the working directory. */
export function resolveFromConfig(path: string, value: string): string {
  return resolve(dirname(path), value);
}
