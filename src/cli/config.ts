import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../shared/errors.js';

/**
 * Settings come from, in order: flags, then environment, then `genser.config.json` in the
 * working directory (or `--config FILE`), then defaults (DESIGN.md section 4).
 * Flags are declared without commander defaults so that "not given" stays visible here.
 */
export type ConfigFile = Record<string, unknown>;

export const CONFIG_FILE_NAME = 'genser.config.json';

export function loadConfigFile(explicitPath: string | undefined, cwd: string = process.cwd()): ConfigFile {
  const path = explicitPath ? resolve(cwd, explicitPath) : resolve(cwd, CONFIG_FILE_NAME);
  if (!existsSync(path)) {
    if (explicitPath)
      throw new UsageError(`config file ${explicitPath} does not exist`, 'check the --config path');
    return {};
  }
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${path}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('the top level must be an object');
    }
    return parsed as ConfigFile;
  } catch (err) {
    throw new UsageError(
      `config file ${path} is not valid JSON: ${(err as Error).message}`,
      'fix the file or pass --config',
    );
  }
}

export interface Sources {
  flags: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  config: ConfigFile;
}

/** flag, then env var, then config key, then default. Empty env strings count as unset. */
export function pick<T>(
  sources: Sources,
  flag: string,
  envName: string | undefined,
  fallback: T,
  parse: (raw: unknown, from: string) => T = (raw) => raw as T,
): T {
  const fromFlag = sources.flags[flag];
  if (fromFlag !== undefined) return parse(fromFlag, `--${kebab(flag)}`);
  if (envName) {
    const fromEnv = sources.env[envName];
    if (fromEnv !== undefined && fromEnv !== '') return parse(fromEnv, envName);
  }
  const fromConfig = sources.config[flag];
  if (fromConfig !== undefined) return parse(fromConfig, `${CONFIG_FILE_NAME} "${flag}"`);
  return fallback;
}

export function kebab(camel: string): string {
  return camel.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** Parsers for `pick`, each failing with a usage error that names where the value came from. */
export const parseAs = {
  int(min: number, max = Number.MAX_SAFE_INTEGER) {
    return (raw: unknown, from: string): number => {
      const n = typeof raw === 'number' ? raw : Number(String(raw).trim());
      if (!Number.isInteger(n) || n < min || n > max) {
        throw new UsageError(`${from} must be a whole number from ${min} to ${max}; got "${String(raw)}"`);
      }
      return n;
    };
  },
  oneOf<T extends string>(values: readonly T[]) {
    return (raw: unknown, from: string): T => {
      const s = String(raw);
      if (!(values as readonly string[]).includes(s)) {
        throw new UsageError(`${from} must be one of ${values.join(', ')}; got "${s}"`);
      }
      return s as T;
    };
  },
  bool(raw: unknown, from: string): boolean {
    if (typeof raw === 'boolean') return raw;
    const s = String(raw).toLowerCase();
    if (['1', 'true', 'yes'].includes(s)) return true;
    if (['0', 'false', 'no'].includes(s)) return false;
    throw new UsageError(`${from} must be true or false; got "${String(raw)}"`);
  },
  string(raw: unknown): string {
    return String(raw);
  },
};
