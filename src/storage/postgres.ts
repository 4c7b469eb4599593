import { createRequire } from 'node:module';
import type { Client, ClientConfig } from 'pg';
import { ExitCode, ExitError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';

/**
 * A connection to a PostgreSQL server (node-postgres), loaded only when a state URL asks for it.
 * The password is found as libpq users expect: in the URL, else `PGPASSWORD`, else the
 * `.pgpass` file (`PGPASSFILE`, else ~/.pgpass; ignored unless readable by its owner only). It
 * is never printed: `shown` is the URL without it, and errors name only that.
 */
export type PgClient = Client;

type PgPass = (info: object, cb: (pass: string | undefined) => void) => void;

function pgpassLookup(config: ClientConfig): Promise<string | undefined> {
  // It warns on stderr, as libpq does, of a file others may read (and then ignores it).
  const pgpass = createRequire(import.meta.url)('pgpass') as PgPass;
  return new Promise((resolve) =>
    pgpass({ host: config.host, port: config.port, database: config.database, user: config.user }, resolve),
  );
}

/**
 * The server probes an idle genser session every 10 s after 30 s of silence and ends it after 3
 * missed answers: a run whose machine vanished (a node lost, no FIN sent) then frees its run
 * lock in about a minute instead of the operating system's two hours (docs/nightly.md, "The run
 * lock"). Settings of the session only; a URL's own `options` are kept before them.
 */
const SERVER_KEEPALIVE = '-c tcp_keepalives_idle=30 -c tcp_keepalives_interval=10 -c tcp_keepalives_count=3';

export async function connectPostgres(url: string, shown: string, env: NodeJS.ProcessEnv): Promise<Client> {
  const [{ default: pg }, { parse }] = await Promise.all([import('pg'), import('pg-connection-string')]);
  const parsed = parse(url) as ClientConfig & { password?: string };
  const fromUrl = parsed.password || undefined;
  const config: ClientConfig = {
    ...parsed,
    application_name: 'genser',
    options: [parsed.options, SERVER_KEEPALIVE].filter(Boolean).join(' '),
    // And this side notices a server that vanished.
    keepAlive: true,
    connectionTimeoutMillis: 15_000,
    password: async () => fromUrl ?? (env.PGPASSWORD || undefined) ?? (await pgpassLookup(parsed)) ?? '',
  };
  const client = new pg.Client(config);
  // A connection lost between queries fails the next query; this only keeps it from crashing the process.
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw postgresProblem(shown, err);
  }
  return client;
}

/** A connection or query failure, naming the URL without its password. */
export function postgresProblem(shown: string, err: unknown): ExitError {
  const message = printable(String((err as Error)?.message ?? err).split('\n')[0]);
  const code = (err as { code?: string })?.code;
  const auth = code === '28P01' || code === '28000' || /password/i.test(message);
  // disk_full: as the SQLite state's full disk (docs/nightly.md), with the fix on the server.
  if (code === '53100')
    return new ExitError(
      ExitCode.usage,
      `the disk is full: the upload state database ${shown} could not be written (53100: ${message})`,
      "free some space on the database server's disk, then run again: batches whose answer the state could not record are sent again with their own id (the service does not store them twice)",
    );
  return new ExitError(
    ExitCode.usage,
    `the upload state database ${shown}: ${message}`,
    auth
      ? 'give the password in PGPASSWORD or a ~/.pgpass file (mode 600); never in a flag'
      : 'check that the server runs and takes connections from here (host, port, database, user in the --state URL)',
  );
}
