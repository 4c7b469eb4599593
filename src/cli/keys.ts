import { readFileSync, statSync } from 'node:fs';
import { UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { registerSecret } from '../shared/secrets.js';
import { API_KEY, type KeySpec, SERVICE_KEY } from './key-specs.js';
import type { Resolved } from './settings.js';

export { API_KEY, type KeySpec, SERVICE_KEY } from './key-specs.js';

/**
 * Loading a secret key (the product API key, the event service key; src/cli/key-specs.ts says
 * from where). Every key loaded is registered so no output can show it.
 */
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

function readKeyFile(spec: KeySpec, path: string, from: string, log: Pick<Logger, 'warn'>): LoadedKey {
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
  const value = checkKey(text, spec.label, label);
  // As ssh does with a private key: a key others can read is no longer only yours.
  const mode = process.platform === 'win32' ? 0 : statSync(path).mode & 0o777;
  if (mode & 0o077)
    log.warn(
      `the ${spec.label} file ${path} is readable by ${mode & 0o007 ? 'others' : 'its group'} (mode ${mode.toString(8).padStart(3, '0')}): run chmod 600 ${path}`,
    );
  return { value, from: label };
}

export function loadKey(
  spec: KeySpec,
  resolved: Resolved,
  env: NodeJS.ProcessEnv,
  log: Pick<Logger, 'warn'>,
): LoadedKey | undefined {
  const file = resolved.settings[spec.fileOption] as string | undefined;
  const fileOrigin = resolved.origins[spec.fileOption];
  const envValue = env[spec.env];
  let key: LoadedKey | undefined;
  // The flag beats everything; the key in the environment beats a key file from env or config.
  if (file !== undefined && fileOrigin?.kind === 'flag') key = readKeyFile(spec, file, fileOrigin.label, log);
  else if (envValue) key = { value: checkKey(envValue, spec.label, spec.env), from: spec.env };
  else if (file !== undefined) key = readKeyFile(spec, file, fileOrigin?.label ?? spec.fileOption, log);
  if (key) registerSecret(key.value);
  return key;
}

export const loadApiKey = (resolved: Resolved, env: NodeJS.ProcessEnv, log: Pick<Logger, 'warn'>) =>
  loadKey(API_KEY, resolved, env, log);
export const loadServiceKey = (resolved: Resolved, env: NodeJS.ProcessEnv, log: Pick<Logger, 'warn'>) =>
  loadKey(SERVICE_KEY, resolved, env, log);
