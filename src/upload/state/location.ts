import { UsageError } from '../../shared/errors.js';
import { printable } from '../../shared/printable.js';
import { registerUrlSecrets } from '../../shared/secrets.js';
import { defaultStateDir } from './target.js';

/**
 * Where the upload state lives (docs/nightly.md, "State in PostgreSQL"): a directory of SQLite
 * files (the default), or a PostgreSQL database named by a `postgres://` URL, given with
 * `--state`, `GENSER_STATE_DIR` or the config key `state`, else `GENSER_STATE_URL`. A plain
 * path always means a directory.
 */
export type StateLocation =
  | { kind: 'dir'; dir: string }
  /** `shown`: the URL without its password, for every message. */
  | { kind: 'postgres'; url: string; shown: string };

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text);
}

/**
 * A postgres:// URL, checked; its password is registered as a secret before any message names
 * the URL (src/shared/secrets.ts), and the URL as shown has none.
 */
export function checkPostgresUrl(
  text: string,
  from: string,
  onCommandLine = false,
): { url: string; shown: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `${from} is not a valid postgres:// URL`,
      'e.g. postgres://genser@db.example.com:5432/genser (the password from PGPASSWORD or ~/.pgpass)',
    );
  }
  registerUrlSecrets(url);
  // The command line is seen by every user of the machine (ps) and kept in shell history.
  if (onCommandLine && url.password !== '')
    throw new UsageError(
      `${from} has a password in it: the command line is seen by every user (ps) and kept in shell history`,
      'give the URL without it, and the password in PGPASSWORD or ~/.pgpass (or the whole URL in GENSER_STATE_URL)',
    );
  const shown = shownUrl(url);
  if (url.pathname.replace(/^\//, '') === '')
    throw new UsageError(
      `${from} names no database: ${printable(shown)}`,
      'e.g. postgres://genser@db:5432/genser',
    );
  return { url: text, shown };
}

/** The URL as it may be printed: scheme, user, host, port, database; no password, no query. */
export function shownUrl(url: URL): string {
  const user = url.username ? `${url.username}@` : '';
  return `${url.protocol}//${user}${url.host}${url.pathname}`;
}

export function stateLocation(state: string | undefined, env: NodeJS.ProcessEnv): StateLocation {
  const fromUrlEnv = state === undefined && env.GENSER_STATE_URL ? env.GENSER_STATE_URL : undefined;
  if (fromUrlEnv !== undefined && !isPostgresUrl(fromUrlEnv))
    throw new UsageError(
      'GENSER_STATE_URL must be a postgres:// URL',
      'set GENSER_STATE_DIR (or --state DIR) for a directory',
    );
  const given = state ?? fromUrlEnv;
  if (given !== undefined && isPostgresUrl(given))
    return { kind: 'postgres', ...checkPostgresUrl(given, fromUrlEnv ? 'GENSER_STATE_URL' : '--state') };
  return { kind: 'dir', dir: given ?? defaultStateDir(env) };
}
