import { readFileSync } from 'node:fs';
import { UsageError } from '../shared/errors.js';
import { registerSecret } from '../shared/secrets.js';
import type { OptionName } from './option-table.js';
import type { Resolved } from './settings.js';

/**
 * Loading a secret key (the product API key, the event service key). Never from a flag value:
 * flags show in `ps` and shell history. Sources in order: the `--<name>-file` flag, the env
 * variable, the env variable `<ENV>_FILE`, the config file's `<name>File`, then its `<name>`.
 * Every key loaded is registered so no output can show it.
 */
export interface KeySpec {
  /** For messages: "API key", "service key". */
  label: string;
  /** The option naming the key file (`--api-key-file`, env `GENSER_API_KEY_FILE`, config `apiKeyFile`). */
  fileOption: OptionName;
  /** The variable holding the key itself, e.g. `GENSER_API_KEY`. */
  env: string;
  /** The config file's key holding the key itself, e.g. `apiKey`. */
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
  // A control character (or one past Latin-1) cannot go in a header: sending would fail every time.
  if (/[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u0100-\uffff]/.test(key))
    throw new UsageError(
      `the ${label} from ${from} contains a control or non-Latin-1 character, which no HTTP header can carry`,
      'the key is one unbroken string of printable characters: copy it again from the admin settings (the value is not shown here)',
    );
  if (/\s/.test(key))
    throw new UsageError(
      `the ${label} from ${from} contains whitespace inside it (a space, tab or line break)`,
      'the key is one unbroken string: remove the stray characters (the value is not shown here)',
    );
  return key;
}

/**
 * A key file path that is really a key (pasted where the path goes) must not be echoed: it has no
 * path separator and no file-name dot, and is long enough to be a key.
 */
export function looksLikeKey(value: string): boolean {
  return value.length >= 12 && !/[/\\.~\s]/.test(value);
}

function readKeyFile(spec: KeySpec, path: string, from: string): LoadedKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'no such file' : (code ?? 'error');
    if (looksLikeKey(path)) {
      registerSecret(path);
      throw new UsageError(
        `cannot read the ${spec.label} file named by ${from} (${reason}); the name looks like a key, not a path, so it is not shown`,
        `put the key in a file and give its path, or set ${spec.env} to the key itself`,
      );
    }
    throw new UsageError(
      `cannot read the ${spec.label} file ${path} (${from}): ${reason}`,
      'create it with the key issued in the admin settings, readable only by you (chmod 600)',
    );
  }
  const label = `key file ${path}`;
  return { value: checkKey(text, spec.label, label), from: label };
}

export function loadKey(spec: KeySpec, resolved: Resolved, env: NodeJS.ProcessEnv): LoadedKey | undefined {
  const file = resolved.settings[spec.fileOption] as string | undefined;
  const fileOrigin = resolved.origins[spec.fileOption];
  const envValue = env[spec.env];
  const configValue = resolved.config.values[spec.configValue];
  let key: LoadedKey | undefined;
  // The flag beats everything; the key in the environment beats a key file from env or config.
  if (file !== undefined && fileOrigin?.kind === 'flag') key = readKeyFile(spec, file, fileOrigin.label);
  else if (envValue) key = { value: checkKey(envValue, spec.label, spec.env), from: spec.env };
  else if (file !== undefined) key = readKeyFile(spec, file, fileOrigin?.label ?? spec.fileOption);
  else if (typeof configValue === 'string') {
    const from = `${resolved.config.path ?? 'genser.config.json'} "${spec.configValue}"`;
    key = { value: checkKey(configValue, spec.label, from), from };
  }
  if (key) registerSecret(key.value);
  return key;
}

export const API_KEY: KeySpec = {
  label: 'API key',
  fileOption: 'apiKeyFile',
  env: 'GENSER_API_KEY',
  configValue: 'apiKey',
};

export const SERVICE_KEY: KeySpec = {
  label: 'service key',
  fileOption: 'serviceKeyFile',
  env: 'GENSER_SERVICE_KEY',
  configValue: 'serviceKey',
};

export const loadApiKey = (resolved: Resolved, env: NodeJS.ProcessEnv) => loadKey(API_KEY, resolved, env);
export const loadServiceKey = (resolved: Resolved, env: NodeJS.ProcessEnv) =>
  loadKey(SERVICE_KEY, resolved, env);
