import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { closest } from '../shared/closest.js';
import { UsageError } from '../shared/errors.js';

/**
 * `genser.config.json` in the working directory, or the file `--config` / GENSER_CONFIG names.
 * Keys are option names (the flags in camelCase, as `genser config` lists them) plus the keys'
 * own `apiKey` / `serviceKey`; an unknown key is an error naming the closest known one, so a
 * mistyped setting never goes unnoticed.
 */
export const CONFIG_FILE_NAME = 'genser.config.json';

export interface ConfigFile {
  /** Where it was read from; undefined when there is none. */
  path?: string;
  values: Record<string, unknown>;
}

export function loadConfigFile(
  explicitPath: string | undefined,
  from: string,
  knownKeys: readonly string[],
  cwd: string = process.cwd(),
): ConfigFile {
  const path = resolve(cwd, explicitPath ?? CONFIG_FILE_NAME);
  if (!existsSync(path)) {
    if (explicitPath)
      throw new UsageError(`config file ${explicitPath} (${from}) does not exist`, 'check the path');
    return { values: {} };
  }
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
      'fix the file or pass --config',
    );
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`config file ${path}: the top level must be an object of settings`);
  for (const key of Object.keys(parsed)) {
    if (key === '$schema' || knownKeys.includes(key)) continue;
    const near = closest(key, knownKeys);
    throw new UsageError(
      `config file ${path}: unknown setting "${key}"${near ? `; did you mean "${near}"?` : ''}`,
      "'genser config' lists every setting with its key",
    );
  }
  return { path, values: parsed as Record<string, unknown> };
}

/** A path from the config file is relative to the file, not to the working directory. */
export function resolveFromConfig(config: ConfigFile, value: string): string {
  return config.path ? resolve(dirname(config.path), value) : value;
}
