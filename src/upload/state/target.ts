import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../shared/errors.js';
import type { PayloadFormat } from '../../shared/types.js';
import type { Shard } from '../shard.js';

/**
 * Which state database an upload uses: one per target, named after the API url (canonical),
 * the payload format and a salted fingerprint of the key. The key itself is never stored: only
 * an HMAC of it under a random salt kept beside the databases (docs/nightly.md).
 */

export interface StateTarget {
  /** Canonical API url, or `sandbox:FILE` for an embedded sandbox kept in a file. */
  apiUrl: string;
  format: PayloadFormat;
  /** HMAC-SHA256 of the key under the state directory's salt (hex), or '' without a key. */
  keyFingerprint: string;
  /** `--shard I/N` (N > 1): each shard of the target keeps its own state (docs/nightly.md, "Shards"). */
  shard?: Shard;
}

/** `--state`, else `$XDG_STATE_HOME/genser`, else `~/.local/state/genser`. */
export function defaultStateDir(env: NodeJS.ProcessEnv, home: string = homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  // The XDG spec says a relative value is to be ignored.
  if (xdg?.startsWith('/')) return join(xdg, 'genser');
  return join(home, '.local', 'state', 'genser');
}

/** Names of this machine's loopback host: one target, whichever is written. */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Scheme and host in lower case, no default port, no trailing slash, no query or fragment, and
 * `localhost`, `127.0.0.1` and `[::1]` as one host: two spellings of one target share one state
 * (and so one lock).
 */
export function canonicalApiUrl(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  const host = LOOPBACK.has(u.hostname) ? '127.0.0.1' : u.hostname;
  return `${u.protocol}//${host}${u.port ? `:${u.port}` : ''}${path}`;
}

/**
 * The state directory, created (0700: it holds the salt) when missing; one that every user may
 * write to is refused: another user could plant links there for genser to write through.
 */
export function ensureStateDir(dir: string): void {
  let mode: number;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    mode = statSync(dir).mode;
  } catch (err) {
    throw new UsageError(
      `cannot create the state directory ${dir}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      'choose another with --state DIR or GENSER_STATE_DIR',
    );
  }
  if ((mode & 0o002) !== 0)
    throw new UsageError(
      `the state directory ${dir} is writable by every user (mode ${(mode & 0o7777).toString(8)}): another user could plant files in it`,
      `make it writable by its owner only (\`chmod o-w ${dir}\`, or 700), or give --state DIR a directory of its own`,
    );
}

/** The directory's salt, made once (32 random bytes); two runs racing to make it agree on the first. */
export function stateSalt(dir: string): Buffer {
  const file = join(dir, 'salt');
  try {
    writeFileSync(file, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new UsageError(
        `cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
        'check the permissions of the state directory (--state DIR)',
      );
  }
  const text = readFileSync(file, 'utf8').trim();
  if (!/^[0-9a-f]{64}$/.test(text))
    throw new UsageError(
      `${file} is not a genser salt`,
      'delete it: the state databases of this directory start over',
    );
  return Buffer.from(text, 'hex');
}

export function keyFingerprint(key: string | undefined, salt: Buffer): string {
  return key === undefined ? '' : createHmac('sha256', salt).update(key).digest('hex');
}

/**
 * `api.example.com-standard-1f2e3d4c5b6a7988.sqlite`: readable, and unique per target; a shard's
 * adds `-shard-2-of-4`, so the shards of one target sit side by side under one prefix.
 */
export function stateFileName(target: StateTarget): string {
  const shard = target.shard ? `-shard-${target.shard.index}-of-${target.shard.count}` : '';
  return `${stateFilePrefix(target)}${shard}.sqlite`;
}

/** The part of the file name shared by a target's unsharded state and all its shards' states. */
export function stateFilePrefix(target: StateTarget): string {
  const id = createHash('sha256')
    .update(JSON.stringify([target.apiUrl, target.format, target.keyFingerprint]))
    .digest('hex')
    .slice(0, 16);
  let host = 'sandbox';
  if (!target.apiUrl.startsWith('sandbox:')) host = new URL(target.apiUrl).host;
  return `${host.replace(/[^A-Za-z0-9.-]+/g, '_')}-${target.format}-${id}`;
}
