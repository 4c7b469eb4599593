import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/errors.js';
import { registerSecret } from '../shared/secrets.js';
import type { Sources } from './config.js';

/**
 * Loading a secret key (the product API key, the event service key). Never from a flag value:
 * flags show in `ps` and shell history. Sources in order: the `--<name>-file` flag, the env
 * variable, the env variable `<ENV>_FILE`, the config file's `<name>File`, then its `<name>`.
 * Every key loaded is registered so no output can show it.
 */
export interface KeySpec {
  /** For messages: "API key", "service key". */
  label: string;
  /** Flag property of the key file, e.g. `apiKeyFile` (for `--api-key-file`). */
  fileFlag: string;
  /** e.g. `GENSER_API_KEY` (and `GENSER_API_KEY_FILE`). */
  env: string;
  /** Config keys, e.g. `apiKeyFile` and `apiKey`. */
  configFile: string;
  configValue: string;
}

export interface LoadedKey {
  value: string;
  /** Where it came from, for messages (never the value). */
  from: string;
}

/** Trims surrounding whitespace; refuses whitespace inside (the contract's 401 advice: stray spaces). */
export function checkKey(raw: string, label: string, from: string): string {
  const key = raw.trim();
  if (key === '')
    throw new UsageError(
      `the ${label} from ${from} is empty`,
      'put the key issued in the admin settings there',
    );
  if (/\s/.test(key))
    throw new UsageError(
      `the ${label} from ${from} contains whitespace inside it (a space, tab or line break)`,
      'the key is one unbroken string: remove the stray characters (the value is not shown here)',
    );
  return key;
}

function readKeyFile(spec: KeySpec, path: string, from: string): LoadedKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot read the ${spec.label} file ${path} (${from}): ${code === 'ENOENT' ? 'no such file' : (code ?? 'error')}`,
      'create it with the key issued in the admin settings, readable only by you (chmod 600)',
    );
  }
  const label = `key file ${path}`;
  return { value: checkKey(text, spec.label, label), from: label };
}

export function loadKey(spec: KeySpec, sources: Sources): LoadedKey | undefined {
  const flagFile = sources.flags[spec.fileFlag];
  const envValue = sources.env[spec.env];
  const envFile = sources.env[`${spec.env}_FILE`];
  let key: LoadedKey | undefined;
  if (typeof flagFile === 'string') {
    key = readKeyFile(spec, flagFile, `--${spec.fileFlag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`);
  } else if (envValue) {
    key = { value: checkKey(envValue, spec.label, spec.env), from: spec.env };
  } else if (envFile) {
    key = readKeyFile(spec, envFile, `${spec.env}_FILE`);
  } else if (typeof sources.config[spec.configFile] === 'string') {
    key = readKeyFile(
      spec,
      sources.config[spec.configFile] as string,
      `genser.config.json "${spec.configFile}"`,
    );
  } else if (typeof sources.config[spec.configValue] === 'string') {
    const from = `genser.config.json "${spec.configValue}"`;
    key = { value: checkKey(sources.config[spec.configValue] as string, spec.label, from), from };
  }
  if (key) registerSecret(key.value);
  return key;
}

export const API_KEY: KeySpec = {
  label: 'API key',
  fileFlag: 'apiKeyFile',
  env: 'GENSER_API_KEY',
  configFile: 'apiKeyFile',
  configValue: 'apiKey',
};

export const SERVICE_KEY: KeySpec = {
  label: 'service key',
  fileFlag: 'serviceKeyFile',
  env: 'GENSER_SERVICE_KEY',
  configFile: 'serviceKeyFile',
  configValue: 'serviceKey',
};
